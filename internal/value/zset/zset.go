// Package zset is the sorted set value: an order-statistics B+tree of
// (score, member) items for ranks, ranges and random picks in O(log n),
// beside a dict from member to score for O(1) lookups and ZSCAN's cursor.
// Members are stored once: the tree's items and the dict's keys share the
// bytes.
package zset

import (
	"math"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/value/dict"
)

// Redis's default zset-max-listpack-entries and zset-max-listpack-value: a
// set within both is reported as "listpack", otherwise "skiplist".
const (
	DefaultListpackEntries = 128
	DefaultListpackValue   = 64
)

// The thresholds in force: process-wide, as Redis's, read with atomic loads
// when a set may convert (SetThresholds sets them).
var maxListpackEntries, maxListpackValue atomic.Int64

func init() { SetThresholds(DefaultListpackEntries, DefaultListpackValue) }

// SetThresholds sets zset-max-listpack-entries and zset-max-listpack-value
// (each 0 to 2^63-1). Sets already past a new threshold keep their
// encoding; a listpack set converts at its next insertion that crosses one.
func SetThresholds(entries, value int64) {
	maxListpackEntries.Store(entries)
	maxListpackValue.Store(value)
}

// fitsListpack reports whether n members, the longest of maxLen bytes, are
// within the thresholds.
func fitsListpack(n, maxLen int) bool {
	return int64(n) <= maxListpackEntries.Load() && int64(maxLen) <= maxListpackValue.Load()
}

// ZSet is a sorted set. The zero value is not usable: call New.
type ZSet struct {
	dict *dict.Dict[float64]
	tree tree
	// big is Redis's encoding switch: once a set has outgrown the listpack
	// limits it stays a skiplist (Redis converts back only when a command
	// builds a new set, see Fit).
	big bool
}

// New returns an empty set; hint (elements expected) and maxLen (longest
// member expected) pick the initial encoding as Redis's zsetTypeCreate does.
func New(hint, maxLen int) *ZSet {
	return &ZSet{dict: dict.New[float64](min(hint, 1024)), big: !fitsListpack(hint, maxLen)}
}

// Len is the number of members.
func (z *ZSet) Len() int { return z.dict.Len() }

// PrefetchMember is dict.Dict.Prefetch for member.
func (z *ZSet) PrefetchMember(member []byte, step int, h *uint32) bool {
	return z.dict.Prefetch(member, step, h)
}

// Score returns member's score.
func (z *ZSet) Score(member string) (float64, bool) { return z.dict.Get(member) }

// Set adds member with score or moves it to score, and reports whether it
// was new. A new member is kept: it must not then alias a request buffer (a
// string(bytes) conversion is a copy); moving one keeps the stored string.
func (z *ZSet) Set(member string, score float64) bool {
	key, ref := z.dict.Lookup(member)
	if ref == nil && !z.big && !fitsListpack(z.dict.Len()+1, len(member)) {
		z.big = true // Redis converts before inserting the member that does not fit
	}
	if score == 0 && !z.big {
		score = 0 // a listpack stores -0 as the integer 0, so Redis answers 0
	}
	if ref != nil {
		old := *ref
		if old == score { // as Redis: -0 does not replace 0
			return false
		}
		*ref = score
		z.tree.remove(item{old, key}) // the dict's string is the tree's
		z.tree.insert(item{score, key})
		return false
	}
	z.dict.Set(member, score)
	z.tree.insert(item{score, member})
	return true
}

// Remove deletes member and reports whether it was present.
func (z *ZSet) Remove(member string) bool {
	score, ok := z.dict.Get(member)
	if !ok {
		return false
	}
	z.tree.remove(item{score, member})
	z.dict.Delete(member)
	return true
}

// Rank returns member's 0-based rank in ascending order and its score.
func (z *ZSet) Rank(member string) (int, float64, bool) {
	score, ok := z.dict.Get(member)
	if !ok {
		return 0, 0, false
	}
	r, _ := z.tree.seek(func(it item) bool { return !less(it, item{score, member}) })
	return r, score, true
}

// Iter walks the set in order from a position.
type Iter struct{ p pos }

// Valid reports whether the iterator is on an element.
func (it *Iter) Valid() bool { return it.p.valid() }

// Member and Score read the current element. The member string is the
// set's own: valid until the set is modified.
func (it *Iter) Member() string { return it.p.item().member }

// Score is the current element's score.
func (it *Iter) Score() float64 { return it.p.item().score }

// Next moves to the next element in ascending order.
func (it *Iter) Next() { it.p = it.p.next() }

// Prev moves to the previous element.
func (it *Iter) Prev() { it.p = it.p.prev() }

// At returns an iterator on the element of rank r (0 <= r < Len).
func (z *ZSet) At(r int) Iter { return Iter{z.tree.at(r)} }

