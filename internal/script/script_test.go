package script

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/hotkv/hotkv/internal/resp"
)

// fakeCaller answers a few commands from a map, in RESP2 or RESP3; its
// ACL lets everything but DEL run.
type fakeCaller map[string]string

func (data fakeCaller) MayRun(args [][]byte) (bool, string) {
	switch cmd := strings.ToLower(string(args[0])); cmd {
	case "get", "set", "del":
		return cmd != "del", ""
	}
	return false, "Invalid command passed to redis.acl_check_cmd()"
}

func (fakeCaller) ErrorCounted() {}

func (data fakeCaller) Call(args [][]byte, proto int) []byte {
	w := resp.Writer{Proto: proto}
	switch strings.ToLower(string(args[0])) {
	case "get":
		if v, ok := data[string(args[1])]; ok {
			w.BulkString(v)
		} else {
			w.Null()
		}
	case "set":
		data[string(args[1])] = string(args[2])
		w.OK()
	case "hgetall":
		w.Map(1)
		w.BulkString("f")
		w.BulkString("v")
	case "incr":
		w.Error("ERR value is not an integer or out of range")
	default:
		w.Error("ERR Unknown Redis command called from script")
	}
	return w.B
}

func eval(t *testing.T, e *Engine, body string, proto int, keys, argv []string, data map[string]string) string {
	t.Helper()
	sc, err := e.Load([]byte(body))
	if err != nil {
		return err.Error()
	}
	var k, a [][]byte
	for _, s := range keys {
		k = append(k, []byte(s))
	}
	for _, s := range argv {
		a = append(a, []byte(s))
	}
	w := resp.Writer{Proto: proto}
	e.Run(sc, nil, k, a, fakeCaller(data), &w)
	return string(w.B)
}

