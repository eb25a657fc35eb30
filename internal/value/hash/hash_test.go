package hash

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// model is the reference: a map of values and a map of expiry times.
type model struct {
	vals map[string]string
	ttl  map[string]int64
}

func (m *model) reclaim(now int64) int {
	n := 0
	for f, at := range m.ttl {
		if Expired(at, now) {
			delete(m.vals, f)
			delete(m.ttl, f)
			n++
		}
	}
	return n
}

// check compares every observable of h with m.
func check(t *testing.T, op int, h *Hash, m *model) {
	t.Helper()
	if h.Len() != len(m.vals) {
		t.Fatalf("op %d: Len %d, model %d", op, h.Len(), len(m.vals))
	}
	seen := map[string]bool{}
	h.Range(func(f, v []byte) bool {
		if seen[string(f)] {
			t.Fatalf("op %d: Range returned %q twice", op, f)
		}
		seen[string(f)] = true
		if want, ok := m.vals[string(f)]; !ok || want != string(v) {
			t.Fatalf("op %d: Range %q=%q, model %q (%v)", op, f, v, want, ok)
		}
		return true
	})
	if len(seen) != len(m.vals) {
		t.Fatalf("op %d: Range saw %d of %d", op, len(seen), len(m.vals))
	}
	for f, want := range m.vals {
		if v, ok := h.Get([]byte(f)); !ok || string(v) != want {
			t.Fatalf("op %d: Get(%q) = %q, %v; want %q", op, f, v, ok, want)
		}
		if got := h.Expiry([]byte(f)); got != m.ttl[f] {
			t.Fatalf("op %d: Expiry(%q) = %d, want %d", op, f, got, m.ttl[f])
		}
	}
	if h.Volatile() != (len(m.ttl) > 0) {
		t.Fatalf("op %d: Volatile %v with %d field TTLs", op, h.Volatile(), len(m.ttl))
	}
}

// TestAgainstModel runs random operations and checks against plain maps
// after each: on a hash that stays compact, one that crosses to the table
// (also through a rare long value) and one that is mostly a table.
func TestAgainstModel(t *testing.T) {
	for _, limit := range []int{20, 60, 1000} { // stays compact, crosses, table
		ops := 20000
		if limit > 100 {
			ops = 4000 // check is linear in the size
		}
		r := rand.New(rand.NewPCG(uint64(limit), 9))
		h := New()
		m := &model{vals: map[string]string{}, ttl: map[string]int64{}}
		now := int64(1000)
		for op := 0; op < ops; op++ {
			f := fmt.Sprint("f", r.IntN(limit))
			if r.IntN(limit) == 0 {
				f = "" // the table keeps an empty field's value in its own allocation
			}
			v := strings.Repeat("v", r.IntN(20))
			if limit == 60 && r.IntN(2000) == 0 {
				v = strings.Repeat("L", DefaultListpackValue+1)
			}
			switch r.IntN(8) {
			case 0, 1:
				_, had := m.vals[f]
				if isNew := h.Set([]byte(f), []byte(v)); isNew == had {
					t.Fatalf("op %d: Set(%q) new=%v, model had=%v", op, f, isNew, had)
				}
				m.vals[f] = v
				delete(m.ttl, f)
			case 2:
				h.SetKeepTTL([]byte(f), []byte(v))
				m.vals[f] = v
			case 3:
				_, had := m.vals[f]
				if h.Delete([]byte(f)) != had {
					t.Fatalf("op %d: Delete(%q) disagrees", op, f)
				}
				delete(m.vals, f)
				delete(m.ttl, f)
			case 4, 5:
				if _, ok := m.vals[f]; ok {
					at := now + int64(r.IntN(50))
					h.SetExpiry([]byte(f), at)
					m.ttl[f] = at
				}
			case 6:
				_, had := m.ttl[f]
				if h.Persist([]byte(f)) != had {
					t.Fatalf("op %d: Persist(%q) disagrees", op, f)
				}
				delete(m.ttl, f)
			case 7:
				now += int64(r.IntN(5))
				if got, want := h.Reclaim(now, -1), m.reclaim(now); got != want {
					t.Fatalf("op %d: Reclaim deleted %d, model %d", op, got, want)
				}
			}
			check(t, op, h, m)
		}
	}
}

