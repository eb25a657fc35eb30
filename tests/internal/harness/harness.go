// Package harness is what the black-box test packages under tests/ share:
// it starts a real HotKV server (in process, or the built binary) on a free
// port, or a throwaway Redis 8.0.2 to compare with, and drives it over TCP
// with go-redis or raw RESP (Conn), parsing replies into Status, Err, Map
// and the other reply types.
package harness

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/server"
)

// Server is an in-process server listening on 127.0.0.1:<free port>.
type Server struct {
	*server.Server
	Addr string
}

// Start runs a server configured by redis-server-style arguments
// ("--requirepass", "x") and stops it when the test ends. DEBUG is allowed
// from local clients (Redis refuses it by default), as the tests use it
// throughout; TestProtectedCommands checks the default.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	if markedOutOfProcess(t) {
		t.Fatal("a test marked OutOfProcess starts an in-process server: the race detector would skip it")
	}
	base := []string{"--port", "0", "--loglevel", "warning", "--enable-debug-command", "local"}
	cfg, err := config.FromArgs(append(base, args...))
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(cfg)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
			return // a client is stuck: Serve would never return
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return &Server{Server: s, Addr: s.Addr().String()}
}

// Client returns a go-redis client (RESP3, as go-redis v9 defaults to).
func (s *Server) Client(t testing.TB, opts ...func(*redis.Options)) *redis.Client {
	t.Helper()
	o := &redis.Options{Addr: s.Addr}
	for _, f := range opts {
		f(o)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}

// Resp2 selects protocol 2 for a go-redis client.
func Resp2(o *redis.Options) { o.Protocol = 2 }

// Status is a simple-string reply; Err an error reply; Map a RESP3 map (as
// alternating keys and values); Push a RESP3 push; Verbatim a RESP3 verbatim
// string (its text without the format).
type (
	Status string
	Err    string
	Map    []any
	Set    []any
	Push   []any
)

// Conn is a plain TCP connection speaking RESP, for byte-exact checks.
type Conn struct {
	T       testing.TB
	NetConn net.Conn
	Reader  *bufio.Reader
}

// Raw dials s for byte-exact exchanges; the connection closes when the
// test ends.
func (s *Server) Raw(t testing.TB) *Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &Conn{T: t, NetConn: c, Reader: bufio.NewReader(c)}
}

// Encode makes a multibulk request.
func Encode(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// Send writes bytes as they are.
func (r *Conn) Send(s string) {
	r.T.Helper()
	r.NetConn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.NetConn.Write([]byte(s)); err != nil {
		r.T.Fatalf("write: %v", err)
	}
}

// Do sends one command and reads its reply.
func (r *Conn) Do(args ...string) any {
	r.T.Helper()
	r.Send(Encode(args...))
	return r.Read()
}

// Read reads one reply.
func (r *Conn) Read() any {
	r.T.Helper()
	// Long enough for a CPU-bound command (PFSELFTEST, DEBUG) while the
	// test packages share a loaded machine: a reply that never comes
	// still fails the test.
	r.NetConn.SetReadDeadline(time.Now().Add(20 * time.Second))
	v, err := ReadReply(r.Reader)
	if err != nil {
		r.T.Fatalf("read reply: %v", err)
	}
	return v
}

// Closed reports whether the server closed the connection (EOF within 2s).
func (r *Conn) Closed() bool {
	r.NetConn.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err := r.Reader.ReadByte()
	return err != nil && !IsTimeout(err)
}

// IsTimeout reports whether err is a network timeout (a read deadline passed).
func IsTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// ReadReply parses one RESP2/RESP3 reply into Go values: string (bulk),
// Status, Err, int64, nil, float64, bool, []any, Map, Set, Push.
func ReadReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return nil, fmt.Errorf("bad line %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return Status(body), nil
	case '-':
		return Err(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '_':
		return nil, nil
	case ',':
		return strconv.ParseFloat(strings.Replace(body, "inf", "Inf", 1), 64)
	case '#':
		return body == "t", nil
	case '$', '=':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := ReadFull(r, buf); err != nil {
			return nil, err
		}
		if line[0] == '=' {
			return string(buf[4:n]), nil
		}
		return string(buf[:n]), nil
	case '*', '~', '>', '%':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, nil
		}
		if line[0] == '%' {
			n *= 2
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = ReadReply(r); err != nil {
				return nil, err
			}
		}
		switch line[0] {
		case '%':
			return Map(out), nil
		case '~':
			return Set(out), nil
		case '>':
			return Push(out), nil
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown reply type %q", line)
}

// ReadFull reads exactly len(buf) bytes.
func ReadFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary builds cmd/hotkv once per test run, for tests that need a real
// process (signals, redis-cli, command-line flags).
func Binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hotkv-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "hotkv")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/hotkv/hotkv/cmd/hotkv").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// WaitPort waits until something accepts on addr.
func WaitPort(t testing.TB, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("nothing listening on %s", addr)
}
