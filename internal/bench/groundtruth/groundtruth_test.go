package groundtruth

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/hotkv/hotkv/internal/bench/dataset"
)

// naive sorts every base vector by Distance.
func naive(m Metric, base, queries dataset.Vectors, k int) [][]int32 {
	out := make([][]int32, queries.Len())
	for q := range out {
		ids := make([]int32, base.Len())
		for i := range ids {
			ids[i] = int32(i)
		}
		sort.SliceStable(ids, func(a, b int) bool {
			return Distance(m, queries.At(q), base.At(int(ids[a]))) < Distance(m, queries.At(q), base.At(int(ids[b])))
		})
		out[q] = ids[:k]
	}
	return out
}

func TestComputeMatchesNaive(t *testing.T) {
	all := dataset.Clustered(620, 12, 7)
	base, queries := all.Slice(0, 600), all.Slice(600, 620)
	for _, m := range []Metric{Cosine, L2, IP} {
		got := Compute(m, base, queries, 10, nil)
		if want := naive(m, base, queries, 10); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", m, got[:2], want[:2])
		}
	}
}

func TestTiesGoToLowerID(t *testing.T) {
	base := dataset.Vectors{Dim: 2, Data: []float32{1, 0, 2, 0, 0, 1, 3, 0}}
	q := dataset.Vectors{Dim: 2, Data: []float32{1, 0}}
	// Ids 0, 1 and 3 point the same way: cosine distance 0 for all three.
	if got := Compute(Cosine, base, q, 2, nil); !reflect.DeepEqual(got, [][]int32{{0, 1}}) {
		t.Fatalf("got %v", got)
	}
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.fvecs")
	os.WriteFile(data, nil, 0o644)
	p := CachePath(data, "key", 1)
	if filepath.Dir(p) != dir || p == CachePath(data, "key", 2) {
		t.Fatalf("cache path %s", p)
	}
	all := dataset.Uniform(110, 4, 1)
	base, queries := all.Slice(0, 100), all.Slice(100, 110)
	gt, cached := Load(p, L2, base, queries, 5, nil)
	if cached {
		t.Fatal("first load came from the cache")
	}
	again, cached := Load(p, L2, base, queries, 5, nil)
	if !cached || !reflect.DeepEqual(gt, again) {
		t.Fatal("second load did not come from the cache")
	}
	// A cache for another k is not used.
	if _, cached := Load(p, L2, base, queries, 3, nil); cached {
		t.Fatal("cache for k=5 used for k=3")
	}
}

func TestRecall(t *testing.T) {
	truth := [][]int32{{1, 2, 3, 4}, {5, 6, 7, 8}}
	got := [][]int32{{4, 3, 9, 1, 2}, {}}
	// Query 0 finds 3 of its 4 in its first 4 results (2 comes fifth);
	// query 1 finds nothing.
	if r := Recall(truth, got, 4); r != 3.0/8 {
		t.Fatalf("recall %v, want 0.375", r)
	}
	if r := Recall(truth, [][]int32{{1, 2}, {5, 6}}, 2); r != 1 {
		t.Fatalf("recall@2 %v, want 1", r)
	}
}
