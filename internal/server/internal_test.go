package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
)

// A command that writes half a reply, then panics while the dispatcher holds
// its key's shard: a stand-in for a handler bug.
func init() {
	cmdtable.Register(&cmdtable.Cmd{Name: "test-panic", Arity: 2, Flags: cmdtable.Write, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1,
		Group: "generic", Since: "0.0.0", Summary: "Panics (tests only).",
		Run: func(x *cmdtable.Ctx) {
			x.W.Array(3)
			x.W.Int(1)
			panic("handler bug")
		}})
}

// TestHandlerPanicIsContained: the panicking command answers an error in
// place of its partial reply, releases its locks, is counted in INFO, and
// the connection (and its transaction) carry on.
// startServer runs a server on a free loopback port until the test ends.
func startServer(t *testing.T) *Server {
	cfg, err := config.FromArgs([]string{"--port", "0"})
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
	s.log = log.New(io.Discard, "", 0)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		<-done
	})
	return s
}

// dial returns a send function: write the commands, then check each reply
// line.
func dial(t *testing.T, s *Server) (net.Conn, func(cmds string, want ...string)) {
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	in := bufio.NewReader(conn)
	return conn, func(cmds string, want ...string) {
		t.Helper()
		if _, err := conn.Write([]byte(cmds)); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			got, err := in.ReadString('\n')
			if err != nil || got != w+"\r\n" {
				t.Fatalf("%q: got %q (%v), want %q", cmds, got, err, w)
			}
		}
	}
}

func TestHandlerPanicIsContained(t *testing.T) {
	s := startServer(t)
	_, send := dial(t, s)
	send("TEST-PANIC k\r\nSET k v\r\nGET k\r\n", "-ERR internal error running 'test-panic'", "+OK", "$1", "v")
	send("MULTI\r\nSET k w\r\nTEST-PANIC k\r\nGET k\r\nEXEC\r\n",
		"+OK", "+QUEUED", "+QUEUED", "+QUEUED", "*3", "+OK", "-ERR internal error running 'test-panic'", "$1", "w")
	if n := s.stats.panics.Load(); n != 2 {
		t.Fatalf("recovered_panics = %d", n)
	}
	var b strings.Builder
	s.infoSection(&b, "stats", nil)
	if !strings.Contains(b.String(), "recovered_panics:2\r\n") {
		t.Fatalf("INFO stats: %s", b.String())
	}
	// Another connection can use the shard the panicking command held.
	_, other := dial(t, s)
	other("SET k x\r\n", "+OK")
}

// TestUnsubscribedClientWritesDirectly: once a client has no subscription
// left, its replies bypass the pub/sub queue again, so it gets the
// backpressure of any client that does not read.
func TestUnsubscribedClientWritesDirectly(t *testing.T) {
	s := startServer(t)
	_, send := dial(t, s)
	send("SUBSCRIBE a\r\n", "*3", "$9", "subscribe", "$1", "a", ":1")
	c := s.clientList()[0]
	send("UNSUBSCRIBE\r\nPING\r\n", "*3", "$11", "unsubscribe", "$1", "a", ":0", "+PONG")
	send("PING\r\n", "+PONG") // the flush after this leaves the queue
	s.clients.mu.Lock()
	defer s.clients.mu.Unlock()
	if s.hub.Load(&c.pubsub.ep) != nil {
		t.Fatal("unsubscribed client still writes through the pub/sub queue")
	}
}

// The eviction pool keeps the poolSize best candidates in increasing score,
// whatever order they arrive in.
func TestEvictPoolKeepsBest(t *testing.T) {
	var p evictPool
	scores := rand.Perm(100)
	for _, v := range scores {
		p.add(candidate{shard: v % 7, key: fmt.Sprint("k", v), score: uint64(v)})
	}
	if len(p.c) != poolSize {
		t.Fatalf("pool holds %d, want %d", len(p.c), poolSize)
	}
	for i, c := range p.c {
		want := uint64(100 - poolSize + i)
		if c.score != want || c.key != fmt.Sprint("k", want) || c.shard != int(want)%7 {
			t.Fatalf("pool[%d] = %+v, want score %d", i, c, want)
		}
	}
	p.add(candidate{key: "low", score: 1}) // worse than all: ignored
	if p.c[0].score != 100-poolSize {
		t.Fatalf("a worse candidate displaced %+v", p.c[0])
	}
}
