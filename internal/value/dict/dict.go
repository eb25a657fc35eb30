// Package dict is the hash table behind hashes, sets and sorted-set member
// maps. Go's map cannot be scanned incrementally, so this table chains entries
// into power-of-two buckets and scans with Redis's reverse-binary cursor: every
// element present for a whole scan is returned at least once even when the
// table grows or shrinks between calls. Entries live in one slice linked by
// indexes (few pointers for the garbage collector), which also makes picking a
// uniformly random element cheap.
package dict

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"unsafe"

	"github.com/hotkv/hotkv/internal/prefetch"
)

var seed = maphash.MakeSeed()

// entry is 20 bytes plus the value, so 24 with a value of up to 4 bytes (a
// hash keeps its value's length there): the key is a data pointer and a
// 32-bit length instead of a 16-byte string header (keys come from bulk
// arguments, and proto-max-bulk-len stops below 4 GiB), the
// low 32 bits of the hash suffice to pick a bucket and to skip most key
// comparisons, and the sign of next tells free slots from live ones.
type entry[V any] struct {
	key  *byte
	klen uint32
	hash uint32
	next int32 // live: index+1 of the next entry in the bucket, 0 = end; free: -1-link to the next free slot
	val  V
}

func (e *entry[V]) live() bool { return e.next >= 0 }

// k is the entry's key.
func (e *entry[V]) k() string { return unsafe.String(e.key, e.klen) }

// is reports whether the entry holds key, whose hash is h.
func (e *entry[V]) is(key string, h uint32) bool { return e.hash == h && e.k() == key }

func newEntry[V any](key string, val V, h uint32, next int32) entry[V] {
	return entry[V]{key: unsafe.StringData(key), klen: uint32(len(key)), hash: h, next: next, val: val}
}

// Dict maps string keys to values of type V. The zero value is not usable:
// call New.
type Dict[V any] struct {
	buckets []int32 // index+1 of each chain's first entry
	entries []entry[V]
	free    int32 // index+1 of the first free entry
	n       int
}

const minBuckets = 4

// New returns an empty dict with room for about hint elements.
func New[V any](hint int) *Dict[V] {
	size := minBuckets
	for size < hint {
		size <<= 1
	}
	return &Dict[V]{buckets: make([]int32, size), entries: make([]entry[V], 0, hint)}
}

// Len is the number of elements.
func (d *Dict[V]) Len() int { return d.n }

func hashOf(key string) uint32 { return uint32(maphash.String(seed, key)) }

func (d *Dict[V]) find(key string, h uint32) int32 {
	for i := d.buckets[h&uint32(len(d.buckets)-1)]; i != 0; {
		e := &d.entries[i-1]
		if e.is(key, h) {
			return i
		}
		i = e.next
	}
	return 0
}

// Get returns the value for key.
func (d *Dict[V]) Get(key string) (V, bool) {
	if i := d.find(key, hashOf(key)); i != 0 {
		return d.entries[i-1].val, true
	}
	var zero V
	return zero, false
}

// Prefetch starts loading one step of a lookup of key, so that the lookups
// of a pipelined batch overlap their cache misses instead of queueing: step
// 0 hashes key into *h and loads its bucket, step 1 the bucket's first
// entry, step 2 the bytes of that entry's key (or the next entry, when its
// hash differs). It reports whether a further step has anything to load.
// Like every other method it needs the caller's exclusion from writers.
func (d *Dict[V]) Prefetch(key []byte, step int, h *uint32) bool {
	mask := uint32(len(d.buckets) - 1)
	if step == 0 {
		*h = hashOf(unsafe.String(unsafe.SliceData(key), len(key)))
		prefetch.Lines(unsafe.Pointer(&d.buckets[*h&mask]), 1)
		return true
	}
	i := d.buckets[*h&mask]
	if i == 0 {
		return false
	}
	e := &d.entries[i-1]
	switch {
	case step == 1:
		prefetch.Lines(unsafe.Pointer(e), 1)
		return true
	case e.hash == *h:
		prefetch.Lines(unsafe.Pointer(e.key), 1)
	case e.next != 0:
		prefetch.Lines(unsafe.Pointer(&d.entries[e.next-1]), 1)
	}
	return false
}

// Lookup returns the key as stored (its own allocation, not the caller's
// string) and a pointer to its value, valid until the next insertion or
// deletion; ref is nil when key is absent.
func (d *Dict[V]) Lookup(key string) (stored string, ref *V) {
	if i := d.find(key, hashOf(key)); i != 0 {
		e := &d.entries[i-1]
		return e.k(), &e.val
	}
	return "", nil
}

