package ai

import (
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/vector/hnsw"
)

// item is what every vector entry has: a public id (never reused, unlike
// the index's node ids), its node in the index, and its expiry.
type item struct {
	id     uint64
	node   uint32
	expire expState
}

func (i *item) exp() *expState { return &i.expire }
func (i *item) base() *item    { return i }

type elem interface {
	comparable
	exp() *expState
	base() *item
}

// store is the element store shared by semantic caches and memory
// namespaces: an HNSW index and the entries its node ids map to. Writers
// hold mu; searches hold it for reading, so a node id they meet is never
// reused under them, and TTL refreshes (atomic) are their only writes.
type store[E elem] struct {
	opt      VectorOptions
	mu       sync.RWMutex
	idx      *hnsw.Index
	byNode   []E
	byID     map[uint64]E
	heap     expHeap[E]
	next     uint64
	due      atomic.Int64 // earliest queued expiry, 0 if none: readers check it unlocked
	onRemove func(E)      // the owner's own indexes
	expired  atomic.Int64
}

func (s *store[E]) init(o VectorOptions, onRemove func(E)) error {
	x, err := o.index()
	if err != nil {
		return err
	}
	s.opt, s.idx, s.byID, s.onRemove = o, x, map[uint64]E{}, onRemove
	return nil
}

// insert adds e with vector v (already checked) and gives it an id and a
// node. Called with mu held.
func (s *store[E]) insert(v []float32, e E, id uint64) error {
	node, err := s.idx.Add(v)
	if err != nil {
		return err
	}
	s.register(e, node, id)
	return nil
}

// register maps node (returned by idx.Add, which may run without mu: a
// search that meets the node before it is registered skips it) to e and
// gives e an id (0: the next one). Called with mu held.
func (s *store[E]) register(e E, node uint32, id uint64) {
	b := e.base()
	if id == 0 {
		s.next++
		id = s.next
	}
	s.next = max(s.next, id)
	b.id, b.node = id, node
	for int(node) >= len(s.byNode) {
		var zero E
		s.byNode = append(s.byNode, zero)
	}
	s.byNode[node] = e
	s.byID[id] = e
	s.schedule(e)
}

func (s *store[E]) schedule(e E) {
	s.heap.schedule(e)
	s.due.Store(s.heap.next())
}

// remove deletes e. Called with mu held.
func (s *store[E]) remove(e E) {
	b := e.base()
	var zero E
	s.idx.Delete(b.node)
	s.byNode[b.node] = zero
	delete(s.byID, b.id)
	s.heap.remove(e)
	if s.onRemove != nil {
		s.onRemove(e)
	}
}

// sweep removes the entries expired at now. Called with mu held.
func (s *store[E]) sweep(now int64) {
	s.heap.due(now, func(e E) {
		s.remove(e)
		s.expired.Add(1)
	})
	s.due.Store(s.heap.next())
}

// sweepIfDue is sweep for readers, which do not hold mu.
func (s *store[E]) sweepIfDue(now int64) {
	if d := s.due.Load(); d != 0 && d <= now {
		s.mu.Lock()
		s.sweep(now)
		s.mu.Unlock()
	}
}

// at returns the live entry on node n, or the zero E. Called with mu held
// (for reading at least).
func (s *store[E]) at(n uint32, now int64) (E, bool) {
	var zero E
	if int(n) >= len(s.byNode) {
		return zero, false
	}
	e := s.byNode[n]
	if e == zero || !live(e.exp().at.Load(), now) {
		return zero, false
	}
	return e, true
}

// filterEffort bounds how many nodes a filtered search expands: a filter
// that matches few entries otherwise walks the whole graph.
const filterEffort = 20000

// search returns up to k live entries nearest v that pass ok (nil: all).
// Called with mu held for reading at least.
func (s *store[E]) search(v []float32, k, ef int, now int64, ok func(E) bool) []hnsw.Result {
	pass := func(n uint32) bool {
		e, live := s.at(n, now)
		return live && (ok == nil || ok(e))
	}
	res, _ := s.idx.Search(v, k, max(ef, k), pass, filterEffort)
	return res
}

// vector returns e's stored vector (normalised for cosine).
func (s *store[E]) vector(e E) []float32 { return s.idx.Vector(e.base().node, nil) }
