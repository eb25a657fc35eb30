package differential

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Transactions, scripts and blocking commands for TestDifferentialRandom.
// Their payload is a command of the other families: queued in MULTI, or
// run by a Lua script through redis.call with its keys in KEYS and the rest
// in ARGV.
//
// A step of several commands (a transaction and what leads up to it) goes
// through next() as one command: its commands joined by diffBlockSep, which
// no generated argument contains. check runs it with checkBlock.
const diffBlockSep = "\x00;\x00"

func joinBlock(cmds ...[]string) []string {
	var out []string
	for j, c := range cmds {
		if j > 0 {
			out = append(out, diffBlockSep)
		}
		out = append(out, c...)
	}
	return out
}

// splitBlock returns the commands of a block step, or nil for a command.
func splitBlock(cmd []string) [][]string {
	if !slices.Contains(cmd, diffBlockSep) {
		return nil
	}
	var out [][]string
	start := 0
	for j, a := range cmd {
		if a == diffBlockSep {
			out, start = append(out, cmd[start:j]), j+1
		}
	}
	return append(out, cmd[start:])
}

// checkBlock runs the commands of a block step in turn on both servers and
// compares each reply; an EXEC's reply element by element, each as the reply
// of the command queued for it. A difference is reported once the whole
// block has run, so that neither connection is left inside a MULTI.
func (d *diffRun) checkBlock(i int, block [][]string) bool {
	var queued [][]string // non-nil inside MULTI, as Redis saw it
	var what string
	var badCmd []string
	var badGot, badWant harness.RV
	for j, cmd := range block {
		got, want := d.exchange(i, cmd)
		ok, at, sub, subGot, subWant := true, cmd, "", got, want
		name := strings.ToUpper(cmd[0])
		if name == "EXEC" && queued != nil && want.A != nil && len(want.A) == len(queued) && len(got.A) == len(want.A) {
			for k := range queued {
				if !sameReply(queued[k], got.A[k], want.A[k]) {
					ok, at, subGot, subWant = false, queued[k], got.A[k], want.A[k]
					sub = fmt.Sprintf(", reply %d of %d, to %s", k+1, len(queued), quoteCmd(queued[k]))
					break
				}
			}
		} else {
			ok = sameReply(cmd, got, want)
		}
		switch name {
		case "MULTI":
			if queued == nil && want.T == '+' {
				queued = [][]string{}
			}
		case "EXEC", "DISCARD":
			queued = nil
		default:
			if queued != nil && want.T == '+' && want.S == "QUEUED" {
				queued = append(queued, cmd)
			}
		}
		d.remember(fmt.Sprintf("#%d.%d %s -> %s", i, j+1, quoteCmd(cmd), want))
		if d.trace != nil {
			fmt.Fprintf(d.trace, "#%d.%d %s\n  hotkv: %s\n  redis: %s\n", i, j+1, quoteCmd(cmd), got, want)
		}
		if !ok && badCmd == nil {
			what = fmt.Sprintf("command #%d, step %d of %d: %s%s", i, j+1, len(block), quoteCmd(cmd), sub)
			badCmd, badGot, badWant = at, subGot, subWant
		}
	}
	if badCmd == nil {
		return true
	}
	// Leave whatever transaction or WATCH the servers disagree about.
	for _, c := range []*diffConn{d.hot, d.redis} {
		c.do("DISCARD")
		c.do("UNWATCH")
	}
	d.report(what, i, badCmd, badGot, badWant)
	return false
}

// txCmd is a step of the families in this file.
func (g *diffGen) txCmd() []string {
	switch w := g.r.IntN(100); {
	case w < 45:
		return g.multiStep()
	case w < 85:
		return g.scriptStep()
	default:
		return g.blockingStep()
	}
}

// payload is a command of the other families to queue in a MULTI or run
// from a script, but none whose comparison needs a look at the keyspace
// before or after it runs (lex ranges, SORT, OBJECT ENCODING, *SCAN): in a
// transaction the look would be queued too. With nonBlocking (in MULTI and
// scripts) it may be a blocking command with any timeout.
func (g *diffGen) payload(nonBlocking bool) []string {
	families := 13
	if nonBlocking {
		families = 15
	}
	// Each of these twice as often as bitmaps.
	common := []func() []string{g.stringCmd, g.keyCmd, g.listCmd, g.hashCmd, g.setCmd, g.zsetCmd}
	for {
		var cmd []string
		switch n := g.r.IntN(families); {
		case n < 12:
			cmd = common[n/2]()
		case n == 12:
			cmd = g.bitCmd()
		default:
			// Nothing blocks inside MULTI or a script, whatever the timeout.
			cmd = g.blockingCmd(g.pick("0", "0", "100", "-1", "x"))
		}
		if payloadOK(cmd) {
			return cmd
		}
	}
}

