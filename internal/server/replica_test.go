package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/repl"
)

// The offset a replica acknowledges, and continues from after a drop,
// moves after each command of the master's stream but not inside a
// transaction: a link cut before EXEC gets the whole transaction again
// (Redis's master client's reploff), and what it had queued is dropped.
func TestStreamOffsetStopsBeforeOpenTransaction(t *testing.T) {
	s := benchServer(t)
	s.upstream.gen = 1
	var stream []byte
	stream = encode(stream, "SET", "a", "1")
	stream = encode(stream, "MULTI")
	stream = encode(stream, "SET", "b", "2")
	applied := len(encode(nil, "SET", "a", "1"))
	local, remote := net.Pipe()
	defer remote.Close()
	l := &replLink{s: s, conn: local, br: bufio.NewReader(bytes.NewReader(stream))}
	mc := newClient(s, local)
	mc.ctx.Blocker = nil
	mc.master = true
	if err := l.stream(1, mc); err != io.EOF {
		t.Fatalf("stream ended with %v", err)
	}
	if got := s.upstream.offset.Load(); got != int64(applied) {
		t.Errorf("offset %d, want %d (before the MULTI)", got, applied)
	}
	if got := s.upstream.readOffset.Load(); got != int64(len(stream)) {
		t.Errorf("read offset %d, want %d", got, len(stream))
	}
	db := s.ks.DBs[0]
	if db.ShardFor([]byte("a")).Get([]byte("a")) == nil || db.ShardFor([]byte("b")).Get([]byte("b")) != nil {
		t.Error("want a set and b (queued, no EXEC) not")
	}
}

// CLIENT KILL of a replica detaches it before the killer's reply, as Redis
// frees it: the socket closes a moment later, on another goroutine, and
// the stream fed meanwhile must not be queued for it.
func TestKillDetachesReplica(t *testing.T) {
	s := benchServer(t)
	local, remote := net.Pipe()
	defer remote.Close()
	go io.Copy(io.Discard, remote)
	c := newClient(s, local)
	r := repl.NewReplica(replicaConn{c}, "", repl.Conf{}, false)
	c.replica = r
	c.replicaFlag.Store(true)
	s.repl.Sync(r, false, "", nil) // attached at the instant of its RDB file
	attached := func() bool {
		var b strings.Builder
		s.repl.Info(&b, "", 0)
		return strings.Contains(b.String(), "connected_slaves:1\r\n")
	}
	for deadline := time.Now().Add(10 * time.Second); !attached(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the replica never attached")
		}
	}
	c.kill(newClient(s, nil))
	if attached() {
		t.Fatal("the killed replica is still attached")
	}
}

// A shutdown during the load ends it: Load reports ErrStopped and the
// server does not start following the master replicaof names.
func TestShutdownDuringLoadStartsNoReplication(t *testing.T) {
	cfg, err := config.FromArgs([]string{"--port", "0", "--loglevel", "warning", "--replicaof", "127.0.0.1", "1"})
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
	if err := s.Bind(); err != nil {
		t.Fatal(err)
	}
	defer s.closeListeners()
	if !s.finishShutdown(0) {
		t.Fatal("a shutdown while loading did not stop")
	}
	if err := s.Load(); !errors.Is(err, ErrStopped) {
		t.Fatalf("Load = %v, want ErrStopped", err)
	}
	if s.replicaFlag.Load() {
		t.Error("replication started after the shutdown")
	}
}
