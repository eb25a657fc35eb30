package hnsw_test

import (
	"fmt"

	"github.com/hotkv/hotkv/internal/vector/filter"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/quant"
)

// The vector-set commands keep names and attributes beside the index and
// map them to the ids Add returns; a FILTER becomes the filter function.
func Example() {
	x, _ := hnsw.New(hnsw.Config{Dim: 2, Quant: quant.Q8})
	names := map[uint32]string{}
	attrs := map[uint32]string{}
	for _, e := range []struct {
		name  string
		vec   []float32
		attrs string
	}{
		{"a", []float32{1, 0}, `{"year":1984}`},
		{"b", []float32{1, 0.1}, `{"year":1999}`},
		{"c", []float32{0, 1}, `{"year":1985}`},
	} {
		id, _ := x.Add(e.vec)
		names[id], attrs[id] = e.name, e.attrs
	}

	expr, _ := filter.Compile(".year >= 1980 and .year < 1990")
	pass := func(id uint32) bool { return expr.Eval(attrs[id]) }
	res, _ := x.Search([]float32{1, 0.05}, 10, 100, pass, 1000)
	for _, r := range res {
		fmt.Printf("%s %.2f\n", names[r.ID], 1-r.Dist/2) // Redis's similarity score
	}
	// Output:
	// a 1.00
	// c 0.52
}
