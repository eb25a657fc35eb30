package keyspace

import "testing"

func TestWaitersReadiedOldestFirstByKind(t *testing.T) {
	var s Shard
	key := []byte("k")
	a := &Waiter{Seq: 1, Kind: KindZSet}
	b := &Waiter{Seq: 2, Kind: KindList}
	c := &Waiter{Seq: 3, Kind: KindList}
	s.AddWaiter(key, c) // registration order need not be arrival order
	s.AddWaiter(key, a)
	s.AddWaiter(key, b)
	s.AddWaiter(key, b) // twice (BLPOP k k 0) is once
	if ws := s.waiters["k"]; len(ws) != 3 || ws[0] != a || ws[1] != b || ws[2] != c {
		t.Fatalf("waiters not in arrival order: %v", ws)
	}
	pending := ReadyPending.Load()

	s.Touch(key) // no value: nobody waiting for a list or zset is readied
	if len(s.ready) != 0 {
		t.Fatal("a missing key readied a waiter")
	}
	s.Put(key, &Entry{Kind: KindString})
	s.Touch(key)
	if len(s.ready) != 0 {
		t.Fatal("a string readied a list waiter")
	}
	s.Put(key, &Entry{Kind: KindList})
	s.Touch(key)
	s.Touch(key)
	if got := s.TakeReady(); len(got) != 2 || got[0] != b || got[1] != c {
		t.Fatalf("readied %v, want b then c (a waits for a zset)", got)
	}
	if ReadyPending.Load() != pending {
		t.Fatalf("ReadyPending %d, want %d", ReadyPending.Load(), pending)
	}
	s.Touch(key) // both already readied
	if len(s.ready) != 0 {
		t.Fatal("a readied waiter was readied again")
	}
	b.Rearm()
	s.RemoveWaiter(key, c)
	s.WakeWaiters(key)
	if got := s.TakeReady(); len(got) != 1 || got[0] != b {
		t.Fatalf("after Rearm: readied %v, want b", got)
	}
	s.RemoveWaiter(key, a)
	s.RemoveWaiter(key, b)
	if s.waiters["k"] != nil || len(s.waiters) != 0 {
		t.Fatal("empty waiter list kept")
	}
}

func TestSwapReadiesWaitersForNewContents(t *testing.T) {
	a, b := new(DB), new(DB)
	key := []byte("k")
	w := &Waiter{Seq: 1, Kind: KindList}
	a.ShardFor(key).AddWaiter(key, w)
	b.ShardFor(key).Put(key, &Entry{Kind: KindList})
	Swap(a, b, 0)
	if got := a.ShardFor(key).TakeReady(); len(got) != 1 || got[0] != w {
		t.Fatal("SWAPDB did not ready the waiter of the list swapped in")
	}
}
