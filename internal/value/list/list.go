// Package list is the value behind Redis lists: a deque of chunks, each chunk
// holding its elements packed into one byte buffer plus an offset array. Pushes
// and pops at either end are O(1) amortized (a chunk keeps free room on the side
// it grows), index access walks chunks from the nearer end, and a list costs
// the garbage collector two pointer-free buffers per chunk rather than one
// pointer per element.
//
// The chunks are Redis's own layout, so that OBJECT ENCODING, DUMP and the
// conversions between encodings follow Redis with any list-max-listpack-size
// (see SetFill): a list Redis keeps as one listpack is one chunk, and a
// quicklist has one chunk per quicklist node, filled, split, merged and
// dropped as Redis's quicklist.c does (a "plain" chunk is a node holding one
// element too large for a listpack node).
//
// Slices returned by Index, Pop and the iterators alias the list's buffers:
// they are valid until the list is next modified.
package list

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/value/listpack"
)

// DefaultFill is Redis's default list-max-listpack-size: listpacks and
// quicklist nodes of at most 8 KB.
const DefaultFill = -2

// server is list-max-listpack-size's rule: process-wide, as Redis's, read
// with an atomic load when a list may convert (SetFill sets it).
var server atomic.Pointer[rule]

// rule is what a list-max-listpack-size implies.
type rule struct {
	lim limits // on a listpack (quicklistNodeExceedsLimit)
	// node is the limits of a quicklist created now: the fill it keeps is
	// clamped to -5..32767 (quicklistSetFill), and is fill.
	node limits
	fill int16
	// A quicklist converts back to a listpack when it is one node of at
	// most size bytes and count entries (quicklistNodeLimit, one of them
	// unbounded), halved when it converts because it shrank.
	size, count int
}

func init() { SetFill(DefaultFill) }

// SetFill sets list-max-listpack-size. A negative fill bounds a listpack
// (and a quicklist node) by its bytes: -1 to -5 are 4, 8, 16, 32 and 64
// KB, lower values 64 KB. A positive one bounds it by entries (0 counts as
// 1), within 8 KB. Lists convert at their next write that crosses the new
// limit; a quicklist keeps filling its nodes with the fill it was created
// with, as in Redis.
func SetFill(fill int64) {
	clamped := min(max(fill, fillMin), fillMax)
	r := &rule{lim: limitsOf(fill), node: limitsOf(clamped), fill: int16(clamped)}
	r.size, r.count = math.MaxInt, int(max(fill, 1))
	if fill < 0 {
		r.size, r.count = r.lim.size, math.MaxInt
	}
	server.Store(r)
}

// Redis's quicklist constants (quicklist.c).
const (
	lpHeader             = listpack.Header
	sizeSafetyLimit      = 8192 // SIZE_SAFETY_LIMIT: the bytes a node of a positive fill holds at most
	sizeEstimateOverhead = 8    // SIZE_ESTIMATE_OVERHEAD: added to an element's size when it joins a node
	fillMax              = 1<<15 - 1
	fillMin              = -5
)

// optimizationLevel is the size bound of fill -1 to -5.
var optimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

// limits bound a listpack or quicklist node under a fill: a negative fill
// by its size class, a positive one by its entries within
// SIZE_SAFETY_LIMIT bytes. An element larger than size is "large" and gets
// a plain node of its own (isLargeElement).
type limits struct{ size, count int }

func limitsOf(fill int64) limits {
	if fill >= 0 {
		return limits{sizeSafetyLimit, int(max(fill, 1))}
	}
	return limits{optimizationLevel[min(-fill-1, int64(len(optimizationLevel)-1))], math.MaxInt}
}

// exceeds is quicklistNodeExceedsLimit: whether sz bytes in count entries
// are past the limits.
func (m limits) exceeds(sz, count int) bool { return sz > m.size || count > m.count }

