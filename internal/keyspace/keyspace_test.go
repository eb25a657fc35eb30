package keyspace

import (
	"fmt"
	"testing"
	"time"
	"unsafe"
)

type fakeList struct{ items []string }

func (l *fakeList) Clone() any { return &fakeList{append([]string(nil), l.items...)} }

func (l *fakeList) Encoding() string { return "listpack" }

func TestEntryClone(t *testing.T) {
	e := NewString([]byte("hello"))
	e.Expire = 42
	c, ok := e.Clone()
	if !ok || string(c.Bytes()) != "hello" || c.Expire != 42 || c.Kind != KindString {
		t.Fatalf("clone = %+v, %v", c, ok)
	}
	c.Bytes()[0] = 'j'
	if string(e.Bytes()) != "hello" {
		t.Fatal("the clone shares the original's bytes")
	}

	l := &Entry{Kind: KindList, Obj: &fakeList{[]string{"a"}}}
	cl, ok := l.Clone()
	if !ok {
		t.Fatal("a Cloner object did not clone")
	}
	cl.Obj.(*fakeList).items[0] = "b"
	if l.Obj.(*fakeList).items[0] != "a" {
		t.Fatal("the clone shares the original's object")
	}
	if _, ok := (&Entry{Kind: KindHash, Obj: struct{}{}}).Clone(); ok {
		t.Fatal("an object without Clone was cloned")
	}
}

func TestEncoding(t *testing.T) {
	for _, tc := range []struct {
		val    string
		enc    string
		shared bool
	}{
		{"0", "int", true}, {"9999", "int", true}, {"10000", "int", false}, {"-1", "int", false},
		{"9223372036854775807", "int", false}, {"-9223372036854775808", "int", false},
		{"9223372036854775808", "embstr", false}, {"00", "embstr", false}, {"-0", "embstr", false},
		{"+5", "embstr", false}, {" 5", "embstr", false}, {"5 ", "embstr", false}, {"-", "embstr", false},
		{"", "embstr", false}, {string(make([]byte, 44)), "embstr", false}, {string(make([]byte, 45)), "raw", false},
	} {
		e := NewString([]byte(tc.val))
		if got := e.Encoding(); got != tc.enc {
			t.Errorf("Encoding(%q) = %q, want %q", tc.val, got, tc.enc)
		}
		if got := e.SharedInt(); got != tc.shared {
			t.Errorf("SharedInt(%q) = %v", tc.val, got)
		}
	}
	if got := (&Entry{Kind: KindList, Obj: &fakeList{}}).Encoding(); got != "listpack" {
		t.Errorf("Encoder object: %q", got)
	}
	if got := (&Entry{Kind: KindSet, Obj: struct{}{}}).Encoding(); got != "unknown" {
		t.Errorf("object without Encoding: %q", got)
	}
}

func TestDeleteAndRelease(t *testing.T) {
	ks := New(1)
	s := ks.DBs[0].Shard(0) // both keys in one shard, which empties

	k := []byte("k")
	s.SetString(k, []byte("v"), 100, false)
	s.SetString([]byte("p"), []byte("v"), 0, false)
	if s.Delete(k, 200) {
		t.Fatal("Delete reported an expired key as live")
	}
	if ks.Expiry.Keys.Load() != 1 {
		t.Fatal("deleting an expired key is not counted as an expiry")
	}
	if s.Volatile() != 0 {
		t.Fatal("expires map still holds the deleted key")
	}
	if !s.Delete([]byte("p"), 200) {
		t.Fatal("Delete of a live key reported false")
	}
	if s.m.slots != nil || s.expires != nil {
		t.Fatal("an emptied shard keeps its tables")
	}
	s.SetString(k, []byte("v"), 0, false)
	if s.Lookup(k, 0) == nil {
		t.Fatal("a released shard does not take keys again")
	}
}

