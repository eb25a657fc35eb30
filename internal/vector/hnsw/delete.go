package hnsw

import (
	"slices"
	"sync/atomic"
)

// A deleted node whose in-links could not all be found nearby waits in
// pending, with the links it had, until a purge pass over every node removes
// the rest. Links between clusters are long, so their sources are not in the
// deleted node's neighbourhood; one pass for many deletes keeps the cost per
// delete constant.
type pendingDelete struct {
	id    uint32
	saved [][]uint32 // the node's links per layer when it was deleted
	gens  [][]uint32 // their generations then (see node.gen)
}

// purgeEvery is the minimum number of pending deletes before a purge; it
// grows with the index (a purge costs one look at every link).
const purgeEvery = 64

// Delete removes node id and repairs the lists that linked to it: each such
// list loses id and takes the nearest suitable of id's neighbours (or
// theirs) instead, so the graph stays navigable however many deletes and
// re-inserts happen. It reports whether id was in the index. Deleting an id
// whose Add has not returned is not allowed (the caller's own map from
// names to ids orders the two).
func (x *Index) Delete(id uint32) bool {
	if id >= x.next.Load() {
		return false
	}
	nd := x.node(id)
	x.deleting.Add(1)
	if !nd.state.CompareAndSwap(stateLive, stateDeleted) {
		x.deleting.Add(-1)
		return false
	}
	x.live.Add(-1)
	slot := x.epoch.enter()
	s := x.getSearcher()
	defer x.putSearcher(s)

	// Take the node's own links out first, keeping them for the repair.
	// Two nodes deleted at once then never wait for each other.
	level := int(nd.level)
	saved := make([][]uint32, level+1)
	nd.mu.Lock()
	for l := 0; l <= level; l++ {
		lst := x.links(id, l)
		saved[l] = readLinks(nil, lst)
		writeLinks(lst, nil)
	}
	nd.mu.Unlock()
	for l, ls := range saved {
		for _, t := range ls {
			x.unref(s, t, l)
		}
	}
	x.replaceEntry(id, saved)

	// Most links to the node come from its neighbourhood: its neighbours
	// and theirs. inDeg says whether that found them all.
	for l := level; l >= 0 && nd.inDeg.Load() > 0; l-- {
		x.unlinkNear(s, id, l, saved)
	}
	x.rescueOrphans(s)
	if nd.inDeg.Load() == 0 {
		x.epoch.exit(slot)
		x.retire(id)
		return true
	}
	// The purge will use the neighbours after this epoch, when their ids
	// may belong to new nodes: note, while the epoch still holds them,
	// which nodes they are.
	p := pendingDelete{id: id, saved: saved, gens: make([][]uint32, len(saved))}
	for l, ls := range saved {
		p.gens[l] = make([]uint32, len(ls))
		for i, c := range ls {
			p.gens[l][i] = x.node(c).gen.Load()
		}
	}
	x.epoch.exit(slot)
	x.pendMu.Lock()
	x.pending = append(x.pending, p)
	due := len(x.pending) >= max(purgeEvery, x.Len()/64) && !x.purging
	if due {
		x.purging = true
	}
	x.pendMu.Unlock()
	if due {
		// In the background: a purge looks at every node, and the caller
		// (a VREM) should not wait for that.
		go func() {
			x.Purge()
			x.pendMu.Lock()
			x.purging = false
			x.pendMu.Unlock()
		}()
	}
	return true
}

// Purge completes pending deletes: it looks at every link of every node,
// removes (and repairs) those that point at nodes deleted earlier, and makes
// their ids reusable. Delete calls it as needed; calling it directly is
// useful before walking or saving the whole graph.
func (x *Index) Purge() {
	x.purgeMu.Lock()
	defer x.purgeMu.Unlock()
	x.pendMu.Lock()
	batch := x.pending
	x.pending = nil
	x.pendMu.Unlock()
	if len(batch) == 0 {
		return
	}
	slot := x.epoch.enter()
	s := x.getSearcher()
	defer x.putSearcher(s)
	x.fullScans.Add(1)
	byID := make(map[uint32]*pendingDelete, len(batch))
	for i := range batch {
		x.dropReused(&batch[i])
		byID[batch[i].id] = &batch[i]
	}
	n := x.next.Load()
	for c := range n {
		cn := x.node(c)
		if cn.state.Load() != stateLive {
			continue
		}
		for l := int(cn.level); l >= 0; l-- {
			s.buf = readLinks(s.buf[:0], x.links(c, l))
			for _, t := range s.buf {
				if x.node(t).state.Load() != stateDeleted {
					continue
				}
				if p := byID[t]; p != nil && l < len(p.saved) {
					x.unlinkFrom(s, c, t, l, p.saved[l])
				}
			}
		}
	}
	x.rescueOrphans(s)
	x.epoch.exit(slot)
	var again []pendingDelete
	for _, p := range batch {
		// A count still held is an insert that has just seen the node is
		// deleted and is undoing its reference; try again next time.
		if x.node(p.id).inDeg.Load() == 0 {
			x.retire(p.id)
		} else {
			again = append(again, p)
		}
	}
	if len(again) > 0 {
		x.pendMu.Lock()
		x.pending = append(x.pending, again...)
		x.pendMu.Unlock()
	}
}

// dropReused removes from p's saved neighbours those that are no longer
// the nodes they were: deleted since (they are of no use to the repair),
// and so possibly reclaimed and reused by a new node, which may not even
// have the layer it was saved on. Called in an epoch, so that a neighbour
// found live is not reclaimed before the purge is done with it.
func (x *Index) dropReused(p *pendingDelete) {
	for l, ls := range p.saved {
		gens := p.gens[l]
		n := 0
		for i, c := range ls {
			// The state first: a node reclaimed and reused since has a
			// new generation by the time it is live again.
			if nd := x.node(c); nd.state.Load() == stateLive && nd.gen.Load() == gens[i] {
				ls[n], gens[n] = c, gens[i]
				n++
			}
		}
		p.saved[l], p.gens[l] = ls[:n], gens[:n]
	}
}

