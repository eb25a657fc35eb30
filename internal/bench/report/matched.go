package report

import (
	"slices"

	"github.com/hotkv/hotkv/internal/bench/vector"
)

// Pick is the fastest ef of one engine that reaches a recall target.
type Pick struct {
	EF     int     `json:"ef"`
	Recall float64 `json:"recall"`
	QPS    float64 `json:"qps"`
	P50us  float64 `json:"p50_us"`
	P99us  float64 `json:"p99_us"`
}

// Match is, for one recall target and client count, each engine's pick
// (nil where no measured ef reaches the target), in engine order.
type Match struct {
	Target  float64 `json:"target"`
	Clients int     `json:"clients"`
	Picks   []*Pick `json:"picks"`
}

// Matched selects, per target and client count, the fastest measured ef
// whose recall reaches the target, per engine (no interpolation).
func Matched(engines []*EngineResult, targets []float64) []Match {
	var clients []int
	for _, e := range engines {
		for _, g := range e.Grid {
			if !slices.Contains(clients, g.Clients) {
				clients = append(clients, g.Clients)
			}
		}
	}
	slices.Sort(clients)
	var out []Match
	for _, t := range targets {
		for _, c := range clients {
			m := Match{Target: t, Clients: c}
			for _, e := range engines {
				m.Picks = append(m.Picks, pick(e, t, c))
			}
			out = append(out, m)
		}
	}
	return out
}

func pick(e *EngineResult, target float64, clients int) *Pick {
	var best *Pick
	for _, g := range e.Grid {
		if g.Clients != clients {
			continue
		}
		r, ok := recallAt(e.Recall, g.EF)
		if !ok || r < target {
			continue
		}
		if best == nil || g.Median.OpsPerSec > best.QPS {
			best = &Pick{EF: g.EF, Recall: r, QPS: g.Median.OpsPerSec, P50us: g.Median.P50us, P99us: g.Median.P99us}
		}
	}
	return best
}

func recallAt(points []vector.RecallPoint, ef int) (float64, bool) {
	for _, p := range points {
		if p.EF == ef {
			return p.Recall, true
		}
	}
	return 0, false
}