func TestSwapTouchesChangedKeysOnly(t *testing.T) {
	a, b := new(DB), new(DB)
	const now = 1000
	put := func(db *DB, k string, expire int64) {
		db.ShardFor([]byte(k)).SetString([]byte(k), []byte("v"), expire, false)
	}
	put(a, "inA", 0)
	put(b, "inB", 0)
	put(a, "staleBoth", 10)
	put(b, "staleBoth", 10)
	put(b, "staleInB", 10)
	put(a, "liveA-staleB", 0)
	put(b, "liveA-staleB", 10)
	watch := func(db *DB, k string) *Watch {
		w := new(Watch)
		db.ShardFor([]byte(k)).AddWatch([]byte(k), w)
		return w
	}
	cases := []struct {
		w     *Watch
		dirty bool
		what  string
	}{
		{watch(a, "inA"), true, "key leaving a"},
		{watch(a, "inB"), true, "key arriving in a"},
		{watch(b, "inA"), true, "key arriving in b"},
		{watch(a, "staleBoth"), false, "stale on both sides"},
		{watch(a, "staleInB"), false, "absent replaced by stale"},
		{watch(b, "staleInB"), false, "stale replaced by absent"},
		{watch(b, "liveA-staleB"), true, "stale replaced by live"},
		{watch(a, "nowhere"), false, "absent on both sides"},
	}
	Swap(a, b, now)
	for _, c := range cases {
		if c.w.Dirty() != c.dirty {
			t.Errorf("%s: dirty = %v", c.what, c.w.Dirty())
		}
	}
	if a.ShardFor([]byte("inB")).Lookup([]byte("inB"), now) == nil || b.ShardFor([]byte("inA")).Lookup([]byte("inA"), now) == nil {
		t.Fatal("contents were not swapped")
	}
}

func TestRandomKey(t *testing.T) {
	db := new(DB)
	const now = 1000
	if _, ok := db.RandomKey(now); ok {
		t.Fatal("a key from an empty db")
	}
	for i := 0; i < 20; i++ {
		k := []byte(fmt.Sprint("k", i))
		db.ShardFor(k).SetString(k, []byte("v"), 0, false)
	}
	for i := 0; i < 500; i++ { // expired keys, never returned
		k := []byte(fmt.Sprint("x", i))
		db.ShardFor(k).SetString(k, []byte("v"), 10, false)
	}
	seen := map[string]bool{}
	for i := 0; i < 2000; i++ {
		k, ok := db.RandomKey(now)
		if !ok || k[0] != 'k' {
			t.Fatalf("RandomKey = %q, %v", k, ok)
		}
		seen[k] = true
	}
	if len(seen) != 20 {
		t.Errorf("2000 draws reached %d of 20 keys", len(seen))
	}
	if db.Size() != 20 {
		t.Errorf("expired keys drawn were not deleted: size %d", db.Size())
	}
}

func TestExpirerReclaims(t *testing.T) {
	ks := New(4)
	now := time.Now().UnixMilli()
	for d, db := range ks.DBs {
		for i := 0; i < 2500; i++ {
			k := []byte(fmt.Sprint(d, ":", i))
			db.ShardFor(k).SetString(k, []byte("v"), now-1, false)
		}
	}
	keep := []byte("keep")
	ks.DBs[2].ShardFor(keep).SetString(keep, []byte("v"), now+time.Hour.Milliseconds(), false)
	x := NewExpirer(ks)
	if n := x.Cycle(time.Minute); n != 10000 {
		t.Fatalf("one cycle reclaimed %d of 10000 expired keys", n)
	}
	for d, db := range ks.DBs {
		want := 0
		if d == 2 {
			want = 1
		}
		if n := db.Size(); n != want {
			t.Errorf("db %d: %d keys left", d, n)
		}
	}
	released := 0
	for i := range ks.DBs[0].shards {
		if ks.DBs[0].shards[i].m.slots == nil {
			released++
		}
	}
	if released != ShardCount {
		t.Errorf("%d of %d emptied shards released their tables", released, ShardCount)
	}
}

