package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// TestPipelineOrderAndWrites sends many commands in one write: every reply
// comes back, in order, and the server answers each read with one write.
func TestPipelineOrderAndWrites(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect("warm", "PING", "warm")
	before := s.Info(t, "stats")

	const n = 300
	var b strings.Builder
	for i := range n {
		switch i % 3 {
		case 0:
			b.WriteString(harness.Req("SET", "k"+strconv.Itoa(i), "v"+strconv.Itoa(i)))
		case 1:
			b.WriteString(harness.Req("GET", "k"+strconv.Itoa(i-1)))
		default:
			fmt.Fprintf(&b, "ECHO e%d\r\n", i) // inline commands mix with multibulk
		}
	}
	r.Send(b.String())
	for i := range n {
		var want any
		switch i % 3 {
		case 0:
			want = harness.Status("OK")
		case 1:
			want = "v" + strconv.Itoa(i-1)
		default:
			want = "e" + strconv.Itoa(i)
		}
		r.ExpectRead(want)
	}
	after := s.Info(t, "stats")
	// Each INFO connection adds one read; the first INFO's write is counted
	// only by the second snapshot.
	reads := atoi(t, after["total_reads_processed"]) - atoi(t, before["total_reads_processed"]) - 1
	writes := atoi(t, after["total_writes_processed"]) - atoi(t, before["total_writes_processed"]) - 1
	if writes < 1 || writes > reads { // a read holding no complete command writes nothing
		t.Fatalf("pipeline of %d commands: %d reads, %d writes (want at most one write per read)", n, reads, writes)
	}
}

