package persist

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/vset"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/quant"
	"github.com/hotkv/hotkv/internal/vector/vindex"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// Vector sets and named indexes are saved with their HNSW graph (every
// node's level and link lists, and the entry point), so loading copies the
// graph instead of searching for every insert. Node ids are renumbered
// densely in id order, which keeps every tie between equal distances broken
// the same way: searches after a load return what they returned before.

func init() {
	RegisterKind(keyspace.KindVectorSet, &Codec{Encode: encodeVSet, Decode: decodeVSet})
}

// maxDim bounds the dimension a decoder accepts (VADD's own limit).
const maxDim = 1 << 16

// Float32 appends f's IEEE bits.
func (e *Enc) Float32(f float32) { e.B = binary.LittleEndian.AppendUint32(e.B, math.Float32bits(f)) }

// Float32 reads a float written by Enc.Float32.
func (d *Dec) Float32() float32 {
	if d.Left() < 4 {
		d.fail("float")
		return 0
	}
	f := math.Float32frombits(binary.LittleEndian.Uint32(d.B[d.Off:]))
	d.Off += 4
	return f
}

func encodeVSet(e *Enc, obj any) {
	s := obj.(*vset.Set)
	EncodeStore(e, s.Store)
	e.Uvarint(uint64(s.InDim))
	for _, f := range s.Projection() {
		e.Float32(f)
	}
}

