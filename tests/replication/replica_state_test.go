package replication

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// HotKV's own state beside the keyspace (named vector indexes, semantic
// caches, agent memories, prompt caches) on a HotKV replica
// (docs/replication.md, "What replicates"): the full sync carries it in the
// hotkv-snapshot AUX field, the stream its writes.

// fillHotKVState gives r a named index, a semantic cache, an agent memory
// and a prompt cache, and things to drop later.
func fillHotKVState(t *testing.T, r *harness.Conn) {
	t.Helper()
	for _, c := range [][]string{
		{"VSIM.CREATEINDEX", "idx", "DIM", "3"},
		{"VSIM.SET", "idx", "a", "VALUES", "3", "1", "0", "0", "ATTRS", `{"year":1990,"tag":"x"}`},
		{"VSIM.SET", "idx", "b", "VALUES", "3", "0", "1", "0", "ATTRS", `{"year":2005}`},
		{"VSIM.MSET", "idx", "VALUES", "3", "c", "1", "1", "0", "d", "0", "0.5", "1"},
		{"VSIM.CREATEINDEX", "l2", "DIM", "2", "METRIC", "L2", "TYPE", "INT8"},
		{"VSIM.MSET", "l2", "VALUES", "2", "p", "1", "2", "q", "3", "4"},
		{"SCACHE.CREATE", "sc", "DIM", "3", "THRESHOLD", "0.2"},
		{"SCACHE.STORE", "sc", "what is hotkv", "a server", "VALUES", "3", "1", "0", "0", "ATTRS", `{"lang":"en"}`},
		{"SCACHE.STORE", "sc", "how fast", "very", "VALUES", "3", "0", "1", "0", "EX", "3600"},
		{"SCACHE.CREATE", "sc2", "DIM", "2"},
		{"AMEM.CREATE", "mem", "DIM", "3"},
		{"AMEM.ADD", "mem", "likes tea", "VALUES", "3", "1", "0", "0", "KIND", "SEMANTIC", "IMPORTANCE", "0.8"},
		{"AMEM.ADD", "mem", "said hello", "VALUES", "3", "0", "1", "0", "KIND", "WORKING", "SESSION", "s1", "ATTRS", `{"n":1}`},
		{"AMEM.ADD", "mem", "met bob", "VALUES", "3", "0", "0", "1", "KIND", "EPISODIC", "EX", "3600"},
		{"AMEM.CREATE", "mem2", "DIM", "2"},
		{"PCACHE.CREATE", "pc", "MAXENTRIES", "100"},
		{"PCACHE.SET", "pc", "hi", "hello!", "MODEL", "m1", "PARAMS", "1", "temperature", "0"},
		{"PCACHE.SET", "pc", "bye", "goodbye", "EX", "3600"},
		{"PCACHE.CREATE", "pc2"},
	} {
		if got := r.Do(c...); isErr(got) {
			t.Fatalf("%q: %v", c, got)
		}
	}
}

// writeHotKVState writes to every family after the sync: adds, replaces,
// deletes, drops, and a transaction.
func writeHotKVState(t *testing.T, r *harness.Conn) {
	t.Helper()
	for _, c := range [][]string{
		{"VSIM.SET", "idx", "e", "VALUES", "3", "1", "0", "1", "ATTRS", `{"year":2020}`},
		{"VSIM.SET", "idx", "a", "VALUES", "3", "1", "0.1", "0", "ATTRS", `{"year":1991}`},
		{"VSIM.DEL", "idx", "b"},
		{"VSIM.MSET", "idx", "VALUES", "3", "f", "0", "1", "1", "g", "1", "1", "1"},
		{"VSIM.DROPINDEX", "l2"},
		{"VSIM.CREATEINDEX", "fresh", "DIM", "2"},
		{"VSIM.SET", "fresh", "z", "VALUES", "2", "1", "1"},
		{"SCACHE.STORE", "sc", "what is go", "a language", "VALUES", "3", "0", "0", "1"},
		{"SCACHE.INVALIDATE", "sc", "ID", "2"},
		{"SCACHE.DROP", "sc2"},
		{"AMEM.ADD", "mem", "likes green tea", "VALUES", "3", "1", "0.01", "0", "KIND", "SEMANTIC"},
		{"AMEM.ADD", "mem", "likes coffee", "VALUES", "3", "0", "1", "1", "KIND", "SEMANTIC", "AT", "1700000000000"},
		{"AMEM.FORGET", "mem", "ID", "3"},
		{"AMEM.DROP", "mem2"},
		{"PCACHE.SET", "pc", "hi", "hello again", "MODEL", "m1", "PARAMS", "1", "temperature", "0"},
		{"PCACHE.SET", "pc", "new", "value"},
		{"PCACHE.DEL", "pc", "bye"},
		{"PCACHE.DROP", "pc2"},
		{"MULTI"},
		{"VSIM.SET", "idx", "h", "VALUES", "3", "0.5", "0.5", "0"},
		{"AMEM.ADD", "mem", "in a transaction", "VALUES", "3", "0", "0.7", "0.7", "KIND", "SEMANTIC"},
		{"PCACHE.SET", "pc", "tx", "yes"},
		{"SET", "tx-key", "1"},
		{"EXEC"},
	} {
		if got := r.Do(c...); isErr(got) {
			t.Fatalf("%q: %v", c, got)
		}
	}
}

