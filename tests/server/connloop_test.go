package server

import (
	"io"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// The connection loop reads the socket itself (see server.serveRaw): these
// pin down what it must keep doing across reads.

func TestQuitClosesAfterReplying(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Send(harness.Encode("PING") + harness.Encode("QUIT") + harness.Encode("PING"))
	if got := r.Read(); got != harness.Status("PONG") {
		t.Fatalf("PING: %#v", got)
	}
	if got := r.Read(); got != harness.Status("OK") {
		t.Fatalf("QUIT: %#v", got)
	}
	if !r.Closed() {
		t.Fatal("connection still open after QUIT")
	}
}

func TestCommandSplitAcrossReads(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	big := strings.Repeat("v", 100<<10) // larger than the initial read buffer
	req := harness.Encode("SET", "k", big) + harness.Encode("GET", "k")
	for i := 0; i < len(req); {
		n := min(1+i%7, len(req)-i)
		if i > 64 && i < len(req)-64 {
			n = min(32<<10, len(req)-64-i) // the bulk in large pieces, its edges byte by byte
		}
		r.Send(req[i : i+n])
		i += n
	}
	if got := r.Read(); got != harness.Status("OK") {
		t.Fatalf("SET: %#v", got)
	}
	if got := r.Read(); got != big {
		t.Fatalf("GET returned %d bytes, want %d", len(got.(string)), len(big))
	}
}

func TestPipelineLargerThanReadBuffer(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	const n = 3000 // ~90 KB of requests: several full reads in a row
	var req strings.Builder
	for i := range n {
		req.WriteString(harness.Encode("SET", "key:"+strconv.Itoa(i), strconv.Itoa(i)))
		req.WriteString(harness.Encode("GET", "key:"+strconv.Itoa(i)))
	}
	go r.Send(req.String())
	for i := range n {
		if got := r.Read(); got != harness.Status("OK") {
			t.Fatalf("SET %d: %#v", i, got)
		}
		if got := r.Read(); !reflect.DeepEqual(got, strconv.Itoa(i)) {
			t.Fatalf("GET %d: %#v", i, got)
		}
	}
}

func TestRepliesLargerThanTheSocketBuffer(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	big := strings.Repeat("0123456789", 400<<10) // 4 MB: three replies fill the socket, the server waits to write
	r.Do("SET", "big", big)
	r.Send(harness.Encode("GET", "big") + harness.Encode("GET", "big") + harness.Encode("GET", "big") + harness.Encode("PING"))
	for range 3 {
		if got := r.Read(); got != big {
			t.Fatalf("GET returned %d bytes, want %d", len(got.(string)), len(big))
		}
	}
	if got := r.Read(); got != harness.Status("PONG") {
		t.Fatalf("PING: %#v", got)
	}
}

// TestHalfCloseEndsConnection: a client that sends its last command and
// shuts its side down at once gets its replies and then the server's close,
// as from Redis, even when the end of file arrives with the command.
func TestHalfCloseEndsConnection(t *testing.T) {
	s := harness.Start(t)
	for i := range 20 {
		conn, err := net.Dial("tcp", s.Addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		conn.Write([]byte("\r\nPI"))
		conn.Write([]byte("NG\r\n" + harness.Req("ECHO", "x")))
		conn.(*net.TCPConn).CloseWrite()
		got, err := io.ReadAll(conn)
		conn.Close()
		if err != nil || string(got) != "+PONG\r\n$1\r\nx\r\n" {
			t.Fatalf("connection %d: read %q, %v (want the replies, then the server's close)", i, got, err)
		}
	}
}

// TestHalfCloseKeepsLargeReply: a client that half-closes with a command
// whose reply does not fit the socket's buffer still gets all of it, also
// after earlier round trips (a flag they left once let the half-close check
// close the connection while the reply was being written).
func TestHalfCloseKeepsLargeReply(t *testing.T) {
	s := harness.Start(t)
	big := strings.Repeat("v", 16<<20)
	s.Raw(t).Expect(harness.Status("OK"), "SET", "big", big)
	conn, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write([]byte(harness.Req("PING")))
	if _, err := io.ReadFull(conn, make([]byte, len("+PONG\r\n"))); err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte(harness.Req("GET", "big")))
	conn.(*net.TCPConn).CloseWrite()
	time.Sleep(500 * time.Millisecond) // several cron ticks with the reply unread
	got, err := io.ReadAll(conn)
	if want := "$" + strconv.Itoa(len(big)) + "\r\n" + big + "\r\n"; err != nil || string(got) != want {
		t.Fatalf("read %d of %d bytes, %v", len(got), len(want), err)
	}
}