func decodeVSet(d *Dec) (any, error) {
	st, err := DecodeStore(d)
	if err != nil {
		return nil, err
	}
	if st.Len() == 0 {
		return nil, emptyErr(d)
	}
	inDim := d.Uvarint()
	if inDim > maxDim || inDim*uint64(st.Dim())*4 > uint64(d.Left()) {
		return nil, fmt.Errorf("%w: bad REDUCE dimension at byte %d", ErrCorrupt, d.Off)
	}
	var proj []float32
	if inDim > 0 {
		proj = make([]float32, int(inDim)*st.Dim())
		for i := range proj {
			proj[i] = d.Float32()
		}
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	s, err := vset.Restore(st, int(inDim), proj)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return s, nil
}

// savedNode is a node copied out of a graph that may be changing (named
// indexes are written to while they are saved).
type savedNode struct {
	id    uint32
	el    *vstore.Element
	level int
	norm  float32
	code  []uint64
	exact []float32
	links [][]uint32
}

// EncodeStore appends a vector store: configuration, insert count, then
// per node name, attributes, level, norm, code, float32 copy (with rerank)
// and link lists per layer, then the entry point.
func EncodeStore(e *Enc, s *vstore.Store) {
	x := s.Index()
	c := x.Config()
	// Completing pending deletes first leaves no link to a deleted node:
	// the saved graph is then the one searches see, link for link.
	x.Purge()
	var nodes []savedNode
	x.Export(func(n *hnsw.Node) bool {
		// A node whose insert has not published its element yet, or whose
		// element was replaced, is not saved.
		if el := s.Element(n.ID); el != nil {
			sn := savedNode{id: n.ID, el: el, level: n.Level, norm: n.Norm,
				code: slices.Clone(n.Code), exact: slices.Clone(n.Exact), links: make([][]uint32, len(n.Links))}
			for l, ls := range n.Links {
				sn.links[l] = slices.Clone(ls)
			}
			nodes = append(nodes, sn)
		}
		return true
	})
	newID := make(map[uint32]uint32, len(nodes))
	for i, n := range nodes {
		newID[n.id] = uint32(i)
	}
	e.Uvarint(uint64(c.Dim))
	e.Uvarint(uint64(c.M))
	e.Uvarint(uint64(c.EfConstruction))
	e.B = append(e.B, byte(c.Metric), byte(c.Quant), b2u(c.Rerank))
	e.Uvarint(s.Inserts())
	e.Bytes(x.LevelState())
	e.Uvarint(uint64(len(nodes)))
	entry, top := uint32(0), -1
	ep, _, _ := x.Entry()
	for i, n := range nodes {
		e.String(n.el.Name)
		e.String(n.el.Attrs)
		e.Uvarint(uint64(n.level))
		e.Float32(n.norm)
		for _, w := range n.code {
			e.B = binary.LittleEndian.AppendUint64(e.B, w)
		}
		for _, f := range n.exact {
			e.Float32(f)
		}
		for _, ls := range n.links {
			kept := ls[:0]
			for _, o := range ls {
				if j, ok := newID[o]; ok {
					kept = append(kept, j)
				}
			}
			e.Uvarint(uint64(len(kept)))
			for _, j := range kept {
				e.Uvarint(uint64(j))
			}
		}
		// The entry point, or if it was not saved the first node of the
		// top level.
		if n.level > top || n.id == ep && n.level == top {
			entry, top = uint32(i), n.level
		}
	}
	e.Uvarint(uint64(entry))
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// DecodeStore reads a store written by EncodeStore, refusing any
// configuration, node or link that cannot be.
func DecodeStore(d *Dec) (*vstore.Store, error) {
	dim, m, efc := d.Uvarint(), d.Uvarint(), d.Uvarint()
	if d.Left() < 3 || dim > maxDim || m > 4096 || efc > 1<<20 {
		d.fail("vector configuration")
		return nil, d.Err()
	}
	c := hnsw.Config{Dim: int(dim), M: int(m), EfConstruction: int(efc), Metric: hnsw.Metric(d.B[d.Off]),
		Quant: quant.Kind(d.B[d.Off+1]), Rerank: d.B[d.Off+2] == 1}
	if d.B[d.Off+2] > 1 || m == 0 || efc == 0 || c.Metric > hnsw.InnerProduct || c.Quant > quant.Bin {
		d.fail("vector configuration")
		return nil, d.Err()
	}
	d.Off += 3
	inserts := d.Uvarint()
	levels := d.Bytes()
	words := quant.NewFormat(c.Quant, max(c.Dim, 1)).Words()
	n := d.Count(7 + 8*words)
	if d.Err() != nil {
		return nil, d.Err()
	}
	r, err := hnsw.NewRestorer(c, n)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := r.LevelState(levels); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	elems := make([]vstore.Element, n)
	code := make([]uint64, words)
	var exact []float32
	if c.Rerank && c.Quant != quant.F32 {
		exact = make([]float32, c.Dim)
	}
	var links [][]uint32
	for i := range n {
		elems[i] = vstore.Element{Name: string(d.Bytes()), Attrs: string(d.Bytes())}
		level := d.Uvarint()
		norm := d.Float32()
		for w := range code {
			code[w] = d.fixed64("word")
		}
		for j := range exact {
			exact[j] = d.Float32()
		}
		if level > hnsw.MaxLevel || d.Err() != nil {
			d.fail("vector node")
			return nil, d.Err()
		}
		links = links[:0]
		for range level + 1 {
			ls := make([]uint32, d.Count(1))
			for j := range ls {
				ls[j] = uint32(min(d.Uvarint(), math.MaxUint32))
			}
			links = append(links, ls)
		}
		if d.Err() != nil {
			return nil, d.Err()
		}
		if err := r.Node(int(level), norm, code, exact, links); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	entry := d.Uvarint()
	if d.Err() != nil {
		return nil, d.Err()
	}
	x, err := r.Finish(uint32(min(entry, math.MaxUint32)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	s, err := vstore.Restore(x, elems, inserts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return s, nil
}

// EncodeIndexes appends every named index: count, then name and store each.
func EncodeIndexes(e *Enc, r *vindex.Registry) {
	var xs []*vindex.Index
	for _, n := range r.Names() {
		if x := r.Get(n); x != nil {
			xs = append(xs, x)
		}
	}
	e.Uvarint(uint64(len(xs)))
	for _, x := range xs {
		e.String(x.Name)
		EncodeStore(e, x.Store)
	}
}

// DecodeIndexes reads what EncodeIndexes wrote into r.
func DecodeIndexes(d *Dec, r *vindex.Registry) error {
	n := d.Count(4)
	for range n {
		name := string(d.Bytes())
		if d.Err() != nil {
			return d.Err()
		}
		s, err := DecodeStore(d)
		if err != nil {
			return err
		}
		if !r.Put(&vindex.Index{Store: s, Name: name}) {
			return fmt.Errorf("%w: index %q twice", ErrCorrupt, name)
		}
	}
	return d.Err()
}
