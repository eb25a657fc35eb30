// Package set is the value of a Redis set. Like Redis it has three
// encodings and converts between them at Redis's default thresholds, so that
// OBJECT ENCODING and the reply order of small sets match Redis:
//
//   - intset: every member is an integer and there are at most 512. The
//     integers are kept sorted in a byte array at the narrowest width (2, 4 or
//     8 bytes) that holds them all; replies list them in ascending order.
//   - listpack: at most 128 members of at most 64 bytes each, packed one after
//     another (a length byte, then the bytes) in insertion order.
//   - hashtable: a dict.Dict, which gives incremental SCAN and uniform random
//     picks for sets of any size.
//
// Members are passed in and out as byte slices. A slice handed out (to a
// Range callback, or returned by Random) aliases the set's storage: it is
// valid only until the set is next modified and must not be written to.
package set

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"unsafe"

	"github.com/hotkv/hotkv/internal/intstr"
	"github.com/hotkv/hotkv/internal/value/dict"
)

// Redis's defaults for set-max-intset-entries, set-max-listpack-entries and
// set-max-listpack-value.
const (
	maxIntsetEntries   = 512
	maxListpackEntries = 128
	maxListpackValue   = 64
)

type encoding uint8

const (
	intset encoding = iota
	listpack
	hashtable
)

// Set is a set of byte strings. The zero value is not usable: call one of
// the constructors.
type Set struct {
	buf   []byte               // intset or listpack storage
	d     *dict.Dict[struct{}] // hashtable storage
	n     int32                // members in buf
	width uint8                // intset: bytes per integer
	enc   encoding
}

// New returns an empty set in the encoding Redis chooses for a key created
// with first as its first member and about hint members to come.
func New(first []byte, hint int) *Set {
	if _, ok := intstr.Parse(first); ok && hint <= maxIntsetEntries {
		return NewIntset()
	}
	if hint <= maxListpackEntries {
		return NewListpack()
	}
	return NewHashtable(hint)
}

// NewIntset returns an empty intset-encoded set; it converts itself when a
// member is not an integer.
func NewIntset() *Set { return &Set{enc: intset, width: 2} }

// NewListpack returns an empty listpack-encoded set.
func NewListpack() *Set { return &Set{enc: listpack} }

// NewHashtable returns an empty hashtable-encoded set with room for hint
// members.
func NewHashtable(hint int) *Set {
	return &Set{enc: hashtable, d: dict.New[struct{}](hint)}
}

// Len is the number of members.
func (s *Set) Len() int {
	if s.enc == hashtable {
		return s.d.Len()
	}
	return int(s.n)
}

// Encoding is what OBJECT ENCODING reports.
func (s *Set) Encoding() string {
	switch s.enc {
	case intset:
		return "intset"
	case listpack:
		return "listpack"
	}
	return "hashtable"
}

// IsIntset reports whether the set is intset-encoded.
func (s *Set) IsIntset() bool { return s.enc == intset }

// Reserve converts a small set to a hashtable when hint members are about to
// be added and would not fit its encoding, as Redis does on SADD even if the
// members turn out to be present already.
func (s *Set) Reserve(hint int) {
	if (s.enc == listpack && hint > maxListpackEntries) || (s.enc == intset && hint > maxIntsetEntries) {
		s.toHashtable(hint)
	}
}

// PrefetchMember is dict.Dict.Prefetch for a set held as a hashtable (the
// compact forms are one buffer, in cache after their first lookup).
func (s *Set) PrefetchMember(m []byte, step int, h *uint32) bool {
	return s.enc == hashtable && s.d.Prefetch(m, step, h)
}

// Has reports whether m is a member.
func (s *Set) Has(m []byte) bool {
	switch s.enc {
	case intset:
		v, ok := intstr.Parse(m)
		if !ok {
			return false
		}
		_, found := s.intSearch(v)
		return found
	case listpack:
		return s.lpFind(m) >= 0
	}
	_, ok := s.d.Get(view(m))
	return ok
}

