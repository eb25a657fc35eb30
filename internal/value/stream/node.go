package stream

import (
	"bytes"
	"encoding/binary"

	"github.com/hotkv/hotkv/internal/value/listpack"
)

// A node packs the entries Redis's listpack node would hold (see
// nodeFull) into one byte slice, as a listpack does: per entry a flags
// byte, its milliseconds as a
// difference from the node's first ID, its sequence, then its strings.
// The first entry's field names are the node's master fields; a later
// entry with the same field names stores only its values (flagSame), so a
// stream of uniform events costs about the bytes of its values. A deleted
// entry stays in place, flagged, until its whole node goes.
type node struct {
	buf     []byte
	base    ID     // the first ID appended
	master  []byte // the master field names: each with a uvarint length
	nmaster int
	live    int // entries not deleted
	added   int // entries appended, deleted ones included: Redis closes a node after stream-node-max-entries
	lp      int // the bytes of Redis's listpack for the node, less its live and deleted counters (see lpBytes)
	last    ID  // the last ID appended, deleted or not: Redis's MINID trim judges a node by it
	lo, hi  int // offsets of the first and last live entries
	loID    ID
	hiID    ID
}

const (
	flagDeleted = 1 << iota
	flagSame
)

// Entry is one stream entry, read in place from its node: valid until the
// stream is next modified.
type Entry struct {
	ID   ID
	n    *node
	data int // offset of its strings in n.buf
	same bool
}

// Len is the number of strings (fields plus values) in the entry.
func (e Entry) Len() int {
	if e.same {
		return 2 * e.n.nmaster
	}
	c, _ := binary.Uvarint(e.n.buf[e.data:])
	return int(c)
}

// Each calls fn with each field and value in order.
func (e Entry) Each(fn func([]byte)) {
	buf := e.n.buf
	if !e.same {
		c, k := binary.Uvarint(buf[e.data:])
		off := e.data + k
		for ; c > 0; c-- {
			var s []byte
			s, off = str(buf, off)
			fn(s)
		}
		return
	}
	m, off := 0, e.data
	for range e.n.nmaster {
		var f, v []byte
		f, m = str(e.n.master, m)
		v, off = str(buf, off)
		fn(f)
		fn(v)
	}
}

// Fields returns the entry's fields and values (aliasing the stream).
func (e Entry) Fields() [][]byte {
	out := make([][]byte, 0, e.Len())
	e.Each(func(b []byte) { out = append(out, b) })
	return out
}

// str reads the length-prefixed string at off, returning it and the offset
// after it.
func str(buf []byte, off int) ([]byte, int) {
	l, k := binary.Uvarint(buf[off:])
	off += k
	return buf[off : off+int(l) : off+int(l)], off + int(l)
}