// packedThreshold is DEBUG QUICKLIST-PACKED-THRESHOLD's size: when not 0,
// an element of at least that many bytes is large whatever the fill, as
// with Redis's packed_threshold (process-wide too).
var packedThreshold atomic.Uint64

// SetPackedThreshold sets the size from which an element gets a plain
// quicklist node of its own; 0 restores the fill's bound. It refuses, as
// Redis does, a size above 4 GB - 1 MB.
func SetPackedThreshold(sz uint64) bool {
	if sz > 1<<32-1<<20 {
		return false
	}
	packedThreshold.Store(sz)
	return true
}

// large is isLargeElement.
func (m limits) large(sz int) bool {
	if t := packedThreshold.Load(); t != 0 {
		return uint64(sz) >= t
	}
	return sz > m.size
}

// room bounds the room a chunk grows by (what a node holds at most), so
// that a full chunk is not left with twice the room it needs.
func (m limits) room() (bytes, elems int) { return m.size, min(m.count, m.size/2) }

// chunk holds consecutive elements. Element bytes live in buf[lo:hi] in list
// order; off[a:b] are their start offsets in buf (an element ends where the
// next begins, the last at hi). Free room before lo/a and after hi/b lets
// either end grow without moving data.
type chunk struct {
	buf    []byte
	off    []uint32
	lo, hi int
	a, b   int
	lp     int  // listpack bytes of the elements, see entrySize
	plain  bool // a quicklist plain node: one large element
}

func (c *chunk) n() int     { return c.b - c.a }
func (c *chunk) bytes() int { return c.hi - c.lo }

// size is the node's size as Redis counts it (quicklistNode.sz): its
// listpack's bytes, or a plain node's element bytes.
func (c *chunk) size() int {
	if c.plain {
		return c.bytes()
	}
	return lpHeader + c.lp
}

func (c *chunk) get(i int) []byte {
	i += c.a
	s, e := int(c.off[i]), c.hi
	if i+1 < c.b {
		e = int(c.off[i+1])
	}
	return c.buf[s:e:e]
}

// allowInsert is _quicklistNodeAllowInsert: whether an element of sz bytes
// may join node c.
func (m limits) allowInsert(c *chunk, sz int) bool {
	return c != nil && !c.plain && !m.large(sz) && lpHeader+c.lp+sz+sizeEstimateOverhead <= m.size && c.n() < m.count
}

// allowMerge is _quicklistNodeAllowMerge.
func (m limits) allowMerge(a, b *chunk) bool {
	if a == nil || b == nil || a.plain || b.plain {
		return false
	}
	return !m.exceeds(a.size()+b.size()-lpHeader, a.n()+b.n())
}

// regrow copies c into fresh buffers with at least needBytes/needElems free
// at the front (front) or back, doubling what it holds so pushes stay O(1)
// amortized, but not past maxBytes/maxElems (what a node usually holds),
// which a full chunk then fills exactly. A chunk that outgrows them (a
// node's bound is on its listpack bytes, which integers take fewer of than
// their digits) grows by half.
func (c *chunk) regrow(front bool, needBytes, needElems, maxBytes, maxElems int) {
	size, n := c.bytes(), c.n()
	roomB := min(max(size, 16), maxBytes-size)
	if roomB < needBytes {
		roomB = max(needBytes, size/2)
	}
	roomE := min(max(n, 4), maxElems-n)
	if roomE < needElems {
		roomE = max(needElems, n/2)
	}
	buf := make([]byte, size+roomB)
	off := make([]uint32, n+roomE)
	lo, a := 0, 0
	if front {
		lo, a = roomB, roomE
	}
	copy(buf[lo:], c.buf[c.lo:c.hi])
	shift := lo - c.lo
	for i := 0; i < n; i++ {
		off[a+i] = uint32(int(c.off[c.a+i]) + shift)
	}
	c.buf, c.off = buf, off
	c.lo, c.hi, c.a, c.b = lo, lo+size, a, a+n
}

