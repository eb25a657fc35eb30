package script

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The struct library Redis ships to scripts (Roberto Ierusalimschy's
// struct.c as in Redis's deps/lua): struct.pack, struct.unpack and
// struct.size over C-like formats, on a 64-bit little-endian machine, as
// Redis runs: 'l', 'L' and 'T' are 8 bytes, 'i' and 'I' 4 unless sized,
// and the maximum alignment ('!' alone) is a double's, 8.
//
// Formats: '>' big and '<' little endian, '![n]' alignment, 'x' a zero
// byte, 'b' 'B' 'h' 'H' 'l' 'L' 'T' 'i[n]' 'I[n]' integers (lower case
// signed), 'c[n]' n bytes (pack: n 0 is the whole string; unpack: the
// number read just before), 's' a zero-terminated string, 'f' 'd' floats,
// ' ' ignored.

const (
	structMaxInt   = 32 // MAXINTSIZE
	structMaxAlign = 8  // MAXALIGN
)

type structHeader struct {
	little bool
	align  int
}

type structFormat struct {
	L  *lua.LState
	fn string // pack, unpack or size, for argument errors
	// pushed: pack has pushed its nil mark (b_pack), so an argument past the
	// last is nil there, not "no value".
	pushed bool
	fmt    string
	i      int
	h      structHeader
}

func newStructFormat(L *lua.LState, fn string) *structFormat {
	f := &structFormat{L: L, fn: fn, h: structHeader{little: true, align: 1}}
	f.fmt = f.str(1)
	return f
}

func (f *structFormat) more() bool { return f.i < len(f.fmt) }

func (f *structFormat) next() byte {
	c := f.fmt[f.i]
	f.i++
	return c
}

// num reads an optional decimal count after an option (getnum).
func (f *structFormat) num(df int) int {
	if !f.more() || !isDigit(f.fmt[f.i]) {
		return df
	}
	a := 0
	for f.more() && isDigit(f.fmt[f.i]) {
		d := int(f.fmt[f.i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			luaError(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// size is an option's size (optsize); 0 for options that need no alignment.
func (f *structFormat) size(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return f.num(1)
	case 'i', 'I':
		sz := f.num(4)
		if sz > structMaxInt {
			luaError(f.L, "integral size %d is larger than limit of %d", sz, structMaxInt)
		}
		return sz
	}
	return 0
}

// toAlign is the padding before an item of size at offset n (gettoalign).
func (f *structFormat) toAlign(n, opt, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > f.h.align {
		size = f.h.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

// control handles the options that only set the header (controloptions).
func (f *structFormat) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.h.little = false
	case '<':
		f.h.little = true
	case '!':
		a := f.num(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			luaError(f.L, "alignment %d is not a power of 2", a)
		}
		f.h.align = a
	default:
		argError(f.L, f.fn, 1, "invalid format option '"+string(opt)+"'")
	}
}

func structLib(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

func structPack(L *lua.LState) int {
	f := newStructFormat(L, "pack")
	f.pushed = true
	arg := 2
	var b []byte
	for f.more() {
		opt := f.next()
		size := f.size(opt)
		for pad := f.toAlign(len(b), int(opt), size); pad > 0; pad-- {
			b = append(b, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			b = putInteger(b, f.number(arg), f.h.little, size)
			arg++
		case 'x':
			b = append(b, 0)
		case 'f':
			b = appendFloat(b, uint64(math.Float32bits(float32(f.number(arg)))), 4, f.h.little)
			arg++
		case 'd':
			b = appendFloat(b, math.Float64bits(f.number(arg)), 8, f.h.little)
			arg++
		case 'c', 's':
			s := f.str(arg)
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, f.fn, arg, "string too short") // struct.c names the argument after it, as here
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
			}
		default:
			f.control(opt)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

// putInteger appends n as a size-byte integer: negative numbers through
// int64, as (Uinttype)(Inttype)n, bytes past the 8th zero.
func putInteger(b []byte, n float64, little bool, size int) []byte {
	var v uint64
	if n < 0 {
		v = uint64(int64(n))
	} else {
		v = uint64(n)
	}
	buf := make([]byte, size)
	for i := range size {
		j := i
		if !little {
			j = size - 1 - i
		}
		buf[j] = byte(v)
		v >>= 8
	}
	return append(b, buf...)
}

func appendFloat(b []byte, bits uint64, size int, little bool) []byte {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], bits)
	p := buf[:size]
	if !little {
		for i, j := 0, size-1; i < j; i, j = i+1, j-1 {
			p[i], p[j] = p[j], p[i]
		}
	}
	return append(b, p...)
}

// getInteger reads a size-byte integer as a Lua number (getinteger): bytes
// past the 8th shift out, signed values are sign-extended from their size.
func getInteger(p []byte, little, signed bool) float64 {
	var l uint64
	for i := range p {
		j := i
		if little {
			j = len(p) - 1 - i
		}
		l = l<<8 | uint64(p[j])
	}
	if !signed {
		return float64(l)
	}
	if bits := len(p)*8 - 1; bits >= 0 && bits < 64 { // 'i0' reads nothing: 0
		if mask := ^uint64(0) << bits; l&mask != 0 {
			l |= mask
		}
	}
	return float64(int64(l))
}

func structUnpack(L *lua.LState) int {
	f := newStructFormat(L, "unpack")
	data := f.str(2)
	ld := len(data)
	pos := 0 // luaL_optinteger(L, 3, 1) - 1
	if v := L.Get(3); v != lua.LNil {
		pos = int(f.number(3)) - 1
	}
	if pos < 0 || pos > ld {
		argError(L, f.fn, 3, "offset must be 1 or greater")
	}
	var out []lua.LValue
	for f.more() {
		opt := f.next()
		size := f.size(opt)
		pos += f.toAlign(pos, int(opt), size)
		if size > ld || pos > ld-size {
			argError(L, f.fn, 2, "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			out = append(out, lua.LNumber(getInteger([]byte(data[pos:pos+size]), f.h.little, opt >= 'a')))
		case 'x':
		case 'f':
			bits := uint32(getInteger([]byte(data[pos:pos+4]), f.h.little, false))
			out = append(out, lua.LNumber(math.Float32frombits(bits)))
		case 'd':
			var buf [8]byte
			copy(buf[:], data[pos:pos+8])
			if !f.h.little {
				for i, j := 0, 7; i < j; i, j = i+1, j-1 {
					buf[i], buf[j] = buf[j], buf[i]
				}
			}
			out = append(out, lua.LNumber(math.Float64frombits(binary.LittleEndian.Uint64(buf[:]))))
		case 'c':
			if size == 0 {
				n, ok := lastNumber(out)
				if !ok {
					luaError(L, "format 'c0' needs a previous size")
				}
				out = out[:len(out)-1]
				size = int(n)
				if size < 0 || size > ld || pos > ld-size {
					argError(L, f.fn, 2, "data string too short")
				}
			}
			out = append(out, lua.LString(data[pos:pos+size]))
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				luaError(L, "unfinished string in data")
			}
			size = e + 1
			out = append(out, lua.LString(data[pos:pos+e]))
		default:
			f.control(opt)
		}
		pos += size
	}
	for _, v := range out {
		L.Push(v)
	}
	L.Push(lua.LNumber(pos + 1))
	return len(out) + 1
}

// lastNumber is the value unpacked just before, if it is a number. (With
// nothing unpacked yet struct.c would take the data string itself if it
// looks numeric, and then miscount its results; HotKV refuses.)
func lastNumber(out []lua.LValue) (lua.LNumber, bool) {
	if len(out) == 0 {
		return 0, false
	}
	n, ok := out[len(out)-1].(lua.LNumber)
	return n, ok
}

func structSize(L *lua.LState) int {
	f := newStructFormat(L, "size")
	pos := 0
	for f.more() {
		opt := f.next()
		size := f.size(opt)
		pos += f.toAlign(pos, int(opt), size)
		switch {
		case opt == 's':
			argError(L, f.fn, 1, "option 's' has no fixed size")
		case opt == 'c' && size == 0:
			argError(L, f.fn, 1, "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}

// number and str are luaL_checknumber and luaL_checklstring: numeric
// strings are numbers and numbers strings, as in Lua 5.1, and the errors
// name the function as argError does.
func (f *structFormat) number(n int) float64 {
	switch v := f.L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if x, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64); err == nil {
			return x
		}
	}
	f.typeError(n, "number")
	return 0
}

func (f *structFormat) str(n int) string {
	switch v := f.L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return v.String()
	}
	f.typeError(n, "string")
	return ""
}

func (f *structFormat) typeError(n int, want string) {
	got := "no value"
	if n <= f.L.GetTop() || f.pushed {
		got = f.L.Get(n).Type().String()
	}
	argError(f.L, f.fn, n, want+" expected, got "+got)
}

func isAlnum(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
