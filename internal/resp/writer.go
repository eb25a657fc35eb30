package resp

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Writer appends replies to a byte buffer in the connection's protocol
// version. Shapes that RESP2 lacks (maps, sets, doubles, nulls, booleans, push)
// are written in their RESP2 equivalents, as Redis does.
type Writer struct {
	B     []byte
	Proto int // 2 or 3
}

// OK writes +OK.
func (w *Writer) OK() { w.B = append(w.B, "+OK\r\n"...) }

// Simple writes a status reply (+s).
func (w *Writer) Simple(s string) {
	w.B = append(w.B, '+')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// Error writes an error reply. msg must carry its code ("ERR ...",
// "WRONGTYPE ..."); newlines are replaced so the reply stays one line.
func (w *Writer) Error(msg string) {
	w.B = append(w.B, '-')
	if strings.ContainsAny(msg, "\r\n") {
		msg = strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
	}
	w.B = append(w.B, msg...)
	w.B = append(w.B, '\r', '\n')
}

// Int writes :n.
func (w *Writer) Int(n int64) {
	w.B = append(w.B, ':')
	w.B = strconv.AppendInt(w.B, n, 10)
	w.B = append(w.B, '\r', '\n')
}

// Bulk writes a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.B = append(w.B, '$')
	w.B = strconv.AppendInt(w.B, int64(len(b)), 10)
	w.B = append(w.B, '\r', '\n')
	w.B = append(w.B, b...)
	w.B = append(w.B, '\r', '\n')
}