// pushBack appends v, growing within m's node bounds.
func (c *chunk) pushBack(v []byte, m limits) {
	if c.hi+len(v) > len(c.buf) || c.b == len(c.off) {
		mb, me := m.room()
		c.regrow(false, len(v), 1, mb, me)
	}
	c.off[c.b] = uint32(c.hi)
	c.b++
	c.hi += copy(c.buf[c.hi:], v)
	c.lp += entrySize(v)
}

// pushFront prepends v, growing within m's node bounds.
func (c *chunk) pushFront(v []byte, m limits) {
	if c.lo < len(v) || c.a == 0 {
		mb, me := m.room()
		c.regrow(true, len(v), 1, mb, me)
	}
	c.lo -= len(v)
	copy(c.buf[c.lo:], v)
	c.a--
	c.off[c.a] = uint32(c.lo)
	c.lp += entrySize(v)
}

// nextTo makes an empty chunk to follow (or precede) the full chunk c, sized
// for as many elements like c's as a node within m takes, so that a long
// list of like elements fills it without regrowing.
func nextTo(c *chunk, front bool, m limits) *chunk {
	if c == nil || c.n() < 2 {
		return &chunk{}
	}
	maxB, maxE := m.room()
	elems := min(max(c.n()*(m.size-lpHeader)/max(c.lp, 1), 1), maxE)
	room := min(elems*c.bytes()/c.n(), 2*maxB)
	n := &chunk{buf: make([]byte, room), off: make([]uint32, elems)}
	if front {
		n.lo, n.hi, n.a, n.b = room, room, elems, elems
	}
	return n
}

func (c *chunk) popFront() []byte {
	v := c.get(0)
	c.a++
	if c.a < c.b {
		c.lo = int(c.off[c.a])
	} else {
		c.lo = c.hi
	}
	c.lp -= entrySize(v)
	return v
}

func (c *chunk) popBack() []byte {
	v := c.get(c.n() - 1)
	c.b--
	c.hi = int(c.off[c.b])
	c.lp -= entrySize(v)
	return v
}

// newChunk packs vals into one exactly sized chunk.
func newChunk(vals [][]byte) *chunk {
	size := 0
	for _, v := range vals {
		size += len(v)
	}
	c := &chunk{buf: make([]byte, size), off: make([]uint32, len(vals)), b: len(vals), hi: size}
	p := 0
	for i, v := range vals {
		c.off[i] = uint32(p)
		p += copy(c.buf[p:], v)
		c.lp += entrySize(v)
	}
	return c
}

// plainChunk is a plain node holding v.
func plainChunk(v []byte) *chunk {
	c := newChunk([][]byte{v})
	c.plain = true
	return c
}

// all lists c's elements (aliasing c's buffer).
func (c *chunk) all() [][]byte {
	vals := make([][]byte, c.n())
	for k := range vals {
		vals[k] = c.get(k)
	}
	return vals
}

// with returns a chunk of c's elements with v replacing element j (del
// false, v non-nil), inserted before element j (v non-nil, ins), or element
// j removed (v nil). The result does not share c's buffer.
func (c *chunk) with(j int, v []byte, ins bool) *chunk {
	vals := c.all()
	switch {
	case v == nil:
		vals = slices.Delete(vals, j, j+1)
	case ins:
		vals = slices.Insert(vals, j, v)
	default:
		vals[j] = v
	}
	out := newChunk(vals)
	out.plain = c.plain
	return out
}

// split is _quicklistSplitNode: with after, c keeps elements [0, j] and the
// new chunk gets the rest; without, the new chunk gets [0, j) and c keeps
// the rest. It returns what c keeps and the new chunk.
func (c *chunk) split(j int, after bool) (keep, other *chunk) {
	vals := c.all()
	if after {
		return newChunk(vals[:j+1]), newChunk(vals[j+1:])
	}
	return newChunk(vals[j:]), newChunk(vals[:j])
}

