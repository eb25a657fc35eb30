package vstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/hotkv/hotkv/internal/vector/filter"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
)

func newStore(t *testing.T, c hnsw.Config) *Store {
	t.Helper()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSetReplaceDeleteAttrs(t *testing.T) {
	s := newStore(t, hnsw.Config{Dim: 2})
	if added, _ := s.Set("a", []float32{1, 0}, `{"x":1}`, true); !added {
		t.Fatal("first Set not added")
	}
	if added, _ := s.Set("a", []float32{0, 3}, "", false); added {
		t.Fatal("replace reported added")
	}
	if at, _ := s.Attrs("a"); at != `{"x":1}` {
		t.Errorf("replace without attributes lost them: %q", at)
	}
	if v, _ := s.Vector("a"); v[0] != 0 || v[1] < 2.999 || v[1] > 3.001 {
		t.Errorf("Vector = %v, want the replacement [0 3]", v)
	}
	s.Set("b", []float32{1, 1}, `{"x":2}`, true)
	if s.Len() != 2 || s.AttrCount() != 2 {
		t.Errorf("Len %d AttrCount %d, want 2 2", s.Len(), s.AttrCount())
	}
	s.SetAttrs("b", "")
	s.Set("a", []float32{0, 1}, "", true)
	if s.AttrCount() != 0 {
		t.Errorf("AttrCount = %d after removing both", s.AttrCount())
	}
	if s.Delete("zz") || !s.Delete("a") || s.Contains("a") || s.Len() != 1 {
		t.Error("Delete")
	}
	if _, err := s.Set("c", []float32{1}, "", false); err == nil {
		t.Error("Set of a wrong dimension succeeded")
	}
	if s.Len() != 1 {
		t.Errorf("failed Set changed Len to %d", s.Len())
	}
}

func TestSearchFilterAndMaxDist(t *testing.T) {
	s := newStore(t, hnsw.Config{Dim: 2})
	s.Set("a", []float32{1, 0}, `{"k":1}`, true)
	s.Set("b", []float32{0, 1}, `{"k":2}`, true)
	s.Set("c", []float32{1, 1}, "", true)
	names := func(hs []Hit) (out []string) {
		for _, h := range hs {
			out = append(out, h.Name)
		}
		return out
	}
	hs, _ := s.Search([]float32{1, 0}, Query{K: 10, EF: 10})
	if got := names(hs); !slices.Equal(got, []string{"a", "c", "b"}) {
		t.Errorf("Search = %v", got)
	}
	f, _ := filter.Compile(".k >= 2")
	hs, _ = s.Search([]float32{1, 0}, Query{K: 10, EF: 10, Filter: f, FilterEF: 100})
	if got := names(hs); !slices.Equal(got, []string{"b"}) {
		t.Errorf("filtered Search = %v", got)
	}
	hs, _ = s.Search([]float32{1, 0}, Query{K: 10, EF: 10, MaxDist: 0.5})
	if got := names(hs); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("Search within 0.5 = %v", got)
	}
	hs, _ = s.Search([]float32{1, 0}, Query{K: 1, Exact: true})
	if got := names(hs); !slices.Equal(got, []string{"a"}) {
		t.Errorf("exact Search = %v", got)
	}
}

func TestCloneEachSample(t *testing.T) {
	s := newStore(t, hnsw.Config{Dim: 3})
	for i := range 50 {
		s.Set(fmt.Sprint(i), []float32{float32(i), 1, 2}, fmt.Sprintf(`{"i":%d}`, i), true)
	}
	c := s.Clone()
	s.Delete("7")
	if c.Len() != 50 || !c.Contains("7") {
		t.Fatalf("clone shares state: Len %d", c.Len())
	}
	if at, _ := c.Attrs("9"); at != `{"i":9}` {
		t.Errorf("clone attrs = %q", at)
	}
	n := 0
	c.Each(func(id uint32, e *Element) bool { n++; return n < 10 })
	if n != 10 {
		t.Errorf("Each did not stop: %d", n)
	}
	for _, k := range []int{3, 30, 49, 80} {
		got := s.Sample(k)
		slices.Sort(got)
		if len(got) != min(k, 49) || len(slices.Compact(got)) != len(got) {
			t.Errorf("Sample(%d) = %d names, duplicates or wrong count", k, len(got))
		}
	}
	if e := s.Random(); e == nil || e.Name == "7" {
		t.Errorf("Random = %v", e)
	}
}

func TestCheck(t *testing.T) {
	s := newStore(t, hnsw.Config{Dim: 2})
	nan := float32(0)
	nan /= nan
	for _, tc := range []struct {
		v      []float32
		zeroOK bool
		want   error
	}{
		{[]float32{1, 0}, false, nil}, {[]float32{0, 0}, true, nil}, {[]float32{0, 0}, false, ErrZero},
		{[]float32{nan, 0}, true, ErrNotFinite}, {[]float32{1}, true, hnsw.ErrDimension},
	} {
		if got := s.Check(tc.v, tc.zeroOK); got != tc.want {
			t.Errorf("Check(%v, %v) = %v, want %v", tc.v, tc.zeroOK, got, tc.want)
		}
	}
}