// BulkString writes a bulk string from a string.
func (w *Writer) BulkString(s string) {
	w.B = append(w.B, '$')
	w.B = strconv.AppendInt(w.B, int64(len(s)), 10)
	w.B = append(w.B, '\r', '\n')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// BulkInt writes an integer as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [20]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Null writes the null bulk ($-1, or _ in RESP3).
func (w *Writer) Null() {
	if w.Proto == 3 {
		w.B = append(w.B, "_\r\n"...)
		return
	}
	w.B = append(w.B, "$-1\r\n"...)
}

// NullArray writes the null array (*-1, or _ in RESP3).
func (w *Writer) NullArray() {
	if w.Proto == 3 {
		w.B = append(w.B, "_\r\n"...)
		return
	}
	w.B = append(w.B, "*-1\r\n"...)
}

func (w *Writer) header(c byte, n int) {
	w.B = append(w.B, c)
	w.B = strconv.AppendInt(w.B, int64(n), 10)
	w.B = append(w.B, '\r', '\n')
}

// Deferred marks where an aggregate of a length not known yet begins:
// write its elements, then FillArray or FillMap puts the header there.
func (w *Writer) Deferred() int { return len(w.B) }

// FillArray inserts, at a Deferred mark, the header of an array of n.
func (w *Writer) FillArray(mark, n int) { w.insertHeader(mark, '*', n) }

// FillMap inserts, at a Deferred mark, the header of a map of n pairs.
func (w *Writer) FillMap(mark, n int) {
	if w.Proto == 3 {
		w.insertHeader(mark, '%', n)
		return
	}
	w.insertHeader(mark, '*', 2*n)
}

func (w *Writer) insertHeader(mark int, c byte, n int) {
	var buf [24]byte
	h := append(buf[:0], c)
	h = strconv.AppendInt(h, int64(n), 10)
	h = append(h, '\r', '\n')
	w.B = slices.Insert(w.B, mark, h...)
}

// Array writes an array header for n elements.
func (w *Writer) Array(n int) { w.header('*', n) }

// Map writes a map header for n key/value pairs (a flat array of 2n in RESP2).
func (w *Writer) Map(n int) {
	if w.Proto == 3 {
		w.header('%', n)
		return
	}
	w.header('*', 2*n)
}

// Set writes a set header (an array in RESP2).
func (w *Writer) Set(n int) {
	if w.Proto == 3 {
		w.header('~', n)
		return
	}
	w.header('*', n)
}

// Push writes an out-of-band push header (an array in RESP2).
func (w *Writer) Push(n int) {
	if w.Proto == 3 {
		w.header('>', n)
		return
	}
	w.header('*', n)
}

// Double writes a floating point reply: a RESP3 double, or in RESP2 a bulk
// string formatted as Redis does (%.17g; inf and -inf).
func (w *Writer) Double(f float64) {
	var tmp [32]byte
	b := AppendFloat(tmp[:0], f)
	if w.Proto == 3 {
		w.B = append(w.B, ',')
		w.B = append(w.B, b...)
		w.B = append(w.B, '\r', '\n')
		return
	}
	w.Bulk(b)
}

// Bool writes a RESP3 boolean, or 1/0 in RESP2.
func (w *Writer) Bool(v bool) {
	if w.Proto == 3 {
		if v {
			w.B = append(w.B, "#t\r\n"...)
		} else {
			w.B = append(w.B, "#f\r\n"...)
		}
		return
	}
	if v {
		w.Int(1)
	} else {
		w.Int(0)
	}
}

// Verbatim writes a RESP3 verbatim string of format "txt" (a bulk in RESP2).
func (w *Writer) Verbatim(s string) { w.VerbatimAs("txt", s) }

// VerbatimAs writes a RESP3 verbatim string of the given format (a bulk in
// RESP2): its first three bytes, padded with spaces, as Redis writes it.
func (w *Writer) VerbatimAs(format, s string) {
	if w.Proto != 3 {
		w.BulkString(s)
		return
	}
	w.B = append(w.B, '=')
	w.B = strconv.AppendInt(w.B, int64(len(s)+4), 10)
	w.B = append(w.B, '\r', '\n')
	w.B = append(w.B, (format + "   ")[:3]...)
	w.B = append(w.B, ':')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// BigNum writes a RESP3 big number (a bulk string in RESP2); s holds its
// decimal digits.
func (w *Writer) BigNum(s string) {
	if w.Proto != 3 {
		w.BulkString(s)
		return
	}
	w.B = append(w.B, '(')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// Attribute writes the header of a RESP3 attribute map of n pairs. RESP2
// has no attributes: callers write none there, as Redis does.
func (w *Writer) Attribute(n int) { w.header('|', n) }

// AppendFloat formats f as Redis formats doubles in replies (d2string):
// integers within +-2^62 as integers, other values as AppendDtoa does.
func AppendFloat(b []byte, f float64) []byte {
	const limit = float64(math.MaxInt64 / 2)
	if f != 0 && f >= -limit && f <= limit && f == math.Trunc(f) {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return AppendDtoa(b, f)
}

// AppendDtoa formats f as Redis's fpconv_dtoa does: Grisu2's digits (the
// shortest that round-trip, nearly always), plain up to 1e-7 < |f| <
// 1e(digits+7), scientific with a bare exponent beyond ("1e+21",
// "1.5e-7"); "inf", "-inf", "-0". DEBUG DIGEST hashes sorted-set scores
// in this form.
func AppendDtoa(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case math.IsNaN(f):
		return append(b, "nan"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0"...)
		}
		return append(b, '0')
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	var digits [18]byte
	nd, k := grisu2(f, &digits) // f = digits * 10^k
	d := digits[:nd]
	exp := k + nd - 1 // of the first digit
	abs := exp
	if abs < 0 {
		abs = -abs
	}
	switch {
	case k >= 0 && abs < nd+7:
		b = append(b, d...)
		for ; k > 0; k-- {
			b = append(b, '0')
		}
		return b
	case k < 0 && (k > -7 || abs < 4):
		off := nd + k
		if off <= 0 {
			b = append(b, '0', '.')
			for ; off < 0; off++ {
				b = append(b, '0')
			}
			return append(b, d...)
		}
		b = append(b, d[:off]...)
		b = append(b, '.')
		return append(b, d[off:]...)
	}
	b = append(b, d[0])
	if nd > 1 {
		b = append(b, '.')
		b = append(b, d[1:]...)
	}
	b = append(b, 'e')
	if exp < 0 {
		b = append(b, '-')
	} else {
		b = append(b, '+')
	}
	return strconv.AppendInt(b, int64(abs), 10)
}

// AppendCommand appends args as a RESP array of bulk strings: a request,
// or a command of the replication stream.
func AppendCommand(dst []byte, args ...[]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}
