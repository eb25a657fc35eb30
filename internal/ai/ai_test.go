package ai

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/hotkv/hotkv/internal/vector/filter"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
)

func TestPromptCacheLRUAndBytes(t *testing.T) {
	r := NewRegistry()
	if err := r.CreatePrompt("p", PromptOptions{MaxBytes: 10, Refresh: true}); err != nil {
		t.Fatal(err)
	}
	c := r.Prompt("p")
	k := func(s string) PromptKey { return HashPrompt("p", "", nil, []byte(s)) }
	for _, s := range []string{"a", "b", "c"} {
		if _, _, err := c.Set(k(s), []byte("xxx"), 0, 1, false); err != nil {
			t.Fatal(err)
		}
	}
	c.Get(k("a"), 2) // now b is the least recently used
	if _, ev, _ := c.Set(k("d"), []byte("xxx"), 0, 3, false); !reflect.DeepEqual(ev, []PromptKey{k("b")}) {
		t.Errorf("Set d evicted %x, want b's key", ev)
	}
	if _, ok := c.Get(k("b"), 4); ok {
		t.Error("b survived eviction")
	}
	for _, s := range []string{"a", "c", "d"} {
		if _, ok := c.Get(k(s), 5); !ok {
			t.Errorf("%s was evicted", s)
		}
	}
	if s := c.Stats(5); s.Bytes != 9 || s.Entries != 3 || s.Evicted != 1 {
		t.Errorf("stats = %+v", s)
	}
}

func TestHashPromptSeparatesFields(t *testing.T) {
	a := HashPrompt("ns", "ab", nil, []byte("c"))
	if a == HashPrompt("ns", "a", nil, []byte("bc")) || a == HashPrompt("nsa", "b", nil, []byte("c")) {
		t.Error("fields run into each other")
	}
	p1 := HashPrompt("ns", "m", [][2]string{{"t", "0"}, {"k", "1"}}, nil)
	if p1 != HashPrompt("ns", "m", [][2]string{{"k", "1"}, {"t", "0"}}, nil) {
		t.Error("parameter order matters")
	}
	if p1 == HashPrompt("ns", "m", [][2]string{{"k", "0"}, {"t", "1"}}, nil) {
		t.Error("parameter values ignored")
	}
}

func TestExpiryRefreshAndShorten(t *testing.T) {
	c := newPromptCache(PromptOptions{Refresh: true})
	k := PromptKey{1}
	c.Set(k, []byte("v"), 100, 0, false) // expires at 100
	c.Get(k, 90)                         // refreshed to 190
	if _, ok := c.Get(k, 150); !ok {
		t.Fatal("a refreshed entry expired at its first deadline")
	}
	c.Set(k, []byte("v"), 10, 160, false) // replaced: expires at 170
	if c.TTL(k, 165) != 5 {
		t.Fatalf("TTL = %d", c.TTL(k, 165))
	}
	if c.TTL(k, 171) != -2 || c.Stats(171).Expired != 1 {
		t.Fatal("the shortened entry did not expire")
	}
}

func unit(dim, axis int, d float64) []float32 {
	v := make([]float32, dim)
	v[0] = float32(1 - d)
	v[axis] = float32(math.Sqrt(1 - (1-d)*(1-d)))
	return v
}

func TestSnapshotRoundTrip(t *testing.T) {
	r := NewRegistry()
	r.CreatePrompt("p", PromptOptions{MaxEntries: 5, TTL: 1000})
	r.Prompt("p").Set(PromptKey{7}, []byte("resp"), 0, 10, false)
	r.CreateSem("s", SemOptions{VectorOptions: VectorOptions{Dim: 4}, Threshold: 0.2, Refresh: true})
	id, _, _ := r.Sem("s").Store(SemStore{Prompt: "q", Response: "a", Attrs: `{"u":1}`, Vector: unit(4, 1, 0.1), TTL: 500}, 10)
	r.CreateMemory("m", MemoryOptions{VectorOptions: VectorOptions{Dim: 4}, Dedup: 0.05, HalfLife: 1000, WorkingMax: 2, WorkingTTL: 100})
	mid, _, _ := r.Memory("m").Add(MemAdd{Text: "t", Vector: unit(4, 2, 0), Kind: Working, Session: "s", Importance: 0.3}, 10)

	var buf bytes.Buffer
	if err := r.Save(&buf, 20); err != nil {
		t.Fatal(err)
	}
	r2 := NewRegistry()
	if err := r2.Load(&buf, 30); err != nil {
		t.Fatal(err)
	}
	if v, ok := r2.Prompt("p").Get(PromptKey{7}, 30); !ok || string(v) != "resp" || r2.Prompt("p").TTL(PromptKey{7}, 30) != 980 {
		t.Error("prompt entry lost")
	}
	h, ok, err := r2.Sem("s").Lookup(SemLookup{Vector: unit(4, 1, 0.1), Threshold: math.NaN()}, 30)
	if err != nil || !ok || h.ID != id || h.Response != "a" || h.Attrs != `{"u":1}` {
		t.Errorf("semantic entry = %+v %v %v", h, ok, err)
	}
	if n, _, _ := r2.Sem("s").Store(SemStore{Prompt: "q2", Response: "b", Vector: unit(4, 2, 0)}, 30); n <= id {
		t.Errorf("restored cache reuses id %d", n)
	}
	got, ok := r2.Memory("m").Get(mid, 30)
	want, _ := r.Memory("m").Get(mid, 30)
	if !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("memory = %+v, want %+v", got, want)
	}
	if wm := r2.Memory("m").Working("s", 0, 30); len(wm) != 1 {
		t.Errorf("working buffer = %+v", wm)
	}
	// Expired entries are not restored.
	var buf2 bytes.Buffer
	r.Save(&buf2, 20)
	r3 := NewRegistry()
	r3.Load(&buf2, 2000)
	if s := r3.Sem("s").Stats(2000); s.Entries != 0 {
		t.Errorf("expired semantic entry restored: %+v", s)
	}
}

