package ai

import "sync/atomic"

// expState is an entry's expiry: at is read and extended without the
// owner's write lock (TTL refresh on a read hit); queued is the time of the
// entry's item in the owner's expiry heap, 0 if none, and pos its place
// there; both change only under the write lock.
type expState struct {
	at     atomic.Int64
	queued int64
	pos    int
}

type expItem[T any] struct {
	at int64
	v  T
}

// expHeap orders entries by expiry time, one item per entry at most. A
// refresh only moves at forward, so it does not touch the heap: when the
// item comes due the entry is queued again at its new time. An entry
// removed before its time is taken out (remove), so that the heap does not
// keep it reachable until then.
type expHeap[T interface{ exp() *expState }] struct{ items []expItem[T] }

// schedule queues v for its current expiry, if it has one earlier than the
// item already queued.
func (h *expHeap[T]) schedule(v T) {
	s := v.exp()
	at := s.at.Load()
	switch {
	case at == 0 || (s.queued != 0 && s.queued <= at):
	case s.queued != 0:
		s.queued = at
		h.items[s.pos].at = at
		h.up(s.pos)
	default:
		s.queued = at
		h.items = append(h.items, expItem[T]{at, v})
		h.place(len(h.items) - 1)
		h.up(len(h.items) - 1)
	}
}

// remove takes v's item out, if it has one.
func (h *expHeap[T]) remove(v T) {
	s := v.exp()
	if s.queued == 0 {
		return
	}
	s.queued = 0
	i, n := s.pos, len(h.items)-1
	if i != n {
		h.items[i] = h.items[n]
		h.place(i)
	}
	var zero expItem[T]
	h.items[n] = zero
	h.items = h.items[:n]
	if i != n {
		h.down(i)
		h.up(i)
	}
}

// due pops the entries expired at now and calls fn with each.
func (h *expHeap[T]) due(now int64, fn func(T)) {
	for len(h.items) > 0 && h.items[0].at <= now {
		v := h.items[0].v
		h.remove(v)
		switch at := v.exp().at.Load(); {
		case at == 0:
		case at <= now:
			fn(v)
		default:
			h.schedule(v)
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

// place records item i's position in its entry.
func (h *expHeap[T]) place(i int) { h.items[i].v.exp().pos = i }

func (h *expHeap[T]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.place(i)
	h.place(j)
}

func (h *expHeap[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h.items[p].at <= h.items[i].at {
			return
		}
		h.swap(p, i)
		i = p
	}
}

func (h *expHeap[T]) down(i int) {
	n := len(h.items)
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.items[l].at < h.items[m].at {
			m = l
		}
		if r < n && h.items[r].at < h.items[m].at {
			m = r
		}
		if m == i {
			return
		}
		h.swap(i, m)
		i = m
	}
}

// live reports whether an expiry time has not passed at now.
func live(at, now int64) bool { return at == 0 || at > now }
