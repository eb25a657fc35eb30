package hnsw

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/hotkv/hotkv/internal/vector/quant"
)

// TestRecallClustered is the test that fails when the graph is broken:
// 10k clustered 32-d vectors, recall@10 at ef 100 against brute force.
func TestRecallClustered(t *testing.T) {
	skipUnderRace(t)
	data := clustered(1, 10000, 32, 50, 0.5)
	queries := clustered(2, 200, 32, 50, 0.5)
	gt := groundTruth(Cosine, data, nil, queries, 10)
	x, ids := build(t, Config{Dim: 32, Seed: 1}, data)
	r100 := recall(t, x, gt, ids, queries, 10, 100)
	r10 := recall(t, x, gt, ids, queries, 10, 10)
	t.Logf("recall@10: ef 100 %.4f, ef 10 %.4f", r100, r10)
	if r100 < 0.95 {
		t.Fatalf("recall@10 at ef 100 = %.4f, want >= 0.95", r100)
	}
	if r10 > r100-0.05 {
		t.Fatalf("recall@10 at ef 10 = %.4f, hardly below ef 100's: ef is ignored", r10)
	}
	checkGraph(t, x)
}

func TestMetrics(t *testing.T) {
	skipUnderRace(t)
	data := clustered(3, 3000, 16, 20, 0.4)
	queries := clustered(4, 100, 16, 20, 0.4)
	for _, tc := range []struct {
		m      Metric
		recall float64
	}{{Cosine, 0.97}, {L2, 0.97}, {InnerProduct, 0.90}} {
		x, ids := build(t, Config{Dim: 16, Metric: tc.m, Seed: 3}, data)
		r := recall(t, x, groundTruth(tc.m, data, nil, queries, 10), ids, queries, 10, 100)
		t.Logf("metric %d: recall@10 ef 100 %.4f", tc.m, r)
		if r < tc.recall {
			t.Errorf("metric %d: recall %.4f < %.2f", tc.m, r, tc.recall)
		}
		checkGraphReach(t, x, tc.m != InnerProduct)
	}
}

// TestDistances pins what Search reports for each metric.
func TestDistances(t *testing.T) {
	for _, tc := range []struct {
		m    Metric
		want float32
	}{{Cosine, 1 - 0.6}, {L2, 1*1 + 1*1}, {InnerProduct, 1 - 3*4}} {
		x, _ := New(Config{Dim: 2, Metric: tc.m})
		x.Add([]float32{3, 0})
		got, _ := x.Search([]float32{4, 1}, 1, 10, nil, 0)
		var want float32 = tc.want
		if tc.m == Cosine {
			want = 1 - 12/(3*float32(4.1231056))
		} else if tc.m == L2 {
			want = 1 + 1
		}
		if len(got) != 1 || abs(got[0].Dist-want) > 1e-5 {
			t.Errorf("metric %d: got %v, want dist %v", tc.m, got, want)
		}
	}
}

