package vindex

import (
	"slices"
	"testing"

	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	a, err := r.Create("b", hnsw.Config{Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create("b", hnsw.Config{Dim: 3}); err != ErrExists {
		t.Errorf("second Create = %v, want ErrExists", err)
	}
	if _, err := r.Create("bad", hnsw.Config{}); err == nil || r.Get("bad") != nil {
		t.Error("Create with Dim 0 registered an index")
	}
	r.Create("a", hnsw.Config{Dim: 2, Metric: hnsw.L2})
	a.Set("x", []float32{1, 2}, "", false)
	a.Set("y", []float32{2, 1}, "", false)
	if got := r.Names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Names = %v", got)
	}
	if n, v, b := r.Stats(); n != 2 || v != 2 || b <= 0 {
		t.Errorf("Stats = %d %d %d", n, v, b)
	}
	if r.Get("b") != a || a.Name != "b" {
		t.Error("Get")
	}
	if !r.Drop("b") || r.Drop("b") || r.Get("b") != nil {
		t.Error("Drop")
	}
	// A dropped index stays usable by whoever still holds it.
	if hits, err := a.Search([]float32{1, 2}, vstoreQuery()); err != nil || len(hits) != 2 {
		t.Errorf("search on a dropped index: %v, %v", hits, err)
	}
}

func vstoreQuery() vstore.Query { return vstore.Query{K: 5, EF: 10} }
