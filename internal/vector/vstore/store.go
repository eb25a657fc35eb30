// Package vstore is the element store shared by Redis vector sets and HotKV's
// named indexes: an HNSW index (package hnsw) plus the mapping between
// element names and node ids, each element's JSON attributes, and FILTER
// evaluation over them.
//
// Every method is safe for concurrent use. Inserts run the graph work
// without any store-wide lock (only the name map is locked, briefly);
// searches take no lock at all: each node id has an atomically published
// *Element, nil while the id is not (or no longer) a live element, so a
// search skips nodes being inserted or replaced.
package vstore

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/vector/filter"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
)

// Element is one stored element's name and attributes (JSON text, "" for
// none). It is immutable: a change of attributes publishes a new Element.
type Element struct {
	Name  string
	Attrs string
}

const chunkBits = 10

type chunk [1 << chunkBits]atomic.Pointer[Element]

// Store is a set of named vectors. The zero value is not usable: see New.
type Store struct {
	idx *hnsw.Index

	mu     sync.RWMutex
	ids    map[string]uint32
	nattrs int // elements with attributes
	adds   uint64
	meta   int64  // bytes of names, attributes and map entries
	hi     uint32 // above every node id ever used

	dir atomic.Pointer[[]*chunk] // node id -> element; grown under mu
}

// New returns an empty store whose index has configuration c.
func New(c hnsw.Config) (*Store, error) {
	idx, err := hnsw.New(c)
	if err != nil {
		return nil, err
	}
	s := &Store{idx: idx, ids: map[string]uint32{}}
	s.dir.Store(new([]*chunk))
	return s, nil
}

// Index returns the graph (for its configuration, VLINKS, persistence).
func (s *Store) Index() *hnsw.Index { return s.idx }

// Dim is the vectors' dimension.
func (s *Store) Dim() int { return s.idx.Config().Dim }

// Len is the number of elements.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.ids)
}

// AttrCount is the number of elements that have attributes.
func (s *Store) AttrCount() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.nattrs
}

// Inserts is the number of vectors ever inserted (Redis's hnsw-max-node-uid).
func (s *Store) Inserts() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.adds
}

// Errors of bad vectors, for callers to turn into their protocol's message.
var (
	ErrNotFinite = errors.New("vector component is NaN or infinite")
	ErrZero      = errors.New("zero vector under the cosine metric")
)

// Check reports why v cannot be stored: a NaN or infinite component, or
// (when zeroOK is false and the metric is cosine) a zero vector, which has no
// direction.
func (s *Store) Check(v []float32, zeroOK bool) error {
	if len(v) != s.Dim() {
		return hnsw.ErrDimension
	}
	return CheckVector(v, !zeroOK && s.idx.Config().Metric == hnsw.Cosine)
}

// CheckVector is Check without a store: NaN and infinities are refused, and
// a zero vector too when noZero.
func CheckVector(v []float32, noZero bool) error {
	zero := true
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return ErrNotFinite
		}
		if f != 0 {
			zero = false
		}
	}
	if zero && noZero {
		return ErrZero
	}
	return nil
}

// slot returns the cell of node id, nil beyond the directory.
func (s *Store) slot(id uint32) *atomic.Pointer[Element] {
	d := *s.dir.Load()
	c := int(id >> chunkBits)
	if c >= len(d) {
		return nil
	}
	return &d[c][id&(1<<chunkBits-1)]
}

// grow makes room for node id; s.mu must be held for writing.
func (s *Store) grow(id uint32) *atomic.Pointer[Element] {
	d := *s.dir.Load()
	if c := int(id >> chunkBits); c >= len(d) {
		nd := make([]*chunk, c+1)
		copy(nd, d)
		for i := len(d); i <= c; i++ {
			nd[i] = new(chunk)
		}
		s.dir.Store(&nd)
	}
	return s.slot(id)
}

// account adds (sign 1) or removes (-1) e's share of nattrs and meta;
// s.mu must be held for writing.
func (s *Store) account(e *Element, sign int) {
	if e.Attrs != "" {
		s.nattrs += sign
	}
	// map entry (string header, id, bucket overhead), Element, the name
	// (map key and Element share one copy) and attributes
	s.meta += int64(sign) * int64(48+32+len(e.Name)+len(e.Attrs))
}

// Element returns the live element at node id, or nil.
func (s *Store) Element(id uint32) *Element {
	if p := s.slot(id); p != nil {
		return p.Load()
	}
	return nil
}