// Bounds returns the rank range [first, last] of the elements within r,
// found from the low end (or from the high end when rev); first > last when
// none is.
func (z *ZSet) Bounds(r Range, rev bool) (first, last int) {
	if r.lex && !z.big {
		return z.lexWalk(&r, rev)
	}
	first, _ = z.tree.seek(r.aboveMin)
	end, _ := z.tree.seek(r.aboveMax)
	return first, end - 1
}

// lexWalk finds a lex range as Redis does in a listpack: walking from one
// end to the first element past the near bound, then on while elements are
// within the far one. On members in lexicographic order (the documented use:
// equal scores) this is what the binary search finds; with mixed scores the
// answer is Redis's (deterministic for listpacks, where HotKV matches it).
func (z *ZSet) lexWalk(r *Range, rev bool) (int, int) {
	n := z.Len()
	if n == 0 || r.lexEmpty() || !r.aboveMin(z.At(n-1).p.item()) || r.aboveMax(z.At(0).p.item()) {
		return 0, -1
	}
	if rev {
		i, it := n-1, z.At(n-1)
		for it.Valid() && r.aboveMax(it.p.item()) {
			i, it.p = i-1, it.p.prev()
		}
		if !it.Valid() || !r.aboveMin(it.p.item()) {
			return 0, -1
		}
		last := i
		for it.Valid() && r.aboveMin(it.p.item()) {
			i, it.p = i-1, it.p.prev()
		}
		return i + 1, last
	}
	i, it := 0, z.At(0)
	for it.Valid() && !r.aboveMin(it.p.item()) {
		i, it.p = i+1, it.p.next()
	}
	if !it.Valid() || r.aboveMax(it.p.item()) {
		return 0, -1
	}
	first := i
	for it.Valid() && !r.aboveMax(it.p.item()) {
		i, it.p = i+1, it.p.next()
	}
	return first, i - 1
}

// Slice returns the ranks [lo, hi] (lo > hi: none) that a range query with
// LIMIT offset count (count < 0: no limit) answers, walking up from the low
// end of r or down from the high end when rev. Negative offsets follow
// Redis's encodings, which disagree: a listpack answers nothing, a skiplist
// (zslNthInRange) counts the offset from the other end of the range.
func (z *ZSet) Slice(r Range, rev bool, offset, count int64) (lo, hi int) {
	if count >= 0 && count <= 256 && offset >= 0 && !(r.lex && !z.big) {
		return z.sliceShort(&r, rev, offset, count)
	}
	first, last := z.Bounds(r, rev)
	if first > last || count == 0 {
		return 0, -1
	}
	n := int64(z.Len())
	f, l := int64(first), int64(last)
	var start int64
	switch {
	case !z.big && offset < 0:
		return 0, -1
	case !z.big && rev:
		start = l - offset
	case !z.big:
		start = f + offset
	case rev && offset < 0:
		start = f - offset - 1
	case rev:
		start = l - offset
	case offset >= 0:
		start = f + offset
	default:
		start = l + 1 + offset
	}
	if start < 0 || start >= n {
		return 0, -1
	}
	if r.lex && !z.big {
		// Redis skips the offset blindly and then takes elements while
		// they are within the far bound, which on a listpack with mixed
		// scores may lead outside [first, last].
		it, end := z.At(int(start)), start
		for it.Valid() && count != 0 {
			if (rev && !r.aboveMin(it.p.item())) || (!rev && r.aboveMax(it.p.item())) {
				break
			}
			count--
			if rev {
				end--
				it.Prev()
			} else {
				end++
				it.Next()
			}
		}
		if rev {
			return int(end + 1), int(start)
		}
		return int(start), int(end - 1)
	}
	if start < f || start > l {
		return 0, -1
	}
	if rev {
		end := f
		if count > 0 && count-1 < start-f {
			end = start - count + 1
		}
		return int(end), int(start)
	}
	end := l
	if count > 0 && count-1 < l-start { // not start+count: count may be near MaxInt64
		end = start + count - 1
	}
	return int(start), int(end)
}

// sliceShort is Slice for a short LIMIT with an offset >= 0, where every
// encoding agrees: one search for the near end of the range, then a walk of
// at most count elements instead of a second search for the far end.
func (z *ZSet) sliceShort(r *Range, rev bool, offset, count int64) (int, int) {
	n := z.Len()
	if count == 0 || n == 0 {
		return 0, -1
	}
	var start int
	var p pos
	if rev {
		end, _ := z.tree.seek(r.aboveMax)
		start = end - 1 - int(min(offset, int64(n)))
	} else {
		first, q := z.tree.seek(r.aboveMin)
		start = first + int(min(offset, int64(n)))
		if start < n && offset < 16 { // step from the search's position rather than search again
			for range offset {
				q = q.next()
			}
			p = q
		}
	}
	if start < 0 || start >= n {
		return 0, -1
	}
	if !p.valid() {
		p = z.tree.at(start)
	}
	it, i := Iter{p}, start
	for it.Valid() && count > 0 {
		if rev && !r.aboveMin(it.p.item()) || !rev && r.aboveMax(it.p.item()) {
			break
		}
		count--
		if rev {
			i--
			it.Prev()
		} else {
			i++
			it.Next()
		}
	}
	if rev {
		return i + 1, start
	}
	return start, i - 1
}

