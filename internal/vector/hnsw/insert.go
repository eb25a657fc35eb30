package hnsw

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/vector/distance"
	"github.com/hotkv/hotkv/internal/vector/quant"
)

// Add inserts a vector and returns its id. Ids of deleted vectors are
// reused. v is copied.
func (x *Index) Add(v []float32) (uint32, error) {
	if len(v) != x.dim {
		return 0, ErrDimension
	}
	s := x.getSearcher()
	defer x.putSearcher(s)
	norm := x.prepare(s, v)

	id, level := x.alloc()
	nd := x.node(id)
	nd.mu.Lock()
	nd.norm = norm
	copy(x.code(id), s.q)
	if x.rerank {
		copy(x.exact.at(id), s.qf)
	}
	writeLinks(x.links0.at(id), nil)
	for l := 1; l <= level; l++ {
		writeLinks(x.links(id, l), nil)
	}
	nd.inDeg.Store(0)
	nd.in0.Store(0)
	nd.linked.Store(false)
	nd.state.Store(stateLive)
	nd.mu.Unlock()

	slot := x.epoch.enter()
	x.connect(s, id, level)
	x.anchor(s, id, level)
	x.rescueOrphans(s)
	x.epoch.exit(slot)
	x.live.Add(1)
	return id, nil
}

// connect links a new node into the graph (the paper's INSERT).
func (x *Index) connect(s *searcher, id uint32, level int) {
	q := x.code(id)
	s.eps = s.eps[:0]
	ep, top, ok := x.entryPoint()
	if !ok {
		x.entryMu.Lock()
		if ep, top, ok = x.entryPoint(); !ok {
			x.node(id).linked.Store(true)
			x.setEntry(id, level)
			x.entryMu.Unlock()
			return
		}
		x.entryMu.Unlock()
	}
	cur := item{x.dist(q, x.code(ep)), ep}
	for l := top; l > level; l-- {
		cur = x.greedy(s, q, cur, l)
	}
	s.eps = append(s.eps[:0], cur)
	linked := false
	for l := min(level, top); l >= 0; l-- {
		x.searchLayer(s, q, s.eps, x.buildEf(l), l, nil, 0)
		w := s.sortedResults()
		// The results are the next layer's entry points.
		s.eps = append(s.eps[:0], w...)
		w = slices.DeleteFunc(w, func(it item) bool { return it.id == id })
		// On layer 0 the new node takes up to m0 links, not m, as FAISS
		// does (see replaceFarthest for what it gains).
		s.sel = x.selectNeighbors(s, w, x.maxLinks(l), s.sel[:0])
		linked = x.setOwnLinks(s, id, l, s.sel) || linked
		s.displaced = s.displaced[:0]
		for _, nb := range s.sel {
			x.addLink(s, nb.id, id, nb.dist, l)
		}
		for _, c := range s.displaced {
			// The new node links the copy whose place it took.
			it := item{x.dist(q, x.code(c)), id}
			if !x.adopt(s, it, c, false) {
				x.adopt(s, it, c, true)
			}
		}
	}
	x.node(id).linked.Store(true)
	if level > top || !linked {
		x.entryMu.Lock()
		ep, top, ok := x.entryPoint()
		// A node with no links at all can only be reached as the entry
		// point: that happens when it arrived while the last other nodes
		// were being deleted.
		if !ok || level > top || (!linked && x.node(ep).state.Load() != stateLive) {
			x.setEntry(id, level)
		}
		x.entryMu.Unlock()
	}
}

// buildEf is how many candidates an insert gathers on a layer: layer 0
// (2M links per node, where searches end) gets ef_construction; the upper
// layers keep M links each and only guide the walk down, and 4M candidates
// choose those as well. With a quarter of the nodes on layer 1 (levelP), the
// full ef_construction there cost 15% of all distance computations: GloVe
// 100k, M 16, four level seeds, 64 instead of 200 candidates built 13%
// faster, recall@10 at ef 40 0.8405 -> 0.8358, at ef 500 0.9968 -> 0.9972.
func (x *Index) buildEf(level int) int {
	if level == 0 {
		return x.efc
	}
	return min(x.efc, 4*x.m)
}

