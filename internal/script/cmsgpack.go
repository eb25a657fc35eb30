package script

import (
	"encoding/binary"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// cmsgpack is lua-cmsgpack as Redis ships it: MessagePack for scripts
// (pack, unpack, unpack_one, unpack_limit). Job queues such as BullMQ pass
// their options to scripts packed this way. As lua-cmsgpack: a table whose
// keys are 1..n is an array, any other a map (an empty one an array);
// integral numbers pack as the smallest integer type, others as a float
// when that is exact, else a double; nesting past 16 tables packs nil.
// Like Redis's copy it reads no bin or ext types.

const msgpackMaxNesting = 16

func cmsgpackLib(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	t.RawSetString("pack", L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop()
		if n == 0 {
			L.ArgError(0, "MessagePack pack needs input.")
		}
		p := packer{limit: maxPack}
		for i := 1; i <= n; i++ {
			p.value(L.Get(i), 0)
		}
		if p.tooBig {
			luaError(L, "MessagePack pack output over %d bytes", maxPack)
		}
		L.Push(lua.LString(p.b))
		return 1
	}))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int {
		return unpackValues(L, L.CheckString(1), 0, 0)
	}))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		return unpackValues(L, L.CheckString(1), 1, intArg(L, 2, 0))
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		return unpackValues(L, L.CheckString(1), intArg(L, 2, -1), intArg(L, 3, 0))
	}))
	return t
}

// intArg reads an integer argument as Lua 5.1's luaL_optinteger does,
// numeric strings included; def when absent (-1: required).
func intArg(L *lua.LState, i, def int) int {
	v := L.Get(i)
	if v == lua.LNil && def >= 0 {
		return def
	}
	n, ok := v.(lua.LNumber)
	if s, isStr := v.(lua.LString); isStr {
		n, ok = lua.LVAsNumber(s), true
		if n == 0 && strings.TrimSpace(string(s)) != "0" {
			ok = false
		}
	}
	if !ok {
		L.TypeError(i, lua.LTNumber)
	}
	return int(n)
}

// maxPack caps pack's output. A table that holds itself several times
// packs to width^16 nils at the nesting limit (6^16 for six self
// references): one script would exhaust memory, and Redis's own C packer
// cannot be stopped by SCRIPT KILL meanwhile. No real payload is near it.
const maxPack = 64 << 20

// packer builds pack's output, up to limit bytes.
type packer struct {
	b      []byte
	limit  int
	tooBig bool
}

func (p *packer) value(v lua.LValue, depth int) {
	if len(p.b) > p.limit {
		p.tooBig = true
	}
	if p.tooBig {
		return
	}
	p.b = packValue(p.b, v, depth, p)
}

func packValue(b []byte, v lua.LValue, depth int, p *packer) []byte {
	switch v := v.(type) {
	case lua.LBool:
		if v {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(v)
		if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return packInt(b, int64(f))
		}
		if float64(float32(f)) == f { // NaN never is: a double
			b = append(b, 0xca)
			return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(f)))
		}
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	case lua.LString:
		return packString(b, string(v))
	case *lua.LTable:
		if depth >= msgpackMaxNesting {
			return append(b, 0xc0)
		}
		n, array := msgpackArrayLen(v)
		if array {
			p.b = packHeader(b, 0x90, 0xdc, 0xdd, n)
			for i := 1; i <= n; i++ {
				p.value(v.RawGetInt(i), depth+1)
			}
			return p.b
		}
		p.b = packHeader(b, 0x80, 0xde, 0xdf, n)
		for k, val := v.Next(lua.LNil); k != lua.LNil; k, val = v.Next(k) {
			p.value(k, depth+1)
			p.value(val, depth+1)
		}
		return p.b
	}
	return append(b, 0xc0) // nil, and what MessagePack cannot hold
}

// msgpackArrayLen counts t's keys and reports whether they are exactly the
// numbers 1..n, as lua-cmsgpack's table_is_an_array. Keys go in the order
// gopher-lua's next gives (the array part, then insertion order), so a
// map packs the same bytes every time; Lua 5.1's hash order, which Redis's
// bytes follow, is not reproduced.
func msgpackArrayLen(t *lua.LTable) (int, bool) {
	count, max := 0, 0.0
	array := true
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		count++
		n, ok := k.(lua.LNumber)
		if !ok || n <= 0 || float64(n) != math.Trunc(float64(n)) {
			array = false
			continue
		}
		max = math.Max(max, float64(n))
	}
	return count, array && max == float64(count)
}