// TestReclaimQuota: Reclaim stops at max and resumes where it stopped, and
// ExpireSub reports what the keyspace needs.
func TestReclaimQuota(t *testing.T) {
	h := New()
	for i := 0; i < 300; i++ {
		f := []byte(fmt.Sprint(i))
		h.Set(f, f)
		h.SetExpiry(f, int64(10+i%7))
	}
	h.Set([]byte("keep"), []byte("x"))
	if n := h.Reclaim(9, -1); n != 0 {
		t.Fatalf("nothing is due at 9, reclaimed %d", n)
	}
	if n := h.Reclaim(10, -1); n != 0 {
		t.Fatalf("the earliest fields expire at 10 and are there at 10, reclaimed %d", n)
	}
	del, left, vol := h.ExpireSub(100, 120)
	if del != 120 || left != 181 || !vol {
		t.Fatalf("ExpireSub = %d, %d, %v; want 120, 181, true", del, left, vol)
	}
	del, left, vol = h.ExpireSub(100, 1000)
	if del != 180 || left != 1 || vol {
		t.Fatalf("ExpireSub = %d, %d, %v; want 180, 1, false", del, left, vol)
	}
	if _, ok := h.Get([]byte("keep")); !ok || h.Volatile() || h.ttl != nil {
		t.Fatal("the field without expiry must survive and leave no deadline")
	}
}

// TestExpiredBoundary: a field is there during its last millisecond.
func TestExpiredBoundary(t *testing.T) {
	h := New()
	h.Set([]byte("f"), []byte("v"))
	h.SetExpiry([]byte("f"), 100)
	if h.Reclaim(100, -1) != 0 || h.Len() != 1 {
		t.Fatal("field expiring at 100 must be there at 100")
	}
	if h.Reclaim(101, -1) != 1 || h.Len() != 0 {
		t.Fatal("field expiring at 100 must be gone at 101")
	}
}

// TestStaleDeadlines: rewriting a field's time many times keeps the heap
// bounded and only the last time counts.
func TestStaleDeadlines(t *testing.T) {
	h := New()
	h.Set([]byte("f"), []byte("v"))
	for i := 0; i < 10000; i++ {
		h.SetExpiry([]byte("f"), int64(1000+i%100))
	}
	if n := len(h.ttl.heap); n > 100 {
		t.Fatalf("heap holds %d entries for one field", n)
	}
	if h.Reclaim(1098, -1) != 0 { // the last time set was 1099
		t.Fatal("a stale earlier deadline expired the field")
	}
	if h.Reclaim(1100, -1) != 1 {
		t.Fatal("the field's current deadline did not expire it")
	}
}

// TestCompactOrder: small hashes keep Redis's listpackex order (fields by
// expiry, a new time before equal ones, fields without expiry last).
func TestCompactOrder(t *testing.T) {
	h := New()
	for _, f := range []string{"a", "b", "c", "d"} {
		h.Set([]byte(f), []byte("1"))
	}
	keys := func() string {
		var out []string
		h.Range(func(f, _ []byte) bool { out = append(out, string(f)); return true })
		return strings.Join(out, " ")
	}
	steps := []struct {
		do   func()
		want string
	}{
		{func() { h.SetExpiry([]byte("c"), 800) }, "c a b d"},
		{func() { h.SetExpiry([]byte("a"), 800) }, "a c b d"},
		{func() { h.SetExpiry([]byte("d"), 700) }, "d a c b"},
		{func() { h.SetExpiry([]byte("d"), 800) }, "d a c b"},
		{func() { h.Persist([]byte("c")) }, "d a b c"},
		{func() { h.Set([]byte("e"), []byte("5")) }, "d a b c e"},
		{func() { h.Set([]byte("a"), []byte("9")) }, "d b c e a"},
		{func() { h.SetKeepTTL([]byte("d"), []byte("7")) }, "d b c e a"},
	}
	for i, s := range steps {
		s.do()
		if got := keys(); got != s.want {
			t.Fatalf("step %d: order %q, want %q", i, got, s.want)
		}
	}
}