// selectNeighbors is the paper's SELECT-NEIGHBORS-HEURISTIC: from
// candidates sorted nearest first, keep a candidate only if it is nearer to
// the base than to every candidate kept so far, up to max. Links then point
// in diverse directions, which keeps clusters connected. As hnswlib does,
// fewer than max candidates are all kept.
func (x *Index) selectNeighbors(s *searcher, cands []item, max int, out []item) []item {
	if len(cands) < max {
		return append(out, cands...)
	}
	kept := s.codes[:0]
	for _, c := range cands {
		if len(out) >= max {
			break
		}
		cc := x.code(c.id)
		if x.diverse(cc, c.dist, kept) {
			out = append(out, c)
			kept = append(kept, cc)
		}
	}
	s.codes = kept
	return out
}

// diverse reports whether a candidate with code cc, at distance d from the
// base node, is nearer to the base than to every code in kept. A duplicate
// of a kept code never is: copies of one vector are all at the same distance
// from the base, none nearer to a copy than to the base, and would otherwise
// fill the list with copies of each other.
func (x *Index) diverse(cc []uint64, d float32, kept [][]uint64) bool {
	i := 0
	if x.format.Kind() == quant.F32 && x.exactDot {
		// Four at a time through one kernel call; 1 - dot < d is dot > 1 - d.
		q, min := quant.AsF32(cc, x.dim), 1-d
		for ; i+4 <= len(kept); i += 4 {
			a, b, c, e := distance.Dot4(q, quant.AsF32(kept[i], x.dim), quant.AsF32(kept[i+1], x.dim),
				quant.AsF32(kept[i+2], x.dim), quant.AsF32(kept[i+3], x.dim))
			if a > min || b > min || c > min || e > min {
				return false
			}
			for j, dot := range [4]float32{a, b, c, e} {
				if 1-dot <= tie && slices.Equal(cc, kept[i+j]) {
					return false
				}
			}
		}
	}
	for ; i < len(kept); i++ {
		if dk := x.dist(cc, kept[i]); dk < d || dk <= tie && slices.Equal(cc, kept[i]) {
			return false
		}
	}
	return true
}

// tie bounds the distance at which two codes may be identical: the distance
// of a code to itself is 0 up to rounding (for L2 and binary codes exactly).
const tie = 1e-6

// ref records a new link to target on a layer and reports whether target
// is live; if it is not, the link must not be made (and the count is
// undone). Counting before checking pairs with Delete, which marks the node
// before reading the count: either the delete sees the link counted, or the
// link is not made. Callers offer only ids read in their epoch, or checked
// in it (see dropReused), so target is the node they mean and has the layer.
func (x *Index) ref(target uint32, level int) bool {
	n := x.node(target)
	n.inDeg.Add(1)
	if level == 0 {
		n.in0.Add(1)
	}
	if n.state.Load() != stateLive {
		x.unref(nil, target, level)
		return false
	}
	return true
}

// minIn0 is how many layer-0 links pointing at it a node is given, from
// nearby nodes that can take them, when it has fewer. A node with no
// in-link could never be found again; one with a single in-link is found
// only through that one node: GloVe 100k had 16 such nodes in 100,000 and
// they were 5 of the 26 neighbours that searches at ef 500 missed.
const minIn0 = 3

// unref uncounts a removed link. A live node left with fewer than minIn0
// links on layer 0 is noted in s for rescue once the caller has released
// its locks.
func (x *Index) unref(s *searcher, target uint32, level int) {
	n := x.node(target)
	n.inDeg.Add(-1)
	if level == 0 && n.in0.Add(-1) < minIn0 && s != nil {
		s.orphans = append(s.orphans, target)
	}
}

