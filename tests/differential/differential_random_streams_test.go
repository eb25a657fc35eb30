package differential

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Streams in TestDifferentialRandom: the generator, its pools, and how
// stream replies are made comparable (streamNormalize).
//
// IDs are explicit and come from the command index (xms), so that both
// servers get the same ones and a random ID often names an entry. Only x2
// is given XADD's "*", whose IDs come from each server's clock. Idle times
// are kept apart from the min-idle times asked for (0 and 1000 s): an
// entry is idle either for about as long as the run has gone, or for much
// longer (XCLAIM IDLE and TIME set far in the past), so which entries
// qualify does not depend on timing.

var (
	diffXKeys      = []string{"x0", "x1", "x2"}
	diffXGroups    = []string{"g1", "g2"}
	diffXConsumers = []string{"alice", "bob", "c", ""}
	diffXFields    = []string{"f", "g", "name", "1", "", "long-" + strings.Repeat("f", 70)}
	// No part of an ID is 2^64 or more: Redis 8.0.2 parses that with
	// strtoull and leaves errno at ERANGE, and a later numeric SORT, which
	// reads errno without clearing it, fails with "One or more scores can't
	// be converted into double" (TestDifferentialStreamXAdd has them).
	diffXBadIDs = []string{"0-0", "0", "-", "+", "$", ">", "(1", "1-", "-1", "1--1", "1-x", "x", "", " 1",
		"1.5", "01-01", "18446744073709551615-18446744073709551615", "18446744073709551615",
		"18446744073709551615-*", "1-18446744073709551615", "9223372036854775808-1"}
	diffXCounts  = []string{"0", "1", "2", "3", "5", "10", "-1", "x", "9223372036854775807", "9223372036854775808"}
	diffXMinIdle = []string{"0", "0", "0", "1000000", "-1", "x"}
)

// xms is the milliseconds part of the IDs XADD takes now: it grows with
// the command index, slowly enough that a random ID often names an entry.
func (g *diffGen) xms() int { return 1 + g.i/128 }

// xid is an ID near the streams' range, mostly recent: complete, or bare
// milliseconds.
func (g *diffGen) xid() string {
	ms := g.r.IntN(g.xms() + 2)
	if g.chance(50) {
		ms = max(0, g.xms()-g.r.IntN(3))
	}
	if g.chance(15) {
		return strconv.Itoa(ms)
	}
	return fmt.Sprintf("%d-%d", ms, g.r.IntN(4))
}

// xbound is a range bound: open (- or +), an ID, an exclusive one, or bad.
func (g *diffGen) xbound(open string) string {
	switch g.r.IntN(20) {
	case 0, 1, 2, 3:
		return open
	case 4, 5, 6:
		return "(" + g.xid()
	case 7:
		return g.pick(diffXBadIDs...)
	case 8:
		return g.pick("-", "+", "(-", "(+", "(0-0", "(18446744073709551615-18446744073709551615", "0", "18446744073709551615")
	}
	return g.xid()
}

// xaddID is XADD's ID: mostly one after the last (ms-*, a bare ms, or
// ms-seq, which may be too small), sometimes an older one, 0-x, or bad.
func (g *diffGen) xaddID(k string) string {
	switch n := g.r.IntN(100); {
	case n < 45:
		return fmt.Sprintf("%d-*", g.xms())
	case n < 58:
		return strconv.Itoa(g.xms())
	case n < 78:
		return fmt.Sprintf("%d-%d", g.xms(), g.r.IntN(6))
	case n < 86:
		return g.xid()
	case n < 92 && k == "x2":
		return "*"
	case n < 96:
		return g.pick("0-1", "0-*", "0-0", "0")
	}
	return g.pick(diffXBadIDs...)
}

// xtrim is "MAXLEN|MINID [=|~] threshold [LIMIT n]".
func (g *diffGen) xtrim() []string {
	args := []string{g.pick("MAXLEN", "MINID", "MAXLEN", "MINID", "maxlen", "LEN")}
	if g.chance(65) {
		args = append(args, g.pick("=", "~", "~"))
	}
	if strings.EqualFold(args[0], "MINID") && g.chance(90) {
		// An early ID: MINID trims everything before it.
		args = append(args, fmt.Sprintf("%d-%d", g.r.IntN(g.xms()/2+2), g.r.IntN(3)))
	} else {
		args = append(args, g.pick(diffXCounts...))
	}
	if g.chance(30) {
		args = append(args, "LIMIT", g.pick("0", "1", "2", "5", "100", "-1", "x"))
	}
	return args
}