// TestConcurrentSameNames hammers a few names with Set, Delete, SetAttrs
// and Search from many goroutines (run with -race): afterwards the name map,
// the published elements and the graph must agree.
func TestConcurrentSameNames(t *testing.T) {
	s := newStore(t, hnsw.Config{Dim: 4})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 300 {
				name := fmt.Sprint(rng.IntN(20))
				v := []float32{rng.Float32() + 0.1, rng.Float32(), rng.Float32(), rng.Float32()}
				switch rng.IntN(4) {
				case 0:
					s.Delete(name)
				case 1:
					s.SetAttrs(name, `{"a":1}`)
				case 2:
					if hs, err := s.Search(v, Query{K: 5, EF: 20}); err != nil || len(hs) > 5 {
						t.Errorf("Search: %v, %d hits", err, len(hs))
					}
				default:
					s.Set(name, v, "", false)
				}
			}
		}()
	}
	wg.Wait()
	live := 0
	s.Each(func(id uint32, e *Element) bool {
		live++
		if got, ok := s.ID(e.Name); !ok || got != id {
			t.Errorf("element %q at node %d, map says %d %v", e.Name, id, got, ok)
		}
		return true
	})
	if live != s.Len() || s.Index().Len() != s.Len() {
		t.Errorf("elements %d, Len %d, graph %d", live, s.Len(), s.Index().Len())
	}
}

// TestConcurrentReplaceDeleteSearch: replacing and deleting elements while
// searches run once crashed the graph's delete (a purge had linked a node
// reused by a new element on a layer it does not have). Afterwards the
// store must agree with what was written, and every link lead to a node
// that has its layer.
func TestConcurrentReplaceDeleteSearch(t *testing.T) {
	const n = 600
	for round := range uint64(4) {
		r := rand.New(rand.NewPCG(9, round))
		data := make([][]float32, n)
		for i := range data {
			data[i] = make([]float32, 8)
			for j := range data[i] {
				data[i][j] = float32(r.NormFloat64())
			}
		}
		s := newStore(t, hnsw.Config{Dim: 8, EfConstruction: 40, Seed: round})
		for i, v := range data {
			s.Set(fmt.Sprint(i), v, "", true)
		}
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				for i := w; i < n; i += 2 {
					if i%3 == 0 {
						s.Delete(fmt.Sprint(i))
					} else {
						s.Set(fmt.Sprint(i), data[(i+1)%n], "", true)
					}
				}
			})
		}
		for range 3 {
			wg.Go(func() {
				for j := range 100 {
					if _, err := s.Search(data[j], Query{K: 5, EF: 10}); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if want := n - n/3; s.Len() != want || s.Index().Len() != want {
			t.Fatalf("round %d: Len %d, graph %d, want %d", round, s.Len(), s.Index().Len(), want)
		}
		x := s.Index()
		s.Each(func(id uint32, e *Element) bool {
			for l := range x.Level(id) + 1 {
				for _, o := range x.Links(id, l) {
					if x.Level(o) < l {
						t.Fatalf("round %d: node %d links on layer %d to node %d of level %d", round, id, l, o, x.Level(o))
					}
				}
			}
			return true
		})
		for j := range 50 {
			hits, _ := s.Search(data[j], Query{K: 10, EF: 50})
			for _, h := range hits {
				if id, ok := s.ID(h.Name); !ok || id != h.ID {
					t.Fatalf("round %d: hit %q at node %d is not a live element", round, h.Name, h.ID)
				}
			}
		}
	}
}

// Get reads a name's vector and attributes as one while Set replaces the
// name and Delete frees ids for reuse: the vector must always be the one
// stored with the attributes read (an unpinned read could return the
// vector of whatever element took the id).
func TestGetConsistentUnderReplace(t *testing.T) {
	s := newStore(t, hnsw.Config{Dim: 4, Metric: hnsw.L2})
	vec := func(i int) []float32 { return []float32{float32(i), float32(i % 7), 1, 2} }
	s.Set("a", vec(0), `{"i":0}`, true)
	rounds := 3000
	if raceEnabled {
		rounds = 500
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // replaces "a", with attributes naming its vector
		defer wg.Done()
		for i := 1; i <= rounds; i++ {
			s.Set("a", vec(i), fmt.Sprintf(`{"i":%d}`, i), true)
		}
	}()
	go func() { // churns other names so freed ids are taken again
		defer wg.Done()
		for i := range rounds {
			name := fmt.Sprint("o", i%5)
			s.Set(name, vec(100000+i), "", false)
			if i%2 == 0 {
				s.Delete(name)
			}
		}
	}()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for reads := 0; ; reads++ {
		select {
		case <-done:
			if reads == 0 {
				t.Fatal("no read overlapped the writers")
			}
			return
		default:
		}
		v, e, ok := s.Get("a")
		if !ok {
			t.Fatal(`Get("a") found nothing while "a" was only ever replaced`)
		}
		var i int
		fmt.Sscanf(e.Attrs, `{"i":%d}`, &i)
		if w := vec(i); !slices.Equal(v, w) {
			t.Fatalf("Get returned vector %v with attributes %s (want %v)", v, e.Attrs, w)
		}
	}
}
