package hnsw

import "sync/atomic"

// reclaimer decides when a deleted node's id (and its storage) may be reused.
// Searches and inserts read links without locks, so one may still hold a
// deleted id it read just before the node was unlinked. Every operation
// registers in the current epoch's counter; ids retired during epoch e are
// reused only once every operation that started in epoch e or earlier has
// finished, which two counters (by parity) are enough to tell.
type reclaimer struct {
	cur    atomic.Uint32
	active [2]atomic.Int64
}

func (r *reclaimer) enter() uint32 {
	for {
		e := r.cur.Load()
		r.active[e&1].Add(1)
		// The epoch may have moved between the load and the increment;
		// then this operation would be counted in the wrong generation.
		if r.cur.Load()&1 == e&1 {
			return e & 1
		}
		r.active[e&1].Add(-1)
	}
}

func (r *reclaimer) exit(slot uint32) { r.active[slot].Add(-1) }

// advance moves to the next epoch if no operation of the previous one is
// still running, and reports whether it did. Ids retired during the previous
// epoch are then safe to reuse. Callers serialise calls to advance.
func (r *reclaimer) advance() bool {
	e := r.cur.Load()
	if r.active[(e+1)&1].Load() != 0 {
		return false
	}
	r.cur.Store(e + 1)
	return true
}