// TestExpirerBudget: a shard full of expired keys (hash tags put them
// together) is not drained past the cycle's budget; later cycles finish it.
func TestExpirerBudget(t *testing.T) {
	ks := New(1)
	now := time.Now().UnixMilli()
	for i := 0; i < 5000; i++ {
		k := []byte(fmt.Sprint("{tag}", i))
		ks.DBs[0].ShardFor(k).SetString(k, []byte("v"), now-1, false)
	}
	x := NewExpirer(ks)
	n := 0
	for i := 0; n == 0 && i < ShardCount; i++ { // cycles with no budget stop after 64 shards
		n = x.Cycle(0)
	}
	if n == 0 || n == 5000 {
		t.Fatalf("a cycle with no budget reclaimed %d of 5000", n)
	}
	for i := 0; ks.DBs[0].Size() > 0; i++ {
		if i == 1000 {
			t.Fatalf("%d keys left after 1000 cycles", ks.DBs[0].Size())
		}
		x.Cycle(time.Millisecond)
	}
}

// TestExpirerSkipsQuietDatabases: a pass that finds nothing volatile lets
// later cycles skip the database, and a key given an expiry afterwards, even
// in a shard whose expiry table is already there, brings it back.
func TestExpirerSkipsQuietDatabases(t *testing.T) {
	ks := New(3)
	now := time.Now().UnixMilli()
	sh := ks.DBs[1].ShardFor([]byte("{t}p"))
	sh.SetString([]byte("{t}p"), []byte("v"), 0, false) // keeps the shard's tables
	sh.SetString([]byte("{t}v"), []byte("v"), now-1, false)
	x := NewExpirer(ks)
	if n := x.Cycle(time.Minute); n != 1 {
		t.Fatalf("first cycle reclaimed %d, want 1", n)
	}
	x.Cycle(time.Minute) // a pass that finds nothing
	for d, db := range ks.DBs {
		if db.mayExpire.Load() {
			t.Fatalf("db %d still marked after a pass that found nothing volatile", d)
		}
	}
	sh.SetString([]byte("{t}w"), []byte("v"), now-1, false)
	if n := x.Cycle(time.Minute); n != 1 || ks.DBs[1].Size() != 1 {
		t.Fatalf("after a new volatile key: reclaimed %d, %d keys left", n, ks.DBs[1].Size())
	}
}

// TestEntrySize: an entry is 56 bytes, so that a 16-byte key and a small
// value stored with it take an 80-byte allocation (the 10M-key figures in
// docs/bench/history-2026-12-01.md count on it).
func TestEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n != 56 {
		t.Fatalf("Entry is %d bytes", n)
	}
	if n := unsafe.Sizeof(inline[[24]byte]{}); n != 80 {
		t.Fatalf("an entry with 24 bytes of key and value is %d bytes", n)
	}
	e, k := newStringEntry([]byte("key:000000000001"), []byte("xxx"))
	if k != "key:000000000001" || string(e.Bytes()) != "xxx" || cap(e.Bytes()) != 8 {
		t.Fatalf("entry holds %q -> %q (cap %d)", k, e.Bytes(), cap(e.Bytes()))
	}
}

// TestIdleSecondsWraps: the access clock keeps 24 bits of unix seconds, and
// the idle time is their difference modulo 2^24, as in Redis.
func TestIdleSecondsWraps(t *testing.T) {
	for _, tc := range []struct{ at, now, want uint32 }{
		{1764500000, 1764500000, 0},
		{1764500000, 1764500042, 42},
		{1<<24*105 - 5, 1<<24*105 + 10, 15}, // the 24 bits wrapped in between
	} {
		var e Entry
		e.SetAccess(tc.at)
		if got := e.IdleSeconds(tc.now); got != tc.want {
			t.Errorf("access at %d, now %d: idle %d, want %d", tc.at, tc.now, got, tc.want)
		}
	}
}
