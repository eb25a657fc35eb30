package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// clientFields are CLIENT LIST's fields in Redis 8.0's order.
var clientFields = []string{"id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub", "ssub",
	"multi", "watch", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl", "oll", "omem", "tot-mem",
	"events", "cmd", "user", "redir", "resp", "lib-name", "lib-ver", "io-thread"}

// parseClient splits one CLIENT LIST line into its fields, checking their
// names and order.
func parseClient(t *testing.T, line string) map[string]string {
	t.Helper()
	parts := strings.Split(strings.TrimSuffix(line, "\n"), " ")
	if len(parts) != len(clientFields) {
		t.Fatalf("%d fields in %q", len(parts), line)
	}
	m := map[string]string{}
	for i, p := range parts {
		k, v, _ := strings.Cut(p, "=")
		if k != clientFields[i] {
			t.Fatalf("field %d is %q, want %q", i, k, clientFields[i])
		}
		m[k] = v
	}
	return m
}

func clientLines(t *testing.T, v any) []map[string]string {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("CLIENT LIST reply %#v", v)
	}
	var out []map[string]string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, parseClient(t, l))
		}
	}
	return out
}

func TestClientIDNameInfo(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	id := r.Do("CLIENT", "ID").(int64)
	r.Expect(nil, "CLIENT", "GETNAME")
	r.Expect(harness.Status("OK"), "CLIENT", "SETNAME", "worker-1")
	r.Expect("worker-1", "CLIENT", "GETNAME")
	for _, bad := range []string{"a b", "a\nb", "é"} {
		r.Expect(harness.Err("ERR Client names cannot contain spaces, newlines or special characters."), "CLIENT", "SETNAME", bad)
	}
	r.Expect("worker-1", "CLIENT", "GETNAME")
	info := parseClient(t, r.Do("CLIENT", "INFO").(string))
	if info["id"] != strconv.FormatInt(id, 10) || info["name"] != "worker-1" || info["cmd"] != "client|info" ||
		info["flags"] != "N" || info["db"] != "0" || info["resp"] != "2" || info["user"] != "default" || info["multi"] != "-1" ||
		info["laddr"] != s.Addr || info["addr"] != r.NetConn.LocalAddr().String() {
		t.Fatalf("CLIENT INFO: %v", info)
	}
	r.Expect(harness.Status("OK"), "CLIENT", "SETNAME", "") // clears it
	r.Expect(nil, "CLIENT", "GETNAME")
	r.Expect(harness.Status("OK"), "CLIENT", "SETINFO", "LIB-NAME", "mylib")
	r.Expect(harness.Status("OK"), "CLIENT", "SETINFO", "lib-ver", "1.2.3")
	r.Expect(harness.Err("ERR Unrecognized option 'foo'"), "CLIENT", "SETINFO", "foo", "a b") // the attribute is checked first
	r.Expect(harness.Err("ERR LIB-NAME cannot contain spaces, newlines or special characters."), "CLIENT", "SETINFO", "LIB-NAME", "a b")
	r.Expect(harness.Status("OK"), "CLIENT", "SETNAME", "named")
	r.Expect(harness.Status("OK"), "CLIENT", "NO-EVICT", "on")
	r.Expect(harness.Status("OK"), "CLIENT", "NO-TOUCH", "ON")
	r.Expect(harness.Err("ERR syntax error"), "CLIENT", "NO-TOUCH", "maybe")
	r.Expect(harness.Status("OK"), "SELECT", "3")
	r.Do("HELLO", "3")
	info = parseClient(t, r.Do("CLIENT", "INFO").(string))
	if info["lib-name"] != "mylib" || info["lib-ver"] != "1.2.3" || info["flags"] != "eT" || info["db"] != "3" || info["resp"] != "3" {
		t.Fatalf("CLIENT INFO: %v", info)
	}
	// RESET forgets the name, database, protocol and modes, not the library.
	r.Expect(harness.Status("RESET"), "RESET")
	info = parseClient(t, r.Do("CLIENT", "INFO").(string))
	if info["name"] != "" || info["lib-name"] != "mylib" || info["flags"] != "N" || info["db"] != "0" || info["resp"] != "2" {
		t.Fatalf("CLIENT INFO after RESET: %v", info)
	}
	r.Expect(harness.Err("ERR unknown subcommand 'FOO'. Try CLIENT HELP."), "CLIENT", "FOO")
	r.Expect(harness.Err("ERR wrong number of arguments for 'client' command"), "CLIENT")
	r.Expect(harness.Err("ERR wrong number of arguments for 'client|setname' command"), "CLIENT", "SETNAME")
}