func payloadOK(cmd []string) bool {
	switch strings.ToUpper(cmd[0]) {
	case "SORT", "SORT_RO", "OBJECT", "HSCAN", "SSCAN", "ZSCAN",
		"ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX":
		return false
	case "ZRANGE", "ZRANGESTORE":
		return !slices.ContainsFunc(cmd, func(a string) bool { return strings.EqualFold(a, "BYLEX") })
	}
	return true
}

// multiStep is a transaction: maybe a WATCH of keys that the commands before
// MULTI then change (or not), then MULTI, one to six commands (some refused
// when queued, which aborts the EXEC, or failing when run), and EXEC or
// DISCARD. Now and then only an EXEC, DISCARD, WATCH or UNWATCH, out of
// place; a WATCH so left stays in force up to the next transaction's end.
func (g *diffGen) multiStep() []string {
	if g.chance(8) {
		switch g.r.IntN(4) {
		case 0:
			return cmdOf("WATCH", g.keys(diffAllKeys, 1, 2))
		case 1:
			return []string{"UNWATCH"}
		}
		return []string{g.pick("EXEC", "DISCARD")}
	}
	var block [][]string
	if g.chance(40) {
		block = append(block, cmdOf("WATCH", g.keys(diffAllKeys, 1, 3)))
		for n := g.r.IntN(3); n > 0; n-- {
			block = append(block, g.payload(false))
		}
		if g.chance(15) {
			block = append(block, []string{"UNWATCH"})
		}
	}
	block = append(block, []string{"MULTI"})
	for n := 1 + g.r.IntN(6); n > 0; n-- {
		block = append(block, g.queued())
	}
	end := "EXEC"
	if g.chance(12) {
		end = "DISCARD"
	}
	return joinBlock(append(block, []string{end})...)
}

// queued is a command sent inside MULTI.
func (g *diffGen) queued() []string {
	switch g.r.IntN(50) {
	case 0:
		// Unknown: refused when queued, with the first arguments quoted.
		return cmdOf(g.pick("NOSUCHCMD", "foo", "GETT"), g.payload(true)[1:])
	case 1, 2:
		// Wrong arity: refused when queued.
		if p := g.payload(true); len(p) > 1 {
			return p[:1]
		}
		return []string{g.pick("DBSIZE", "RANDOMKEY"), "extra"}
	case 3:
		return []string{"MULTI"}
	case 4:
		return cmdOf("WATCH", g.key(diffAllKeys))
	case 5, 6, 7:
		return g.scriptCall()
	}
	return g.payload(true)
}

// blockingCmd is a blocking pop or move whose first key is mostly a list
// or sorted set (as its command wants), with the timeout given.
func (g *diffGen) blockingCmd(timeout string) []string {
	dir := func() string { return g.pick("LEFT", "RIGHT", "right", "UP") }
	if g.chance(40) {
		k := g.key(diffZKeys)
		ks := append([]string{k}, g.keys(diffZKeys, 0, 1)...)
		if g.chance(50) {
			return cmdOf(g.pick("BZPOPMIN", "BZPOPMAX"), ks, timeout)
		}
		nk := strconv.Itoa(len(ks))
		if g.chance(8) {
			nk = g.pick("0", "-1", "x", "3")
		}
		return cmdOf("BZMPOP", timeout, nk, ks, g.pick("MIN", "MAX", "min", "MID"), g.options(1, []string{g.pick("COUNT", "count"), g.count()}))
	}
	k := g.key(diffListKeys)
	switch g.r.IntN(5) {
	case 0, 1:
		return cmdOf(g.pick("BLPOP", "BRPOP"), k, g.keys(diffListKeys, 0, 1), timeout)
	case 2:
		return cmdOf("BLMOVE", k, g.key(diffListKeys), dir(), dir(), timeout)
	case 3:
		ks := append([]string{k}, g.keys(diffListKeys, 0, 1)...)
		nk := strconv.Itoa(len(ks))
		if g.chance(8) {
			nk = g.pick("0", "-1", "x", "3")
		}
		return cmdOf("BLMPOP", timeout, nk, ks, dir(), g.options(1, []string{g.pick("COUNT", "count"), g.count()}))
	}
	return cmdOf("BRPOPLPUSH", k, g.key(diffListKeys), timeout)
}

