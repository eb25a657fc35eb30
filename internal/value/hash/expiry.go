package hash

// deadlines holds the expiry times of a hash's volatile fields: a map for
// lookups and a min-heap to find the fields that ran out without looking at
// the others. Changing or removing a field's time leaves its old heap entry
// in place; an entry counts only while the map still holds the same time
// for its field, and the heap is rebuilt when stale entries dominate.
type deadlines struct {
	at   map[string]int64
	heap []deadline
}

type deadline struct {
	at    int64
	field string
}

func (d *deadlines) live(e deadline) bool {
	at, ok := d.at[e.field]
	return ok && at == e.at
}

func (d *deadlines) push(e deadline) {
	d.heap = append(d.heap, e)
	for i := len(d.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if d.heap[p].at <= d.heap[i].at {
			break
		}
		d.heap[p], d.heap[i] = d.heap[i], d.heap[p]
		i = p
	}
}

func (d *deadlines) pop() {
	last := len(d.heap) - 1
	d.heap[0] = d.heap[last]
	d.heap[last] = deadline{}
	d.heap = d.heap[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < last && d.heap[l].at < d.heap[m].at {
			m = l
		}
		if l+1 < last && d.heap[l+1].at < d.heap[m].at {
			m = l + 1
		}
		if m == i {
			return
		}
		d.heap[m], d.heap[i] = d.heap[i], d.heap[m]
		i = m
	}
}

// top drops stale entries and returns the earliest live one.
func (d *deadlines) top() (deadline, bool) {
	for len(d.heap) > 0 {
		if e := d.heap[0]; d.live(e) {
			return e, true
		}
		d.pop()
	}
	return deadline{}, false
}

func (d *deadlines) set(f string, at int64) {
	d.at[f] = at
	d.push(deadline{at, f})
	if len(d.heap) > 2*len(d.at)+32 {
		d.rebuild()
	}
}

// rebuild makes a heap of the live times only.
func (d *deadlines) rebuild() {
	d.heap = d.heap[:0]
	for f, at := range d.at {
		d.push(deadline{at, f})
	}
}

func (d *deadlines) clone() *deadlines {
	c := &deadlines{at: make(map[string]int64, len(d.at))}
	for f, at := range d.at {
		c.at[f] = at
	}
	c.rebuild()
	return c
}

// Expiry returns field's expiry time in unix ms, 0 when it has none.
func (h *Hash) Expiry(f []byte) int64 {
	if h.ttl == nil {
		return 0
	}
	return h.ttl.at[string(f)]
}

// SetExpiry gives an existing field an expiry time (unix ms, > 0).
func (h *Hash) SetExpiry(f []byte, at int64) {
	if h.ttl == nil {
		h.ttl = &deadlines{at: make(map[string]int64)}
	}
	h.ttl.set(string(f), at)
	if h.d == nil {
		h.reorder(f, at)
	}
}

// Persist removes field's expiry and reports whether it had one.
func (h *Hash) Persist(f []byte) bool {
	if h.ttl == nil {
		return false
	}
	if _, ok := h.ttl.at[string(f)]; !ok {
		return false
	}
	h.dropExpiry(f)
	if h.d == nil {
		h.reorder(f, 0)
	}
	return true
}

func (h *Hash) dropExpiry(f []byte) {
	if h.ttl == nil {
		return
	}
	delete(h.ttl.at, string(f))
	if len(h.ttl.at) == 0 {
		h.ttl = nil
	}
}

// Volatile reports whether any field has an expiry time.
func (h *Hash) Volatile() bool { return h.ttl != nil }

// Expired reports whether a field expiring at at (0: never) is gone at now.
// As in Redis, a field is still there during the millisecond it expires at.
func Expired(at, now int64) bool { return at != 0 && at < now }

// Reclaim deletes up to max fields (all when max < 0) whose time ran out
// before now, and returns how many it deleted.
func (h *Hash) Reclaim(now int64, max int) int {
	n := 0
	for h.ttl != nil && n != max {
		e, ok := h.ttl.top()
		if !ok || !Expired(e.at, now) {
			break
		}
		h.ttl.pop()
		f := view(e.field)
		h.dropExpiry(f)
		h.del(f)
		n++
	}
	return n
}

// ExpireSub reclaims expired fields for the keyspace's active expiry (it
// makes *Hash a keyspace.SubExpirer).
func (h *Hash) ExpireSub(now int64, max int) (deleted, left int, volatile bool) {
	deleted = h.Reclaim(now, max)
	return deleted, h.Len(), h.ttl != nil
}

// SubVolatile is Volatile, for the keyspace.
func (h *Hash) SubVolatile() bool { return h.ttl != nil }