// Add inserts m (copying it) and reports whether it was new.
func (s *Set) Add(m []byte) bool {
	switch s.enc {
	case intset:
		if v, ok := intstr.Parse(m); ok {
			if !s.intAdd(v) {
				return false
			}
			if s.n > maxIntsetEntries {
				s.toHashtable(int(s.n))
			}
			return true
		}
		// Not an integer, so certainly new: the set changes encoding.
		if s.n < maxListpackEntries && len(m) <= maxListpackValue {
			s.intToListpack()
			s.lpAppend(m)
			return true
		}
		s.toHashtable(int(s.n) + 1)
	case listpack:
		if s.lpFind(m) >= 0 {
			return false
		}
		if s.n < maxListpackEntries && len(m) <= maxListpackValue {
			s.lpAppend(m)
			return true
		}
		s.toHashtable(int(s.n) + 1)
	}
	if _, ok := s.d.Get(view(m)); ok {
		return false
	}
	return s.d.Set(string(m), struct{}{})
}

// Remove deletes m and reports whether it was a member.
func (s *Set) Remove(m []byte) bool {
	switch s.enc {
	case intset:
		v, ok := intstr.Parse(m)
		if !ok {
			return false
		}
		i, found := s.intSearch(v)
		if found {
			s.intDelete(i)
		}
		return found
	case listpack:
		off := s.lpFind(m)
		if off < 0 {
			return false
		}
		s.lpDelete(off)
		return true
	}
	return s.d.Delete(view(m))
}

// Range calls fn for every member, in the encoding's order (ascending for an
// intset, insertion order for a listpack), until fn returns false. fn must
// not modify s.
func (s *Set) Range(fn func(m []byte) bool) {
	switch s.enc {
	case intset:
		var tmp [20]byte
		for i := range int(s.n) {
			if !fn(strconv.AppendInt(tmp[:0], s.intAt(i), 10)) {
				return
			}
		}
	case listpack:
		for off := 0; off < len(s.buf); {
			l := int(s.buf[off])
			if !fn(s.buf[off+1 : off+1+l]) {
				return
			}
			off += 1 + l
		}
	default:
		s.d.Range(func(k string, _ struct{}) bool { return fn(bytesOf(k)) })
	}
}

// Scan is one SSCAN step: small encodings hand every member to fn at once
// and return cursor 0, as Redis does; a hashtable visits buckets from cursor
// until it has seen count members (MATCH filters afterwards, as in Redis, so
// COUNT bounds the work, not the reply) and returns the next cursor, 0 at
// the end.
func (s *Set) Scan(cursor uint64, count int, fn func(m []byte)) uint64 {
	if s.enc != hashtable {
		s.Range(func(m []byte) bool { fn(m); return true })
		return 0
	}
	return s.d.Scan(cursor, count, func(k string, _ struct{}) { fn(bytesOf(k)) })
}

// Random returns a uniformly random member of a non-empty set. An integer
// member is formatted into buf.
func (s *Set) Random(buf []byte) []byte {
	switch s.enc {
	case intset:
		return strconv.AppendInt(buf[:0], s.intAt(rand.IntN(int(s.n))), 10)
	case listpack:
		return s.lpEntry(s.lpOffset(rand.IntN(int(s.n))))
	}
	k, _, _ := s.d.Random(rng)
	return bytesOf(k)
}

// Pop removes a uniformly random member of a non-empty set and returns it,
// copied into buf where the set's storage would not keep it.
func (s *Set) Pop(buf []byte) []byte {
	switch s.enc {
	case intset:
		i := rand.IntN(int(s.n))
		m := strconv.AppendInt(buf[:0], s.intAt(i), 10)
		s.intDelete(i)
		return m
	case listpack:
		off := s.lpOffset(rand.IntN(int(s.n)))
		m := append(buf[:0], s.lpEntry(off)...)
		s.lpDelete(off)
		return m
	}
	k, _, _ := s.d.Random(rng)
	s.d.Delete(k)
	return bytesOf(k)
}

// Sample calls fn with count members picked uniformly and independently at
// random, so members may repeat (SRANDMEMBER with a negative count). The set
// must not be empty.
func (s *Set) Sample(count int, fn func(m []byte)) {
	switch s.enc {
	case intset:
		var tmp [20]byte
		for range count {
			fn(strconv.AppendInt(tmp[:0], s.intAt(rand.IntN(int(s.n))), 10))
		}
	case listpack:
		offs := s.lpOffsets()
		for range count {
			fn(s.lpEntry(offs[rand.IntN(len(offs))]))
		}
	default:
		for range count {
			k, _, _ := s.d.Random(rng)
			fn(bytesOf(k))
		}
	}
}