// Set inserts name with vector v, or replaces the vector of an existing
// name. With setAttrs the attributes become attrs ("" removes them);
// otherwise a replaced element keeps its attributes. added reports a new
// name. v is copied; it must have passed Check.
func (s *Store) Set(name string, v []float32, attrs string, setAttrs bool) (added bool, err error) {
	id, err := s.idx.Add(v)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	old, had := s.ids[name]
	e := &Element{Name: name}
	if setAttrs {
		e.Attrs = attrs
	} else if had {
		e.Attrs = s.Element(old).Attrs
	}
	if had {
		s.account(s.Element(old), -1)
		s.slot(old).Store(nil)
	}
	s.account(e, 1)
	s.ids[name] = id
	s.adds++
	s.hi = max(s.hi, id+1)
	s.grow(id).Store(e)
	s.mu.Unlock()
	if had {
		s.idx.Delete(old)
	}
	return !had, nil
}

// Delete removes name and reports whether it was there.
func (s *Store) Delete(name string) bool {
	s.mu.Lock()
	id, ok := s.ids[name]
	if ok {
		delete(s.ids, name)
		s.account(s.Element(id), -1)
		s.slot(id).Store(nil)
	}
	s.mu.Unlock()
	if ok {
		s.idx.Delete(id)
	}
	return ok
}

// ID returns the node id of name.
func (s *Store) ID(name string) (uint32, bool) {
	s.mu.RLock()
	id, ok := s.ids[name]
	s.mu.RUnlock()
	return id, ok
}

// Span is above every node id in use: node ids are dense from 0 (deleted
// ones are reused), so ids drawn below it sample the elements.
func (s *Store) Span() uint32 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hi
}

// Contains reports whether name is an element.
func (s *Store) Contains(name string) bool {
	_, ok := s.ID(name)
	return ok
}

// Attrs returns name's attributes ("" for none) and whether name exists.
func (s *Store) Attrs(name string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	id, ok := s.ids[name]
	if !ok {
		return "", false
	}
	return s.Element(id).Attrs, true
}

// SetAttrs replaces name's attributes ("" removes them); false when name is
// not an element.
func (s *Store) SetAttrs(name, attrs string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.ids[name]
	if !ok {
		return false
	}
	p := s.slot(id)
	e := &Element{Name: name, Attrs: attrs}
	s.account(p.Load(), -1)
	s.account(e, 1)
	p.Store(e)
	return true
}

// Vector returns name's vector as the caller gave it, up to the stored
// coding's precision (de-normalised for cosine).
func (s *Store) Vector(name string) ([]float32, bool) {
	v, _, ok := s.Get(name)
	return v, ok
}

// Get returns name's vector (as VectorOf) and element, read as one: the pin
// keeps name's node id from being freed and taken by a concurrent Set or
// Delete between the lookup and the read, which would return another
// element's vector.
func (s *Store) Get(name string) ([]float32, *Element, bool) {
	pin := s.idx.Pin()
	defer s.idx.Unpin(pin)
	s.mu.RLock()
	id, ok := s.ids[name]
	var e *Element
	if ok {
		e = s.Element(id)
	}
	s.mu.RUnlock()
	if e == nil {
		return nil, nil, false
	}
	return s.VectorOf(id), e, true
}

// VectorOf returns node id's de-normalised vector.
func (s *Store) VectorOf(id uint32) []float32 {
	v := s.idx.Vector(id, make([]float32, s.Dim()))
	if s.idx.Config().Metric == hnsw.Cosine {
		n := s.idx.Norm(id)
		for i := range v {
			v[i] *= n
		}
	}
	return v
}

// Each calls fn for every element with its node id until fn returns false:
// the iteration persistence and COPY use (vectors by VectorOf, links by
// Index().Links). Elements added or removed meanwhile may or may not be seen.
func (s *Store) Each(fn func(id uint32, e *Element) bool) {
	d := *s.dir.Load()
	for ci, c := range d {
		for i := range c {
			if e := c[i].Load(); e != nil && !fn(uint32(ci<<chunkBits+i), e) {
				return
			}
		}
	}
}

// Clone returns a copy of the store: same configuration, elements,
// vectors (as VectorOf decodes them) and attributes; the graph is rebuilt.
func (s *Store) Clone() *Store {
	c, _ := New(s.idx.Config())
	s.Each(func(id uint32, e *Element) bool {
		c.Set(e.Name, s.VectorOf(id), e.Attrs, true)
		return true
	})
	return c
}