func atoi(t testing.TB, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// TestLargeRepliesPipeline checks that a pipeline of large replies is
// answered completely (replies are flushed as they accumulate).
func TestLargeRepliesPipeline(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	val := harness.BulkN(200<<10, 'x')
	r.Expect(harness.Status("OK"), "SET", "big", val)
	r.Send(strings.Repeat(harness.Req("GET", "big"), 40))
	for range 40 {
		if got := r.Read(); got != val {
			t.Fatalf("GET big: got %d bytes", len(fmt.Sprint(got)))
		}
	}
}

// TestInlineCommands types commands the way redis-cli users and telnet do.
func TestInlineCommands(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for _, tc := range []struct {
		line string
		want []any
	}{
		{"PING\r\n", []any{harness.Status("PONG")}},
		{"ping\n", []any{harness.Status("PONG")}},                      // bare LF
		{"\r\n\r\n\n   \r\n\tPING\r\n", []any{harness.Status("PONG")}}, // empty lines are skipped
		{`SET k "hello world"` + "\r\n", []any{harness.Status("OK")}},
		{"GET k\r\n", []any{"hello world"}},
		{`ECHO "a\x41\n\t\"q\\"` + "\r\n", []any{"aA\n\t\"q\\"}},
		{`ECHO 'it\'s \n'` + "\r\n", []any{`it's \n`}},
		{`ECHO ""` + "\r\n", []any{""}},
		{"ECHO a\vb\r\n", []any{"a\vb"}},
		{"SET  k2   v2  \r\nGET k2\r\n", []any{harness.Status("OK"), "v2"}},
		{"NOSUCH a 'b c'\r\n", []any{harness.Err("ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b c' ")}},
		{"ECHO\r\n", []any{harness.Err("ERR wrong number of arguments for 'echo' command")}},
	} {
		r.Send(tc.line)
		for _, w := range tc.want {
			if got := r.Read(); !reflect.DeepEqual(got, w) {
				t.Errorf("%q: got %#v, want %#v", tc.line, got, w)
			}
		}
	}
	r.Send("ECHO \"unbalanced\r\n")
	r.ClosedAfter(harness.Err("ERR Protocol error: unbalanced quotes in request"))
}

// TestPartialReads delivers a pipeline split at every byte boundary: the
// server must wait for the rest of a command and answer exactly as if it had
// come whole.
func TestPartialReads(t *testing.T) {
	s := harness.Start(t)
	in := harness.Req("SET", "key", "va\r\nl") + "ECHO \"in line\"\r\n" + harness.Req("GET", "key") + harness.Req("ECHO", "")
	want := []any{harness.Status("OK"), "in line", "va\r\nl", ""}
	for cut := 1; cut < len(in); cut++ {
		r := s.Raw(t)
		r.Send(in[:cut])
		time.Sleep(time.Millisecond) // let the first part arrive on its own
		r.Send(in[cut:])
		for _, w := range want {
			if got := r.Read(); !reflect.DeepEqual(got, w) {
				t.Fatalf("cut at %d: got %#v, want %#v", cut, got, w)
			}
		}
		r.NetConn.Close()
	}
	// And one byte per write.
	r := s.Raw(t)
	for i := range len(in) {
		r.Send(in[i : i+1])
	}
	for _, w := range want {
		r.ExpectRead(w)
	}
}

// TestHugeBulk sends a 10 MB value in 64 KiB pieces, then reads it back with
// go-redis in both protocols.
func TestHugeBulk(t *testing.T) {
	s := harness.Start(t)
	val := make([]byte, 10<<20)
	for i := range val {
		val[i] = byte(i * 7)
	}
	msg := []byte(harness.Req("SET", "huge", string(val)))
	r := s.Raw(t)
	for len(msg) > 0 {
		n := min(64<<10, len(msg))
		r.Send(string(msg[:n]))
		msg = msg[n:]
	}
	r.ExpectRead(harness.Status("OK"))
	ctx := context.Background()
	for _, c := range []*redis.Client{s.Client(t), s.Client(t, harness.Resp2)} {
		got, err := c.Get(ctx, "huge").Bytes()
		if err != nil || !bytes.Equal(got, val) {
			t.Fatalf("GET huge: %d bytes, %v", len(got), err)
		}
	}
	if err := s.Client(t).Set(ctx, "huge2", val, 0).Err(); err != nil {
		t.Fatal(err)
	}
	r.Expect(harness.Status("PONG"), "PING")
}

// TestMalformedRequests: each protocol error is answered with Redis's text,
// then only that connection is closed.
func TestMalformedRequests(t *testing.T) {
	s := harness.Start(t)
	other := s.Client(t)
	ctx := context.Background()
	long := strings.Repeat("1", 70000)
	for _, tc := range []struct{ in, want string }{
		{"*x\r\n", "invalid multibulk length"},
		{"*+1\r\n", "invalid multibulk length"},
		{"*3000000000\r\n", "invalid multibulk length"},
		{"*1\r\n$x\r\n", "invalid bulk length"},
		{"*1\r\n$-1\r\n", "invalid bulk length"},
		{"*1\r\n$536870913\r\n", "invalid bulk length"},
		{"*1\r\nPING\r\n", "expected '$', got 'P'"},
		{"*2\r\n$4\r\nECHO\r\n:1\r\n", "expected '$', got ':'"},
		{"*" + long, "too big mbulk count string"},
		{"*1\r\n$" + long, "too big bulk count string"},
		{strings.Repeat("A", 70000), "too big inline request"},
		{"SET a \"b\r\n", "unbalanced quotes in request"},
		{"SET a 'b'c\r\n", "unbalanced quotes in request"},
	} {
		r := s.Raw(t)
		r.Expect(harness.Status("PONG"), "PING")
		r.Send(tc.in)
		r.ClosedAfter(harness.Err("ERR Protocol error: " + tc.want))
		if err := other.Ping(ctx).Err(); err != nil {
			t.Fatalf("after %q another client failed: %v", tc.want, err)
		}
	}
	// Commands before the bad one in the same write are answered first.
	r := s.Raw(t)
	r.Send(harness.Req("SET", "x", "1") + "*1\r\n$4\r\nPING\r\nGET x\r\n*z\r\nPING\r\n")
	r.ClosedAfter(harness.Status("OK"), harness.Status("PONG"), "1", harness.Err("ERR Protocol error: invalid multibulk length"))
	s.NoPanics(t)
}

// TestProtocolLimitsConfigSet sets each protocol limit at run time and checks
// it is enforced on the next request.
func TestProtocolLimitsConfigSet(t *testing.T) {
	s := harness.Start(t)
	admin := s.Raw(t)
	admin.Expect(harness.Status("OK"), "CONFIG", "SET", "proto-max-bulk-len", "1mb", "proto-max-multibulk-len", "1024", "proto-max-inline-len", "1kb")

	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "SET", "k", harness.BulkN(1<<20, 'a')) // exactly the limit
	r.Send("*2\r\n$3\r\nGET\r\n$1048577\r\n")
	r.ClosedAfter(harness.Err("ERR Protocol error: invalid bulk length"))

	r = s.Raw(t)
	args := make([]string, 1024)
	args[0] = "DEL"
	for i := 1; i < len(args); i++ {
		args[i] = "k" + strconv.Itoa(i)
	}
	r.Expect(int64(0), args...)
	r.Send("*1025\r\n")
	r.ClosedAfter(harness.Err("ERR Protocol error: invalid multibulk length"))

	r = s.Raw(t)
	r.Send("ECHO " + harness.BulkN(1019, 'x') + "\r\n") // 1024 bytes with the name
	r.ExpectRead(harness.BulkN(1019, 'x'))
	r.Send("ECHO " + harness.BulkN(1020, 'x') + "\r\n")
	r.ClosedAfter(harness.Err("ERR Protocol error: too big inline request"))

	// A request larger than client-query-buffer-limit closes the client
	// without a reply, as Redis does.
	admin.Expect(harness.Status("OK"), "CONFIG", "SET", "proto-max-bulk-len", "8mb", "client-query-buffer-limit", "1mb")
	r = s.Raw(t)
	big := harness.Req("SET", "k", harness.BulkN(2<<20, 'b'))
	go func() { r.NetConn.Write([]byte(big)) }() // the server stops reading midway
	if !r.Closed() {
		t.Fatal("connection over client-query-buffer-limit still open")
	}
	if n := s.InfoInt(t, "stats", "client_query_buffer_limit_disconnections"); n != 1 {
		t.Fatalf("client_query_buffer_limit_disconnections = %d", n)
	}
	admin.Expect(harness.Status("PONG"), "PING")
	s.NoPanics(t)
}

