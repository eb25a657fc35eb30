package hnsw

import (
	"math/rand/v2"
	"testing"
)

// Adds and deletes in turn, as a cache at its size limit does: ids are
// reused at new levels while deletes wait for a purge with the links they
// had. No list may ever link a node on a layer it does not have (reading
// such a link panicked).
func TestChurnKeepsLayers(t *testing.T) {
	x, err := New(Config{Dim: 16})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 1))
	var live []uint32
	for range 3000 {
		v := make([]float32, 16)
		for j := range v {
			v[j] = r.Float32() - 0.5
		}
		id, err := x.Add(v)
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, id)
		if len(live) > 300 {
			j := r.IntN(len(live))
			x.Delete(live[j])
			live[j] = live[len(live)-1]
			live = live[:len(live)-1]
		}
	}
	checkGraph(t, x)
}
