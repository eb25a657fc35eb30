package repl

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/resp"
)

// testHost is a master with no data: its RDB files hold no keys.
type testHost struct{ cfg *config.Config }

func (h testHost) Config() *config.Config      { return h.cfg }
func (h testHost) Logf(string, string, ...any) {}
func (h testHost) ReplID() string              { return strings.Repeat("a", 40) }
func (h testHost) IsReplica() bool             { return false }
func (h testHost) WriteRDB(w io.Writer, atInstant func() (rdb.FileInfo, error), before func() error, _, _ bool) (int, error) {
	if _, err := atInstant(); err != nil {
		return 0, err
	}
	if before != nil {
		if err := before(); err != nil {
			return 0, err
		}
	}
	_, err := io.WriteString(w, "REDIS0012")
	return 0, err
}

func newTestMaster(t *testing.T) *Master {
	t.Helper()
	cfg, err := config.FromArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &Master{}
	m.Init(testHost{cfg}, keyspace.New(1), func(args [][]byte, _ int64, _ *config.ReplMaster) [][]byte { return args })
	m.Configure(cfg)
	return m
}

// words splits each command at spaces.
func words(cmds ...string) (out [][][]byte) {
	for _, c := range cmds {
		var args [][]byte
		for _, f := range strings.Fields(c) {
			args = append(args, []byte(f))
		}
		out = append(out, args)
	}
	return out
}

// commands is b's commands, "; " between them.
func commands(t *testing.T, b []byte) string {
	t.Helper()
	var lines []string
	p := resp.NewParser(resp.DefaultLimits)
	for at := 0; at < len(b); {
		args, end, err := p.Next(b, at)
		if err != nil {
			t.Fatalf("%q at %d: %v", b, at, err)
		}
		lines = append(lines, string(bytes.Join(args, []byte(" "))))
		at = end
	}
	return strings.Join(lines, "; ")
}

// TestFeedSplitsHotKVCommands: a transaction's writes to named indexes and
// the AI layer go after its key writes, as a unit of their own, so that a
// Redis replica (which refuses them) still applies the key writes.
func TestFeedSplitsHotKVCommands(t *testing.T) {
	m := newTestMaster(t)
	m.backlog = make([]byte, 1<<16)
	for _, c := range []struct {
		cmds []string
		want string
	}{
		{[]string{"SET a 1", "VSIM.SET idx e VALUES 1 1", "SET b 2", "amem.add m t VALUES 1 1"},
			"MULTI; SELECT 0; SET a 1; SET b 2; EXEC; MULTI; VSIM.SET idx e VALUES 1 1; amem.add m t VALUES 1 1; EXEC"},
		{[]string{"PCACHE.SET p q r", "SET a 1", "INCR a"}, "MULTI; SET a 1; INCR a; EXEC; PCACHE.SET p q r"},
		{[]string{"SCACHE.DROP c", "VSIM.DEL idx e"}, "MULTI; SCACHE.DROP c; VSIM.DEL idx e; EXEC"},
		{[]string{"VSIM.SET idx e VALUES 1 1"}, "VSIM.SET idx e VALUES 1 1"},
		{[]string{"SET a 1", "VADD vs VALUES 1 1 e"}, "MULTI; SET a 1; VADD vs VALUES 1 1 e; EXEC"},
	} {
		from := m.off
		m.Feed(0, 0, words(c.cmds...))
		if got := commands(t, m.backlog[from:m.off]); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.cmds, got, c.want)
		}
	}
}

// TestContinueFromBacklog: once the backlog has wrapped, a replica
// continues from any offset it still holds, getting exactly the stream
// from there, and from no older one.
func TestContinueFromBacklog(t *testing.T) {
	m, whole := newTestMaster(t), newTestMaster(t)
	for _, x := range []*Master{m, whole} {
		x.mu.Lock()
		x.startFeeding()
		x.mu.Unlock()
	}
	size := int64(len(m.backlog))
	whole.backlog = make([]byte, 4*size) // never wraps: all of the stream
	for i := 0; m.off < 3*size; i++ {
		cmd := words("SET k " + strings.Repeat("v", i%97))
		m.Feed(0, 0, cmd)
		whole.Feed(0, 0, cmd)
	}
	if m.histLen != size {
		t.Fatalf("history %d of %d", m.histLen, size)
	}
	first := m.off - size + 1 // the offset of the backlog's first byte
	if r := NewReplica(&recorder{}, "", Conf{}, true); m.tryContinue(r, m.ID(), []byte(strconv.FormatInt(first-1, 10))) {
		t.Fatal("continued from an offset the backlog no longer holds")
	}
	if r := NewReplica(&recorder{}, "", Conf{}, true); m.tryContinue(r, "?", []byte(strconv.FormatInt(first, 10))) {
		t.Fatal("continued another history")
	}
	conn := &recorder{}
	r := NewReplica(conn, "", Conf{}, true)
	if !m.tryContinue(r, m.ID(), []byte(strconv.FormatInt(first, 10))) {
		t.Fatal("did not continue from the backlog's first byte")
	}
	want := "+CONTINUE " + m.ID() + "\r\n" + string(whole.backlog[first-1:whole.off])
	if got := conn.wait(len(want)); got != want {
		t.Fatalf("continuation of %d bytes, want %d", len(got), len(want))
	}
	if got := m.Acked(m.off); got != 0 {
		t.Fatalf("%d replicas acknowledged the end before any ACK", got)
	}
	m.Ack(r, m.off)
	if got := m.Acked(m.off); got != 1 {
		t.Fatalf("%d replicas acknowledged the end after its ACK", got)
	}
	m.Detach(r)
}

// A detached replica (its connection closing) gets nothing of what is fed
// after: CLIENT KILL detaches it before the socket closes.
func TestDetachedGetsNothing(t *testing.T) {
	m := newTestMaster(t)
	r := NewReplica(&recorder{}, "", Conf{}, true)
	m.mu.Lock()
	m.attach(r)
	m.mu.Unlock()
	m.Detach(r)
	m.Feed(0, 0, words("SET a 1"))
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.replicas) != 0 || len(r.pending) != 0 {
		t.Fatalf("after Detach: %d replicas attached, %q queued for the detached one", len(m.replicas), r.pending)
	}
}

// recorder is a replica's connection that keeps what is written to it.
type recorder struct {
	mu sync.Mutex
	b  []byte
}

func (c *recorder) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b = append(c.b, b...)
	return len(b), nil
}

func (c *recorder) Close()                                            {}
func (c *recorder) Sent(int64)                                        {}
func (c *recorder) OutputOver(int64, *config.ReplMaster, *int64) bool { return false }

// wait returns what was written once it is n bytes or more (or after 5s).
func (c *recorder) wait(n int) string {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		c.mu.Lock()
		got := string(c.b)
		c.mu.Unlock()
		if len(got) >= n {
			return got
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.b)
}
