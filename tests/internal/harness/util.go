package harness

import (
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Expect sends one command and checks its reply.
func (r *Conn) Expect(want any, args ...string) {
	r.T.Helper()
	if got := r.Do(args...); !reflect.DeepEqual(got, want) {
		r.T.Fatalf("%q: got %#v, want %#v", args, got, want)
	}
}

// ExpectRead checks the next reply.
func (r *Conn) ExpectRead(want any) {
	r.T.Helper()
	if got := r.Read(); !reflect.DeepEqual(got, want) {
		r.T.Fatalf("got %#v, want %#v", got, want)
	}
}

// ClosedAfter reads the replies it expects, then checks the server closed
// the connection.
func (r *Conn) ClosedAfter(want ...any) {
	r.T.Helper()
	for _, w := range want {
		r.ExpectRead(w)
	}
	if !r.Closed() {
		r.T.Fatal("connection still open")
	}
}

// Info returns the fields of INFO sections, asked on a fresh connection.
func (s *Server) Info(t testing.TB, sections ...string) map[string]string {
	t.Helper()
	r := s.Raw(t)
	defer r.NetConn.Close()
	if pw := s.Config().RequirePass; pw != "" {
		r.Expect(Status("OK"), "AUTH", pw)
	}
	txt, ok := r.Do(append([]string{"INFO"}, sections...)...).(string)
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

// InfoInt is one numeric INFO field.
func (s *Server) InfoInt(t testing.TB, section, field string) int64 {
	t.Helper()
	v, ok := s.Info(t, section)[field]
	if !ok {
		t.Fatalf("INFO %s has no %s", section, field)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("INFO %s: %s=%q", section, field, v)
	}
	return n
}

// NoPanics fails the test if the server recovered from a panic: each one is
// a bug in a handler.
func (s *Server) NoPanics(t testing.TB) {
	t.Helper()
	if n := s.InfoInt(t, "stats", "recovered_panics"); n != 0 {
		t.Fatalf("recovered_panics = %d", n)
	}
}

// Eventually polls cond for up to 5 seconds (for effects of another
// connection closing, which the server sees asynchronously).
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	EventuallyWithin(t, 5*time.Second, what, cond)
}

// EventuallyWithin is Eventually for up to d, for work whose time grows
// with the machine's load (the packages run in parallel, and under -race).
func EventuallyWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// PeerCLI is the peers' redis8-cli, or else redis-cli (RedisCLI).
func PeerCLI(t testing.TB) string {
	if cli := PeerPath("redis8-cli"); cli != "" {
		return cli
	}
	return RedisCLI(t)
}

// RedisCLI returns the path of redis-cli, skipping the test without it.
func RedisCLI(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed (apt package redis-tools)")
	}
	return p
}

// args is a multibulk request from words.
func Req(words ...string) string { return Encode(words...) }

// BulkN is a bulk string reply of n bytes of c.
func BulkN(n int, c byte) string { return strings.Repeat(string(c), n) }

// ContainsAll reports whether s contains every part.
func ContainsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// DrainedToClose reads and discards what the server sent until it closes
// the connection (true) or stays silent for 2 seconds (false).
func (r *Conn) DrainedToClose() bool {
	buf := make([]byte, 64<<10)
	for {
		r.NetConn.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := r.Reader.Read(buf); err != nil {
			return !IsTimeout(err)
		}
	}
}
