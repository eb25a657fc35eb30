package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// renames are the rename-command lines both servers start with.
var renames = []string{"--rename-command", "get", "myget", "--rename-command", "flushall", "",
	"--rename-command", "config", "cfg", "--rename-command", "cfg", "conf"}

// rename-command takes commands away or gives them new names, for clients,
// scripts, MULTI and COMMAND, as in Redis 8.0.2: compared reply by reply.
func TestDifferentialRenameCommand(t *testing.T) {
	redis := harness.StartRedis(t, renames...).Raw(t)
	hot := harness.Start(t, renames...).Raw(t)
	script := [][]string{
		{"SET", "k", "v"}, {"GET", "k"}, {"get", "k"}, {"MYGET", "k"}, {"myget", "k"}, {"FLUSHALL"},
		{"CONFIG", "GET", "maxmemory"}, {"CFG", "GET", "maxmemory"}, {"CONF", "GET", "maxmemory"},
		{"CONF", "GET", "maxmemory", "x"},
		{"COMMAND", "INFO", "myget", "get", "conf|get", "config|get"},
		{"COMMAND", "GETKEYS", "myget", "k"}, {"COMMAND", "GETKEYS", "get", "k"},
		{"COMMAND", "LIST", "FILTERBY", "PATTERN", "get"}, {"COMMAND", "LIST", "FILTERBY", "PATTERN", "myget"},
		{"COMMAND", "LIST", "FILTERBY", "PATTERN", "flushall"},
		{"EVAL", "return redis.call('myget', 'k')", "0"},
		{"EVAL", "return redis.pcall('get', 'k')", "0"},
		{"MULTI"}, {"GET", "k"}, {"EXEC"},
		{"MULTI"}, {"MYGET", "k"}, {"EXEC"},
		{"LATENCY", "HISTOGRAM", "get"},
	}
	for _, cmd := range script {
		got, want := hot.Do(cmd...), redis.Do(cmd...)
		if s, ok := want.(harness.Err); ok && strings.Contains(string(s), "script: ") { // the script's SHA names differ in nothing else
			if g, ok := got.(harness.Err); !ok || !strings.HasPrefix(string(g), string(s[:strings.Index(string(s), "script: ")])) {
				t.Errorf("%q:\n hotkv %#v\n redis %#v", cmd, got, want)
			}
			continue
		}
		if !reflect.DeepEqual(normalizeInfoReply(cmd, got), normalizeInfoReply(cmd, want)) {
			t.Errorf("%q:\n hotkv %#v\n redis %#v", cmd, got, want)
		}
	}
	// Not compared: Redis 8.0.2 serves the old name right after the new one
	// on the same connection (MYGET k, then GET k works: its per-client
	// lookup cache matches the command's own name), which defeats the
	// rename. HotKV does not.
	hot.Expect("v", "MYGET", "k")
	hot.Expect(harness.Err("ERR unknown command 'GET', with args beginning with: 'k' "), "GET", "k")
	// COMMAND COUNT drops what was taken away (FLUSHALL), on both.
	plainHot, plainRedis := harness.Start(t).Raw(t), harness.StartRedis(t).Raw(t)
	dh := plainHot.Do("COMMAND", "COUNT").(int64) - hot.Do("COMMAND", "COUNT").(int64)
	dr := plainRedis.Do("COMMAND", "COUNT").(int64) - redis.Do("COMMAND", "COUNT").(int64)
	if dh != 1 || dr != 1 {
		t.Errorf("COMMAND COUNT drops %d on HotKV, %d on Redis; want 1", dh, dr)
	}
}

// normalizeInfoReply keeps of COMMAND INFO only what both servers share:
// the name, arity, flags and key positions (HotKV's ACL categories of a
// few commands differ, docs/acl.md).
func normalizeInfoReply(cmd []string, v any) any {
	if len(cmd) < 2 || !strings.EqualFold(cmd[0], "COMMAND") || !strings.EqualFold(cmd[1], "INFO") {
		return v
	}
	l, _ := v.([]any)
	out := make([]any, len(l))
	for i, e := range l {
		if info, ok := e.([]any); ok && len(info) >= 6 {
			out[i] = info[:6]
		} else {
			out[i] = e
		}
	}
	return out
}

// Bad rename-command lines stop both servers at start-up with the same
// error; an include reads another file (or a glob's files) in place, and
// its errors name its own line.
func TestRenameCommandAndIncludeErrors(t *testing.T) {
	harness.OutOfProcess(t)
	redisBin := harness.RedisServerPath()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.conf", "# included\nmaxmemory nope\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rename-command", "nosuch", "x"}, "No such command in rename-command"},
		{[]string{"--rename-command", "get", "set"}, "Target command name already exists"},
		{[]string{"--rename-command", "get", "x", "--rename-command", "get", "y"}, "No such command in rename-command"},
		{[]string{"--include", bad}, ">>> 'maxmemory nope'\nargument must be a memory value"},
		{[]string{"--include", filepath.Join(dir, "missing.conf")}, "Fatal error, can't open config file '" + filepath.Join(dir, "missing.conf") + "'"},
	} {
		args := append(tc.args, "--port", strconv.Itoa(harness.FreePort(t)))
		out, err := exec.Command(harness.Binary(t), args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("hotkv %v: %v %q, want %q", tc.args, err, out, tc.want)
		}
		if redisBin != "" {
			rout, _ := exec.Command(redisBin, args...).CombinedOutput()
			if !strings.Contains(string(rout), tc.want) {
				t.Errorf("redis %v says %q, not %q", tc.args, rout, tc.want)
			}
		}
	}
	if strings.Contains(string(mustRun(t, harness.Binary(t), "--include", bad, "--port", "1")), "at line 2") == false {
		t.Error("an included file's error should name its own line (2)")
	}
}

