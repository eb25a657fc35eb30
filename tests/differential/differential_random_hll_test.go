package differential

import (
	"strconv"
	"strings"
)

// HyperLogLogs in TestDifferentialRandom. An HLL is a string, so the
// readback's GET compares its bytes (header, cached count, sparse opcodes or
// dense registers) with Redis's exactly. Besides the PF* commands, the
// string commands read and damage HLL keys (SETRANGE and SETBIT over the
// header and the registers, APPEND, SET of hand-made values that are almost
// HLLs), so that the PF* commands meet every kind of invalid value.

var diffHLLKeys = []string{"p0", "p1", "p2"}

// hllElem is an element for PFADD: a shared member, or one of a larger pool
// so that a key's registers keep filling.
func (g *diffGen) hllElem() string {
	if g.chance(30) {
		return g.member()
	}
	return "e" + strconv.Itoa(g.r.IntN(5000))
}

func (g *diffGen) hllCmd() []string {
	k := g.key(diffHLLKeys)
	switch g.r.IntN(32) {
	case 0, 1, 2, 3, 4, 5, 6, 7:
		args := []string{"PFADD", k}
		for n := g.r.IntN(6); n > 0; n-- {
			args = append(args, g.hllElem())
		}
		return args
	case 8, 9:
		return g.hllBurst(k)
	case 10, 11, 12:
		return cmdOf("PFCOUNT", g.keys(diffHLLKeys, 1, 3))
	case 13, 14, 15:
		// The destination is often among the sources, or a source is
		// missing (the keys are deleted now and then).
		return cmdOf("PFMERGE", g.dest(diffHLLKeys), g.keys(diffHLLKeys, 0, 3))
	case 16, 17, 18:
		sub := g.pick("GETREG", "ENCODING", "ENCODING", "TODENSE", "DECODE", "DECODE", "decode", "NOSUCH")
		return cmdOf("PFDEBUG", sub, k)
	case 19:
		// Arity errors, and SIMD OFF: HotKV has no SIMD to turn on (ON
		// answers "enabled" in a Redis built with AVX2 on a CPU that has
		// it), and Redis 8.0.2 answers a bad argument twice.
		return g.pickCmd([]string{"PFADD"}, []string{"PFCOUNT"}, []string{"PFMERGE"}, []string{"PFDEBUG", "ENCODING"},
			[]string{"PFDEBUG", "GETREG", k, "x"}, []string{"PFDEBUG", "SIMD", g.pick("OFF", "off")})
	case 20:
		return cmdOf("SETRANGE", k, g.pick("3", "4", "5", "8", "14", "15", "15", "16", "17", "18", "20", "30", "3000", "12303", "12304"),
			g.pick("\x00", "\x01", "\x02", "\x80", "\xff", "\x7f", "@", "@\x00", "\x3f", "Z", "HYLL", "\x00\x00\x00\x00\x00\x00\x00\x00",
				"\x05\x00\x00\x00\x00\x00\x00\x00", "\x81\x82\x83"))
	case 21:
		// Bit 127 is the top bit of byte 15: the cached count's "stale" flag.
		return cmdOf("SETBIT", k, g.pick("127", "127", "39", "33", "130", "135", strconv.Itoa(128+g.r.IntN(300))), g.pick("0", "1"))
	case 22:
		return cmdOf("APPEND", k, g.pick("\x00", "\x80", "@", "\x7f", "@\x00", "", "x", "\xa0\x80"))
	case 23, 24:
		return cmdOf("GETRANGE", k, g.pick("0", "4", "8", "16", "-1", "-3"), g.pick("3", "4", "15", "-1", "40"))
	case 25:
		return cmdOf(g.pick("STRLEN", "GET"), k)
	case 26, 27:
		return cmdOf("SET", g.dest(diffHLLKeys), g.hllBytes())
	case 28:
		// Damage lasts: start afresh now and then.
		return []string{"DEL", g.pick(diffHLLKeys...)}
	default:
		return cmdOf("PFADD", k, g.hllElem())
	}
}

func (g *diffGen) pickCmd(xs ...[]string) []string { return xs[g.r.IntN(len(xs))] }

