package harness

import (
	"bytes"
	"errors"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Proc is a running hotkv binary.
type Proc struct {
	Cmd    *exec.Cmd
	Addr   string
	Stderr *bytes.Buffer
	Done   chan error
}

// OutOfProcess marks a test whose every server is a separate hotkv process
// (StartBinary): the race detector sees only this process, so under -race
// the test is skipped, as it would check nothing the README's test step has
// not. A mark on a test that then starts an in-process server (Start) fails
// it, so that a mark cannot take a server's race check away unseen.
func OutOfProcess(t testing.TB) {
	t.Helper()
	if RaceEnabled {
		t.Skip("every server of this test is a separate process, which the race detector does not see")
	}
	outOfProcess.Store(t.Name(), true)
	t.Cleanup(func() { outOfProcess.Delete(t.Name()) })
}

var outOfProcess sync.Map // names of the tests marked OutOfProcess

// markedOutOfProcess reports whether t or a test it runs under is marked.
func markedOutOfProcess(t testing.TB) bool {
	name := t.Name()
	for {
		if _, ok := outOfProcess.Load(name); ok {
			return true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return false
		}
		name = name[:i]
	}
}

// StartBinary runs the built binary with args (a free --port is added) and
// waits until it accepts connections and has loaded its data.
func StartBinary(t *testing.T, args ...string) *Proc {
	t.Helper()
	p := StartBinaryLoading(t, args...)
	WaitLoaded(t, p.Addr)
	return p
}

// StartBinaryLoading is StartBinary without waiting for the data: the
// port is open before the load, whose commands get LOADING.
func StartBinaryLoading(t *testing.T, args ...string) *Proc {
	t.Helper()
	port := FreePort(t)
	p := &Proc{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Stderr: &bytes.Buffer{}, Done: make(chan error, 1)}
	p.Cmd = exec.Command(Binary(t), append(args, "--port", strconv.Itoa(port))...)
	p.Cmd.Stderr = p.Stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.Done <- p.Cmd.Wait() }()
	t.Cleanup(func() {
		p.Cmd.Process.Kill()
		<-p.Done
	})
	WaitPort(t, p.Addr)
	return p
}

// WaitLoaded waits (up to 30 seconds, for the larger data sets some tests
// load) until the server at addr answers PING with anything but LOADING;
// NOAUTH too, as authentication is checked first.
func WaitLoaded(t *testing.T, addr string) {
	t.Helper()
	r := (&Server{Addr: addr}).Raw(t)
	defer r.NetConn.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if v, ok := r.Do("PING").(Err); !ok || !strings.HasPrefix(string(v), "LOADING") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still loading after 30 seconds", addr)
		}
	}
}

// Wait returns the exit code once the process has ended.
func (p *Proc) Wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.Done:
		p.Done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		t.Fatalf("process did not exit; stderr:\n%s", p.Stderr)
		return -1
	}
}

// Client returns a go-redis client of the process, closed when the test ends.
func (p *Proc) Client(t *testing.T, opts ...func(*redis.Options)) *redis.Client {
	o := &redis.Options{Addr: p.Addr}
	for _, f := range opts {
		f(o)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}
