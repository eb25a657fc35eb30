package tests

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Output buffer limits (client-output-buffer-limit), after Redis's
// tests/unit/obuf-limits.tcl.

// TestNormalOutputHardLimit: under a normal-class hard limit, a command
// whose reply reaches it runs, but its client gets nothing and is closed;
// so is a pipeline whose replies together reach it, and an EXEC runs whole
// first. Replies under the limit are untouched.
func TestNormalOutputHardLimit(t *testing.T) {
	s := start(t)
	ctl := s.raw(t)
	ctl.expect(Status("OK"), "CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0")
	item := bulkN(1000, 'x')
	for range 150 {
		ctl.do("LPUSH", "biglist", item)
	}

	t.Run("single command", func(t *testing.T) {
		c := s.raw(t)
		c.expect(Status("OK"), "CLIENT", "SETNAME", "biglist-reader")
		c.send(encode("LRANGE", "biglist", "0", "-1"))
		if !c.closed() {
			t.Fatal("client that reached the hard limit got a reply or stayed open")
		}
		eventually(t, "the client to leave CLIENT LIST", func() bool {
			return !listed(ctl, "biglist-reader")
		})
	})

	t.Run("pipeline", func(t *testing.T) {
		ctl.expect(Status("OK"), "SET", "bigkey", bulkN(10000, 'v'))
		var buf strings.Builder
		for i := range 15 {
			n := strconv.Itoa(i)
			buf.WriteString("set " + n + " " + n + "\r\nget " + n + "\r\ndel " + n + "\r\nget bigkey\r\n")
		}
		c := s.raw(t)
		c.send(buf.String()) // one write, one read: one batch of about 150 kB of replies
		if !c.closed() {
			t.Fatal("pipeline over the hard limit got replies")
		}
		ctl.expect(Status("PONG"), "PING")
	})

	t.Run("transaction runs whole", func(t *testing.T) {
		c := s.raw(t)
		c.expect(Status("OK"), "SET", "k1", "v1")
		c.expect(Status("OK"), "MULTI")
		for _, cmd := range [][]string{{"SET", "k2", "v2"}, {"GET", "k2"}, {"LRANGE", "biglist", "0", "-1"}, {"SET", "k3", "v3"}, {"DEL", "k1"}} {
			c.expect(Status("QUEUED"), cmd...)
		}
		c.send(encode("EXEC"))
		if !c.closed() {
			t.Fatal("EXEC over the hard limit got a reply")
		}
		ctl.expect(nil, "GET", "k1")
		ctl.expect("v2", "GET", "k2")
		ctl.expect("v3", "GET", "k3")
	})

	t.Run("under the limit", func(t *testing.T) {
		c := s.raw(t)
		var buf strings.Builder
		for range 9 {
			buf.WriteString(encode("GET", "bigkey"))
		}
		c.send(buf.String())
		for range 9 {
			c.expectRead(bulkN(10000, 'v'))
		}
		c.expect(Status("PONG"), "PING")
	})

	wantObufDisconnections(t, s, 3)
}

// TestNormalOutputSoftLimit: a client that stops reading a reply at or over
// the normal-class soft limit is closed once the limit's seconds have
// passed; one that reads the same reply keeps its connection.
func TestNormalOutputSoftLimit(t *testing.T) {
	s := start(t)
	ctl := s.raw(t)
	ctl.expect(Status("OK"), "CONFIG", "SET", "client-output-buffer-limit", "normal 0 100kb 1")
	big := bulkN(32<<20, 'b') // more than the socket buffers hold
	ctl.expect(Status("OK"), "SET", "big", big)

	reader := s.raw(t)
	reader.expect(big, "GET", "big")
	reader.expect(Status("PONG"), "PING")

	stalled := s.raw(t)
	stalled.expect(Status("OK"), "CLIENT", "SETNAME", "stalled")
	stalled.send(encode("GET", "big"))
	began := time.Now()
	eventually(t, "the stalled client to be closed", func() bool {
		return !listed(ctl, "stalled")
	})
	if waited := time.Since(began); waited < time.Second {
		t.Fatalf("closed after %v, before the soft limit's second had passed", waited)
	}
	if !stalled.drainedToClose() {
		t.Fatal("stalled client's connection still open")
	}
	wantObufDisconnections(t, s, 1)
}

// TestPubSubOutputSoftLimit: a subscriber whose queue stays at or over the
// pubsub soft limit is kept while the limit's seconds have not passed and
// dropped once they have.
func TestPubSubOutputSoftLimit(t *testing.T) {
	s := start(t)
	ctl := s.raw(t)
	ctl.expect(Status("OK"), "CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 1mb 2")
	slow := s.raw(t)
	slow.expect(Status("OK"), "CLIENT", "SETNAME", "slow")
	slow.expect([]any{"subscribe", "flood", int64(1)}, "SUBSCRIBE", "flood")

	pub := s.client(t)
	ctx := context.Background()
	payload := bulkN(100<<10, 'm')
	began := time.Now()
	for range 160 { // 16 MB at once: past the socket buffers and the soft limit
		if err := pub.Publish(ctx, "flood", payload).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Unless the machine was too slow to tell, it is still there.
	if !listed(ctl, "slow") && time.Since(began) < 2*time.Second {
		t.Fatal("subscriber dropped as soon as it reached the soft limit")
	}
	for _, line := range strings.Split(ctl.do("CLIENT", "LIST").(string), "\n") {
		if strings.Contains(line, "name=slow") && omem(t, line) < 1<<20 {
			t.Fatalf("omem under the 1 MB queued: %s", line)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for listed(ctl, "slow") {
		if time.Now().After(deadline) {
			t.Fatal("subscriber over the soft limit for 10 s still connected")
		}
		pub.Publish(ctx, "flood", "x") // the limit is checked as output is added, as in Redis
		time.Sleep(100 * time.Millisecond)
	}
	wantObufDisconnections(t, s, 1)
}

// omem is a CLIENT LIST line's omem field.
func omem(t *testing.T, line string) int {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "omem="); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no omem in %q", line)
	return 0
}

// listed reports whether CLIENT LIST, asked on ctl, has a client named name.
func listed(ctl *raw, name string) bool {
	return strings.Contains(ctl.do("CLIENT", "LIST").(string), "name="+name+" ")
}

func wantObufDisconnections(t *testing.T, s *testServer, want int64) {
	t.Helper()
	if n := s.infoInt(t, "stats", "client_output_buffer_limit_disconnections"); n != want {
		t.Fatalf("client_output_buffer_limit_disconnections = %d, want %d", n, want)
	}
}
