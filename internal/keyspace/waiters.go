package keyspace

import "sync/atomic"

// Waiter is a client blocked on keys (BLPOP and friends). Writes to a key wake
// its waiters one at a time in arrival order: the woken client re-runs its
// command, and if that consumes data it is a write too and wakes the next
// one, so one push of n elements serves up to n clients, oldest first.
type Waiter struct {
	Seq   uint64 // arrival order; kept across retries so a client keeps its place
	Wake  func() // called with the shard locked; must not block
	woken atomic.Bool
}

// Woken reports whether the waiter was woken since it last blocked.
func (w *Waiter) Woken() bool { return w.woken.Load() }

// Rearm clears the woken flag before the waiter blocks again.
func (w *Waiter) Rearm() { w.woken.Store(false) }

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
	i := len(ws)
	for i > 0 && ws[i-1].Seq > w.Seq {
		i--
	}
	ws = append(ws, nil)
	copy(ws[i+1:], ws[i:])
	ws[i] = w
	s.waiters[k] = ws
}

// RemoveWaiter unregisters w from key.
func (s *Shard) RemoveWaiter(key []byte, w *Waiter) {
	k := string(key)
	ws := s.waiters[k]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(s.waiters, k)
	} else {
		s.waiters[k] = ws
	}
}

// WakeWaiters wakes the oldest waiter on key not already woken.
func (s *Shard) WakeWaiters(key []byte) {
	if len(s.waiters) != 0 {
		s.wake(string(key))
	}
}

func (s *Shard) wake(k string) {
	for _, w := range s.waiters[k] {
		if !w.woken.Swap(true) {
			w.Wake()
			return
		}
	}
}

// wakeAll wakes every waiter of the shard (FLUSHDB, SWAPDB): each re-checks.
func (s *Shard) wakeAll() {
	for _, ws := range s.waiters {
		for _, w := range ws {
			if !w.woken.Swap(true) {
				w.Wake()
			}
		}
	}
}
