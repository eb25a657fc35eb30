package hnsw

import (
	"errors"
	"slices"
	"testing"

	"github.com/hotkv/hotkv/internal/vector/quant"
)

// restoreCopy exports x and restores it with ids renumbered densely in id
// order (as persistence does), returning the copy and the old-to-new map.
func restoreCopy(t *testing.T, x *Index) (*Index, map[uint32]uint32) {
	t.Helper()
	newID := map[uint32]uint32{}
	x.Export(func(n *Node) bool { newID[n.ID] = uint32(len(newID)); return true })
	r, err := NewRestorer(x.Config(), len(newID))
	if err != nil {
		t.Fatal(err)
	}
	x.Export(func(n *Node) bool {
		links := make([][]uint32, len(n.Links))
		for l, ls := range n.Links {
			for _, o := range ls {
				links[l] = append(links[l], newID[o])
			}
		}
		if err := r.Node(n.Level, n.Norm, n.Code, n.Exact, links); err != nil {
			t.Fatal(err)
		}
		return true
	})
	if err := r.LevelState(x.LevelState()); err != nil {
		t.Fatal(err)
	}
	ep, _, _ := x.Entry()
	y, err := r.Finish(newID[ep])
	if err != nil {
		t.Fatal(err)
	}
	return y, newID
}

// TestRestoreSameSearches: a restored graph (after deletes, with every
// coding) passes checkGraph and answers every query with the same ids and
// distances, then keeps working for inserts and deletes.
func TestRestoreSameSearches(t *testing.T) {
	data := clustered(5, 2000, 16, 20, 0.4)
	queries := clustered(6, 50, 16, 20, 0.4)
	for _, c := range []Config{
		{Dim: 16, Seed: 5},
		{Dim: 16, Metric: L2, Quant: quant.Q8, Rerank: true, Seed: 5},
		{Dim: 16, Quant: quant.Bin, M: 8, Seed: 5},
	} {
		x, _ := build(t, c, data)
		for id := uint32(0); id < 2000; id += 7 {
			x.Delete(id)
		}
		x.Purge()
		y, newID := restoreCopy(t, x)
		checkGraph(t, y)
		if y.Len() != x.Len() || y.MaxLevel() != x.MaxLevel() {
			t.Fatalf("%+v: Len %d/%d MaxLevel %d/%d", c, y.Len(), x.Len(), y.MaxLevel(), x.MaxLevel())
		}
		for _, q := range queries {
			a, _ := x.Search(q, 10, 50, nil, 0)
			b, _ := y.Search(q, 10, 50, nil, 0)
			for i := range a {
				a[i].ID = newID[a[i].ID]
			}
			if !slices.Equal(a, b) {
				t.Fatalf("%+v: results differ after restore:\n%v\n%v", c, a, b)
			}
		}
		// The level generator carries on where it was: the same inserts
		// get the same levels.
		for _, v := range data[:100] {
			a, _ := x.Add(v)
			b, err := y.Add(v)
			if err != nil || x.Level(a) != y.Level(b) {
				t.Fatalf("%+v: levels %d and %d after restore (%v)", c, x.Level(a), y.Level(b), err)
			}
		}
		for id := uint32(0); id < 300; id += 3 {
			y.Delete(id)
		}
		checkGraph(t, y)
	}
}

// TestRestoreRefusesBadGraphs: ids, levels and link lists that cannot be
// a graph are errors.
func TestRestoreRefusesBadGraphs(t *testing.T) {
	c := Config{Dim: 2, M: 2}
	code := make([]uint64, 1)
	for name, tc := range map[string]struct {
		nodes [][][]uint32 // per node, links per layer
		entry uint32
	}{
		"link out of range":  {[][][]uint32{{{5}}, {{0}}}, 0},
		"self link":          {[][][]uint32{{{0}}, {{0}}}, 0},
		"repeated link":      {[][][]uint32{{{1, 1}}, {{0}}}, 0},
		"too many links":     {[][][]uint32{{{1, 2, 3, 4, 5}}, {{0}}}, 0},
		"link above level":   {[][][]uint32{{{1}, {1}}, {{0}}}, 0},
		"entry not on top":   {[][][]uint32{{{1}}, {{0}, {}}}, 0},
		"entry out of range": {[][][]uint32{{{1}}, {{0}}}, 9},
		"too many levels":    {[][][]uint32{make([][]uint32, MaxLevel+2)}, 0},
	} {
		r, err := NewRestorer(c, len(tc.nodes))
		if err != nil {
			t.Fatal(err)
		}
		for _, links := range tc.nodes {
			if err = r.Node(len(links)-1, 1, code, nil, links); err != nil {
				break
			}
		}
		if err == nil {
			_, err = r.Finish(tc.entry)
		}
		if !errors.Is(err, ErrRestore) {
			t.Errorf("%s: err %v, want ErrRestore", name, err)
		}
	}
}
