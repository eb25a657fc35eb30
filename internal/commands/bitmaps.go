package commands

import (
	"math/bits"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
)

// Bitmap commands: bit-level operations on string values. Bit 0 is the most
// significant bit of the first byte, as in Redis. The writes are flagged
// SelfTouch: like Redis they signal a key to WATCH only when they changed
// it (SETBIT of a bit already so, BITFIELD whose writes all FAIL and
// errors change nothing).

const errBitOffset = "ERR bit offset is not an integer or out of range"

// bitOffset parses a bit offset; bitfield offsets may be "#N" (N times the
// field width). The byte it lands in must fit proto-max-bulk-len (512 MB).
func bitOffset(arg []byte, width int64) (int64, bool) {
	hash := len(arg) > 0 && arg[0] == '#'
	if hash {
		arg = arg[1:]
	}
	n, ok := cmdtable.ParseInt(arg)
	if !ok || n < 0 {
		return 0, false
	}
	if hash {
		if n > (1<<62)/width {
			return 0, false
		}
		n *= width
	}
	if n>>3 >= 512<<20 {
		return 0, false
	}
	return n, true
}

// bitString returns key's string for writing, created or zero-padded to hold
// byte index last; ok is false after a WRONGTYPE reply.
func bitString(x *cmdtable.Ctx, key []byte, last int64) (e *keyspace.Entry, grew, ok bool) {
	sh := x.Shard(key)
	e = sh.Lookup(key, x.Now)
	if e == nil {
		e = sh.SetString(key, nil, 0, false)
	} else if e.Kind != keyspace.KindString {
		x.Error(cmdtable.ErrWrongType)
		return nil, false, false
	}
	if b := e.Bytes(); int64(len(b)) <= last {
		e.SetBytes(append(b, make([]byte, last+1-int64(len(b)))...))
		grew = true
	}
	return e, grew, true
}

func getBit(b []byte, off int64) int {
	if off>>3 >= int64(len(b)) {
		return 0
	}
	return int(b[off>>3]>>(7-uint(off&7))) & 1
}

func setBit(b []byte, off int64, v int) {
	mask := byte(1) << (7 - uint(off&7))
	if v != 0 {
		b[off>>3] |= mask
	} else {
		b[off>>3] &^= mask
	}
}

func setbit(x *cmdtable.Ctx) {
	off, ok := bitOffset(x.Args[2], 1)
	if !ok {
		x.Error(errBitOffset)
		return
	}
	v := x.Args[3]
	if len(v) != 1 || (v[0] != '0' && v[0] != '1') {
		x.Error("ERR bit is not an integer or out of range")
		return
	}
	e, grew, ok := bitString(x, x.Args[1], off>>3)
	if !ok {
		return
	}
	old := getBit(e.Bytes(), off)
	setBit(e.Bytes(), off, int(v[0]-'0'))
	if grew || old != int(v[0]-'0') {
		x.Notify(notify.String, "setbit", x.Args[1])
		x.Touch(x.Args[1])
	} else {
		x.NoEffects() // as Redis: not dirty, not propagated
	}
	x.W.Int(int64(old))
}

func getbit(x *cmdtable.Ctx) {
	off, ok := bitOffset(x.Args[2], 1)
	if !ok {
		x.Error(errBitOffset)
		return
	}
	e, ok := readString(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(getBit(e.Bytes(), off)))
}

// bitRange is the optional [start end [BYTE|BIT]] of BITCOUNT and BITPOS.
type bitRange struct {
	start, end      int64
	isBit, endGiven bool
}

