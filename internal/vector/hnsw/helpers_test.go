package hnsw

import (
	"math"
	"math/rand/v2"
	"testing"
)

// clustered returns n vectors around k Gaussian centres (deterministic).
func clustered(seed uint64, n, dim, k int, spread float64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float64, k)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for j := range centres[i] {
			centres[i][j] = r.NormFloat64()
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(k)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(c[j] + spread*r.NormFloat64())
		}
		out[i] = v
	}
	return out
}

// truth is the exact top-k by brute force in float64.
func truth(m Metric, data [][]float32, live func(i int) bool, q []float32, k int) []int {
	type cand struct {
		d float64
		i int
	}
	// The k nearest, kept sorted by insertion (k is small).
	best := make([]cand, 0, k+1)
	qn := norm64(q)
	for i, v := range data {
		if live != nil && !live(i) {
			continue
		}
		var dot, l2 float64
		for j := range v {
			dot += float64(v[j]) * float64(q[j])
			d := float64(v[j]) - float64(q[j])
			l2 += d * d
		}
		var d float64
		switch m {
		case Cosine:
			d = 1 - dot/(norm64(v)*qn)
		case L2:
			d = l2
		default:
			d = 1 - dot
		}
		if len(best) == k && d >= best[k-1].d {
			continue
		}
		j := len(best)
		best = append(best, cand{})
		for j > 0 && best[j-1].d > d {
			best[j] = best[j-1]
			j--
		}
		best[j] = cand{d, i}
		best = best[:min(len(best), k)]
	}
	out := make([]int, len(best))
	for i, c := range best {
		out[i] = c.i
	}
	return out
}

func norm64(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// groundTruth is the exact top-k of every query.
func groundTruth(m Metric, data [][]float32, live func(i int) bool, queries [][]float32, k int) [][]int {
	gt := make([][]int, len(queries))
	for i, q := range queries {
		gt[i] = truth(m, data, live, q, k)
	}
	return gt
}

// recall measures recall@k of x against ground truth gt; ids maps index
// ids to data positions.
func recall(t *testing.T, x *Index, gt [][]int, ids map[uint32]int, queries [][]float32, k, ef int) float64 {
	t.Helper()
	hit, total := 0, 0
	for qi, q := range queries {
		got, err := x.Search(q, k, ef, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		set := map[int]bool{}
		for _, r := range got {
			set[ids[r.ID]] = true
		}
		for _, w := range gt[qi] {
			if set[w] {
				hit++
			}
		}
		total += len(gt[qi])
	}
	return float64(hit) / float64(total)
}

func build(t *testing.T, c Config, data [][]float32) (*Index, map[uint32]int) {
	t.Helper()
	x, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint32]int{}
	for i, v := range data {
		id, err := x.Add(v)
		if err != nil {
			t.Fatal(err)
		}
		ids[id] = i
	}
	return x, ids
}

// checkGraph verifies the structural invariants: lists hold only live nodes
// with a level high enough, without duplicates or self links, within their
// size limit; every node's inDeg equals the links that point at it; and
// every live node is reachable on layer 0 from the entry point.
func checkGraph(t *testing.T, x *Index) {
	t.Helper()
	x.Purge()
	checkGraphReach(t, x, true)
}

// checkGraphReach is checkGraph with the reachability check optional: under
// inner product, vectors of small norm are nobody's near neighbour and
// legitimately end up without in-links.
func checkGraphReach(t *testing.T, x *Index, reach bool) {
	t.Helper()
	x.Purge()
	t.Helper()
	n := x.next.Load()
	in := make([]int32, n)
	live := 0
	for id := range n {
		nd := x.node(id)
		if nd.state.Load() != stateLive {
			continue
		}
		live++
		for l := 0; l <= int(nd.level); l++ {
			ls := x.Links(id, l)
			if len(ls) > x.maxLinks(l) {
				t.Fatalf("node %d layer %d: %d links > %d", id, l, len(ls), x.maxLinks(l))
			}
			seen := map[uint32]bool{}
			for _, o := range ls {
				if o == id || seen[o] {
					t.Fatalf("node %d layer %d: self or duplicate link %d in %v", id, l, o, ls)
				}
				seen[o] = true
				if o >= n || x.node(o).state.Load() != stateLive {
					t.Fatalf("node %d layer %d links to non-live node %d", id, l, o)
				}
				if int(x.node(o).level) < l {
					t.Fatalf("node %d layer %d links to node %d of level %d", id, l, o, x.node(o).level)
				}
				in[o]++
			}
		}
		// The cached layer-0 distances must be the real ones.
		known := x.dist0.at(id)
		for i, o := range x.Links(id, 0) {
			if d := x.dist(x.code(id), x.code(o)); !isNaN(known[i]) && math.Abs(float64(known[i]-d)) > 1e-4 {
				t.Fatalf("node %d: cached distance to %d is %v, real %v", id, o, known[i], d)
			}
		}
	}
	if live != x.Len() {
		t.Fatalf("Len %d, live nodes %d", x.Len(), live)
	}
	for id := range n {
		if x.node(id).state.Load() == stateLive && x.node(id).inDeg.Load() != in[id] {
			t.Fatalf("node %d: inDeg %d, counted %d", id, x.node(id).inDeg.Load(), in[id])
		}
	}
	ep, top, ok := x.entryPoint()
	if !ok {
		if live > 0 {
			t.Fatalf("no entry point with %d live nodes", live)
		}
		return
	}
	if x.node(ep).state.Load() != stateLive || int(x.node(ep).level) != top {
		t.Fatalf("entry point %d not live or level %d != %d", ep, x.node(ep).level, top)
	}
	for id := range n {
		if x.node(id).state.Load() == stateLive && int(x.node(id).level) > top {
			t.Fatalf("node %d has level %d above the entry point's %d", id, x.node(id).level, top)
		}
	}
	if !reach {
		return
	}
	seen := reachable(x)
	// A handful of nodes can lose every in-link to pruning, as in any HNSW;
	// more than 1% would mean the repair is broken.
	if unreachable := live - len(seen); unreachable > live/100 {
		t.Fatalf("%d of %d live nodes unreachable on layer 0", unreachable, live)
	}
}

// reachable is the set of nodes a walk of layer 0 from the entry point can
// reach.
func reachable(x *Index) map[uint32]bool {
	ep, _, ok := x.entryPoint()
	if !ok {
		return nil
	}
	seen := map[uint32]bool{ep: true}
	stack := []uint32{ep}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, o := range x.Links(c, 0) {
			if !seen[o] {
				seen[o] = true
				stack = append(stack, o)
			}
		}
	}
	return seen
}
