package hnsw

import (
	"math"
	"slices"
	"unsafe"

	"github.com/hotkv/hotkv/internal/prefetch"
	"github.com/hotkv/hotkv/internal/vector/distance"
	"github.com/hotkv/hotkv/internal/vector/quant"
)

type item struct {
	dist float32
	id   uint32
}

// sortItems sorts by distance, then id. Items are packed into integer keys
// (in s's scratch space) that order the same way, which sorts several times
// faster than a comparison function.
func (s *searcher) sortItems(a []item) {
	if len(a) <= 12 {
		for i := 1; i < len(a); i++ {
			for j := i; j > 0 && less(a[j], a[j-1]); j-- {
				a[j], a[j-1] = a[j-1], a[j]
			}
		}
		return
	}
	keys := slices.Grow(s.keys[:0], len(a))[:len(a)]
	s.keys = keys
	for i, it := range a {
		keys[i] = uint64(orderedBits(it.dist))<<32 | uint64(it.id)
	}
	slices.Sort(keys)
	for i, k := range keys {
		a[i] = item{math.Float32frombits(unorderedBits(uint32(k >> 32))), uint32(k)}
	}
}

func less(a, b item) bool { return a.dist < b.dist || (a.dist == b.dist && a.id < b.id) }

// orderedBits maps a float32 to a uint32 with the same order.
func orderedBits(f float32) uint32 {
	b := math.Float32bits(f)
	if b&(1<<31) != 0 {
		return ^b
	}
	return b | 1<<31
}

func unorderedBits(u uint32) uint32 {
	if u&(1<<31) != 0 {
		return u &^ (1 << 31)
	}
	return ^u
}

// minHeap holds the candidates to expand, nearest on top.
type minHeap []item

func (h *minHeap) push(it item) {
	a := append(*h, it)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].dist <= it.dist {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = it
	*h = a
}

func (h *minHeap) pop() item {
	a := *h
	top := a[0]
	last := a[len(a)-1]
	a = a[:len(a)-1]
	i, n := 0, len(a)
	for n > 0 {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && a[c+1].dist < a[c].dist {
			c++
		}
		if last.dist <= a[c].dist {
			break
		}
		a[i] = a[c]
		i = c
	}
	if n > 0 {
		a[i] = last
	}
	*h = a
	return top
}

// maxHeap holds the best results so far, farthest on top.
type maxHeap []item

func (h *maxHeap) push(it item) {
	a := append(*h, it)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].dist >= it.dist {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = it
	*h = a
}

// replaceTop replaces the farthest item with it (which must be nearer),
// one sift instead of a push and a pop.
func (h *maxHeap) replaceTop(it item) {
	a := *h
	i, n := 0, len(a)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && a[c+1].dist > a[c].dist {
			c++
		}
		if it.dist >= a[c].dist {
			break
		}
		a[i] = a[c]
		i = c
	}
	a[i] = it
}

func (h *maxHeap) pop() item {
	a := *h
	top := a[0]
	last := a[len(a)-1]
	a = a[:len(a)-1]
	i, n := 0, len(a)
	for n > 0 {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && a[c+1].dist > a[c].dist {
			c++
		}
		if last.dist >= a[c].dist {
			break
		}
		a[i] = a[c]
		i = c
	}
	if n > 0 {
		a[i] = last
	}
	*h = a
	return top
}

// searcher is the scratch space of one search or insert, pooled per index.
type searcher struct {
	visited   []uint16 // visited[id] == mark: seen in this layer search
	mark      uint16
	cand      minHeap
	res       maxHeap
	buf       []uint32 // a copied link list
	items     []item
	eps       []item
	sel       []item
	prune     []item // a full list being pruned, and what is kept of it
	pruneSel  []item
	q         []uint64  // the query's code
	qf        []float32 // the query, prepared as stored vectors are
	ids       []uint32
	keys      []uint64 // sortItems' scratch
	orphans   []uint32 // nodes left with fewer than minIn0 layer-0 in-links
	displaced []uint32 // copies the node being inserted took the place of, which it must link (replaceFarthest)
	dists     []float32
	codes     [][]uint64 // the codes whose distances dists will hold, or those kept by selectNeighbors
}

func (x *Index) getSearcher() *searcher {
	x.poolMu.Lock()
	var s *searcher
	if n := len(x.pool); n > 0 {
		s = x.pool[n-1]
		x.pool = x.pool[:n-1]
	}
	x.poolMu.Unlock()
	if s == nil {
		s = &searcher{q: make([]uint64, x.format.Words()), qf: make([]float32, x.dim)}
	}
	return s
}

func (x *Index) putSearcher(s *searcher) {
	x.poolMu.Lock()
	x.pool = append(x.pool, s)
	x.poolMu.Unlock()
}