// Timeouts that are refused, and ones that are taken (some only as zero:
// block for ever). A blocking command with a taken timeout is sent only
// where it cannot block: after a push to its first key, in MULTI, in a
// script.
var (
	diffBadTimeouts  = []string{"-1", "x", "1e100", "inf", "+inf", "nan", "", " 1", "9223372036854775", "1e16", "0.1x", "-0.5"}
	diffGoodTimeouts = []string{"0", "0.5", "100", "1e15", "0x10", "-0", "1e-400", "1.5", "3e2", "0.001"}
)

// blockingStep is a blocking command that answers at once: its first key
// was just pushed to (or holds another type), or its timeout is refused,
// or it runs in MULTI; rarely one that times out after 10 ms.
func (g *diffGen) blockingStep() []string {
	cmd := g.blockingCmd(g.pick(diffGoodTimeouts...))
	switch w := g.r.IntN(20); {
	case w < 3:
		return joinBlock([]string{"MULTI"}, cmd, []string{"EXEC"})
	case w < 7:
		return g.blockingCmd(g.pick(diffBadTimeouts...))
	case w < 8:
		return g.blockingCmd("0.01")
	}
	// The first key is the one after the timeout (and numkeys) of the
	// *MPOP forms, else the one after the name.
	first := cmd[1]
	if strings.HasSuffix(strings.ToUpper(cmd[0]), "MPOP") {
		first = cmd[3]
	}
	push := cmdOf(g.pick("LPUSH", "RPUSH"), first, g.elems(1, 3))
	if strings.HasPrefix(strings.ToUpper(cmd[0]), "BZ") {
		push = cmdOf("ZADD", first, g.pick("0", "1", "-2.5", "1e308"), g.member())
	}
	return joinBlock(push, cmd)
}

// luaArgs is Lua that builds, in a, the command a script runs: keys from
// the table named keys, the rest from argv, in the order argv[1] lays out
// (k a key, v a value from argv[2] on).
func luaArgs(keys, argv string) string {
	return fmt.Sprintf("local a, k, v = {}, 0, 1 for c in %[2]s[1]:gmatch('.') do "+
		"if c == 'k' then k = k + 1 a[#a+1] = %[1]s[k] else v = v + 1 a[#a+1] = %[2]s[v] end end ", keys, argv)
}

// The scripts and functions that run a payload command, and their SHA1s.
// Each answers the command's reply (through Lua and back), the error it
// raised, or, the last script, the sorted types of what RESP3 gave Lua.
var (
	diffCallScripts = []string{
		luaArgs("KEYS", "ARGV") + "return redis.call(unpack(a))",
		luaArgs("KEYS", "ARGV") + "return redis.pcall(unpack(a))",
		luaArgs("KEYS", "ARGV") + "local r = redis.pcall(unpack(a)) if type(r) == 'table' and r.err then return 'caught: ' .. r.err end return r",
		"#!lua flags=no-writes\n" + luaArgs("KEYS", "ARGV") + "return redis.call(unpack(a))",
		"redis.setresp(3) " + luaArgs("KEYS", "ARGV") + "return redis.call(unpack(a))",
		"redis.setresp(3) " + luaArgs("KEYS", "ARGV") + "local r = redis.pcall(unpack(a)) if type(r) ~= 'table' then return type(r) end " +
			"local t = {} for key, val in pairs(r) do t[#t+1] = type(key) .. ':' .. (type(key) == 'string' and key or '') .. ':' .. type(val) end " +
			"table.sort(t) return t",
	}
	diffCallShas  = shas(diffCallScripts)
	diffCallFuncs = []string{"dcall", "dpcall", "dcall_ro"}
	diffLibrary   = "#!lua name=difflib\n" +
		"local function args(keys, argv) " + luaArgs("keys", "argv") + "return a end\n" +
		"redis.register_function('dcall', function(keys, argv) return redis.call(unpack(args(keys, argv))) end)\n" +
		"redis.register_function('dpcall', function(keys, argv) return redis.pcall(unpack(args(keys, argv))) end)\n" +
		"redis.register_function{function_name='dcall_ro', flags={'no-writes'},\n" +
		"  callback=function(keys, argv) return redis.call(unpack(args(keys, argv))) end}\n"
)

