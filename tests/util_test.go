package tests

import (
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Helpers shared by the server-layer tests (protocol, pubsub, multi, auth,
// config, client, admin, process).

// expect sends one command and checks its reply.
func (r *raw) expect(want any, args ...string) {
	r.t.Helper()
	if got := r.do(args...); !reflect.DeepEqual(got, want) {
		r.t.Fatalf("%q: got %#v, want %#v", args, got, want)
	}
}

// expectRead checks the next reply.
func (r *raw) expectRead(want any) {
	r.t.Helper()
	if got := r.read(); !reflect.DeepEqual(got, want) {
		r.t.Fatalf("got %#v, want %#v", got, want)
	}
}

// closedAfter reads the replies it expects, then checks the server closed
// the connection.
func (r *raw) closedAfter(want ...any) {
	r.t.Helper()
	for _, w := range want {
		r.expectRead(w)
	}
	if !r.closed() {
		r.t.Fatal("connection still open")
	}
}

// info returns the fields of INFO sections, asked on a fresh connection.
func (s *testServer) info(t testing.TB, sections ...string) map[string]string {
	t.Helper()
	r := s.raw(t)
	defer r.conn.Close()
	if pw := s.Config().RequirePass; pw != "" {
		r.expect(Status("OK"), "AUTH", pw)
	}
	txt, ok := r.do(append([]string{"INFO"}, sections...)...).(string)
	if !ok {
		t.Fatalf("INFO %v did not answer a bulk string", sections)
	}
	m := map[string]string{}
	for _, line := range strings.Split(txt, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			m[k] = v
		}
	}
	return m
}

// infoInt is one numeric INFO field.
func (s *testServer) infoInt(t testing.TB, section, field string) int64 {
	t.Helper()
	v, ok := s.info(t, section)[field]
	if !ok {
		t.Fatalf("INFO %s has no %s", section, field)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("INFO %s: %s=%q", section, field, v)
	}
	return n
}

// noPanics fails the test if the server recovered from a panic: each one is
// a bug in a handler.
func (s *testServer) noPanics(t testing.TB) {
	t.Helper()
	if n := s.infoInt(t, "stats", "recovered_panics"); n != 0 {
		t.Fatalf("recovered_panics = %d", n)
	}
}

// eventually polls cond for up to 5 seconds (for effects of another
// connection closing, which the server sees asynchronously).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// peerCLI is the peers' redis8-cli, or else redis-cli (redisCLI).
func peerCLI(t testing.TB) string {
	if cli := peerPath("redis8-cli"); cli != "" {
		return cli
	}
	return redisCLI(t)
}

// redisCLI returns the path of redis-cli, skipping the test without it.
func redisCLI(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed (apt package redis-tools)")
	}
	return p
}

// args is a multibulk request from words.
func req(words ...string) string { return encode(words...) }

// bulkN is a bulk string reply of n bytes of c.
func bulkN(n int, c byte) string { return strings.Repeat(string(c), n) }

// containsAll reports whether s contains every part.
func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// drainedToClose reads and discards what the server sent until it closes
// the connection (true) or stays silent for 2 seconds (false).
func (r *raw) drainedToClose() bool {
	buf := make([]byte, 64<<10)
	for {
		r.conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := r.r.Read(buf); err != nil {
			return !isTimeout(err)
		}
	}
}
