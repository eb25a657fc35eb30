package report

import (
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/bench/kv"
	"github.com/hotkv/hotkv/internal/bench/sysinfo"
	"github.com/hotkv/hotkv/internal/bench/target"
	"github.com/hotkv/hotkv/internal/bench/vector"
)

func kvPoint(server, cmd string, pl int, ops, us float64, cb bool) KVPoint {
	return KVPoint{Server: server, Command: cmd, Pipeline: pl,
		Median: kv.Result{Ops: 1, OpsPerSec: ops, ServerUsOp: us, ClientBound: cb}}
}

func kvReport(label string, points ...KVPoint) *Report {
	return &Report{Tool: "hotkv-bench", Created: time.Date(2026, 12, 1, 14, 21, 0, 0, time.UTC), Commit: "abc1234", Label: label,
		Machine: sysinfo.Machine{CPU: "AMD EPYC", Cores: 2, MemoryGiB: 23.6, Go: "go1.26.8"},
		KV: &KV{Settings: KVSettings{Connections: 50, Pipelines: []int{1, 16}, KeySpace: 100000, ValueSize: 3, Runs: 3},
			Servers: []*target.Server{{Name: "hotkv", Software: "hotkv", Version: "0.1.0"}, {Name: "redis", Software: "redis", Version: "8.0.2"}, {Name: "valkey", Software: "valkey", Version: "8.1.1"}},
			Points:  points}}
}

// row returns the table line of a command.
func row(t *testing.T, page, cmd string) string {
	t.Helper()
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(l, "| "+cmd+" |") {
			return l
		}
	}
	t.Fatalf("no row for %s in\n%s", cmd, page)
	return ""
}

func render(p Page) string {
	var b strings.Builder
	Summary(&b, p)
	return b.String()
}

func TestSummaryKV(t *testing.T) {
	r := kvReport("pinned",
		kvPoint("hotkv", "SET", 1, 90000, 8, true), kvPoint("redis", "SET", 1, 100000, 8.5, false), kvPoint("valkey", "SET", 1, 90000, 8.4, false),
		kvPoint("hotkv", "SET", 16, 1500000, 0.7, false), kvPoint("redis", "SET", 16, 1000000, 1, false), kvPoint("valkey", "SET", 16, 750000, 1.1, false),
		// ZADD: valkey lacks it at P16, redis has no CPU figure.
		kvPoint("hotkv", "ZADD", 1, 1000, 9, false), kvPoint("redis", "ZADD", 1, 500, 0, false), kvPoint("valkey", "ZADD", 1, 2000, 9.5, false),
		kvPoint("hotkv", "ZADD", 16, 4000, 2, false), kvPoint("redis", "ZADD", 16, 2000, 3, false),
	)
	r.KV.Points[0].Median.ClientCores = 0.97
	page := render(Page{Path: "docs/benchmarks.md", Command: "go run ./cmd/hotkv-bench summary x.json",
		Method: []Link{{"hotkv-bench", "docs/hotkv-bench.md"}, {"bench-peers", "scripts/bench-peers.sh"}},
		More:   []Link{{"log", "docs/bench/history.md"}},
		Inputs: []Input{{Path: "docs/bench/run.json", Full: "docs/bench/run.md", Report: r}}})

	cases := []struct{ name, want string }{
		{"title from the label", "## Key-value: pinned\n"},
		{"caption: date, commit, tool, settings", "2026-12-01 14:21 UTC, HotKV `abc1234`, hotkv-bench; 50 connections, 100000 random keys, 3-byte values, median of 3 runs."},
		{"data and full report linked relative to the page", "Data: [run.json](bench/run.json); full report: [run.md](bench/run.md)."},
		{"columns: the first server's ops/s, its ratio to each other, everyone's CPU, per pipeline",
			"| command | P1 hotkv ops/s | P1 vs redis | P1 vs valkey | P1 µs/op hotkv / redis / valkey | P16 hotkv ops/s | P16 vs redis | P16 vs valkey | P16 µs/op hotkv / redis / valkey |\n|---|---:|---:|---:|---|---:|---:|---:|---|\n"},
		{"ratios of the first server; (cb) where either run was client-bound",
			"| SET | 90,000 | 0.90x (cb) | 1.00x (cb) | 8.00 / 8.50 / 8.40 | 1,500,000 | 1.50x | 2.00x | 0.70 / 1.00 / 1.10 |"},
		{"a missing point or CPU figure is a dash", "| ZADD | 1,000 | 2.00x | 0.50x | 9.00 / - / 9.50 | 4,000 | 2.00x | - | 2.00 / 3.00 / - |"},
		{"machine once, memory rounded", "- **Machine:** AMD EPYC, 2 cores, 24 GiB, go1.26.8\n"},
		{"peers' versions, then the HotKV commit", "- **Software:** redis 8.0.2, valkey 8.1.1, HotKV at `abc1234`\n"},
		{"links relative to the page", "- **Method:** [hotkv-bench](hotkv-bench.md), [bench-peers](../scripts/bench-peers.sh)\n- **Everything else, with dates:** [log](bench/history.md)\n"},
		{"the command that regenerates it", "```sh\ngo run ./cmd/hotkv-bench summary x.json\n```"},
		{"the (cb) legend when there is a kv table", "\"(cb)\": the load generator used more than 85%"},
	}
	for _, c := range cases {
		if !strings.Contains(page, c.want) {
			t.Errorf("%s: want\n%s\nin\n%s", c.name, c.want, page)
		}
	}
}

