package server

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

func TestBinaryFlags(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t, "--bind", "127.0.0.1", "--databases", "4", "--requirepass", "s3cret", "--maxclients", "7", "--loglevel", "warning")
	ctx := context.Background()
	c := p.Client(t, func(o *redis.Options) { o.Password = "s3cret" })
	got, err := c.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(p.Addr)
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
	if err := p.Client(t).Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("no password: %v", err)
	}
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.Wait(t); code != 0 {
		t.Fatalf("exit code %d after SIGTERM; stderr:\n%s", code, p.Stderr)
	}
}

func TestBinaryConfigFile(t *testing.T) {
	harness.OutOfProcess(t)
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
		p := harness.StartBinary(t, args...)
		ctx := context.Background()
		c := p.Client(t, func(o *redis.Options) { o.Password = "pass word" })
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
		p.Cmd.Process.Signal(syscall.SIGINT)
		if code := p.Wait(t); code != 0 {
			t.Fatalf("exit code %d after SIGINT; stderr:\n%s", code, p.Stderr)
		}
	}
}

// TestBinaryStartupErrors: a bad configuration stops the process at start
// with a non-zero code and a message naming the line.
func TestBinaryStartupErrors(t *testing.T) {
	harness.OutOfProcess(t)
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
		cmd := exec.Command(harness.Binary(t), tc.args...)
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
	out, err := exec.Command(harness.Binary(t), "--port", port).CombinedOutput()
	if err == nil {
		t.Fatalf("started on a busy port: %s", out)
	}
}

func TestBinaryShutdownCommand(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t)
	conn, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte(harness.Req("SET", "k", "v") + harness.Req("SHUTDOWN")))
	if got, _ := io.ReadAll(conn); string(got) != "+OK\r\n" { // no reply to SHUTDOWN: the connection closes
		t.Fatalf("replies: %q", got)
	}
	if code := p.Wait(t); code != 0 {
		t.Fatalf("exit code %d after SHUTDOWN; stderr:\n%s", code, p.Stderr)
	}
}

func TestBinaryVersionHelp(t *testing.T) {
	harness.OutOfProcess(t)
	for _, arg := range []string{"--version", "-v", "--help"} {
		out, err := exec.Command(harness.Binary(t), arg).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "HotKV") && !strings.Contains(string(out), "Usage") {
			t.Fatalf("%s: %v %s", arg, err, out)
		}
	}
}
