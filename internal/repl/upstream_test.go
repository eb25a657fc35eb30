package repl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/resp"
)

// replicaHost is a server that records what the replica side asks of it.
type replicaHost struct {
	cfg    *config.Config
	closed chan struct{}

	mu      sync.Mutex
	replID  string
	replica bool
	rdb     string // the last full sync's file
	applied []string
}

func newReplicaHost(t *testing.T) *replicaHost {
	t.Helper()
	cfg, err := config.FromArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &replicaHost{cfg: cfg, closed: make(chan struct{}), replID: strings.Repeat("b", 40)}
	t.Cleanup(func() { close(h.closed) })
	return h
}

func (h *replicaHost) Config() *config.Config      { return h.cfg }
func (h *replicaHost) Logf(string, string, ...any) {}
func (h *replicaHost) Port() int                   { return 6380 }
func (h *replicaHost) Closed() <-chan struct{}     { return h.closed }

func (h *replicaHost) ReplID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.replID
}

func (h *replicaHost) SetReplID(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.replID = id
}

func (h *replicaHost) SetReplica(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.replica = on
}

func (h *replicaHost) LoadRDB(src io.Reader) (Staged, error) {
	b, err := io.ReadAll(src)
	if err != nil {
		return nil, err
	}
	return staged{h, string(b)}, nil
}

func (h *replicaHost) MasterClient(net.Conn, int) MasterClient { return &testMasterClient{h: h} }

func (h *replicaHost) state() (rdb string, applied []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rdb, append([]string(nil), h.applied...)
}

type staged struct {
	h   *replicaHost
	rdb string
}

func (s staged) Counts() (int, int64) { return 0, int64(len(s.rdb)) }

func (s staged) Install(net.Conn) (MasterClient, error) {
	s.h.mu.Lock()
	s.h.rdb = s.rdb
	s.h.mu.Unlock()
	return &testMasterClient{h: s.h}, nil
}

// testMasterClient applies a command by noting it; MULTI opens a
// transaction, EXEC closes it.
type testMasterClient struct {
	h          *replicaHost
	inTx       bool
	db         int
	killAfter  int // CLIENT KILL lands once this many commands are applied (0: never)
	applyCount int
}

func (c *testMasterClient) Listed()      {}
func (c *testMasterClient) Gone()        {}
func (c *testMasterClient) Flush()       {}
func (c *testMasterClient) DB() int      { return c.db }
func (c *testMasterClient) Killed() bool { return c.killAfter > 0 && c.applyCount >= c.killAfter }

func (c *testMasterClient) Apply(args [][]byte) bool {
	cmd := string(bytes.Join(args, []byte(" ")))
	switch strings.ToUpper(string(args[0])) {
	case "MULTI":
		c.inTx = true
	case "EXEC":
		c.inTx = false
	}
	c.h.mu.Lock()
	c.h.applied = append(c.h.applied, cmd)
	c.h.mu.Unlock()
	c.applyCount++
	return c.inTx
}

func command(args ...string) []byte {
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b
}

// The offset a replica acknowledges, and continues from after a drop,
// moves after each command of the master's stream but not inside a
// transaction: a link cut before EXEC gets the whole transaction again
// (Redis's master client's reploff).
func TestStreamOffsetStopsBeforeOpenTransaction(t *testing.T) {
	h := newReplicaHost(t)
	u := &Upstream{}
	u.Init(h, &Stats{})
	u.gen = 1
	var stream []byte
	stream = append(stream, command("SET", "a", "1")...)
	applied := len(stream)
	stream = append(stream, command("MULTI")...)
	stream = append(stream, command("SET", "b", "2")...)
	local, remote := net.Pipe()
	defer remote.Close()
	l := &link{u: u, conn: local, br: bufio.NewReader(bytes.NewReader(stream))}
	if err := l.stream(1, &testMasterClient{h: h}); err != io.EOF {
		t.Fatalf("stream ended with %v", err)
	}
	if got := u.offset.Load(); got != int64(applied) {
		t.Errorf("offset %d, want %d (before the MULTI)", got, applied)
	}
	if got := u.readOffset.Load(); got != int64(len(stream)) {
		t.Errorf("read offset %d, want %d", got, len(stream))
	}
	if _, got := h.state(); strings.Join(got, ",") != "SET a 1,MULTI,SET b 2" {
		t.Errorf("applied %q", got)
	}
}