// rescueOrphans gives each node noted by unref that still has fewer than
// minIn0 layer-0 links pointing at it more, from the nearest of its own
// neighbours that can take it: one with a free slot, else one that can drop
// a link to a node that has plenty of others.
func (x *Index) rescueOrphans(s *searcher) {
	// A node is noted once per link it loses (a new node once per full list
	// that refused it): rescue each once.
	slices.Sort(s.orphans)
	s.orphans = slices.Compact(s.orphans)
	for len(s.orphans) > 0 {
		y := s.orphans[len(s.orphans)-1]
		s.orphans = s.orphans[:len(s.orphans)-1]
		x.rescue(s, y)
	}
}

func (x *Index) rescue(s *searcher, y uint32) {
	yn := x.node(y)
	if ep, _, _ := x.entryPoint(); yn.state.Load() != stateLive || yn.in0.Load() >= minIn0 || ep == y {
		return
	}
	x.adoptByNeighbour(s, y, yn.in0.Load() > 0, nil)
}

// anchor makes sure a new node is reachable from the part of the graph its
// search came from. A node inserted while its whole neighbourhood is being
// deleted may find no live neighbour: it searches again. And the back links
// it gave its neighbours may all have been pruned away (or gone to
// neighbours inserted at the same moment, making an island): then the
// nearest neighbour it found adopts it. So do more of the nodes its search
// found while it has fewer than minIn0 in-links: a late node in a dense
// region is farther than every link of its neighbours' full lists, which
// then refuse it, and in a tight cluster the heuristic may leave it only two
// neighbours of its own.
func (x *Index) anchor(s *searcher, id uint32, level int) {
	for try := 0; try < 2 && x.live.Load() > 0 && atomic.LoadUint32(&x.links0.at(id)[0]) == 0; try++ {
		x.connect(s, id, level)
	}
	s.buf = readLinks(s.buf[:0], x.links0.at(id))
	anchored := false
	for _, z := range s.buf {
		if hasLink(x.links0.at(z), id) {
			anchored = true
			break
		}
	}
	if !anchored || x.node(id).in0.Load() < minIn0 {
		x.adoptByNeighbour(s, id, anchored, s.eps) // connect left the layer-0 search's results there
	}
}

// adoptByNeighbour links y from the nearest of its own layer-0 neighbours
// and the nodes in near (at their distances from y) that can take it unless
// anchored (y already has an in-link that keeps it reachable), then from
// more of them until y has minIn0 in-links. Those extra links never come
// from copies of y: copies displacing each other's links for one another
// would close them into an island (see replaceFarthest).
func (x *Index) adoptByNeighbour(s *searcher, y uint32, anchored bool, near []item) {
	base := x.code(y)
	self := x.dist(base, base)
	var cands []item
	for _, z := range readLinks(nil, x.links0.at(y)) {
		if x.node(z).state.Load() == stateLive {
			cands = append(cands, item{x.dist(base, x.code(z)), z})
		}
	}
	for _, it := range near {
		if it.id != y && x.node(it.id).state.Load() == stateLive && !slices.ContainsFunc(cands, func(c item) bool { return c.id == it.id }) {
			cands = append(cands, it)
		}
	}
	s.sortItems(cands)
	for _, replace := range []bool{false, true} {
		for _, z := range cands {
			if anchored && abs32(z.dist-self) <= tie && slices.Equal(base, x.code(z.id)) {
				continue
			}
			if x.adopt(s, z, y, replace) {
				anchored = true
				if x.node(y).in0.Load() >= minIn0 {
					return
				}
			}
		}
	}
}