func abs(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

func TestQuantized(t *testing.T) {
	skipUnderRace(t)
	data := clustered(5, 3000, 64, 20, 0.5)
	queries := clustered(6, 100, 64, 20, 0.5)
	gtCos := groundTruth(Cosine, data, nil, queries, 10)
	gtL2 := groundTruth(L2, data, nil, queries, 10)
	for _, tc := range []struct {
		name   string
		c      Config
		recall float64
	}{
		{"q8", Config{Dim: 64, Quant: quant.Q8}, 0.90},
		{"q8-rerank", Config{Dim: 64, Quant: quant.Q8, Rerank: true}, 0.95},
		{"q8-l2", Config{Dim: 64, Quant: quant.Q8, Metric: L2}, 0.90},
		{"bin-rerank", Config{Dim: 64, Quant: quant.Bin, Rerank: true}, 0.35},
	} {
		tc.c.Seed = 5
		x, ids := build(t, tc.c, data)
		gt := gtCos
		if tc.c.Metric == L2 {
			gt = gtL2
		}
		r := recall(t, x, gt, ids, queries, 10, 100)
		t.Logf("%s recall@10 ef 100: %.4f", tc.name, r)
		if r < tc.recall {
			t.Errorf("%s: recall %.4f < %.2f", tc.name, r, tc.recall)
		}
		checkGraph(t, x)
	}
	if _, err := New(Config{Dim: 8, Quant: quant.Bin, Metric: L2}); err == nil {
		t.Fatal("binary codes with L2 accepted")
	}
}

func TestRerankGivesExactDistances(t *testing.T) {
	x, _ := New(Config{Dim: 3, Quant: quant.Q8, Rerank: true})
	x.Add([]float32{1, 2, 3})
	got, _ := x.Search([]float32{1, 2, 3}, 1, 10, nil, 0)
	if len(got) != 1 || abs(got[0].Dist) > 1e-6 {
		t.Fatalf("got %v, want exact distance 0", got)
	}
	y, _ := New(Config{Dim: 3, Quant: quant.Q8})
	y.Add([]float32{1, 2, 3.3})
	got, _ = y.Search([]float32{1, 2, 3.3}, 1, 10, nil, 0)
	if len(got) != 1 || got[0].Dist == 0 {
		t.Fatalf("got %v: Q8 distance without re-ranking should carry quantisation error", got)
	}
}

// TestConcurrentBuildRecall checks that a graph built by 32 goroutines is
// as good as one built sequentially.
func TestConcurrentBuildRecall(t *testing.T) {
	skipUnderRace(t)
	data := clustered(7, 6000, 24, 40, 0.6)
	queries := clustered(8, 1000, 24, 40, 0.6)
	seq, seqIDs := build(t, Config{Dim: 24, Seed: 7}, data)
	par, err := New(Config{Dim: 24, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	parIDs := make(map[uint32]int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := g; i < len(data); i += 32 {
				id, err := par.Add(data[i])
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				parIDs[id] = i
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	checkGraph(t, par)
	// Insert order alone moves recall by about ±0.005 at ef 20 (one
	// sequential build against another), so the strict bound is checked where
	// recall is high and order matters little.
	gt := groundTruth(Cosine, data, nil, queries, 10)
	for _, tc := range []struct {
		ef  int
		tol float64
	}{{20, 0.015}, {100, 0.005}} {
		rs := recall(t, seq, gt, seqIDs, queries, 10, tc.ef)
		rp := recall(t, par, gt, parIDs, queries, 10, tc.ef)
		t.Logf("ef %d: sequential %.4f, 32 goroutines %.4f", tc.ef, rs, rp)
		if rp < rs-tc.tol {
			t.Errorf("ef %d: concurrent build recall %.4f below sequential %.4f by more than %v", tc.ef, rp, rs, tc.tol)
		}
	}
}

// TestDeleteReinsertStability deletes and re-inserts a fifth of the vectors
// five times over; recall must not decay and the graph must stay sound.
func TestDeleteReinsertStability(t *testing.T) {
	skipUnderRace(t)
	data := clustered(9, 5000, 24, 40, 0.6)
	queries := clustered(10, 500, 24, 40, 0.6)
	gt := groundTruth(Cosine, data, nil, queries, 10)
	x, ids := build(t, Config{Dim: 24, Seed: 9}, data)
	before := recall(t, x, gt, ids, queries, 10, 60)
	r := rand.New(rand.NewPCG(9, 9))
	for cycle := range 5 {
		byPos := map[int]uint32{}
		for id, i := range ids {
			byPos[i] = id
		}
		victims := r.Perm(len(data))[:len(data)/5]
		for _, i := range victims {
			if !x.Delete(byPos[i]) {
				t.Fatalf("delete of live id %d failed", byPos[i])
			}
			delete(ids, byPos[i])
		}
		checkGraph(t, x)
		live := map[int]bool{}
		for _, i := range ids {
			live[i] = true
		}
		mid := recall(t, x, groundTruth(Cosine, data, func(i int) bool { return live[i] }, queries, 10), ids, queries, 10, 60)
		for _, i := range victims {
			id, _ := x.Add(data[i])
			ids[id] = i
		}
		checkGraph(t, x)
		after := recall(t, x, gt, ids, queries, 10, 60)
		t.Logf("cycle %d: recall with 20%% deleted %.4f, after re-insert %.4f (initial %.4f)", cycle, mid, after, before)
		if after < before-0.01 || mid < before-0.015 {
			t.Fatalf("cycle %d: recall decayed from %.4f to %.4f (%.4f while deleted)", cycle, before, after, mid)
		}
	}
	if x.next.Load() > uint32(len(data)+len(data)/5+64) {
		t.Fatalf("ids not reused: %d allocated for %d vectors", x.next.Load(), len(data))
	}
	// A purge pass per 64 deletes at most (5000 deletes here).
	if n := x.fullScans.Load(); n > 5000/64+5 {
		t.Errorf("%d purge passes for 5000 deletes", n)
	}
}

func TestDeleteEverything(t *testing.T) {
	data := clustered(11, 300, 8, 5, 0.5)
	x, ids := build(t, Config{Dim: 8, M: 4, Seed: 11}, data)
	for id := range ids {
		if !x.Delete(id) {
			t.Fatalf("delete %d", id)
		}
		if x.Delete(id) {
			t.Fatalf("second delete of %d succeeded", id)
		}
		if len(ids) < 50 || id%17 == 0 {
			checkGraph(t, x)
		}
	}
	if x.Len() != 0 || x.MaxLevel() != -1 {
		t.Fatalf("Len %d MaxLevel %d after deleting everything", x.Len(), x.MaxLevel())
	}
	if got, _ := x.Search(data[0], 5, 10, nil, 0); len(got) != 0 {
		t.Fatalf("search of empty index returned %v", got)
	}
	id, _ := x.Add(data[0])
	got, _ := x.Search(data[0], 5, 10, nil, 0)
	if len(got) != 1 || got[0].ID != id {
		t.Fatalf("after re-adding one vector: %v", got)
	}
	if x.Delete(1 << 30) {
		t.Fatal("delete of an id never allocated succeeded")
	}
}

func TestFilter(t *testing.T) {
	skipUnderRace(t)
	data := clustered(12, 4000, 16, 20, 0.5)
	queries := clustered(13, 100, 16, 20, 0.5)
	x, ids := build(t, Config{Dim: 16, Seed: 12}, data)
	pass := func(id uint32) bool { return ids[id]%10 == 3 }
	hit, total := 0, 0
	for _, q := range queries {
		want := truth(Cosine, data, func(i int) bool { return i%10 == 3 }, q, 10)
		got, _ := x.Search(q, 10, 100, pass, 0)
		set := map[int]bool{}
		for _, r := range got {
			if !pass(r.ID) {
				t.Fatalf("filtered search returned id %d that fails the filter", r.ID)
			}
			set[ids[r.ID]] = true
		}
		for _, w := range want {
			if set[w] {
				hit++
			}
		}
		total += len(want)
	}
	if r := float64(hit) / float64(total); r < 0.9 {
		t.Fatalf("filtered recall %.4f", r)
	}
	// A filter nothing passes: without a bound the whole graph is walked
	// (and nothing found); with one, only that many nodes are expanded.
	calls := 0
	none := func(uint32) bool { calls++; return false }
	if got, _ := x.Search(queries[0], 10, 100, none, 0); len(got) != 0 {
		t.Fatal("results for a filter nothing passes")
	}
	if calls < x.Len()*9/10 {
		t.Fatalf("unbounded filtered search visited only %d of %d nodes", calls, x.Len())
	}
	calls = 0
	x.Search(queries[0], 10, 100, none, 50)
	if calls > 50*x.m0+1 {
		t.Fatalf("filter effort 50 evaluated %d nodes", calls)
	}
}

func TestExactAndAccessors(t *testing.T) {
	x, _ := New(Config{Dim: 2})
	a, _ := x.Add([]float32{3, 4})
	b, _ := x.Add([]float32{0, -2})
	if x.Norm(a) != 5 || x.Norm(b) != 2 {
		t.Fatalf("norms %v %v", x.Norm(a), x.Norm(b))
	}
	v := x.Vector(a, nil)
	if abs(v[0]-0.6) > 1e-6 || abs(v[1]-0.8) > 1e-6 {
		t.Fatalf("stored vector %v, want normalised", v)
	}
	got, _ := x.Exact([]float32{0, -1}, 5, nil)
	if len(got) != 2 || got[0].ID != b || abs(got[0].Dist) > 1e-6 || abs(got[1].Dist-1.8) > 1e-6 {
		t.Fatalf("exact: %v", got)
	}
	if ls := x.Links(a, 0); len(ls) != 1 || ls[0] != b {
		t.Fatalf("links of a: %v", ls)
	}
	if d := x.Distance(a, b); abs(d-1.8) > 1e-6 {
		t.Fatalf("distance %v", d)
	}
	if _, err := x.Add([]float32{1}); err != ErrDimension {
		t.Fatalf("wrong dimension: %v", err)
	}
	if _, err := x.Search([]float32{1, 2, 3}, 1, 1, nil, 0); err != ErrDimension {
		t.Fatalf("wrong dimension: %v", err)
	}
	if !x.Contains(a) || x.Contains(99) {
		t.Fatal("Contains")
	}
}

func TestMemoryAccounting(t *testing.T) {
	skipUnderRace(t)
	data := clustered(14, 5000, 100, 20, 0.5)
	x, _ := build(t, Config{Dim: 100, Seed: 14}, data)
	per := float64(x.Bytes()) / float64(x.Len())
	// 400 bytes of vector, 132 of layer-0 links, 128 of their cached
	// distances, 28 of node record, and chunk slack: anything far above
	// means a leak in the accounting.
	if per < 690 || per > 1150 {
		t.Fatalf("%.0f bytes per vector", per)
	}
	t.Logf("%.0f bytes per 100-d vector at 5000 vectors", per)
}

func TestSlabLocate(t *testing.T) {
	var s slab[uint32]
	s.init(1 << 14) // 64 KiB records: 16 per full chunk
	s.grow(1000)
	seen := map[[2]int]bool{}
	for i := range uint32(1000) {
		k, off := s.locate(i)
		if off < 0 || off >= s.chunkLen(k) || seen[[2]int{k, off}] {
			t.Fatalf("record %d -> chunk %d offset %d", i, k, off)
		}
		seen[[2]int{k, off}] = true
		s.at(i)[0] = i
	}
	for i := range uint32(1000) {
		if s.at(i)[0] != i {
			t.Fatalf("record %d overwritten", i)
		}
	}
}

// TestConcurrentMixed runs inserts, deletes and searches from many
// goroutines at once (small enough for the race detector), then checks the
// graph.
func TestConcurrentMixed(t *testing.T) {
	data := clustered(15, 1200, 8, 10, 0.5)
	x, err := New(Config{Dim: 8, M: 6, EfConstruction: 40, Seed: 15})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range data[:300] {
		x.Add(v)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 15))
			var mine []uint32
			for i := range 150 {
				switch op := r.IntN(10); {
				case op < 4:
					id, err := x.Add(data[300+(g*150+i)%900])
					if err != nil {
						t.Error(err)
						return
					}
					mine = append(mine, id)
				case op < 6 && len(mine) > 0:
					j := r.IntN(len(mine))
					if !x.Delete(mine[j]) {
						t.Errorf("delete of own id %d failed", mine[j])
						return
					}
					mine = append(mine[:j], mine[j+1:]...)
				default:
					res, err := x.Search(data[r.IntN(len(data))], 5, 20, nil, 0)
					if err != nil {
						t.Error(err)
						return
					}
					for _, h := range res {
						x.Links(h.ID, 0)
					}
				}
			}
		})
	}
	wg.Wait()
	checkGraph(t, x)
	// Searches still find everything that is left.
	for id := range x.next.Load() {
		if !x.Contains(id) || id%7 != 0 {
			continue
		}
		res, _ := x.Search(x.Vector(id, nil), 1, 50, nil, 0)
		if len(res) == 0 || res[0].Dist > 1e-5 {
			t.Fatalf("node %d not found by its own vector: %v", id, res)
		}
	}
}

func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("large recall test; too slow under the race detector")
	}
}