// TestUnauthenticatedRequestLimits: before AUTH a request may not announce
// more than 10 arguments nor a bulk over 16 KiB.
func TestUnauthenticatedRequestLimits(t *testing.T) {
	s := harness.Start(t, "--requirepass", "pw")
	r := s.Raw(t)
	r.Send("*11\r\n")
	r.ClosedAfter(harness.Err("ERR Protocol error: unauthenticated multibulk length"))
	r = s.Raw(t)
	r.Send("*2\r\n$4\r\nAUTH\r\n$16385\r\n")
	r.ClosedAfter(harness.Err("ERR Protocol error: unauthenticated bulk length"))
	r = s.Raw(t)
	r.Expect(harness.Err("NOAUTH Authentication required."), "ECHO", harness.BulkN(16384, 'x'))
	r.Expect(harness.Status("OK"), "AUTH", "pw")
	r.Expect(harness.BulkN(20000, 'x'), "ECHO", harness.BulkN(20000, 'x'))
}

// TestMaxClients refuses the connection over maxclients with Redis's error,
// and accepts again once a slot frees up.
func TestMaxClients(t *testing.T) {
	s := harness.Start(t, "--maxclients", "2")
	a, b := s.Raw(t), s.Raw(t)
	a.Expect(harness.Status("PONG"), "PING")
	b.Expect(harness.Status("PONG"), "PING")
	c := s.Raw(t)
	c.ClosedAfter(harness.Err("ERR max number of clients reached"))
	if info := a.Do("INFO", "stats").(string); !strings.Contains(info, "rejected_connections:1\r\n") {
		t.Fatalf("INFO stats: %s", info)
	}
	b.NetConn.Close()
	harness.Eventually(t, "a free slot", func() bool {
		d := s.Raw(t)
		defer d.NetConn.Close()
		d.Send(harness.Req("PING"))
		return d.Read() == harness.Status("PONG")
	})
}