// Replies and errors as Redis 8 gives them (tests/scripting/scripting_test.go holds
// the same against a real Redis).
func TestRun(t *testing.T) {
	e := New()
	sha := func(body string) string { return SHA1([]byte(body)) }
	for _, c := range []struct {
		body  string
		proto int
		want  string
	}{
		{"return 1", 2, ":1\r\n"},
		{"return -3.99", 2, ":-3\r\n"},
		{"return 'x'", 2, "$1\r\nx\r\n"},
		{"return true", 2, ":1\r\n"},
		{"return false", 2, "$-1\r\n"},
		{"return false", 3, "_\r\n"},
		{"return nil", 2, "$-1\r\n"},
		{"redis.setresp(3) return false", 3, "#f\r\n"},
		{"return {1,'a',nil,4}", 2, "*2\r\n:1\r\n$1\r\na\r\n"},
		{"return {ok='fine'}", 2, "+fine\r\n"},
		{"return redis.error_reply('-My Error')", 2, "-My Error\r\n"},
		{"return {double=1.5}", 3, ",1.5\r\n"},
		{"return redis.call('get', KEYS[1]) .. ARGV[1]", 2, "$2\r\nvx\r\n"},
		{"return type(redis.call('get', 'nokey'))", 2, "$7\r\nboolean\r\n"},
		{"redis.setresp(3) return redis.call('hgetall', 'h')", 3, "%1\r\n$1\r\nf\r\n$1\r\nv\r\n"},
		{"redis.setresp(3) return redis.call('hgetall', 'h')", 2, "*2\r\n$1\r\nf\r\n$1\r\nv\r\n"},
		{"return redis.call('hgetall', 'h')", 2, "*2\r\n$1\r\nf\r\n$1\r\nv\r\n"},
		{"return redis.pcall('incr', 'k')['err']", 2, "$43\r\nERR value is not an integer or out of range\r\n"},
		{"return redis.call('incr', 'k')", 2, "-ERR value is not an integer or out of range script: " + sha("return redis.call('incr', 'k')") + ", on @user_script:1.\r\n"},
		{"\nerror('boom')", 2, "-ERR user_script:2: boom script: " + sha("\nerror('boom')") + ", on @user_script:2.\r\n"},
		{"x = 1", 2, "-ERR user_script:1: Attempt to modify a readonly table script: " + sha("x = 1") + ", on @user_script:1.\r\n"},
		{"return y", 2, "-ERR user_script:1: Script attempted to access nonexistent global variable 'y' script: " + sha("return y") + ", on @user_script:1.\r\n"},
		{"return redis.call('set', 'k', {})", 2, "-ERR Lua redis lib command arguments must be strings or integers script: " + sha("return redis.call('set', 'k', {})") + ", on @user_script:1.\r\n"},
		{"return cjson.encode({1, 2, {a = 1, b = 'x'}})", 2, "$21\r\n[1,2,{\"a\":1,\"b\":\"x\"}]\r\n"},
		{"return cjson.decode('{\"a\":[1,null,true]}').a[3]", 2, ":1\r\n"},
		{"return cjson.decode('[null]')[1] == cjson.null", 2, ":1\r\n"},
		{"return {bit.band(7, 3), bit.bnot(0), bit.rshift(-1, 28), bit.tohex(255, -4), bit.bswap(1)}", 2, "*5\r\n:3\r\n:-1\r\n:15\r\n$4\r\n00FF\r\n:16777216\r\n"},
		{"return loadstring('return 1 + 1')()", 2, ":2\r\n"},
		{"#!lua flags=no-writes\nreturn 7", 2, ":7\r\n"},
		{"return (", 2, "ERR Error compiling script (new function): user_script"},
		{"string.x = 1", 2, "-ERR user_script:1: Attempt to modify a readonly table script: " + sha("string.x = 1") + ", on @user_script:1.\r\n"},
		{"return string.upper('a') .. ('b'):upper()", 2, "$2\r\nAB\r\n"},
		{"return string.rep('x', 2^40)", 2, "-ERR string.rep: the result would exceed 512MB script: " + sha("return string.rep('x', 2^40)") + ", on @user_script:1.\r\n"},
		{"return ('ab'):rep(3)", 2, "$6\r\nababab\r\n"},
		{"return getfenv", 2, "-ERR user_script:1: Script attempted to access nonexistent global variable 'getfenv' script: " + sha("return getfenv") + ", on @user_script:1.\r\n"},
		{"return redis.call('set', KEYS[1], 1e6)", 2, "+OK\r\n"},
		// What would overflow the Go stack or exhaust memory is refused.
		{"return loadstring('return ' .. string.rep('(', 300) .. '1' .. string.rep(')', 300))", 2, "$-1\r\n"},
		{"return select(2, loadstring(string.rep('do ', 201) .. string.rep('end ', 201)))", 2, "$42\r\n(load):1: chunk has too many syntax levels\r\n"},
		{"return loadstring('return ' .. string.rep('not ', 200001) .. 'x') == nil", 2, ":1\r\n"},
		{"return loadstring('return ' .. string.rep('1+', 1000) .. '1')()", 2, ":1001\r\n"},
		{"return loadstring('local s = \"(((\" -- ' .. string.rep('(', 300) .. '\\n return #s')()", 2, ":3\r\n"},
		{"return select('#', unpack({}, 1, 100000))", 2, ":100000\r\n"},
		{"return (select(2, pcall(string.format, '%-+ #0-d', 1)))", 2, "$31\r\ninvalid format (repeated flags)\r\n"}, // no position: pcall called it, as in Redis
	} {
		got := eval(t, e, c.body, c.proto, []string{"k"}, []string{"x"}, map[string]string{"k": "v"})
		if got != c.want && !(strings.HasPrefix(c.want, "ERR Error compiling") && strings.HasPrefix(got, c.want)) {
			t.Errorf("%q (RESP%d): got %q, want %q", c.body, c.proto, got, c.want)
		}
	}
	// Scripts cannot leave anything behind for the next one.
	eval(t, e, "pcall(function() _G = nil end) pcall(function() ARGV = 1 end) pcall(function() KEYS = nil end) pcall(rawset, _G, 'leak', 1) pcall(function() redis.call = nil end) loadstring('rawset(_G, \"leak2\", 1)')()", 2, nil, nil, nil)
	if got := eval(t, e, "return {#KEYS, type(rawget(_G, 'leak')), type(rawget(_G, 'leak2')), type(redis.call), type(_G), type(ARGV)}", 2, []string{"a"}, nil, nil); got != "*6\r\n:1\r\n$3\r\nnil\r\n$3\r\nnil\r\n$8\r\nfunction\r\n$5\r\ntable\r\n$5\r\ntable\r\n" {
		t.Errorf("after a script set globals: %q", got)
	}
	// Nor change the libraries.
	eval(t, e, "pcall(table.insert, redis, 'leak') pcall(table.insert, string, 1, 'leak') pcall(table.remove, table) pcall(function() getmetatable('').__index = {} end)", 2, nil, nil, nil)
	if got := eval(t, e, "return {type(redis[1]), type(string[1]), ('a'):upper()}", 2, nil, nil, nil); got != "*3\r\n$3\r\nnil\r\n$3\r\nnil\r\n$1\r\nA\r\n" {
		t.Errorf("after a script wrote into the libraries: %q", got)
	}
	data := map[string]string{}
	eval(t, e, "redis.call('set', 'a', 1e6) redis.call('set', 'b', 0.1) redis.call('set', 'c', -0.0) redis.call('set', 'd', 2^70)", 2, nil, nil, data)
	if data["a"] != "1000000" || data["b"] != "0.1" || data["c"] != "0" || data["d"] != "1180591620717411300000" {
		t.Errorf("numbers passed to commands: %q", data)
	}
}