// Random returns a random element, nil when the store is empty.
func (s *Store) Random() *Element {
	s.mu.RLock()
	hi := s.hi
	s.mu.RUnlock()
	if hi == 0 {
		return nil
	}
	// Node ids are dense (deleted ones are reused), so a few random probes
	// nearly always hit; a scan from a random start settles the rest.
	for range 32 {
		if e := s.Element(rand.Uint32N(hi)); e != nil {
			return e
		}
	}
	var found *Element
	start := rand.Uint32N(hi)
	s.Each(func(id uint32, e *Element) bool {
		found = e
		return id < start
	})
	return found
}

// Sample returns n distinct random element names (fewer if the store has
// fewer): random picks for small samples, else a run of consecutive
// elements from a random start, as Redis's VRANDMEMBER.
func (s *Store) Sample(n int) []string {
	size := s.Len()
	n = min(n, size)
	out := make([]string, 0, n)
	if n <= size/5 {
		seen := make(map[string]bool, n)
		for len(out) < n {
			e := s.Random()
			if e == nil {
				break
			}
			if !seen[e.Name] {
				seen[e.Name] = true
				out = append(out, e.Name)
			}
		}
		return out
	}
	var all []string
	s.Each(func(_ uint32, e *Element) bool {
		all = append(all, e.Name)
		return true
	})
	if len(all) == 0 {
		return out
	}
	start := rand.IntN(len(all))
	for i := 0; i < n && i < len(all); i++ {
		out = append(out, all[(start+i)%len(all)])
	}
	return out
}

// Query is a search request.
type Query struct {
	K, EF    int
	Filter   *filter.Expr // nil: no filter
	FilterEF int          // bound on nodes expanded with a filter; <= 0 unbounded
	Exact    bool         // linear scan instead of the graph (VSIM TRUTH)
	MaxDist  float32      // drop hits farther than this (when > 0)
}

// Hit is a search result.
type Hit struct {
	ID   uint32
	Dist float32
	*Element
}

// Search returns up to q.K elements nearest to v, nearest first.
func (s *Store) Search(v []float32, q Query) ([]Hit, error) {
	n := s.idx.Len()
	k := min(q.K, n)
	if k <= 0 {
		if len(v) != s.Dim() {
			return nil, hnsw.ErrDimension
		}
		return nil, nil
	}
	// ef beyond the element count explores nothing more, only allocates.
	ef := min(max(q.EF, k), n)
	var accept func(uint32) bool
	if q.Filter != nil {
		accept = func(id uint32) bool {
			e := s.Element(id)
			return e != nil && q.Filter.Eval(e.Attrs)
		}
	}
	// Pinned, no id found can be deleted and taken by a new element before
	// it is looked up below (that element would be returned at the
	// distance of the vector the id had).
	pin := s.idx.Pin()
	defer s.idx.Unpin(pin)
	var res []hnsw.Result
	var err error
	if q.Exact {
		res, err = s.idx.Exact(v, k, accept)
	} else {
		res, err = s.idx.Search(v, k, ef, accept, q.FilterEF)
	}
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(res))
	for _, r := range res {
		if q.MaxDist > 0 && r.Dist > q.MaxDist {
			break
		}
		// A node whose insert or replacement is in flight has no element.
		if e := s.Element(r.ID); e != nil {
			hits = append(hits, Hit{ID: r.ID, Dist: r.Dist, Element: e})
		}
	}
	return hits, nil
}

// Bytes estimates the memory the store holds: the graph plus names,
// attributes and the maps between them.
func (s *Store) Bytes() int64 {
	s.mu.RLock()
	b := s.meta + int64(len(*s.dir.Load()))*int64(len(chunk{})*8)
	s.mu.RUnlock()
	return b + s.idx.Bytes()
}

// ErrDuplicate is returned by Restore for a name given twice.
var ErrDuplicate = errors.New("duplicate element name")

// Restore returns a store over a restored graph whose node i is elems[i];
// inserts is the Inserts count to carry on from.
func Restore(idx *hnsw.Index, elems []Element, inserts uint64) (*Store, error) {
	s := &Store{idx: idx, ids: make(map[string]uint32, len(elems)), adds: inserts, hi: uint32(len(elems))}
	s.dir.Store(new([]*chunk))
	for i := range elems {
		e := &elems[i]
		if _, ok := s.ids[e.Name]; ok {
			return nil, ErrDuplicate
		}
		s.ids[e.Name] = uint32(i)
		s.account(e, 1)
		s.grow(uint32(i)).Store(e)
	}
	return s, nil
}
