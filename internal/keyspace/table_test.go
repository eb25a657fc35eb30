package keyspace

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// The table against a Go map under random puts and deletes over a small key
// range, so probe runs wrap, grow, shrink and get shifted back often.
func TestTableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var tb table
	model := map[string]*Entry{}
	for op := range 200000 {
		k := strconv.Itoa(r.IntN(300 + op/1000))
		switch r.IntN(3) {
		case 0, 1:
			if op%50000 > 40000 { // phases of mostly deletes shrink the table
				tb.del(k)
				delete(model, k)
				break
			}
			e := &Entry{}
			tb.put(k, e)
			model[k] = e
		case 2:
			tb.del(k)
			delete(model, k)
		}
		if got := tb.get(k); got != model[k] {
			t.Fatalf("op %d: get(%q) = %p, want %p", op, k, got, model[k])
		}
	}
	if tb.n != len(model) {
		t.Fatalf("n = %d, want %d", tb.n, len(model))
	}
	seen := 0
	for _, s := range tb.slots {
		if s.e != nil {
			seen++
			if model[s.e.keyString()] != s.e {
				t.Fatalf("slot holds %q, not in the model", s.e.keyString())
			}
		}
	}
	for k, e := range model {
		if tb.get(k) != e {
			t.Fatalf("get(%q) lost", k)
		}
	}
	if seen != len(model) || 4*tb.n > 3*len(tb.slots) {
		t.Fatalf("%d entries in %d slots, n = %d", seen, len(tb.slots), tb.n)
	}
}

// The prefetching lookup (Prefetch, PrefetchEntry, LookupHashed) finds what
// Lookup finds, expires what Lookup expires, and counts nothing twice.
func TestPrefetchedLookupMatchesLookup(t *testing.T) {
	ks := New(1)
	db := ks.DBs[0]
	now := int64(1_000_000)
	for i := range 3000 {
		k := []byte("k" + strconv.Itoa(i))
		sh := db.ShardFor(k)
		expire := int64(0)
		if i%7 == 0 {
			expire = now - 1 // already expired
		}
		sh.SetString(k, []byte("v"+strconv.Itoa(i)), expire, false)
	}
	for i := range 4000 { // a quarter of them missing
		k := []byte("k" + strconv.Itoa(i))
		sh := db.ShardFor(k)
		h := sh.Prefetch(k)
		sh.PrefetchEntry(h)
		got := sh.LookupHashed(k, h, now)
		want := sh.Lookup(k, now)
		if got != want {
			t.Fatalf("%s: LookupHashed %p, Lookup %p", k, got, want)
		}
		if (got != nil) != (i < 3000 && i%7 != 0) {
			t.Fatalf("%s: found %v", k, got != nil)
		}
		if got != nil && string(got.Bytes()) != "v"+strconv.Itoa(i) {
			t.Fatalf("%s: value %q", k, got.Bytes())
		}
	}
}