func TestSummaryKVNoCPU(t *testing.T) {
	// A remote server has no CPU figures: no µs/op column at that depth; two servers: one ratio column.
	r := kvReport("", kvPoint("a", "GET", 1, 300, 0, false), kvPoint("b", "GET", 1, 200, 0, false),
		kvPoint("a", "GET", 16, 3000, 0, false), kvPoint("b", "GET", 16, 1000, 0.5, false))
	errs := kvPoint("b", "PING", 16, 10, 0, false)
	errs.Median.Errors = 1
	r.KV.Points = append(r.KV.Points, kvPoint("a", "PING", 16, 50, 0, false), errs)
	page := render(Page{Path: "docs/benchmarks.md", Inputs: []Input{{Path: "docs/bench/r.json", Report: r}}})
	for _, want := range []string{
		"## Key-value\n",
		"| command | P1 a ops/s | P1 vs b | P16 a ops/s | P16 vs b | P16 µs/op a / b |\n|---|---:|---:|---:|---:|---|\n",
		"| GET | 300 | 1.50x | 3,000 | 3.00x | - / 0.50 |",
		"| PING | - | - | 50 | - | - / - |", // only errors from b: no ratio
	} {
		if !strings.Contains(page, want) {
			t.Errorf("want\n%s\nin\n%s", want, page)
		}
	}
	if strings.Contains(page, "full report") {
		t.Errorf("links a full report it was not given:\n%s", page)
	}
}

func TestSummaryVector(t *testing.T) {
	engine := func(name string, perSec float64, recall []float64, qps map[[2]int]float64) *EngineResult {
		e := &EngineResult{Name: name, Server: &target.Server{Name: name, Software: "redis", Version: "8.0.2"},
			Load: &vector.LoadResult{PerSec: perSec, RSS: 100 << 20}}
		for i, ef := range []int{40, 150} {
			e.Recall = append(e.Recall, vector.RecallPoint{EF: ef, Recall: recall[i]})
		}
		for k, v := range qps {
			e.Grid = append(e.Grid, vector.GridPoint{EF: k[0], Clients: k[1], Median: kv.Result{OpsPerSec: v}})
		}
		return e
	}
	h := engine("hotkv", 3000, []float64{0.92, 0.99}, map[[2]int]float64{{40, 1}: 6000, {150, 1}: 3000})
	h.Server.Software = "hotkv"
	rd := engine("redis", 600, []float64{0.85, 0.96}, map[[2]int]float64{{40, 1}: 900, {150, 1}: 500})
	r := &Report{Tool: "hotkv-bench", Commit: "4f974f1", Label: "GloVe",
		Vector: &Vector{Dataset: Dataset{Source: "/tmp/glove100.fvecs", Dim: 100, Base: 1000, Queries: 10, K: 10, Metric: "cosine"},
			Settings: VectorSettings{M: 16, EFConstruction: 200, Runs: 1, LoadConnections: 32},
			Engines:  []*EngineResult{h, rd}}}
	page := render(Page{Path: "docs/benchmarks.md", Inputs: []Input{{Path: "docs/bench/v.json", Report: r}}})
	for _, want := range []string{
		"## Vector search: GloVe\n",
		"glove100.fvecs, 100 dimensions, 1000 vectors, 10 queries, cosine, top-10, HNSW M=16, ef_construction=200, one run.",
		"Load over 32 connections, vectors/s: hotkv 3,000, redis 600. Resident memory after: hotkv 100.0 MiB, redis 100.0 MiB.",
		"| recall ≥ | clients | hotkv | redis | hotkv / redis |",
		"| 0.90 | 1 | 6,000 (ef 40) | 500 (ef 150) | 12.00x |", // each engine's fastest ef reaching the target
		"| 0.99 | 1 | 3,000 (ef 150) | not reached | - |",
		"- **Software:** redis 8.0.2, HotKV at `4f974f1`",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("want\n%s\nin\n%s", want, page)
		}
	}
	if strings.Contains(page, "(cb)") {
		t.Errorf("the client-bound legend without a kv table:\n%s", page)
	}
}