// TestBuildEf: inserts gather ef_construction candidates on layer 0 and
// min(ef_construction, 4M) above it, as docs/commands/vectors.md says.
func TestBuildEf(t *testing.T) {
	for _, tc := range []struct{ m, efc, l0, upper int }{
		{16, 200, 200, 64},
		{16, 40, 40, 40},
		{4, 0, DefaultEfConstruction, 16},
		{64, 200, 200, 200},
	} {
		x, err := New(Config{Dim: 2, M: tc.m, EfConstruction: tc.efc})
		if err != nil {
			t.Fatal(err)
		}
		if got := x.buildEf(0); got != tc.l0 {
			t.Errorf("M %d efc %d: layer 0 gathers %d, want %d", tc.m, tc.efc, got, tc.l0)
		}
		for l := 1; l <= 3; l++ {
			if got := x.buildEf(l); got != tc.upper {
				t.Errorf("M %d efc %d: layer %d gathers %d, want %d", tc.m, tc.efc, l, got, tc.upper)
			}
		}
	}
}

// TestMinInLinks: every node keeps at least minIn0 layer-0 in-links, after a
// build and after deletes. Without the top-up, late nodes in dense clusters
// were refused by their neighbours' full lists and kept a single in-link
// (GloVe 100k: 16 nodes, a fifth of the neighbours missed at ef 500).
func TestMinInLinks(t *testing.T) {
	for _, m := range []int{4, 8, 16} {
		t.Run("M"+strconv.Itoa(m), func(t *testing.T) {
			data := clustered(7, 3000, 24, 12, 0.15)
			x, _ := build(t, Config{Dim: 24, M: m, Seed: 3}, data)
			assertMinIn(t, x)
			for id := uint32(0); id < 3000; id += 5 {
				x.Delete(id)
			}
			assertMinIn(t, x)
		})
	}
}

func assertMinIn(t *testing.T, x *Index) {
	t.Helper()
	x.Purge()
	n := x.next.Load()
	in := make([]int, n)
	live := 0
	for id := range n {
		if x.node(id).state.Load() != stateLive {
			continue
		}
		live++
		for _, z := range x.Links(id, 0) {
			in[z]++
		}
	}
	low := 0
	for id := range n {
		if x.node(id).state.Load() == stateLive && in[id] < minIn0 {
			low++
		}
	}
	if low > 0 {
		t.Fatalf("%d of %d live nodes have fewer than %d layer-0 in-links", low, live, minIn0)
	}
}
