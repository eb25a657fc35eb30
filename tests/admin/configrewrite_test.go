package admin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/tests/internal/harness"
	"github.com/redis/go-redis/v9"
)

// CONFIG REWRITE (docs/configuration.md#config-commands).

// TestConfigRewriteRestart changes settings and users on the real binary,
// rewrites its file, and starts the binary again from the file: the
// settings and users come back the same.
func TestConfigRewriteRestart(t *testing.T) {
	harness.OutOfProcess(t)
	ctx := context.Background()
	dir := t.TempDir()
	conf := filepath.Join(dir, "hotkv.conf")
	orig := "# HotKV test configuration\n\n   # indented comment\ntimeout 5\nmaxclients 500\n\n\n" +
		"user alice on >alicepw ~a* +get\nsave 900 1\nsave 300 10\ntimeout 7\ndir " + dir + "\n"
	if err := os.WriteFile(conf, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	p := harness.StartBinary(t, conf, "--loglevel", "warning", "--enable-protected-configs", "local")
	c := p.Client(t)
	for _, kv := range [][2]string{
		{"timeout", "30"}, {"maxmemory", "10mb"}, {"maxmemory-policy", "allkeys-lru"},
		{"slowlog-max-len", "50"}, {"notify-keyspace-events", "KEA"}, {"save", "60 5 120 7 3600 9"},
		{"latency-tracking-info-percentiles", "50 99.5"}, {"appendfsync", "always"},
		{"dbfilename", `odd "name" 'x'.rdb`}, {"acl-pubsub-default", "allchannels"},
	} {
		if err := c.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			t.Fatalf("CONFIG SET %s: %v", kv[0], err)
		}
	}
	for _, rules := range [][]any{
		{"bob", "on", ">bobpw", "~b*", "resetchannels", "&news", "+@read", "-keys"},
		{"alice", "resetkeys", "~x*"},
		{"carol", "on", "nopass", "+@all", "(~c* +set)"},
	} {
		if err := c.Do(ctx, append([]any{"ACL", "SETUSER"}, rules...)...).Err(); err != nil {
			t.Fatalf("ACL SETUSER %v: %v", rules, err)
		}
	}
	if err := c.ConfigSet(ctx, "requirepass", "s3 cret").Err(); err != nil {
		t.Fatal(err)
	}
	c = p.Client(t, func(o *redis.Options) { o.Password = "s3 cret" })
	if got, err := c.Do(ctx, "CONFIG", "REWRITE").Result(); err != nil || got != "OK" {
		t.Fatalf("CONFIG REWRITE = %v, %v", got, err)
	}
	settings := c.ConfigGet(ctx, "*").Val()
	users := c.Do(ctx, "ACL", "LIST").Val()

	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		"# HotKV test configuration\n\n# indented comment\ntimeout 30\nmaxclients 500\n\nuser alice ",
		"\nsave 60 5\nsave 120 7\n\ndir \"" + dir + "\"\n\n" + config.Signature + "\n",
		"\nsave 3600 9\n", "\nmaxmemory 10mb\n", "\nrequirepass \"s3 cret\"\n", "\nuser bob ", "\nuser carol ",
		"\nuser default ", "\nlatency-tracking-info-percentiles 50 99.5\n", "\nnotify-keyspace-events \"AKE\"\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, text)
		}
	}
	if fi, err := os.Stat(conf); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode not kept: %v %v", fi, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 { // (nothing saved yet)
		t.Errorf("files left next to the configuration: %v", ents)
	}

	p.Cmd.Process.Kill()
	p.Wait(t)
	q := harness.StartBinary(t, conf) // the file's loglevel and the new --port
	c2 := q.Client(t, func(o *redis.Options) { o.Password = "s3 cret" })
	got := c2.ConfigGet(ctx, "*").Val()
	for name, v := range settings {
		if name != "port" && got[name] != v {
			t.Errorf("after restart %s = %q, want %q", name, got[name], v)
		}
	}
	if got := c2.Do(ctx, "ACL", "LIST").Val(); fmt.Sprint(got) != fmt.Sprint(users) {
		t.Errorf("after restart ACL LIST = %q, want %q", got, users)
	}
	// the users log in as before
	if err := q.Client(t, func(o *redis.Options) { o.Username, o.Password = "bob", "bobpw" }).Ping(ctx).Err(); err == nil {
		t.Error("bob has no +ping yet PING worked") // +@read does not include PING
	} else if !strings.Contains(err.Error(), "NOPERM") {
		t.Errorf("bob: %v", err)
	}
	if err := q.Client(t, func(o *redis.Options) { o.Username, o.Password = "carol", "any" }).Set(ctx, "c1", "v", 0).Err(); err != nil {
		t.Errorf("carol: %v", err)
	}

	// a second rewrite of an unchanged server leaves the file as it is
	// (but for the port, given on the command line)
	if err := c2.Do(ctx, "CONFIG", "REWRITE").Err(); err != nil {
		t.Fatal(err)
	}
	b2, _ := os.ReadFile(conf)
	portLine := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "port ") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	if portLine(string(b2)) != portLine(text) {
		t.Errorf("second rewrite changed the file:\n%s\nfirst:\n%s", b2, text)
	}
}

