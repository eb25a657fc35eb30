package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Output buffer limits (client-output-buffer-limit), after Redis's
// tests/unit/obuf-limits.tcl.

// TestNormalOutputHardLimit: under a normal-class hard limit, a command
// whose reply reaches it runs, but its client gets nothing and is closed;
// so is a pipeline whose replies together reach it, and an EXEC runs whole
// first. Replies under the limit are untouched.
func TestNormalOutputHardLimit(t *testing.T) {
	s := harness.Start(t)
	ctl := s.Raw(t)
	ctl.Expect(harness.Status("OK"), "CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0")
	item := harness.BulkN(1000, 'x')
	for range 150 {
		ctl.Do("LPUSH", "biglist", item)
	}

	t.Run("single command", func(t *testing.T) {
		c := s.Raw(t)
		c.Expect(harness.Status("OK"), "CLIENT", "SETNAME", "biglist-reader")
		c.Send(harness.Encode("LRANGE", "biglist", "0", "-1"))
		if !c.Closed() {
			t.Fatal("client that reached the hard limit got a reply or stayed open")
		}
		harness.Eventually(t, "the client to leave CLIENT LIST", func() bool {
			return !listed(ctl, "biglist-reader")
		})
	})

	t.Run("pipeline", func(t *testing.T) {
		ctl.Expect(harness.Status("OK"), "SET", "bigkey", harness.BulkN(10000, 'v'))
		var buf strings.Builder
		for i := range 15 {
			n := strconv.Itoa(i)
			buf.WriteString("set " + n + " " + n + "\r\nget " + n + "\r\ndel " + n + "\r\nget bigkey\r\n")
		}
		c := s.Raw(t)
		c.Send(buf.String()) // one write, one read: one batch of about 150 kB of replies
		if !c.Closed() {
			t.Fatal("pipeline over the hard limit got replies")
		}
		ctl.Expect(harness.Status("PONG"), "PING")
	})

	t.Run("transaction runs whole", func(t *testing.T) {
		c := s.Raw(t)
		c.Expect(harness.Status("OK"), "SET", "k1", "v1")
		c.Expect(harness.Status("OK"), "MULTI")
		for _, cmd := range [][]string{{"SET", "k2", "v2"}, {"GET", "k2"}, {"LRANGE", "biglist", "0", "-1"}, {"SET", "k3", "v3"}, {"DEL", "k1"}} {
			c.Expect(harness.Status("QUEUED"), cmd...)
		}
		c.Send(harness.Encode("EXEC"))
		if !c.Closed() {
			t.Fatal("EXEC over the hard limit got a reply")
		}
		ctl.Expect(nil, "GET", "k1")
		ctl.Expect("v2", "GET", "k2")
		ctl.Expect("v3", "GET", "k3")
	})

	t.Run("under the limit", func(t *testing.T) {
		c := s.Raw(t)
		var buf strings.Builder
		for range 9 {
			buf.WriteString(harness.Encode("GET", "bigkey"))
		}
		c.Send(buf.String())
		for range 9 {
			c.ExpectRead(harness.BulkN(10000, 'v'))
		}
		c.Expect(harness.Status("PONG"), "PING")
	})

	wantObufDisconnections(t, s, 3)
}

// TestNormalOutputSoftLimit: a client that stops reading a reply at or over
// the normal-class soft limit is closed once the limit's seconds have
// passed; one that reads the same reply keeps its connection.
func TestNormalOutputSoftLimit(t *testing.T) {
	s := harness.Start(t)
	ctl := s.Raw(t)
	ctl.Expect(harness.Status("OK"), "CONFIG", "SET", "client-output-buffer-limit", "normal 0 100kb 1")
	big := harness.BulkN(32<<20, 'b') // more than the socket buffers hold
	ctl.Expect(harness.Status("OK"), "SET", "big", big)

	reader := s.Raw(t)
	reader.Expect(big, "GET", "big")
	reader.Expect(harness.Status("PONG"), "PING")

	stalled := s.Raw(t)
	stalled.Expect(harness.Status("OK"), "CLIENT", "SETNAME", "stalled")
	stalled.Send(harness.Encode("GET", "big"))
	began := time.Now()
	harness.Eventually(t, "the stalled client to be closed", func() bool {
		return !listed(ctl, "stalled")
	})
	if waited := time.Since(began); waited < time.Second {
		t.Fatalf("closed after %v, before the soft limit's second had passed", waited)
	}
	if !stalled.DrainedToClose() {
		t.Fatal("stalled client's connection still open")
	}
	wantObufDisconnections(t, s, 1)
}

// TestPubSubOutputSoftLimit: a subscriber whose queue stays at or over the
// pubsub soft limit is kept while the limit's seconds have not passed and
// dropped once they have.
func TestPubSubOutputSoftLimit(t *testing.T) {
	s := harness.Start(t)
	ctl := s.Raw(t)
	ctl.Expect(harness.Status("OK"), "CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 1mb 2")
	slow := s.Raw(t)
	slow.Expect(harness.Status("OK"), "CLIENT", "SETNAME", "slow")
	slow.Expect([]any{"subscribe", "flood", int64(1)}, "SUBSCRIBE", "flood")

	pub := s.Client(t)
	ctx := context.Background()
	payload := harness.BulkN(100<<10, 'm')
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
	for _, line := range strings.Split(ctl.Do("CLIENT", "LIST").(string), "\n") {
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
func listed(ctl *harness.Conn, name string) bool {
	return strings.Contains(ctl.Do("CLIENT", "LIST").(string), "name="+name+" ")
}

func wantObufDisconnections(t *testing.T, s *harness.Server, want int64) {
	t.Helper()
	if n := s.InfoInt(t, "stats", "client_output_buffer_limit_disconnections"); n != want {
		t.Fatalf("client_output_buffer_limit_disconnections = %d, want %d", n, want)
	}
}
