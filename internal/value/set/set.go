// Package set is the value of a Redis set. Like Redis it has three
// encodings and converts between them at the thresholds of Redis's
// set-max-intset-entries, set-max-listpack-entries and
// set-max-listpack-value (see SetThresholds), so that OBJECT ENCODING and the
// reply order of small sets match Redis:
//
//   - intset: every member is an integer and there are at most
//     set-max-intset-entries (512). The integers are kept sorted in a byte
//     array at the narrowest width (2, 4 or 8 bytes) that holds them all;
//     replies list them in ascending order.
//   - listpack: at most set-max-listpack-entries (128) members of at most
//     set-max-listpack-value (64) bytes each, packed one after another (a
//     uvarint length, then the bytes) in insertion order.
//   - hashtable: a dict.Dict, which gives incremental SCAN and uniform random
//     picks for sets of any size.
//
// As in Redis, a set converts when a write takes it past a threshold and
// never converts back because the thresholds changed afterwards.
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
	"sync/atomic"
	"unsafe"

	"github.com/hotkv/hotkv/internal/intstr"
	"github.com/hotkv/hotkv/internal/value/dict"
)

// Redis's defaults for set-max-intset-entries, set-max-listpack-entries and
// set-max-listpack-value.
const (
	DefaultIntsetEntries   = 512
	DefaultListpackEntries = 128
	DefaultListpackValue   = 64
)

// The thresholds in force: process-wide, as Redis's, read with atomic loads
// on every write that may convert a set (SetThresholds sets them).
var maxIntsetEntries, maxListpackEntries, maxListpackValue atomic.Int64

func init() { SetThresholds(DefaultIntsetEntries, DefaultListpackEntries, DefaultListpackValue) }

// SetThresholds sets set-max-intset-entries, set-max-listpack-entries and
// set-max-listpack-value (each 0 to 2^63-1). Sets already past a new
// threshold keep their encoding; they convert at their next write that
// crosses one.
func SetThresholds(intsetEntries, listpackEntries, listpackValue int64) {
	maxIntsetEntries.Store(intsetEntries)
	maxListpackEntries.Store(listpackEntries)
	maxListpackValue.Store(listpackValue)
}

// intsetCap is the most members an intset keeps: set-max-intset-entries,
// at most 2^30 (Redis's intsetMaxEntries).
func intsetCap() int64 { return min(maxIntsetEntries.Load(), 1<<30) }

// lpSafetyBytes is Redis's LISTPACK_MAX_SAFETY_SIZE: a listpack does not
// grow past 1 GB whatever the thresholds say.
const lpSafetyBytes = 1 << 30

// listpackTakes reports whether a listpack of n members in size bytes takes
// a new member of l bytes.
func listpackTakes(n int32, size, l int) bool {
	return int64(n) < maxListpackEntries.Load() && int64(l) <= maxListpackValue.Load() && size+l <= lpSafetyBytes
}

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
	long  bool // listpack: some member's length took more than one byte
}

// New returns an empty set in the encoding Redis chooses for a key created
// with first as its first member and about hint members to come.
func New(first []byte, hint int) *Set {
	if _, ok := intstr.Parse(first); ok && int64(hint) <= maxIntsetEntries.Load() {
		return NewIntset()
	}
	if int64(hint) <= maxListpackEntries.Load() {
		return NewListpack()
	}
	return NewHashtable(hint)
}

// NewLoading returns an empty set for n members read from a payload that
// lists them one by one (RDB_TYPE_SET), as Redis's loader starts it: a
// hashtable past set-max-intset-entries, else an intset that Add converts
// as the members come.
func NewLoading(n int) *Set {
	if int64(n) > intsetCap() {
		return NewHashtable(n)
	}
	return NewIntset()
}

