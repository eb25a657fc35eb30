// Package list is the value behind Redis lists: a deque of chunks, each chunk
// holding its elements packed into one byte buffer plus an offset array. Pushes
// and pops at either end are O(1) amortized (a chunk keeps free room on the side
// it grows), index access walks chunks from the nearer end, and a list costs
// the garbage collector two pointer-free buffers per chunk rather than one
// pointer per element. A small list is a single chunk, exactly sized when
// created by one multi-element push.
//
// Slices returned by Index, Pop and the iterators alias the list's buffers:
// they are valid until the list is next modified.
package list

import (
	"slices"

	"github.com/hotkv/hotkv/internal/intstr"
)

// Chunk limits: a chunk takes another element while it has fewer than
// maxChunkElems elements and the element bytes stay within maxChunkBytes; a
// larger element gets a chunk of its own.
const (
	maxChunkElems = 256
	maxChunkBytes = 8 << 10
)

// chunk holds consecutive elements. Element bytes live in buf[lo:hi] in list
// order; off[a:b] are their start offsets in buf (an element ends where the
// next begins, the last at hi). Free room before lo/a and after hi/b lets
// either end grow without moving data.
type chunk struct {
	buf    []byte
	off    []uint32
	lo, hi int
	a, b   int
	lp     int // listpack bytes of the elements, see entrySize
}

func (c *chunk) n() int     { return c.b - c.a }
func (c *chunk) bytes() int { return c.hi - c.lo }

func (c *chunk) get(i int) []byte {
	i += c.a
	s, e := int(c.off[i]), c.hi
	if i+1 < c.b {
		e = int(c.off[i+1])
	}
	return c.buf[s:e:e]
}

// fits reports whether v may join c without breaking the chunk limits.
func (c *chunk) fits(v []byte) bool {
	return c.n() == 0 || (c.n() < maxChunkElems && c.bytes()+len(v) <= maxChunkBytes)
}

