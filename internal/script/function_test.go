package script

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/resp"
)

// fcall runs the function name as FCALL does and returns the raw reply.
func fcall(t *testing.T, e *Engine, name string, keys ...string) string {
	t.Helper()
	f := e.Function([]byte(name))
	if f == nil {
		t.Fatalf("no function %q", name)
	}
	var k [][]byte
	for _, s := range keys {
		k = append(k, []byte(s))
	}
	w := resp.Writer{Proto: 2}
	e.Run(&f.Script, nil, k, nil, fakeCaller(map[string]string{"k": "v"}), &w)
	return string(w.B)
}

// A library's locals live on between calls, each library has its own, and
// its functions run with the scripts' libraries but without KEYS.
func TestFunctionsRun(t *testing.T) {
	e := New()
	for _, name := range []string{"a", "b"} {
		code := "#!lua name=" + name + "\nlocal n = 0\nredis.register_function('" + name + "', function(keys) n = n + 1 return {n, redis.call('get', keys[1]), string.upper('x')} end)"
		if got, err := e.LoadLibrary([]byte(code), false); err != nil || got != name {
			t.Fatalf("load %s: %q, %v", name, got, err)
		}
	}
	for _, want := range []string{"*3\r\n:1\r\n$1\r\nv\r\n$1\r\nX\r\n", "*3\r\n:2\r\n$1\r\nv\r\n$1\r\nX\r\n"} {
		if got := fcall(t, e, "A", "k"); got != want {
			t.Errorf("FCALL A = %q, want %q", got, want)
		}
	}
	if got := fcall(t, e, "b", "k"); !strings.HasPrefix(got, "*3\r\n:1\r\n") {
		t.Errorf("b shares a's counter: %q", got)
	}
	if _, err := e.LoadLibrary([]byte("#!lua name=c\nredis.register_function('f', function() return KEYS end)"), false); err != nil {
		t.Fatal(err)
	}
	if got := fcall(t, e, "f"); !strings.Contains(got, "nonexistent global variable 'KEYS' script: f, on @user_function:2.") {
		t.Errorf("KEYS in a function: %q", got)
	}
	// A register_function kept past the load refuses, as in Redis.
	if _, err := e.LoadLibrary([]byte("#!lua name=d\nlocal r = redis.register_function\nr('g', function() r('h', function() end) end)"), false); err != nil {
		t.Fatal(err)
	}
	if got := fcall(t, e, "g"); !strings.HasPrefix(got, "-ERR redis.register_function can only be called on FUNCTION LOAD command script: g") {
		t.Errorf("late register_function: %q", got)
	}
}

// DUMP's payload restores the same libraries, and a Redis payload with a
// compressed library restores too (tests/scripting/functions_test.go checks the bytes
// against Redis).
func TestFunctionsDumpRestore(t *testing.T) {
	e := New()
	long := "#!lua name=long\n" + strings.Repeat("-- padding to need a 14-bit length\n", 4) + "redis.register_function{function_name='f', callback=function() return 1 end, flags={'no-writes'}, description='d'}"
	for _, code := range []string{long, "#!lua name=b\nredis.register_function('g', function() return 2 end)"} {
		if _, err := e.LoadLibrary([]byte(code), false); err != nil {
			t.Fatal(err)
		}
	}
	payload := e.DumpFunctions()
	f := New()
	if err := f.RestoreFunctions(payload, RestoreAppend); err != nil {
		t.Fatal(err)
	}
	libs := f.Libraries()
	if len(libs) != 2 || libs[1].Code != long || libs[1].Functions[0].Mode != Declared|NoWrites || libs[1].Functions[0].Desc != "d" {
		t.Fatalf("restored %+v", libs)
	}
	if err := f.RestoreFunctions(payload, RestoreAppend); err == nil || err.Error() != "ERR Library b already exists" {
		t.Errorf("second APPEND: %v", err)
	}
	payload[0] ^= 1
	if err := f.RestoreFunctions(payload, RestoreFlush); err == nil || err.Error() != rdb.ErrBadPayload {
		t.Errorf("damaged payload: %v", err)
	}
	if n := len(f.Libraries()); n != 2 {
		t.Errorf("a refused restore left %d libraries", n)
	}
}

// FuzzFunctionPayload feeds FUNCTION RESTORE's parser arbitrary records,
// sealed with a valid footer so that they reach it: a refusal is fine, a
// panic or a huge allocation is not.
func FuzzFunctionPayload(f *testing.F) {
	e := New()
	e.LoadLibrary([]byte("#!lua name=x\nredis.register_function('x', function() return 1 end)"), false)
	dump := e.DumpFunctions()
	f.Add(dump[:len(dump)-10])
	f.Add([]byte("\xf5\xc3\x05\x06\x01ab\x60\x01"))
	f.Add([]byte("\xf5\xc0\x7f\xf5\xc1\xff\x7f\xf5\xc2\x01\x02\x03\x04"))
	f.Fuzz(func(t *testing.T, body []byte) {
		codes, err := parseDump(rdb.Seal(body))
		if err != nil {
			return
		}
		for _, c := range codes {
			libraryMeta(c)
		}
	})
}

// FuzzLibraryMeta checks the shebang reader on arbitrary first lines.
func FuzzLibraryMeta(f *testing.F) {
	for _, s := range []string{"#!lua name=x\n", "#!lua \"name=x y\" name=z\n", "#!LUA NAME=a_1\nreturn", "return 1", "#!\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		name, body, err := libraryMeta(code)
		if err == nil && (!validName(name) || !strings.HasSuffix(code, body) || !strings.HasPrefix(body, "\n")) {
			t.Errorf("%q: name %q, body %q", code, name, body)
		}
	})
}

// A load that fails (an error after registering, the load timeout) leaves
// nothing behind for the next load, which runs in the state it reuses.
func TestLoadAfterFailedLoads(t *testing.T) {
	e := New()
	for _, c := range []struct{ code, err string }{
		{"#!lua name=x\nredis.register_function('x1', function() return 1 end)\nerror('boom')", "ERR Error registering functions: "},
		{"#!lua name=y\nredis.register_function('y1', function() return 1 end)\nlocal n = 0 while true do n = n + 1 end", "ERR Error registering functions: ERR FUNCTION LOAD timeout"},
	} {
		if _, err := e.LoadLibrary([]byte(c.code), false); err == nil || !strings.HasPrefix(err.Error(), c.err) {
			t.Fatalf("load %q: %v", c.code, err)
		}
	}
	if _, err := e.LoadLibrary([]byte("#!lua name=z\nlocal n = 10\nredis.register_function('z1', function() n = n + 1 return n end)"), false); err != nil {
		t.Fatal(err)
	}
	if e.Function([]byte("x1")) != nil || e.Function([]byte("y1")) != nil || len(e.Libraries()) != 1 {
		t.Fatalf("a failed load left functions: %+v", e.Libraries())
	}
	if got := fcall(t, e, "z1"); got != ":11\r\n" {
		t.Errorf("FCALL z1 = %q", got)
	}
}

// BenchmarkFunctionLoad loads small libraries, as a deployment with many
// of them does, and reports the heap each keeps (after a collection).
func BenchmarkFunctionLoad(b *testing.B) {
	e := New()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for i := range b.N {
		code := fmt.Sprintf("#!lua name=lib%d\nredis.register_function('f%d', function(keys, args)\n return %d\nend)", i, i, i)
		if _, err := e.LoadLibrary([]byte(code), false); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/lib")
	runtime.KeepAlive(e)
}