// List is a Redis list. The zero value is an empty list.
type List struct {
	chunks []*chunk // chunks[first:] in order, none empty
	first  int
	n      int
	quick  bool   // a quicklist: the chunks are its nodes; else at most one chunk, the listpack
	fill   int16  // a quicklist's fill, which node was derived from
	node   limits // a quicklist's node limits, fixed when it became one
}

// New returns an empty list.
func New() *List { return &List{} }

// Len is the number of elements.
func (l *List) Len() int { return l.n }

func (l *List) live() []*chunk { return l.chunks[l.first:] }

// Nodes is the number of chunks: a quicklist's nodes.
func (l *List) Nodes() int { return len(l.live()) }

// at returns chunk i of l.chunks, nil outside the live ones.
func (l *List) at(i int) *chunk {
	if i < l.first || i >= len(l.chunks) {
		return nil
	}
	return l.chunks[i]
}

// PrepareAdd applies Redis's conversion check before vals are added
// (listTypeTryConversionAppend): a listpack that the raw bytes and count of
// vals would take past list-max-listpack-size becomes a quicklist, its
// elements one node. The pushes, Set and Insert call it; LSET and LINSERT
// call it too when they then add nothing (an index out of range, a pivot
// not found), as Redis converts the list all the same.
func (l *List) PrepareAdd(vals ...[]byte) {
	if l.quick {
		return
	}
	add := 0
	for _, v := range vals {
		add += len(v)
	}
	if r := server.Load(); r.lim.exceeds(l.lpBytes()+add, l.n+len(vals)) {
		l.quick, l.node, l.fill = true, r.node, r.fill
	}
}

// lpBytes is the size of the listpack holding a listpack-encoded list.
func (l *List) lpBytes() int {
	if l.n == 0 {
		return lpHeader
	}
	return lpHeader + l.chunks[l.first].lp
}

// Shrink converts a quicklist back to a listpack after removals, as Redis's
// listTypeTryConvertQuicklist does when a list shrinks: only a list of one
// listpack node within half of list-max-listpack-size's limits. The removals
// call it; PopHold leaves it to its caller.
func (l *List) Shrink() { l.tryListpack(true) }

// tryListpack is listTypeTryConvertQuicklist; shrinking halves the limits.
func (l *List) tryListpack(shrinking bool) {
	if !l.quick || l.n == 0 || len(l.chunks)-l.first != 1 {
		return
	}
	c := l.chunks[l.first]
	if c.plain {
		return
	}
	r := server.Load()
	size, count := r.size, r.count
	if shrinking {
		size, count = size/2, count/2
	}
	if c.size() > size || l.n > count {
		return
	}
	l.quick = false
}

// PushBack appends vals in order (RPUSH).
func (l *List) PushBack(vals ...[]byte) {
	l.PrepareAdd(vals...)
	if l.quick {
		for _, v := range vals {
			l.nodePushBack(v)
		}
		return
	}
	if l.n == 0 {
		if len(vals) > 0 {
			l.appendChunk(newChunk(vals)) // a new list gets an exactly sized listpack
			l.n = len(vals)
		}
		return
	}
	c, lim := l.chunks[l.first], server.Load().lim
	for _, v := range vals {
		c.pushBack(v, lim)
	}
	l.n += len(vals)
}

// PushFront prepends each of vals in turn, so the last ends up first (LPUSH).
func (l *List) PushFront(vals ...[]byte) {
	l.PrepareAdd(vals...)
	if l.quick {
		for _, v := range vals {
			l.nodePushFront(v)
		}
		return
	}
	if l.n == 0 {
		if len(vals) > 0 {
			rev := slices.Clone(vals)
			slices.Reverse(rev)
			l.appendChunk(newChunk(rev))
			l.n = len(vals)
		}
		return
	}
	c, lim := l.chunks[l.first], server.Load().lim
	for _, v := range vals {
		c.pushFront(v, lim)
	}
	l.n += len(vals)
}

