package hnsw

import (
	"errors"
	"fmt"
)

// Persistence: Export walks the graph as it is, and a Restorer puts nodes
// and their links straight back into the slabs, so loading a saved index
// costs a copy, not the searches an insert does.

// Node is one live node as Export shows it. Its slices alias scratch space
// reused for the next node.
type Node struct {
	ID    uint32
	Level int
	Norm  float32
	Code  []uint64   // the stored code (see package quant)
	Exact []float32  // the float32 copy kept with Rerank, else nil
	Links [][]uint32 // per layer 0..Level
}

// Export calls fn for every live node, in id order, until fn returns false.
// Nodes inserted or deleted meanwhile may or may not be seen, and links may
// point at nodes fn does not see (deleted ones, or ones being inserted):
// the caller drops those. While fn runs, n.ID is not reused by another
// node (see Pin).
func (x *Index) Export(fn func(n *Node) bool) {
	var n Node
	for id := range x.next.Load() {
		if !x.exportNode(id, &n, fn) {
			return
		}
	}
}

// exportNode calls fn for node id if it is live, in an epoch: a node
// deleted meanwhile could otherwise be reused, with another level, between
// the reads of its level and of its lists. It reports whether to go on.
func (x *Index) exportNode(id uint32, n *Node, fn func(n *Node) bool) bool {
	slot := x.epoch.enter()
	defer x.epoch.exit(slot)
	nd := x.node(id)
	if nd.state.Load() != stateLive || !nd.linked.Load() {
		return true
	}
	n.ID, n.Level, n.Norm, n.Code = id, int(nd.level), nd.norm, x.code(id)
	n.Exact = nil
	if x.rerank {
		n.Exact = x.exact.at(id)
	}
	for len(n.Links) <= n.Level {
		n.Links = append(n.Links, nil)
	}
	n.Links = n.Links[:n.Level+1]
	for l := range n.Links {
		n.Links[l] = readLinks(n.Links[l][:0], x.links(id, l))
	}
	return fn(n)
}

// LevelState returns the state of the level generator, so that a restored
// index draws the levels the saved one would have drawn next.
func (x *Index) LevelState() []byte {
	x.mu.Lock()
	defer x.mu.Unlock()
	b, _ := x.src.MarshalBinary()
	return b
}

// Entry returns the entry point and its level; ok is false when the index
// is empty.
func (x *Index) Entry() (id uint32, level int, ok bool) { return x.entryPoint() }

// ErrRestore is wrapped by every error of a Restorer: the nodes and links
// given do not make a valid graph.
var ErrRestore = errors.New("hnsw: invalid saved graph")

// Restorer builds an index from nodes numbered 0..n-1 in order, as Export
// listed them (renumbered densely by the caller).
type Restorer struct {
	x *Index
	n uint32
}

// NewRestorer returns a builder of an index with configuration c that will
// hold n nodes.
func NewRestorer(c Config, n int) (*Restorer, error) {
	x, err := New(c)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > 1<<31 {
		return nil, fmt.Errorf("%w: %d nodes", ErrRestore, n)
	}
	x.nodes.grow(n)
	x.links0.grow(n)
	x.dist0.grow(n)
	x.codes.grow(n)
	x.exact.grow(n)
	return &Restorer{x: x}, nil
}

// Node is one node of the graph being restored; it takes the next id.
// Code must be Format().Words() words, exact Dim floats with Rerank (nil
// otherwise), links one list per layer up to level, each within the
// layer's limit and without self or repeated links. Links may name nodes
// not added yet; Finish checks them.
func (r *Restorer) Node(level int, norm float32, code []uint64, exact []float32, links [][]uint32) error {
	x := r.x
	if uint64(r.n) >= uint64(x.nodes.n) {
		return fmt.Errorf("%w: more nodes than announced", ErrRestore)
	}
	if level < 0 || level > MaxLevel || len(links) != level+1 || len(code) != x.format.Words() ||
		(x.rerank && len(exact) != x.dim) || (!x.rerank && exact != nil) {
		return fmt.Errorf("%w: node %d: bad level, code or link layers", ErrRestore, r.n)
	}
	id := r.n
	nd := x.node(id)
	nd.level, nd.norm = uint8(level), norm
	if level > 0 {
		nd.upper = x.upperNext[level]
		x.upperNext[level]++
		x.upper[level].grow(int(x.upperNext[level]))
	}
	copy(x.code(id), code)
	if x.rerank {
		copy(x.exact.at(id), exact)
	}
	for l, ls := range links {
		if len(ls) > x.maxLinks(l) {
			return fmt.Errorf("%w: node %d layer %d: %d links", ErrRestore, id, l, len(ls))
		}
		for i, t := range ls {
			if t == id || uint64(t) >= uint64(x.nodes.n) {
				return fmt.Errorf("%w: node %d layer %d: link to %d", ErrRestore, id, l, t)
			}
			for _, u := range ls[:i] {
				if u == t {
					return fmt.Errorf("%w: node %d layer %d: repeated link %d", ErrRestore, id, l, t)
				}
			}
		}
		writeLinks(x.links(id, l), ls)
		if l == 0 {
			forget(x.dist0.at(id))
		}
	}
	nd.linked.Store(true)
	nd.state.Store(stateLive)
	r.n++
	return nil
}

// LevelState restores the level generator's state (from
// Index.LevelState).
func (r *Restorer) LevelState(b []byte) error {
	if err := r.x.src.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("%w: level generator state", ErrRestore)
	}
	return nil
}

// Finish checks that every link names a node of a high enough level and
// that the entry point is a node of the top level, counts each node's
// in-links, and returns the index.
func (r *Restorer) Finish(entry uint32) (*Index, error) {
	x := r.x
	top := -1
	for id := range r.n {
		nd := x.node(id)
		top = max(top, int(nd.level))
		for l := 0; l <= int(nd.level); l++ {
			ls := x.links(id, l) // no one else sees the index yet
			for _, t := range ls[1 : 1+ls[0]] {
				tn := x.node(t)
				if t >= r.n || int(tn.level) < l {
					return nil, fmt.Errorf("%w: node %d layer %d: link to %d", ErrRestore, id, l, t)
				}
				tn.inDeg.Add(1)
				if l == 0 {
					tn.in0.Add(1)
				}
			}
		}
	}
	if r.n > 0 {
		if entry >= r.n || int(x.node(entry).level) != top {
			return nil, fmt.Errorf("%w: entry point %d", ErrRestore, entry)
		}
		x.setEntry(entry, top)
	}
	x.next.Store(r.n)
	x.live.Store(int64(r.n))
	return x, nil
}
