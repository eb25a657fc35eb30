package rdb

import (
	"encoding/binary"
	"math"
	"strconv"
)

// reader reads RDB primitives from a payload. The first error sticks: reads
// after it return zero values, so decoders check bad once per item.
type reader struct {
	b   []byte
	off int
	bad bool
}

func (r *reader) fail() {
	r.bad = true
	r.off = len(r.b)
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) take(n int) []byte {
	if n < 0 || n > r.left() {
		r.fail()
		return nil
	}
	b := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

func (r *reader) byte() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

// rawLength reads an RDB length: 6 bits, 14 bits, or 32 or 64 bits big
// endian after a marker byte. enc reports the 11xxxxxx form, whose low bits
// name a special string encoding instead.
func (r *reader) rawLength() (n uint64, enc bool) {
	c := r.byte()
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3f), false
	case 1:
		return uint64(c&0x3f)<<8 | uint64(r.byte()), false
	case 3:
		return uint64(c & 0x3f), true
	}
	switch c {
	case 0x80:
		if b := r.take(4); b != nil {
			return uint64(binary.BigEndian.Uint32(b)), false
		}
	case 0x81:
		if b := r.take(8); b != nil {
			return binary.BigEndian.Uint64(b), false
		}
	default:
		r.fail()
	}
	return 0, false
}

// length reads a plain length.
func (r *reader) length() uint64 {
	n, enc := r.rawLength()
	if enc {
		r.fail()
	}
	return n
}

// count reads a number of items that take at least min bytes each, refusing
// more than the rest of the payload can hold, so a corrupt count never makes
// a decoder allocate for it.
func (r *reader) count(min int) int {
	n := r.length()
	if n > uint64(r.left()/min) {
		r.fail()
		return 0
	}
	return int(n)
}

// maxLZFRatio bounds what LZF can expand to: a 3-byte back reference yields
// at most 264 bytes.
const maxLZFRatio = 90

// str reads a string as rdbGenericLoadStringObject does: raw bytes (which
// alias the payload), a 8, 16 or 32-bit integer, or LZF-compressed bytes.
func (r *reader) str() []byte {
	n, enc := r.rawLength()
	if !enc {
		if n > uint64(r.left()) {
			r.fail()
			return nil
		}
		return r.take(int(n))
	}
	var v int64
	switch n {
	case 0:
		v = int64(int8(r.byte()))
	case 1:
		if b := r.take(2); b != nil {
			v = int64(int16(binary.LittleEndian.Uint16(b)))
		}
	case 2:
		if b := r.take(4); b != nil {
			v = int64(int32(binary.LittleEndian.Uint32(b)))
		}
	case 3:
		clen, size := r.length(), r.length()
		if r.bad || clen == 0 || clen > uint64(r.left()) || size > clen*maxLZFRatio {
			r.fail()
			return nil
		}
		out, ok := lzfDecompress(r.take(int(clen)), int(size))
		if !ok {
			r.fail()
		}
		return out
	default:
		r.fail()
	}
	if r.bad {
		return nil
	}
	return strconv.AppendInt(nil, v, 10)
}

// fixed64 reads 8 little-endian bytes (millisecond times, binary doubles).
func (r *reader) fixed64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// binaryDouble reads ZSET_2's scores.
func (r *reader) binaryDouble() float64 { return math.Float64frombits(r.fixed64()) }

// textDouble reads the old ZSET's scores: a length byte then the text, or
// 254, 255 for +inf and -inf (253, NaN, is refused).
func (r *reader) textDouble() float64 {
	switch n := r.byte(); n {
	case 254:
		return math.Inf(1)
	case 255:
		return math.Inf(-1)
	default:
		f, ok := parseScore(r.take(int(n)))
		if n == 253 {
			ok = false
		}
		if !ok {
			r.fail()
		}
		return f
	}
}

// parseScore parses a score as strtod would; NaN is refused, as HotKV's
// sorted sets cannot order it.
func parseScore(b []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, !math.IsNaN(f)
}
