package hnsw

import (
	"fmt"
	"testing"

	"github.com/hotkv/hotkv/internal/vector/quant"
)

// TestDuplicatesStayReachable: many copies of one vector (the same document
// embedded twice, or codes that collide) once filled each other's layer-0
// lists completely, making a closed island; with the entry point inside it,
// searches never left it. The copies come first here, so the entry point is
// one of them.
func TestDuplicatesStayReachable(t *testing.T) {
	for _, q := range []quant.Kind{quant.F32, quant.Q8, quant.Bin} {
		for _, m := range []Metric{Cosine, L2} {
			if q == quant.Bin && m != Cosine {
				continue // binary codes go with cosine only
			}
			t.Run(fmt.Sprint(q, m), func(t *testing.T) {
				others := clustered(3, 1500, 16, 30, 0.5)
				data := make([][]float32, 0, 1800)
				for range 300 {
					data = append(data, others[0])
				}
				data = append(data, others[1:]...)
				x, ids := build(t, Config{Dim: 16, Quant: q, Metric: m, M: 8, Seed: 2}, data)
				checkGraphReach(t, x, false)
				// Every other vector stays reachable, and most copies do:
				// a copy that lost its in-links is still stored, and a
				// search for that vector finds its other copies.
				seen := reachable(x)
				lostCopies, lostOthers := 0, 0
				for id, i := range ids {
					switch {
					case seen[id]:
					case i < 300:
						lostCopies++
					default:
						lostOthers++
					}
				}
				t.Logf("unreachable: %d of 300 copies, %d of 1499 others", lostCopies, lostOthers)
				if lostOthers > 15 || lostCopies > 150 {
					t.Fatalf("unreachable: %d of 300 copies, %d of 1499 others", lostCopies, lostOthers)
				}
				// Queries spread over the data must find their nearest
				// code (compared by distance: binary codes tie). Without
				// the copies all 100 do; new nodes that linked every copy
				// they found (not just one) dropped this to 91-92.
				found := 0
				queries := clustered(4, 100, 16, 30, 0.5)
				for _, q := range queries {
					got, _ := x.Search(q, 1, 50, nil, 0)
					want, _ := x.Exact(q, 1, nil)
					if len(got) == 1 && got[0].Dist <= want[0].Dist+1e-5 {
						found++
					}
				}
				if found < 95 {
					t.Fatalf("%d of 100 searches found the nearest code", found)
				}
			})
		}
	}
}

// TestTiedCodesStayReachable: 16-bit binary codes of clustered data tie
// (distance 0) for whole groups of vectors; across level seeds, building and
// then deleting every seventh node must leave the graph connected.
func TestTiedCodesStayReachable(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			data := clustered(seed, 2000, 16, 20, 0.4)
			x, _ := build(t, Config{Dim: 16, Quant: quant.Bin, M: 8, Seed: seed}, data)
			checkGraph(t, x)
			for id := uint32(0); id < 2000; id += 7 {
				x.Delete(id)
			}
			checkGraph(t, x)
		})
	}
}