func shas(scripts []string) []string {
	out := make([]string, len(scripts))
	for i, s := range scripts {
		sum := sha1.Sum([]byte(s))
		out[i] = hex.EncodeToString(sum[:])
	}
	return out
}

// scriptCall runs a payload command from a script or function.
func (g *diffGen) scriptCall() []string {
	p := g.payload(true)
	var keys, argv []string
	layout := ""
	for _, a := range p {
		if slices.Contains(diffAllKeys, a) {
			keys, layout = append(keys, a), layout+"k"
		} else {
			argv, layout = append(argv, a), layout+"v"
		}
	}
	nk := strconv.Itoa(len(keys))
	if g.chance(15) {
		return cmdOf(g.pick("FCALL", "FCALL", "FCALL_RO", "fcall"), g.pick(concat(diffCallFuncs, []string{"DCALL", "nosuch"})...), nk, keys, layout, argv)
	}
	s := g.r.IntN(len(diffCallScripts))
	if s >= 4 && strings.EqualFold(p[0], "LCS") {
		// LCS IDX answers a RESP3 map, which comes back from Lua in the
		// order of a Lua table: unspecified.
		s = 0
	}
	name := g.pick("EVAL", "EVAL", "EVAL", "EVAL", "EVALSHA", "EVALSHA", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "eval")
	script := diffCallScripts[s]
	if strings.Contains(strings.ToUpper(name), "SHA") {
		script = diffCallShas[s]
		if g.chance(10) {
			script = strings.ToUpper(script)
		}
	}
	return cmdOf(name, script, nk, keys, layout, argv)
}

// scriptPayload is the command a script call of scriptCall runs, or nil.
func scriptPayload(cmd []string) []string {
	if len(cmd) < 4 {
		return nil
	}
	var known bool
	switch strings.ToUpper(cmd[0]) {
	case "EVAL", "EVAL_RO":
		known = slices.Contains(diffCallScripts, cmd[1])
	case "EVALSHA", "EVALSHA_RO":
		known = slices.Contains(diffCallShas, strings.ToLower(cmd[1]))
	case "FCALL", "FCALL_RO":
		known = slices.Contains(diffCallFuncs, strings.ToLower(cmd[1]))
	}
	nk, err := strconv.Atoi(cmd[2])
	if !known || err != nil || nk < 0 || 3+nk >= len(cmd) {
		return nil
	}
	keys, argv := cmd[3:3+nk], cmd[3+nk:]
	var out []string
	k, v := 0, 1
	for _, c := range argv[0] {
		if c == 'k' && k < len(keys) {
			out, k = append(out, keys[k]), k+1
		} else if c != 'k' && v < len(argv) {
			out, v = append(out, argv[v]), v+1
		} else {
			return nil
		}
	}
	return out
}

// luaNum is Lua for num(x): tonumber(x) when that is a number Redis can
// turn into an integer (C leaves the conversion of a NaN or of a number
// out of int64's range undefined), else nil.
const luaNum = "local function num(x) local n = tonumber(x) if n and n == n and n > -2^63 and n < 2^63 then return n end end "