// TestRESP3Shapes checks HELLO 3's map and the RESP3 types of replies the
// server layer gives; the encoders themselves are unit-tested in resp.
func TestRESP3Shapes(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	hello := r.Do("HELLO", "3")
	m, ok := hello.(harness.Map)
	if !ok || len(m) != 14 {
		t.Fatalf("HELLO 3 = %#v", hello)
	}
	for i, want := range []any{"server", "redis", "version", "8.0.2", "proto", int64(3)} {
		if m[i] != want {
			t.Fatalf("HELLO 3 field %d = %#v, want %#v", i, m[i], want)
		}
	}
	if m[8] != "mode" || m[9] != "standalone" || m[10] != "role" || m[11] != "master" || m[12] != "modules" {
		t.Fatalf("HELLO 3 = %#v", m)
	}
	r.Expect(nil, "GET", "nosuch")                                              // _ null
	r.Expect(harness.Map{"maxclients", "10000"}, "CONFIG", "GET", "maxclients") // % map
	info := r.Do("COMMAND", "INFO", "get").([]any)[0].([]any)
	if _, ok := info[2].(harness.Set); !ok { // ~ set of flags
		t.Fatalf("COMMAND INFO flags = %#v", info[2])
	}
	r.Expect(harness.Push{"subscribe", "ch", int64(1)}, "SUBSCRIBE", "ch") // > push
	r.Expect(harness.Push{"unsubscribe", "ch", int64(0)}, "UNSUBSCRIBE", "ch")
	// HELLO 2 goes back; HELLO alone reports the current protocol.
	if got := r.Do("HELLO", "2").([]any); got[5] != int64(2) {
		t.Fatalf("HELLO 2 = %#v", got)
	}
	if got := r.Do("HELLO").([]any); got[5] != int64(2) {
		t.Fatalf("HELLO = %#v", got)
	}
	r.Expect(nil, "GET", "nosuch") // $-1 again
}

// TestHelloErrors: HELLO's errors leave the protocol unchanged.
func TestHelloErrors(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Err("NOPROTO unsupported protocol version"), "HELLO", "4")
	r.Expect(harness.Err("NOPROTO unsupported protocol version"), "HELLO", "1")
	r.Expect(harness.Err("ERR Protocol version is not an integer or out of range"), "HELLO", "three")
	r.Expect(harness.Err("ERR Syntax error in HELLO option 'foo'"), "HELLO", "3", "foo")
	r.Expect(harness.Err("ERR Syntax error in HELLO option 'AUTH'"), "HELLO", "3", "AUTH", "default")
	r.Expect(harness.Err("ERR Syntax error in HELLO option 'SETNAME'"), "HELLO", "3", "SETNAME")
	r.Expect(harness.Err("ERR Client names cannot contain spaces, newlines or special characters."), "HELLO", "3", "SETNAME", "a b")
	r.Send(harness.Req("GET", "nosuch"))
	line, _ := r.Reader.ReadString('\n')
	if line != "$-1\r\n" {
		t.Fatalf("still RESP2 expected, got %q", line)
	}
	got := r.Do("HELLO", "3", "SETNAME", "conn1").(harness.Map)
	if got[7] == nil {
		t.Fatal("HELLO without id")
	}
	r.Expect("conn1", "CLIENT", "GETNAME")
}

