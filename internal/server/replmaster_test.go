package server

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/resp"
)

// TestRedisForm: what the replication stream sends for commands whose
// effect depends on the time they ran at (now = 1,000,000 ms).
func TestRedisForm(t *testing.T) {
	const now = 1_000_000
	for _, c := range []struct{ in, want string }{
		{"SET k v", "SET k v"},
		{"SET k v EX 10", "SET k v PXAT 1010000"},
		{"SET k ex px 5 GET", "SET k ex PXAT 1000005"},
		{"SET k v NX GET KEEPTTL get", "SET k v NX KEEPTTL"},
		{"SET k v XX PXAT 7 GET", "SET k v XX PXAT 7 GET"},
		{"SET k v exat 2000", "SET k v PXAT 2000000"},
		{"SET k v PXAT 7", "SET k v PXAT 7"},
		{"SETEX k 10 v", "SET k v PXAT 1010000"},
		{"PSETEX k 10 v", "SET k v PXAT 1000010"},
		{"EXPIRE k 10", "PEXPIREAT k 1010000"},
		{"PEXPIRE k 10 NX", "PEXPIREAT k 1000010 NX"},
		{"EXPIREAT k 5000", "PEXPIREAT k 5000000"},
		{"EXPIRE k -1", "DEL k"},
		{"PEXPIREAT k 1", "DEL k"},
		{"EXPIRE k -1 XX", "PEXPIREAT k 999000 XX"},
		{"GETEX k", ""},
		{"GETEX k EX 1", "PEXPIREAT k 1001000"},
		{"GETEX k PERSIST", "PERSIST k"},
		{"GETEX k EXAT 1000", "DEL k"},
		{"GETDEL k", "DEL k"},
		{"HGETDEL h FIELDS 2 f g", "HDEL h f g"},
		{"BLMOVE a b LEFT RIGHT 0", "LMOVE a b LEFT RIGHT"},
		{"BRPOPLPUSH a b 1.5", "RPOPLPUSH a b"},
		{"HEXPIRE h 10 FIELDS 1 f", "HPEXPIREAT h 1010000 FIELDS 1 f"},
		{"HPEXPIRE h 10 GT FIELDS 1 f", "HPEXPIREAT h 1000010 GT FIELDS 1 f"},
		{"HEXPIREAT h 10 FIELDS 1 f", "HPEXPIREAT h 10000 FIELDS 1 f"},
		{"HSETEX h EX 10 FIELDS 1 ex 1", "HSETEX h PXAT 1010000 FIELDS 1 ex 1"},
		{"HGETEX h PX 10 FIELDS 1 f", "HGETEX h PXAT 1000010 FIELDS 1 f"},
		{"RESTORE k 10 payload", "RESTORE k 1000010 payload ABSTTL"},
		{"RESTORE k 0 payload REPLACE", "RESTORE k 0 payload REPLACE"},
		{"RESTORE k 2000000 payload ABSTTL", "RESTORE k 2000000 payload ABSTTL"},
		{"RESTORE k 10 payload ABSTTL", ""},
		{"RESTORE k 10 payload ABSTTL REPLACE", "DEL k"},
		{"INCR k", "INCR k"},
	} {
		var args [][]byte
		for _, f := range strings.Fields(c.in) {
			args = append(args, []byte(f))
		}
		var got []string
		for _, a := range replicaForm(args, now, &config.ReplMaster{}) {
			got = append(got, string(a))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, want %q", c.in, strings.Join(got, " "), c.want)
		}
	}
	// Under lazyfree-lazy-expire and -server-del, the deletions it makes
	// itself go as UNLINK.
	lazy := &config.ReplMaster{LazyExpire: true, LazyServerDel: true}
	for in, want := range map[string]string{"EXPIRE k -1": "UNLINK k", "GETEX k PXAT 1": "UNLINK k",
		"RESTORE k 10 payload ABSTTL REPLACE": "UNLINK k", "GETDEL k": "DEL k"} {
		var args [][]byte
		for _, f := range strings.Fields(in) {
			args = append(args, []byte(f))
		}
		var got []string
		for _, a := range replicaForm(args, now, lazy) {
			got = append(got, string(a))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("lazy %s: %q, want %q", in, strings.Join(got, " "), want)
		}
	}
}

// TestAppendRESP: the stream's framing.
func TestAppendRESP(t *testing.T) {
	if got := string(resp.AppendCommand(nil, []byte("SET"), []byte("k"), []byte(""))); got != "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n" {
		t.Fatalf("%q", got)
	}
}