// nodePushBack is quicklistPushTail.
func (l *List) nodePushBack(v []byte) {
	var tail *chunk
	if l.n > 0 {
		tail = l.chunks[len(l.chunks)-1]
	}
	switch {
	case l.node.allowInsert(tail, len(v)):
		tail.pushBack(v, l.node)
	case l.node.large(len(v)):
		l.appendChunk(plainChunk(v))
	default:
		c := nextTo(tail, false, l.node)
		c.pushBack(v, l.node)
		l.appendChunk(c)
	}
	l.n++
}

// nodePushFront is quicklistPushHead.
func (l *List) nodePushFront(v []byte) {
	var head *chunk
	if l.n > 0 {
		head = l.chunks[l.first]
	}
	switch {
	case l.node.allowInsert(head, len(v)):
		head.pushFront(v, l.node)
	case l.node.large(len(v)):
		l.prependChunk(plainChunk(v))
	default:
		c := nextTo(head, true, l.node)
		c.pushFront(v, l.node)
		l.prependChunk(c)
	}
	l.n++
}

func (l *List) appendChunk(c *chunk) {
	if l.first > 0 && len(l.chunks) == cap(l.chunks) && l.first >= len(l.chunks)/2 {
		// Reuse the room left by chunks popped from the front.
		n := copy(l.chunks, l.chunks[l.first:])
		clear(l.chunks[n:])
		l.chunks, l.first = l.chunks[:n], 0
	}
	l.chunks = append(l.chunks, c)
}

func (l *List) prependChunk(c *chunk) {
	if l.first == 0 {
		n := len(l.chunks)
		room := max(n, 1)
		cs := make([]*chunk, room+n, room+n+max(n/2, 1))
		copy(cs[room:], l.chunks)
		l.chunks, l.first = cs, room
	}
	l.first--
	l.chunks[l.first] = c
}

// insertChunk puts c at index i of l.chunks (l.first <= i <= len), moving
// the chunks from i on one place up.
func (l *List) insertChunk(i int, c *chunk) {
	l.chunks = slices.Insert(l.chunks, i, c)
}

// deleteChunk drops chunk i, moving the chunks after it one place down.
func (l *List) deleteChunk(i int) {
	l.chunks = slices.Delete(l.chunks, i, i+1)
	if l.first == len(l.chunks) {
		l.chunks, l.first = l.chunks[:0], 0
	}
}

// PopFront removes and returns the first element (LPOP).
func (l *List) PopFront() ([]byte, bool) {
	v, ok := l.PopHold(true)
	if ok {
		l.Shrink()
	}
	return v, ok
}

// PopBack removes and returns the last element (RPOP).
func (l *List) PopBack() ([]byte, bool) {
	v, ok := l.PopHold(false)
	if ok {
		l.Shrink()
	}
	return v, ok
}

// PopHold removes and returns the first (front) or last element without
// converting the list; the caller calls Shrink when it is done, as Redis's
// LMOVE converts its source only after pushing onto the destination, which
// may be the same list. An emptied list keeps its encoding until then.
func (l *List) PopHold(front bool) ([]byte, bool) {
	if l.n == 0 {
		return nil, false
	}
	var v []byte
	if front {
		c := l.chunks[l.first]
		v = c.popFront()
		if c.n() == 0 {
			l.chunks[l.first] = nil
			l.first++
			if l.first == len(l.chunks) {
				l.chunks, l.first = l.chunks[:0], 0
			}
		}
	} else {
		last := len(l.chunks) - 1
		c := l.chunks[last]
		v = c.popBack()
		if c.n() == 0 {
			l.chunks[last] = nil
			l.chunks = l.chunks[:last]
			if l.first == last {
				l.chunks, l.first = l.chunks[:0], 0
			}
		}
	}
	l.n--
	return v, true
}