// diffValueScripts return values of each Lua type and what Redis's Lua
// libraries make of their arguments. args draws their ARGV.
var diffValueScripts = []struct {
	src  string
	args func(g *diffGen) []string
}{
	{"local n = tonumber(ARGV[1]) if n == nil then return 'nil' elseif n ~= n then return 'nan' " +
		"elseif n >= 2^63 then return 'big' elseif n <= -2^63 then return '-big' end return n", (*diffGen).luaNumbers},
	{luaNum + "return {ARGV[1], num(ARGV[2]), ARGV[3], num(ARGV[1]), true, false, 7}", (*diffGen).luaNumbers},
	{"return {1, 2.9, -2.9, 'x', true, false, {nil, 1}, {1, nil, 3}, {ok='fine'}, {err='bad'}, nil, 4}", nil},
	{"return {double=tonumber(ARGV[1])}", (*diffGen).luaNumbers},
	{"return {big_number=ARGV[1]}", (*diffGen).luaTexts},
	{"return {map={[ARGV[1]]=ARGV[2]}}", (*diffGen).luaTexts},
	{"return {set={[ARGV[1]]=true}}", (*diffGen).luaTexts},
	{"return redis.status_reply(ARGV[1])", (*diffGen).luaTexts},
	{"return redis.error_reply(ARGV[1])", (*diffGen).luaTexts},
	{"return {err=ARGV[1]}", (*diffGen).luaTexts},
	{"return {ok=ARGV[1]}", (*diffGen).luaTexts},
	{"return {redis.status_reply(ARGV[1]), redis.error_reply(ARGV[2]), ARGV[3]}", (*diffGen).luaTexts},
	{"error(ARGV[1])", (*diffGen).luaTexts},
	{"error({err=ARGV[1]})", (*diffGen).luaTexts},
	{"return redis.sha1hex(ARGV[1])", (*diffGen).luaTexts},
	{"return cjson.encode(cjson.decode(ARGV[1]))", (*diffGen).luaJSON},
	{"return cjson.decode(ARGV[1])", (*diffGen).luaJSON},
	{luaNum + "return cjson.encode({ARGV[1], num(ARGV[2]), {ARGV[3]}, true})", (*diffGen).luaNumbers},
	{"return cjson.encode(tonumber(ARGV[1]))", (*diffGen).luaNumbers},
	{luaNum + "local function v(x) return num(x) or x end return cmsgpack.pack(v(ARGV[1]), {v(ARGV[2]), ARGV[3]}, true, false)", (*diffGen).luaNumbers},
	{luaNum + "local function v(x) return num(x) or x end return {cmsgpack.unpack(cmsgpack.pack(v(ARGV[1]), v(ARGV[2]), {v(ARGV[3])}))}", (*diffGen).luaNumbers},
	{"return {cmsgpack.unpack(ARGV[1])}", (*diffGen).luaMsgpack},
	{"local x, y, s, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]) " +
		"return {bit.tobit(x), bit.bnot(x), bit.band(x, y), bit.bor(x, y, s), bit.bxor(x, y), bit.lshift(x, s), bit.rshift(x, s), " +
		"bit.arshift(x, s), bit.rol(x, s), bit.ror(x, s), bit.bswap(x), bit.tohex(x), bit.tohex(x, n)}", (*diffGen).luaBits},
}

var (
	diffLuaNumbers = []string{"010", "0b101", "1_000", "0x1p4", "0x1.8", "0X1F", "0x", "1e400", "-1e400", "1e-400",
		"\t5\n", "5\r", " ", "nan(1)", "9007199254740993", "-9223372036854775808", "0.5", "-0.5", "2.9999999999999996"}
	diffLuaTexts = []string{"", "OK", "-ERR x", "ERR bad thing", "WRONGTYPE w", "x\r\ny", "a\nb", "hello world",
		"NOSCRIPT", "-", "123", "-5", "1.5", "\x00\xff"}
	diffLuaJSON = []string{"[1,2,3]", "[1.5,-0.25,1e300,123456789012345678]", `"a\u00e9\n\/\t"`, "[true,false,null]",
		`{"a":[1,{"b":null}]}`, "[[[]]]", "{}", "[]", "1e400", `"\ud83d\ude00"`, "[1,2", "0x10", "-0", " 7 ", "nul",
		`"` + strings.Repeat("x", 40) + `"`, strings.Repeat("[", 1001) + strings.Repeat("]", 1001), `[1e-7,0.1,100000000000000]`,
		`"\u0000\u001f"`, `[-1.5e-320]`, `{"k":"v"}`, `"abc`, "[1,]", "tru"}
	diffLuaMsgpack = []string{"\x93\x01\x02\x03", "\xa3abc", "\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00", "\xca\x3f\xc0\x00\x00",
		"\xd0\x80", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xd3\x80\x00\x00\x00\x00\x00\x00\x00", "\xc0\xc2\xc3",
		"\x92\x01", "", "\xc1", "\xdc\x00\x02\x01\x02", "\x81\xa1k\xa1v", "\x01\x02\x03", "\xd9\x03abc", "\xcc\xff\xcd\xff\xff"}
)

