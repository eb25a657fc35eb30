package dict

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestAgainstMap runs random operations on a Dict and a Go map and compares.
func TestAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := New[int](0)
	m := map[string]int{}
	for op := 0; op < 60000; op++ {
		k := fmt.Sprint(r.IntN(3000))
		switch r.IntN(3) {
		case 0, 1:
			_, had := m[k]
			if isNew := d.Set(k, op); isNew == had {
				t.Fatalf("op %d: Set(%q) new=%v, map had=%v", op, k, isNew, had)
			}
			m[k] = op
		case 2:
			_, had := m[k]
			if d.Delete(k) != had {
				t.Fatalf("op %d: Delete(%q) disagrees with map", op, k)
			}
			delete(m, k)
		}
		if d.Len() != len(m) {
			t.Fatalf("op %d: Len %d, map %d", op, d.Len(), len(m))
		}
		if op%5000 == 0 { // shrink phases: delete most keys
			for k := range m {
				if r.IntN(10) > 0 {
					d.Delete(k)
					delete(m, k)
				}
			}
		}
	}
	seen := 0
	d.Range(func(k string, v int) bool {
		if m[k] != v {
			t.Fatalf("Range: %q=%d, map has %d", k, v, m[k])
		}
		seen++
		return true
	})
	if seen != len(m) {
		t.Fatalf("Range saw %d of %d", seen, len(m))
	}
	for k, v := range m {
		if got, ok := d.Get(k); !ok || got != v {
			t.Fatalf("Get(%q) = %d,%v want %d", k, got, ok, v)
		}
	}
}

// TestScanGuarantee checks SCAN's promise: elements present for the whole scan
// are returned at least once while others come and go and the table resizes.
func TestScanGuarantee(t *testing.T) {
	for trial := 0; trial < 12; trial++ {
		r := rand.New(rand.NewPCG(uint64(trial), 7))
		d := New[struct{}](0)
		stable := map[string]bool{}
		for i := 0; i < 500; i++ {
			k := fmt.Sprintf("stable-%d", i)
			d.Set(k, struct{}{})
			stable[k] = true
		}
		seen := map[string]bool{}
		var cursor uint64
		churn := 0
		for {
			cursor = d.Scan(cursor, 1+r.IntN(20), func(k string, _ struct{}) { seen[k] = true })
			// Grow or shrink the table by churning other elements.
			n := r.IntN(400)
			if r.IntN(2) == 0 {
				for i := 0; i < n; i++ {
					d.Set(fmt.Sprintf("churn-%d", churn), struct{}{})
					churn++
				}
			} else {
				for i := 0; i < n && churn > 0; i++ {
					d.Delete(fmt.Sprintf("churn-%d", r.IntN(churn)))
				}
			}
			if cursor == 0 {
				break
			}
		}
		for k := range stable {
			if !seen[k] {
				t.Fatalf("trial %d: scan missed %q", trial, k)
			}
		}
	}
}

func TestRandomCoversAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	d := New[int](0)
	for i := 0; i < 1000; i++ {
		d.Set(fmt.Sprint(i), i)
	}
	for i := 0; i < 900; i++ { // leave holes: Random must skip them
		d.Delete(fmt.Sprint(i))
	}
	hits := map[string]int{}
	for i := 0; i < 20000; i++ {
		k, v, ok := d.Random(r)
		if !ok || fmt.Sprint(v) != k {
			t.Fatalf("Random = %q,%d,%v", k, v, ok)
		}
		hits[k]++
	}
	if len(hits) != 100 {
		t.Fatalf("Random reached %d of 100 elements", len(hits))
	}
	for k, n := range hits { // expected 200 each; a fair pick stays well inside 100..300
		if n < 100 || n > 300 {
			t.Fatalf("element %s picked %d times of 20000: not uniform", k, n)
		}
	}
	if _, _, ok := New[int](0).Random(r); ok {
		t.Fatal("Random on empty dict returned ok")
	}
}