// locate finds the chunk holding element i (0 <= i < Len), walking from the
// nearer end, and returns its index in l.chunks and i's offset in it.
func (l *List) locate(i int) (ci, j int) {
	if i < l.n/2 {
		for ci = l.first; ; ci++ {
			if n := l.chunks[ci].n(); i < n {
				return ci, i
			} else {
				i -= n
			}
		}
	}
	i = l.n - 1 - i // distance from the end
	for ci = len(l.chunks) - 1; ; ci-- {
		n := l.chunks[ci].n()
		if i < n {
			return ci, n - 1 - i
		}
		i -= n
	}
}

// Index returns element i; negative i counts from the end (-1 is the last).
func (l *List) Index(i int) ([]byte, bool) {
	if i < 0 {
		i += l.n
	}
	if i < 0 || i >= l.n {
		return nil, false
	}
	ci, j := l.locate(i)
	return l.chunks[ci].get(j), true
}

// Range calls fn for elements start..stop (inclusive, 0 <= start <= stop <
// Len) in order until fn returns false.
func (l *List) Range(start, stop int, fn func(v []byte) bool) {
	if start > stop || start >= l.n {
		return
	}
	ci, j := l.locate(start)
	for left := stop - start + 1; left > 0; ci, j = ci+1, 0 {
		c := l.chunks[ci]
		for ; j < c.n() && left > 0; j++ {
			if !fn(c.get(j)) {
				return
			}
			left--
		}
	}
}

// RangeRev calls fn for elements from stop down to start (inclusive, 0 <=
// start <= stop < Len) until fn returns false.
func (l *List) RangeRev(start, stop int, fn func(v []byte) bool) {
	if start > stop || stop >= l.n {
		return
	}
	ci, j := l.locate(stop)
	for left := stop - start + 1; left > 0; {
		c := l.chunks[ci]
		for ; j >= 0 && left > 0; j-- {
			if !fn(c.get(j)) {
				return
			}
			left--
		}
		ci--
		if ci >= l.first {
			j = l.chunks[ci].n() - 1
		}
	}
}

// Set replaces element i (0 <= i < Len) with v (LSET), as Redis's
// quicklistReplaceEntry: in place, but for an element too large for a
// listpack node, which gets a plain node of its own.
func (l *List) Set(i int, v []byte) {
	l.PrepareAdd(v)
	ci, j := l.locate(i)
	c := l.chunks[ci]
	switch large := l.quick && l.node.large(len(v)); {
	case !c.plain && !large:
		if old := c.get(j); len(old) == len(v) {
			c.lp += entrySize(v) - entrySize(old)
			copy(old, v)
		} else {
			l.chunks[ci] = c.with(j, v, false)
		}
	case c.plain && large:
		l.chunks[ci] = plainChunk(v)
	case c.plain:
		// The element now fits a listpack node: it goes after the plain
		// node, which is then dropped.
		l.nodeInsert(ci, 0, v, true)
		l.deleteChunk(ci)
		l.n--
	default:
		// A large element in a listpack node: the node is split after it,
		// the element gets a plain node between the halves, and the old
		// element (now the first half's last) is dropped.
		if j != c.n()-1 {
			keep, rest := c.split(j, true)
			l.chunks[ci] = keep
			l.insertChunk(ci+1, rest)
			c = keep
		}
		l.insertChunk(ci+1, plainChunk(v))
		if c.n() == 1 {
			l.deleteChunk(ci)
		} else {
			l.chunks[ci] = c.with(c.n()-1, nil, false)
			l.mergeAround(ci + 1)
		}
	}
	l.Shrink()
}

// Insert puts v before (or, with after, after) element pivot (0 <= pivot <
// Len), as LINSERT does.
func (l *List) Insert(pivot int, v []byte, after bool) {
	l.PrepareAdd(v)
	ci, j := l.locate(pivot)
	if l.quick {
		l.nodeInsert(ci, j, v, after)
		return
	}
	if after {
		j++
	}
	l.chunks[ci] = l.chunks[ci].with(j, v, true)
	l.n++
}