// parseBitRange parses it; ok is false after an error reply. Redis checks the
// arguments before the key, so callers parse first. BITCOUNT reads start,
// end, then the unit; BITPOS (unitFirst) reads the unit before the end, so
// "BITPOS k 0 1 x FOO" is a syntax error rather than a bad integer.
func parseBitRange(x *cmdtable.Ctx, args [][]byte, unitFirst bool) (r bitRange, ok bool) {
	r.end = -1
	if len(args) >= 1 {
		if r.start, ok = cmdtable.ParseInt(args[0]); !ok {
			x.Error(cmdtable.ErrNotInt)
			return r, false
		}
	}
	parseEnd := func() bool {
		if len(args) >= 2 {
			if r.end, ok = cmdtable.ParseInt(args[1]); !ok {
				x.Error(cmdtable.ErrNotInt)
				return false
			}
			r.endGiven = true
		}
		return true
	}
	if !unitFirst && !parseEnd() {
		return r, false
	}
	if len(args) == 3 {
		switch {
		case cmdtable.Is(args[2], "bit"):
			r.isBit = true
		case cmdtable.Is(args[2], "byte"):
		default:
			x.Error(cmdtable.ErrSyntax)
			return r, false
		}
	}
	if unitFirst && !parseEnd() {
		return r, false
	}
	return r, true
}