// adopt links z -> y (at distance zi.dist) on layer 0 if z has a free slot
// or, with replace, a link to a node with more than minIn0 others to give up
// (the one with most).
func (x *Index) adopt(s *searcher, zi item, y uint32, replace bool) bool {
	z := zi.id
	zn := x.node(z)
	zn.mu.Lock()
	defer zn.mu.Unlock()
	if zn.state.Load() != stateLive {
		return false
	}
	l := x.links0.at(z)
	n := int(atomic.LoadUint32(&l[0]))
	if slices.Contains(l[1:1+n], y) {
		return true
	}
	if n < x.m0 {
		if x.ref(y, 0) {
			x.dist0.at(z)[n] = zi.dist
			atomic.StoreUint32(&l[1+n], y)
			atomic.StoreUint32(&l[0], uint32(n+1))
		}
		return true
	}
	if !replace {
		return false
	}
	best, most := -1, int32(minIn0)
	for i := 1; i <= n; i++ {
		if in := x.node(l[i]).in0.Load(); in > most {
			best, most = i, in
		}
	}
	if best < 0 {
		return false
	}
	if x.ref(y, 0) {
		w := l[best]
		x.dist0.at(z)[best-1] = zi.dist
		atomic.StoreUint32(&l[best], y)
		x.unref(s, w, 0)
	}
	return true
}

// setOwnLinks sets a new node's list on one layer to its selected
// neighbours and reports whether it has any link. The list may already hold
// links: a concurrent insert that started its search of this layer from the
// new node (found on the layer above) can link back to it first. Those are
// kept, and the union pruned if it is too long.
func (x *Index) setOwnLinks(s *searcher, id uint32, level int, sel []item) bool {
	nd := x.node(id)
	nd.mu.Lock()
	defer nd.mu.Unlock()
	l := x.links(id, level)
	n := int(atomic.LoadUint32(&l[0]))
	old := l[1 : 1+n]
	cands := s.prune[:0]
	for _, it := range sel {
		if !slices.Contains(old, it.id) && x.ref(it.id, level) {
			cands = append(cands, it)
		}
	}
	base := x.code(id)
	for _, o := range old {
		cands = append(cands, item{x.dist(base, x.code(o)), o})
	}
	keep := cands
	if len(cands) > x.maxLinks(level) {
		s.sortItems(cands)
		keep = x.selectNeighbors(s, cands, x.maxLinks(level), s.pruneSel[:0])
		for _, it := range cands {
			if !slices.Contains(old, it.id) && !slices.Contains(keep, it) {
				x.unref(s, it.id, level)
			}
		}
		s.pruneSel = keep
	}
	x.replaceLinks(s, id, level, keep)
	s.prune = cands
	return len(keep) > 0
}

// addLink adds the back link from node to id (at distance d), which id
// must have counted (ref). When node's list is full, one link goes: on layer
// 0 the farthest (see replaceFarthest), above that whatever the heuristic
// prunes.
func (x *Index) addLink(s *searcher, nodeID, id uint32, d float32, level int) {
	nd := x.node(nodeID)
	nd.mu.Lock()
	defer nd.mu.Unlock()
	if nd.state.Load() != stateLive {
		return // its links are being torn down
	}
	l := x.links(nodeID, level)
	n := int(atomic.LoadUint32(&l[0]))
	for i := 1; i <= n; i++ {
		if l[i] == id {
			return
		}
	}
	if !x.ref(id, level) {
		return
	}
	if level == 0 {
		x.replaceFarthest(s, nodeID, l, id, d)
		return
	}
	if n < x.maxLinks(level) {
		atomic.StoreUint32(&l[1+n], id)
		atomic.StoreUint32(&l[0], uint32(n+1))
		return
	}
	base := x.code(nodeID)
	cands := s.prune[:0]
	for i := 1; i <= n; i++ {
		cands = append(cands, item{x.dist(base, x.code(l[i])), l[i]})
	}
	cands = append(cands, item{d, id})
	s.sortItems(cands)
	s.pruneSel = x.selectNeighbors(s, cands, x.maxLinks(level), s.pruneSel[:0])
	x.replaceLinks(s, nodeID, level, s.pruneSel)
	if !slices.ContainsFunc(s.pruneSel, func(it item) bool { return it.id == id }) {
		x.unref(s, id, level)
	}
	s.prune = cands
}