// unlinkNear removes links to d on layer l from d's neighbours and their
// neighbours, refilling the lists from the same neighbourhood.
func (x *Index) unlinkNear(s *searcher, d uint32, l int, saved [][]uint32) {
	s.newVisit(x.next.Load())
	s.visit(d)
	var pool []uint32
	for _, c := range saved[l] {
		if !s.visit(c) {
			pool = append(pool, c)
		}
		s.buf = readLinks(s.buf[:0], x.links(c, l))
		for _, c2 := range s.buf {
			if !s.visit(c2) {
				pool = append(pool, c2)
			}
		}
	}
	// Refill from the part of the neighbourhood nearest to d (its own
	// neighbours always included): the in-linkers' lists lost d, and what
	// stood behind it is near it. A bounded pool bounds the cost.
	refill := pool
	if limit := 5 * x.maxLinks(l); len(pool) > limit {
		dq := x.code(d)
		s.res = s.res[:0]
		for _, e := range pool {
			// d's own neighbours go in anyway. They are not necessarily the
			// start of pool: one also reached as a neighbour's neighbour
			// was placed where it was first seen.
			if slices.Contains(saved[l], e) {
				continue
			}
			dist := x.dist(dq, x.code(e))
			if len(s.res) < limit-len(saved[l]) {
				s.res.push(item{dist, e})
			} else if dist < s.res[0].dist {
				s.res.replaceTop(item{dist, e})
			}
		}
		refill = append(slices.Clone(saved[l]), make([]uint32, 0, len(s.res))...)
		for _, it := range s.res {
			refill = append(refill, it.id)
		}
	}
	for _, c := range pool {
		if hasLink(x.links(c, l), d) {
			x.unlinkFrom(s, c, d, l, refill)
		}
	}
}

// unlinkFrom removes the link c -> d on layer l and refills c's list from
// pool, nodes near d.
func (x *Index) unlinkFrom(s *searcher, c, d uint32, l int, pool []uint32) {
	cn := x.node(c)
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.state.Load() != stateLive {
		return // a deleted node clears its own lists
	}
	lst := x.links(c, l)
	n := int(atomic.LoadUint32(&lst[0]))
	old := lst[1 : 1+n]
	if !slices.Contains(old, d) {
		return
	}
	// Keep what c had (minus d and other deleted nodes) and add the pool
	// nodes the heuristic finds diverse enough next to them: the links d
	// stood for. At least one comes in, so the degree holds.
	base := x.code(c)
	keep := s.pruneSel[:0]
	for _, e := range old {
		if e != d && x.node(e).state.Load() == stateLive {
			keep = append(keep, item{x.dist(base, x.code(e)), e})
		}
	}
	// Only the nearest few of the pool can pass the heuristic next to what
	// c keeps; looking further costs much and adds nothing.
	s.res = s.res[:0]
	for _, e := range pool {
		if e == c || slices.Contains(old, e) || x.node(e).state.Load() != stateLive {
			continue
		}
		d := x.dist(base, x.code(e))
		if len(s.res) < 4*x.maxLinks(l) || d < s.res[0].dist {
			s.res.push(item{d, e})
			if len(s.res) > 4*x.maxLinks(l) {
				s.res.pop()
			}
		}
	}
	cands := append(s.prune[:0], s.res...)
	s.sortItems(cands)
	had := len(keep)
	kept := s.codes[:0]
	for _, k := range keep {
		kept = append(kept, x.code(k.id))
	}
	for _, cand := range cands {
		if len(keep) >= x.maxLinks(l) {
			break
		}
		// Identical codes (binary ones collide often) are at distance 0
		// and pass the heuristic next to each other: never take one twice.
		cc := x.code(cand.id)
		if !slices.ContainsFunc(keep, func(k item) bool { return k.id == cand.id }) &&
			x.diverse(cc, cand.dist, kept) && x.ref(cand.id, l) {
			keep = append(keep, cand)
			kept = append(kept, cc)
		}
	}
	s.codes = kept
	if len(keep) == had && len(keep) < x.maxLinks(l) {
		for _, cand := range cands {
			if x.ref(cand.id, l) {
				keep = append(keep, cand)
				break
			}
		}
	}
	x.replaceLinks(s, c, l, keep)
	s.prune, s.pruneSel = cands, keep
}

// replaceEntry picks a new entry point when d, being deleted, is the
// current one: a neighbour on the top layer if there is one, else the live
// node with the highest level (preferring one that is already linked).
func (x *Index) replaceEntry(d uint32, saved [][]uint32) {
	x.entryMu.Lock()
	defer x.entryMu.Unlock()
	ep, top, ok := x.entryPoint()
	if !ok || ep != d {
		return
	}
	if top < len(saved) {
		for _, c := range saved[top] {
			if x.node(c).state.Load() == stateLive {
				x.setEntry(c, top)
				return
			}
		}
	}
	best, bestLevel, bestLinked := uint32(0), -1, false
	n := x.next.Load()
	for c := range n {
		cn := x.node(c)
		if c == d || cn.state.Load() != stateLive {
			continue
		}
		l := int(cn.level)
		linked := atomic.LoadUint32(&x.links0.at(c)[0]) > 0
		if l > bestLevel || (l == bestLevel && linked && !bestLinked) {
			best, bestLevel, bestLinked = c, l, linked
		}
	}
	if bestLevel < 0 {
		x.entry.Store(0)
		return
	}
	x.setEntry(best, bestLevel)
}