// Pick calls fn with count distinct members chosen uniformly at random, for
// 0 < count < Len (SRANDMEMBER with a positive count). Small encodings list
// them in set order, as Redis does for a listpack.
func (s *Set) Pick(count int, fn func(m []byte)) {
	n := s.Len()
	if s.enc != hashtable || count*3 > n {
		// Selection sampling: keep each member with probability
		// (still needed)/(still unseen), which picks a uniform subset.
		left, need := n, count
		s.Range(func(m []byte) bool {
			if rand.IntN(left) < need {
				fn(m)
				need--
			}
			left--
			return need > 0
		})
		return
	}
	// Few members of a big set: draw until count distinct ones are found.
	seen := make(map[string]struct{}, count)
	for len(seen) < count {
		k, _, _ := s.d.Random(rng)
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			fn(bytesOf(k))
		}
	}
}

// popMoveFactor is Redis's SPOP_MOVE_STRATEGY_MUL: when the members left
// after SPOP are fewer than count/5, the set is rebuilt from the members that
// stay instead of removing the popped ones one by one.
const popMoveFactor = 5

// PopN removes count distinct members chosen uniformly at random, for
// 0 < count < Len, and calls fn with each. The reply order follows Redis:
// a listpack lists them in set order, an intset in random order when few
// are popped and ascending when most are.
func (s *Set) PopN(count int, fn func(m []byte)) {
	n := s.Len()
	remaining := n - count
	if s.enc == hashtable {
		if remaining*popMoveFactor > count {
			for range count {
				fn(s.Pop(nil))
			}
			return
		}
		// Move the members that stay to a fresh set (which may be small
		// enough for a listpack), then reply with what is left.
		kept := NewListpack()
		for range remaining {
			k, _, _ := s.d.Random(rng)
			kept.Add(bytesOf(k))
			s.d.Delete(k)
		}
		s.Range(func(m []byte) bool { fn(m); return true })
		*s = *kept
		return
	}
	picked := make([]bool, n)
	left, need := n, count
	for i := range picked {
		if rand.IntN(left) < need {
			picked[i] = true
			need--
		}
		left--
	}
	if s.enc == intset && remaining*popMoveFactor > count {
		order := make([]int64, 0, count)
		for i, p := range picked {
			if p {
				order = append(order, s.intAt(i))
			}
		}
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var tmp [20]byte
		for _, v := range order {
			fn(strconv.AppendInt(tmp[:0], v, 10))
		}
	} else {
		i := 0
		s.Range(func(m []byte) bool {
			if picked[i] {
				fn(m)
			}
			i++
			return true
		})
	}
	s.compact(picked)
}

// compact drops the members of a small encoding whose index is marked.
func (s *Set) compact(drop []bool) {
	out := s.buf[:0]
	if s.enc == intset {
		w := int(s.width)
		for i, d := range drop {
			if !d {
				out = append(out, s.buf[i*w:(i+1)*w]...)
			}
		}
	} else {
		off := 0
		for _, d := range drop {
			end := off + 1 + int(s.buf[off])
			if !d {
				out = append(out, s.buf[off:end]...)
			}
			off = end
		}
	}
	kept := 0
	for _, d := range drop {
		if !d {
			kept++
		}
	}
	s.buf, s.n = out, int32(kept)
}

// MakeIntset converts the set to an intset if every member is an integer
// and there are few enough (Redis does this for SINTERSTORE's result).
func (s *Set) MakeIntset() {
	if s.enc == intset || s.Len() > maxIntsetEntries {
		return
	}
	ints := make([]int64, 0, s.Len())
	ok := true
	s.Range(func(m []byte) bool {
		var v int64
		v, ok = intstr.Parse(m)
		ints = append(ints, v)
		return ok
	})
	if !ok {
		return
	}
	slices.Sort(ints)
	w := uint8(2)
	if len(ints) > 0 {
		w = max(widthFor(ints[0]), widthFor(ints[len(ints)-1]))
	}
	buf := make([]byte, len(ints)*int(w))
	for i, v := range ints {
		putInt(buf[i*int(w):], w, v)
	}
	*s = Set{enc: intset, buf: buf, n: int32(len(ints)), width: w}
}