// replaceFarthest adds the layer-0 link nodeID -> id (at distance d) to
// list l, whose owner's lock is held and which holds no link to id. A full
// list gives up its farthest link if id is nearer, else id is not linked.
//
// Layer 0 thus keeps the nearest links rather than pruning to a diverse
// few: new nodes bring the long links (they select up to m0 with the
// heuristic), and full lists make the walk converge in fewer hops. GloVe
// 100k, mean of four level seeds, against m links per new node and lists
// pruned with the heuristic: recall@10 at ef 40 0.822 -> 0.842, at ef 150
// 0.955 -> 0.972, at ef 500 0.9961 -> 0.9967; about 10% slower build.
// Pruning full lists with the heuristic but keeping what it rejects gained
// more at ef 500 (0.9984) but cost 25% of the build.
//
// Copies of one vector (identical codes) are nearer to each other than to
// anything else, so keeping the nearest links would fill their lists with
// each other and close a group of more than m0 copies into an island that
// searches can neither leave nor enter. So copies of a list's owner take at
// most half its slots: past that a new link takes the place of a copy and
// links that copy itself, so copies form chains (a new node's own list links
// one copy only, see diverse).
func (x *Index) replaceFarthest(s *searcher, nodeID uint32, l []uint32, id uint32, d float32) {
	known := x.dist0.at(nodeID)
	n := int(atomic.LoadUint32(&l[0]))
	if n < x.m0 {
		known[n] = d
		atomic.StoreUint32(&l[1+n], id)
		atomic.StoreUint32(&l[0], uint32(n+1))
		return
	}
	base := x.code(nodeID)
	self := x.dist(base, base)
	isCopy := slices.Equal(base, x.code(id))
	copies, firstCopy, far, farDist := 0, 0, 0, d
	for i := 1; i <= n; i++ {
		di := known[i-1]
		if isNaN(di) {
			di = x.dist(base, x.code(l[i]))
			known[i-1] = di
		}
		if abs32(di-self) <= tie && slices.Equal(base, x.code(l[i])) {
			if copies++; firstCopy == 0 {
				firstCopy = i
			}
			continue
		}
		if di > farDist {
			far, farDist = i, di
		}
	}
	victim := far
	if copies > x.m0/2 || isCopy && (copies == x.m0/2 || far == 0) {
		// id takes the place of a copy, which it then links itself (see
		// connect): the copies form chains, and none loses its way in.
		victim = firstCopy
		s.displaced = append(s.displaced, l[victim])
	}
	if victim == 0 {
		x.unref(s, id, 0)
		return
	}
	w := l[victim]
	known[victim-1] = d
	atomic.StoreUint32(&l[victim], id)
	x.unref(s, w, 0)
}

func abs32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }

// replaceLinks sets the list of owner on a layer (whose lock is held) to
// sel, whose distances are from owner, and uncounts the links it drops. Ids
// in sel that were not in the list must have been counted by the caller
// (ref).
func (x *Index) replaceLinks(s *searcher, owner uint32, level int, sel []item) {
	l := x.links(owner, level)
	s.ids = s.ids[:0]
	for _, it := range sel {
		s.ids = append(s.ids, it.id)
	}
	n := int(atomic.LoadUint32(&l[0]))
	old := append(s.buf[:0], l[1:1+n]...)
	if level == 0 {
		known := x.dist0.at(owner)
		for i, it := range sel {
			known[i] = it.dist
		}
	}
	writeLinks(l, s.ids)
	for _, o := range old {
		if !slices.Contains(s.ids, o) {
			x.unref(s, o, level)
		}
	}
	s.buf = old
}

func isNaN(f float32) bool { return f != f }

// forget marks cached link distances unknown.
func forget(d []float32) {
	nan := float32(math.NaN())
	for i := range d {
		d[i] = nan
	}
}
