package keyspace

import "sync/atomic"

// Waiter is a client blocked on keys (BLPOP and friends). A write to one of
// its keys that leaves a value of the kind it waits for moves it, oldest
// first, to its shard's ready list; the client holding the shard's lock then
// serves it before unlocking (see the server's blocking.go). A served waiter's
// command is a write too and readies the next waiter, so one push of n
// elements serves up to n clients in arrival order.
type Waiter struct {
	Seq   uint64 // arrival order
	Kind  Kind   // the kind of value that can serve it; 0 = any write readies it
	Owner any    // the server's state for the blocked client
	woken atomic.Bool
}

// Woken reports whether the waiter was readied since it last blocked.
func (w *Waiter) Woken() bool { return w.woken.Load() }

// Rearm clears the woken flag when a readied waiter found nothing and waits on.
func (w *Waiter) Rearm() { w.woken.Store(false) }

// ReadyPending counts waiters sitting on ready lists, so the dispatcher can
// skip looking for them in the common case of none.
var ReadyPending atomic.Int64

// blockingKeys counts the keys with waiters, and blockingNoKey those among
// them with a waiter a deletion serves (XREADGROUP's, Kind 0): INFO's
// total_blocking_keys and total_blocking_keys_on_nokey.
var blockingKeys, blockingNoKey atomic.Int64

// BlockingKeys reports the keys with waiters, and how many of them have a
// waiter that a deletion of the key serves.
func BlockingKeys() (keys, onNoKey int64) { return blockingKeys.Load(), blockingNoKey.Load() }

// anyKind0 reports whether ws holds a waiter of Kind 0.
func anyKind0(ws []*Waiter) bool {
	for _, x := range ws {
		if x.Kind == 0 {
			return true
		}
	}
	return false
}

// AddWaiter registers w on key, keeping the list in arrival order.
func (s *Shard) AddWaiter(key []byte, w *Waiter) {
	if s.waiters == nil {
		s.waiters = make(map[string][]*Waiter)
	}
	k := string(key)
	ws := s.waiters[k]
	for _, x := range ws {
		if x == w {
			return
		}
	}
	if len(ws) == 0 {
		blockingKeys.Add(1)
	}
	if w.Kind == 0 && !anyKind0(ws) {
		blockingNoKey.Add(1)
	}
	i := len(ws)
	for i > 0 && ws[i-1].Seq > w.Seq {
		i--
	}
	ws = append(ws, nil)
	copy(ws[i+1:], ws[i:])
	ws[i] = w
	s.waiters[k] = ws
	observers.Add(1)
}

// RemoveWaiter unregisters w from key.
func (s *Shard) RemoveWaiter(key []byte, w *Waiter) {
	k := string(key)
	ws := s.waiters[k]
	found := false
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i], ws[i+1:]...)
			observers.Add(-1)
			found = true
			break
		}
	}
	if !found {
		return
	}
	if w.Kind == 0 && !anyKind0(ws) {
		blockingNoKey.Add(-1)
	}
	if len(ws) == 0 {
		delete(s.waiters, k)
		blockingKeys.Add(-1)
	} else {
		s.waiters[k] = ws
	}
}

// WakeWaiters readies the oldest waiter on key that key's value can serve.
func (s *Shard) WakeWaiters(key []byte) {
	if len(s.waiters) != 0 {
		s.wake(string(key))
	}
}

// WakeAllWaiters readies every waiter on key that its value can serve: a
// new stream entry is there for every reader (XREAD), where a pushed list
// element serves one client.
func (s *Shard) WakeAllWaiters(key []byte) {
	if len(s.waiters) != 0 {
		s.wakeEvery(string(key))
	}
}

func (s *Shard) wakeEvery(k string) {
	var kind Kind
	if e := s.m.get(k); e != nil {
		kind = e.Kind
	}
	for _, w := range s.waiters[k] {
		if (w.Kind == 0 || w.Kind == kind) && !w.woken.Swap(true) {
			s.ready = append(s.ready, w)
			ReadyPending.Add(1)
		}
	}
}

// wake readies the oldest waiter on k that is not already ready and waits
// for the kind of value k now holds, as Redis only serves a client blocked
// for a list when the key holds a list.
func (s *Shard) wake(k string) {
	ws := s.waiters[k]
	if len(ws) == 0 {
		return
	}
	var kind Kind
	if e := s.m.get(k); e != nil {
		kind = e.Kind
	}
	for _, w := range ws {
		if w.Kind != 0 && w.Kind != kind {
			continue
		}
		if !w.woken.Swap(true) {
			s.ready = append(s.ready, w)
			ReadyPending.Add(1)
			return
		}
	}
}

// wakeAll readies a waiter of every key of the shard (FLUSHDB, SWAPDB).
func (s *Shard) wakeAll() {
	for k := range s.waiters {
		s.wake(k)
	}
}

// TakeReady returns and clears the shard's ready waiters, in the order they
// were readied.
func (s *Shard) TakeReady() []*Waiter {
	r := s.ready
	if len(r) == 0 {
		return nil
	}
	s.ready = nil
	ReadyPending.Add(-int64(len(r)))
	return r
}

// TryLock takes the shard's lock if it is free. Serving a waiter may need
// shards beyond those the writer locked; trying (never waiting) keeps the
// ascending lock order that prevents deadlocks.
func (s *Shard) TryLock() bool {
	if !s.mu.TryLock() {
		return false
	}
	s.by = 0
	return true
}
