package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// RedisServerPath is the peers' redis8-server (HOTKV_PEERS_DIR, default
// ~/.hotkv-peers), or "" when it is not installed.
func RedisServerPath() string {
	dir := os.Getenv("HOTKV_PEERS_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".hotkv-peers")
	}
	p := filepath.Join(dir, "bin", "redis8-server")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// StartRedis runs a throwaway Redis 8 on a free loopback port, with extra
// redis-server arguments.
func StartRedis(t *testing.T, extra ...string) *Server {
	t.Helper()
	bin := RedisServerPath()
	if bin == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	port := FreePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir())
	cmd.Args = append(cmd.Args, extra...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	WaitPort(t, addr)
	return &Server{Addr: addr}
}

// Differ runs script on both servers over RESP2 and then RESP3 and reports
// the first reply that differs.
func Differ(t *testing.T, script [][]string) {
	t.Helper()
	DifferWith(t, script, reflect.DeepEqual)
}

// DifferWith is Differ with replies compared by same.
func DifferWith(t *testing.T, script [][]string, same func(got, want any) bool) {
	t.Helper()
	DifferRun(t, script, func(r *Conn, cmd []string) any { return r.Do(cmd...) }, same)
}

// DifferRun sends script to both servers, reading each reply with reply,
// and stops at the first pair same refuses.
func DifferRun(t *testing.T, script [][]string, reply func(r *Conn, cmd []string) any, same func(got, want any) bool) {
	t.Helper()
	DifferOn(t, StartRedis(t), Start(t), script, reply, same)
}

// DifferOn is DifferRun on servers the caller started.
func DifferOn(t *testing.T, redis, hot *Server, script [][]string, reply func(r *Conn, cmd []string) any, same func(got, want any) bool) {
	t.Helper()
	for _, proto := range []string{"2", "3"} {
		a, b := hot.Raw(t), redis.Raw(t)
		a.Do("HELLO", proto)
		b.Do("HELLO", proto)
		a.Do("FLUSHALL")
		b.Do("FLUSHALL")
		for _, cmd := range script {
			got, want := reply(a, cmd), reply(b, cmd)
			if os.Getenv("DIFF_TRACE") != "" {
				t.Logf("%q: %#v | %#v", cmd, got, want)
			}
			if !same(got, want) {
				t.Fatalf("RESP%s %q:\nhotkv: %#v\nredis: %#v", proto, cmd, got, want)
			}
		}
	}
}

// FillEveryType writes keys of every type and encoding in several
// databases, with key and hash-field TTLs and a function library (the
// last two only on Redis 8: Valkey 8.1 has no HEXPIRE).
func FillEveryType(t *testing.T, r *Conn, redis8 bool) {
	t.Helper()
	var cmds [][]string
	add := func(args ...string) { cmds = append(cmds, args) }
	add("SET", "s:int", "12345")
	add("SET", "s:raw", "hello world")
	add("SET", "s:big", strings.Repeat("abcdefgh", 500))
	add("RPUSH", "l:small", "a", "b", "1", "2")
	add("SETEX", "s:ttl", "1000", "v")
	add("PFADD", "hll", "a", "b", "c")
	add("SETBIT", "bits", "1000", "1")
	for i := range 300 {
		n := strconv.Itoa(i)
		add("RPUSH", "l:big", "element-"+n+strings.Repeat("x", 30))
		add("SADD", "set:ht", "m"+n)
		add("ZADD", "z:sl", n+".25", "m"+n)
		add("HSET", "h:ht", "f"+n, "v"+n)
		add("XADD", "st:big", "*", "f", n)
	}
	add("RPUSH", "l:huge", strings.Repeat("y", 10000), "z")
	add("SADD", "set:int", "1", "2", "3", "-100000")
	add("SADD", "set:lp", "a", "b", "c")
	add("ZADD", "z:lp", "1", "a", "2.5", "b", "-inf", "c", "inf", "d")
	add("HSET", "h:lp", "f1", "v1", "f2", "v2")
	add("PEXPIRE", "h:lp", "5000000")
	add("XADD", "st", "1-1", "a", "1")
	add("XADD", "st", "2-1", "b", "2", "c", "3")
	add("XADD", "st", "3-1", "a", "4")
	add("XGROUP", "CREATE", "st", "g1", "0")
	add("XGROUP", "CREATE", "st", "g2", "$")
	add("XREADGROUP", "GROUP", "g1", "c1", "COUNT", "2", "STREAMS", "st", ">")
	add("XGROUP", "CREATECONSUMER", "st", "g1", "c2")
	add("XDEL", "st", "2-1")
	if redis8 {
		add("HSET", "h:fttl", "a", "1", "b", "2", "c", "3")
		add("HEXPIRE", "h:fttl", "1000", "FIELDS", "2", "a", "b")
		add("HPEXPIRE", "h:ht", "2000000", "FIELDS", "2", "f1", "f2")
	}
	for _, db := range []string{"2", "9"} {
		add("SELECT", db)
		add("SET", "k"+db, "in db "+db)
		add("SADD", "s"+db, "x", "y")
		add("EXPIRE", "s"+db, "100000")
	}
	add("SELECT", "0")
	for _, c := range cmds {
		if e, ok := r.Do(c...).(Err); ok {
			t.Fatalf("%v: %s", c, e)
		}
	}
	if redis8 {
		r.Do("FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] end)")
	}
}

// SameData compares two servers key by key: DEBUG DIGEST-VALUE, PEXPIRETIME
// and (hashes) the fields' HPEXPIRETIME, database by database, then the
// whole-data-set DEBUG DIGEST.
func SameData(t *testing.T, want, got *Conn, dbs int, fieldTTLs bool) {
	t.Helper()
	for db := range dbs {
		d := strconv.Itoa(db)
		want.Do("SELECT", d)
		got.Do("SELECT", d)
		keys, _ := want.Do("KEYS", "*").([]any)
		if n := got.Do("DBSIZE"); n != int64(len(keys)) {
			gk, _ := got.Do("KEYS", "*").([]any)
			t.Errorf("db %d: DBSIZE %v, want %d (keys %v, want %v)", db, n, len(keys), gk, keys)
		}
		for _, k := range keys {
			k := k.(string)
			for _, cmd := range [][]string{{"DEBUG", "DIGEST-VALUE", k}, {"PEXPIRETIME", k}, {"TYPE", k}} {
				if w, g := want.Do(cmd...), got.Do(cmd...); fmt.Sprint(w) != fmt.Sprint(g) {
					t.Errorf("db %d: %v: %v, want %v", db, cmd, g, w)
				}
			}
			if fieldTTLs && want.Do("TYPE", k) == Status("hash") {
				fields, _ := want.Do("HKEYS", k).([]any)
				args := []string{"HPEXPIRETIME", k, "FIELDS", strconv.Itoa(len(fields))}
				for _, f := range fields {
					args = append(args, f.(string))
				}
				if w, g := want.Do(args...), got.Do(args...); fmt.Sprint(w) != fmt.Sprint(g) {
					t.Errorf("db %d: HPEXPIRETIME %s: %v, want %v", db, k, g, w)
				}
			}
		}
	}
	want.Do("SELECT", "0")
	got.Do("SELECT", "0")
	if w, g := want.Do("DEBUG", "DIGEST"), got.Do("DEBUG", "DIGEST"); w != g {
		t.Errorf("DEBUG DIGEST %v, want %v", g, w)
	}
}

// PeerPath is a peer binary from ../shared/peers/install.sh, or "".
func PeerPath(name string) string {
	p := RedisServerPath()
	if p == "" {
		return ""
	}
	p = filepath.Join(filepath.Dir(p), name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// StartPeer runs a peer server binary (redis8-server, valkey-server) in dir.
func StartPeer(t *testing.T, bin, dir string, extra ...string) *Server {
	t.Helper()
	port := FreePort(t)
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--enable-debug-command", "yes"}, extra...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	WaitPort(t, addr)
	return &Server{Addr: addr}
}
