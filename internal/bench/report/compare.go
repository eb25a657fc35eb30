package report

import (
	"fmt"
	"io"
	"strings"
)

// Compare prints B/A ratios for every point measured in both reports.
// Servers and engines pair by name; when each report has exactly one,
// they pair whatever their names.
func Compare(w io.Writer, a, b *Report, nameA, nameB string) error {
	printed := false
	if a.KV != nil && b.KV != nil {
		printed = true
		fmt.Fprintf(w, "Key-value ops/s (B = %s, A = %s)\n\n", nameB, nameA)
		fmt.Fprintf(w, "%-10s %-8s %-12s %14s %14s %8s\n", "server", "pipeline", "command", "A ops/s", "B ops/s", "B/A")
		sa, sb := serverNames(a.KV.Points), serverNames(b.KV.Points)
		if len(pairs(sa, sb)) == 0 {
			fmt.Fprintf(w, "(no server in both: A has %s, B has %s)\n", strings.Join(sa, ", "), strings.Join(sb, ", "))
		}
		for _, pair := range pairs(sa, sb) {
			for _, pa := range a.KV.Points {
				if pa.Server != pair[0] {
					continue
				}
				pb := findKV(b.KV.Points, pair[1], pa.Command, pa.Pipeline)
				if pb == nil {
					continue
				}
				fmt.Fprintf(w, "%-10s %-8d %-12s %14s %14s %7.2fx\n", pair[0], pa.Pipeline, pa.Command,
					Num(pa.Median.OpsPerSec), Num(pb.Median.OpsPerSec), ratio(pb.Median.OpsPerSec, pa.Median.OpsPerSec))
			}
		}
		fmt.Fprintln(w)
	}
	if a.Vector != nil && b.Vector != nil {
		printed = true
		na, nb := engineNames(a.Vector.Engines), engineNames(b.Vector.Engines)
		if len(pairs(na, nb)) == 0 {
			fmt.Fprintf(w, "Vector: no engine in both: A has %s, B has %s\n", strings.Join(na, ", "), strings.Join(nb, ", "))
		}
		for _, pair := range pairs(na, nb) {
			ea, eb := findEngine(a.Vector.Engines, pair[0]), findEngine(b.Vector.Engines, pair[1])
			fmt.Fprintf(w, "Vector %s (A, %s) vs %s (B, %s)\n\n", ea.Name, nameA, eb.Name, nameB)
			fmt.Fprintf(w, "%-5s %-8s %8s %8s %12s %12s %8s\n", "ef", "clients", "A recall", "B recall", "A QPS", "B QPS", "B/A")
			for _, ga := range ea.Grid {
				gb := findGrid(eb, ga.EF, ga.Clients)
				if gb == nil {
					continue
				}
				ra, _ := recallAt(ea.Recall, ga.EF)
				rb, _ := recallAt(eb.Recall, ga.EF)
				fmt.Fprintf(w, "%-5d %-8d %8.4f %8.4f %12s %12s %7.2fx\n", ga.EF, ga.Clients, ra, rb,
					Num(ga.Median.OpsPerSec), Num(gb.Median.OpsPerSec), ratio(gb.Median.OpsPerSec, ga.Median.OpsPerSec))
			}
			fmt.Fprintln(w)
			fmt.Fprintf(w, "Recall-matched (fastest ef reaching the target)\n\n%-8s %-8s %22s %22s %8s\n", "recall", "clients", "A ef/QPS", "B ef/QPS", "B/A")
			ma := Matched([]*EngineResult{ea}, []float64{0.90, 0.95, 0.99})
			mb := Matched([]*EngineResult{eb}, []float64{0.90, 0.95, 0.99})
			for i := range ma {
				if i >= len(mb) || ma[i].Clients != mb[i].Clients {
					break
				}
				pa, pb := ma[i].Picks[0], mb[i].Picks[0]
				r := "-"
				if pa != nil && pb != nil {
					r = fmt.Sprintf("%.2fx", ratio(pb.QPS, pa.QPS))
				}
				fmt.Fprintf(w, "%-8.2f %-8d %22s %22s %8s\n", ma[i].Target, ma[i].Clients, pickText(pa), pickText(pb), r)
			}
			fmt.Fprintln(w)
		}
	}
	if !printed {
		return fmt.Errorf("%s and %s hold no results of the same kind (kv or vector)", nameA, nameB)
	}
	return nil
}

func pickText(p *Pick) string {
	if p == nil {
		return "not reached"
	}
	return fmt.Sprintf("ef %d / %s", p.EF, Num(p.QPS))
}

func ratio(b, a float64) float64 {
	if a == 0 {
		return 0
	}
	return b / a
}

// pairs matches names present in both lists, or the only name of each.
func pairs(a, b []string) [][2]string {
	var out [][2]string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, [2]string{x, y})
			}
		}
	}
	if len(out) == 0 && len(a) == 1 && len(b) == 1 {
		out = append(out, [2]string{a[0], b[0]})
	}
	return out
}

func findEngine(es []*EngineResult, name string) *EngineResult {
	for _, e := range es {
		if e.Name == name {
			return e
		}
	}
	return nil
}
