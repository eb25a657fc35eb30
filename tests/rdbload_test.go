package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/server"
)

// Loading Redis RDB files (docs/persistence.md, "Migrating from Redis").

const rdbTestdata = "../internal/rdb/testdata/rdbfile/"

// copyRDB puts the testdata file name into a new directory as dump.rdb.
func copyRDB(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLoadRedisRDBFile starts on files Redis 8.0.2 and Valkey 8.1.1 saved
// (committed, so no peer is needed): the data set's digest is the one the
// saving server computed, the key expired since is skipped, the function
// library is there, and the first save keeps the Redis file aside.
func TestLoadRedisRDBFile(t *testing.T) {
	for _, name := range []string{"redis-8.0.2.rdb", "valkey-8.1.1.rdb"} {
		t.Run(name, func(t *testing.T) {
			dir := copyRDB(t, rdbTestdata+name)
			orig, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			want, err := os.ReadFile(rdbTestdata + name + ".digest")
			if err != nil {
				t.Fatal(err)
			}
			s := start(t, "--dir", dir, "--save", "")
			r := s.raw(t)
			r.expect(Status(strings.TrimSpace(string(want))), "DEBUG", "DIGEST")
			r.expect(int64(4102444800123), "PEXPIRETIME", "ttl:s")
			r.expect(int64(4102444801000), "PEXPIRETIME", "ttl:l")
			r.expect(int64(0), "EXISTS", "gone")
			if n := s.infoInt(t, "persistence", "rdb_last_load_keys_expired"); n != 1 {
				t.Errorf("rdb_last_load_keys_expired %d", n)
			}
			r.expect(Status("OK"), "SELECT", "5")
			r.expect("db5value", "GET", "db5:k")
			r.expect(Status("OK"), "SELECT", "0")
			if name == "redis-8.0.2.rdb" {
				r.expect([]any{int64(4102444800500)}, "HPEXPIRETIME", "h:ttl", "FIELDS", "1", "a")
				r.expect("hi", "FCALL", "myfunc", "0", "hi")
			}

			// The first save moves the Redis file aside, then writes HotKV's.
			r.expect(Status("OK"), "SAVE")
			kept, err := os.ReadFile(filepath.Join(dir, "dump.rdb.redis"))
			if err != nil || !bytes.Equal(kept, orig) {
				t.Fatalf("dump.rdb.redis: %v (same bytes: %v)", err, bytes.Equal(kept, orig))
			}
			now, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			if !bytes.HasPrefix(now, []byte("HOTKVSNP")) {
				t.Fatalf("dump.rdb after SAVE starts %q", now[:min(9, len(now))])
			}
			r.expect(Status("OK"), "SAVE") // the backup is made once
			if again, _ := os.ReadFile(filepath.Join(dir, "dump.rdb.redis")); !bytes.Equal(again, orig) {
				t.Fatal("the second save touched dump.rdb.redis")
			}

			// DEBUG RELOAD NOSAVE reads a Redis file too.
			if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), orig, 0o644); err != nil {
				t.Fatal(err)
			}
			r.expect(Status("OK"), "FLUSHALL")
			r.expect(Status("OK"), "DEBUG", "RELOAD", "NOSAVE")
			r.expect(Status(strings.TrimSpace(string(want))), "DEBUG", "DIGEST")
		})
	}
}

// TestLoadRedisRDBFileErrors: a damaged file stops start-up with an error
// naming the offset; nothing panics.
func TestLoadRedisRDBFileErrors(t *testing.T) {
	b, err := os.ReadFile(rdbTestdata + "redis-8.0.2.rdb")
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(b)
	flipped[len(flipped)-20] ^= 0xff
	for _, tc := range []struct {
		name string
		file []byte
		args []string
		want string
	}{
		{"truncated", b[:len(b)/2], nil, "unexpected end of file at offset"},
		{"checksum", flipped, nil, "wrong RDB checksum"},
		{"databases", b, []string{"--databases", "4"}, "database 5, and HotKV is configured with databases 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "dump.rdb"), tc.file, 0o644)
			cfg, err := config.FromArgs(append([]string{"--port", "0", "--dir", dir, "--save", ""}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			s := server.New(cfg)
			err = s.Listen()
			if err == nil {
				t.Fatal("started")
			}
			if !strings.Contains(err.Error(), "bad Redis RDB file") || !strings.Contains(err.Error(), "offset") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want one with an offset and %q", err, tc.want)
			}
		})
	}
}

// fillEveryType writes keys of every type and encoding in several
// databases, with key and hash-field TTLs and a function library (the
// last two only on Redis 8: Valkey 8.1 has no HEXPIRE).
func fillEveryType(t *testing.T, r *raw, redis8 bool) {
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
		if e, ok := r.do(c...).(Err); ok {
			t.Fatalf("%v: %s", c, e)
		}
	}
	if redis8 {
		r.do("FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] end)")
	}
}