// TestRDBCarriesHotKVOnlyData: what RDB has no form for (a vector set, a
// named index, a prompt cache) goes into the hotkv-snapshot AUX field, and
// loadRDBAux brings it back.
func TestRDBCarriesHotKVOnlyData(t *testing.T) {
	s := benchServer(t)
	cmd := func(b []byte, args ...string) []byte {
		var a [][]byte
		for _, x := range args {
			a = append(a, []byte(x))
		}
		return resp.AppendCommand(b, a...)
	}
	var b []byte
	b = cmd(b, "SET", "s", "v")
	b = cmd(b, "VADD", "vs", "VALUES", "2", "1", "2", "a")
	b = cmd(b, "VSIM.CREATEINDEX", "idx", "DIM", "2")
	b = cmd(b, "VSIM.SET", "idx", "e1", "VALUES", "2", "0.5", "0.5")
	b = cmd(b, "PCACHE.CREATE", "chat")
	pipe(s, b, 1)
	var out bytes.Buffer
	keys, err := s.writeRDB(&out, nil, nil, false, false)
	if err != nil || keys != 1 {
		t.Fatalf("writeRDB: %d keys, %v", keys, err)
	}
	f := out.Bytes()
	i := bytes.Index(f, []byte("\x0e"+hotkvAux))
	if i < 0 {
		t.Fatal("no hotkv-snapshot AUX field")
	}
	val, _, ok := rdb.ReadString(f[i+1+len(hotkvAux):])
	if !ok {
		t.Fatal("bad AUX value")
	}
	s2 := benchServer(t)
	if handled, err := s2.loadRDBAux(hotkvAux, val, s2.ks, &s2.reg); !handled || err != nil {
		t.Fatalf("loadRDBAux: %v, %v", handled, err)
	}
	if handled, _ := s2.loadRDBAux("redis-ver", []byte("8.0.2"), s2.ks, &s2.reg); handled {
		t.Fatal("loadRDBAux took redis-ver")
	}
	now := time.Now().UnixMilli()
	db := s2.ks.DBs[0]
	if e := db.ShardFor([]byte("vs")).Peek([]byte("vs"), now); e == nil || e.Kind != keyspace.KindVectorSet {
		t.Fatalf("vector set not loaded: %v", e)
	}
	if e := db.ShardFor([]byte("s")).Peek([]byte("s"), now); e != nil {
		t.Fatal("the string is in the RDB part, not in the AUX field")
	}
	if names := s2.reg.indexes.Names(); len(names) != 1 || names[0] != "idx" {
		t.Fatalf("indexes %v", names)
	}
	if names := s2.reg.ai.PromptNames(); len(names) != 1 || names[0] != "chat" {
		t.Fatalf("prompt caches %v", names)
	}
	if s.repl.skipped.Load() != 1 {
		t.Fatalf("rdb_keys_skipped = %d", s.repl.skipped.Load())
	}
}

// TestFeedSplitsHotKVCommands: a transaction's writes to named indexes and
// the AI layer go after its key writes, as a unit of their own, so that a
// Redis replica (which refuses them) still applies the key writes.
func TestFeedSplitsHotKVCommands(t *testing.T) {
	s := benchServer(t)
	m := &s.repl
	m.backlog = make([]byte, 1<<16)
	words := func(cmds ...string) (out [][][]byte) {
		for _, c := range cmds {
			var args [][]byte
			for _, f := range strings.Fields(c) {
				args = append(args, []byte(f))
			}
			out = append(out, args)
		}
		return out
	}
	stream := func(b []byte) string {
		var lines []string
		for r := bufio.NewReader(bytes.NewReader(b)); ; {
			args, _, err := readCommand(r)
			if err != nil {
				return strings.Join(lines, "; ")
			}
			lines = append(lines, string(bytes.Join(args, []byte(" "))))
		}
	}
	for _, c := range []struct {
		cmds []string
		want string
	}{
		{[]string{"SET a 1", "VSIM.SET idx e VALUES 1 1", "SET b 2", "amem.add m t VALUES 1 1"},
			"MULTI; SELECT 0; SET a 1; SET b 2; EXEC; MULTI; VSIM.SET idx e VALUES 1 1; amem.add m t VALUES 1 1; EXEC"},
		{[]string{"PCACHE.SET p q r", "SET a 1", "INCR a"}, "MULTI; SET a 1; INCR a; EXEC; PCACHE.SET p q r"},
		{[]string{"SCACHE.DROP c", "VSIM.DEL idx e"}, "MULTI; SCACHE.DROP c; VSIM.DEL idx e; EXEC"},
		{[]string{"VSIM.SET idx e VALUES 1 1"}, "VSIM.SET idx e VALUES 1 1"},
		{[]string{"SET a 1", "VADD vs VALUES 1 1 e"}, "MULTI; SET a 1; VADD vs VALUES 1 1 e; EXEC"},
	} {
		from := m.off
		m.feed(0, 0, words(c.cmds...))
		if got := stream(m.backlog[from:m.off]); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.cmds, got, c.want)
		}
	}
}

// TestPropagationPanics: Redis 8.0.2's propagation-error-behavior.
func TestPropagationPanics(t *testing.T) {
	for _, c := range []struct {
		behavior             string
		fromMaster, readOnly bool
		want                 bool
	}{
		{"ignore", true, true, false},
		{"ignore", false, true, false},
		{"panic-on-replicas", true, true, true},
		{"panic-on-replicas", true, false, false}, // a writable replica only logs
		{"panic-on-replicas", false, true, false}, // the append-only log's load goes on
		{"panic", true, true, true},
		{"panic", true, false, false},
		{"panic", false, true, true},
		{"panic", false, false, true},
	} {
		if got := propagationPanics(c.behavior, c.fromMaster, c.readOnly); got != c.want {
			t.Errorf("propagationPanics(%q, fromMaster %v, read-only %v) = %v", c.behavior, c.fromMaster, c.readOnly, got)
		}
	}
}