// hllBurst adds many distinct elements at once, enough now and then to
// grow a sparse HLL past hll-sparse-max-bytes (3000) into a dense one.
func (g *diffGen) hllBurst(k string) []string {
	args := []string{"PFADD", k}
	from := g.r.IntN(100000)
	for i := range []int{50, 300, 800, 1500, 3000}[g.r.IntN(5)] {
		args = append(args, "b"+strconv.Itoa(from+i))
	}
	return args
}

// hllBytes is a hand-made value that is, or almost is, an HLL: sparse
// opcodes that cover the 16384 registers exactly, or fall short, or run
// over, or end in half an XZERO; dense registers of the right or a wrong
// length; a bad magic or encoding; a header alone.
func (g *diffGen) hllBytes() string {
	hdr := []byte("HYLL\x01\x00\x00\x00")
	if g.chance(70) {
		hdr = append(hdr, "\x00\x00\x00\x00\x00\x00\x00\x80"...) // no cached count
	} else {
		hdr = append(hdr, byte(g.r.IntN(256)), byte(g.r.IntN(256)), 0, 0, 0, 0, 0, 0)
	}
	switch g.r.IntN(10) {
	case 0:
		hdr[4] = 0
		regs := make([]byte, 12288+g.pickInt(0, 0, 0, -1, 1))
		for i := range regs {
			if g.chance(5) {
				regs[i] = byte(g.r.IntN(256))
			}
		}
		return string(hdr) + string(regs)
	case 1:
		hdr[4] = byte(g.pickInt(2, 3, 255))
		return string(hdr) + "\x7f\xff"
	case 2:
		return g.pick("HYLL", string(hdr[:15]), string(hdr), "HYLX"+string(hdr[4:])+"\x7f\xff", "hyll"+string(hdr[4:])+"\x7f\xff")
	}
	total := 16384
	if g.chance(30) {
		total += g.pickInt(-1, 1, -64, 100)
	}
	// Half an XZERO at the end: Redis reads its second byte from the NUL
	// after the string, so it covers one register. (Not a longer one: a
	// PFADD into it leaves half an XZERO whose second byte Redis has
	// written past the end of the string, which HotKV cannot see.)
	half := g.chance(15)
	if half {
		total--
	}
	var ops []byte
	for n := 0; n < total; {
		left := total - n
		switch r := g.r.IntN(10); {
		case r < 4:
			run := min(left, 1+g.r.IntN(4))
			ops = append(ops, byte(0x80|g.r.IntN(32)<<2|(run-1)))
			n += run
		case r < 6:
			run := min(left, 1+g.r.IntN(64))
			ops = append(ops, byte(run-1))
			n += run
		default:
			run := min(left, 1+g.r.IntN(4000))
			ops = append(ops, byte(0x40|(run-1)>>8), byte(run-1))
			n += run
		}
	}
	if half {
		ops = append(ops, 0x40)
	}
	return string(hdr) + string(ops)
}

func (g *diffGen) pickInt(xs ...int) int { return xs[g.r.IntN(len(xs))] }

// hllUnspecified reports whether cmd is a PFADD or PFMERGE into a sparse HLL
// whose last opcode is the first byte of an XZERO that covers more than one
// register, within reach (the opcodes before it cover fewer than all of
// them). Redis reads the missing byte from the NUL after the string; when it
// splits that opcode, it writes the new opcodes' last byte over that NUL,
// past the end of the string, and if they end in an XZERO reads it back
// later as that opcode's second byte: memory HotKV keeps no copy of. Such
// commands are not sent.
func (d *diffRun) hllUnspecified(cmd []string) bool {
	if len(cmd) < 2 || (!strings.EqualFold(cmd[0], "PFADD") && !strings.EqualFold(cmd[0], "PFMERGE")) {
		return false
	}
	v, err := d.redis.do("GET", cmd[1])
	if err != nil {
		d.t.Fatal(err)
	}
	s := v.S
	if v.T != '$' || len(s) <= 16 || s[:4] != "HYLL" || s[4] != 1 {
		return false
	}
	covered := 0
	for i := 16; i < len(s); i++ {
		switch c := s[i]; {
		case c&0xc0 == 0x40: // XZERO
			if i+1 == len(s) {
				return c != 0x40 && covered < 16384
			}
			covered += (int(c&0x3f)<<8 | int(s[i+1])) + 1
			i++
		case c&0x80 != 0: // VAL
			covered += int(c&3) + 1
		default: // ZERO
			covered += int(c&0x3f) + 1
		}
	}
	return false
}
