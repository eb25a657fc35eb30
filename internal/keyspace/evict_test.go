package keyspace

import (
	"fmt"
	"testing"
)

// withClock sets the LRU clock for a test and restores it after.
func withClock(t *testing.T, c uint32) {
	old := Clock.Load()
	Clock.Store(c)
	t.Cleanup(func() { Clock.Store(old) })
}

// best samples n keys of s and returns the one that scores highest.
func best(s *Shard, n int, volatile bool, score Victim) (key string, ok bool) {
	var top uint64
	s.Sample(n, volatile, score, func(k string, v uint64) {
		if !ok || v > top {
			key, top, ok = k, v, true
		}
	})
	return key, ok
}

func TestSampleScores(t *testing.T) {
	withClock(t, 1_000_000)
	s := new(Shard)
	for i := range 8 {
		k := []byte(fmt.Sprint("k", i))
		e := s.SetString(k, []byte("v"), 0, false)
		e.SetAccess(1_000_000 - uint32(i)*10) // k7 idle longest
		if i%2 == 1 {
			s.SetExpire(k, e, int64(5000-i*100)) // k7 expires first, k1 last
		}
	}
	// Looking at every key, LRU prefers the idlest, TTL the nearest expiry
	// among volatile keys only.
	for _, tc := range []struct {
		volatile bool
		score    Victim
		want     string
	}{
		{false, LRUScore, "k7"}, {true, TTLScore, "k7"}, {true, LRUScore, "k7"},
	} {
		if k, _ := best(s, 100, tc.volatile, tc.score); k != tc.want {
			t.Fatalf("volatile=%v: best %q, want %q", tc.volatile, k, tc.want)
		}
	}
	if !s.Evict("k7", true) || s.Evict("k7", false) {
		t.Fatal("Evict did not delete k7 exactly once")
	}
	if s.Evict("k6", true) {
		t.Fatal("a volatile eviction deleted k6, which has no expiry")
	}
	if k, _ := best(s, 100, true, TTLScore); k != "k5" {
		t.Fatalf("TTL best after k7 went: %q, want k5", k)
	}
	if s.Len() != 7 || s.Volatile() != 3 {
		t.Fatalf("len %d volatile %d after one eviction", s.Len(), s.Volatile())
	}
	seen := map[string]bool{}
	s.Sample(100, true, RandomScore, func(k string, _ uint64) { seen[k] = true })
	if len(seen) != 3 || !seen["k1"] || !seen["k3"] || !seen["k5"] {
		t.Fatalf("volatile sample of everything = %v", seen)
	}
	for _, k := range []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6"} {
		s.Evict(k, false)
	}
	if _, ok := best(s, 5, false, LRUScore); ok || s.Len() != 0 {
		t.Fatalf("sampled an empty shard (len %d)", s.Len())
	}
}

// A sample of n looks at n keys, not more.
func TestSampleSize(t *testing.T) {
	s := new(Shard)
	for i := range 64 {
		s.SetString([]byte(fmt.Sprint("k", i)), []byte("v"), 0, false)
	}
	for _, n := range []int{1, 5, 64, 100} {
		got := 0
		s.Sample(n, false, RandomScore, func(string, uint64) { got++ })
		if want := min(n, 64); got != want {
			t.Fatalf("Sample(%d) looked at %d keys, want %d", n, got, want)
		}
	}
}

func TestLFUCounter(t *testing.T) {
	withClock(t, 60*1000)
	SetLFU(true, 10, 1)
	t.Cleanup(func() { SetLFU(false, 10, 1) })
	s := new(Shard)
	e := s.SetString([]byte("k"), []byte("v"), 0, false)
	if f := e.Freq(); f != lfuInit {
		t.Fatalf("new key freq %d, want %d", f, lfuInit)
	}
	s.Lookup([]byte("k"), 0)
	if f := e.Freq(); f != lfuInit+1 {
		t.Fatalf("freq after one read %d, want %d (certain at the initial value)", f, lfuInit+1)
	}
	for range 100_000 {
		s.Lookup([]byte("k"), 0)
	}
	f := e.Freq()
	// Redis's table for lfu-log-factor 10: 100K hits reach about 142.
	if f < 100 || f > 200 {
		t.Fatalf("freq after 100k reads %d, want about 142", f)
	}
	// One period of decay per minute (lfu-decay-time 1).
	Clock.Store(60*1000 + 3*60)
	if g := e.Freq(); g != f-3 {
		t.Fatalf("freq three minutes later %d, want %d", g, f-3)
	}
	SetLFU(true, 10, 0) // no decay
	if g := e.Freq(); g != f {
		t.Fatalf("freq without decay %d, want %d", g, f)
	}
	if LFUScore(e) != uint64(255-f) {
		t.Fatal("LFUScore does not put rarely used keys first")
	}
}

// An entry that counts hits ranks as a key accessed as often would: the
// counter's expected increments (lfu-log-factor 10: 1 access to the first,
// 11 more to the second, 21 more to the third), decayed by idle minutes.
func TestLFUScoreHits(t *testing.T) {
	SetLFU(true, 10, 1)
	t.Cleanup(func() { SetLFU(false, 10, 1) })
	for _, c := range []struct {
		hits, idleMs int64
		counter      uint64
	}{
		{0, 0, lfuInit}, {1, 0, lfuInit + 1}, {11, 0, lfuInit + 1}, {12, 0, lfuInit + 2},
		{33, 0, lfuInit + 3}, {1 << 40, 0, 255}, {12, 3 * 60000, lfuInit - 1}, {0, 1 << 40, 0},
	} {
		if got := 255 - LFUScoreHits(c.hits, c.idleMs); got != c.counter {
			t.Errorf("%d hits, %d ms idle: counter %d, want %d", c.hits, c.idleMs, got, c.counter)
		}
	}
}