func TestEncoding(t *testing.T) {
	h := New()
	h.Set([]byte("f"), []byte("v"))
	if h.Encoding() != "listpack" {
		t.Fatalf("small hash: %s", h.Encoding())
	}
	h.MarkExpiry()
	if h.Encoding() != "listpackex" {
		t.Fatalf("after an expiry command: %s", h.Encoding())
	}
	for i := 0; i < DefaultListpackEntries-1; i++ {
		h.Set([]byte(fmt.Sprint(i)), nil)
	}
	if h.Encoding() != "listpackex" || h.d == nil {
		t.Fatalf("%d fields: %s (compact form must be gone past %d)", h.Len(), h.Encoding(), compactEntries)
	}
	h.Set([]byte("one-more"), nil)
	if h.Encoding() != "hashtable" {
		t.Fatalf("%d fields: %s", h.Len(), h.Encoding())
	}
	h2 := New()
	h2.Set([]byte("f"), []byte(strings.Repeat("x", DefaultListpackValue+1)))
	h2.Delete([]byte("f"))
	h2.Set([]byte("f"), []byte("v"))
	if h2.Encoding() != "hashtable" {
		t.Fatal("a long value makes a hashtable for good, as in Redis")
	}
}

func TestClone(t *testing.T) {
	for _, n := range []int{3, 300} {
		h := New()
		for i := 0; i < n; i++ {
			h.Set([]byte(fmt.Sprint(i)), []byte("v"))
		}
		h.SetExpiry([]byte("1"), 50)
		c := h.Clone().(*Hash)
		c.Set([]byte("0"), []byte("changed"))
		c.Persist([]byte("1"))
		c.Delete([]byte("2"))
		if v, _ := h.Get([]byte("0")); string(v) != "v" || h.Expiry([]byte("1")) != 50 || !h.Exists([]byte("2")) {
			t.Fatalf("n=%d: changing the clone changed the original", n)
		}
		if c.Len() != n-1 || c.Encoding() != h.Encoding() {
			t.Fatalf("n=%d: clone has %d fields, encoding %s", n, c.Len(), c.Encoding())
		}
	}
}

func TestRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{5, 100, 1000} {
		h := New()
		for i := 0; i < n; i++ {
			h.Set([]byte(fmt.Sprint(i)), []byte(fmt.Sprint("v", i)))
		}
		for _, count := range []int{1, n / 4, n / 2, n - 1, n, n + 3} {
			var got []string
			h.Random(r, count, false, func(f, v []byte) {
				if string(v) != "v"+string(f) {
					t.Fatalf("pair %q=%q", f, v)
				}
				got = append(got, string(f))
			})
			if len(got) != min(count, n) {
				t.Fatalf("n=%d count=%d: %d fields", n, count, len(got))
			}
			slices.Sort(got)
			if len(slices.Compact(got)) != len(got) {
				t.Fatalf("n=%d count=%d: repeated fields without repeat", n, count)
			}
		}
		hits := map[string]int{}
		h.Random(r, 50*n, true, func(f, _ []byte) { hits[string(f)]++ })
		if len(hits) != n { // each field has a 50/n chance per pick: all show up
			t.Fatalf("n=%d: repeated picks reached %d fields", n, len(hits))
		}
	}
}

// TestScanCompleteness: a full scan returns every field of a stable hash,
// in one call while Redis would hold it as a listpack.
func TestScanCompleteness(t *testing.T) {
	for _, n := range []int{10, 100, 5000} {
		h := New()
		for i := 0; i < n; i++ {
			h.Set([]byte(fmt.Sprint(i)), nil)
		}
		seen := map[string]int{}
		var cur uint64
		calls := 0
		for {
			cur = h.Scan(cur, 7, func(f, _ []byte) { seen[string(f)]++ })
			calls++
			if cur == 0 {
				break
			}
		}
		if len(seen) != n {
			t.Fatalf("n=%d: scan saw %d fields", n, len(seen))
		}
		// Up to Redis's listpack size a hash comes whole, as from Redis.
		if whole := n <= DefaultListpackEntries; whole != (calls == 1) {
			t.Fatalf("n=%d: scan took %d calls", n, calls)
		}
	}
}

var sink []byte

// BenchmarkGet compares lookups in the compact form with the table form at
// sizes around compactEntries.
func BenchmarkGet(b *testing.B) {
	for _, n := range []int{8, 32, 128} {
		for _, form := range []string{"compact", "table"} {
			if form == "compact" && n > compactEntries {
				continue
			}
			h := New()
			fields := make([][]byte, n)
			for i := range fields {
				fields[i] = []byte(fmt.Sprint("field:", i))
				h.Set(fields[i], []byte("some value"))
			}
			if form == "table" && h.d == nil {
				h.toDict()
			}
			b.Run(fmt.Sprint(form, "/", n), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					sink, _ = h.Get(fields[i%n])
				}
			})
		}
	}
}