// regrow copies c into fresh buffers with at least needBytes/needElems free
// at the front (front) or back, doubling what it holds so pushes stay O(1)
// amortized, but not past the chunk limits, which a full chunk then fills
// exactly.
func (c *chunk) regrow(front bool, needBytes, needElems int) {
	size, n := c.bytes(), c.n()
	roomB := max(min(max(size, 16), maxChunkBytes-size), needBytes)
	roomE := max(min(max(n, 4), maxChunkElems-n), needElems)
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

// pushBack appends v and returns its listpack size.
func (c *chunk) pushBack(v []byte) int {
	if c.hi+len(v) > len(c.buf) || c.b == len(c.off) {
		c.regrow(false, len(v), 1)
	}
	c.off[c.b] = uint32(c.hi)
	c.b++
	c.hi += copy(c.buf[c.hi:], v)
	sz := entrySize(v)
	c.lp += sz
	return sz
}

// pushFront prepends v and returns its listpack size.
func (c *chunk) pushFront(v []byte) int {
	if c.lo < len(v) || c.a == 0 {
		c.regrow(true, len(v), 1)
	}
	c.lo -= len(v)
	copy(c.buf[c.lo:], v)
	c.a--
	c.off[c.a] = uint32(c.lo)
	sz := entrySize(v)
	c.lp += sz
	return sz
}

// nextTo makes an empty chunk to follow (or precede) the full chunk c, sized
// for as many elements of c's average size as a chunk takes, so that a long
// list fills it without regrowing.
func nextTo(c *chunk, front bool) *chunk {
	if c == nil || c.n() < 2 {
		return &chunk{}
	}
	avg := max(c.bytes()/c.n(), 1)
	elems := min(maxChunkElems, maxChunkBytes/avg)
	room := min(maxChunkBytes, avg*elems)
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

// pack splits vals into chunks within the limits.
func pack(vals [][]byte) []*chunk {
	var out []*chunk
	for len(vals) > 0 {
		n, size := 1, len(vals[0])
		for n < len(vals) && n < maxChunkElems && size+len(vals[n]) <= maxChunkBytes {
			size += len(vals[n])
			n++
		}
		out = append(out, newChunk(vals[:n]))
		vals = vals[n:]
	}
	return out
}

// List is a Redis list. The zero value is an empty list.
type List struct {
	chunks []*chunk // chunks[first:] in order, none empty
	first  int
	n      int
	lp     int  // listpack bytes of the elements (see entrySize)
	quick  bool // reported as quicklist (see Encoding)
}

// New returns an empty list.
func New() *List { return &List{} }

// Len is the number of elements.
func (l *List) Len() int { return l.n }

func (l *List) live() []*chunk { return l.chunks[l.first:] }

// PushBack appends vals in order (RPUSH).
func (l *List) PushBack(vals ...[]byte) {
	l.growing(vals)
	if l.n == 0 && len(vals) > 1 {
		// A new list gets exactly sized chunks.
		for _, c := range pack(vals) {
			l.appendChunk(c)
			l.n += c.n()
			l.lp += c.lp
		}
		return
	}
	for _, v := range vals {
		var c *chunk
		if live := l.live(); len(live) > 0 {
			c = live[len(live)-1]
		}
		if c == nil || !c.fits(v) {
			c = nextTo(c, false)
			l.appendChunk(c)
		}
		l.lp += c.pushBack(v)
		l.n++
	}
}

// PushFront prepends each of vals in turn, so the last ends up first (LPUSH).
func (l *List) PushFront(vals ...[]byte) {
	l.growing(vals)
	for _, v := range vals {
		var c *chunk
		if l.n > 0 {
			c = l.chunks[l.first]
		}
		if c == nil || !c.fits(v) {
			c = nextTo(c, true)
			l.prependChunk(c)
		}
		l.lp += c.pushFront(v)
		l.n++
	}
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

// PopFront removes and returns the first element (LPOP).
func (l *List) PopFront() ([]byte, bool) {
	if l.n == 0 {
		return nil, false
	}
	c := l.chunks[l.first]
	v := c.popFront()
	if c.n() == 0 {
		l.chunks[l.first] = nil
		l.first++
		if l.first == len(l.chunks) {
			l.chunks, l.first = l.chunks[:0], 0
		}
	}
	l.removed(1, entrySize(v))
	return v, true
}

// PopBack removes and returns the last element (RPOP).
func (l *List) PopBack() ([]byte, bool) {
	if l.n == 0 {
		return nil, false
	}
	last := len(l.chunks) - 1
	c := l.chunks[last]
	v := c.popBack()
	if c.n() == 0 {
		l.chunks[last] = nil
		l.chunks = l.chunks[:last]
		if l.first == last {
			l.chunks, l.first = l.chunks[:0], 0
		}
	}
	l.removed(1, entrySize(v))
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

// Set replaces element i (0 <= i < Len) with v (LSET).
func (l *List) Set(i int, v []byte) {
	l.growing([][]byte{v})
	ci, j := l.locate(i)
	c := l.chunks[ci]
	old := c.get(j)
	l.lp += entrySize(v) - entrySize(old)
	if len(old) == len(v) {
		c.lp += entrySize(v) - entrySize(old)
		copy(old, v)
	} else {
		vals := c.all()
		vals[j] = v
		l.replaceChunk(ci, vals)
	}
	l.shrunk()
}

// Insert puts v before element i (0 <= i <= Len; i == Len appends).
func (l *List) Insert(i int, v []byte) {
	switch {
	case i == 0:
		l.PushFront(v)
		return
	case i == l.n:
		l.PushBack(v)
		return
	}
	l.growing([][]byte{v})
	ci, j := l.locate(i)
	vals := l.chunks[ci].all()
	vals = append(vals[:j], append([][]byte{v}, vals[j:]...)...)
	l.replaceChunk(ci, vals)
	l.n++
	l.lp += entrySize(v)
}

// all lists c's elements (aliasing c's buffer).
func (c *chunk) all() [][]byte {
	vals := make([][]byte, c.n())
	for k := range vals {
		vals[k] = c.get(k)
	}
	return vals
}

// replaceChunk swaps chunk ci for freshly packed chunks of vals (Set and
// Insert's rebuilt elements, which may alias the old chunk: pack copies).
func (l *List) replaceChunk(ci int, vals [][]byte) {
	repl := pack(vals)
	if len(repl) == 1 {
		l.chunks[ci] = repl[0]
		return
	}
	cs := make([]*chunk, 0, len(l.chunks)-l.first-1+len(repl))
	cs = append(cs, l.chunks[l.first:ci]...)
	cs = append(cs, repl...)
	cs = append(cs, l.chunks[ci+1:]...)
	l.chunks, l.first = cs, 0
}

// RemoveMatches deletes elements equal to v (LREM): the first count from the
// head for count > 0, from the tail for count < 0, every one for count == 0.
// It returns how many it removed. Chunks are rebuilt in one pass, and a chunk
// left small is merged into its neighbour so the list does not fragment.
func (l *List) RemoveMatches(v []byte, count int) int {
	limit, rev := count, count < 0
	if rev {
		limit = -limit
	}
	live := l.live()
	out := make([]*chunk, 0, len(live))
	removed := 0
	var kept [][]byte
	for k := range live {
		c := live[k]
		if rev {
			c = live[len(live)-1-k]
		}
		if limit != 0 && removed == limit {
			out = append(out, c)
			continue
		}
		kept = kept[:0]
		hit := false
		for j := 0; j < c.n(); j++ {
			idx := j
			if rev {
				idx = c.n() - 1 - j
			}
			e := c.get(idx)
			if (limit == 0 || removed < limit) && string(e) == string(v) {
				hit = true
				removed++
				l.n--
				l.lp -= entrySize(e)
				continue
			}
			kept = append(kept, e)
		}
		if !hit {
			out = append(out, c)
			continue
		}
		if len(kept) == 0 {
			continue
		}
		if rev {
			slices.Reverse(kept)
		}
		out = appendMerged(out, kept, rev)
	}
	if rev {
		slices.Reverse(out)
	}
	clear(l.chunks)
	l.chunks, l.first = out, 0
	if removed > 0 {
		l.shrunk()
	}
	return removed
}

// appendMerged appends a chunk of vals to out, merged into out's last chunk
// when both together fit one chunk. With rev, out is being built back to
// front, so vals go before that chunk's elements.
func appendMerged(out []*chunk, vals [][]byte, rev bool) []*chunk {
	if len(out) > 0 {
		prev := out[len(out)-1]
		size := 0
		for _, v := range vals {
			size += len(v)
		}
		if prev.n()+len(vals) <= maxChunkElems && prev.bytes()+size <= maxChunkBytes {
			all := prev.all()
			if rev {
				all = append(vals, all...)
			} else {
				all = append(all, vals...)
			}
			out[len(out)-1] = newChunk(all)
			return out
		}
	}
	return append(out, newChunk(vals))
}

// Trim keeps elements start..stop (inclusive, 0 <= start <= stop < Len) and
// drops the rest (LTRIM with a non-empty result).
func (l *List) Trim(start, stop int) {
	l.cutBack(l.n - 1 - stop)
	l.cutFront(start)
}

// Clear drops every element.
func (l *List) Clear() {
	*l = List{}
}

func (l *List) cutFront(k int) {
	for k > 0 {
		c := l.chunks[l.first]
		if c.n() <= k {
			k -= c.n()
			l.removed(c.n(), c.lp)
			l.chunks[l.first] = nil
			l.first++
			continue
		}
		for ; k > 0; k-- {
			l.removed(1, entrySize(c.popFront()))
		}
	}
	if l.n == 0 {
		l.Clear()
	}
}

func (l *List) cutBack(k int) {
	for k > 0 {
		last := len(l.chunks) - 1
		c := l.chunks[last]
		if c.n() <= k {
			k -= c.n()
			l.removed(c.n(), c.lp)
			l.chunks[last] = nil
			l.chunks = l.chunks[:last]
			continue
		}
		for ; k > 0; k-- {
			l.removed(1, entrySize(c.popBack()))
		}
	}
	if l.n == 0 {
		l.Clear()
	}
}

func (l *List) removed(n, lp int) {
	l.n -= n
	l.lp -= lp
	l.shrunk()
}

// Clone returns a deep copy, packed into fresh chunks.
func (l *List) Clone() any {
	vals := make([][]byte, 0, l.n)
	l.Range(0, l.n-1, func(v []byte) bool {
		vals = append(vals, v)
		return true
	})
	c := &List{n: l.n, lp: l.lp, quick: l.quick}
	c.chunks = pack(vals)
	return c
}

// FromQuicklist returns a list of vals with the encoding Redis gives a list
// it builds by pushing each value onto a quicklist and then converting it
// (SORT ... STORE): a listpack only if every value went into one quicklist
// node and that node is within the listpack limit. A node takes a value
// after its first while its bytes plus the value's plus 8 stay within the
// limit; a larger value gets a node of its own.
func FromQuicklist(vals [][]byte) *List {
	l := New()
	if len(vals) == 0 {
		return l
	}
	l.PushBack(vals...)
	l.quick = false
	sz := lpHeader
	for i, v := range vals {
		if len(v) > lpMaxBytes || i > 0 && sz+len(v)+8 > lpMaxBytes {
			l.quick = true
			return l
		}
		sz += entrySize(v)
	}
	l.quick = sz > lpMaxBytes
	return l
}

// FromNodes returns a list of vals with the encoding Redis gives a list it
// loads as quicklist nodes (RESTORE): a listpack only when they were one
// packed node whose listpack, of size bytes, is within the limit; size is
// -1 for several nodes or a plain one.
func FromNodes(vals [][]byte, size int) *List {
	l := New()
	l.PushBack(vals...)
	l.quick = size < 0 || size > lpMaxBytes
	return l
}

// Redis stores a small list as one listpack and converts it to a quicklist
// when the listpack would pass list-max-listpack-size (-2: 8 KB), converting
// back when a shrinking list fits in half of that. Encoding mirrors those
// rules by keeping the size such a listpack would have.
const (
	lpHeader   = 7 // total bytes (4), count (2), end marker (1)
	lpMaxBytes = 8192
)

// growing applies Redis's conversion check before vals are added: the
// current listpack plus the raw bytes of what comes.
func (l *List) growing(vals [][]byte) {
	if l.quick {
		return
	}
	add := 0
	for _, v := range vals {
		add += len(v)
	}
	if l.lpBytes()+add > lpMaxBytes {
		l.quick = true
	}
}

// shrunk converts back after removals, as Redis does for a quicklist that
// fits in half the limit.
func (l *List) shrunk() {
	if l.quick && l.lpBytes() <= lpMaxBytes/2 {
		l.quick = false
	}
}

// lpBytes is the size one listpack holding every element would have.
func (l *List) lpBytes() int { return lpHeader + l.lp }

// Encoding is what OBJECT ENCODING reports.
func (l *List) Encoding() string {
	if l.quick {
		return "quicklist"
	}
	return "listpack"
}

// entrySize is the bytes v takes as a listpack entry: integers that Redis
// would parse are stored in 1 to 9 bytes, strings with a 1, 2 or 5 byte
// header; every entry ends with its length in 1 to 5 bytes.
func entrySize(v []byte) int {
	var enc int
	if n, ok := intstr.Parse(v); ok {
		switch {
		case n >= 0 && n <= 127:
			enc = 1
		case n >= -4096 && n <= 4095:
			enc = 2
		case n >= -32768 && n <= 32767:
			enc = 3
		case n >= -8388608 && n <= 8388607:
			enc = 4
		case n >= -2147483648 && n <= 2147483647:
			enc = 5
		default:
			enc = 9
		}
	} else {
		switch {
		case len(v) < 64:
			enc = 1 + len(v)
		case len(v) < 4096:
			enc = 2 + len(v)
		default:
			enc = 5 + len(v)
		}
	}
	switch {
	case enc <= 127:
		return enc + 1
	case enc < 16383:
		return enc + 2
	case enc < 2097151:
		return enc + 3
	case enc < 268435455:
		return enc + 4
	}
	return enc + 5
}
