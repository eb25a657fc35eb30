package admin

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// pairs turns a CONFIG GET reply (flat in RESP2) into a map.
func pairs(t *testing.T, v any) map[string]string {
	t.Helper()
	list, ok := v.([]any)
	if m, isMap := v.(harness.Map); isMap {
		list, ok = []any(m), true
	}
	if !ok || len(list)%2 != 0 {
		t.Fatalf("not a CONFIG GET reply: %#v", v)
	}
	m := map[string]string{}
	for i := 0; i < len(list); i += 2 {
		m[list[i].(string)] = list[i+1].(string)
	}
	return m
}

func TestConfigGet(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	all := pairs(t, r.Do("CONFIG", "GET", "*"))
	if len(all) != len(config.Visible()) {
		t.Fatalf("CONFIG GET * has %d settings, the table %d", len(all), len(config.Visible()))
	}
	for k, v := range map[string]string{
		"maxclients": "10000", "databases": "16", "timeout": "0", "hz": "10", "requirepass": "",
		"proto-max-bulk-len": "536870912", "client-query-buffer-limit": "1073741824", "maxmemory-policy": "noeviction",
		"bind": "127.0.0.1", "tcp-keepalive": "300", "loglevel": "warning", // start() passes --loglevel warning
	} {
		if all[k] != v {
			t.Errorf("%s = %q, want %q", k, all[k], v)
		}
	}
	if got := pairs(t, r.Do("CONFIG", "GET", "maxmemory*")); len(got) != 5 || got["maxmemory"] != "0" || got["maxmemory-policy"] != "noeviction" || got["maxmemory-samples"] != "5" ||
		got["maxmemory-clients"] != "0" || got["maxmemory-eviction-tenacity"] != "10" {
		t.Errorf("maxmemory*: %v", got)
	}
	if got := pairs(t, r.Do("CONFIG", "GET", "PROTO-MAX-*-LEN")); len(got) != 3 {
		t.Errorf("case-insensitive glob: %v", got)
	}
	// An exact name is answered under the spelling asked for, as Redis does.
	r.Expect([]any{"MaxClients", "10000"}, "CONFIG", "GET", "MaxClients")
	// Several patterns, each setting once.
	got := pairs(t, r.Do("CONFIG", "GET", "timeout", "time*", "t?meout", "hz"))
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) != 2 || keys[0] != "hz" || keys[1] != "timeout" {
		t.Errorf("dedup: %v", got)
	}
	r.Expect([]any{}, "CONFIG", "GET", "nosuch")
	r.Expect(harness.Err("ERR wrong number of arguments for 'config|get' command"), "CONFIG", "GET")
	r.Do("HELLO", "3")
	r.Expect(harness.Map{"hz", "10"}, "CONFIG", "GET", "hz")
}

func TestConfigSet(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	fail := func(arg, why string) harness.Err {
		return harness.Err("ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + why)
	}
	for _, tc := range []struct {
		args []string
		want any
	}{
		{[]string{"maxclients", "abc"}, fail("maxclients", "argument couldn't be parsed into an integer")},
		{[]string{"maxclients", "0"}, fail("maxclients", "argument must be between 1 and 4294967295 inclusive")},
		{[]string{"timeout", "-1"}, fail("timeout", "argument must be between 0 and 2147483647 inclusive")},
		{[]string{"timeout", "007"}, fail("timeout", "argument couldn't be parsed into an integer")},
		{[]string{"maxmemory", "-1"}, fail("maxmemory", "argument must be a memory value")},
		{[]string{"maxmemory", "1.5"}, fail("maxmemory", "argument must be a memory value")},
		{[]string{"proto-max-bulk-len", "10"}, fail("proto-max-bulk-len", "argument must be between 1048576 and 4294967295 inclusive")},
		{[]string{"proto-max-bulk-len", "4gb"}, fail("proto-max-bulk-len", "argument must be between 1048576 and 4294967295 inclusive")},
		{[]string{"loglevel", "loud"}, fail("loglevel", "argument(s) must be one of the following: debug, verbose, notice, warning, nothing")},
		{[]string{"HZ", "abc"}, fail("HZ", "argument couldn't be parsed into an integer")}, // named as spelled
		{[]string{"databases", "3"}, fail("databases", "can't set immutable config")},
		{[]string{"hz", "11", "HZ", "12"}, fail("HZ", "duplicate parameter")},
		{[]string{"nosuch", "1"}, harness.Err("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'")},
		{[]string{"hz", "abc", "nosuch", "1"}, harness.Err("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'")}, // names first
		{[]string{"hz"}, harness.Err("ERR wrong number of arguments for 'config|set' command")},
		{[]string{"hz", "5", "timeout"}, harness.Err("ERR syntax error")},
	} {
		if got := r.Do(append([]string{"CONFIG", "SET"}, tc.args...)...); got != tc.want {
			t.Errorf("CONFIG SET %q: got %#v, want %#v", tc.args, got, tc.want)
		}
	}
	// Nothing of a failed multi-pair SET is applied.
	r.Expect(fail("maxclients", "argument must be between 1 and 4294967295 inclusive"), "CONFIG", "SET", "hz", "20", "timeout", "5", "maxclients", "0")
	if got := pairs(t, r.Do("CONFIG", "GET", "hz", "timeout")); got["hz"] != "10" || got["timeout"] != "0" {
		t.Fatalf("partial CONFIG SET applied: %v", got)
	}
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "hz", "20", "timeout", "5", "maxmemory", "1kb", "LOGLEVEL", "Verbose")
	if got := pairs(t, r.Do("CONFIG", "GET", "hz", "timeout", "maxmemory", "loglevel")); got["hz"] != "20" || got["timeout"] != "5" || got["maxmemory"] != "1024" || got["loglevel"] != "verbose" {
		t.Fatalf("CONFIG SET: %v", got)
	}
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "hz", "0") // clamped, as Redis does
	r.Expect([]any{"hz", "1"}, "CONFIG", "GET", "hz")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "hz", "100000")
	r.Expect([]any{"hz", "500"}, "CONFIG", "GET", "hz")
}

