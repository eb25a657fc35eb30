package server

import (
	"strings"
	"testing"
	"unsafe"
)

// A large read buffer is dropped once drained; nothing the batch or the
// parser kept may hold it alive.
func TestBatchKeepsNoDroppedBuffer(t *testing.T) {
	s := benchServer(t)
	c := newClient(s, &batchConn{})
	var d []byte
	for i := range 20 { // more than a batch, so that batches of different sizes came before
		d = encode(d, "SET", "k"+strings.Repeat("x", i), "v")
	}
	d = encode(d, "SET", "big", strings.Repeat("v", 4<<20))
	d = encode(d, "GET", "x")
	d = encode(d, "PING")
	c.io.in = make([]byte, 8<<20)
	c.io.w = copy(c.io.in, d)
	old := uintptr(unsafe.Pointer(unsafe.SliceData(c.io.in)))
	c.process()
	if uintptr(unsafe.Pointer(unsafe.SliceData(c.io.in))) == old {
		t.Fatal("the large buffer was not dropped")
	}
	refs := 0
	check := func(args [][]byte) {
		for _, a := range args {
			if p := uintptr(unsafe.Pointer(unsafe.SliceData(a))); a != nil && p >= old && p < old+8<<20 {
				refs++
			}
		}
	}
	check(c.batch.args[:cap(c.batch.args)])
	for _, p := range c.batch.cmds[:cap(c.batch.cmds)] {
		check(p.args)
	}
	args, _, _ := c.io.parser.Next([]byte("*1\r\n$4\r\nPING\r\n"), 0)
	check(args[:cap(args)][1:])
	if refs > 0 {
		t.Errorf("%d argument slices still point into the dropped buffer", refs)
	}
}

// runInput runs the commands of input, read at once, on a new client of s
// and returns the replies.
func runInput(s *Server, cmds ...[]string) (*client, string) {
	c := newClient(s, &batchConn{})
	var d []byte
	for _, a := range cmds {
		d = encode(d, a...)
	}
	c.io.w = copy(c.io.in, d)
	c.process()
	return c, string(c.io.out.B)
}

// Commands without keys join a batch, and each command of a batch sees
// what the ones before it did: a SELECT changes the database of the keys
// after it, which were prefetched in the one selected before.
func TestBatchRunsInOrderAcrossCommandsWithoutKeys(t *testing.T) {
	s := benchServer(t)
	c := newClient(s, &batchConn{})
	c.io.w = copy(c.io.in, encode(encode(encode(nil, "PING"), "ECHO", "x"), "PING"))
	if err := c.parseBatch(); err != nil || len(c.batch.cmds) != 3 {
		t.Fatalf("parsed %d commands (%v), want all 3 in one batch", len(c.batch.cmds), err)
	}
	_, got := runInput(s, []string{"SET", "k", "a"}, []string{"SELECT", "1"}, []string{"GET", "k"},
		[]string{"SET", "k", "b"}, []string{"SELECT", "0"}, []string{"GET", "k"}, []string{"PING"})
	if want := "+OK\r\n+OK\r\n$-1\r\n+OK\r\n+OK\r\n$1\r\na\r\n+PONG\r\n"; got != want {
		t.Errorf("replies %q, want %q", got, want)
	}
}

// A command that leaves the client unauthenticated (RESET, with a
// password set) drops what its batch parsed after it: the next command is
// parsed under the limits for a client that must authenticate, as Redis
// parses it.
func TestBatchReparsedAfterLosingAuthentication(t *testing.T) {
	s := benchServer(t)
	s.setRequirePass("pw")
	many := append([]string{"ECHO"}, strings.Split(strings.Repeat("x ", 11), " ")[:11]...)
	c, got := runInput(s, []string{"AUTH", "pw"}, []string{"PING"}, []string{"RESET"}, many)
	if want := "+OK\r\n+PONG\r\n+RESET\r\n-ERR Protocol error: unauthenticated multibulk length\r\n"; got != want || !c.io.closing {
		t.Errorf("replies %q (closing %v), want %q and closing", got, c.io.closing, want)
	}
}