// Set stores val under key and reports whether key was new. A key already
// present keeps the string it was stored with.
func (d *Dict[V]) Set(key string, val V) bool { return d.put(key, val, false) }

// Put is Set, except that a key already present is stored with the string
// passed from then on: a caller that keeps data in the key's allocation (as
// hashes keep the value after the field) moves it to a new one.
func (d *Dict[V]) Put(key string, val V) bool { return d.put(key, val, true) }

func (d *Dict[V]) put(key string, val V, rekey bool) bool {
	h := hashOf(key)
	if i := d.find(key, h); i != 0 {
		e := &d.entries[i-1]
		e.val = val
		if rekey {
			e.key = unsafe.StringData(key)
		}
		return false
	}
	if d.n >= len(d.buckets) {
		d.resize(len(d.buckets) * 2)
	}
	var i int32
	if d.free != 0 {
		i = d.free
		d.free = -1 - d.entries[i-1].next
	} else {
		d.entries = append(d.entries, entry[V]{})
		i = int32(len(d.entries))
	}
	b := &d.buckets[h&uint32(len(d.buckets)-1)]
	d.entries[i-1] = newEntry(key, val, h, *b)
	*b = i
	d.n++
	return true
}

// Delete removes key and reports whether it was present.
func (d *Dict[V]) Delete(key string) bool {
	h := hashOf(key)
	link := &d.buckets[h&uint32(len(d.buckets)-1)]
	for *link != 0 {
		i := *link
		e := &d.entries[i-1]
		if e.is(key, h) {
			*link = e.next
			*e = entry[V]{next: -1 - d.free}
			d.free = i
			d.n--
			if len(d.buckets) > minBuckets && d.n < len(d.buckets)/8 {
				d.resize(len(d.buckets) / 2)
			}
			return true
		}
		link = &e.next
	}
	return false
}

// resize rebuilds the table with size buckets, packing the entries densely so
// that random picks stay cheap and freed slots return to the allocator.
func (d *Dict[V]) resize(size int) {
	for size > minBuckets && size/2 >= d.n*2 {
		size /= 2
	}
	old := d.entries
	d.entries = make([]entry[V], 0, max(d.n, size/2))
	d.buckets = make([]int32, size)
	d.free = 0
	mask := uint32(size - 1)
	for _, e := range old {
		if !e.live() {
			continue
		}
		b := &d.buckets[e.hash&mask]
		e.next = *b
		d.entries = append(d.entries, e)
		*b = int32(len(d.entries))
	}
}

// Range calls fn for each element until it returns false. fn must not modify d.
func (d *Dict[V]) Range(fn func(key string, val V) bool) {
	for i := range d.entries {
		if e := &d.entries[i]; e.live() && !fn(e.k(), e.val) {
			return
		}
	}
}

// Chains calls fn with the length of each bucket's chain, in bucket order,
// empty buckets included (DEBUG HTSTATS-KEY).
func (d *Dict[V]) Chains(fn func(n int)) {
	for _, i := range d.buckets {
		n := 0
		for ; i != 0; i = d.entries[i-1].next {
			n++
		}
		fn(n)
	}
}

// Random returns a uniformly random element; ok is false when d is empty.
func (d *Dict[V]) Random(r *rand.Rand) (key string, val V, ok bool) {
	if d.n == 0 {
		return "", val, false
	}
	if d.free != 0 && d.n < len(d.entries)/2 {
		d.resize(len(d.buckets)) // mostly holes: pack so picks succeed quickly
	}
	for {
		e := &d.entries[r.IntN(len(d.entries))]
		if e.live() {
			return e.k(), e.val, true
		}
	}
}

// Scan visits the buckets at cursor (at least one, more while fewer than
// count elements were found) and returns the next cursor, 0 when the scan is
// complete. fn must not modify d.
func (d *Dict[V]) Scan(cursor uint64, count int, fn func(key string, val V)) uint64 {
	mask := uint64(len(d.buckets) - 1)
	found := 0
	for {
		for i := d.buckets[cursor&mask]; i != 0; {
			e := &d.entries[i-1]
			fn(e.k(), e.val)
			found++
			i = e.next
		}
		// Increment the cursor's reversed bits: high bits first, so buckets
		// already visited stay visited when the table doubles or halves.
		cursor |= ^mask
		cursor = bits.Reverse64(cursor)
		cursor++
		cursor = bits.Reverse64(cursor)
		if cursor == 0 || found >= count {
			return cursor
		}
	}
}