// TestConfigSetTimeout: an idle client is closed after timeout seconds;
// setting it back to 0 disarms the deadline of a connection that had one.
func TestConfigSetTimeout(t *testing.T) {
	s := harness.Start(t)
	admin := s.Raw(t)
	admin.Expect(harness.Status("OK"), "CONFIG", "SET", "timeout", "1")
	idle, kept := s.Raw(t), s.Raw(t)
	idle.Expect(harness.Status("PONG"), "PING")
	kept.Expect(harness.Status("PONG"), "PING") // its read deadline is now armed
	admin.Expect(harness.Status("OK"), "CONFIG", "SET", "timeout", "0")
	kept.Expect(harness.Status("PONG"), "PING") // disarmed on this read
	time.Sleep(1500 * time.Millisecond)
	if !idle.Closed() {
		t.Fatal("idle client not closed after timeout")
	}
	kept.Expect(harness.Status("PONG"), "PING")
}

// TestConfigResetStat zeroes INFO's counters.
func TestConfigResetStat(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("GET", "x")
	r.Do("NOSUCH")
	r.Do("GET")
	if st := s.Info(t, "stats"); st["total_error_replies"] != "2" || st["keyspace_misses"] != "1" {
		t.Fatalf("before: %v", st)
	}
	r.Expect(harness.Status("OK"), "CONFIG", "RESETSTAT")
	st := s.Info(t, "stats", "commandstats", "errorstats")
	for _, k := range []string{"total_error_replies", "keyspace_misses", "keyspace_hits", "rejected_connections"} {
		if st[k] != "0" {
			t.Errorf("%s = %s after RESETSTAT", k, st[k])
		}
	}
	if _, ok := st["cmdstat_get"]; ok {
		t.Errorf("cmdstat_get survived RESETSTAT")
	}
	if _, ok := st["errorstat_ERR"]; ok {
		t.Errorf("errorstat_ERR survived RESETSTAT")
	}
	if st["cmdstat_config|resetstat"] == "" {
		t.Errorf("RESETSTAT itself is counted after the reset, as in Redis: %v", st)
	}
}

// CONFIG SET port and bind move a running server, as Redis's: the new
// address serves, the old one no longer answers, and connected clients
// stay. An address that cannot be listened on is refused with Redis's
// error, nothing else of that CONFIG SET is applied, and the server keeps
// listening where it was.
func TestConfigSetPortAndBind(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	dials := func(addr string) bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Second))
		c.Write([]byte("PING\r\n"))
		b := make([]byte, 7)
		n, _ := io.ReadFull(c, b)
		return string(b[:n]) == "+PONG\r\n"
	}
	port := strconv.Itoa(harness.FreePort(t))
	addr := "127.0.0.1:" + port
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "port", port)
	r.Expect(harness.Status("PONG"), "PING")
	if !dials(addr) || dials(s.Addr) {
		t.Fatalf("after CONFIG SET port %s: new address serves %v, old one %v", port, dials(addr), dials(s.Addr))
	}
	r.Expect([]any{"port", port}, "CONFIG", "GET", "port")
	if got := harness.InfoFields(t, r, "server")["tcp_port"]; got != port {
		t.Errorf("INFO tcp_port %s, want %s", got, port)
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"maxmemory", "12345", "port", busyPort}, "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port"},
		{[]string{"bind", "192.0.2.1", "maxmemory", "12345"}, "ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses."},
	} {
		r.Expect(harness.Err(c.err), append([]string{"CONFIG", "SET"}, c.args...)...)
		r.Expect([]any{"maxmemory", "0"}, "CONFIG", "GET", "maxmemory")
		if !dials(addr) {
			t.Fatalf("after the refused %q the server no longer serves %s", c.args, addr)
		}
	}

	r.Expect(harness.Status("OK"), "CONFIG", "SET", "bind", "127.0.0.1 -::1")
	r.Expect([]any{"bind", "127.0.0.1 -::1"}, "CONFIG", "GET", "bind")
	if !dials(addr) {
		t.Fatalf("after CONFIG SET bind the server does not serve %s", addr)
	}
}

// TestConfigFileBareSave: a save line with no arguments (Redis's test
// harness writes one for save "") is read as Redis 8.0.2 reads it, a save
// line with no points: the first drops the default points, a later one
// adds none. HotKV refused it and did not start.
func TestConfigFileBareSave(t *testing.T) {
	harness.OutOfProcess(t)
	for _, tc := range []struct{ body, want string }{
		{"save\n", ""},
		{"save 900 1\nsave\nsave 60 10\n", "900 1 60 10"},
	} {
		dir := t.TempDir()
		conf := filepath.Join(dir, "hotkv.conf")
		if err := os.WriteFile(conf, []byte("dir "+dir+"\n"+tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		p := harness.StartBinary(t, conf)
		r := (&harness.Server{Addr: p.Addr}).Raw(t)
		if got := pairs(t, r.Do("CONFIG", "GET", "save"))["save"]; got != tc.want {
			t.Errorf("%q: save is %q, want %q", tc.body, got, tc.want)
		}
	}
}
