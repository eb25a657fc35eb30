package keyspace

import (
	"hash/maphash"
	"unsafe"

	"github.com/hotkv/hotkv/internal/prefetch"
)

// table is a shard's keys: open addressing with linear probing over a
// power-of-two array of (hash, entry) slots; an entry carries its own key.
//
// A Go map costs a lookup of a random key about five dependent cache misses
// (the map header, its directory, the table, the control word and slot, then
// the key's bytes). Here the slots are reached from the shard itself, which
// the lock has just brought into cache: one miss for the slot, one for the
// entry, whose key (inline for small strings, see entry.go) is compared only
// when the full 64-bit hash matches.
type table struct {
	slots []slot
	n     int
}

type slot struct {
	h uint64
	e *Entry // nil: empty
}

var tableSeed = maphash.MakeSeed()

func hashKey(k string) uint64 { return maphash.String(tableSeed, k) }

// bstr views b as a string for a lookup that does not keep it.
func bstr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// get returns the entry stored under k, or nil.
func (t *table) get(k string) *Entry { return t.getHashed(k, hashKey(k)) }

// getHashed is get for a key whose hash is known.
func (t *table) getHashed(k string, h uint64) *Entry {
	if t.n == 0 {
		return nil
	}
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.e == nil {
			return nil
		}
		if s.h == h && s.e.keyString() == k {
			return s.e
		}
	}
}

// prefetchSlot starts loading the slot where a key of hash h is looked
// for first.
func (t *table) prefetchSlot(h uint64) {
	if t.n > 0 {
		prefetch.Lines(unsafe.Pointer(&t.slots[int(h)&(len(t.slots)-1)]), 1)
	}
}

// prefetchEntry starts loading the entry that the first slot holding hash h
// points to (its key is compared next), if the probe finds one.
func (t *table) prefetchEntry(h uint64) {
	if t.n == 0 {
		return
	}
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.e == nil {
			return
		}
		if s.h == h {
			prefetch.Lines(unsafe.Pointer(s.e), 2)
			return
		}
	}
}

// put stores e under k, which it keeps (e.key = k), replacing the entry
// stored there before.
func (t *table) put(k string, e *Entry) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.resize(max(8, 2*len(t.slots)))
	}
	e.setKey(k)
	h := hashKey(k)
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.e == nil {
			*s = slot{h, e}
			t.n++
			return
		}
		if s.h == h && s.e.keyString() == k {
			s.e = e
			return
		}
	}
}

// del removes k, closing the gap by shifting later entries of its probe run
// back (no tombstones), and shrinks the array when it is mostly empty.
func (t *table) del(k string) {
	if t.n == 0 {
		return
	}
	h := hashKey(k)
	mask := len(t.slots) - 1
	i := int(h) & mask
	for ; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.e == nil {
			return
		}
		if s.h == h && s.e.keyString() == k {
			break
		}
	}
	for j := i; ; {
		j = (j + 1) & mask
		s := t.slots[j]
		if s.e == nil {
			break
		}
		// s may move back to i unless its home lies cyclically in (i, j].
		if home := int(s.h) & mask; (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			t.slots[i] = s
			i = j
		}
	}
	t.slots[i] = slot{}
	t.n--
	if t.n == 0 {
		t.slots = nil
	} else if len(t.slots) > 8 && 8*t.n < len(t.slots) {
		t.resize(len(t.slots) / 2)
	}
}

// reserve grows the array so that n keys fit without a resize.
func (t *table) reserve(n int) {
	size := max(8, len(t.slots))
	for 4*n > 3*size {
		size *= 2
	}
	if size > len(t.slots) {
		t.resize(size)
	}
}

func (t *table) resize(size int) {
	old := t.slots
	t.slots = make([]slot, size)
	mask := size - 1
	for _, s := range old {
		if s.e == nil {
			continue
		}
		i := int(s.h) & mask
		for t.slots[i].e != nil {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
