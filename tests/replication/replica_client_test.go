package replication

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// The master's client on a HotKV replica: what it applies counts as the
// server's writes and calls, as Redis's master client's do, and CLIENT
// LIST and CLIENT KILL show and reach it (Redis's test suite breaks the
// link with CLIENT KILL <master addr> to test partial resyncs).

// TestReplicaCountsMasterWrites: the master's writes count in the
// replica's rdb_changes_since_last_save and commandstats. They did not, so
// a replica's save points never saved what its master sent.
func TestReplicaCountsMasterWrites(t *testing.T) {
	harness.OutOfProcess(t)
	mp, m := harness.StartReplicaBinary(t)
	_, h := harness.StartReplicaBinary(t)
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	harness.CaughtUp(t, m, h)
	base := harness.InfoFields(t, h, "persistence")["rdb_changes_since_last_save"]
	m.Do("SET", "a", "1")
	m.Do("SET", "b", "2")
	m.Do("INCR", "n")
	harness.CaughtUp(t, m, h)
	if got := harness.InfoFields(t, h, "persistence")["rdb_changes_since_last_save"]; base != "0" || got != "3" {
		t.Errorf("replica's rdb_changes_since_last_save: %s after the sync, %s after SET, SET, INCR (want 0 and 3)", base, got)
	}
	if got := harness.InfoFields(t, h, "commandstats")["cmdstat_set"]; !strings.HasPrefix(got, "calls=2,") {
		t.Errorf("replica's cmdstat_set = %q, want calls=2", got)
	}
}

// TestReplicaSavesMasterWrites: a replica with save points saves the data
// its master sends.
func TestReplicaSavesMasterWrites(t *testing.T) {
	harness.OutOfProcess(t)
	mp, m := harness.StartReplicaBinary(t)
	_, h := harness.StartReplicaBinary(t, "--save", "1 1")
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	harness.CaughtUp(t, m, h)
	saves := harness.InfoFields(t, h, "persistence")["rdb_saves"]
	m.Do("SET", "k", "v")
	harness.CaughtUp(t, m, h)
	harness.Eventually(t, "the replica's save point saving the master's write", func() bool {
		f := harness.InfoFields(t, h, "persistence")
		return f["rdb_saves"] != saves && f["rdb_changes_since_last_save"] == "0"
	})
}

// TestReplicaClientKillMaster: CLIENT LIST shows the master's client
// (flags=M), CLIENT KILL in each form closes the link, and the replica
// continues from its offset (a partial resync), as in Redis.
func TestReplicaClientKillMaster(t *testing.T) {
	harness.OutOfProcess(t)
	mp, m := harness.StartReplicaBinary(t)
	_, h := harness.StartReplicaBinary(t)
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	harness.CaughtUp(t, m, h)
	list, _ := h.Do("CLIENT", "LIST", "TYPE", "master").(string)
	if !harness.ContainsAll(list, "addr="+mp.Addr+" ", " flags=M ", " user=(superuser) ") || strings.Count(list, "\n") != 1 {
		t.Fatalf("CLIENT LIST TYPE master on the replica:\n%s", list)
	}
	if normal, _ := h.Do("CLIENT", "LIST", "TYPE", "normal").(string); strings.Contains(normal, "flags=M") {
		t.Errorf("CLIENT LIST TYPE normal lists the master:\n%s", normal)
	}
	for i, kill := range [][]string{
		{"CLIENT", "KILL", "TYPE", "master"},
		{"CLIENT", "KILL", mp.Addr},
		{"CLIENT", "KILL", "ADDR", mp.Addr, "SKIPME", "yes"},
	} {
		want := any(int64(1))
		if len(kill) == 3 {
			want = harness.Status("OK")
		}
		h.Expect(want, kill...)
		m.Do("SET", "after", strings.Repeat("x", i+1))
		harness.CaughtUp(t, m, h)
		if got := h.Do("GET", "after"); got != strings.Repeat("x", i+1) {
			t.Fatalf("after %v: GET after on the replica = %v", kill, got)
		}
		if st := harness.InfoFields(t, m, "stats"); st["sync_full"] != "1" || st["sync_partial_ok"] != strconv.Itoa(i+1) {
			t.Errorf("after %v: master's sync_full %s, sync_partial_ok %s (want 1 and %d)", kill, st["sync_full"], st["sync_partial_ok"], i+1)
		}
	}
}

// TestDebugReplicate: DEBUG REPLICATE sends a command to the replicas only,
// as Redis's, for tests of what a replica does with one it cannot run
// (Redis's "Data divergence can happen under default conditions").
func TestDebugReplicate(t *testing.T) {
	harness.OutOfProcess(t)
	mp, m := harness.StartReplicaBinary(t)
	_, h := harness.StartReplicaBinary(t)
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	harness.CaughtUp(t, m, h)
	m.Expect(harness.Status("OK"), "DEBUG", "REPLICATE", "set", "only-on-replica", "1")
	m.Expect(harness.Status("OK"), "DEBUG", "REPLICATE", "fake-command-1")
	harness.CaughtUp(t, m, h)
	m.Expect(nil, "GET", "only-on-replica")
	h.Expect("1", "GET", "only-on-replica")
	if n := harness.InfoFields(t, h, "stats")["unexpected_error_replies"]; n != "1" {
		t.Errorf("replica's unexpected_error_replies = %s, want 1", n)
	}
	m.Expect(harness.Err("ERR unknown subcommand or wrong number of arguments for 'REPLICATE'. Try DEBUG HELP."), "DEBUG", "REPLICATE")
}

// TestReplicaOfUnblocksClients: a server turned into a replica ends its
// clients' blocking commands with Redis's UNBLOCKED error, and closes them. A BLPOP left
// waiting popped what the new master's stream pushed, and the replica's
// list lost the element its master kept (Redis's "BLPOP followed by role
// change, issue #2473").
func TestReplicaOfUnblocksClients(t *testing.T) {
	harness.OutOfProcess(t)
	mp, m := harness.StartReplicaBinary(t)
	hp, h := harness.StartReplicaBinary(t)
	b := (&harness.Server{Addr: hp.Addr}).Raw(t)
	b.Send(harness.Encode("BLPOP", "foo", "0"))
	harness.Eventually(t, "BLPOP blocked", func() bool { return harness.InfoFields(t, h, "clients")["blocked_clients"] == "1" })
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	b.ClosedAfter(harness.Err("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"))
	harness.CaughtUp(t, m, h)
	m.Do("RPUSH", "foo", "a", "b", "c")
	harness.CaughtUp(t, m, h)
	h.Expect([]any{"a", "b", "c"}, "LRANGE", "foo", "0", "-1")
	if got := harness.InfoFields(t, h, "commandstats")["cmdstat_blpop"]; !strings.Contains(got, "calls=1,") || !strings.HasSuffix(got, "failed_calls=1") {
		t.Errorf("cmdstat_blpop = %q, want calls=1 and failed_calls=1", got)
	}
}