// bits converts the range, as Redis does, into inclusive bit positions of a
// string of n bytes; empty means it selects nothing. For BITCOUNT (count),
// Redis first answers 0 when both ends are negative and start > end; BITPOS
// has no such rule and clamps both ends to 0, so "BITPOS k 1 -10 -100" looks
// at the first byte.
func (r bitRange) bits(n int64, count bool) (first, last int64, empty bool) {
	start, end, total := r.start, r.end, n
	if r.isBit {
		total = n * 8
	}
	if count && r.endGiven && start < 0 && end < 0 && start > end {
		return 0, 0, true
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	if start > end {
		return 0, 0, true
	}
	if r.isBit {
		return start, end, false
	}
	return start * 8, end*8 + 7, false
}

func bitcount(x *cmdtable.Ctx) {
	if len(x.Args) != 2 && len(x.Args) != 4 && len(x.Args) != 5 {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	r, ok := parseBitRange(x, x.Args[2:], false)
	if !ok {
		return
	}
	e, ok := readString(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(0)
		return
	}
	first, last, empty := r.bits(int64(len(e.Bytes())), true)
	if empty {
		x.W.Int(0)
		return
	}
	x.W.Int(popcount(e.Bytes(), first, last))
}

// popcount counts set bits in the inclusive bit range [first, last].
func popcount(s []byte, first, last int64) int64 {
	var n int64
	for first <= last && first&7 != 0 {
		n += int64(getBit(s, first))
		first++
	}
	for first+7 <= last {
		n += int64(bits.OnesCount8(s[first>>3]))
		first += 8
	}
	for ; first <= last; first++ {
		n += int64(getBit(s, first))
	}
	return n
}

func bitpos(x *cmdtable.Ctx) {
	b, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if b != 0 && b != 1 {
		x.Error("ERR The bit argument must be 1 or 0.")
		return
	}
	if len(x.Args) > 6 {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	r, ok := parseBitRange(x, x.Args[3:], true)
	if !ok {
		return
	}
	e, ok := readString(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(-b) // a missing key is an endless run of zeros
		return
	}
	first, last, empty := r.bits(int64(len(e.Bytes())), false)
	if empty {
		x.W.Int(-1)
		return
	}
	pos := findBit(e.Bytes(), first, last, int(b))
	if pos < 0 && b == 0 && !r.endGiven {
		pos = last + 1 // zeros continue past the string's end
	}
	x.W.Int(pos)
}

// findBit returns the first position in [first, last] holding bit, or -1.
func findBit(s []byte, first, last int64, bit int) int64 {
	skip := byte(0)
	if bit == 0 {
		skip = 0xff
	}
	for p := first; p <= last; {
		if p&7 == 0 && p+7 <= last && s[p>>3] == skip {
			p += 8
			continue
		}
		if getBit(s, p) == bit {
			return p
		}
		p++
	}
	return -1
}

func bitop(x *cmdtable.Ctx) {
	op := x.Args[1]
	srcs := x.Args[3:]
	var kind byte
	switch {
	case cmdtable.Is(op, "and"):
		kind = '&'
	case cmdtable.Is(op, "or"):
		kind = '|'
	case cmdtable.Is(op, "xor"):
		kind = '^'
	case cmdtable.Is(op, "not"):
		kind = '~'
		if len(srcs) != 1 {
			x.Error("ERR BITOP NOT must be called with a single source key.")
			return
		}
	default:
		x.Error(cmdtable.ErrSyntax)
		return
	}
	vals := make([][]byte, len(srcs))
	maxLen := 0
	for i, k := range srcs {
		e := x.LookupRead(k)
		if e == nil {
			continue
		}
		if e.Kind != keyspace.KindString {
			x.Error(cmdtable.ErrWrongType)
			return
		}
		vals[i] = e.Bytes()
		maxLen = max(maxLen, len(e.Bytes()))
	}
	res := make([]byte, maxLen)
	for j := range res {
		var acc byte
		for i, v := range vals {
			var c byte
			if j < len(v) {
				c = v[j]
			}
			switch {
			case i == 0:
				acc = c
			case kind == '&':
				acc &= c
			case kind == '|':
				acc |= c
			case kind == '^':
				acc ^= c
			}
		}
		if kind == '~' {
			acc = ^acc
		}
		res[j] = acc
	}
	dst := x.Args[2]
	sh := x.Shard(dst)
	if maxLen == 0 {
		if sh.Delete(dst, x.Now) {
			x.Notify(notify.Generic, "del", dst)
			x.Touch(dst)
		}
	} else {
		sh.Put(dst, keyspace.NewString(res))
		x.Notify(notify.String, "set", dst)
		x.Touch(dst)
	}
	x.W.Int(int64(maxLen))
}

// BITFIELD

type bitfieldOp struct {
	op       byte // 'g'et, 's'et, 'i'ncrby
	signed   bool
	width    int64
	offset   int64
	value    int64
	overflow byte // 'w'rap, 's'at, 'f'ail
}

func parseBitfieldType(b []byte) (signed bool, width int64, ok bool) {
	if len(b) < 2 || (b[0] != 'i' && b[0] != 'u' && b[0] != 'I' && b[0] != 'U') {
		return false, 0, false
	}
	signed = b[0] == 'i' || b[0] == 'I'
	width, ok = cmdtable.ParseInt(b[1:])
	if !ok || width < 1 || (signed && width > 64) || (!signed && width > 63) {
		return false, 0, false
	}
	return signed, width, true
}

func parseBitfield(x *cmdtable.Ctx, readOnly bool) ([]bitfieldOp, bool) {
	var ops []bitfieldOp
	writes := false
	overflow := byte('w')
	args := x.Args[2:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		var op byte
		switch {
		case cmdtable.Is(a, "get") && i+2 < len(args):
			op = 'g'
		case cmdtable.Is(a, "set") && i+3 < len(args):
			op = 's'
		case cmdtable.Is(a, "incrby") && i+3 < len(args):
			op = 'i'
		case cmdtable.Is(a, "overflow") && i+1 < len(args):
			switch v := args[i+1]; {
			case cmdtable.Is(v, "wrap"):
				overflow = 'w'
			case cmdtable.Is(v, "sat"):
				overflow = 's'
			case cmdtable.Is(v, "fail"):
				overflow = 'f'
			default:
				x.Error("ERR Invalid OVERFLOW type specified")
				return nil, false
			}
			i++
			continue
		default:
			x.Error(cmdtable.ErrSyntax)
			return nil, false
		}
		signed, width, ok := parseBitfieldType(args[i+1])
		if !ok {
			x.Error("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
			return nil, false
		}
		off, ok := bitOffset(args[i+2], width)
		if !ok {
			x.Error(errBitOffset)
			return nil, false
		}
		f := bitfieldOp{op: op, signed: signed, width: width, offset: off, overflow: overflow}
		if op != 'g' {
			writes = true
			if f.value, ok = cmdtable.ParseInt(args[i+3]); !ok {
				x.Error(cmdtable.ErrNotInt)
				return nil, false
			}
			i++
		}
		i += 2
		ops = append(ops, f)
	}
	// As in Redis, BITFIELD_RO refuses a SET or INCRBY only once every
	// operation parsed: a malformed one anywhere is the error reported.
	if readOnly && writes {
		x.Error("ERR BITFIELD_RO only supports the GET subcommand")
		return nil, false
	}
	return ops, true
}

func readField(s []byte, off, width int64, signed bool) int64 {
	var v uint64
	for i := int64(0); i < width; i++ {
		v = v<<1 | uint64(getBit(s, off+i))
	}
	if signed && width < 64 && v&(1<<(width-1)) != 0 {
		v |= ^uint64(0) << width
	}
	return int64(v)
}

func writeField(s []byte, off, width int64, v int64) {
	for i := width - 1; i >= 0; i-- {
		setBit(s, off+i, int(v&1))
		v >>= 1
	}
}

// fieldOverflow applies Redis's overflow rules to value+incr in a field of
// the given width; it returns the result and whether it overflowed.
//
// For signed fields the checks are Redis's checkSignedBitfieldOverflow,
// wrapping arithmetic included: its maxincr (max-value) wraps for a value
// within max of math.MinInt64, which then counts as an overflow upwards,
// so "OVERFLOW SAT SET i8 0 -9223372036854775808" writes 127.
func fieldOverflow(f bitfieldOp, value, incr int64) (int64, bool) {
	if f.signed {
		maxv := int64(1<<63 - 1)
		if f.width < 64 {
			maxv = 1<<(f.width-1) - 1
		}
		minv := -maxv - 1
		sum := value + incr // wraps in two's complement, as the C code does
		maxincr := int64(uint64(maxv) - uint64(value))
		minincr := minv - value
		narrow := f.width != 64
		over := value > maxv || (narrow && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr)
		under := !over && (value < minv || (narrow && incr < minincr) || (value < 0 && incr < 0 && incr < minincr))
		if !over && !under {
			return sum, false
		}
		switch f.overflow {
		case 's':
			if over {
				return maxv, true
			}
			return minv, true
		default: // wrap (fail ignores the value)
			if f.width < 64 {
				u := uint64(sum)
				if u&(1<<(f.width-1)) != 0 {
					u |= ^uint64(0) << f.width
				} else {
					u &^= ^uint64(0) << f.width
				}
				sum = int64(u)
			}
			return sum, true
		}
	}
	maxv := uint64(1)<<f.width - 1
	v := uint64(value)
	over := v > maxv || (incr > 0 && uint64(incr) > maxv-v)
	under := incr < 0 && uint64(-incr) > v
	if !over && !under {
		return int64(v + uint64(incr)), false
	}
	if f.overflow == 's' {
		if over {
			return int64(maxv), true
		}
		return 0, true
	}
	return int64((v + uint64(incr)) & maxv), true
}

func bitfieldRun(x *cmdtable.Ctx, readOnly bool) {
	ops, ok := parseBitfield(x, readOnly)
	if !ok {
		return
	}
	var s []byte
	lastByte := int64(-1)
	for _, f := range ops {
		if f.op != 'g' {
			lastByte = max(lastByte, (f.offset+f.width-1)>>3)
		}
	}
	grew := false
	if lastByte >= 0 {
		e, g, ok := bitString(x, x.Args[1], lastByte)
		grew = g
		if !ok {
			return
		}
		s = e.Bytes()
	} else {
		e, ok := readString(x, x.Args[1])
		if !ok {
			return
		}
		if e != nil {
			s = e.Bytes()
		}
	}
	x.W.Array(len(ops))
	changes := 0
	defer func() {
		if changes > 0 {
			x.Notify(notify.String, "setbit", x.Args[1])
			x.Touch(x.Args[1])
		} else if !readOnly && !grew { // (grown, with every write refused by OVERFLOW FAIL: the padding is logged)
			x.NoEffects() // as Redis: not dirty, not propagated
		}
	}()
	for _, f := range ops {
		old := readField(s, f.offset, f.width, f.signed)
		switch f.op {
		case 'g':
			x.W.Int(old)
		case 's':
			v, over := fieldOverflow(f, f.value, 0)
			if over && f.overflow == 'f' {
				x.W.Null()
				continue
			}
			writeField(s, f.offset, f.width, v)
			if grew || v != old {
				changes++
			}
			x.W.Int(old)
		case 'i':
			v, over := fieldOverflow(f, old, f.value)
			if over && f.overflow == 'f' {
				x.W.Null()
				continue
			}
			writeField(s, f.offset, f.width, v)
			if grew || v != old {
				changes++
			}
			x.W.Int(v)
		}
	}
}

func init() {
	const g = "bitmap"
	key1 := func(c *cmdtable.Cmd) *cmdtable.Cmd { c.First, c.Last, c.Step, c.Group = 1, 1, 1, g; return c }
	cmdtable.Register(
		key1(&cmdtable.Cmd{Name: "setbit", Arity: 4, Flags: cmdtable.Write | cmdtable.DenyOOM | cmdtable.SelfTouch, Effects: cmdtable.AsSent, Run: setbit, Since: "2.2.0",
			Summary: "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.", Args: "key offset value"}),
		key1(&cmdtable.Cmd{Name: "getbit", Arity: 3, Flags: cmdtable.ReadOnly | cmdtable.Fast, Run: getbit, Since: "2.2.0",
			Summary: "Returns a bit value by offset.", Args: "key offset"}),
		key1(&cmdtable.Cmd{Name: "bitcount", Arity: -2, Flags: cmdtable.ReadOnly, Run: bitcount, Since: "2.6.0",
			Summary: "Counts the number of set bits (population counting) in a string.", Args: "key [start end [BYTE | BIT]]"}),
		key1(&cmdtable.Cmd{Name: "bitpos", Arity: -3, Flags: cmdtable.ReadOnly, Run: bitpos, Since: "2.8.7",
			Summary: "Finds the first set (1) or clear (0) bit in a string.", Args: "key bit [start [end [BYTE | BIT]]]"}),
		&cmdtable.Cmd{Name: "bitop", Arity: -4, Flags: cmdtable.Write | cmdtable.DenyOOM | cmdtable.SelfTouch, Effects: cmdtable.AsSent, First: 2, Last: -1, Step: 1, Run: bitop, Group: g, Since: "2.6.0",
			Summary: "Performs bitwise operations on multiple strings, and stores the result.", Args: "<AND | OR | XOR | NOT> destkey key [key ...]"},
		key1(&cmdtable.Cmd{Name: "bitfield", Arity: -2, Flags: cmdtable.Write | cmdtable.DenyOOM | cmdtable.SelfTouch, Effects: cmdtable.AsSent, Run: func(x *cmdtable.Ctx) { bitfieldRun(x, false) }, Since: "3.2.0",
			Summary: "Performs arbitrary bitfield integer operations on strings.",
			Args:    "key [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> ...]]"}),
		key1(&cmdtable.Cmd{Name: "bitfield_ro", Arity: -2, Flags: cmdtable.ReadOnly | cmdtable.Fast, Run: func(x *cmdtable.Ctx) { bitfieldRun(x, true) }, Since: "6.0.0",
			Summary: "Performs arbitrary read-only bitfield integer operations on strings.", Args: "key [GET encoding offset [GET encoding offset ...]]"}),
	)
}