// Clone returns a deep copy in the same encoding (for COPY).
func (s *Set) Clone() any {
	c := *s
	if s.enc == hashtable {
		c.d = dict.New[struct{}](s.d.Len())
		s.d.Range(func(k string, _ struct{}) bool {
			c.d.Set(k, struct{}{}) // strings are immutable: share the bytes
			return true
		})
		return &c
	}
	c.buf = slices.Clone(s.buf)
	return &c
}

// toHashtable converts a small encoding to a hashtable sized for hint.
func (s *Set) toHashtable(hint int) {
	d := dict.New[struct{}](max(hint, int(s.n)))
	s.Range(func(m []byte) bool {
		d.Set(string(m), struct{}{})
		return true
	})
	*s = Set{enc: hashtable, d: d}
}

// intToListpack rewrites the intset as a listpack in ascending order, as
// Redis's conversion does.
func (s *Set) intToListpack() {
	buf := make([]byte, 0, int(s.n)*8+maxListpackValue+1)
	var tmp [20]byte
	for i := range int(s.n) {
		m := strconv.AppendInt(tmp[:0], s.intAt(i), 10)
		buf = append(buf, byte(len(m)))
		buf = append(buf, m...)
	}
	s.buf, s.enc, s.width = buf, listpack, 0
}

// intset

func widthFor(v int64) uint8 {
	switch {
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 2
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 4
	}
	return 8
}

func putInt(b []byte, w uint8, v int64) {
	switch w {
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, uint64(v))
	}
}

func (s *Set) intAt(i int) int64 {
	switch s.width {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(s.buf[2*i:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(s.buf[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(s.buf[8*i:]))
}

// intSearch returns v's index, or the index it would be inserted at.
func (s *Set) intSearch(v int64) (int, bool) {
	lo, hi := 0, int(s.n)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.intAt(m) < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < int(s.n) && s.intAt(lo) == v
}

func (s *Set) intAdd(v int64) bool {
	if w := widthFor(v); w > s.width {
		s.widen(w)
	}
	i, found := s.intSearch(v)
	if found {
		return false
	}
	w := int(s.width)
	s.buf = slices.Grow(s.buf, w)[:len(s.buf)+w]
	copy(s.buf[(i+1)*w:], s.buf[i*w:])
	putInt(s.buf[i*w:], s.width, v)
	s.n++
	return true
}

// widen re-encodes every integer at width w (Redis's intset upgrade; it
// never narrows again).
func (s *Set) widen(w uint8) {
	buf := make([]byte, (int(s.n)+1)*int(w))[:int(s.n)*int(w)]
	for i := range int(s.n) {
		putInt(buf[i*int(w):], w, s.intAt(i))
	}
	s.buf, s.width = buf, w
}

func (s *Set) intDelete(i int) {
	w := int(s.width)
	s.buf = append(s.buf[:i*w], s.buf[(i+1)*w:]...)
	s.n--
}

// listpack

func (s *Set) lpFind(m []byte) int {
	for off := 0; off < len(s.buf); {
		l := int(s.buf[off])
		if l == len(m) && string(s.buf[off+1:off+1+l]) == string(m) {
			return off
		}
		off += 1 + l
	}
	return -1
}

func (s *Set) lpAppend(m []byte) {
	s.buf = append(append(s.buf, byte(len(m))), m...)
	s.n++
}

func (s *Set) lpDelete(off int) {
	s.buf = append(s.buf[:off], s.buf[off+1+int(s.buf[off]):]...)
	s.n--
}

func (s *Set) lpEntry(off int) []byte { return s.buf[off+1 : off+1+int(s.buf[off])] }

// lpOffset returns the offset of the i-th entry.
func (s *Set) lpOffset(i int) int {
	off := 0
	for ; i > 0; i-- {
		off += 1 + int(s.buf[off])
	}
	return off
}

// lpOffsets indexes the entries, for repeated random access.
func (s *Set) lpOffsets() []int {
	offs := make([]int, 0, s.n)
	for off := 0; off < len(s.buf); off += 1 + int(s.buf[off]) {
		offs = append(offs, off)
	}
	return offs
}

// helpers

// view is b as a string without copying, for lookups that do not keep it.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// bytesOf is a read-only view of a dict key's bytes.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// runtimeSource feeds dict.Random from the runtime's per-thread generator,
// which is safe for concurrent use (sets in different shards are used in
// parallel).
type runtimeSource struct{}

func (runtimeSource) Uint64() uint64 { return rand.Uint64() }

var rng = rand.New(runtimeSource{})
