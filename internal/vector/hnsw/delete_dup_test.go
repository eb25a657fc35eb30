package hnsw

import (
	"testing"

	"github.com/hotkv/hotkv/internal/vector/quant"
)

// TestDeleteNeverDuplicatesLinks: binary codes of 16 dimensions collide
// (distance 0), which once let the delete repair put the same node twice
// into a list.
func TestDeleteNeverDuplicatesLinks(t *testing.T) {
	data := clustered(5, 2000, 16, 20, 0.4)
	x, _ := build(t, Config{Dim: 16, Quant: quant.Bin, M: 8, Seed: 5}, data)
	for id := uint32(0); id < 2000; id += 7 {
		x.Delete(id)
	}
	checkGraph(t, x) // duplicates fail it
}
