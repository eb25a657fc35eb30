// Package chart draws a report's results as PNG and SVG (gonum/plot):
// QPS against recall per engine, QPS against clients per recall target,
// and key-value ops/s per command per server.
package chart

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/hotkv/hotkv/internal/bench/report"
)

// Written is a chart saved as base.png and base.svg.
type Written struct {
	Title string
	Base  string // path without extension
}

func save(p *plot.Plot, w, h vg.Length, base string) error {
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(w, h, base+ext); err != nil {
			return fmt.Errorf("chart %s: %v", base+ext, err)
		}
	}
	return nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

// logY puts the Y axis on a log scale when the values span more than a
// factor of 20 (and are all positive).
func logY(p *plot.Plot, lo, hi float64) {
	if lo > 0 && hi/lo > 20 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
}

// headroom leaves room above the data for the legend.
func headroom(p *plot.Plot) {
	if _, ok := p.Y.Scale.(plot.LogScale); ok {
		p.Y.Max *= 2
		return
	}
	p.Y.Max += 0.25 * (p.Y.Max - p.Y.Min)
}

// clientCounts is how many client counts have a pick for recall target t.
func clientCounts(matches []report.Match, t float64) int {
	var seen []int
	for _, m := range matches {
		if m.Target == t && !slices.Contains(seen, m.Clients) && slices.ContainsFunc(m.Picks, func(p *report.Pick) bool { return p != nil }) {
			seen = append(seen, m.Clients)
		}
	}
	return len(seen)
}