// withoutTimes drops the values of the time fields of AMEM replies (flat
// RESP2 maps): a memory written through the stream is stamped with the
// replica's clock as it applies it.
func withoutTimes(v any) any {
	items, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(items))
	for i, it := range items {
		if i > 0 {
			if k, ok := items[i-1].(string); ok && (k == "created" || k == "last_access" || k == "expires") {
				out[i] = "<time>"
				continue
			}
		}
		out[i] = withoutTimes(it)
	}
	return out
}

// sameHotKVState compares what clients of want and got see of each family:
// lists, index contents, searches, cache lookups, memories, prompts.
// exactTimes: memories' times too (a full sync copies them).
func sameHotKVState(t *testing.T, want, got *harness.Conn, exactTimes bool) {
	t.Helper()
	same := func(args ...string) {
		t.Helper()
		w, g := want.Do(args...), got.Do(args...)
		if !exactTimes {
			w, g = withoutTimes(w), withoutTimes(g)
		}
		if !reflect.DeepEqual(w, g) {
			t.Errorf("%q: master %v, replica %v", args, w, g)
		}
	}
	for _, list := range []string{"VSIM.LIST", "SCACHE.LIST", "AMEM.LIST", "PCACHE.LIST"} {
		same(list)
	}
	for n, ix := range map[string]struct{ ids, query []string }{
		"idx":   {strings.Fields("a b c d e f g h during"), []string{"3", "1", "0.2", "0.1"}},
		"l2":    {[]string{"p", "q"}, []string{"2", "1", "1.5"}},
		"fresh": {[]string{"z"}, []string{"2", "1", "1.5"}},
	} {
		for _, id := range ix.ids {
			same("VSIM.GET", n, id)
		}
		search := append([]string{"VSIM.SEARCH", n, "VALUES"}, ix.query...)
		same(append(search, "K", "20", "WITHATTRIBS")...)
		if n == "idx" {
			same(append(search, "K", "20", "FILTER", ".year > 1995")...)
		}
	}
	for _, v := range [][]string{{"1", "0", "0"}, {"0", "1", "0"}, {"0", "0", "1"}, {"0.9", "0.1", "0"}} {
		same(append([]string{"SCACHE.LOOKUP", "sc", "VALUES", "3"}, v...)...)
	}
	same("AMEM.RANGE", "mem")
	same("AMEM.WORKING", "mem", "s1")
	for id := range 8 {
		same("AMEM.GET", "mem", fmt.Sprint(id+1))
	}
	for _, p := range [][]string{{"hi", "MODEL", "m1", "PARAMS", "1", "temperature", "0"}, {"bye"}, {"new"}, {"tx"}} {
		same(append([]string{"PCACHE.GET", "pc"}, p...)...)
	}
}