func packInt(b []byte, n int64) []byte {
	switch {
	case n >= 0 && n <= 127:
		return append(b, byte(n))
	case n >= 0 && n <= math.MaxUint8:
		return append(b, 0xcc, byte(n))
	case n >= 0 && n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n >= 0 && n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	case n >= 0:
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	case n >= -32:
		return append(b, byte(n))
	case n >= math.MinInt8:
		return append(b, 0xd0, byte(n))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

func packString(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

// packHeader writes an array or map header: fix (n < 16), 16- or 32-bit.
func packHeader(b []byte, fix, b16, b32 byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, b32), uint32(n))
}

// unpackValues decodes values from s at offset, as lua-cmsgpack's
// mp_unpack_full: with limit and offset both 0 every value, and no offset
// pushed; otherwise at most limit values (none for 0), after the offset
// that follows them (-1 at the end of s).
func unpackValues(L *lua.LState, s string, limit, offset int) int {
	if offset < 0 || limit < 0 { // lua-cmsgpack names the input's length as the limit
		luaError(L, "Invalid request to unpack with offset of %d and limit of %d.", offset, len(s))
	}
	if offset > len(s) {
		luaError(L, "Start offset %d greater than input length %d.", offset, len(s))
	}
	all := limit == 0 && offset == 0
	d := msgpackDecoder{L: L, s: s, off: offset}
	var vals []lua.LValue
	for d.off < len(s) && (all || len(vals) < limit) {
		vals = append(vals, d.value(0))
		if d.err != "" {
			luaError(L, "%s", d.err)
		}
	}
	if !all {
		next := d.off
		if next >= len(s) {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range vals {
		L.Push(v)
	}
	if all {
		return len(vals)
	}
	return len(vals) + 1
}

type msgpackDecoder struct {
	L   *lua.LState
	s   string
	off int
	err string
}

// need reports whether n more bytes are there, setting the error if not.
func (d *msgpackDecoder) need(n int) bool {
	if d.err == "" && n <= len(d.s)-d.off && n >= 0 {
		return true
	}
	if d.err == "" {
		d.err = "Missing bytes in input."
	}
	return false
}

func (d *msgpackDecoder) uint(n int) uint64 {
	if !d.need(n) {
		return 0
	}
	var v uint64
	for i := 0; i < n; i++ {
		v = v<<8 | uint64(d.s[d.off+i])
	}
	d.off += n
	return v
}

func (d *msgpackDecoder) value(depth int) lua.LValue {
	if !d.need(1) {
		return lua.LNil
	}
	if depth >= 4000 { // where Redis's C decoder runs out of Lua stack
		d.err = "stack overflow"
		return lua.LNil
	}
	c := d.s[d.off]
	d.off++
	switch {
	case c <= 0x7f:
		return lua.LNumber(c)
	case c >= 0xe0:
		return lua.LNumber(int8(c))
	case c&0xe0 == 0xa0:
		return d.str(int(c & 0x1f))
	case c&0xf0 == 0x90:
		return d.array(int(c&0x0f), depth)
	case c&0xf0 == 0x80:
		return d.mapOf(int(c&0x0f), depth)
	}
	switch c {
	case 0xc0:
		return lua.LNil
	case 0xc2:
		return lua.LFalse
	case 0xc3:
		return lua.LTrue
	case 0xca:
		return lua.LNumber(math.Float32frombits(uint32(d.uint(4))))
	case 0xcb:
		return lua.LNumber(math.Float64frombits(d.uint(8)))
	case 0xcc:
		return lua.LNumber(d.uint(1))
	case 0xcd:
		return lua.LNumber(d.uint(2))
	case 0xce:
		return lua.LNumber(d.uint(4))
	case 0xcf: // lua-cmsgpack pushes it as a signed lua_Integer: 2^64-1 is -1
		return lua.LNumber(float64(int64(d.uint(8))))
	case 0xd0:
		return lua.LNumber(int8(d.uint(1)))
	case 0xd1:
		return lua.LNumber(int16(d.uint(2)))
	case 0xd2:
		return lua.LNumber(int32(d.uint(4)))
	case 0xd3:
		return lua.LNumber(float64(int64(d.uint(8))))
	case 0xd9:
		return d.str(int(d.uint(1)))
	case 0xda:
		return d.str(int(d.uint(2)))
	case 0xdb:
		return d.str(int(d.uint(4)))
	case 0xdc:
		return d.array(int(d.uint(2)), depth)
	case 0xdd:
		return d.array(int(d.uint(4)), depth)
	case 0xde:
		return d.mapOf(int(d.uint(2)), depth)
	case 0xdf:
		return d.mapOf(int(d.uint(4)), depth)
	}
	d.err = "Bad data format in input."
	return lua.LNil
}

func (d *msgpackDecoder) str(n int) lua.LValue {
	if d.err != "" || !d.need(n) {
		return lua.LNil
	}
	s := d.s[d.off : d.off+n]
	d.off += n
	return lua.LString(s)
}

// array and mapOf refuse counts the rest of the input cannot hold (each
// element takes a byte at least), so a forged header cannot size a huge
// table.
func (d *msgpackDecoder) array(n, depth int) lua.LValue {
	if d.err != "" || !d.need(n) {
		return lua.LNil
	}
	t := d.L.CreateTable(n, 0)
	for i := 1; i <= n && d.err == ""; i++ {
		t.RawSetInt(i, d.value(depth+1))
	}
	return t
}

func (d *msgpackDecoder) mapOf(n, depth int) lua.LValue {
	if d.err != "" || !d.need(2*n) {
		return lua.LNil
	}
	t := d.L.CreateTable(0, n)
	for i := 0; i < n && d.err == ""; i++ {
		k := d.value(depth + 1)
		v := d.value(depth + 1)
		if d.err != "" {
			break
		}
		if k == lua.LNil { // lua_settable raises these
			d.err = "table index is nil"
			break
		}
		if f, isNum := k.(lua.LNumber); isNum && math.IsNaN(float64(f)) {
			d.err = "table index is NaN"
			break
		}
		t.RawSet(k, v)
	}
	return t
}
