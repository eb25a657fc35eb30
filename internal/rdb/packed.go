package rdb

import (
	"encoding/binary"
	"strconv"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/intstr"
)

// The packed blobs Redis embeds in RDB values: listpacks (current), and the
// ziplists, intsets and zipmaps of older versions. Every reader validates
// the whole blob, as Redis's sanitize-dump-payload does, before anything is
// built from it.

// Sanitized counts the blobs validated so, which Redis counts as INFO's
// dump_payload_sanitizations when sanitize-dump-payload asks for it.
var Sanitized atomic.Int64

// elem is one element of a packed blob: an integer or bytes (aliasing the
// blob).
type elem struct {
	s     []byte
	i     int64
	isInt bool
}

// bytes is the element as Redis returns it: integers in decimal.
func (e elem) bytes() []byte {
	if e.isInt {
		return strconv.AppendInt(nil, e.i, 10)
	}
	return e.s
}

// integer is the element's value as an integer, if it is one.
func (e elem) integer() (int64, bool) {
	if e.isInt {
		return e.i, true
	}
	return intstr.Parse(e.s)
}

// Listpack layout: total bytes (uint32 LE), element count (uint16 LE, 65535
// when unknown), elements, 0xff. An element is its encoding byte(s) and
// data, then that length again as a backlen of 1 to 5 bytes readable from
// the right.
const (
	lpHeader     = 6
	lpEnd        = 0xff
	lpCountUnset = 65535
)

// listpack decodes and validates a whole listpack.
func listpack(b []byte) ([]elem, bool) {
	Sanitized.Add(1)
	if len(b) < lpHeader+1 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != lpEnd {
		return nil, false
	}
	want := int(binary.LittleEndian.Uint16(b[4:]))
	var out []elem
	p := lpHeader
	for p < len(b)-1 {
		e, size, ok := lpElem(b[p : len(b)-1])
		if !ok {
			return nil, false
		}
		back := appendBacklen(nil, size)
		if p+size+len(back) > len(b)-1 || string(b[p+size:p+size+len(back)]) != string(back) {
			return nil, false
		}
		out = append(out, e)
		p += size + len(back)
	}
	if want != lpCountUnset && want != len(out) {
		return nil, false
	}
	return out, true
}

// lpElem decodes the element at the start of b and the size of its encoding
// and data.
func lpElem(b []byte) (e elem, size int, ok bool) {
	c := b[0]
	need := func(n int) bool { return len(b) >= n }
	var strLen, hdr int
	switch {
	case c&0x80 == 0:
		return elem{i: int64(c), isInt: true}, 1, true
	case c&0xc0 == 0x80:
		strLen, hdr = int(c&0x3f), 1
	case c&0xe0 == 0xc0:
		if !need(2) {
			return elem{}, 0, false
		}
		v := int64(c&0x1f)<<8 | int64(b[1])
		if v >= 1<<12 {
			v -= 1 << 13
		}
		return elem{i: v, isInt: true}, 2, true
	case c&0xf0 == 0xe0:
		if !need(2) {
			return elem{}, 0, false
		}
		strLen, hdr = int(c&0x0f)<<8|int(b[1]), 2
	case c == 0xf0:
		if !need(5) {
			return elem{}, 0, false
		}
		n := binary.LittleEndian.Uint32(b[1:])
		if uint64(n) > uint64(len(b)) {
			return elem{}, 0, false
		}
		strLen, hdr = int(n), 5
	case c >= 0xf1 && c <= 0xf4:
		return intElem(b, [...]int{2, 3, 4, 8}[c-0xf1])
	default:
		return elem{}, 0, false
	}
	if !need(hdr + strLen) {
		return elem{}, 0, false
	}
	return elem{s: b[hdr : hdr+strLen]}, hdr + strLen, true
}

// intElem decodes the n-byte little-endian signed integer after the
// encoding byte at the start of b (listpacks and ziplists alike).
func intElem(b []byte, n int) (e elem, size int, ok bool) {
	if len(b) < 1+n {
		return elem{}, 0, false
	}
	var u uint64
	for i := n; i >= 1; i-- {
		u = u<<8 | uint64(b[i])
	}
	shift := 64 - 8*n // sign-extend
	return elem{i: int64(u<<shift) >> shift, isInt: true}, 1 + n, true
}