// nodeInsert is _quicklistInsert: v goes next to element j of node ci.
func (l *List) nodeInsert(ci, j int, v []byte, after bool) {
	c, sz, m := l.chunks[ci], len(v), l.node
	full := !m.allowInsert(c, sz)
	atTail, atHead, availNext, availPrev := false, false, false, false
	if after && j == c.n()-1 {
		atTail, availNext = true, m.allowInsert(l.at(ci+1), sz)
	}
	if !after && j == 0 {
		atHead, availPrev = true, m.allowInsert(l.at(ci-1), sz)
	}
	side := ci // where a chunk before c goes; ci+1 after it
	if after {
		side = ci + 1
	}
	l.n++
	if m.large(sz) {
		if c.plain || atTail || atHead {
			l.insertChunk(side, plainChunk(v))
			return
		}
		keep, other := c.split(j, after)
		l.chunks[ci] = keep
		if after { // c, v, rest
			l.insertChunk(ci+1, plainChunk(v))
			l.insertChunk(ci+2, other)
		} else { // rest, v, c
			l.insertChunk(ci, plainChunk(v))
			l.insertChunk(ci, other)
		}
		return
	}
	switch {
	case !full && after:
		l.chunks[ci] = c.with(j+1, v, true)
	case !full:
		l.chunks[ci] = c.with(j, v, true)
	case atTail && availNext:
		l.chunks[ci+1].pushFront(v, m)
	case atHead && availPrev:
		l.chunks[ci-1].pushBack(v, m)
	case atTail || atHead:
		l.insertChunk(side, newChunk([][]byte{v}))
	default:
		keep, other := c.split(j, after)
		l.chunks[ci] = keep
		if after {
			l.insertChunk(ci+1, other.with(0, v, true))
		} else {
			l.insertChunk(ci, other.with(other.n(), v, true))
			ci++
		}
		l.mergeAround(ci)
	}
}

// mergeAround is _quicklistMergeNodes around node ci: it merges the two
// nodes before it, the two after it, then it with the node before and the
// result with the node after, each pair only if the merged node is within
// the fill.
func (l *List) mergeAround(ci int) {
	m := l.node
	if m.allowMerge(l.at(ci-1), l.at(ci-2)) {
		l.mergeAt(ci - 2)
		ci--
	}
	if m.allowMerge(l.at(ci+1), l.at(ci+2)) {
		l.mergeAt(ci + 1)
	}
	if m.allowMerge(l.at(ci), l.at(ci-1)) {
		l.mergeAt(ci - 1)
		ci--
	}
	if m.allowMerge(l.at(ci), l.at(ci+1)) {
		l.mergeAt(ci)
	}
}

// mergeAt merges chunks i and i+1 into one at i.
func (l *List) mergeAt(i int) {
	l.chunks[i] = newChunk(append(l.chunks[i].all(), l.chunks[i+1].all()...))
	l.deleteChunk(i + 1)
}

// RemoveMatches deletes elements equal to v (LREM): the first count from the
// head for count > 0, from the tail for count < 0, every one for count == 0.
// It returns how many it removed. As in Redis, the nodes that lose elements
// shrink (and go when empty) without merging.
func (l *List) RemoveMatches(v []byte, count int) int {
	limit, rev := count, count < 0
	if rev {
		limit = -limit
	}
	removed := 0
	var kept [][]byte
	for k := 0; k < len(l.chunks)-l.first && (limit == 0 || removed < limit); k++ {
		ci := l.first + k
		if rev {
			ci = len(l.chunks) - 1 - k
		}
		c := l.chunks[ci]
		kept = kept[:0]
		hit := 0
		for j := 0; j < c.n(); j++ {
			idx := j
			if rev {
				idx = c.n() - 1 - j
			}
			e := c.get(idx)
			if (limit == 0 || removed < limit) && string(e) == string(v) {
				hit++
				removed++
				continue
			}
			kept = append(kept, e)
		}
		if hit == 0 {
			continue
		}
		l.n -= hit
		if rev {
			slices.Reverse(kept)
		}
		if len(kept) > 0 {
			l.chunks[ci] = newChunk(kept)
			continue
		}
		l.deleteChunk(ci)
		k-- // forward, the next chunk moved into ci; backward, ci-1 is k+1 from the end now
	}
	if removed > 0 {
		l.Shrink()
	}
	return removed
}

