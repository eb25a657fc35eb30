package vindex

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hotkv/hotkv/internal/vector/filter"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// clustered returns n vectors around k Gaussian centres (deterministic).
func clustered(seed uint64, n, dim, k int) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float64, k)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for j := range centres[i] {
			centres[i][j] = r.NormFloat64()
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(k)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(c[j] + 0.5*r.NormFloat64())
		}
		out[i] = v
	}
	return out
}

var benchIndex *Index

// BenchmarkSearch searches 20,000 clustered 100-d vectors (200 centres,
// spread 0.5) with the commands' defaults (K 10, EF 100, FILTER-EF K×100),
// without a filter and with filters that 0.1%, 1%, 10% and all of the
// elements pass; hits/op shows a search that came back short.
func BenchmarkSearch(b *testing.B) {
	const n = 20000
	if benchIndex == nil {
		benchIndex, _ = NewRegistry().Create("b", hnsw.Config{Dim: 100, Seed: 1})
		rank := rand.New(rand.NewPCG(1, 2)).Perm(n)
		for i, v := range clustered(21, n, 100, 200) {
			benchIndex.Set(fmt.Sprint(i), v, fmt.Sprintf(`{"lang":"en","r":%d}`, rank[i]), true)
		}
	}
	queries := clustered(22, 1000, 100, 200)
	for _, m := range []int{0, 20, 200, 2000, n} {
		name, q := "nofilter", vstore.Query{K: 10, EF: 100, FilterEF: 1000}
		if m > 0 {
			name = fmt.Sprintf("filter=%.1f%%", 100*float64(m)/n)
			q.Filter, _ = filter.Compile(fmt.Sprintf(".r < %d", m))
		}
		b.Run(name, func(b *testing.B) {
			i, hits := 0, 0
			for b.Loop() {
				h, _ := benchIndex.Search(queries[i%len(queries)], q)
				hits += len(h)
				i++
			}
			b.ReportMetric(float64(hits)/float64(i), "hits/op")
		})
	}
}
