package server

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Requests a web page can make a browser send to a local port: commands in
// an HTTP request's body, behind a POST line or a Host: header, inline or
// as multibulk, in any letter case, or a name cut at a NUL (Redis compares
// names as C strings).
var crossProtocolRequests = []string{
	"POST / HTTP/1.1\r\nHost: localhost\r\n\r\nSET pwned yes\r\n",
	"GET / HTTP/1.1\r\nHost: localhost\r\n\r\nSET pwned yes\r\n",
	"host: localhost\r\nSET pwned yes\r\n",
	"SET before 1\r\nPOST /x HTTP/1.1\r\nSET pwned yes\r\n",
	harness.Req("post", "/") + harness.Req("SET", "pwned", "yes"),
	harness.Req("HoSt:", "x") + harness.Req("SET", "pwned", "yes"),
	harness.Req("MULTI") + harness.Req("SET", "pwned", "yes") + harness.Req("POST") + harness.Req("EXEC"),
	harness.Req("POST\x00x") + harness.Req("SET", "pwned", "yes"),
	harness.Req("CLIENT", "REPLY", "SKIP") + harness.Req("POST") + harness.Req("SET", "pwned", "yes"),
}

// sentBeforeClose is all the server sends on a connection after s, until it
// closes it ("<open>" appended if it is still open after 2 seconds).
func sentBeforeClose(t *testing.T, addr, s string) string {
	t.Helper()
	r := (&harness.Server{Addr: addr}).Raw(t)
	r.Send(s)
	r.NetConn.SetReadDeadline(time.Now().Add(2 * time.Second))
	got, err := io.ReadAll(r.Reader)
	if err != nil {
		return string(got) + "<open>"
	}
	return string(got)
}

// TestCrossProtocolAttack: as Redis does, a connection whose command is
// POST or Host: is closed with no reply, nothing after it runs, other
// connections go on, and the warning is logged once a minute at most;
// HotKV counts the attacks in INFO.
func TestCrossProtocolAttack(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "hotkv.log")
	s := harness.Start(t, "--logfile", logfile)
	for _, attack := range crossProtocolRequests {
		if got := sentBeforeClose(t, s.Addr, attack); got != "" {
			t.Fatalf("%q: server sent %q, want nothing and a closed connection", attack, got)
		}
	}
	// A subscriber's replies go out as they are made, so its SUBSCRIBE
	// confirmation may be sent (Redis sends none), but what follows the
	// POST does not run.
	sub := s.Raw(t)
	sub.Send(harness.Req("SUBSCRIBE", "ch") + harness.Req("POST") + harness.Req("SET", "pwned", "yes"))
	if !sub.DrainedToClose() {
		t.Fatal("subscriber's connection still open")
	}
	r := s.Raw(t)
	r.Expect(int64(0), "EXISTS", "pwned")
	r.Expect(int64(1), "EXISTS", "before") // run before the POST, as in Redis
	// Only those two names: others are unknown commands, the connection stays.
	r.Expect(harness.Err("ERR unknown command 'Host', with args beginning with: 'x' "), "Host", "x")
	r.Expect(harness.Err("ERR unknown command 'POSTS', with args beginning with: "), "POSTS")
	r.Expect(harness.Status("PONG"), "PING")
	if n := s.InfoInt(t, "stats", "cross_protocol_disconnections"); n != int64(len(crossProtocolRequests)+1) {
		t.Fatalf("cross_protocol_disconnections = %d, want %d", n, len(crossProtocolRequests)+1)
	}
	if n := s.InfoInt(t, "stats", "total_error_replies"); n != 3 { // GET's arity and the two above
		t.Fatalf("total_error_replies = %d, want 3", n)
	}
	log, err := os.ReadFile(logfile)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "Possible SECURITY ATTACK detected."); n != 1 {
		t.Fatalf("%d warnings logged, want 1 (once a minute):\n%s", n, log)
	}
	if !strings.Contains(string(log), "Cross Protocol Scripting to compromise your Redis instance. Connection from 127.0.0.1:") {
		t.Fatalf("warning does not name the connection:\n%s", log)
	}
	// Checked before authentication, as in Redis.
	if got := sentBeforeClose(t, harness.Start(t, "--requirepass", "pw").Addr, crossProtocolRequests[0]); got != "" {
		t.Fatalf("with requirepass: server sent %q, want nothing and a closed connection", got)
	}
	r.Expect(harness.Status("OK"), "CONFIG", "RESETSTAT")
	if n := s.InfoInt(t, "stats", "cross_protocol_disconnections"); n != 0 {
		t.Fatalf("cross_protocol_disconnections = %d after CONFIG RESETSTAT", n)
	}
}

// TestDifferentialCrossProtocol: Redis 8.0.2 and HotKV send the same bytes
// (none) to each request and are left with the same keys.
func TestDifferentialCrossProtocol(t *testing.T) {
	redis, hot := harness.StartRedis(t), harness.Start(t)
	for _, attack := range append(crossProtocolRequests, "Host\r\nPING\r\n") {
		want, got := sentBeforeClose(t, redis.Addr, attack), sentBeforeClose(t, hot.Addr, attack)
		if got != want {
			t.Fatalf("%q:\nhotkv: %q\nredis: %q", attack, got, want)
		}
	}
	for _, srv := range []*harness.Server{redis, hot} {
		srv.Raw(t).Expect([]any{"1", nil}, "MGET", "before", "pwned")
	}
}