func TestClientList(t *testing.T) {
	s := harness.Start(t)
	a, b, sub := s.Raw(t), s.Raw(t), s.Raw(t)
	ida, idb := a.Do("CLIENT", "ID").(int64), b.Do("CLIENT", "ID").(int64)
	sub.Expect([]any{"subscribe", "c", int64(1)}, "SUBSCRIBE", "c")
	b.Expect(harness.Status("OK"), "WATCH", "k")
	b.Expect(harness.Status("OK"), "MULTI")
	b.Expect(harness.Status("QUEUED"), "GET", "k")
	all := clientLines(t, a.Do("CLIENT", "LIST"))
	if len(all) != 3 {
		t.Fatalf("%d clients listed", len(all))
	}
	byID := map[string]map[string]string{}
	for _, c := range all {
		byID[c["id"]] = c
	}
	if c := byID[strconv.FormatInt(idb, 10)]; c["flags"] != "x" || c["multi"] != "1" || c["watch"] != "1" || c["cmd"] != "multi" {
		t.Fatalf("client in MULTI: %v", c)
	}
	var subLine map[string]string
	for _, c := range all {
		if c["sub"] == "1" {
			subLine = c
		}
	}
	if subLine == nil || subLine["flags"] != "P" || subLine["cmd"] != "subscribe" {
		t.Fatalf("subscriber: %v", all)
	}
	if got := clientLines(t, a.Do("CLIENT", "LIST", "TYPE", "pubsub")); len(got) != 1 || got[0]["id"] != subLine["id"] {
		t.Fatalf("TYPE pubsub: %v", got)
	}
	if got := clientLines(t, a.Do("CLIENT", "LIST", "TYPE", "NORMAL")); len(got) != 2 {
		t.Fatalf("TYPE normal: %v", got)
	}
	a.Expect("", "CLIENT", "LIST", "TYPE", "replica")
	// IDs are listed in the order given, unknown ones skipped.
	got := clientLines(t, a.Do("CLIENT", "LIST", "ID", strconv.FormatInt(idb, 10), "-5", "99999", strconv.FormatInt(ida, 10)))
	if len(got) != 2 || got[0]["id"] != strconv.FormatInt(idb, 10) || got[1]["id"] != strconv.FormatInt(ida, 10) {
		t.Fatalf("LIST ID: %v", got)
	}
	a.Expect(harness.Err("ERR Invalid client ID"), "CLIENT", "LIST", "ID", "abc")
	a.Expect(harness.Err("ERR syntax error"), "CLIENT", "LIST", "ID")
	a.Expect(harness.Err("ERR syntax error"), "CLIENT", "LIST", "TYPE", "normal", "ID", "1")
	a.Expect(harness.Err("ERR Unknown client type 'foo'"), "CLIENT", "LIST", "TYPE", "foo")
	// A dirty WATCH shows as 'd'.
	a.Expect(harness.Status("OK"), "SET", "k", "changed")
	got = clientLines(t, a.Do("CLIENT", "LIST", "ID", strconv.FormatInt(idb, 10)))
	if got[0]["flags"] != "xd" {
		t.Fatalf("dirty watch flags: %v", got[0])
	}
}

