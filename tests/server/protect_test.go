package server

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sys/unix"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// externalIP is an address of this host that is not loopback: a
// connection to it is "remote" for protected mode. Tests skip without one.
func externalIP(t *testing.T) string {
	t.Helper()
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil && !ip.IP.IsLoopback() {
			return ip.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address to connect from")
	return ""
}

// dialReply connects to addr, sends PING and returns the line the server
// answers, with " (closed)" when it then closes the connection.
func dialReply(t *testing.T, addr string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte("PING\r\n"))
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %q %v", addr, line, err)
	}
	conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	var ne net.Error
	if _, err := r.ReadByte(); err != nil && !(errors.As(err, &ne) && ne.Timeout()) { // EOF, or reset: PING went unread
		line += " (closed)"
	}
	return line
}

// Protected mode turns away clients from other hosts while the default user
// has no password, with Redis's words, and counts them; a password or
// protected-mode no lets them in.
func TestProtectedMode(t *testing.T) {
	ip := externalIP(t)
	s := harness.Start(t, "--bind", "0.0.0.0", "--enable-debug-command", "no")
	port := s.Addr[strings.LastIndexByte(s.Addr, ':')+1:]
	remote := net.JoinHostPort(ip, port)
	denied := dialReply(t, remote)
	if !strings.HasPrefix(denied, "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user.") ||
		!strings.HasSuffix(denied, "accepting connections from the outside.\r\n (closed)") {
		t.Fatalf("remote client in protected mode got %q", denied)
	}
	if r := harness.StartRedis(t, "--bind", "0.0.0.0"); true {
		rport := r.Addr[strings.LastIndexByte(r.Addr, ':')+1:]
		if want := dialReply(t, net.JoinHostPort(ip, rport)); denied != want {
			t.Errorf("DENIED text:\n hotkv %q\n redis %q", denied, want)
		}
	}
	if got := s.Info(t, "stats")["rejected_connections"]; got != "1" {
		t.Errorf("rejected_connections = %s, want 1", got)
	}
	if got := dialReply(t, s.Addr); got != "+PONG\r\n" {
		t.Errorf("loopback client: %q", got)
	}
	local := s.Raw(t)
	local.Expect(harness.Status("OK"), "CONFIG", "SET", "requirepass", "pw")
	if got := dialReply(t, remote); got != "-NOAUTH Authentication required.\r\n" {
		t.Errorf("remote client with a password set: %q", got)
	}
	local.Expect(harness.Status("OK"), "CONFIG", "SET", "requirepass", "")
	local.Expect(harness.Status("OK"), "CONFIG", "SET", "protected-mode", "no")
	if got := dialReply(t, remote); got != "+PONG\r\n" {
		t.Errorf("remote client with protected-mode no: %q", got)
	}
}

// DEBUG and MODULE LOAD/UNLOAD are refused by default, before
// authentication, and CONFIG SET of dir/dbfilename too, as in Redis 8.
func TestProtectedCommands(t *testing.T) {
	script := [][]string{
		{"DEBUG", "SLEEP", "0"}, {"debug", "object", "k"}, {"MODULE", "LOAD", "/x.so"}, {"MODULE", "UNLOAD", "x"},
		{"MODULE", "LOADEX", "/x.so"}, {"MODULE", "LIST"}, {"DEBUG"},
		{"CONFIG", "SET", "dbfilename", "x.rdb"}, {"CONFIG", "SET", "enable-debug-command", "yes"},
		{"CONFIG", "SET", "enable-protected-configs", "yes"}, {"CONFIG", "SET", "protected-mode", "maybe"},
		{"CONFIG", "GET", "enable-*"}, {"CONFIG", "GET", "protected-mode"}, {"CONFIG", "GET", "unixsocket*"},
		{"CONFIG", "GET", "daemonize"}, {"CONFIG", "GET", "supervised"},
		{"MULTI"}, {"DEBUG", "SLEEP", "0"}, {"EXEC"},
		{"CONFIG", "SET", "requirepass", "pw"},
	}
	// A new client, not authenticated: refused for DEBUG before NOAUTH.
	unauthenticated := [][]string{{"DEBUG", "SLEEP", "0"}, {"MODULE", "UNLOAD", "x"}, {"PING"}}
	hotSrv, redisSrv := harness.Start(t, "--enable-debug-command", "no"), harness.StartRedis(t)
	for _, part := range [][][]string{script, unauthenticated} {
		hot, redis := hotSrv.Raw(t), redisSrv.Raw(t)
		for _, cmd := range part {
			got, want := configPairs(cmd, hot.Do(cmd...)), configPairs(cmd, redis.Do(cmd...))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q:\n hotkv %#v\n redis %#v", cmd, got, want)
			}
		}
	}
}