// appendBacklen appends l, an element's encoding and data size, as
// lpEncodeBacklen does: 7 bits a byte, most significant first, every byte
// after the first flagged with 0x80, so that it reads back from the right.
func appendBacklen(b []byte, l int) []byte {
	switch {
	case l <= 127:
		return append(b, byte(l))
	case l < 16383:
		return append(b, byte(l>>7), byte(l&127|128))
	case l < 2097151:
		return append(b, byte(l>>14), byte(l>>7&127|128), byte(l&127|128))
	case l < 268435455:
		return append(b, byte(l>>21), byte(l>>14&127|128), byte(l>>7&127|128), byte(l&127|128))
	}
	return append(b, byte(l>>28), byte(l>>21&127|128), byte(l>>14&127|128), byte(l>>7&127|128), byte(l&127|128))
}

// lpWriter builds a listpack.
type lpWriter struct {
	b []byte
	n int
}

func newListpack() *lpWriter { return &lpWriter{b: make([]byte, lpHeader, 64)} }

// add appends v, as an integer when Redis would store it as one.
func (w *lpWriter) add(v []byte) {
	if i, ok := intstr.Parse(v); ok {
		w.addInt(i)
		return
	}
	start := len(w.b)
	switch n := len(v); {
	case n < 64:
		w.b = append(w.b, 0x80|byte(n))
	case n < 4096:
		w.b = append(w.b, 0xe0|byte(n>>8), byte(n))
	default:
		w.b = append(w.b, 0xf0)
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(n))
	}
	w.b = append(w.b, v...)
	w.b = appendBacklen(w.b, len(w.b)-start)
	w.n++
}