func appendStr(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func newNode(id ID, fields [][]byte) *node {
	n := &node{base: id}
	n.nmaster = len(fields) / 2
	// Redis's master entry: live and deleted counters (lpBytes), the field
	// count, the fields, and a 0 terminator.
	n.lp = listpack.Header + listpack.IntSize(int64(n.nmaster)) + listpack.IntSize(0)
	for i := 0; i < len(fields); i += 2 {
		n.master = appendStr(n.master, fields[i])
		n.lp += listpack.EntrySize(fields[i])
	}
	return n
}

// lpBytes is the size of Redis's listpack for the node (lpBytes).
func (n *node) lpBytes() int {
	return n.lp + listpack.IntSize(int64(n.live)) + listpack.IntSize(int64(n.added-n.live))
}

// entryBytes is what an entry adds to Redis's listpack node: its flags, ID
// as differences from the master ID, the field count and fields unless
// they are the master's, the values and the count of its listpack elements.
func (n *node) entryBytes(id ID, fields [][]byte, same bool) int {
	size := listpack.IntSize(0) + listpack.IntSize(int64(id.Ms-n.base.Ms)) + listpack.IntSize(int64(id.Seq-n.base.Seq))
	pairs := len(fields) / 2
	elems := pairs + 3
	for i := 1; i < len(fields); i += 2 {
		size += listpack.EntrySize(fields[i])
	}
	if !same {
		size += listpack.IntSize(int64(pairs))
		for i := 0; i < len(fields); i += 2 {
			size += listpack.EntrySize(fields[i])
		}
		elems += pairs + 1
	}
	return size + listpack.IntSize(int64(elems))
}

// sameFields reports whether fields has the node's master field names.
func (n *node) sameFields(fields [][]byte) bool {
	if len(fields) != 2*n.nmaster {
		return false
	}
	m := 0
	for i := 0; i < len(fields); i += 2 {
		var f []byte
		f, m = str(n.master, m)
		if !bytes.Equal(f, fields[i]) {
			return false
		}
	}
	return true
}

// add appends an entry whose ID is above every other in the node.
func (n *node) add(id ID, fields [][]byte) {
	p := len(n.buf)
	same := n.sameFields(fields)
	flags := byte(0)
	if same {
		flags = flagSame
	}
	b := append(n.buf, flags)
	b = binary.AppendUvarint(b, id.Ms-n.base.Ms)
	b = binary.AppendUvarint(b, id.Seq)
	if same {
		for i := 1; i < len(fields); i += 2 {
			b = appendStr(b, fields[i])
		}
	} else {
		b = binary.AppendUvarint(b, uint64(len(fields)))
		for _, f := range fields {
			b = appendStr(b, f)
		}
	}
	n.buf = b
	n.lp += n.entryBytes(id, fields, same)
	if n.live == 0 {
		n.lo, n.loID = p, id
	}
	n.hi, n.hiID = p, id
	n.live++
	n.added++
	n.last = id
}

// close gives back what doubling left over in a node no entry will join.
func (n *node) close() {
	if cap(n.buf) > len(n.buf) {
		n.buf = append(make([]byte, 0, len(n.buf)), n.buf...)
	}
}

// at decodes the entry at offset p: the entry, whether it is deleted, and
// the offset of the next one.
func (n *node) at(p int) (e Entry, deleted bool, next int) {
	buf := n.buf
	flags := buf[p]
	ms, k := binary.Uvarint(buf[p+1:])
	off := p + 1 + k
	seq, k := binary.Uvarint(buf[off:])
	off += k
	e = Entry{ID: ID{n.base.Ms + ms, seq}, n: n, data: off, same: flags&flagSame != 0}
	count := uint64(n.nmaster)
	if !e.same {
		c, k := binary.Uvarint(buf[off:])
		count, off = c, off+k
	}
	for ; count > 0; count-- {
		_, off = str(buf, off)
	}
	return e, flags&flagDeleted != 0, off
}

// seek returns the offset of the first live entry >= id (len(buf) if none).
func (n *node) seek(id ID) int {
	for p := n.lo; p < len(n.buf); {
		e, deleted, next := n.at(p)
		if !deleted && !e.ID.Less(id) {
			return p
		}
		p = next
	}
	return len(n.buf)
}

// live appends the offsets of the node's live entries, in order.
func (n *node) liveOffsets(dst []int) []int {
	for p := n.lo; p < len(n.buf); {
		_, deleted, next := n.at(p)
		if !deleted {
			dst = append(dst, p)
		}
		p = next
	}
	return dst
}

// remove flags the live entry at p deleted; the node keeps its bytes.
func (n *node) remove(p int) {
	n.buf[p] |= flagDeleted
	n.live--
	if n.live == 0 {
		return
	}
	if p == n.lo {
		n.lo = n.seek(ID{})
		n.loID, _, _ = n.idAt(n.lo)
	}
	if p == n.hi {
		var offs [DefaultNodeEntries]int
		live := n.liveOffsets(offs[:0])
		n.hi = live[len(live)-1]
		n.hiID, _, _ = n.idAt(n.hi)
	}
}

func (n *node) idAt(p int) (ID, bool, int) {
	e, deleted, next := n.at(p)
	return e.ID, deleted, next
}

func (n *node) clone() *node {
	c := *n
	c.buf = append([]byte(nil), n.buf...)
	c.master = append([]byte(nil), n.master...)
	return &c
}