func TestReplicaOfHotKVState(t *testing.T) {
	harness.OutOfProcess(t)
	mp, m := harness.StartReplicaBinary(t)
	fillHotKVState(t, m)
	m.Do("SET", "k", "v")
	// The replica's own state before it follows the master is replaced.
	_, h := harness.StartReplicaBinary(t)
	h.Do("VSIM.CREATEINDEX", "mine", "DIM", "2")
	h.Do("PCACHE.CREATE", "mine")
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	harness.CaughtUp(t, m, h)
	// A replica of the replica gets it from the replica's full sync.
	_, h2 := harness.StartReplicaBinary(t)
	h2.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, h.NetConn.RemoteAddr().String()))
	chainCaughtUp(t, h, h2)
	for _, r := range []*harness.Conn{h, h2} {
		sameHotKVState(t, m, r, true)
	}

	// Every write after the sync applies on both replicas (before, each
	// failed there: the index or namespace did not exist).
	writeHotKVState(t, m)
	harness.CaughtUp(t, m, h)
	chainCaughtUp(t, h, h2)
	for _, r := range []*harness.Conn{h, h2} {
		sameHotKVState(t, m, r, false)
		if n := harness.InfoFields(t, r, "stats")["unexpected_error_replies"]; n != "0" {
			t.Errorf("unexpected_error_replies on a replica = %s", n)
		}
	}
	// The AI writes of the stream ran at the replica's clock, after the
	// master's; AT fixes a memory's creation time on both.
	if got := h.Do("AMEM.RANGE", "mem", "UNTIL", "1700000000000"); !strings.Contains(fmt.Sprint(got), "likes coffee") {
		t.Errorf("AMEM.RANGE mem UNTIL 1700000000000 on the replica: %v", got)
	}
	h.Expect(harness.Err("READONLY You can't write against a read only replica."), "VSIM.SET", "idx", "x", "VALUES", "3", "1", "1", "1")
	h.Expect(harness.Err("READONLY You can't write against a read only replica."), "AMEM.ADD", "mem", "x", "VALUES", "3", "1", "1", "1")

	// A second full sync replaces the middle replica's state with the
	// master's again. A new replication ID refuses its partial resync
	// whenever it reconnects (a write past the backlog raced the
	// reconnection and lost about half the time).
	m.Expect(harness.Status("OK"), "DEBUG", "CHANGE-REPL-ID")
	m.Do("CLIENT", "KILL", "TYPE", "replica")
	m.Do("VSIM.SET", "idx", "during", "VALUES", "3", "1", "1", "0")
	m.Do("SET", "after", "resync")
	harness.CaughtUp(t, m, h)
	harness.Eventually(t, "the second replica resynced", func() bool {
		return h2.Do("DEBUG", "DIGEST") == m.Do("DEBUG", "DIGEST") && h2.Do("VSIM.GET", "idx", "during") != nil
	})
	if n := harness.InfoFields(t, m, "stats")["sync_full"]; n != "2" {
		t.Errorf("the master's sync_full = %s, want 2", n)
	}
	for i, r := range []*harness.Conn{h, h2} {
		sameHotKVState(t, m, r, false)
		if got := r.Do("VSIM.GET", "idx", "during"); got == nil {
			t.Errorf("VSIM.GET idx during on replica %d after the second full sync: %v", i, got)
		}
	}
}