func TestClientKill(t *testing.T) {
	s := harness.Start(t)
	admin := s.Raw(t)
	victim := s.Raw(t)
	victim.Expect(harness.Status("PONG"), "PING")
	// Old form: by address, answers OK.
	admin.Expect(harness.Status("OK"), "CLIENT", "KILL", victim.NetConn.LocalAddr().String())
	if !victim.Closed() {
		t.Fatal("victim still connected")
	}
	admin.Expect(harness.Err("ERR No such client"), "CLIENT", "KILL", "1.2.3.4:5")
	// New form: filters, answers the number killed, skips the caller by default.
	v1, v2, sub := s.Raw(t), s.Raw(t), s.Raw(t)
	id1 := v1.Do("CLIENT", "ID").(int64)
	v2.Expect(harness.Status("PONG"), "PING")
	sub.Expect([]any{"subscribe", "c", int64(1)}, "SUBSCRIBE", "c")
	admin.Expect(int64(1), "CLIENT", "KILL", "ID", strconv.FormatInt(id1, 10))
	admin.Expect(int64(0), "CLIENT", "KILL", "ID", strconv.FormatInt(id1, 10))
	admin.Expect(int64(1), "CLIENT", "KILL", "TYPE", "pubsub")
	admin.Expect(int64(1), "CLIENT", "KILL", "ADDR", v2.NetConn.LocalAddr().String(), "SKIPME", "yes")
	for _, r := range []*harness.Conn{v1, v2, sub} {
		if !r.Closed() {
			t.Fatal("a killed client is still connected")
		}
	}
	v3 := s.Raw(t)
	v3.Expect(harness.Status("PONG"), "PING")
	harness.Eventually(t, "killed clients gone", func() bool { return len(clientLines(t, admin.Do("CLIENT", "LIST"))) == 2 })
	admin.Expect(int64(1), "CLIENT", "KILL", "USER", "default") // all but the caller
	admin.Expect(int64(0), "CLIENT", "KILL", "LADDR", "1.1.1.1:1")
	admin.Expect(int64(0), "CLIENT", "KILL", "MAXAGE", "100")
	for _, tc := range []struct {
		args []string
		want harness.Err
	}{
		{[]string{"ID", "0"}, "ERR client-id should be greater than 0"},
		{[]string{"ID", "abc"}, "ERR client-id should be greater than 0"},
		{[]string{"TYPE", "foo"}, "ERR Unknown client type 'foo'"},
		{[]string{"USER", "nobody"}, "ERR No such user 'nobody'"},
		{[]string{"MAXAGE", "0"}, "ERR maxage should be greater than 0"},
		{[]string{"MAXAGE", "abc"}, "ERR maxage is not an integer or out of range"},
		{[]string{"SKIPME", "maybe"}, "ERR syntax error"},
		{[]string{"FOO", "bar"}, "ERR syntax error"},
		{[]string{"ID", "1", "TYPE"}, "ERR syntax error"},
	} {
		admin.Expect(tc.want, append([]string{"CLIENT", "KILL"}, tc.args...)...)
	}
	// Killing oneself answers first, then closes.
	self := admin.Do("CLIENT", "ID").(int64)
	admin.Send(harness.Req("CLIENT", "KILL", "ID", strconv.FormatInt(self, 10), "SKIPME", "no"))
	admin.ClosedAfter(int64(1))
	s.NoPanics(t)
}