func (s *searcher) bytes() int64 {
	return int64(cap(s.visited))*2 + int64(cap(s.cand)+cap(s.res)+cap(s.items)+cap(s.eps)+cap(s.sel))*8 +
		int64(cap(s.buf)+cap(s.qf)+cap(s.ids))*4 + int64(cap(s.q))*8
}

// newVisit starts a fresh visited set without clearing it (except when the
// 16-bit mark wraps around).
func (s *searcher) newVisit(n uint32) {
	if int(n) > len(s.visited) {
		s.visited = make([]uint16, n+n/4+64)
		s.mark = 0
	}
	s.mark++
	if s.mark == 0 {
		clear(s.visited)
		s.mark = 1
	}
}

// visit marks id and reports whether it was already marked.
func (s *searcher) visit(id uint32) bool {
	if int(id) >= len(s.visited) {
		// A node inserted after this search began.
		v := make([]uint16, int(id)+int(id)/4+64)
		copy(v, s.visited)
		s.visited = v
	}
	if s.visited[id] == s.mark {
		return true
	}
	s.visited[id] = s.mark
	return false
}

// prepare turns a query vector into the form stored vectors have:
// normalised for cosine, then coded.
func (x *Index) prepare(s *searcher, v []float32) (norm float32) {
	copy(s.qf, v)
	if x.metric == Cosine {
		norm = distance.Normalize(s.qf)
	}
	x.format.Encode(s.q, s.qf)
	return norm
}

// greedy walks one layer from cur towards q, always moving to the nearest
// neighbour, until no neighbour is nearer (the upper-layer search, ef = 1).
// It never steps onto a deleted node (its links are gone) nor onto one still
// being inserted: that node may be reachable on this layer while its lists
// below are still empty, and a search descending from it alone would find
// nothing else (concurrent builds lost recall that way).
func (x *Index) greedy(s *searcher, q []uint64, cur item, level int) item {
	for changed := true; changed; {
		changed = false
		s.buf = readLinks(s.buf[:0], x.links(cur.id, level))
		for _, n := range s.buf {
			if d := x.dist(q, x.code(n)); d < cur.dist && x.usable(n) {
				cur = item{d, n}
				changed = true
			}
		}
	}
	return cur
}

// usable reports whether a walk may descend through node n.
func (x *Index) usable(n uint32) bool {
	nd := x.node(n)
	return nd.state.Load() == stateLive && nd.linked.Load()
}

// searchLayer is the paper's SEARCH-LAYER: a best-first search of one layer
// from the entry points eps that leaves the ef nearest accepted nodes in
// s.res. Deleted nodes and nodes the filter rejects are still expanded, so
// they do not cut the graph, but never returned. With maxEffort > 0 the
// search stops after expanding that many nodes (a selective filter could
// otherwise walk the whole graph).
func (x *Index) searchLayer(s *searcher, q []uint64, eps []item, ef, level int,
	filter func(uint32) bool, maxEffort int) {
	s.newVisit(x.next.Load())
	s.cand = s.cand[:0]
	s.res = s.res[:0]
	for _, e := range eps {
		if s.visit(e.id) {
			continue
		}
		s.cand.push(e)
		if x.accept(e.id, filter) {
			s.res.push(e)
			if len(s.res) > ef {
				s.res.pop()
			}
		}
	}
	for effort := 0; len(s.cand) > 0; effort++ {
		if maxEffort > 0 && effort >= maxEffort {
			break
		}
		c := s.cand.pop()
		if len(s.res) >= ef && c.dist > s.res[0].dist {
			break
		}
		if len(s.cand) > 0 {
			// The next candidate's links, while this one's are worked on.
			l := x.links(s.cand[0].id, level)
			prefetch.Lines(unsafe.Pointer(&l[0]), 1+len(l)/16)
		}
		s.buf = readLinks(s.buf[:0], x.links(c.id, level))
		todo, codes := s.buf[:0], s.codes[:0]
		for _, n := range s.buf {
			if !s.visit(n) {
				cn := x.code(n)
				prefetch.Lines(unsafe.Pointer(&cn[0]), x.codeLines)
				todo = append(todo, n)
				codes = append(codes, cn)
			}
		}
		dists := x.dists(q, codes, s.dists[:0])
		s.dists, s.codes = dists, codes
		for i, n := range todo {
			d := dists[i]
			if len(s.res) < ef || d < s.res[0].dist {
				s.cand.push(item{d, n})
				if x.accept(n, filter) {
					if len(s.res) < ef {
						s.res.push(item{d, n})
					} else {
						s.res.replaceTop(item{d, n})
					}
				}
			}
		}
	}
}