// Once CLIENT KILL has closed the master's client, a command already read
// from the link is not applied, as in Redis, where the kill frees the
// client at once; the offset stays before it, so the next link's PSYNC
// gets it again from the backlog.
func TestStreamStopsOnceMasterClientKilled(t *testing.T) {
	h := newReplicaHost(t)
	u := &Upstream{}
	u.Init(h, &Stats{})
	u.gen = 1
	stream := command("SET", "a", "1")
	applied := len(stream)
	stream = append(stream, command("SET", "b", "2")...)
	local, remote := net.Pipe()
	defer remote.Close()
	l := &link{u: u, conn: local, br: bufio.NewReader(bytes.NewReader(stream))}
	if err := l.stream(1, &testMasterClient{h: h, killAfter: 1}); err != errMasterKilled {
		t.Fatalf("stream ended with %v, want errMasterKilled", err)
	}
	if got := u.offset.Load(); got != int64(applied) {
		t.Errorf("offset %d, want %d (after the first SET only)", got, applied)
	}
	if _, got := h.state(); strings.Join(got, ",") != "SET a 1" {
		t.Errorf("applied %q", got)
	}
}

// fakeMaster accepts one replica on a local port and answers its
// handshake with a full resync of file, then sends stream.
func fakeMaster(t *testing.T, id, file string, stream []byte) (port int, handshake <-chan []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan []string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		var cmds []string
		for _, reply := range []string{"+PONG", "+OK", "+OK", "+FULLRESYNC " + id + " 100"} {
			args, _, err := readCommand(br)
			if err != nil {
				return
			}
			cmds = append(cmds, string(bytes.Join(args, []byte(" "))))
			fmt.Fprintf(conn, "%s\r\n", reply)
		}
		fmt.Fprintf(conn, "\n$%d\r\n%s", len(file), file) // a keepalive newline first
		conn.Write(stream)
		args, _, err := readCommand(br) // the first ACK
		if err != nil {
			return
		}
		got <- append(cmds, string(bytes.Join(args, []byte(" "))))
		io.Copy(io.Discard, br)
	}()
	return ln.Addr().(*net.TCPAddr).Port, got
}

// A replica's link performs Redis's handshake, loads the full resync's
// file, takes the master's replid and offset, applies the stream and
// acknowledges; REPLICAOF NO ONE then starts a new history.
func TestUpstreamFullSync(t *testing.T) {
	h := newReplicaHost(t)
	u := &Upstream{}
	st := &Stats{}
	u.Init(h, st)
	masterID := strings.Repeat("c", 40)
	stream := append(command("SET", "k", "v"), command("SELECT", "1")...)
	port, handshake := fakeMaster(t, masterID, "REDIS0012", stream)
	if !u.Follow("127.0.0.1", port, func() {}) {
		t.Fatal("Follow refused a new master")
	}
	if u.Follow("127.0.0.1", port, func() { t.Error("unblocked for the same master") }) {
		t.Error("Follow of the master already followed reported a change")
	}
	select {
	case cmds := <-handshake:
		want := []string{"PING", "REPLCONF listening-port 6380", "REPLCONF capa eof capa psync2", "PSYNC ? -1", "REPLCONF ACK 100"}
		if strings.Join(cmds, "|") != strings.Join(want, "|") {
			t.Errorf("handshake %q, want %q", cmds, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no handshake")
	}
	want := 100 + int64(len(stream))
	for deadline := time.Now().Add(10 * time.Second); u.offset.Load() != want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("offset %d, want %d", u.offset.Load(), want)
		}
	}
	if file, applied := h.state(); file != "REDIS0012" || strings.Join(applied, ",") != "SET k v,SELECT 1" {
		t.Errorf("loaded %q, applied %q", file, applied)
	}
	if h.ReplID() != masterID || !u.LinkUp() || st.Received.Load() == 0 {
		t.Errorf("replid %s, link up %v, received %d", h.ReplID(), u.LinkUp(), st.Received.Load())
	}
	var w resp.Writer
	u.Role(&w)
	if got, want := string(w.B), "*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:"+strconv.Itoa(port)+"\r\n$9\r\nconnected\r\n:"+strconv.FormatInt(want, 10)+"\r\n"; got != want {
		t.Errorf("ROLE %q, want %q", got, want)
	}

	u.Follow("", 0, func() {})
	if id, second := u.Replid2(); id != masterID || second != want+1 {
		t.Errorf("replid2 %s %d, want %s %d", id, second, masterID, want+1)
	}
	if h.ReplID() == masterID || h.replica || u.LinkUp() {
		t.Errorf("after NO ONE: replid %s, replica %v, link up %v", h.ReplID(), h.replica, u.LinkUp())
	}
	var b strings.Builder
	if u.Info(&b) {
		t.Errorf("INFO as a replica after NO ONE: %q", b.String())
	}
}