func TestLookupRef(t *testing.T) {
	d := New[int](0)
	d.Set("a", 1)
	_, ref := d.Lookup("a")
	*ref += 41
	if v, _ := d.Get("a"); v != 42 {
		t.Fatalf("after an update through Lookup a=%d", v)
	}
}

// TestPutRekeys: Put stores the key string it is given even when the key is
// present (hashes move a field and its value to a new allocation that way),
// Set keeps the first one, and Lookup returns the stored string.
func TestPutRekeys(t *testing.T) {
	d := New[int](0)
	first, second := string([]byte("field")), string([]byte("field"))
	d.Set(first, 1)
	d.Set(second, 2)
	if k, v := d.Lookup("field"); v == nil || *v != 2 || unsafe.StringData(k) != unsafe.StringData(first) {
		t.Fatalf("after Set: Lookup = %q %v, want the first string and 2", k, v)
	}
	if d.Put(second, 3) {
		t.Fatal("Put of a present key reported it new")
	}
	if k, v := d.Lookup("field"); v == nil || *v != 3 || unsafe.StringData(k) != unsafe.StringData(second) {
		t.Fatalf("after Put: Lookup = %q %v, want the second string and 3", k, v)
	}
	if !d.Put("other", 4) || d.Len() != 2 {
		t.Fatal("Put of a new key did not add it")
	}
	if _, v := d.Lookup("missing"); v != nil {
		t.Fatal("Lookup of a missing key succeeded")
	}
}

func BenchmarkSetGet(b *testing.B) {
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = fmt.Sprint("member:", i)
	}
	d := New[int](0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := keys[i&(len(keys)-1)]
		d.Set(k, i)
		d.Get(k)
	}
}

// BenchmarkLookupLarge looks up existing members of a 100,000-member
// dict in random order (SADD or HSET of fields that exist): cache misses,
// not hashing, set the pace.
func BenchmarkLookupLarge(b *testing.B) {
	const n = 100000
	d := New[struct{}](0)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("element:%012d", i)
		d.Set(keys[i], struct{}{})
	}
	r := rand.New(rand.NewPCG(1, 1))
	order := make([]int, 1<<16)
	for i := range order {
		order[i] = r.IntN(n)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := d.Get(keys[order[i&(len(order)-1)]]); !ok {
			b.Fatal("missing")
		}
	}
}

// TestPrefetchSteps checks what each Prefetch step reports (whether a
// further step has anything to load) and that prefetching changes nothing.
func TestPrefetchSteps(t *testing.T) {
	d := New[int](0)
	for i := range 1000 {
		d.Set(fmt.Sprint("k", i), i)
	}
	steps := func(key string) int {
		var h uint32
		n := 0
		for step := 0; step < 5; step++ {
			n++
			if !d.Prefetch([]byte(key), step, &h) {
				break
			}
		}
		if h != hashOf(key) {
			t.Fatalf("%q: step 0 left hash %d, want %d", key, h, hashOf(key))
		}
		return n
	}
	for i := range 1000 {
		// A present key has a bucket, an entry and key bytes to load.
		if n := steps(fmt.Sprint("k", i)); n != 3 {
			t.Fatalf("k%d: %d steps, want 3", i, n)
		}
	}
	empty := 0
	for i := range 1000 {
		key := fmt.Sprint("absent", i)
		h := hashOf(key)
		n := steps(key)
		if d.buckets[h&uint32(len(d.buckets)-1)] == 0 {
			empty++
			if n != 2 { // the bucket, found empty
				t.Fatalf("%q: %d steps over an empty bucket, want 2", key, n)
			}
		} else if n != 3 {
			t.Fatalf("%q: %d steps over a used bucket, want 3", key, n)
		}
	}
	if empty == 0 {
		t.Fatal("no absent key fell in an empty bucket: the test lost its point")
	}
	if d.Len() != 1000 {
		t.Fatalf("Len %d after prefetching", d.Len())
	}
	for i := range 1000 {
		if v, ok := d.Get(fmt.Sprint("k", i)); !ok || v != i {
			t.Fatalf("k%d = %d, %v after prefetching", i, v, ok)
		}
	}
}