// CLIENT PAUSE holds every client's commands (ALL), or only those that write
// or may propagate (WRITE), until the timeout or CLIENT UNPAUSE; nothing is
// refused and nothing runs early.
func TestClientPause(t *testing.T) {
	for name, addr := range harness.Targets(t) {
		t.Run(name, func(t *testing.T) {
			ctl, c := harness.DialRaw(t, addr, 2), harness.DialRaw(t, addr, 2)
			ctl.Exact("SET", "k", "v")
			took := func(args ...string) (string, time.Duration) {
				start := time.Now()
				r := c.Exact(args...)
				return r, time.Since(start)
			}
			const pause = 500 * time.Millisecond
			for _, tc := range []struct {
				mode   string
				cmd    []string
				held   bool
				result string
			}{
				{"ALL", []string{"GET", "k"}, true, harness.Bulk("v")},
				{"", []string{"PING"}, true, "+PONG\r\n"},
				{"WRITE", []string{"GET", "k"}, false, harness.Bulk("v")},
				{"WRITE", []string{"EXISTS", "k"}, false, harness.Integer(1)},
				{"WRITE", []string{"SET", "k", "w"}, true, "+OK\r\n"},
				{"WRITE", []string{"PUBLISH", "ch", "m"}, true, harness.Integer(0)},
				{"WRITE", []string{"PFCOUNT", "nokey"}, true, harness.Integer(0)},
				{"WRITE", []string{"FLUSHALL"}, true, "+OK\r\n"},
				{"WRITE", []string{"EVAL", "return 1", "0"}, true, harness.Integer(1)},
				{"WRITE", []string{"EVAL", "#!lua flags=no-writes\nreturn 2", "0"}, false, harness.Integer(2)},
				{"WRITE", []string{"EVAL", "#!lua\nreturn 3", "0"}, true, harness.Integer(3)},
			} {
				// A command the pause does not hold gets a pause ten times
				// as long, ended by UNPAUSE: a stall of the loaded machine
				// cannot pass for a hold, and a hold still lasts a pause.
				p := pause
				if !tc.held {
					p = 10 * pause
				}
				args := []string{"CLIENT", "PAUSE", fmt.Sprint(p.Milliseconds())}
				if tc.mode != "" {
					args = append(args, tc.mode)
				}
				if r := ctl.Exact(args...); r != "+OK\r\n" {
					t.Fatalf("%q: %q", args, r)
				}
				r, d := took(tc.cmd...)
				if r != tc.result {
					t.Errorf("%s %q: %q, want %q", tc.mode, tc.cmd, r, tc.result)
				}
				if held := d >= p*2/3; held != tc.held {
					t.Errorf("%s %q answered after %v: held %v, want %v", tc.mode, tc.cmd, d, held, tc.held)
				}
				if tc.held {
					time.Sleep(pause) // let it end
				} else if r := ctl.Exact("CLIENT", "UNPAUSE"); r != "+OK\r\n" {
					t.Fatal(r)
				}
			}
			// CLIENT UNPAUSE releases held commands at once, in order.
			ctl.Exact("SET", "k", "v")
			if r := ctl.Exact("CLIENT", "PAUSE", "5000", "WRITE"); r != "+OK\r\n" {
				t.Fatal(r)
			}
			c.Send(harness.Encode("SET", "k", "1") + harness.Encode("INCR", "k"))
			time.Sleep(100 * time.Millisecond)
			if r := ctl.Exact("GET", "k"); r != harness.Bulk("v") {
				t.Errorf("a held SET ran during the pause: GET %q", r)
			}
			if r := ctl.Exact("INFO", "clients"); !strings.Contains(r, "blocked_clients:1\r\n") {
				t.Errorf("the client the pause holds is not counted as blocked:\n%s", r)
			}
			start := time.Now()
			ctl.Exact("CLIENT", "UNPAUSE")
			if r := c.Next(); r != "+OK\r\n" {
				t.Errorf("held SET: %q", r)
			}
			if r := c.Next(); r != harness.Integer(2) {
				t.Errorf("held INCR: %q", r)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("UNPAUSE released them after %v", d)
			}
			// A client that leaves while its write is held takes the write
			// with it.
			if r := ctl.Exact("CLIENT", "PAUSE", "5000", "WRITE"); r != "+OK\r\n" {
				t.Fatal(r)
			}
			gone := harness.DialRaw(t, addr, 2)
			gone.Send(harness.Encode("SET", "left", "1"))
			time.Sleep(100 * time.Millisecond)
			gone.NetConn.Close()
			time.Sleep(300 * time.Millisecond)
			ctl.Exact("CLIENT", "UNPAUSE")
			time.Sleep(100 * time.Millisecond)
			if r := ctl.Exact("EXISTS", "left"); r != harness.Integer(0) {
				t.Errorf("the write of a client that left during the pause ran: EXISTS %q", r)
			}
			for _, tc := range []struct{ args, want []string }{
				{[]string{"CLIENT", "PAUSE", "x"}, []string{"ERR timeout is not an integer or out of range"}},
				{[]string{"CLIENT", "PAUSE", "-1"}, []string{"ERR timeout is negative"}},
				{[]string{"CLIENT", "PAUSE", "10", "READ"}, []string{"ERR CLIENT PAUSE mode must be WRITE or ALL"}},
				{[]string{"CLIENT", "PAUSE", "10", "WRITE", "x"}, []string{"ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP."}},
				{[]string{"CLIENT", "UNPAUSE", "x"}, []string{"ERR wrong number of arguments for 'client|unpause' command"}},
			} {
				if r := ctl.Exact(tc.args...); r != harness.ErrReply(tc.want[0]) {
					t.Errorf("%q: %q", tc.args, r)
				}
			}
		})
	}
}

// TestClientPauseHoldsExpiry: while a pause lasts, in either mode, keys
// whose time has run out read as missing but are not deleted (INFO
// expired_keys stays, RANDOMKEY may still name one); CLIENT UNPAUSE lets
// them go. Checked against Redis too when it is installed.
func TestClientPauseHoldsExpiry(t *testing.T) {
	servers := map[string]string{"hotkv": harness.Start(t).Addr}
	if harness.RedisServerPath() != "" {
		servers["redis"] = harness.StartRedis(t).Addr
	}
	for name, addr := range servers {
		t.Run(name, func(t *testing.T) {
			r := harness.DialRaw(t, addr, 2)
			expired := func() string {
				for _, l := range strings.Split(r.Exact("INFO", "stats"), "\r\n") {
					if v, ok := strings.CutPrefix(l, "expired_keys:"); ok {
						return v
					}
				}
				t.Fatal("no expired_keys")
				return ""
			}
			before := expired()
			r.Exact("MULTI")
			r.Exact("SET", "k", "v", "PX", "10")
			r.Exact("CLIENT", "PAUSE", "20000", "WRITE")
			r.Exact("EXEC")
			time.Sleep(100 * time.Millisecond) // past its time, and an expiry cycle
			if got := r.Exact("GET", "k"); got != "$-1\r\n" {
				t.Fatalf("GET of an expired key during the pause: %q", got)
			}
			if got := r.Exact("RANDOMKEY"); got != harness.Bulk("k") {
				t.Fatalf("RANDOMKEY during the pause: %q", got)
			}
			if got := expired(); got != before {
				t.Fatalf("expired_keys went from %s to %s during the pause", before, got)
			}
			r.Exact("CLIENT", "UNPAUSE")
			r.Exact("GET", "k")
			if got := r.Exact("RANDOMKEY"); got != "$-1\r\n" {
				t.Fatalf("RANDOMKEY after the pause: %q", got)
			}
			if got, want := expired(), fmt.Sprint(atoi(t, before)+1); got != want {
				t.Fatalf("expired_keys %s after the pause, want %s", got, want)
			}
		})
	}
}