func (w *lpWriter) addInt(v int64) {
	start := len(w.b)
	switch {
	case v >= 0 && v <= 127:
		w.b = append(w.b, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint64(v) & (1<<13 - 1)
		w.b = append(w.b, 0xc0|byte(u>>8), byte(u))
	default:
		var n int
		switch {
		case v >= -1<<15 && v < 1<<15:
			n = 2
		case v >= -1<<23 && v < 1<<23:
			n = 3
		case v >= -1<<31 && v < 1<<31:
			n = 4
		default:
			n = 8
		}
		w.b = append(w.b, [...]byte{2: 0xf1, 3: 0xf2, 4: 0xf3, 8: 0xf4}[n])
		for i := range n {
			w.b = append(w.b, byte(uint64(v)>>(8*i)))
		}
	}
	w.b = appendBacklen(w.b, len(w.b)-start)
	w.n++
}

// bytes finishes the listpack.
func (w *lpWriter) bytes() []byte {
	w.b = append(w.b, lpEnd)
	binary.LittleEndian.PutUint32(w.b, uint32(len(w.b)))
	binary.LittleEndian.PutUint16(w.b[4:], uint16(min(w.n, lpCountUnset)))
	return w.b
}

// size is the listpack's size so far, end byte included.
func (w *lpWriter) size() int { return len(w.b) + 1 }

// Ziplist layout: total bytes (uint32 LE), offset of the last element
// (uint32 LE), count (uint16 LE, 65535 when unknown), elements, 0xff. An
// element is the previous element's size (1 byte, or 0xfe and 4 bytes),
// an encoding, and data.
const zlHeader = 10

func ziplist(b []byte) ([]elem, bool) {
	Sanitized.Add(1)
	if len(b) < zlHeader+1 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != 0xff {
		return nil, false
	}
	tail := int(binary.LittleEndian.Uint32(b[4:]))
	want := int(binary.LittleEndian.Uint16(b[8:]))
	var out []elem
	p, prev, last := zlHeader, 0, zlHeader
	for p < len(b)-1 {
		start := p
		var prevLen int
		if b[p] < 0xfe {
			prevLen, p = int(b[p]), p+1
		} else if b[p] == 0xfe && p+5 < len(b) {
			prevLen, p = int(binary.LittleEndian.Uint32(b[p+1:])), p+5
		} else {
			return nil, false
		}
		if prevLen != prev {
			return nil, false
		}
		e, n, ok := zlElem(b[p : len(b)-1])
		if !ok {
			return nil, false
		}
		p += n
		out = append(out, e)
		prev, last = p-start, start
	}
	if last != tail || want != 0xffff && want != len(out) {
		return nil, false
	}
	return out, true
}

// zlElem decodes a ziplist element's encoding and data.
func zlElem(b []byte) (e elem, size int, ok bool) {
	if len(b) == 0 {
		return elem{}, 0, false
	}
	c := b[0]
	var strLen, hdr int
	switch {
	case c>>6 == 0:
		strLen, hdr = int(c&0x3f), 1
	case c>>6 == 1:
		if len(b) < 2 {
			return elem{}, 0, false
		}
		strLen, hdr = int(c&0x3f)<<8|int(b[1]), 2
	case c == 0x80:
		if len(b) < 5 {
			return elem{}, 0, false
		}
		n := binary.BigEndian.Uint32(b[1:])
		if uint64(n) > uint64(len(b)) {
			return elem{}, 0, false
		}
		strLen, hdr = int(n), 5
	case c >= 0xf1 && c <= 0xfd:
		return elem{i: int64(c&0x0f) - 1, isInt: true}, 1, true
	default:
		if n := zlIntSize(c); n > 0 {
			return intElem(b, n)
		}
		return elem{}, 0, false
	}
	if len(b) < hdr+strLen {
		return elem{}, 0, false
	}
	return elem{s: b[hdr : hdr+strLen]}, hdr + strLen, true
}

// zlIntSize is the data size of a ziplist integer encoding, 0 if c is none.
func zlIntSize(c byte) int {
	switch c {
	case 0xfe:
		return 1
	case 0xc0:
		return 2
	case 0xf0:
		return 3
	case 0xd0:
		return 4
	case 0xe0:
		return 8
	}
	return 0
}

// intset layout: width (uint32 LE: 2, 4 or 8), count (uint32 LE), then the
// integers ascending, little endian.
func intset(b []byte) ([]int64, bool) {
	Sanitized.Add(1)
	if len(b) < 8 {
		return nil, false
	}
	w, n := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	if w != 2 && w != 4 && w != 8 || uint64(len(b)-8) != uint64(n)*uint64(w) {
		return nil, false
	}
	out := make([]int64, n)
	for i := range out {
		p := b[8+i*int(w):]
		switch w {
		case 2:
			out[i] = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			out[i] = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			out[i] = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && out[i] <= out[i-1] {
			return nil, false
		}
	}
	return out, true
}

func appendIntset(b []byte, ints []int64) []byte {
	w := 2
	for _, v := range ints {
		switch {
		case v < -1<<31 || v >= 1<<31:
			w = 8
		case (v < -1<<15 || v >= 1<<15) && w < 4:
			w = 4
		}
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(w))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ints)))
	for _, v := range ints {
		for i := range w {
			b = append(b, byte(uint64(v)>>(8*i)))
		}
	}
	return b
}

// zipmap layout (hashes before Redis 2.6): a count byte, then key and value
// pairs, each length 1 byte (or 254 and 4 bytes LE), the value's length
// followed by a byte of free space after it; 0xff ends it.
func zipmap(b []byte) ([]elem, bool) {
	Sanitized.Add(1)
	if len(b) < 2 || b[len(b)-1] != 0xff {
		return nil, false
	}
	var out []elem
	p := 1
	readLen := func() (int, bool) {
		if p >= len(b)-1 {
			return 0, false
		}
		if c := b[p]; c < 254 {
			p++
			return int(c), true
		} else if c == 254 && p+5 < len(b) {
			n := binary.LittleEndian.Uint32(b[p+1:])
			p += 5
			return int(n), uint64(n) < uint64(len(b))
		}
		return 0, false
	}
	for p < len(b)-1 {
		kl, ok := readLen()
		if !ok || p+kl > len(b)-1 {
			return nil, false
		}
		key := b[p : p+kl]
		p += kl
		vl, ok := readLen()
		if !ok || p+1+vl > len(b)-1 {
			return nil, false
		}
		free := int(b[p])
		p++
		if p+vl+free > len(b)-1 {
			return nil, false
		}
		out = append(out, elem{s: key}, elem{s: b[p : p+vl]})
		p += vl + free
	}
	if c := int(b[0]); c < 254 && c != len(out)/2 {
		return nil, false
	}
	return out, true
}