// After Abort (shutdown) no script runs.
func TestAbort(t *testing.T) {
	e := New()
	if got := eval(t, e, "return 1", 2, nil, nil, nil); got != ":1\r\n" {
		t.Fatal(got)
	}
	e.Abort()
	if got := eval(t, e, "return 1", 2, nil, nil, nil); !strings.HasPrefix(got, "-ERR the server is shutting down") {
		t.Errorf("after Abort: %q", got)
	}
}

func TestCacheAndFlags(t *testing.T) {
	e := New()
	sc, err := e.Load([]byte("return 1"))
	if err != nil || sc.SHA != "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" {
		t.Fatalf("Load: %v %v", sc, err)
	}
	if e.Lookup([]byte(strings.ToUpper(sc.SHA))) != sc || e.Lookup([]byte(sc.SHA)) != sc || e.Lookup([]byte("ffff")) != nil {
		t.Error("Lookup")
	}
	if again, _ := e.Load([]byte("return 1")); again != sc {
		t.Error("Load of a cached script compiled it again")
	}
	e.Flush()
	if e.Lookup([]byte(sc.SHA)) != nil {
		t.Error("Lookup after Flush")
	}
	for body, want := range map[string]Mode{
		"#!lua flags=allow-oom,no-writes\nreturn 1": Declared | NoWrites | AllowOOM,
		"#!lua flags=allow-stale\nreturn 1":         Declared | AllowStale,
		"#!lua\nreturn 1":                           Declared,
		"return 1":                                  0,
	} {
		sc, err := e.Load([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := e.ModeOf([]byte(strings.ToUpper(sc.SHA)), true); got != want || sc.Mode != want {
			t.Errorf("%q: mode %b (%v), want %b", body, got, err, want)
		}
		if got := e.ModeOf([]byte(body), false); got != want {
			t.Errorf("%q: mode from the body %b, want %b", body, got, want)
		}
	}
	for body, want := range map[string]string{
		"#!lua flags=bogus\nreturn 1":       "ERR Unexpected flag in script shebang: bogus",
		"#!lua flags=no-writes,x\nreturn 1": "ERR Unexpected flag in script shebang: x",
		"#!python\nreturn 1":                "ERR Unexpected engine in script shebang: #!python",
		"#!lua name=f\nreturn 1":            "ERR Unknown lua shebang option: name=f",
		"#!lua flags=no-writes":             "ERR Invalid script shebang",
	} {
		if _, err := e.Load([]byte(body)); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
	if msg := e.Kill(false); msg != "NOTBUSY No scripts in execution right now." {
		t.Errorf("Kill with nothing running: %q", msg)
	}
}

// Malformed replies are refused without sizing anything from their counts.
func TestParseReplyMalformed(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for _, in := range []string{"*1444444423\r\n", "%2\r\n+a\r\n", "%1\r\n_\r\n:1\r\n", "$5\r\nab\r\n", ":x\r\n", "?\r\n", "+OK",
		"|1444444423\r\n", "|1\r\n+k\r\n:1\r\n", "|-1\r\n:1\r\n"} {
		if _, _, err := parseReply(L, []byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	v, rest, err := parseReply(L, []byte("*2\r\n:1\r\n$1\r\nx\r\n+tail"))
	if err != nil || string(rest) != "+tail" || v.(*lua.LTable).Len() != 2 {
		t.Errorf("well-formed array: %v %q %v", v, rest, err)
	}
	// An attribute is dropped: the script sees the reply after it.
	if v, rest, err := parseReply(L, []byte("|1\r\n+k\r\n*1\r\n:1\r\n:7\r\n+tail")); err != nil || v != lua.LNumber(7) || string(rest) != "+tail" {
		t.Errorf("attribute: %v %q %v", v, rest, err)
	}
}

// FuzzParseReply: any bytes convert to a Lua value or an error, never a
// panic, and well-formed replies convert whole.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "-ERR x\r\n", ":12\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*2\r\n:1\r\n*1\r\n$0\r\n\r\n",
		"%1\r\n+a\r\n:1\r\n", "~1\r\n+a\r\n", "_\r\n", "#t\r\n", ",1.5\r\n", "(123\r\n", "=7\r\ntxt:abc\r\n", "!3\r\nERR\r\n", "*-1\r\n", "*1444444423\r\n", "%1\r\n_\r\n:1\r\n", "|1\r\n+k\r\n:1\r\n:7\r\n"} {
		f.Add([]byte(s))
	}
	L := lua.NewState()
	defer L.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		_, rest, err := parseReply(L, b)
		if err == nil && len(rest) > len(b) {
			t.Fatalf("rest longer than input")
		}
	})
}

// Compiled code keeps no spare capacity: cached scripts and libraries hold
// their prototypes for good, and gopher-lua's compiler leaves about 5 KB of
// room in each.
func TestCompileTrims(t *testing.T) {
	proto, err := compile("local function f(a) return a + 1 end return f(1)", "local function f(a) return a + 1 end return f(1)", "user_script", "ERR")
	if err != nil {
		t.Fatal(err)
	}
	var check func(p *lua.FunctionProto)
	check = func(p *lua.FunctionProto) {
		for name, lc := range map[string][2]int{
			"Code": {len(p.Code), cap(p.Code)}, "Constants": {len(p.Constants), cap(p.Constants)},
			"FunctionPrototypes": {len(p.FunctionPrototypes), cap(p.FunctionPrototypes)},
			"DbgSourcePositions": {len(p.DbgSourcePositions), cap(p.DbgSourcePositions)},
			"DbgLocals":          {len(p.DbgLocals), cap(p.DbgLocals)}, "DbgCalls": {len(p.DbgCalls), cap(p.DbgCalls)},
			"DbgUpvalues": {len(p.DbgUpvalues), cap(p.DbgUpvalues)},
		} {
			if lc[1] > lc[0]+8 { // Clone may round up to a size class
				t.Errorf("%s: len %d, cap %d", name, lc[0], lc[1])
			}
		}
		for _, c := range p.FunctionPrototypes {
			check(c)
		}
	}
	check(proto)
	if len(proto.FunctionPrototypes) != 1 {
		t.Fatalf("nested prototypes: %d", len(proto.FunctionPrototypes))
	}
}
