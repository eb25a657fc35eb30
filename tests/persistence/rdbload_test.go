package persistence

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/server"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Loading Redis RDB files (docs/persistence.md, "Migrating from Redis").

const rdbTestdata = "../../internal/rdb/testdata/rdbfile/"

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
			s := harness.Start(t, "--dir", dir, "--save", "")
			r := s.Raw(t)
			r.Expect(harness.Status(strings.TrimSpace(string(want))), "DEBUG", "DIGEST")
			r.Expect(int64(4102444800123), "PEXPIRETIME", "ttl:s")
			r.Expect(int64(4102444801000), "PEXPIRETIME", "ttl:l")
			r.Expect(int64(0), "EXISTS", "gone")
			if n := s.InfoInt(t, "persistence", "rdb_last_load_keys_expired"); n != 1 {
				t.Errorf("rdb_last_load_keys_expired %d", n)
			}
			r.Expect(harness.Status("OK"), "SELECT", "5")
			r.Expect("db5value", "GET", "db5:k")
			r.Expect(harness.Status("OK"), "SELECT", "0")
			if name == "redis-8.0.2.rdb" {
				r.Expect([]any{int64(4102444800500)}, "HPEXPIRETIME", "h:ttl", "FIELDS", "1", "a")
				r.Expect("hi", "FCALL", "myfunc", "0", "hi")
			}

			// The first save moves the Redis file aside, then writes HotKV's.
			r.Expect(harness.Status("OK"), "SAVE")
			kept, err := os.ReadFile(filepath.Join(dir, "dump.rdb.redis"))
			if err != nil || !bytes.Equal(kept, orig) {
				t.Fatalf("dump.rdb.redis: %v (same bytes: %v)", err, bytes.Equal(kept, orig))
			}
			now, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			if !bytes.HasPrefix(now, []byte("HOTKVSNP")) {
				t.Fatalf("dump.rdb after SAVE starts %q", now[:min(9, len(now))])
			}
			r.Expect(harness.Status("OK"), "SAVE") // the backup is made once
			if again, _ := os.ReadFile(filepath.Join(dir, "dump.rdb.redis")); !bytes.Equal(again, orig) {
				t.Fatal("the second save touched dump.rdb.redis")
			}

			// DEBUG RELOAD NOSAVE reads a Redis file too.
			if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), orig, 0o644); err != nil {
				t.Fatal(err)
			}
			r.Expect(harness.Status("OK"), "FLUSHALL")
			r.Expect(harness.Status("OK"), "DEBUG", "RELOAD", "NOSAVE")
			r.Expect(harness.Status(strings.TrimSpace(string(want))), "DEBUG", "DIGEST")
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

// TestDifferentialRDBLoad has Redis 8.0.2 and Valkey 8.1.1 save every type
// and encoding, then starts HotKV on each file and compares every key.
func TestDifferentialRDBLoad(t *testing.T) {
	for _, peer := range []string{"redis8-server", "valkey-server"} {
		t.Run(peer, func(t *testing.T) {
			bin := harness.PeerPath(peer)
			if bin == "" {
				t.Skip(peer + " not installed (run ../shared/peers/install.sh)")
			}
			dir := t.TempDir()
			p := harness.StartPeer(t, bin, dir).Raw(t)
			harness.FillEveryType(t, p, peer == "redis8-server")
			p.Expect(harness.Status("OK"), "SAVE")
			s := harness.Start(t, "--dir", dir, "--save", "")
			h := s.Raw(t)
			harness.SameData(t, p, h, 16, peer == "redis8-server")
			if peer == "redis8-server" {
				h.Expect("x", "FCALL", "myfunc", "0", "x")
			}
		})
	}
}

// TestDifferentialRDBLoadLRULFU: the IDLE and FREQ opcodes Redis writes
// under an LRU or LFU maxmemory policy set the keys' idle time and counter.
func TestDifferentialRDBLoadLRULFU(t *testing.T) {
	bin := harness.PeerPath("redis8-server")
	if bin == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu"} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			p := harness.StartPeer(t, bin, dir, "--maxmemory-policy", policy).Raw(t)
			p.Expect(harness.Status("OK"), "SET", "k", "v")
			payload := p.Do("DUMP", "k").(string)
			p.Expect(harness.Status("OK"), "RESTORE", "idle", "0", payload, "IDLETIME", "5000")
			p.Expect(harness.Status("OK"), "RESTORE", "freq", "0", payload, "FREQ", "77")
			p.Expect(harness.Status("OK"), "SAVE")
			h := harness.Start(t, "--dir", dir, "--save", "", "--maxmemory-policy", policy).Raw(t)
			if policy == "allkeys-lru" {
				if n, _ := h.Do("OBJECT", "IDLETIME", "idle").(int64); n < 5000 || n > 5010 {
					t.Fatalf("OBJECT IDLETIME %d, want about 5000", n)
				}
				return
			}
			h.Expect(p.Do("OBJECT", "FREQ", "freq"), "OBJECT", "FREQ", "freq")
		})
	}
}

// TestCheckRedisRDB: hotkv --check reads a Redis RDB file as start-up does.
func TestCheckRedisRDB(t *testing.T) {
	harness.OutOfProcess(t)
	out, err := exec.Command(harness.Binary(t), "--check", rdbTestdata+"redis-8.0.2.rdb").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Redis RDB file OK: version 12, 21 keys, 9200 bytes, checksum OK") {
		t.Fatalf("%v: %s", err, out)
	}
	cut := filepath.Join(t.TempDir(), "cut.rdb")
	b, _ := os.ReadFile(rdbTestdata + "redis-8.0.2.rdb")
	os.WriteFile(cut, b[:5000], 0o644)
	out, err = exec.Command(harness.Binary(t), "--check", cut).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "unexpected end of file at offset 5000 (truncated)") {
		t.Fatalf("%v: %s", err, out)
	}
}