// CLIENT NO-TOUCH ON leaves the keys a client's commands read as they were
// for eviction (here LFU, whose counter rises by one a read with
// lfu-log-factor 0), except TOUCH, from a script too; as in Redis.
func TestDifferentialClientNoTouch(t *testing.T) {
	freq := []string{"OBJECT", "FREQ", "foo"}
	script := [][]string{
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"}, {"CONFIG", "SET", "lfu-log-factor", "0"},
		{"SET", "foo", "bar"}, {"GET", "foo"}, freq,
		{"CLIENT", "NO-TOUCH", "ON"},
		{"GET", "foo"}, {"MGET", "foo", "foo"}, {"STRLEN", "foo"}, {"APPEND", "foo", "x"}, freq,
		{"EVAL", "return redis.call('get', KEYS[1])", "1", "foo"}, freq,
		{"MULTI"}, {"GET", "foo"}, {"EXEC"}, freq,
		{"TOUCH", "foo"}, freq,
		{"EVAL", "return redis.call('touch', KEYS[1])", "1", "foo"}, freq,
		{"CLIENT", "NO-TOUCH", "OFF"},
		{"GET", "foo"}, freq,
		{"CONFIG", "SET", "maxmemory-policy", "noeviction"}, {"CONFIG", "SET", "lfu-log-factor", "10"},
	}
	harness.Differ(t, script)
}

// CLIENT LIST shows what a connection's buffers hold: a request still
// arriving is its qbuf, and a big one grows its read buffer (rbs) and
// tot-mem, which INFO's mem_clients_normal sums; once the request is whole
// and answered, qbuf is 0 again.
func TestClientListBuffers(t *testing.T) {
	s := harness.Start(t)
	ctl := s.Raw(t)
	up := s.Raw(t)
	upID := up.Do("CLIENT", "ID").(int64)
	find := func() map[string]string {
		for _, line := range strings.Split(strings.TrimSpace(ctl.Do("CLIENT", "LIST").(string)), "\n") {
			if m := parseClient(t, line); m["id"] == strconv.FormatInt(upID, 10) {
				return m
			}
		}
		t.Fatal("client not listed")
		return nil
	}
	num := func(m map[string]string, k string) int {
		n, err := strconv.Atoi(m[k])
		if err != nil {
			t.Fatalf("%s=%q", k, m[k])
		}
		return n
	}
	before := find()
	memBefore := int(harness.InfoInt(t, ctl, "memory", "mem_clients_normal"))
	if num(before, "qbuf") != 0 || num(before, "tot-mem") <= num(before, "rbs") {
		t.Fatalf("idle client: %v", before)
	}
	const size = 1 << 20
	up.Send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + strconv.Itoa(size) + "\r\n" + strings.Repeat("x", size/2))
	var m map[string]string
	harness.Eventually(t, "half a request in the query buffer", func() bool { m = find(); return num(m, "qbuf") >= size/2 })
	if num(m, "rbs") < size || num(m, "qbuf")+num(m, "qbuf-free") != num(m, "rbs") || num(m, "tot-mem") < size {
		t.Fatalf("client receiving 1 MB: %v", m)
	}
	if got := int(harness.InfoInt(t, ctl, "memory", "mem_clients_normal")); got < memBefore+size*9/10 {
		t.Fatalf("mem_clients_normal %d, %d before", got, memBefore)
	}
	up.Send(strings.Repeat("x", size/2) + "\r\n")
	if v := up.Read(); v != harness.Status("OK") {
		t.Fatalf("SET: %v", v)
	}
	harness.Eventually(t, "the query buffer consumed", func() bool { return num(find(), "qbuf") == 0 })
}