// Trim keeps elements start..stop (inclusive, 0 <= start <= stop < Len) and
// drops the rest (LTRIM with a non-empty result).
func (l *List) Trim(start, stop int) {
	back := l.n - 1 - stop
	for back > 0 { // whole nodes first, as quicklistDelRange drops them
		last := len(l.chunks) - 1
		if c := l.chunks[last]; c.n() <= back {
			back -= c.n()
			l.n -= c.n()
			l.chunks[last] = nil
			l.chunks = l.chunks[:last]
			continue
		}
		l.PopHold(false)
		back--
	}
	for start > 0 && l.chunks[l.first].n() <= start {
		c := l.chunks[l.first]
		start -= c.n()
		l.n -= c.n()
		l.chunks[l.first] = nil
		l.first++
	}
	for range start {
		l.PopHold(true)
	}
	l.Shrink()
}

// Clear drops every element.
func (l *List) Clear() {
	*l = List{}
}

// Clone returns a deep copy with the same nodes (COPY).
func (l *List) Clone() any {
	c := &List{n: l.n, quick: l.quick, fill: l.fill, node: l.node}
	for _, ch := range l.live() {
		d := newChunk(ch.all())
		d.plain = ch.plain
		c.chunks = append(c.chunks, d)
	}
	return c
}

// FromQuicklist returns a list of vals with the encoding Redis gives a list
// it builds by pushing each value onto a quicklist and then converting it
// (SORT ... STORE, RESTORE of the old list payloads): a listpack only if
// every value went into one listpack node within list-max-listpack-size.
func FromQuicklist(vals [][]byte) *List {
	r := server.Load()
	l := &List{quick: true, fill: r.fill, node: r.node}
	for _, v := range vals {
		l.nodePushBack(v)
	}
	l.tryListpack(false)
	if l.n == 0 {
		l.quick = false
	}
	return l
}

// FromNodes returns the list Redis loads from quicklist nodes (RESTORE):
// node i holds nodes[i], plain[i] marking a plain node; it is a listpack only
// when it is one listpack node within list-max-listpack-size. Empty nodes
// must have been left out.
func FromNodes(nodes [][][]byte, plain []bool) *List {
	r := server.Load()
	l := &List{quick: true, fill: r.fill, node: r.node}
	for i, vals := range nodes {
		c := newChunk(vals)
		c.plain = plain[i]
		l.chunks = append(l.chunks, c)
		l.n += len(vals)
	}
	l.tryListpack(false)
	if l.n == 0 {
		l.quick = false
	}
	return l
}

// EachNode calls fn for each node as Redis holds (and DUMPs) the list: the
// whole list for a listpack, each quicklist node otherwise, plain marking a
// node of one element stored as is. vals alias the list.
func (l *List) EachNode(fn func(plain bool, vals [][]byte)) {
	if !l.quick {
		var vals [][]byte
		for _, c := range l.live() {
			vals = append(vals, c.all()...)
		}
		fn(false, vals)
		return
	}
	for _, c := range l.live() {
		fn(c.plain, c.all())
	}
}

// Fill is a quicklist's fill (ql_listpack_max in DEBUG OBJECT): the
// list-max-listpack-size in force when it became one, clamped as Redis
// clamps it.
func (l *List) Fill() int { return int(l.fill) }

// Encoding is what OBJECT ENCODING reports.
func (l *List) Encoding() string {
	if l.quick {
		return "quicklist"
	}
	return "listpack"
}

// entrySize is the bytes v takes as a listpack entry.
func entrySize(v []byte) int { return listpack.EntrySize(v) }
