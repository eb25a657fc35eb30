// Package vset is the value of a Redis vector-set key (VADD, VSIM, ...):
// the shared element store (package vstore) plus what only vector sets
// have: the optional REDUCE random projection and Redis's set uid.
package vset

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/quant"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// Set is a vector set. Its store is safe for concurrent use; the key's
// shard lock orders the writes (VADD, VREM, VSETATTR) among themselves.
type Set struct {
	*vstore.Store
	// UID numbers sets in creation order, process-wide (VINFO vset-uid).
	UID uint64
	// InDim is the input dimension of a REDUCE set (0 without projection);
	// proj is its Dim x InDim matrix, row-major.
	InDim int
	proj  []float32
	held  *atomic.Int64 // the set's share of liveBytes
}

var uids atomic.Uint64

// liveBytes is what the vector sets hold, for INFO memory: each set's
// Bytes as of its last write, until the collector frees the set.
var liveBytes atomic.Int64

// LiveBytes returns the memory the vector sets hold.
func LiveBytes() int64 { return liveBytes.Load() }

// track counts a new set in liveBytes, and its last size out once it is
// collected.
func track(s *Set) *Set {
	s.held = new(atomic.Int64)
	runtime.AddCleanup(s, func(h *atomic.Int64) { liveBytes.Add(-h.Load()) }, s.held)
	s.account()
	return s
}

func (s *Set) account() {
	b := s.Bytes()
	liveBytes.Add(b - s.held.Swap(b))
}

// Set, Delete and SetAttrs are the store's, keeping liveBytes up to date.
func (s *Set) Set(name string, v []float32, attrs string, setAttrs bool) (bool, error) {
	added, err := s.Store.Set(name, v, attrs, setAttrs)
	s.account()
	return added, err
}

// Delete removes an element (see vstore.Store.Delete).
func (s *Set) Delete(name string) bool {
	ok := s.Store.Delete(name)
	s.account()
	return ok
}

// SetAttrs replaces an element's attributes (see vstore.Store.SetAttrs).
func (s *Set) SetAttrs(name, attrs string) bool {
	ok := s.Store.SetAttrs(name, attrs)
	s.account()
	return ok
}

// New returns an empty set of dimension dim (after projection from inDim
// when inDim > 0) storing its vectors as q, with m links per node and build
// exploration factor ef.
func New(dim int, q quant.Kind, m, ef, inDim int) (*Set, error) {
	st, err := vstore.New(hnsw.Config{Dim: dim, M: m, EfConstruction: ef, Quant: q})
	if err != nil {
		return nil, err
	}
	s := &Set{Store: st, UID: uids.Add(1), InDim: inDim}
	if inDim > 0 {
		s.proj = projection(dim, inDim)
	}
	return track(s), nil
}

// projection is REDUCE's random matrix: entries +-1/sqrt(inDim), fixed
// for given dimensions so that a set's projection is reproducible.
func projection(dim, inDim int) []float32 {
	rng := rand.New(rand.NewPCG(uint64(dim), uint64(inDim)))
	p := make([]float32, dim*inDim)
	v := float32(1 / math.Sqrt(float64(inDim)))
	for i := range p {
		if rng.Uint64()&1 == 0 {
			p[i] = v
		} else {
			p[i] = -v
		}
	}
	return p
}

// Project maps an input vector of InDim components to the set's dimension.
func (s *Set) Project(v []float32) []float32 {
	dim := s.Dim()
	out := make([]float32, dim)
	for r := range dim {
		row := s.proj[r*s.InDim : (r+1)*s.InDim]
		var sum float32
		for i, x := range v {
			sum += row[i] * x
		}
		out[r] = sum
	}
	return out
}

// Clone returns a deep copy with a new uid (COPY).
func (s *Set) Clone() any {
	return track(&Set{Store: s.Store.Clone(), UID: uids.Add(1), InDim: s.InDim, proj: s.proj})
}

// Encoding is what OBJECT ENCODING says of a vector set (a module value in
// Redis: "raw").
func (s *Set) Encoding() string { return "raw" }

// Projection returns the REDUCE matrix (Dim x InDim, row-major; nil without
// projection), for persistence. It must not be modified.
func (s *Set) Projection() []float32 { return s.proj }

// Restore returns a set over a restored store, with a new uid; proj is the
// REDUCE matrix (Dim x inDim), nil when inDim is 0.
func Restore(st *vstore.Store, inDim int, proj []float32) (*Set, error) {
	if len(proj) != st.Dim()*inDim {
		return nil, errors.New("vset: projection does not match the dimensions")
	}
	return track(&Set{Store: st, UID: uids.Add(1), InDim: inDim, proj: proj}), nil
}