func (g *diffGen) xfields() []string {
	var out []string
	for p := 1 + g.r.IntN(3); p > 0; p-- {
		v := g.value()
		if g.chance(5) {
			v = strings.Repeat("v", 100+g.r.IntN(300)) // fills a node by bytes
		}
		out = append(out, g.pick(diffXFields...), v)
	}
	if g.chance(4) {
		out = out[:len(out)-1]
	}
	return out
}

// xids is one or more IDs, as XDEL, XACK and XCLAIM take them.
func (g *diffGen) xids(most int) []string {
	out := make([]string, 1+g.r.IntN(most))
	for i := range out {
		out[i] = g.xid()
		if g.chance(3) {
			out[i] = g.pick(diffXBadIDs...)
		}
	}
	return out
}

// xgroup is mostly g1, so that group commands mostly find their group.
func (g *diffGen) xgroup() string {
	if g.chance(3) {
		return g.pick("nogroup", "")
	}
	if g.chance(65) {
		return diffXGroups[0]
	}
	return g.pick(diffXGroups...)
}

func (g *diffGen) xconsumer() string { return g.pick(diffXConsumers...) }

func (g *diffGen) streamCmd() []string {
	cmd := g.streamCmdWhole()
	if g.chance(3) && len(cmd) > 1 {
		// Cut short: arity and syntax errors at every position.
		cmd = cmd[:1+g.r.IntN(len(cmd)-1)]
	}
	return cmd
}

func (g *diffGen) streamCmdWhole() []string {
	n := g.r.IntN(100)
	k := g.key(diffXKeys)
	// Most group traffic goes to one key, to meet its groups, and half the
	// entries, for the groups to read.
	if (n >= 42 && n < 84 && g.chance(75)) || (n < 31 && g.chance(50)) {
		k = "x0"
	}
	switch {
	case n < 31:
		args := []string{"XADD", k}
		opts := g.options(2, []string{"NOMKSTREAM"}, g.xtrim())
		if g.chance(70) {
			opts = nil
		}
		return cmdOf(args, opts, g.xaddID(k), g.xfields())
	case n < 36:
		args := cmdOf("XRANGE", k, g.xbound("-"), g.xbound("+"))
		return cmdOf(args, g.options(1, []string{"COUNT", g.pick(diffXCounts...)}))
	case n < 38:
		args := cmdOf("XREVRANGE", k, g.xbound("+"), g.xbound("-"))
		return cmdOf(args, g.options(1, []string{"COUNT", g.pick(diffXCounts...)}))
	case n < 42:
		ks := g.keys(diffXKeys, 1, 2)
		args := cmdOf("XREAD", g.options(2, []string{"COUNT", g.pick(diffXCounts...)}, []string{"BLOCK", g.block()}))
		return cmdOf(args, g.pick("STREAMS", "STREAMS", "STREAMS", "streams", "STREAM"), ks, g.readIDs(len(ks), "$", "+", "0", "0-0"))
	case n < 52:
		ks := []string{k}
		if g.chance(20) {
			ks = append(ks, g.key(diffXKeys))
		}
		args := cmdOf("XREADGROUP", g.pick("GROUP", "GROUP", "GROUP", "GROUP", "GROUP", "group", "GRP"), g.xgroup(), g.xconsumer())
		args = cmdOf(args, g.options(2, []string{"COUNT", g.pick(diffXCounts...)}, []string{"BLOCK", g.block()}, []string{"NOACK"}))
		return cmdOf(args, "STREAMS", ks, g.readIDs(len(ks), ">", ">", ">", ">", "0", "$", "+"))
	case n < 56:
		return cmdOf("XACK", k, g.xgroup(), g.xids(4))
	case n < 61:
		args := cmdOf("XCLAIM", k, g.xgroup(), g.xconsumer(), g.pick(diffXMinIdle...), g.xids(3))
		return cmdOf(args, g.options(3, []string{"IDLE", g.pick("0", "500", "2000000", "-1", "x", "9223372036854775807")},
			[]string{"TIME", g.pick("0", "1", "4102444800000", "-1", "x")},
			[]string{"RETRYCOUNT", g.pick("0", "1", "5", "-1", "x", "9223372036854775807")},
			[]string{"FORCE"}, []string{"JUSTID"}, []string{"LASTID", g.xbound("+")}, []string{"BOGUS"}))
	case n < 64:
		args := cmdOf("XAUTOCLAIM", k, g.xgroup(), g.xconsumer(), g.pick(diffXMinIdle...), g.xbound("-"))
		return cmdOf(args, g.options(2, []string{"COUNT", g.pick(diffXCounts...)}, []string{"JUSTID"}))
	case n < 67:
		return cmdOf("XPENDING", k, g.xgroup())
	case n < 70:
		args := cmdOf("XPENDING", k, g.xgroup())
		if g.chance(30) {
			args = append(args, "IDLE", g.pick(diffXMinIdle...))
		}
		args = cmdOf(args, g.xbound("-"), g.xbound("+"), g.pick(diffXCounts...))
		if g.chance(40) {
			args = append(args, g.xconsumer())
		}
		return args
	case n < 84:
		return g.xgroupCmd(k)
	case n < 87:
		return cmdOf("XDEL", k, g.xids(3))
	case n < 89:
		return cmdOf("XTRIM", k, g.xtrim())
	case n < 93:
		switch g.r.IntN(5) {
		case 0:
			return cmdOf("XINFO", "GROUPS", k)
		case 1:
			return cmdOf("XINFO", "CONSUMERS", k, g.xgroup())
		case 2:
			return cmdOf("XINFO", "STREAM", k, "FULL", g.options(1, []string{"COUNT", g.pick(diffXCounts...)}))
		case 3:
			if g.chance(30) {
				return cmdOf("XINFO", "HELP")
			}
			return cmdOf("XINFO", g.pick("NOPE", "stream"), k)
		}
		return cmdOf("XINFO", "STREAM", k)
	case n < 95:
		id := fmt.Sprintf("%d-%d", g.xms()+g.r.IntN(2), g.r.IntN(3))
		if g.chance(15) {
			id = g.xbound("+")
		}
		return cmdOf("XSETID", k, id, g.options(2, []string{"ENTRIESADDED", g.pick(diffXCounts...)},
			[]string{"MAXDELETEDID", g.xbound("+")}))
	case n < 97:
		return cmdOf("XLEN", k)
	case n < 98:
		// Copies and renames keep a stream's nodes and groups.
		if g.chance(50) {
			return cmdOf("COPY", k, g.dest(diffXKeys), g.options(1, []string{"REPLACE"}))
		}
		return cmdOf("RENAME", k, g.dest(diffXKeys))
	case n < 99:
		// Small nodes, so that "~" trims and the radix tree counts meet
		// node boundaries in short streams. (The bytes are set once per
		// seed: streamNodeConfig.)
		return cmdOf("CONFIG", "SET", "stream-node-max-entries", g.pick("100", "3", "5", "10", "0"))
	}
	return cmdOf("DEL", k)
}