func (x *Index) accept(id uint32, filter func(uint32) bool) bool {
	// Most of the time nothing is deleted, and the node record (a likely
	// cache miss) need not be read.
	if x.deleting.Load() != 0 && x.node(id).state.Load() != stateLive {
		return false
	}
	return filter == nil || filter(id)
}

// dists appends the distances from q to each of codes. Float vectors go
// four at a time through one kernel call.
func (x *Index) dists(q []uint64, codes [][]uint64, out []float32) []float32 {
	i := 0
	if x.format.Kind() == quant.F32 && x.exactDot {
		qf := quant.AsF32(q, x.dim)
		for ; i+4 <= len(codes); i += 4 {
			a, b, c, d := distance.Dot4(qf, quant.AsF32(codes[i], x.dim), quant.AsF32(codes[i+1], x.dim),
				quant.AsF32(codes[i+2], x.dim), quant.AsF32(codes[i+3], x.dim))
			out = append(out, 1-a, 1-b, 1-c, 1-d)
		}
	}
	for ; i < len(codes); i++ {
		out = append(out, x.dist(q, codes[i]))
	}
	return out
}

// sortedResults empties s.res into s.items, nearest first.
func (s *searcher) sortedResults() []item {
	s.items = s.items[:0]
	for len(s.res) > 0 {
		s.items = append(s.items, s.res.pop())
	}
	slices.Reverse(s.items)
	return s.items
}

// Search returns up to k nearest neighbours of q, nearest first, exploring
// at least ef candidates on layer 0 (ef below k counts as k). filter, when
// not nil, is called for each candidate node: rejected nodes still guide the
// search but are not returned; maxFilterEffort, when positive, bounds how
// many nodes a filtered search expands. With Rerank the distances are exact.
func (x *Index) Search(q []float32, k, ef int, filter func(id uint32) bool, maxFilterEffort int) ([]Result, error) {
	if len(q) != x.dim {
		return nil, ErrDimension
	}
	if k <= 0 {
		return nil, nil
	}
	ef = max(ef, k)
	slot := x.epoch.enter()
	defer x.epoch.exit(slot)
	s := x.getSearcher()
	defer x.putSearcher(s)
	x.prepare(s, q)

	ep, top, ok := x.entryPoint()
	if !ok {
		return nil, nil
	}
	cur := item{x.dist(s.q, x.code(ep)), ep}
	s.eps = append(s.eps[:0], cur)
	for l := top; l > 0; l-- {
		if l == 1 && k > 1 {
			// The last step down starts layer 0 from the k nearest nodes
			// of layer 1 rather than the single one greedy would find: a
			// walk from one start point misses part of the neighbourhood
			// on hard data. GloVe 100k: recall@10 at ef 40 0.821 -> 0.834,
			// at ef 80 0.900 -> 0.907, for 3-4% more CPU per query.
			x.searchLayer(s, s.q, s.eps, min(k, ef), 1, nil, 0)
			s.eps = append(s.eps[:0], s.sortedResults()...)
			break
		}
		cur = x.greedy(s, s.q, cur, l)
		s.eps = append(s.eps[:0], cur)
	}
	if filter == nil {
		maxFilterEffort = 0
	}
	x.searchLayer(s, s.q, s.eps, ef, 0, filter, maxFilterEffort)
	found := s.sortedResults()
	if x.rerank {
		for i := range found {
			found[i].dist = x.exactDist(s.qf, x.exact.at(found[i].id))
		}
		s.sortItems(found)
	}
	out := make([]Result, min(k, len(found)))
	for i := range out {
		out[i] = Result{ID: found[i].id, Dist: found[i].dist}
	}
	return out, nil
}

// Exact returns the k nearest neighbours of q by comparing q with every
// vector (on the exact copies with Rerank, else on the codes): the ground
// truth for recall, and Redis's VSIM TRUTH.
func (x *Index) Exact(q []float32, k int, filter func(id uint32) bool) ([]Result, error) {
	if len(q) != x.dim {
		return nil, ErrDimension
	}
	if k <= 0 {
		return nil, nil
	}
	slot := x.epoch.enter()
	defer x.epoch.exit(slot)
	s := x.getSearcher()
	defer x.putSearcher(s)
	x.prepare(s, q)
	s.res = s.res[:0]
	n := x.next.Load()
	for id := range n {
		if !x.accept(id, filter) {
			continue
		}
		var d float32
		if x.rerank {
			d = x.exactDist(s.qf, x.exact.at(id))
		} else {
			d = x.dist(s.q, x.code(id))
		}
		if len(s.res) < k || d < s.res[0].dist {
			s.res.push(item{d, id})
			if len(s.res) > k {
				s.res.pop()
			}
		}
	}
	found := s.sortedResults()
	out := make([]Result, len(found))
	for i, it := range found {
		out[i] = Result{ID: it.id, Dist: it.dist}
	}
	return out, nil
}
