package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hotkv/hotkv/internal/bench/kv"
	"github.com/hotkv/hotkv/internal/bench/vector"
)

// Chart is a picture the Markdown links to.
type Chart struct {
	Title string
	File  string // relative to the Markdown file
}

// Markdown writes r as Markdown tables, linking charts.
func Markdown(w io.Writer, r *Report, charts []Chart) {
	title := "hotkv-bench"
	switch {
	case r.KV != nil:
		title += " kv"
	case r.Vector != nil:
		title += " vector"
	}
	fmt.Fprintf(w, "# %s, %s\n\n", title, r.Created.UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(w, "Command line:\n\n```\n%s\n```\n\n", r.CommandLine)
	m := r.Machine
	fmt.Fprintf(w, "Machine: %s, %s (%d cores, %d usable by the load generator), %.0f GiB, Linux %s, %s/%s, %s.\n\n",
		m.Host, m.CPU, m.Cores, m.Usable, m.MemoryGiB, m.Kernel, m.OS, m.Arch, m.Go)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
	if r.KV != nil {
		kvMarkdown(w, r.KV)
	}
	if r.Vector != nil {
		vectorMarkdown(w, r.Vector)
	}
	for _, c := range charts {
		fmt.Fprintf(w, "![%s](%s)\n\n", c.Title, c.File)
	}
}

// Num formats a rate with thousands separators.
func Num(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func us(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2f ms", v/1000)
	}
	return fmt.Sprintf("%.0f µs", v)
}

// distinct lists field(p) of every point, in first-seen order.
func distinct(points []KVPoint, field func(KVPoint) string) []string {
	var out []string
	for _, p := range points {
		if v := field(p); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func serverNames(points []KVPoint) []string {
	return distinct(points, func(p KVPoint) string { return p.Server })
}

func commands(points []KVPoint) []string {
	return distinct(points, func(p KVPoint) string { return p.Command })
}

func kvMarkdown(w io.Writer, k *KV) {
	s := k.Settings
	window := fmt.Sprintf("%.1f s counted", s.Duration)
	if s.Requests > 0 {
		window = fmt.Sprintf("%d requests counted", s.Requests)
	}
	fmt.Fprintf(w, "## Key-value throughput\n\n%d connections, key space %d, values of %d bytes, %.1f s warm-up then %s, median of %d runs, load generator GOMAXPROCS %d.\n\n",
		s.Connections, s.KeySpace, s.ValueSize, s.Warmup, window, s.Runs, s.Threads)
	fmt.Fprintln(w, "| server | software | version | address | local pid |\n|---|---|---|---|---|")
	for _, sv := range k.Servers {
		pid := "-"
		if sv.PID > 0 {
			pid = fmt.Sprint(sv.PID)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", sv.Name, sv.Software, sv.Version, sv.Addr, pid)
	}
	fmt.Fprintln(w)
	servers := serverNames(k.Points)
	for _, pl := range s.Pipelines {
		fmt.Fprintf(w, "### ops/s, pipeline %d\n\n", pl)
		commandTable(w, k.Points, servers, pl, func(p *KVPoint) (string, float64) {
			return kvCell(p.Median), p.Median.OpsPerSec
		})
		cpuTable(w, k.Points, servers, pl)
		fmt.Fprintf(w, "Latency and CPU, pipeline %d (p50 / p99 / p99.9; load generator CPU in cores and µs per request; server CPU µs per request where the server is local):\n\n", pl)
		fmt.Fprintln(w, "| server | command | p50 | p99 | p99.9 | generator cores | generator µs/op | server cores | server µs/op | errors |\n|---|---|---|---|---|---|---|---|---|---|")
		for _, sv := range servers {
			for _, cmd := range commands(k.Points) {
				p := findKV(k.Points, sv, cmd, pl)
				if p == nil {
					continue
				}
				m := p.Median
				srv := "- | -"
				if m.ServerUsOp > 0 {
					srv = fmt.Sprintf("%.2f | %.2f", m.ServerCores, m.ServerUsOp)
				}
				errs := "0"
				if m.Errors > 0 {
					errs = fmt.Sprintf("%d (%s)", m.Errors, m.FirstError)
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.2f | %.2f | %s | %s |\n", sv, cmd, us(m.P50us), us(m.P99us), us(m.P999us), m.ClientCores, m.ClientCores*1e6/max(m.OpsPerSec, 1), srv, errs)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "The load generator's ceiling on one core is about 10⁶ / (generator µs/op) requests per second.\n")
	fmt.Fprintf(w, "\"(client-bound)\" marks runs where the load generator used more than 85%% of the cores it may use: the figure is a floor for that server, not its limit.\n\n")
}

// cpuTable compares the servers' CPU time per request, which a machine
// busy with other work disturbs far less than throughput.
func cpuTable(w io.Writer, points []KVPoint, servers []string, pl int) {
	var local []string
	for _, sv := range servers {
		for _, p := range points {
			if p.Server == sv && p.Pipeline == pl && p.Median.ServerUsOp > 0 {
				local = append(local, sv)
				break
			}
		}
	}
	if len(local) == 0 {
		return
	}
	fmt.Fprintf(w, "Server CPU µs per request, pipeline %d (user + system time of the server process over the counted window; lower is better):\n\n", pl)
	commandTable(w, points, local, pl, func(p *KVPoint) (string, float64) {
		if p.Median.ServerUsOp == 0 {
			return "-", 0
		}
		return fmt.Sprintf("%.2f", p.Median.ServerUsOp), p.Median.ServerUsOp
	})
}

// commandTable writes, at pipeline pl, one row per command and one column per server
// (cell gives a point's text and value), plus the ratio of the first two
// servers' values.
func commandTable(w io.Writer, points []KVPoint, servers []string, pl int, cell func(*KVPoint) (string, float64)) {
	fmt.Fprintf(w, "| command | %s |", strings.Join(servers, " | "))
	ratio := len(servers) > 1
	if ratio {
		fmt.Fprintf(w, " %s / %s |", servers[0], servers[1])
	}
	fmt.Fprintf(w, "\n|---|%s", strings.Repeat("---|", len(servers)))
	if ratio {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, cmd := range commands(points) {
		fmt.Fprintf(w, "| %s |", cmd)
		var v []float64
		for _, sv := range servers {
			p := findKV(points, sv, cmd, pl)
			if p == nil {
				fmt.Fprint(w, " - |")
				v = append(v, 0)
				continue
			}
			text, val := cell(p)
			fmt.Fprintf(w, " %s |", text)
			v = append(v, val)
		}
		if ratio {
			if v[0] > 0 && v[1] > 0 {
				fmt.Fprintf(w, " %.2fx |", v[0]/v[1])
			} else {
				fmt.Fprint(w, " - |")
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

func kvCell(m kv.Result) string {
	s := Num(m.OpsPerSec)
	if m.ClientBound {
		s += fmt.Sprintf(" (client-bound, %.0f%% CPU)", 100*m.ClientCores)
	}
	if m.Errors > 0 && m.Errors == m.Ops {
		s = "error"
	}
	return s
}

func findKV(points []KVPoint, server, cmd string, pipeline int) *KVPoint {
	for i := range points {
		p := &points[i]
		if p.Server == server && p.Command == cmd && p.Pipeline == pipeline {
			return p
		}
	}
	return nil
}

func engineNames(es []*EngineResult) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

func vectorMarkdown(w io.Writer, v *Vector) {
	d, s := v.Dataset, v.Settings
	fmt.Fprintf(w, "## Vector search\n\nData: %s", d.Source)
	if d.QuerySource != "" {
		fmt.Fprintf(w, " (queries from %s)", d.QuerySource)
	}
	fmt.Fprintf(w, ", %d dimensions, %d base vectors, %d queries, %s, top-%d; exact ground truth in float64 (%s).\n\n", d.Dim, d.Base, d.Queries, d.Metric, d.K, d.GroundTruth)
	fmt.Fprintf(w, "HNSW M=%d, ef_construction=%d, float32. QPS: one connection per client, one request in flight each, requests encoded before timing, %.1f s warm-up then %.1f s counted, median of %d runs.\n\n",
		s.M, s.EFConstruction, s.Warmup, s.Duration, s.Runs)
	names := engineNames(v.Engines)
	fmt.Fprintln(w, "| engine | server | load connections | vectors | seconds | vectors/s | used_memory | RSS |\n|---|---|---|---|---|---|---|---|")
	for _, e := range v.Engines {
		if e.Load == nil {
			fmt.Fprintf(w, "| %s | %s | - | (loaded earlier) | | | | |\n", e.Name, e.Server.Label())
			continue
		}
		l := e.Load
		rss := "-"
		if l.RSS > 0 {
			rss = fmt.Sprintf("%.1f MiB", float64(l.RSS)/(1<<20))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %.1f | %s | %.1f MiB | %s |\n", e.Name, e.Server.Label(), l.Connections, l.Vectors, l.Seconds, Num(l.PerSec), float64(l.UsedMemory)/(1<<20), rss)
	}
	fmt.Fprintf(w, "\n### Recall@%d per ef (one connection)\n\n| ef | %s |\n|---|%s\n", d.K, strings.Join(names, " | "), strings.Repeat("---|", len(names)))
	for _, ef := range s.EFs {
		fmt.Fprintf(w, "| %d |", ef)
		for _, e := range v.Engines {
			if r, ok := recallAt(e.Recall, ef); ok {
				fmt.Fprintf(w, " %.4f |", r)
			} else {
				fmt.Fprint(w, " - |")
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, e := range v.Engines {
		fmt.Fprintf(w, "### %s: QPS (p50 latency) per ef x clients\n\n| ef | %s |\n|---|%s\n", e.Name, joinInts(s.Clients, " | "), strings.Repeat("---|", len(s.Clients)))
		for _, ef := range s.EFs {
			fmt.Fprintf(w, "| %d |", ef)
			for _, c := range s.Clients {
				g := findGrid(e, ef, c)
				if g == nil {
					fmt.Fprint(w, " - |")
					continue
				}
				fmt.Fprintf(w, " %s (%s) |", Num(g.Median.OpsPerSec), us(g.Median.P50us))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	matchedMarkdown(w, v.Engines)
}

func matchedMarkdown(w io.Writer, engines []*EngineResult) {
	names := engineNames(engines)
	fmt.Fprintf(w, "### Recall-matched QPS\n\nFor each recall target, each engine's fastest measured ef that reaches it (no interpolation): ef, recall, QPS, p50 / p99.\n\n| recall ≥ | clients | %s |", strings.Join(names, " | "))
	for _, n := range names[1:] {
		fmt.Fprintf(w, " %s / %s |", names[0], n)
	}
	fmt.Fprintf(w, "\n|---|---|%s%s\n", strings.Repeat("---|", len(names)), strings.Repeat("---|", len(names)-1))
	for _, m := range Matched(engines, []float64{0.90, 0.95, 0.99}) {
		fmt.Fprintf(w, "| %.2f | %d |", m.Target, m.Clients)
		for _, p := range m.Picks {
			if p == nil {
				fmt.Fprint(w, " not reached |")
				continue
			}
			fmt.Fprintf(w, " ef %d, %.3f, %s QPS, %s / %s |", p.EF, p.Recall, Num(p.QPS), us(p.P50us), us(p.P99us))
		}
		for _, p := range m.Picks[1:] {
			if m.Picks[0] == nil || p == nil {
				fmt.Fprint(w, " - |")
				continue
			}
			fmt.Fprintf(w, " %.2fx |", m.Picks[0].QPS/p.QPS)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

func findGrid(e *EngineResult, ef, clients int) *vector.GridPoint {
	for i := range e.Grid {
		if e.Grid[i].EF == ef && e.Grid[i].Clients == clients {
			return &e.Grid[i]
		}
	}
	return nil
}

func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}