// block is a BLOCK timeout: 1 ms, which serves what is there or times
// out (nothing else writes), now and then a bad one.
func (g *diffGen) block() string {
	if g.chance(15) {
		return g.pick("-1", "x", "1.5")
	}
	return "1"
}

// readIDs is one ID per key for XREAD and XREADGROUP, drawn from special
// (and random ones), now and then one too few.
func (g *diffGen) readIDs(n int, special ...string) []string {
	out := make([]string, n)
	for i := range out {
		if g.chance(70) {
			out[i] = g.pick(special...)
		} else {
			out[i] = g.xbound("0")
		}
	}
	if g.chance(5) {
		out = out[:n-1]
	}
	return out
}

func (g *diffGen) xgroupCmd(k string) []string {
	entriesRead := []string{"ENTRIESREAD", g.pick("0", "1", "3", "-1", "-2", "x", "9223372036854775807")}
	id := g.pick("$", "$", "$", "0", "0", "0", "0-0", g.xid(), g.xid(), g.pick(diffXBadIDs...))
	switch g.r.IntN(16) {
	case 0, 1, 2, 3, 4, 5, 6, 7:
		var opts []string
		if g.chance(70) {
			opts = []string{"MKSTREAM"}
		}
		if g.chance(25) {
			opts = append(opts, entriesRead...)
		}
		if g.chance(5) {
			opts = append(opts, g.pick("MKSTREAM", "BOGUS"))
		}
		return cmdOf("XGROUP", "CREATE", k, g.xgroup(), id, opts)
	case 8, 9:
		return cmdOf("XGROUP", "SETID", k, g.xgroup(), id, g.options(1, entriesRead))
	case 10:
		return cmdOf("XGROUP", "DESTROY", k, g.xgroup())
	case 11, 12:
		return cmdOf("XGROUP", "CREATECONSUMER", k, g.xgroup(), g.xconsumer())
	case 13, 14:
		return cmdOf("XGROUP", "DELCONSUMER", k, g.xgroup(), g.xconsumer())
	}
	return cmdOf("XGROUP", g.pick("HELP", "NOPE", "create"), k, g.xgroup(), "$")
}

