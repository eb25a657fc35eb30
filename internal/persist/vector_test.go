package persist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/vset"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/quant"
	"github.com/hotkv/hotkv/internal/vector/vindex"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// sampleVSet is a vector set of n random vectors (REDUCE from inDim when
// inDim > 0), some with attributes and some deleted.
func sampleVSet(n int, q quant.Kind, inDim int) *vset.Set {
	s, err := vset.New(8, q, 6, 50, inDim)
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	for i := range n {
		v := make([]float32, 8)
		for j := range v {
			v[j] = rng.Float32()*2 - 1
		}
		attrs := ""
		if i%3 == 0 {
			attrs = fmt.Sprintf(`{"i":%d}`, i)
		}
		s.Set(fmt.Sprint("e", i), v, attrs, true)
	}
	for i := 0; i < n; i += 5 {
		s.Delete(fmt.Sprint("e", i))
	}
	return s
}

// dumpStore is a canonical text form of a store: configuration, elements
// by name with attributes, level, vector and links (by name), the entry
// point's name, and the answers to a few searches.
func dumpStore(s *vstore.Store) string {
	var b strings.Builder
	x := s.Index()
	fmt.Fprintf(&b, "%+v len=%d inserts=%d\n", x.Config(), s.Len(), s.Inserts())
	var lines []string
	name := func(id uint32) string {
		if e := s.Element(id); e != nil {
			return e.Name
		}
		return "?"
	}
	s.Each(func(id uint32, e *vstore.Element) bool {
		l := fmt.Sprintf("%s %q L%d %v", e.Name, e.Attrs, x.Level(id), s.VectorOf(id))
		for lv := 0; lv <= x.Level(id); lv++ {
			for _, o := range x.Links(id, lv) {
				l += " " + name(o)
			}
			l += " |"
		}
		lines = append(lines, l)
		return true
	})
	sortStrings(lines)
	b.WriteString(strings.Join(lines, "\n"))
	ep, top, _ := x.Entry()
	fmt.Fprintf(&b, "\nentry %s@%d\n", name(ep), top)
	for i := range 5 {
		q := make([]float32, s.Dim())
		q[i%len(q)] = 1
		hits, _ := s.Search(q, vstore.Query{K: 5, EF: 20})
		for _, h := range hits {
			fmt.Fprintf(&b, "%s:%v ", h.Name, h.Dist)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestVectorSetRoundTrip(t *testing.T) {
	in := map[string]*keyspace.Entry{}
	for i, s := range []*vset.Set{sampleVSet(2, quant.F32, 0), sampleVSet(300, quant.F32, 0),
		sampleVSet(200, quant.Q8, 0), sampleVSet(100, quant.Bin, 0), sampleVSet(50, quant.Q8, 20)} {
		in[fmt.Sprint("vs", i)] = &keyspace.Entry{Kind: keyspace.KindVectorSet, Obj: s, Expire: int64(i)}
	}
	file := writeSnapshot(t, map[int]map[string]*keyspace.Entry{0: in})
	got := map[string]*keyspace.Entry{}
	if _, err := ReadSnapshot(bytes.NewReader(file), func(db int, key []byte, e *keyspace.Entry) error {
		got[string(key)] = e
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for k, e := range in {
		g := got[k]
		if g == nil || g.Expire != e.Expire {
			t.Fatalf("%s missing or wrong expiry", k)
		}
		a, b := e.Obj.(*vset.Set), g.Obj.(*vset.Set)
		if want, have := dumpStore(a.Store), dumpStore(b.Store); want != have {
			t.Errorf("%s:\nwant %.2000s\nhave %.2000s", k, want, have)
		}
		if a.InDim != b.InDim || fmt.Sprint(a.Projection()) != fmt.Sprint(b.Projection()) || a.UID == b.UID {
			t.Errorf("%s: REDUCE or uid not restored", k)
		}
	}
}

// sampleRegistry holds an empty index and one of n quantized vectors.
func sampleRegistry(n int) *vindex.Registry {
	r := vindex.NewRegistry()
	r.Create("empty", hnsw.Config{Dim: 4, Metric: hnsw.L2})
	x, _ := r.Create("docs", hnsw.Config{Dim: 8, Quant: quant.Q8, Rerank: true})
	src := sampleVSet(n, quant.F32, 0)
	src.Each(func(id uint32, e *vstore.Element) bool {
		x.Set(e.Name, src.VectorOf(id), e.Attrs, true)
		return true
	})
	return r
}

// sampleIndexes is a small encoded registry (a fuzz seed).
func sampleIndexes() []byte {
	var e Enc
	EncodeIndexes(&e, sampleRegistry(6))
	return e.B
}

func TestIndexesRoundTrip(t *testing.T) {
	r := sampleRegistry(150)
	var e Enc
	EncodeIndexes(&e, r)
	r2 := vindex.NewRegistry()
	if err := DecodeIndexes(&Dec{B: e.B}, r2); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r2.Names()) != "[docs empty]" {
		t.Fatalf("names %v", r2.Names())
	}
	for _, n := range r.Names() {
		if want, have := dumpStore(r.Get(n).Store), dumpStore(r2.Get(n).Store); want != have {
			t.Errorf("%s:\nwant %.2000s\nhave %.2000s", n, want, have)
		}
	}
	// Every cut of the encoding is an error, never a panic.
	for i := range len(e.B) {
		if err := DecodeIndexes(&Dec{B: e.B[:i]}, vindex.NewRegistry()); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d of %d: %v", i, len(e.B), err)
		}
	}
}

// Aux blocks reach the aux callback, count as blocks, and an unknown kind
// is refused; a version 1 file (before aux blocks) still loads.
func TestAuxBlocksAndVersion1(t *testing.T) {
	keys := writeSnapshot(t, map[int]map[string]*keyspace.Entry{0: {"s": sample()["str"]}})
	body := keys[16 : len(keys)-len(AppendEnd(nil, 1, 1))]
	file := AppendHeader(nil, SnapshotMagic)
	file = AppendAux(file, AuxIndexes, []byte("idx"))
	file = append(file, body...)
	file = AppendAux(file, AuxAI, []byte("ai"))
	file = AppendEnd(file, 3, 1)
	var got []string
	st, err := ReadBlocks(bytes.NewReader(file), func(int64, []byte) error { return nil },
		func(_ int64, kind byte, b []byte) error { got = append(got, fmt.Sprint(kind, string(b))); return nil })
	if err != nil || st.Blocks != 3 || fmt.Sprint(got) != "[1idx 2ai]" {
		t.Fatalf("%+v %v %v", st, err, got)
	}
	bad := AppendAux(AppendHeader(nil, SnapshotMagic), 9, nil)
	if _, err := ReadSnapshot(bytes.NewReader(AppendEnd(bad, 1, 0)), nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unknown aux kind: %v", err)
	}
	v1 := slices.Clone(keys)
	v1[8] = 1
	binary.LittleEndian.PutUint32(v1[12:], crc32.Checksum(v1[:12], castagnoli))
	if st, err := ReadSnapshot(bytes.NewReader(v1), func(int, []byte, *keyspace.Entry) error { return nil }); err != nil || st.Keys != 1 {
		t.Fatalf("version 1: %+v %v", st, err)
	}
}