func TestMemoryDedupScopes(t *testing.T) {
	m, err := newMemory(MemoryOptions{VectorOptions: VectorOptions{Dim: 4}, Dedup: 0.05, HalfLife: 1000, WorkingMax: 8})
	if err != nil {
		t.Fatal(err)
	}
	add := func(a MemAdd) (uint64, bool) {
		a.Importance, a.Dedup = 0.5, math.NaN()
		id, created, err := m.Add(a, 1)
		if err != nil {
			t.Fatal(err)
		}
		return id, created
	}
	id, _ := add(MemAdd{Text: "fact", Vector: unit(4, 1, 0), Kind: Semantic})
	// Same vector, another kind or another session: not duplicates.
	if _, created := add(MemAdd{Text: "event", Vector: unit(4, 1, 0), Kind: Episodic}); !created {
		t.Error("an episodic memory merged into a semantic one")
	}
	add(MemAdd{Text: "w", Vector: unit(4, 1, 0), Kind: Working, Session: "a"})
	if _, created := add(MemAdd{Text: "w", Vector: unit(4, 1, 0), Kind: Working, Session: "b"}); !created {
		t.Error("sessions share working memories")
	}
	if got, created := add(MemAdd{Text: "fact again", Vector: unit(4, 1, 0.01), Kind: Semantic}); created || got != id {
		t.Error("near duplicate not merged")
	}
}

func TestSemLookupFilterNeverLeaks(t *testing.T) {
	c, _ := newSemCache(SemOptions{VectorOptions: VectorOptions{Dim: 4}, Threshold: 2})
	c.Store(SemStore{Prompt: "p", Response: "mine", Attrs: `{"u":"a"}`, Vector: unit(4, 1, 0.5)}, 1)
	c.Store(SemStore{Prompt: "p", Response: "theirs", Attrs: `{"u":"b"}`, Vector: unit(4, 1, 0)}, 1)
	f, _ := filter.Compile(`.u == "a"`)
	p := "p"
	for _, q := range []SemLookup{{Vector: unit(4, 1, 0), Filter: f}, {Vector: unit(4, 1, 0), Filter: f, Prompt: &p}} {
		q.Threshold = math.NaN()
		if h, ok, _ := c.Lookup(q, 2); !ok || h.Response != "mine" {
			t.Errorf("lookup %+v = %+v", q, h)
		}
	}
}

// Stores, lookups, invalidations and expiry at once: the element store's
// locking (graph inserts run outside the write lock) under the race
// detector, and no lookup ever answers an entry that was not stored.
func TestSemConcurrent(t *testing.T) {
	c, _ := newSemCache(SemOptions{VectorOptions: VectorOptions{Dim: 8}, Threshold: 2, MaxEntries: 300, Refresh: true})
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			v := make([]float32, 8)
			for i := range 300 {
				for j := range v {
					v[j] = float32(rng.NormFloat64())
				}
				now := int64(i)
				switch g {
				case 0, 1, 2:
					c.Store(SemStore{Prompt: strconv.Itoa(i % 50), Response: "r" + strconv.Itoa(i%50), Vector: v, TTL: int64(1 + i%20)}, now)
				case 3, 4:
					if h, ok, err := c.Lookup(SemLookup{Vector: v, Threshold: math.NaN()}, now); err != nil || (ok && h.Response != "r"+h.Prompt) {
						t.Errorf("lookup = %+v, %v", h, err)
					}
				case 5:
					c.Delete([]uint64{uint64(rng.IntN(900) + 1)}, now)
				}
			}
		}()
	}
	wg.Wait()
	if s := c.Stats(1000); s.Entries != 0 {
		t.Errorf("%d entries outlived their TTL", s.Entries)
	}
}

func TestInnerProductDistanceMayBeNegative(t *testing.T) {
	c, _ := newSemCache(SemOptions{VectorOptions: VectorOptions{Dim: 2, Metric: hnsw.InnerProduct}, Threshold: 0})
	c.Store(SemStore{Prompt: "p", Response: "r", Vector: []float32{2, 0}}, 1)
	h, ok, err := c.Lookup(SemLookup{Vector: []float32{1, 0}, Threshold: math.NaN()}, 1)
	if err != nil || !ok || h.Distance != -1 {
		t.Fatalf("IP lookup = %+v %v %v, want distance -1 (1 - 2)", h, ok, err)
	}
}
