package hnsw

import (
	"fmt"
	"testing"

	"github.com/hotkv/hotkv/internal/vector/quant"
)

// Benchmarks on 20k clustered 100-d vectors (GloVe-like dimension). The
// GloVe figures themselves come from cmd/hotkv-vecbench.

var benchData = struct {
	base, queries [][]float32
}{}

func benchSet() ([][]float32, [][]float32) {
	if benchData.base == nil {
		benchData.base = clustered(21, 20000, 100, 200, 0.7)
		benchData.queries = clustered(22, 1000, 100, 200, 0.7)
	}
	return benchData.base, benchData.queries
}

func benchIndex(b *testing.B, q quant.Kind) *Index {
	base, _ := benchSet()
	x, err := New(Config{Dim: 100, Quant: q, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range base {
		x.Add(v)
	}
	return x
}

func BenchmarkAdd(b *testing.B) {
	base, _ := benchSet()
	x, _ := New(Config{Dim: 100, Seed: 1})
	i := 0
	for b.Loop() {
		x.Add(base[i%len(base)])
		i++
	}
}

func BenchmarkSearch(b *testing.B) {
	_, queries := benchSet()
	for _, q := range []quant.Kind{quant.F32, quant.Q8} {
		x := benchIndex(b, q)
		for _, ef := range []int{40, 150} {
			b.Run(fmt.Sprintf("%v/ef=%d", q, ef), func(b *testing.B) {
				i := 0
				for b.Loop() {
					x.Search(queries[i%len(queries)], 10, ef, nil, 0)
					i++
				}
			})
		}
	}
}

// BenchmarkDeleteAdd deletes a vector and inserts it again: the cost of an
// update.
func BenchmarkDeleteAdd(b *testing.B) {
	base, _ := benchSet()
	x := benchIndex(b, quant.F32)
	ids := make([]uint32, len(base))
	for i := range ids {
		ids[i] = uint32(i)
	}
	i := 0
	for b.Loop() {
		j := (i * 7919) % len(base)
		x.Delete(ids[j])
		ids[j], _ = x.Add(base[j])
		i++
	}
}