// BenchmarkSet measures overwriting existing fields (HSET's common case).
func BenchmarkSet(b *testing.B) {
	for _, n := range []int{8, 32} {
		for _, form := range []string{"compact", "table"} {
			h := New()
			fields := make([][]byte, n)
			for i := range fields {
				fields[i] = []byte(fmt.Sprint("field:", i))
				h.Set(fields[i], []byte("some value"))
			}
			if form == "table" {
				h.toDict()
			}
			b.Run(fmt.Sprint(form, "/", n), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					h.Set(fields[i%n], []byte("other value"))
				}
			})
		}
	}
}

// heapAfterGC is the live heap after a full collection.
func heapAfterGC() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMemoryPerField reports the bytes per field of a 1M-field hash and of
// many 10-field hashes (the figures in docs/bench/hashes.md). It only runs
// with HOTKV_MEMORY=1: it takes a few seconds and asserts nothing.
func TestMemoryPerField(t *testing.T) {
	if os.Getenv("HOTKV_MEMORY") == "" {
		t.Skip("set HOTKV_MEMORY=1 to measure")
	}
	const n = 1000000
	before := heapAfterGC()
	h := New()
	for i := 0; i < n; i++ {
		h.Set(fmt.Appendf(nil, "field:%d", i), fmt.Appendf(nil, "value:%d", i))
	}
	after := heapAfterGC()
	t.Logf("1M-field hash: %.1f bytes/field", float64(after-before)/n)
	runtime.KeepAlive(h)

	before = heapAfterGC()
	small := make([]*Hash, n/10)
	for k := range small {
		small[k] = New()
		for j := 0; j < 10; j++ {
			small[k].Set(fmt.Appendf(nil, "field:%d", j), fmt.Appendf(nil, "value:%d", k*10+j))
		}
	}
	after = heapAfterGC()
	t.Logf("100k 10-field hashes: %.1f bytes/field (values only, no keys)", float64(after-before)/n)
	runtime.KeepAlive(small)
}

// FuzzOps interprets the input as operations (op byte, field length and
// bytes, value length and bytes) and checks the hash against the model after
// each: binary fields, empty ones, the 64-byte boundary and the crossing to
// the table all come up.
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 1, 'a', 1, 'b', 4, 1, 'a', 0, 3, 1, 'a', 0})
	f.Add(bytes.Repeat([]byte{0, 2, 'x', 'y', 64}, 3))
	f.Fuzz(func(t *testing.T, in []byte) {
		h := New()
		m := &model{vals: map[string]string{}, ttl: map[string]int64{}}
		take := func() []byte {
			if len(in) == 0 {
				return nil
			}
			n := int(in[0]) % 80
			in = in[1:]
			if n > len(in) {
				n = len(in)
			}
			b := in[:n]
			in = in[n:]
			return b
		}
		now := int64(100)
		for op := 0; len(in) > 0; op++ {
			code := in[0]
			in = in[1:]
			fb, vb := take(), take()
			fs := string(fb)
			switch code % 6 {
			case 0:
				h.Set(fb, vb)
				m.vals[fs] = string(vb)
				delete(m.ttl, fs)
			case 1:
				h.SetKeepTTL(fb, vb)
				m.vals[fs] = string(vb)
			case 2:
				h.Delete(fb)
				delete(m.vals, fs)
				delete(m.ttl, fs)
			case 3:
				if _, ok := m.vals[fs]; ok {
					at := now + int64(len(vb))
					h.SetExpiry(fb, at)
					m.ttl[fs] = at
				}
			case 4:
				h.Persist(fb)
				delete(m.ttl, fs)
			case 5:
				now += int64(code / 6)
				h.Reclaim(now, -1)
				m.reclaim(now)
			}
			check(t, op, h, m)
		}
	})
}

// TestHashSize: a Hash is 48 bytes, a smaller size class than 56 would take;
// many small hashes pay it once each (docs/bench/hashes.md).
func TestHashSize(t *testing.T) {
	if n := unsafe.Sizeof(Hash{}); n != 48 {
		t.Fatalf("Hash is %d bytes", n)
	}
}
