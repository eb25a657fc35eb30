package server

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/repl"
)

// The master's client applies the stream's commands and reports an open
// transaction, whose commands it queues until EXEC (repl.Upstream keeps
// its offset before the MULTI meanwhile).
func TestMasterClientQueuesTransaction(t *testing.T) {
	s := benchServer(t)
	local, remote := net.Pipe()
	defer remote.Close()
	mc := masterClient{newMasterClient(s, local)}
	for _, c := range []struct {
		args []string
		inTx bool
	}{
		{[]string{"SET", "a", "1"}, false},
		{[]string{"MULTI"}, true},
		{[]string{"SET", "b", "2"}, true},
	} {
		args := make([][]byte, len(c.args))
		for i, a := range c.args {
			args[i] = []byte(a)
		}
		if got := mc.Apply(args); got != c.inTx {
			t.Errorf("Apply(%q) in a transaction: %v, want %v", c.args, got, c.inTx)
		}
	}
	db := s.ks.DBs[0]
	if db.ShardFor([]byte("a")).Get([]byte("a")) == nil || db.ShardFor([]byte("b")).Get([]byte("b")) != nil {
		t.Error("want a set and b (queued, no EXEC) not")
	}
	if mc.Apply([][]byte{[]byte("EXEC")}) {
		t.Error("a transaction is still open after EXEC")
	}
	if db.ShardFor([]byte("b")).Get([]byte("b")) == nil {
		t.Error("b is not set after EXEC")
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
	c.repl.replica = r
	c.repl.attached.Store(true)
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