// TestConfigRewriteACLFile: with an aclfile, the user lines are not written.
func TestConfigRewriteACLFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	conf, acl := filepath.Join(dir, "hotkv.conf"), filepath.Join(dir, "users.acl")
	os.WriteFile(acl, []byte("user default on nopass ~* &* +@all\n"), 0o644)
	os.WriteFile(conf, []byte("aclfile "+acl+"\n"), 0o644)
	s := harness.Start(t, "--config", conf)
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer c.Close()
	c.Do(ctx, "ACL", "SETUSER", "bob", "on", ">pw")
	if err := c.Do(ctx, "CONFIG", "REWRITE").Err(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(conf)
	if strings.Contains(string(b), "user ") || !strings.HasPrefix(string(b), "aclfile \""+acl+"\"\n") {
		t.Fatalf("rewritten file:\n%s", b)
	}
}

// TestConfigRewriteErrors: no configuration file, and a file that cannot be
// replaced.
func TestConfigRewriteErrors(t *testing.T) {
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: harness.Start(t).Addr})
	defer c.Close()
	if err := c.Do(ctx, "CONFIG", "REWRITE").Err(); err == nil || err.Error() != "ERR The server is running without a config file" {
		t.Fatalf("without a file: %v", err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "hotkv.conf")
	os.WriteFile(conf, []byte("port 0\n"), 0o644)
	s := harness.Start(t, "--config", conf)
	c2 := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer c2.Close()
	// the directory replaced by a file: the path cannot be read or created
	os.RemoveAll(dir)
	os.WriteFile(dir, nil, 0o644)
	defer os.Remove(dir)
	err := c2.Do(ctx, "CONFIG", "REWRITE").Err()
	if err == nil || err.Error() != "ERR Rewriting config file: Not a directory" {
		t.Fatalf("unwritable: %v", err)
	}
}

func TestDifferentialConfigRewriteNoFile(t *testing.T) {
	harness.Differ(t, [][]string{{"CONFIG", "REWRITE"}, {"CONFIG", "REWRITE", "x"}})
}