func (g *diffGen) luaNumbers() []string {
	out := make([]string, 3)
	for i := range out {
		switch g.r.IntN(4) {
		case 0:
			out[i] = g.pick(diffLuaNumbers...)
		case 1:
			out[i] = g.float()
		default:
			out[i] = g.value()
		}
	}
	return out
}

func (g *diffGen) luaTexts() []string {
	return []string{g.pick(diffLuaTexts...), g.pick(diffLuaTexts...), g.value()}
}

func (g *diffGen) luaJSON() []string {
	if g.chance(15) {
		return []string{strconv.Quote(g.value())}
	}
	return []string{g.pick(diffLuaJSON...)}
}

func (g *diffGen) luaMsgpack() []string { return []string{g.pick(diffLuaMsgpack...)} }

// luaBits draws integers within LuaBitOp's defined range (±2^51, without
// fractions), shift counts and tohex widths.
func (g *diffGen) luaBits() []string {
	x := func() string {
		switch g.r.IntN(3) {
		case 0:
			return g.pick("0", "1", "-1", "2147483647", "2147483648", "-2147483648", "4294967295", "4294967296", "4294967301", "2251799813685247", "-2251799813685248")
		case 1:
			return strconv.Itoa(g.r.IntN(2001) - 1000)
		}
		return strconv.FormatInt(g.r.Int64N(1<<52)-1<<51, 10)
	}
	return []string{x(), x(), strconv.Itoa(g.r.IntN(80) - 20), strconv.Itoa(g.r.IntN(21) - 10)}
}

// scriptStep is a script or function running a payload command, a script
// returning values of the Lua types, or a SCRIPT or FUNCTION command.
func (g *diffGen) scriptStep() []string {
	switch w := g.r.IntN(100); {
	case w < 45:
		call := g.scriptCall()
		if strings.HasPrefix(strings.ToUpper(call[0]), "FCALL") && g.chance(25) {
			return joinBlock([]string{"FUNCTION", "LOAD", "REPLACE", diffLibrary}, call)
		}
		return call
	case w < 85:
		s := diffValueScripts[g.r.IntN(len(diffValueScripts))]
		var args []string
		if s.args != nil {
			args = s.args(g)
		}
		if g.chance(20) {
			return cmdOf("EVALSHA", shas([]string{s.src})[0], "0", args)
		}
		return cmdOf("EVAL", s.src, "0", args)
	case w < 88:
		return cmdOf("EVAL", "return {KEYS[1], ARGV[1], #KEYS, #ARGV}",
			g.pick("-1", "x", "3", "0", "1", "2", "9223372036854775807", "1.0", ""), g.elems(0, 2))
	case w < 93:
		return cmdOf("SCRIPT", "EXISTS", g.scriptShas())
	case w < 96:
		src := g.pick(diffCallScripts...)
		if g.chance(30) {
			src = diffValueScripts[g.r.IntN(len(diffValueScripts))].src
		}
		return cmdOf("SCRIPT", g.pick("LOAD", "load"), src)
	case w < 97:
		return cmdOf("FUNCTION", "LOAD", diffLibrary)
	case w < 98:
		return cmdOf("FUNCTION", g.pick("DELETE", "FLUSH"), g.pick("difflib", "nosuch", "ASYNC", "SYNC"))
	case w < 99:
		return cmdOf("FUNCTION", "FLUSH")
	}
	return cmdOf("SCRIPT", "FLUSH", g.options(1, []string{"ASYNC"}, []string{"SYNC"}, []string{"LAZY"}))
}

// scriptShas is one to three SHA1s: of scripts the stream runs (in either
// case), of no script, and not SHA1s at all.
func (g *diffGen) scriptShas() []string {
	out := make([]string, 1+g.r.IntN(3))
	for i := range out {
		switch g.r.IntN(6) {
		case 0:
			out[i] = g.pick("0000000000000000000000000000000000000000", "abc", "", strings.Repeat("g", 40))
		case 1:
			out[i] = strings.ToUpper(g.pick(diffCallShas...))
		case 2:
			out[i] = shas([]string{diffValueScripts[g.r.IntN(len(diffValueScripts))].src})[0]
		default:
			out[i] = g.pick(diffCallShas...)
		}
	}
	return out
}