// FromListpack returns the set of members loaded from a listpack payload:
// a listpack, or a hashtable when there are more than
// set-max-listpack-entries (Redis checks only the count: a member longer
// than set-max-listpack-value stays in the listpack). ok is false when a
// member repeats.
func FromListpack(members [][]byte) (s *Set, ok bool) {
	s = NewListpack()
	for _, m := range members {
		if s.lpFind(m) >= 0 {
			return nil, false
		}
		s.lpAppend(m)
	}
	if int64(s.n) > maxListpackEntries.Load() {
		s.toHashtable(int(s.n))
	}
	return s, true
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

// Chains calls fn with each bucket chain's length of a hashtable set's
// table (DEBUG HTSTATS-KEY), and reports false for the other encodings.
func (s *Set) Chains(fn func(n int)) bool {
	if s.enc != hashtable {
		return false
	}
	s.d.Chains(fn)
	return true
}

// IsIntset reports whether the set is intset-encoded.
func (s *Set) IsIntset() bool { return s.enc == intset }

// Reserve converts a small set to a hashtable when hint members are about to
// be added and would not fit its encoding, as Redis does on SADD even if the
// members turn out to be present already.
func (s *Set) Reserve(hint int) {
	switch s.enc {
	case listpack:
		if int64(hint) > maxListpackEntries.Load() {
			s.toHashtable(hint)
		}
	case intset:
		if int64(hint) > maxIntsetEntries.Load() {
			s.toHashtable(hint)
		}
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
			if int64(s.n) > intsetCap() {
				s.toHashtable(int(s.n))
			}
			return true
		}
		// Not an integer, so certainly new: the set changes encoding, to a
		// listpack if the longest integer (as text) would fit one too.
		if d := s.intDigits(); listpackTakes(s.n, int(s.n)*(d+1), len(m)) && int64(d) <= maxListpackValue.Load() {
			s.intToListpack(len(m))
			s.lpAppend(m)
			return true
		}
		s.toHashtable(int(s.n) + 1)
	case listpack:
		if s.lpFind(m) >= 0 {
			return false
		}
		if listpackTakes(s.n, len(s.buf), len(m)) {
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
			l, h := s.lpHeader(off)
			if !fn(s.buf[off+h : off+h+l]) {
				return
			}
			off += h + l
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
			l, h := s.lpHeader(off)
			end := off + h + l
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
	if s.enc == intset || int64(s.Len()) > intsetCap() {
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
// Redis's conversion does, with room for a member of extra bytes.
func (s *Set) intToListpack(extra int) {
	buf := make([]byte, 0, int(s.n)*(1+s.intDigits())+binary.MaxVarintLen64+extra)
	var tmp [20]byte
	for i := range int(s.n) {
		buf = appendMember(buf, strconv.AppendInt(tmp[:0], s.intAt(i), 10))
	}
	s.buf, s.enc, s.width = buf, listpack, 0
}

// intDigits is the length of the intset's longest integer as text (its
// smallest or its largest), 0 when it is empty: Redis's maxelelen.
func (s *Set) intDigits() int {
	if s.n == 0 {
		return 0
	}
	return max(digits(s.intAt(0)), digits(s.intAt(int(s.n)-1)))
}

// digits is the length of v in decimal, its sign included.
func digits(v int64) int {
	n := 1
	if v < 0 {
		n++
	}
	for u := v; u <= -10 || u >= 10; u /= 10 {
		n++
	}
	return n
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

// listpack: each member is its length as a uvarint (one byte up to 127,
// which set-max-listpack-value's default keeps to), then its bytes.

// lpHeader reads the length of the member at off and the bytes its length
// takes.
func (s *Set) lpHeader(off int) (l, h int) {
	if b := s.buf[off]; b < 0x80 {
		return int(b), 1
	}
	v, h := binary.Uvarint(s.buf[off:])
	return int(v), h
}

func (s *Set) lpFind(m []byte) int {
	if s.long {
		for off := 0; off < len(s.buf); {
			l, h := s.lpHeader(off)
			if l == len(m) && string(s.buf[off+h:off+h+l]) == string(m) {
				return off
			}
			off += h + l
		}
		return -1
	}
	for off := 0; off < len(s.buf); { // every length is one byte
		l := int(s.buf[off])
		if l == len(m) && string(s.buf[off+1:off+1+l]) == string(m) {
			return off
		}
		off += 1 + l
	}
	return -1
}

func appendMember(b, m []byte) []byte {
	if len(m) < 0x80 {
		b = append(b, byte(len(m)))
	} else {
		b = binary.AppendUvarint(b, uint64(len(m)))
	}
	return append(b, m...)
}

func (s *Set) lpAppend(m []byte) {
	s.buf = appendMember(s.buf, m)
	s.long = s.long || len(m) >= 0x80
	s.n++
}

func (s *Set) lpDelete(off int) {
	l, h := s.lpHeader(off)
	s.buf = append(s.buf[:off], s.buf[off+h+l:]...)
	s.n--
}

func (s *Set) lpEntry(off int) []byte {
	l, h := s.lpHeader(off)
	return s.buf[off+h : off+h+l]
}

// lpOffset returns the offset of the i-th entry.
func (s *Set) lpOffset(i int) int {
	off := 0
	for ; i > 0; i-- {
		l, h := s.lpHeader(off)
		off += h + l
	}
	return off
}

// lpOffsets indexes the entries, for repeated random access.
func (s *Set) lpOffsets() []int {
	offs := make([]int, 0, s.n)
	for off := 0; off < len(s.buf); {
		offs = append(offs, off)
		l, h := s.lpHeader(off)
		off += h + l
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