// TestGoRedisBothProtocols runs a typical go-redis session in RESP3 (its
// default) and RESP2: pipelines, transactions, server commands.
func TestGoRedisBothProtocols(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for name, c := range map[string]*redis.Client{"resp3": s.Client(t), "resp2": s.Client(t, harness.Resp2)} {
		k := "gr-" + name
		cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := range 50 {
				p.Set(ctx, k+strconv.Itoa(i), i, 0)
			}
			p.Get(ctx, k+"7")
			return nil
		})
		if err != nil || cmds[50].(*redis.StringCmd).Val() != "7" {
			t.Fatalf("%s pipeline: %v", name, err)
		}
		_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, k, "tx", 0)
			p.Get(ctx, k)
			return nil
		})
		if err != nil {
			t.Fatalf("%s tx: %v", name, err)
		}
		if v, err := c.ConfigGet(ctx, "max*").Result(); err != nil || v["maxclients"] != "10000" {
			t.Fatalf("%s CONFIG GET: %v %v", name, v, err)
		}
		if id, err := c.ClientID(ctx).Result(); err != nil || id <= 0 {
			t.Fatalf("%s CLIENT ID: %v %v", name, id, err)
		}
		if list, err := c.ClientList(ctx).Result(); err != nil || !strings.Contains(list, "lib-name=go-redis") {
			t.Fatalf("%s CLIENT LIST: %q %v", name, list, err)
		}
		if info, err := c.Info(ctx, "server").Result(); err != nil || !strings.Contains(info, "redis_version:8.0.2") {
			t.Fatalf("%s INFO: %v", name, err)
		}
		cmdsInfo, err := c.Command(ctx).Result()
		if err != nil || cmdsInfo["get"] == nil || cmdsInfo["get"].FirstKeyPos != 1 || !cmdsInfo["get"].ReadOnly {
			t.Fatalf("%s COMMAND: %v %+v", name, err, cmdsInfo["get"])
		}
		if tm, err := c.Time(ctx).Result(); err != nil || time.Since(tm).Abs() > time.Minute {
			t.Fatalf("%s TIME: %v %v", name, tm, err)
		}
		if err := c.Do(ctx, "NOSUCH").Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR unknown command") {
			t.Fatalf("%s unknown command: %v", name, err)
		}
	}
	s.NoPanics(t)
}

// TestRedisCLIPipe is Redis's mass insertion: a RESP stream through
// redis-cli --pipe, which ends it with "\r\n" and an ECHO it waits for.
func TestRedisCLIPipe(t *testing.T) {
	cli := harness.RedisCLI(t)
	s := harness.Start(t)
	_, port, _ := net.SplitHostPort(s.Addr)
	var stream strings.Builder
	const n = 20000
	for i := range n {
		stream.WriteString(harness.Req("SET", fmt.Sprintf("key:%012d", i), "xxx"))
	}
	cmd := exec.Command(cli, "-h", "127.0.0.1", "-p", port, "--pipe")
	cmd.Stdin = strings.NewReader(stream.String())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("errors: 0, replies: %d", n)) {
		t.Fatalf("redis-cli --pipe: %v\n%s", err, out)
	}
	s.Raw(t).Expect(int64(n), "DBSIZE")
	s.NoPanics(t)
}

// TestRedisCLI drives the server with the real redis-cli: arguments, stdin
// lines, RESP3 and a password.
func TestRedisCLI(t *testing.T) {
	cli := harness.RedisCLI(t)
	s := harness.Start(t, "--requirepass", "sekret")
	_, port, _ := net.SplitHostPort(s.Addr)
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(cli, append([]string{"-h", "127.0.0.1", "-p", port, "--no-auth-warning"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if got := run("", "PING"); got != "NOAUTH Authentication required.\n\n" { // redis-cli adds a blank line after an error
		t.Fatalf("PING without auth: %q", got)
	}
	if got := run("", "-a", "sekret", "SET", "cli key", "hello world"); got != "OK\n" {
		t.Fatalf("SET: %q", got)
	}
	if got := run("", "-a", "sekret", "GET", "cli key"); got != "hello world\n" {
		t.Fatalf("GET: %q", got)
	}
	got := run("SET a 1\nGET a\nECHO \"x y\"\nDBSIZE\n", "-a", "sekret")
	if got != "OK\n1\nx y\n2\n" {
		t.Fatalf("stdin session: %q", got)
	}
	if got := run("", "-a", "sekret", "-3", "HELLO", "3"); !strings.HasPrefix(got, "server redis\nversion 8.0.2\nproto 3\n") {
		t.Fatalf("HELLO 3: %q", got)
	}
	if got := run("", "-a", "sekret", "-3", "CONFIG", "GET", "maxclients"); !strings.Contains(got, "maxclients") || !strings.Contains(got, "10000") {
		t.Fatalf("RESP3 CONFIG GET: %q", got)
	}
	if got := run("", "-a", "sekret", "--raw", "INFO", "server"); !strings.Contains(got, "redis_version:8.0.2") {
		t.Fatalf("INFO: %q", got)
	}
	if got := run("", "-a", "wrong", "PING"); !strings.Contains(got, "AUTH failed: WRONGPASS invalid username-password pair or user is disabled.") {
		t.Fatalf("wrong password: %q", got)
	}
	s.NoPanics(t)
}