// configPairs turns CONFIG GET's flat reply into a map: the order of the
// pairs is not specified.
func configPairs(cmd []string, v any) any {
	l, ok := v.([]any)
	if !ok || !strings.EqualFold(cmd[0], "CONFIG") || !strings.EqualFold(cmd[1], "GET") {
		return v
	}
	m := map[any]any{}
	for i := 0; i+1 < len(l); i += 2 {
		m[l[i]] = l[i+1]
	}
	return m
}

// "local" allows DEBUG from loopback and Unix socket clients only.
func TestEnableDebugCommandLocal(t *testing.T) {
	ip := externalIP(t)
	s := harness.Start(t, "--bind", "0.0.0.0", "--protected-mode", "no", "--enable-debug-command", "local")
	s.Raw(t).Expect(harness.Status("OK"), "DEBUG", "SLEEP", "0")
	port := s.Addr[strings.LastIndexByte(s.Addr, ':')+1:]
	r := (&harness.Server{Addr: net.JoinHostPort(ip, port)}).Raw(t)
	r.Expect(harness.Err(`ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`), "DEBUG", "SLEEP", "0")
}

// A Unix socket serves clients beside TCP, with the permissions asked for;
// its clients are local, shown as Redis shows them, and the file goes away
// at shutdown.
func TestUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hotkv.sock")
	s := harness.Start(t, "--unixsocket", path, "--unixsocketperm", "700")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket file: %v %v", fi, err)
	}
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: path})
	defer c.Close()
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Client(t).Get(ctx, "k").Result(); v != "v" {
		t.Fatalf("TCP client reads %q", v)
	}
	line, _ := c.Do(ctx, "CLIENT", "INFO").Text()
	if want := " addr=" + path + ":0 laddr=" + path + ":0 "; !strings.Contains(line, want) || !strings.Contains(line, " flags=U ") {
		t.Errorf("CLIENT INFO over the socket: %s", line)
	}
	if err := c.Do(ctx, "DEBUG", "SLEEP", "0").Err(); err != nil { // local
		t.Errorf("DEBUG over the socket with enable-debug-command local: %v", err)
	}
	if got, _ := s.Client(t).ConfigGet(ctx, "unixsocketperm").Result(); got["unixsocketperm"] != "700" {
		t.Errorf("CONFIG GET unixsocketperm: %v", got)
	}
	ctxT, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s.Shutdown(ctxT)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket file after shutdown: %v", err)
	}
}

// daemonize yes returns at once, leaving the server running in the
// background with its PID in pidfile, which it removes when it stops.
func TestDaemonizeAndPidFile(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "hotkv.pid")
	port := harness.FreePort(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	out, err := exec.Command(harness.Binary(t), "--daemonize", "yes", "--pidfile", pidFile, "--port", strconv.Itoa(port), "--dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("hotkv --daemonize yes: %v %s", err, out)
	}
	harness.WaitPort(t, addr)
	b, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("pidfile: %q %v", b, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("process %d from the pidfile: %v", pid, err)
	}
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	if sid, _ := unix.Getsid(pid); sid != pid {
		t.Errorf("daemon's session %d, want its own (%d)", sid, pid)
	}
	c.Shutdown(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(pidFile); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pidfile still there after SHUTDOWN")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// supervised systemd: READY=1 on $NOTIFY_SOCKET once the server listens,
// STOPPING=1 when it stops.
func TestSupervisedSystemd(t *testing.T) {
	harness.OutOfProcess(t)
	sock := filepath.Join(t.TempDir(), "notify.sock")
	l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := harness.FreePort(t)
	cmd := exec.Command(harness.Binary(t), "--supervised", "systemd", "--daemonize", "yes", "--port", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	read := func() string {
		l.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 512)
		n, err := l.Read(buf)
		if err != nil {
			t.Fatalf("no notification: %v", err)
		}
		return string(buf[:n])
	}
	if got := read(); got != "STATUS=Ready to accept connections\nREADY=1\n" {
		t.Fatalf("ready notification %q", got)
	}
	// Supervised, daemonize yes does not detach: this is the server.
	if err := redis.NewClient(&redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}).Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if got := read(); got != "STOPPING=1\n" {
		t.Fatalf("stop notification %q", got)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}
