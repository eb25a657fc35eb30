package report

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hotkv/hotkv/internal/bench/kv"
)

// Page is the one-screen page of current results (docs/benchmarks.md):
// a header with the machine and the software, then one table per report.
type Page struct {
	Path    string  // the page, from the repository root; links are made relative to it
	Command string  // the command that regenerates the page
	Method  []Link  // how the figures are measured
	More    []Link  // everything else measured, with dates
	Inputs  []Input // one table each, in this order
}

// Link is a document the page points to, by its path from the repository root.
type Link struct {
	Text, Path string
}

// Input is one report on the page.
type Input struct {
	Path   string // the JSON, from the repository root
	Full   string // the full Markdown report, if there is one
	Report *Report
}

// Summary writes the page.
func Summary(w io.Writer, p Page) {
	fmt.Fprintf(w, "# Benchmarks\n\n")
	fmt.Fprintf(w, "<!-- Generated from JSON by hotkv-bench summary; do not edit. Regenerate with the command below. -->\n\n")
	fmt.Fprintf(w, "Current results, one table per comparison. Speed is compared as ratios\n")
	fmt.Fprintf(w, "between servers measured in the same run on the same machine; absolute rates\n")
	fmt.Fprintf(w, "on this machine drift from run to run. Regenerate this page with\n\n")
	fmt.Fprintf(w, "```sh\n%s\n```\n\n", p.Command)
	fmt.Fprintf(w, "- **Machine:** %s\n", strings.Join(machines(p.Inputs), "; "))
	fmt.Fprintf(w, "- **Software:** %s\n", strings.Join(software(p.Inputs), ", "))
	fmt.Fprintf(w, "- **Method:** %s\n", p.links(p.Method))
	fmt.Fprintf(w, "- **Everything else, with dates:** %s\n\n", p.links(p.More))
	if slices.ContainsFunc(p.Inputs, func(in Input) bool { return in.Report.KV != nil }) {
		fmt.Fprintf(w, "\"(cb)\": the load generator used more than 85%% of its cores in one or both\n")
		fmt.Fprintf(w, "runs, so the ratio measures the generator as much as the servers; read the\n")
		fmt.Fprintf(w, "servers' CPU per request (µs/op, lower is better) there.\n\n")
	}
	for _, in := range p.Inputs {
		switch r := in.Report; {
		case r.KV != nil:
			p.kvSummary(w, in)
		case r.Vector != nil:
			p.vectorSummary(w, in)
		}
	}
}

// rel is target relative to the page.
func (p Page) rel(target string) string {
	r, err := filepath.Rel(filepath.Dir(p.Path), target)
	if err != nil {
		return target
	}
	return filepath.ToSlash(r)
}

func (p Page) links(ls []Link) string {
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("[%s](%s)", l.Text, p.rel(l.Path)))
	}
	return strings.Join(out, ", ")
}

