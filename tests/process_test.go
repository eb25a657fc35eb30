package tests

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// proc is a running hotkv binary.
type proc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *bytes.Buffer
	done   chan error
}

// startBinary runs the built binary with args (a free --port is added) and
// waits until it accepts connections and has loaded its data.
func startBinary(t *testing.T, args ...string) *proc {
	t.Helper()
	p := startBinaryLoading(t, args...)
	waitLoaded(t, p.addr)
	return p
}

// startBinaryLoading is startBinary without waiting for the data: the
// port is open before the load, whose commands get LOADING.
func startBinaryLoading(t *testing.T, args ...string) *proc {
	t.Helper()
	port := freePort(t)
	p := &proc{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(binary(t), append(args, "--port", strconv.Itoa(port))...)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	waitPort(t, p.addr)
	return p
}

// waitLoaded waits (up to 30 seconds, for the larger data sets some tests
// load) until the server at addr answers PING with anything but LOADING;
// NOAUTH too, as authentication is checked first.
func waitLoaded(t *testing.T, addr string) {
	t.Helper()
	r := (&testServer{Addr: addr}).raw(t)
	defer r.conn.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if v, ok := r.do("PING").(Err); !ok || !strings.HasPrefix(string(v), "LOADING") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still loading after 30 seconds", addr)
		}
	}
}

// wait returns the exit code once the process has ended.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		t.Fatalf("process did not exit; stderr:\n%s", p.stderr)
		return -1
	}
}

func (p *proc) client(t *testing.T, opts ...func(*redis.Options)) *redis.Client {
	o := &redis.Options{Addr: p.addr}
	for _, f := range opts {
		f(o)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestBinaryFlags(t *testing.T) {
	p := startBinary(t, "--bind", "127.0.0.1", "--databases", "4", "--requirepass", "s3cret", "--maxclients", "7", "--loglevel", "warning")
	ctx := context.Background()
	c := p.client(t, func(o *redis.Options) { o.Password = "s3cret" })
	got, err := c.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(p.addr)
	for k, v := range map[string]string{"databases": "4", "requirepass": "s3cret", "maxclients": "7", "bind": "127.0.0.1", "port": port, "loglevel": "warning"} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if err := c.Do(ctx, "SELECT", "3").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "SELECT", "4").Err(); err == nil || err.Error() != "ERR DB index is out of range" {
		t.Fatalf("SELECT 4 with 4 databases: %v", err)
	}
	if err := p.client(t).Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("no password: %v", err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit code %d after SIGTERM; stderr:\n%s", code, p.stderr)
	}
}

func TestBinaryConfigFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hotkv.conf")
	conf := "# HotKV test configuration\n" +
		"bind 127.0.0.1\n" +
		"databases 2\n" +
		"   requirepass \"pass word\"   \n" +
		"maxmemory 1mb\n" +
		"timeout 0\n" +
		"\n" +
		"hz 20\n"
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--config", file}, {file}} {
		p := startBinary(t, args...)
		ctx := context.Background()
		c := p.client(t, func(o *redis.Options) { o.Password = "pass word" })
		got, err := c.ConfigGet(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if got["databases"] != "2" || got["maxmemory"] != "1048576" || got["hz"] != "20" {
			t.Fatalf("%v: %v", args, got)
		}
		if info, _ := c.Info(ctx, "server").Result(); !strings.Contains(info, "config_file:"+file+"\r\n") {
			t.Fatalf("INFO config_file: %s", info)
		}
		p.cmd.Process.Signal(syscall.SIGINT)
		if code := p.wait(t); code != 0 {
			t.Fatalf("exit code %d after SIGINT; stderr:\n%s", code, p.stderr)
		}
	}
}

// TestBinaryStartupErrors: a bad configuration stops the process at start
// with a non-zero code and a message naming the line.
func TestBinaryStartupErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(file, []byte("port 7777\n# fine so far\nappendfsync-turbo yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--config", file}, []string{"at line 3", ">>> 'appendfsync-turbo yes'", "Bad directive or wrong number of arguments"}},
		{[]string{"--port", "notaport"}, []string{"argument couldn't be parsed into an integer"}},
		{[]string{"--maxclients", "0"}, []string{"argument must be between 1 and 4294967295 inclusive"}},
		{[]string{filepath.Join(dir, "missing.conf")}, []string{"can't open config file"}},
		{[]string{file, "stray"}, []string{"unexpected argument"}},
	} {
		cmd := exec.Command(binary(t), tc.args...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 0 {
			t.Errorf("%v: exit %v; output:\n%s", tc.args, err, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	// A port already in use is a start-up error too.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	out, err := exec.Command(binary(t), "--port", port).CombinedOutput()
	if err == nil {
		t.Fatalf("started on a busy port: %s", out)
	}
}

func TestBinaryShutdownCommand(t *testing.T) {
	p := startBinary(t)
	conn, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte(req("SET", "k", "v") + req("SHUTDOWN")))
	if got, _ := io.ReadAll(conn); string(got) != "+OK\r\n" { // no reply to SHUTDOWN: the connection closes
		t.Fatalf("replies: %q", got)
	}
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit code %d after SHUTDOWN; stderr:\n%s", code, p.stderr)
	}
}

func TestBinaryVersionHelp(t *testing.T) {
	for _, arg := range []string{"--version", "-v", "--help"} {
		out, err := exec.Command(binary(t), arg).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "HotKV") && !strings.Contains(string(out), "Usage") {
			t.Fatalf("%s: %v %s", arg, err, out)
		}
	}
}