// Vector draws, into dir with names starting with prefix, QPS vs recall
// for each client count and, for each recall target reached at more than
// one client count, QPS vs clients.
func Vector(v *report.Vector, dir, prefix string) ([]Written, error) {
	var out []Written
	draw := func(p *plot.Plot, title, name string, xyOf func(i int, e *report.EngineResult) plotter.XYs) error {
		lo, hi, n := math.Inf(1), 0.0, 0
		for i, e := range v.Engines {
			xy := xyOf(i, e)
			if len(xy) == 0 {
				continue
			}
			for _, pt := range xy {
				lo, hi = min(lo, pt.Y), max(hi, pt.Y)
			}
			n++
			if err := addLine(p, e.Name, xy, i); err != nil {
				return err
			}
		}
		if n == 0 {
			return nil
		}
		logY(p, lo, hi)
		if _, log := p.Y.Scale.(plot.LogScale); !log {
			p.Y.Min = 0
			p.Y.Tick.Marker = thousands{}
		}
		headroom(p)
		if _, log := p.X.Scale.(plot.LogScale); !log {
			pad := 0.03 * (p.X.Max - p.X.Min)
			p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
		}
		base := filepath.Join(dir, prefix+"-"+name)
		if err := save(p, 6*vg.Inch, 4*vg.Inch, base); err != nil {
			return err
		}
		out = append(out, Written{title, base})
		return nil
	}
	for _, c := range v.Settings.Clients {
		title := fmt.Sprintf("QPS vs recall@%d, %d client(s)", v.Dataset.K, c)
		p := newPlot(title, fmt.Sprintf("recall@%d", v.Dataset.K), "queries/s")
		err := draw(p, title, fmt.Sprintf("qps-recall-c%d", c), func(_ int, e *report.EngineResult) plotter.XYs {
			var xy plotter.XYs
			for _, g := range e.Grid {
				if r, ok := recall(e, g.EF); ok && g.Clients == c {
					xy = append(xy, plotter.XY{X: r, Y: g.Median.OpsPerSec})
				}
			}
			return xy
		})
		if err != nil {
			return out, err
		}
	}
	matches := report.Matched(v.Engines, []float64{0.90, 0.95, 0.99})
	for _, t := range []float64{0.90, 0.95, 0.99} {
		if clientCounts(matches, t) < 2 {
			// One client count is one point per line; gonum widens a
			// one-value log axis to start at 0 and panics.
			continue
		}
		title := fmt.Sprintf("QPS vs clients at recall@%d ≥ %.2f", v.Dataset.K, t)
		p := newPlot(title, "clients", "queries/s")
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = clientTicks(v.Settings.Clients)
		err := draw(p, title, fmt.Sprintf("qps-clients-r%02.0f", 100*t), func(i int, _ *report.EngineResult) plotter.XYs {
			var xy plotter.XYs
			for _, m := range matches {
				if m.Target == t && m.Picks[i] != nil {
					xy = append(xy, plotter.XY{X: float64(m.Clients), Y: m.Picks[i].QPS})
				}
			}
			return xy
		})
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func recall(e *report.EngineResult, ef int) (float64, bool) {
	for _, r := range e.Recall {
		if r.EF == ef {
			return r.Recall, true
		}
	}
	return 0, false
}

func addLine(p *plot.Plot, name string, xy plotter.XYs, i int) error {
	l, s, err := plotter.NewLinePoints(xy)
	if err != nil {
		return err
	}
	l.Color = plotutil.Color(i)
	l.Width = vg.Points(1.5)
	s.Color = plotutil.Color(i)
	s.Shape = plotutil.Shape(i)
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

type clientTicks []int

func (c clientTicks) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for _, x := range c {
		if float64(x) >= lo && float64(x) <= hi {
			t = append(t, plot.Tick{Value: float64(x), Label: fmt.Sprint(x)})
		}
	}
	return t
}

// KV draws, for each pipeline depth, ops/s per command with one bar per
// server.
func KV(k *report.KV, dir, prefix string) ([]Written, error) {
	var out []Written
	var servers, cmds []string
	for _, p := range k.Points {
		if !slices.Contains(servers, p.Server) {
			servers = append(servers, p.Server)
		}
		if !slices.Contains(cmds, p.Command) {
			cmds = append(cmds, p.Command)
		}
	}
	for _, pl := range k.Settings.Pipelines {
		title := fmt.Sprintf("ops/s per command, pipeline %d, %d connections", pl, k.Settings.Connections)
		p := newPlot(title, "", "ops/s")
		p.Legend.Left = false
		w := vg.Points(float64(min(40, 120/len(servers))))
		for si, sv := range servers {
			vals := make(plotter.Values, len(cmds))
			for ci, c := range cmds {
				for _, pt := range k.Points {
					if pt.Server == sv && pt.Command == c && pt.Pipeline == pl {
						vals[ci] = pt.Median.OpsPerSec
					}
				}
			}
			b, err := plotter.NewBarChart(vals, w)
			if err != nil {
				return out, err
			}
			b.LineStyle.Width = 0
			b.Color = plotutil.Color(si)
			b.Offset = vg.Length(float64(si)-float64(len(servers)-1)/2) * w
			p.Add(b)
			p.Legend.Add(sv, b)
		}
		p.NominalX(cmds...)
		p.X.Min, p.X.Max = -0.7, float64(len(cmds))-0.3
		p.Y.Min = 0
		headroom(p)
		p.Y.Tick.Marker = thousands{}
		base := filepath.Join(dir, fmt.Sprintf("%s-ops-p%d", prefix, pl))
		if err := save(p, vg.Length(max(6, 0.4*float64(len(cmds)*len(servers))+2))*vg.Inch, 4*vg.Inch, base); err != nil {
			return out, err
		}
		out = append(out, Written{title, base})
	}
	return out, nil
}

// thousands labels the default ticks with k/M suffixes.
type thousands struct{}

func (thousands) Ticks(lo, hi float64) []plot.Tick {
	t := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range t {
		if t[i].Label == "" {
			continue
		}
		v := t[i].Value
		switch {
		case v < 1e3:
			t[i].Label = fmt.Sprintf("%.0f", v)
		case v >= 1e6:
			t[i].Label = strings.TrimSuffix(fmt.Sprintf("%.1f", v/1e6), ".0") + "M"
		case v >= 1e3:
			t[i].Label = strings.TrimSuffix(fmt.Sprintf("%.1f", v/1e3), ".0") + "k"
		}
	}
	return t
}