// An error applying the master's stream is logged as critical and counted
// (propagation-error-behavior ignore, the default); with
// panic-on-replicas a writable replica still only logs, and a read-only
// one exits, as Redis 8.0.2 panics.
func TestPropagationErrorBehavior(t *testing.T) {
	harness.OutOfProcess(t)
	mp, m := harness.StartReplicaBinary(t)
	m.Do("SET", "n", "1")
	logfile := filepath.Join(t.TempDir(), "replica.log")
	p, h := harness.StartReplicaBinary(t, "--logfile", logfile)
	h.Expect([]any{"propagation-error-behavior", "ignore"}, "CONFIG", "GET", "propagation-error-behavior")
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	harness.CaughtUp(t, m, h)
	readLog := func() string {
		b, err := os.ReadFile(logfile)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	critical := "== CRITICAL == This replica is sending an error to its master: 'ERR value is not an integer or out of range' after processing the command 'incr'"

	// The replica's copy of n diverges (writable for a moment): the
	// master's INCR fails there, is logged, and the stream goes on.
	h.Expect(harness.Status("OK"), "CONFIG", "SET", "replica-read-only", "no")
	h.Expect(harness.Status("OK"), "SET", "n", "not a number")
	m.Do("INCR", "n")
	m.Do("SET", "after", "1")
	harness.CaughtUp(t, m, h)
	if got := h.Do("GET", "after"); got != "1" {
		t.Fatalf("GET after on the replica = %v", got)
	}
	if n := harness.InfoFields(t, h, "stats")["unexpected_error_replies"]; n != "1" {
		t.Errorf("unexpected_error_replies = %s, want 1", n)
	}
	if l := readLog(); !strings.Contains(l, critical) {
		t.Errorf("no critical line in the replica's log:\n%s", l)
	}

	// panic-on-replicas on a writable replica: logged, not fatal.
	h.Expect(harness.Status("OK"), "CONFIG", "SET", "propagation-error-behavior", "panic-on-replicas")
	h.Expect([]any{"propagation-error-behavior", "panic-on-replicas"}, "CONFIG", "GET", "propagation-error-behavior")
	m.Do("INCR", "n")
	harness.CaughtUp(t, m, h)
	if n := harness.InfoFields(t, h, "stats")["unexpected_error_replies"]; n != "2" {
		t.Errorf("unexpected_error_replies = %s, want 2", n)
	}

	// Read-only again: the next such error stops the replica.
	h.Expect(harness.Status("OK"), "CONFIG", "SET", "replica-read-only", "yes")
	m.Do("MULTI")
	m.Do("SET", "x", "1")
	m.Do("INCR", "n")
	m.Do("EXEC")
	if code := p.Wait(t); code != 1 {
		t.Errorf("the replica exited with %d, want 1", code)
	}
	l := readLog()
	if !strings.Contains(l, "This replica panicked sending an error to its master after processing the command 'incr'") {
		t.Errorf("no panic line in the replica's log:\n%s", l)
	}
}

// propagation-error-behavior from a configuration file and the command
// line; CONFIG SET takes only its three values.
func TestPropagationErrorBehaviorConfig(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "hotkv.conf")
	if err := os.WriteFile(conf, []byte("propagation-error-behavior panic-on-replicas\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := harness.StartBinary(t, conf, "--dir", dir, "--save", "")
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	r.Expect([]any{"propagation-error-behavior", "panic-on-replicas"}, "CONFIG", "GET", "propagation-error-behavior")
	p2 := harness.StartBinary(t, "--propagation-error-behavior", "panic", "--dir", t.TempDir(), "--save", "")
	r2 := (&harness.Server{Addr: p2.Addr}).Raw(t)
	r2.Expect([]any{"propagation-error-behavior", "panic"}, "CONFIG", "GET", "propagation-error-behavior")
	r2.Expect(harness.Err("ERR CONFIG SET failed (possibly related to argument 'propagation-error-behavior') - argument(s) must be one of the following: ignore, panic, panic-on-replicas"),
		"CONFIG", "SET", "propagation-error-behavior", "bogus")
}

// A Redis 8.0.2 replica of a HotKV master with that state: its full sync
// skips the hotkv-snapshot AUX field, and of the stream it refuses the
// HotKV-only commands (logged on its side) and applies the rest, the key
// writes of a transaction that held both too.
func TestRedisReplicaSkipsHotKVState(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	s := harness.Start(t)
	r := s.Raw(t)
	fillHotKVState(t, r)
	r.Do("SET", "k", "v")
	r.Do("HSET", "h", "f", "v")
	host, port, _ := net.SplitHostPort(s.Addr)
	red, _ := startRedisWith(t, t.TempDir(), "--replicaof", host, port)
	rr := red.Raw(t)
	replicaUp(t, rr)
	digestsMatch(t, r, rr, "0")

	writeHotKVState(t, r)
	r.Do("SET", "after", "1")
	if got := r.Do("WAIT", "1", "5000"); got != int64(1) {
		t.Fatalf("WAIT 1 5000 = %v", got)
	}
	harness.Eventually(t, "equal digests", func() bool { return r.Do("DEBUG", "DIGEST") == rr.Do("DEBUG", "DIGEST") })
	if got := rr.Do("GET", "tx-key"); got != "1" {
		t.Errorf("GET tx-key on the Redis replica = %v", got)
	}
	info := harness.InfoFields(t, rr, "replication")
	if info["master_link_status"] != "up" {
		t.Errorf("Redis replica: %v", info)
	}
	if n, _ := strconv.Atoi(harness.InfoFields(t, rr, "stats")["unexpected_error_replies"]); n == 0 {
		t.Error("the Redis replica refused none of the HotKV-only commands")
	}
	s.NoPanics(t)
}

// A command of the append-only log that fails on replay (here a record
// added by hand: INCR of a string) is logged as critical and counted; with
// propagation-error-behavior panic the load stops and the server exits,
// as Redis panics (panic-on-replicas leaves the log alone).
func TestPropagationErrorBehaviorAOF(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", ""}
	p := harness.StartBinary(t, args...)
	if err := p.Client(t).Set(context.Background(), "k", "abc", 0).Err(); err != nil {
		t.Fatal(err)
	}
	harness.PersistKill(t, p)
	rec, start := persist.BeginRecord(nil)
	rec = persist.AppendCommand(rec, 0, time.Now().UnixMilli(), [][]byte{[]byte("INCR"), []byte("k")})
	f, err := os.OpenFile(harness.PersistLogFile(t, dir), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(persist.SealRecord(rec, start)); err != nil {
		t.Fatal(err)
	}
	f.Close()

	out := harness.PersistMustFail(t, harness.Binary(t), append(args, "--port", "0", "--propagation-error-behavior", "panic")...)
	for _, want := range []string{
		"== CRITICAL == This server is sending an error to its AOF-loading-client: 'ERR value is not an integer or out of range' after processing the command 'incr'",
		"This server panicked sending an error to its AOF-loading-client after processing the command 'incr'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the output:\n%s", want, out)
		}
	}
	p = harness.StartBinary(t, append(args, "--propagation-error-behavior", "panic-on-replicas")...)
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	r.Expect("abc", "GET", "k")
	if n := harness.InfoFields(t, r, "stats")["unexpected_error_replies"]; n != "1" {
		t.Errorf("unexpected_error_replies = %s, want 1", n)
	}
}
