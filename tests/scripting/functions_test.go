package scripting

import (
	"context"
	bin "encoding/binary"
	"fmt"
	"hash/crc64"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Redis 7 functions: FUNCTION LOAD ... and FCALL. The differential test
// holds the replies to Redis 8's (RESP2 and RESP3); the others run without
// Redis: a running function, and the libraries surviving restarts.

// lib is a library's code: the shebang line, then body.
func lib(name, body string) string { return "#!lua name=" + name + "\n" + body }

// funcPayload seals body (FUNCTION2 records) as FUNCTION DUMP does: RDB
// version 12 and Redis's CRC-64 (Go's without its inversions).
func funcPayload(body string) string {
	b := bin.LittleEndian.AppendUint16([]byte(body), 12)
	crc := ^crc64.Update(^uint64(0), crc64.MakeTable(0x95ac9329ac4bc9b5), b)
	return string(bin.LittleEndian.AppendUint64(b, crc))
}

func TestDifferentialFunctions(t *testing.T) {
	main := lib("lib1", `local n = 0
redis.register_function('inc', function(keys, args) n = n + 1 return n end)
redis.register_function{function_name='ro', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes', 'allow-stale'}, description='read only'}
redis.register_function('w', function(keys, args) return redis.call('set', keys[1], args[1]) end)
redis.register_function('err', function(keys, args)
  return redis.call('nosuch')
end)
redis.register_function('kv', function(keys, args) return KEYS end)
redis.register_function('ka', function(keys, args) return {#keys, #args, keys[1], args[1]} end)
redis.register_function('ee', function() error('boom') end)
redis.register_function('pc', function() return redis.pcall('incr', 'str') end)
redis.register_function('resp3', function() redis.setresp(3) return redis.call('hgetall', 'h') end)
redis.register_function('logs', function() redis.log(redis.LOG_WARNING, 'from a function') return redis.REDIS_VERSION end)
redis.register_function('libs', function() return {cjson.encode({1}), bit.band(7, 3), string.upper('x'), tostring(type(_G))} end)
redis.register_function('glob', function() x = 1 end)
redis.register_function('meta', function() local g = getmetatable(_G) return {type(g), pcall(function() g.__index = {} end)} end)`)
	// Redis does not compress this one (too short to gain), so its dump is HotKV's byte for byte.
	small := lib("a", `redis.register_function("fb", function() return 2 end)`)
	// Redis's dump of a library it compressed (LZF).
	compressed := "\xf5\xc3@`@\xad\x1f#!lua name=zz\nredis.register_fun\x0cction(\"zz1\", \xe0\x00\x0f\b) return @\x18\x00  \x1c\xe0\a\x03\x05\" end)\xe0\x13O\x002\xe0\x0fO\x002 K\xe0\b\x03@O\x01d)\x0c\x004cv1h\x8e\xc7E"
	rec := func(code string) string { // a FUNCTION2 record: the code under an RDB length of 14 bits
		return "\xf5" + string([]byte{0x40 | byte(len(code)>>8), byte(len(code))}) + code
	}
	other := lib("b", `redis.register_function('fb', function() return 'b' end)`)
	script := [][]string{
		{"FUNCTION", "FLUSH"}, // FLUSHALL keeps them: the RESP2 pass's are still there
		{"FUNCTION", "LOAD", main},
		{"FUNCTION", "LOAD", main},
		{"FCALL", "inc", "0"}, {"FCALL", "inc", "0"}, {"FCALL", "INC", "0"},
		{"FCALL", "nosuch", "0"}, {"FCALL", "nosuch", "x"},
		{"FCALL", "inc", "x"}, {"FCALL", "inc", "-1"}, {"FCALL", "inc", "2", "a"},
		{"FCALL_RO", "inc", "0"}, {"FCALL_RO", "ro", "1", "k"},
		{"FCALL", "w", "1", "k", "v"}, {"FCALL_RO", "ro", "1", "k"}, {"FCALL", "ro", "1", "k"},
		{"FCALL", "err", "0"}, {"FCALL", "kv", "0"}, {"FCALL", "ka", "1", "x", "y", "z"},
		{"FCALL", "ee", "0"}, {"SET", "str", "abc"}, {"FCALL", "pc", "0"},
		{"HSET", "h", "f", "v"}, {"FCALL", "resp3", "0"}, {"FCALL", "logs", "0"}, {"FCALL", "libs", "0"},
		{"FCALL", "glob", "0"}, {"FCALL", "meta", "0"},
		{"FCALL"}, {"FCALL_RO", "inc"},
		{"MULTI"}, {"FCALL", "w", "1", "m", "1"}, {"FCALL", "inc", "0"}, {"EXEC"},
		{"FUNCTION", "LIST"}, {"FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "LIB*"},
		{"FUNCTION", "LIST", "LIBRARYNAME", "x"}, {"FUNCTION", "LIST", "LIBRARYNAME"},
		{"FUNCTION", "LIST", "WITHCODE", "WITHCODE"}, {"FUNCTION", "LIST", "LIBRARYNAME", "a", "LIBRARYNAME", "b"},
		{"FUNCTION", "LIST", "foo"},
		{"FUNCTION", "STATS"}, {"FUNCTION", "STATS", "x"}, {"FUNCTION", "KILL"},
		{"FUNCTION", "DELETE", "nosuch"}, {"FUNCTION", "DELETE", "LIB1"}, {"FUNCTION", "DELETE"},
		{"FUNCTION", "LOAD", "REPLACE", main}, {"FCALL", "inc", "0"},
		{"FUNCTION", "LOAD", "BOGUS", main}, {"FUNCTION", "LOAD", "REPLACE"}, {"FUNCTION", "LOAD"},
		{"FUNCTION", "DELETE", "lib1"}, {"FCALL", "inc", "0"},
		{"FUNCTION", "FLUSH", "x"}, {"FUNCTION", "FLUSH", "sync", "x"}, {"FUNCTION", "FLUSH", "ASYNC"},
		{"FUNCTION", "BOGUS"}, {"FUNCTION"}, {"FUNCTION", "HELP"},
		{"COMMAND", "GETKEYS", "FCALL", "f", "2", "a", "b", "c"},

		// Collisions and REPLACE.
		{"FUNCTION", "LOAD", small}, {"FUNCTION", "DUMP"},
		{"FUNCTION", "LOAD", lib("b", `redis.register_function('FB', function() end)`)},
		{"FUNCTION", "LOAD", "REPLACE", lib("b", `redis.register_function('fb', function() end)`)},
		{"FUNCTION", "LOAD", "REPLACE", lib("a", `redis.register_function('fc', function() return 3 end)`)},
		{"FCALL", "fb", "0"}, {"FCALL", "fc", "0"},
		{"FUNCTION", "LOAD", "REPLACE", lib("a", `redis.register_function('fd', 1)`)},
		{"FCALL", "fc", "0"},

		// RESTORE: Redis's payloads, compressed or not, and its errors.
		{"FUNCTION", "FLUSH"},
		{"FUNCTION", "RESTORE", compressed}, {"FCALL", "zz2", "0"},
		{"FUNCTION", "LIST", "WITHCODE"},
		{"FUNCTION", "RESTORE", compressed}, {"FUNCTION", "RESTORE", compressed, "REPLACE"},
		{"FUNCTION", "RESTORE", funcPayload(rec(small)), "FLUSH"}, {"FUNCTION", "LIST"},
		{"FUNCTION", "RESTORE", funcPayload(rec(other))},
		{"FUNCTION", "RESTORE", funcPayload(rec(other)), "REPLACE"},
		{"FUNCTION", "RESTORE", funcPayload(rec(other) + rec(other)), "FLUSH"},
		{"FUNCTION", "RESTORE", funcPayload(rec(small)), "APPEND"},
		{"FUNCTION", "RESTORE", funcPayload("\x01\x00")},
		{"FUNCTION", "RESTORE", funcPayload("\xf6\x00")},
		{"FUNCTION", "RESTORE", funcPayload("\xf5\x3f#!lua")},
		{"FUNCTION", "RESTORE", funcPayload(rec("return 1"))},
		{"FUNCTION", "RESTORE", funcPayload("")}, {"FUNCTION", "LIST"},
		{"FUNCTION", "RESTORE", "x"}, {"FUNCTION", "RESTORE", ""},
		{"FUNCTION", "RESTORE", funcPayload("")[:9] + "\x00"},
		{"FUNCTION", "RESTORE", "x", "bogus"}, {"FUNCTION", "RESTORE", "x", "flush", "y"},
		{"FUNCTION", "FLUSH"}, {"FUNCTION", "DUMP"}, {"FUNCTION", "STATS"},
	}
	// Metadata and registration errors: each on its own, as library y.
	for _, code := range []string{
		"return 1", "#!lua", "#!lua name=x", "#!lua\nreturn 1", "#!lua name=a name=b\nreturn 1",
		"#!lua foo=bar\nreturn 1", "#!python name=x\nreturn 1", "#!lua name=x-y\nreturn 1", "#!lua name=\nreturn 1",
		"#! name=x\nreturn 1", "#!lua \"name=x y\"\nreturn 1", "#!lua \"name=x\nreturn 1",
		"#!LUA NAME=y\nredis.register_function('f', function() return 1 end)",
	} {
		script = append(script, []string{"FUNCTION", "LOAD", code}, []string{"FUNCTION", "DELETE", "y"})
	}
	for _, body := range []string{
		"return 1", `redis.call("ping")`, "math.random()", "redis.setresp(3)", "a = 1", "local a = b", `error("boom")`,
		`redis.register_function("f")`, `redis.register_function("f", 1)`, `redis.register_function(1, function() end)`,
		`redis.register_function({}, function() end)`, `redis.register_function("f", function() end, 3)`,
		`redis.register_function()`, `redis.register_function("a-b", function() end)`, `redis.register_function("", function() end)`,
		`redis.register_function("f", function() end) redis.register_function("f", function() end)`,
		`redis.register_function{function_name="f"}`, `redis.register_function{callback=function() end}`,
		`redis.register_function{function_name="f", callback=function() end, flags={"bogus"}}`,
		`redis.register_function{function_name="f", callback=function() end, flags="no-writes"}`,
		`redis.register_function{function_name="f", callback=function() end, description=1}`,
		`redis.register_function{function_name="f", callback=function() end, description={}}`,
		`redis.register_function{function_name="f", callback=function() end, other=1}`,
		`redis.register_function{function_name="f", callback=1}`,
		`redis.register_function{function_name={}, callback=function() end}`,
		`redis.register_function{[1]=2, callback=function() end}`,
		`redis.register_function{function_name="", callback=function() end}`,
		"local a = 1\nlocal b = c", `redis.log(redis.LOG_WARNING, "hi") return redis.REDIS_VERSION`,
		`local s = string.format("x")`, "local s = _G", "local s = KEYS", "local t = type",
		`redis.register_function{function_name=123, callback=function() end, flags={1}}`,
		`redis.register_function{function_name="f", callback=function() end, flags={"NO-WRITES", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"}}`,
		`redis.register_function{function_name="f", callback=function() end, flags={"no-writes", nil, "bogus"}}`,
		"return redis.setresp", `redis.pcall("ping")`, `redis.register_function("f", function() end, nil)`, "redis.foo = 1",
		"while true do end",
	} {
		script = append(script, []string{"FUNCTION", "LOAD", lib("y", body)}, []string{"FUNCTION", "LIST"}, []string{"FUNCTION", "DELETE", "y"})
	}
	harness.DifferWith(t, script, func(got, want any) bool {
		return reflect.DeepEqual(sortFunctions(got), sortFunctions(want))
	})
}

// sortFunctions orders the functions of FUNCTION LIST's libraries by name:
// Redis lists them in its hash table's order.
func sortFunctions(v any) any {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case harness.Map:
		items = x
	default:
		return v
	}
	for i, item := range items {
		sortFunctions(item)
		if item == "functions" && i+1 < len(items) {
			if fns, ok := items[i+1].([]any); ok {
				slices.SortFunc(fns, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
			}
		}
	}
	return v
}

// A running function shows in FUNCTION STATS and stops at FUNCTION KILL;
// SCRIPT KILL and FUNCTION KILL each refuse the other kind, as in Redis.
func TestFunctionKillAndStats(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect("spin", "FUNCTION", "LOAD", lib("spin", "redis.register_function('spin', function(keys, args)\nwhile true do end\nend)"))
	runner := s.Raw(t)
	runner.Send(harness.Req("FCALL", "spin", "1", "k", "a"))
	harness.Eventually(t, "the function to run", func() bool {
		_, ok := r.Do("FUNCTION", "STATS").([]any)[1].([]any)
		return ok
	})
	stats := r.Do("FUNCTION", "STATS").([]any)
	running := stats[1].([]any)
	if running[1] != "spin" || !strings.Contains(strings.Join(anyStrings(running[3]), " "), "FCALL spin 1 k a") {
		t.Errorf("running_script = %#v", running)
	}
	r.Expect(harness.Err("BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."), "SCRIPT", "KILL")
	r.Expect(harness.Status("OK"), "FUNCTION", "KILL")
	runner.ExpectRead(harness.Err("ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:3."))

	runner.Send(harness.Req("EVAL", "while true do end", "0"))
	harness.Eventually(t, "the script to run", func() bool {
		_, isErr := r.Do("FUNCTION", "STATS").(harness.Err)
		return isErr
	})
	r.Expect(harness.Err("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."), "FUNCTION", "STATS")
	r.Expect(harness.Err("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."), "FUNCTION", "KILL")
	r.Expect(harness.Status("OK"), "SCRIPT", "KILL")
	if _, ok := runner.Read().(harness.Err); !ok {
		t.Error("the killed script did not fail")
	}
	r.Expect(harness.Err("NOTBUSY No scripts in execution right now."), "FUNCTION", "KILL")
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// Libraries survive a restart from a snapshot, from the append-only log
// (their LOAD, DELETE, RESTORE and FLUSH replayed) and from a rewritten
// log's base; FLUSHALL does not remove them.
func TestFunctionsSurviveRestart(t *testing.T) {
	harness.OutOfProcess(t)
	ctx := context.Background()
	libs := func(c *redis.Client) string {
		t.Helper()
		list, err := c.FunctionList(ctx, redis.FunctionListQuery{}).Result()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, l := range list {
			names = append(names, l.Name)
		}
		return strings.Join(names, ",")
	}
	stop := func(p *harness.Proc, how ...string) {
		t.Helper()
		r := (&harness.Server{Addr: p.Addr}).Raw(t)
		r.Send(harness.Req(append([]string{"SHUTDOWN"}, how...)...))
		if code := p.Wait(t); code != 0 {
			t.Fatalf("exit code %d after SHUTDOWN", code)
		}
	}
	counter := lib("counter", "redis.register_function('bump', function(keys) return redis.call('incr', keys[1]) end)")

	t.Run("snapshot", func(t *testing.T) {
		dir := t.TempDir()
		p := harness.StartBinary(t, "--dir", dir)
		c := p.Client(t)
		for _, code := range []string{counter, lib("other", "redis.register_function{function_name='ro', callback=function() return 1 end, flags={'no-writes'}}")} {
			if err := c.FunctionLoad(ctx, code).Err(); err != nil {
				t.Fatal(err)
			}
		}
		c.FlushAll(ctx)
		if err := c.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		stop(p, "NOSAVE")
		p = harness.StartBinary(t, "--dir", dir)
		c = p.Client(t)
		if got := libs(c); got != "counter,other" {
			t.Fatalf("libraries after restart: %q", got)
		}
		if n, err := c.FCall(ctx, "bump", []string{"k"}).Int(); err != nil || n != 1 {
			t.Errorf("FCALL bump = %d, %v", n, err)
		}
		if err := c.FCallRO(ctx, "ro", nil).Err(); err != nil {
			t.Errorf("FCALL_RO ro: %v (flags lost?)", err)
		}
	})

	t.Run("aof", func(t *testing.T) {
		dir := t.TempDir()
		args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always"}
		p := harness.StartBinary(t, args...)
		c := p.Client(t)
		if err := c.FunctionLoad(ctx, counter).Err(); err != nil {
			t.Fatal(err)
		}
		c.FCall(ctx, "bump", []string{"k"})
		// The rewritten log's base holds the libraries loaded so far.
		rewrites := func() string {
			info, _ := c.Info(ctx, "persistence").Result()
			_, n, _ := strings.Cut(info, "aof_rewrites:")
			n, _, _ = strings.Cut(n, "\r\n")
			return n
		}
		before := rewrites()
		if err := c.BgRewriteAOF(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, "the rewrite to end", func() bool { return rewrites() != before })
		dump, err := c.FunctionDump(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range []string{lib("gone", "redis.register_function('g', function() end)"), lib("b", "redis.register_function('b', function() return 'b' end)")} {
			if err := c.FunctionLoad(ctx, code).Err(); err != nil {
				t.Fatal(err)
			}
		}
		c.FunctionDelete(ctx, "gone")
		c.FunctionLoadReplace(ctx, lib("b", "redis.register_function('b2', function() return 'b2' end)"))
		c.FunctionLoad(ctx, lib("b", "redis.register_function('refused', function() end)")) // an error: not logged
		if err := c.FunctionRestore(ctx, dump).Err(); err == nil {
			t.Fatal("RESTORE APPEND of a library already there succeeded")
		}
		stop(p)
		p = harness.StartBinary(t, args...)
		c = p.Client(t)
		if got := libs(c); got != "b,counter" {
			t.Fatalf("libraries after restart: %q", got)
		}
		if v, err := c.FCall(ctx, "b2", nil).Text(); err != nil || v != "b2" {
			t.Errorf("FCALL b2 = %q, %v", v, err)
		}
		if n, _ := c.FCall(ctx, "bump", []string{"k"}).Int(); n != 2 {
			t.Errorf("FCALL bump = %d after the restart, want 2", n)
		}
		c.FunctionFlush(ctx)
		if err := c.Do(ctx, "FUNCTION", "RESTORE", dump, "REPLACE").Err(); err != nil {
			t.Fatal(err)
		}
		stop(p)
		p = harness.StartBinary(t, args...)
		if got := libs(p.Client(t)); got != "counter" {
			t.Fatalf("libraries after FLUSH, RESTORE and a restart: %q", got)
		}
	})
}

// INFO memory counts the functions and libraries as Redis's does.
func TestFunctionsInfo(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect("l", "FUNCTION", "LOAD", lib("l", "redis.register_function('a', function() end) redis.register_function('b', function() end)"))
	info := s.Info(t, "memory")
	if info["number_of_functions"] != "2" || info["number_of_libraries"] != "1" {
		t.Errorf("INFO memory: number_of_functions %q, number_of_libraries %q", info["number_of_functions"], info["number_of_libraries"])
	}
	// Lua's syntax errors are gopher-lua's (docs/commands/scripting.md); the
	// library in place stays.
	if e, ok := r.Do("FUNCTION", "LOAD", "REPLACE", lib("l", "redis.register_function('a', function() end")).(harness.Err); !ok || !strings.HasPrefix(string(e), "ERR Error compiling function: user_function") {
		t.Errorf("a syntax error: %q", e)
	}
	r.Expect(nil, "FCALL", "a", "0")
	// A load that spins is stopped after 500 ms, as in Redis.
	begin := time.Now()
	r.Expect(harness.Err("ERR Error registering functions: ERR FUNCTION LOAD timeout"), "FUNCTION", "LOAD", lib("spin", "while true do end"))
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("the load took %v", d)
	}
}