// machines lists the distinct machines the inputs ran on.
func machines(ins []Input) []string {
	var out []string
	for _, in := range ins {
		m := in.Report.Machine
		s := fmt.Sprintf("%s, %d cores, %.0f GiB, %s", m.CPU, m.Cores, m.MemoryGiB, m.Go)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// software lists the distinct peers' versions, then the HotKV commits measured.
func software(ins []Input) []string {
	var peers, commits []string
	add := func(list *[]string, s string) {
		if s != "" && !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
	}
	for _, in := range ins {
		r := in.Report
		var servers []string
		if r.KV != nil {
			for _, s := range r.KV.Servers {
				servers = append(servers, s.Software+" "+s.Version)
			}
		}
		if r.Vector != nil {
			for _, e := range r.Vector.Engines {
				servers = append(servers, e.Server.Software+" "+e.Server.Version)
			}
		}
		for _, s := range servers {
			if !strings.HasPrefix(s, "hotkv ") {
				add(&peers, strings.TrimSpace(s))
			}
		}
		if r.Commit != "" {
			add(&commits, "`"+r.Commit+"`")
		}
	}
	slices.Sort(peers)
	if len(commits) > 0 {
		peers = append(peers, "HotKV at "+strings.Join(commits, ", "))
	}
	return peers
}

// caption is the line under a section's title: when, what, and where the data is.
func (p Page) caption(w io.Writer, in Input, what string) {
	r := in.Report
	fmt.Fprintf(w, "%s", r.Created.UTC().Format("2006-01-02 15:04 UTC"))
	if r.Commit != "" {
		fmt.Fprintf(w, ", HotKV `%s`", r.Commit)
	}
	fmt.Fprintf(w, ", %s; %s. Data: [%s](%s)", r.Tool, what, path.Base(in.Path), p.rel(in.Path))
	if in.Full != "" {
		fmt.Fprintf(w, "; full report: [%s](%s)", path.Base(in.Full), p.rel(in.Full))
	}
	fmt.Fprintf(w, ".\n\n")
}

func runsText(n int) string {
	if n == 1 {
		return "one run"
	}
	return fmt.Sprintf("median of %d runs", n)
}

func title(kind, label string) string {
	if label == "" {
		return kind
	}
	return kind + ": " + label
}

// kvSummary is one table for a key-value run: per pipeline depth, the first
// server's ops/s, its ratio to every other server, and every server's CPU
// per request where it was measured.
func (p Page) kvSummary(w io.Writer, in Input) {
	k := in.Report.KV
	s := k.Settings
	fmt.Fprintf(w, "## %s\n\n", title("Key-value", in.Report.Label))
	p.caption(w, in, fmt.Sprintf("%d connections, %d random keys, %d-byte values, %s", s.Connections, s.KeySpace, s.ValueSize, runsText(s.Runs)))
	servers := serverNames(k.Points)
	if len(servers) == 0 {
		return
	}
	first, others := servers[0], servers[1:]
	cpu := map[int]bool{}
	fmt.Fprint(w, "| command |")
	for _, pl := range s.Pipelines {
		fmt.Fprintf(w, " P%d %s ops/s |", pl, first)
		for _, o := range others {
			fmt.Fprintf(w, " P%d vs %s |", pl, o)
		}
		cpu[pl] = slices.ContainsFunc(k.Points, func(pt KVPoint) bool { return pt.Pipeline == pl && pt.Median.ServerUsOp > 0 })
		if cpu[pl] {
			fmt.Fprintf(w, " P%d µs/op %s |", pl, strings.Join(servers, " / "))
		}
	}
	fmt.Fprint(w, "\n|---|")
	for _, pl := range s.Pipelines {
		fmt.Fprint(w, strings.Repeat("---:|", 1+len(others)))
		if cpu[pl] {
			fmt.Fprint(w, "---|")
		}
	}
	fmt.Fprintln(w)
	for _, cmd := range commands(k.Points) {
		fmt.Fprintf(w, "| %s |", cmd)
		for _, pl := range s.Pipelines {
			a := findKV(k.Points, first, cmd, pl)
			if a == nil {
				fmt.Fprint(w, " - |")
			} else {
				fmt.Fprintf(w, " %s |", opsCell(a.Median))
			}
			for _, o := range others {
				fmt.Fprintf(w, " %s |", ratioCell(a, findKV(k.Points, o, cmd, pl)))
			}
			if cpu[pl] {
				var us []string
				for _, sv := range servers {
					if pt := findKV(k.Points, sv, cmd, pl); pt != nil && pt.Median.ServerUsOp > 0 {
						us = append(us, fmt.Sprintf("%.2f", pt.Median.ServerUsOp))
					} else {
						us = append(us, "-")
					}
				}
				fmt.Fprintf(w, " %s |", strings.Join(us, " / "))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

func failed(m kv.Result) bool { return m.Errors > 0 && m.Errors == m.Ops }

func opsCell(m kv.Result) string {
	if failed(m) {
		return "error"
	}
	return Num(m.OpsPerSec)
}

// ratioCell is a's ops/s over b's, marked (cb) when either run was client-bound.
func ratioCell(a, b *KVPoint) string {
	if a == nil || b == nil || failed(a.Median) || failed(b.Median) || b.Median.OpsPerSec == 0 {
		return "-"
	}
	s := fmt.Sprintf("%.2fx", a.Median.OpsPerSec/b.Median.OpsPerSec)
	if a.Median.ClientBound || b.Median.ClientBound {
		s += " (cb)"
	}
	return s
}

// vectorSummary is one table for a vector run: the recall-matched QPS of
// every engine and the first engine's ratio to each other one, after a line
// on load rate and memory.
func (p Page) vectorSummary(w io.Writer, in Input) {
	v := in.Report.Vector
	d, s := v.Dataset, v.Settings
	fmt.Fprintf(w, "## %s\n\n", title("Vector search", in.Report.Label))
	p.caption(w, in, fmt.Sprintf("%s, %d dimensions, %d vectors, %d queries, %s, top-%d, HNSW M=%d, ef_construction=%d, %s",
		path.Base(d.Source), d.Dim, d.Base, d.Queries, d.Metric, d.K, s.M, s.EFConstruction, runsText(s.Runs)))
	var load, rss []string
	for _, e := range v.Engines {
		if e.Load == nil {
			continue
		}
		load = append(load, fmt.Sprintf("%s %s", e.Name, Num(e.Load.PerSec)))
		if e.Load.RSS > 0 {
			rss = append(rss, fmt.Sprintf("%s %.1f MiB", e.Name, float64(e.Load.RSS)/(1<<20)))
		}
	}
	if len(load) > 0 {
		fmt.Fprintf(w, "Load over %d connections, vectors/s: %s.", s.LoadConnections, strings.Join(load, ", "))
		if len(rss) > 0 {
			fmt.Fprintf(w, " Resident memory after: %s.", strings.Join(rss, ", "))
		}
		fmt.Fprint(w, "\n\n")
	}
	names := engineNames(v.Engines)
	fmt.Fprintf(w, "QPS at the fastest measured ef that reaches each recall@%d target (no interpolation):\n\n", d.K)
	fmt.Fprintf(w, "| recall ≥ | clients | %s |", strings.Join(names, " | "))
	for _, n := range names[1:] {
		fmt.Fprintf(w, " %s / %s |", names[0], n)
	}
	fmt.Fprintf(w, "\n|---|---:|%s%s\n", strings.Repeat("---:|", len(names)), strings.Repeat("---:|", len(names)-1))
	for _, m := range Matched(v.Engines, []float64{0.90, 0.95, 0.99}) {
		fmt.Fprintf(w, "| %.2f | %d |", m.Target, m.Clients)
		for _, pk := range m.Picks {
			if pk == nil {
				fmt.Fprint(w, " not reached |")
			} else {
				fmt.Fprintf(w, " %s (ef %d) |", Num(pk.QPS), pk.EF)
			}
		}
		for _, pk := range m.Picks[1:] {
			if m.Picks[0] == nil || pk == nil || pk.QPS == 0 {
				fmt.Fprint(w, " - |")
			} else {
				fmt.Fprintf(w, " %.2fx |", m.Picks[0].QPS/pk.QPS)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}