func mustRun(t *testing.T, bin string, args ...string) []byte {
	out, _ := exec.Command(bin, args...).CombinedOutput()
	return out
}

// include reads files (a glob's in name order) where it stands; later
// lines override earlier ones; CONFIG REWRITE keeps include and
// rename-command lines as they are. Commands run under a new name
// replay from the log.
func TestIncludeRewriteAndLog(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	sub := filepath.Join(dir, "conf.d")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "10-memory.conf"), []byte("maxmemory 10mb\nmaxmemory-policy allkeys-lru\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "20-memory.conf"), []byte("maxmemory 20mb\n"), 0o644)
	conf := filepath.Join(dir, "hotkv.conf")
	text := "include " + filepath.Join(sub, "*.conf") + "\nrename-command set myset\nmaxmemory-samples 7\ndir " + dir + "\nappendonly yes\n"
	os.WriteFile(conf, []byte(text), 0o644)
	ctx := context.Background()
	p := harness.StartBinary(t, conf)
	c := p.Client(t)
	got, _ := c.ConfigGet(ctx, "maxmemory*").Result()
	if got["maxmemory"] != "20971520" || got["maxmemory-policy"] != "allkeys-lru" || got["maxmemory-samples"] != "7" {
		t.Fatalf("settings from the included files: %v", got)
	}
	if err := c.Do(ctx, "MYSET", "k", "v").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err == nil || !strings.Contains(err.Error(), "unknown command 'set'") {
		t.Fatalf("SET after rename-command set myset: %v", err)
	}
	if err := c.ConfigSet(ctx, "timeout", "9").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigRewrite(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(conf)
	for _, line := range []string{"include " + filepath.Join(sub, "*.conf"), "rename-command set myset", "timeout 9"} {
		if !strings.Contains(string(b), line+"\n") {
			t.Errorf("rewritten file lacks %q:\n%s", line, b)
		}
	}
	c.Shutdown(ctx)
	p.Wait(t)
	p2 := harness.StartBinary(t, conf)
	if v, err := p2.Client(t).Do(ctx, "GET", "k").Text(); err != nil || v != "v" {
		t.Fatalf("after a restart that replays MYSET from the log: %q %v", v, err)
	}
}

// What the server logs under a command's own name (XADD with the ID it
// picked, SPOP as SREM, MIGRATE's DEL) must replay when that name is
// renamed or taken away; and commands logged under a new name must replay
// once the rename is gone. Both stopped the server from starting.
func TestRenamedCommandsReplayFromLog(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	target := harness.Start(t)
	host, port, _ := strings.Cut(target.Addr, ":")
	renames := []string{"--rename-command", "xadd", "myxadd", "--rename-command", "srem", "", "--rename-command", "del", "",
		"--rename-command", "set", "myset", "--rename-command", "blpop", "myblpop"}
	base := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always"}
	p := harness.StartBinary(t, append(base, renames...)...)
	c := p.Client(t)
	for _, cmd := range [][]any{
		{"MYXADD", "s", "*", "f", "v"}, {"SADD", "set", "a", "b", "c"}, {"SPOP", "set"},
		{"MYSET", "k", "v"}, {"MYSET", "moved", "x"}, {"MIGRATE", host, port, "moved", "0", "5000"},
	} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	// A blocked command is logged when it is served.
	popped := make(chan error, 1)
	go func() { popped <- p.Client(t).Do(ctx, "MYBLPOP", "q", "0").Err() }()
	for n, _ := c.Do(ctx, "INFO", "clients").Text(); !strings.Contains(n, "blocked_clients:1"); n, _ = c.Do(ctx, "INFO", "clients").Text() {
		time.Sleep(5 * time.Millisecond)
	}
	c.RPush(ctx, "q", "a", "b")
	if err := <-popped; err != nil {
		t.Fatal(err)
	}
	c.Shutdown(ctx)
	p.Wait(t)
	for _, args := range [][]string{renames, nil} { // the same renames, then none
		p := harness.StartBinary(t, append(base, args...)...)
		c := p.Client(t)
		if n, err := c.XLen(ctx, "s").Result(); n != 1 || err != nil {
			t.Errorf("renames %q: XLEN s = %d %v", args, n, err)
		}
		if n, err := c.SCard(ctx, "set").Result(); n != 2 || err != nil {
			t.Errorf("renames %q: SCARD set = %d %v", args, n, err)
		}
		if n, err := c.Exists(ctx, "k", "moved").Result(); n != 1 || err != nil {
			t.Errorf("renames %q: EXISTS k moved = %d %v", args, n, err)
		}
		if l, err := c.LRange(ctx, "q", 0, -1).Result(); len(l) != 1 || l[0] != "b" || err != nil {
			t.Errorf("renames %q: LRANGE q = %q %v", args, l, err)
		}
		c.Shutdown(ctx)
		p.Wait(t)
	}
}