// streamNodeConfig is the CONFIG SET that starts a seed's run (on an empty
// keyspace): the default node size in entries, and a node size in bytes
// that stays for the run. Redis 8.0.2 can corrupt a stream and crash when
// stream-node-max-bytes changes while a stream holds nodes (seen: 300, an
// XADD, 200, an XADD of larger fields, then XRANGE), so the generator
// changes only the entries.
func streamNodeConfig(seed uint64) []string {
	bytes := []string{"4096", "4096", "100", "300", "0"}[seed%5]
	return []string{"CONFIG", "SET", "stream-node-max-entries", "100", "stream-node-max-bytes", bytes}
}

// streamReadback reads a stream back whole: its entries, its counters and
// groups, and every group's consumers and pending entries.
func streamReadback(k string) [][]string {
	return [][]string{{"XRANGE", k, "-", "+"}, {"XINFO", "STREAM", k}, {"XINFO", "GROUPS", k},
		{"XINFO", "STREAM", k, "FULL", "COUNT", "0"}}
}

// isStreamCmd reports whether a command is a stream command (they all start
// with X).
func isStreamCmd(name string) bool { return strings.HasPrefix(name, "X") }

// streamNormalize makes a stream reply comparable: IDs XADD's "*" took from
// the clock become "<auto>", and clock readings "<time>": idle, inactive,
// seen-time and active-time, and the delivery times of pending entries
// (XPENDING's idle, XINFO STREAM FULL's delivery time). Where a reply
// holds clock IDs, XINFO STREAM's radix tree counts depend on their bytes
// and are masked too.
func streamNormalize(cmd []string, v harness.RV) harness.RV {
	auto := false
	v = maskAutoIDs(v, &auto)
	switch strings.ToUpper(cmd[0]) {
	case "XPENDING":
		if len(cmd) > 3 {
			for _, e := range v.A { // [id, consumer, idle, deliveries]
				if len(e.A) == 4 {
					e.A[2] = maskTime(e.A[2])
				}
			}
		}
	case "XINFO":
		maskInfoTimes(v, auto)
	}
	return v
}

// autoMs is where the milliseconds of a clock ID lie (years 2001 to 5138);
// the generator's explicit IDs stay below or far above.
const autoMsMin, autoMsMax = 1e12, 1e14

// maskAutoIDs returns a copy of v with clock IDs as "<auto>", and notes
// whether it met one.
func maskAutoIDs(v harness.RV, auto *bool) harness.RV {
	if v.A != nil {
		a := make([]harness.RV, len(v.A))
		for i, e := range v.A {
			a[i] = maskAutoIDs(e, auto)
		}
		v.A = a
		return v
	}
	if v.T != '$' && v.T != '+' {
		return v
	}
	ms, seq, ok := strings.Cut(v.S, "-")
	if !ok {
		return v
	}
	m, err1 := strconv.ParseUint(ms, 10, 64)
	_, err2 := strconv.ParseUint(seq, 10, 64)
	if err1 == nil && err2 == nil && m >= autoMsMin && m < autoMsMax {
		*auto = true
		v.S = "<auto>"
	}
	return v
}

// maskTime masks a clock reading; a negative one (never) stays.
func maskTime(v harness.RV) harness.RV {
	if v.T == ':' && !strings.HasPrefix(v.S, "-") {
		v.S = "<time>"
	}
	return v
}

// maskInfoTimes masks, in place, the clock readings of an XINFO reply: in
// every list of names and values (a RESP2 array, a RESP3 map), the values
// of the time names, and the delivery times in "pending" lists: [id,
// consumer, time, count] in a group, [id, time, count] in a consumer.
func maskInfoTimes(v harness.RV, auto bool) {
	for i := 0; i+1 < len(v.A); i += 2 {
		if v.A[i].T != '$' && v.A[i].T != '+' {
			continue
		}
		switch v.A[i].S {
		case "idle", "inactive", "seen-time", "active-time":
			v.A[i+1] = maskTime(v.A[i+1])
		case "radix-tree-keys", "radix-tree-nodes":
			if auto {
				v.A[i+1] = harness.RV{T: ':', S: "<layout>"}
			}
		case "pending":
			for _, p := range v.A[i+1].A {
				if len(p.A) == 3 || len(p.A) == 4 {
					p.A[len(p.A)-2] = maskTime(p.A[len(p.A)-2])
				}
			}
		}
	}
	for _, e := range v.A {
		maskInfoTimes(e, auto)
	}
}
