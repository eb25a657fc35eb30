package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/bench/kv"
	"github.com/hotkv/hotkv/internal/bench/vector"
)

func engine(name string, recall map[int]float64, qps map[[2]int]float64) *EngineResult {
	e := &EngineResult{Name: name}
	for _, ef := range []int{40, 80, 150} {
		if r, ok := recall[ef]; ok {
			e.Recall = append(e.Recall, vector.RecallPoint{EF: ef, Recall: r})
		}
	}
	for k, q := range qps {
		e.Grid = append(e.Grid, vector.GridPoint{EF: k[0], Clients: k[1], Median: kv.Result{OpsPerSec: q}})
	}
	return e
}

func TestMatched(t *testing.T) {
	a := engine("a", map[int]float64{40: 0.91, 80: 0.96, 150: 0.995},
		map[[2]int]float64{{40, 1}: 1000, {80, 1}: 800, {150, 1}: 500, {40, 4}: 3000, {80, 4}: 2500, {150, 4}: 900})
	// b is faster at a higher ef than at a lower one (noise): the fastest
	// ef that reaches the target wins, whatever its depth.
	b := engine("b", map[int]float64{40: 0.85, 80: 0.95, 150: 0.97},
		map[[2]int]float64{{40, 1}: 900, {80, 1}: 400, {150, 1}: 450, {40, 4}: 2000, {80, 4}: 1000, {150, 4}: 700})
	ms := Matched([]*EngineResult{a, b}, []float64{0.90, 0.95, 0.99})
	type row struct {
		target       float64
		clients      int
		efA, efB     int
		noneA, noneB bool
	}
	want := []row{
		{0.90, 1, 40, 150, false, false},
		{0.90, 4, 40, 80, false, false},
		{0.95, 1, 80, 150, false, false},
		{0.95, 4, 80, 80, false, false},
		{0.99, 1, 150, 0, false, true},
		{0.99, 4, 150, 0, false, true},
	}
	if len(ms) != len(want) {
		t.Fatalf("%d rows, want %d", len(ms), len(want))
	}
	for i, w := range want {
		m := ms[i]
		if m.Target != w.target || m.Clients != w.clients {
			t.Fatalf("row %d: %v/%d", i, m.Target, m.Clients)
		}
		check := func(p *Pick, ef int, none bool) {
			if none != (p == nil) || (p != nil && p.EF != ef) {
				t.Errorf("row %d (%.2f, %d clients): pick %+v, want ef %d (none %v)", i, w.target, w.clients, p, ef, none)
			}
		}
		check(m.Picks[0], w.efA, w.noneA)
		check(m.Picks[1], w.efB, w.noneB)
	}
	var md bytes.Buffer
	matchedMarkdown(&md, []*EngineResult{a, b})
	// At 0.95 with one client: a ef 80 at 800 QPS, b ef 150 at 450: 1.78x.
	if !strings.Contains(md.String(), "| 0.95 | 1 | ef 80, 0.960, 800 QPS") || !strings.Contains(md.String(), "1.78x") {
		t.Fatalf("markdown:\n%s", md.String())
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 1234567.4: "1,234,567", -4500: "-4,500"} {
		if got := Num(v); got != want {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
}