// TestDifferentialConfigRewriteShape rewrites the same file on HotKV and on
// Redis 8.0.2 after the same CONFIG SETs and compares the results, limited
// to the directives both have: the lines kept in place must be identical,
// the appended ones the same set (Redis appends in its hash table's order).
func TestDifferentialConfigRewriteShape(t *testing.T) {
	bin := harness.RedisServerPath()
	if bin == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	body := "# shared settings\n\n\ntimeout 5\nmaxmemory 100mb\n  tcp-keepalive 300  \nsave 900 1\n" +
		"save 300 10\n\nsave 60 10000\ntimeout 7\nloglevel notice\nnotify-keyspace-events \"\"\n" +
		"requirepass \"\"\nhz 10\n"
	sets := [][2]string{
		{"timeout", "0"}, {"maxmemory", "0"}, {"maxmemory-policy", "allkeys-lru"}, {"slowlog-max-len", "200"},
		{"latency-tracking", "no"}, {"proto-max-bulk-len", "1gb"}, {"auto-aof-rewrite-min-size", "65536"},
		{"save", "10 1 20 2 30 3"}, {"hz", "20"}, {"notify-keyspace-events", "KEA"}, {"appendfsync", "always"},
		{"lfu-log-factor", "5"}, {"client-query-buffer-limit", "1048577"}, {"tracking-table-max-keys", "10"},
		{"loglevel", "warning"},
	}
	shared := map[string]bool{"#": true, "": true, "user": true} // users: only the default one
	for _, kv := range sets {
		shared[kv[0]] = true
	}
	for _, n := range []string{"tcp-keepalive", "requirepass", "latency-tracking-info-percentiles"} {
		shared[n] = true
	}

	rewrite := func(addr, conf string) string { return setAndRewrite(t, addr, conf, sets) }

	raddr, rconf := startRedisConf(t, bin, func(string) string { return "bind 127.0.0.1\n" + body })
	want := rewrite(raddr, rconf)

	hdir := t.TempDir()
	hconf := filepath.Join(hdir, "hotkv.conf")
	os.WriteFile(hconf, []byte("port 0\ndir "+hdir+"\n"+body), 0o644) // its shutdown saves there
	got := rewrite(harness.Start(t, "--config", hconf).Addr, hconf)

	// split keeps the shared lines, before and after the signature
	split := func(text string) (kept, appended []string) {
		after := false
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			if l == config.Signature {
				after = true
				continue
			}
			name := l
			if f := strings.Fields(l); len(f) > 0 {
				name = f[0]
			}
			if !shared[name] {
				continue
			}
			if after {
				appended = append(appended, l)
			} else {
				kept = append(kept, l)
			}
		}
		slices.Sort(appended)
		return kept, appended
	}
	gk, ga := split(got)
	wk, wa := split(want)
	if !slices.Equal(gk, wk) || !slices.Equal(ga, wa) {
		t.Fatalf("hotkv:\n%s\nredis:\n%s\nshared lines in place:\n%q\n%q\nappended:\n%q\n%q", got, want, gk, wk, ga, wa)
	}
	if !strings.Contains(got, config.Signature) || !strings.Contains(want, config.Signature) {
		t.Fatalf("no signature:\n%s\n%s", got, want)
	}
}

// setAndRewrite runs CONFIG SET of each pair of sets on the server at addr,
// then CONFIG REWRITE, and returns its configuration file conf.
func setAndRewrite(t *testing.T, addr, conf string, sets [][2]string) string {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	for _, kv := range sets {
		if err := c.ConfigSet(context.Background(), kv[0], kv[1]).Err(); err != nil {
			t.Fatalf("%s: CONFIG SET %s: %v", addr, kv[0], err)
		}
	}
	if err := c.Do(context.Background(), "CONFIG", "REWRITE").Err(); err != nil {
		t.Fatalf("%s: %v", addr, err)
	}
	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// startRedisConf runs Redis bin from a configuration file in a directory of
// its own: a port line, then lines(dir). It returns the address and the file.
func startRedisConf(t *testing.T, bin string, lines func(dir string) string) (addr, conf string) {
	t.Helper()
	dir := t.TempDir()
	conf = filepath.Join(dir, "redis.conf")
	port := harness.FreePort(t)
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("port %d\n%s", port, lines(dir))), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, conf)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr = "127.0.0.1:" + strconv.Itoa(port)
	harness.WaitPort(t, addr)
	return addr, conf
}
