// Package vset is the value of a Redis vector-set key (VADD, VSIM, ...):
// the shared element store (package vstore) plus what only vector sets
// have: the optional REDUCE random projection and Redis's set uid.
package vset

import (
	"errors"
	"math"
	"math/rand/v2"
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
}

var uids atomic.Uint64

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
	return s, nil
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
	return &Set{Store: s.Store.Clone(), UID: uids.Add(1), InDim: s.InDim, proj: s.proj}
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
	return &Set{Store: st, UID: uids.Add(1), InDim: inDim, proj: proj}, nil
}