// Count is the number of elements within r.
func (z *ZSet) Count(r Range) int {
	f, l := z.Bounds(r, false)
	return max(0, l-f+1)
}

// Scan continues a ZSCAN at cursor (see dict.Scan).
func (z *ZSet) Scan(cursor uint64, count int, fn func(member string, score float64)) uint64 {
	return z.dict.Scan(cursor, count, fn)
}

// Listpack reports whether Redis would hold this set as a listpack (its
// SCAN then returns everything at once, in order).
func (z *ZSet) Listpack() bool { return !z.big }

// Encoding is what OBJECT ENCODING reports.
func (z *ZSet) Encoding() string {
	if z.big {
		return "skiplist"
	}
	return "listpack"
}

// Chains calls fn with each bucket chain's length of a skiplist set's
// member table (DEBUG HTSTATS-KEY), and reports false for a listpack, which
// Redis keeps in no table.
func (z *ZSet) Chains(fn func(n int)) bool {
	if !z.big {
		return false
	}
	z.dict.Chains(fn)
	return true
}

// ToSkiplist makes the set report Redis's skiplist encoding from now on,
// as SORT leaves a listpack set it sorted (Redis converts it in place).
func (z *ZSet) ToSkiplist() { z.big = true }

// Fit picks the encoding a newly built set gets in Redis (ZUNIONSTORE,
// ZRANGESTORE...): listpack if it is within the limits.
func (z *ZSet) Fit() {
	if !fitsListpack(z.Len(), 0) {
		z.big = true
		return
	}
	z.big = false
	for p := z.first(); p.valid(); p = p.next() {
		if !fitsListpack(0, len(p.item().member)) {
			z.big = true
			return
		}
	}
	z.normalizeZeros()
}

// FitCount picks the encoding of a set loaded from a listpack payload
// (RESTORE): Redis checks only its count, so a member longer than
// zset-max-listpack-value stays in the listpack.
func (z *ZSet) FitCount() {
	z.big = !fitsListpack(z.Len(), 0)
	if !z.big {
		z.normalizeZeros()
	}
}

func (z *ZSet) normalizeZeros() {
	for p := z.first(); p.valid(); p = p.next() {
		if it := &p.n.items[p.i]; it.score == 0 && math.Signbit(it.score) {
			it.score = 0
			z.dict.Set(it.member, 0)
		}
	}
	// Inner nodes may still hold -0 as a child's maximum; -0 == 0 compares
	// equal, so the order is unaffected.
}

func (z *ZSet) first() pos {
	if z.tree.root == nil {
		return pos{}
	}
	return z.tree.at(0)
}

// Clone is a deep copy (COPY).
func (z *ZSet) Clone() any {
	items := make([]item, 0, z.Len())
	for p := z.first(); p.valid(); p = p.next() {
		items = append(items, p.item())
	}
	c := &ZSet{dict: dict.New[float64](len(items)), big: z.big}
	for _, it := range items {
		c.dict.Set(it.member, it.score) // strings are immutable: sharing bytes is safe
	}
	c.tree = build(items)
	return c
}

// FromRange builds ZRANGESTORE's result from members and scores in (score,
// member) order, as Redis builds it: by inserting the range's elements one
// by one, in the range's direction (descending when rev), into a set that
// starts as a listpack if it is to hold at most zset-max-listpack-entries
// members. A listpack stores -0 as 0 until a member longer than
// zset-max-listpack-value turns it into a skiplist, so the zeros inserted
// before that member lose their sign and the ones after keep it. The scores
// slice is modified.
func FromRange(members []string, scores []float64, rev bool) *ZSet {
	if n := len(members); fitsListpack(n, 0) {
		for k := range n {
			i := k
			if rev {
				i = n - 1 - k
			}
			if !fitsListpack(0, len(members[i])) {
				break
			}
			if scores[i] == 0 {
				scores[i] = 0 // drops the sign of -0
			}
		}
	}
	return FromSorted(members, scores)
}

// FromSorted builds a set from members and scores already in (score,
// member) order without duplicates, with the encoding Fit would pick.
func FromSorted(members []string, scores []float64) *ZSet {
	items := make([]item, len(members))
	z := &ZSet{dict: dict.New[float64](len(members))}
	for i, m := range members {
		items[i] = item{scores[i], m}
		z.dict.Set(m, scores[i])
	}
	z.tree = build(items)
	z.Fit()
	return z
}
