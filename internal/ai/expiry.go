package ai

import "sync/atomic"

// expState is an entry's expiry: at is read and extended without the
// owner's write lock (TTL refresh on a read hit); queued is the time of the
// entry's live item in the owner's expiry heap, 0 if none, and changes only
// under the write lock.
type expState struct {
	at     atomic.Int64 // unix ms, 0 = never
	queued int64
}

type expItem[T any] struct {
	at int64
	v  T
}

// expHeap orders entries by expiry time. A refresh only moves at forward,
// so it does not touch the heap: when the old item comes due the entry is
// queued again at its new time. Items whose time is not the entry's queued
// time are stale and dropped when popped.
type expHeap[T interface{ exp() *expState }] struct{ items []expItem[T] }

// schedule queues v for its current expiry, if it has one earlier than the
// item already queued.
func (h *expHeap[T]) schedule(v T) {
	s := v.exp()
	at := s.at.Load()
	if at == 0 || (s.queued != 0 && s.queued <= at) {
		return
	}
	s.queued = at
	h.push(expItem[T]{at, v})
}

// due pops the entries expired at now; alive reports whether an entry is
// still stored (a removed one's items are stale).
func (h *expHeap[T]) due(now int64, alive func(T) bool, fn func(T)) {
	for len(h.items) > 0 && h.items[0].at <= now {
		it := h.pop()
		s := it.v.exp()
		if s.queued != it.at || !alive(it.v) {
			continue
		}
		s.queued = 0
		switch at := s.at.Load(); {
		case at == 0:
		case at <= now:
			fn(it.v)
		default:
			s.queued = at
			h.push(expItem[T]{at, it.v})
		}
	}
}

// next is the earliest queued time, 0 when nothing is queued.
func (h *expHeap[T]) next() int64 {
	if len(h.items) == 0 {
		return 0
	}
	return h.items[0].at
}

func (h *expHeap[T]) push(it expItem[T]) {
	h.items = append(h.items, it)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.items[p].at <= h.items[i].at {
			break
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

func (h *expHeap[T]) pop() expItem[T] {
	top := h.items[0]
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	var zero expItem[T]
	h.items[n] = zero
	h.items = h.items[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.items[l].at < h.items[m].at {
			m = l
		}
		if r < n && h.items[r].at < h.items[m].at {
			m = r
		}
		if m == i {
			return top
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}

// live reports whether an expiry time has not passed at now.
func live(at, now int64) bool { return at == 0 || at > now }