// sameData compares two servers key by key: DEBUG DIGEST-VALUE, PEXPIRETIME
// and (hashes) the fields' HPEXPIRETIME, database by database, then the
// whole-data-set DEBUG DIGEST.
func sameData(t *testing.T, want, got *raw, dbs int, fieldTTLs bool) {
	t.Helper()
	for db := range dbs {
		d := strconv.Itoa(db)
		want.do("SELECT", d)
		got.do("SELECT", d)
		keys, _ := want.do("KEYS", "*").([]any)
		if n := got.do("DBSIZE"); n != int64(len(keys)) {
			gk, _ := got.do("KEYS", "*").([]any)
			t.Errorf("db %d: DBSIZE %v, want %d (keys %v, want %v)", db, n, len(keys), gk, keys)
		}
		for _, k := range keys {
			k := k.(string)
			for _, cmd := range [][]string{{"DEBUG", "DIGEST-VALUE", k}, {"PEXPIRETIME", k}, {"TYPE", k}} {
				if w, g := want.do(cmd...), got.do(cmd...); fmt.Sprint(w) != fmt.Sprint(g) {
					t.Errorf("db %d: %v: %v, want %v", db, cmd, g, w)
				}
			}
			if fieldTTLs && want.do("TYPE", k) == Status("hash") {
				fields, _ := want.do("HKEYS", k).([]any)
				args := []string{"HPEXPIRETIME", k, "FIELDS", strconv.Itoa(len(fields))}
				for _, f := range fields {
					args = append(args, f.(string))
				}
				if w, g := want.do(args...), got.do(args...); fmt.Sprint(w) != fmt.Sprint(g) {
					t.Errorf("db %d: HPEXPIRETIME %s: %v, want %v", db, k, g, w)
				}
			}
		}
	}
	want.do("SELECT", "0")
	got.do("SELECT", "0")
	if w, g := want.do("DEBUG", "DIGEST"), got.do("DEBUG", "DIGEST"); w != g {
		t.Errorf("DEBUG DIGEST %v, want %v", g, w)
	}
}

// peerPath is a peer binary from ../shared/peers/install.sh, or "".
func peerPath(name string) string {
	p := redisServerPath()
	if p == "" {
		return ""
	}
	p = filepath.Join(filepath.Dir(p), name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// startPeer runs a peer server binary (redis8-server, valkey-server) in dir.
func startPeer(t *testing.T, bin, dir string, extra ...string) *testServer {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--enable-debug-command", "yes"}, extra...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitPort(t, addr)
	return &testServer{Addr: addr}
}

// TestDifferentialRDBLoad has Redis 8.0.2 and Valkey 8.1.1 save every type
// and encoding, then starts HotKV on each file and compares every key.
func TestDifferentialRDBLoad(t *testing.T) {
	for _, peer := range []string{"redis8-server", "valkey-server"} {
		t.Run(peer, func(t *testing.T) {
			bin := peerPath(peer)
			if bin == "" {
				t.Skip(peer + " not installed (run ../shared/peers/install.sh)")
			}
			dir := t.TempDir()
			p := startPeer(t, bin, dir).raw(t)
			fillEveryType(t, p, peer == "redis8-server")
			p.expect(Status("OK"), "SAVE")
			s := start(t, "--dir", dir, "--save", "")
			h := s.raw(t)
			sameData(t, p, h, 16, peer == "redis8-server")
			if peer == "redis8-server" {
				h.expect("x", "FCALL", "myfunc", "0", "x")
			}
		})
	}
}

// TestDifferentialRDBLoadLRULFU: the IDLE and FREQ opcodes Redis writes
// under an LRU or LFU maxmemory policy set the keys' idle time and counter.
func TestDifferentialRDBLoadLRULFU(t *testing.T) {
	bin := peerPath("redis8-server")
	if bin == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu"} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			p := startPeer(t, bin, dir, "--maxmemory-policy", policy).raw(t)
			p.expect(Status("OK"), "SET", "k", "v")
			payload := p.do("DUMP", "k").(string)
			p.expect(Status("OK"), "RESTORE", "idle", "0", payload, "IDLETIME", "5000")
			p.expect(Status("OK"), "RESTORE", "freq", "0", payload, "FREQ", "77")
			p.expect(Status("OK"), "SAVE")
			h := start(t, "--dir", dir, "--save", "", "--maxmemory-policy", policy).raw(t)
			if policy == "allkeys-lru" {
				if n, _ := h.do("OBJECT", "IDLETIME", "idle").(int64); n < 5000 || n > 5010 {
					t.Fatalf("OBJECT IDLETIME %d, want about 5000", n)
				}
				return
			}
			h.expect(p.do("OBJECT", "FREQ", "freq"), "OBJECT", "FREQ", "freq")
		})
	}
}

// TestCheckRedisRDB: hotkv --check reads a Redis RDB file as start-up does.
func TestCheckRedisRDB(t *testing.T) {
	out, err := exec.Command(binary(t), "--check", rdbTestdata+"redis-8.0.2.rdb").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Redis RDB file OK: version 12, 21 keys, 9200 bytes, checksum OK") {
		t.Fatalf("%v: %s", err, out)
	}
	cut := filepath.Join(t.TempDir(), "cut.rdb")
	b, _ := os.ReadFile(rdbTestdata + "redis-8.0.2.rdb")
	os.WriteFile(cut, b[:5000], 0o644)
	out, err = exec.Command(binary(t), "--check", cut).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "unexpected end of file at offset 5000 (truncated)") {
		t.Fatalf("%v: %s", err, out)
	}
}
