package replication

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// FAILOVER on a Redis 8.0.2 master hands over to its HotKV replica: the
// master sends PSYNC <replid> <offset> FAILOVER, which makes the HotKV
// replica a master, and then follows it; nothing written before is lost
// and HotKV's writes reach Redis.
func TestFailoverFromRedisToHotKV(t *testing.T) {
	rs := harness.StartRedis(t, "--repl-diskless-sync-delay", "0")
	r := rs.Raw(t)
	hs := harness.Start(t, "--replicaof", "127.0.0.1", harness.Port(rs.Addr))
	h := hs.Raw(t)
	for i := range 100 {
		r.Expect(harness.Status("OK"), "SET", "k"+strings.Repeat("x", i%7)+string(rune('a'+i%26)), "v")
	}
	r.Expect(harness.Status("OK"), "SET", "before", "1")
	harness.CaughtUp(t, r, h)
	r.Expect(harness.Status("OK"), "FAILOVER", "TO", "127.0.0.1", harness.Port(hs.Addr), "TIMEOUT", "10000")
	harness.Eventually(t, "HotKV to become the master and Redis its replica", func() bool {
		hf, rf := harness.InfoFields(t, h, "replication"), harness.InfoFields(t, r, "replication")
		return hf["role"] == "master" && rf["role"] == "slave" && rf["master_port"] == harness.Port(hs.Addr) &&
			rf["master_link_status"] == "up" && rf["master_failover_state"] == "no-failover"
	})
	h.Expect("1", "GET", "before")
	h.Expect(harness.Status("OK"), "SET", "after", "2")
	harness.CaughtUp(t, h, r)
	r.Expect("2", "GET", "after")
	if n, m := h.Do("DBSIZE"), r.Do("DBSIZE"); n != m {
		t.Fatalf("DBSIZE: HotKV %v, Redis %v", n, m)
	}
}

// PSYNC ... FAILOVER is refused by a master and for another history, with
// Redis's errors; PSYNC takes extra arguments as Redis's does.
func TestPsyncFailoverErrors(t *testing.T) {
	m := harness.Start(t)
	c := m.Raw(t)
	c.Expect(harness.Err("ERR PSYNC FAILOVER can't be sent to a master."), "PSYNC", "x", "1", "FAILOVER")
	rep := harness.Start(t, "--replicaof", "127.0.0.1", harness.Port(m.Addr))
	rc := rep.Raw(t)
	harness.CaughtUp(t, c, rc)
	rc.Expect(harness.Err("ERR PSYNC FAILOVER replid must match my replid."), "PSYNC", strings.Repeat("0", 40), "1", "FAILOVER")
	if role := harness.InfoFields(t, rc, "replication")["role"]; role != "slave" {
		t.Fatalf("a refused PSYNC FAILOVER changed the role to %s", role)
	}
}

// FAILOVER's argument and state errors are Redis 8.0.2's, in Redis's
// order (the arguments first, then the state).
func TestDifferentialFailoverErrors(t *testing.T) {
	harness.Differ(t, [][]string{
		{"FAILOVER"},
		{"FAILOVER", "ABORT"},
		{"FAILOVER", "TIMEOUT", "0"},
		{"FAILOVER", "TIMEOUT", "-5"},
		{"FAILOVER", "TIMEOUT", "x"},
		{"FAILOVER", "TIMEOUT"},
		{"FAILOVER", "TIMEOUT", "10", "TIMEOUT", "20"},
		{"FAILOVER", "TO", "127.0.0.1"},
		{"FAILOVER", "TO", "127.0.0.1", "port"},
		{"FAILOVER", "FORCE"},
		{"FAILOVER", "FORCE", "FORCE"},
		{"FAILOVER", "ABORT", "TIMEOUT", "5"},
		{"FAILOVER", "SOON"},
		{"FAILOVER", "TO", "127.0.0.1", "1", "TIMEOUT", "100"},
	})
}

// FAILOVER between HotKV servers: writes are held from FAILOVER on and,
// once the replica has taken over, answered as a replica answers them
// (READONLY); the replica is a master with every write acknowledged before
// it, and the old master follows it.
func TestFailoverToHotKV(t *testing.T) {
	ms := harness.Start(t)
	m := ms.Raw(t)
	rs := harness.Start(t, "--replicaof", "127.0.0.1", harness.Port(ms.Addr))
	r := rs.Raw(t)
	for i := range 50 {
		m.Expect(harness.Status("OK"), "SET", "k"+strconv.Itoa(i), "v")
	}
	harness.CaughtUp(t, m, r)
	writer := ms.Raw(t)
	m.Expect(harness.Status("OK"), "FAILOVER")
	if st := harness.InfoFields(t, m, "replication")["master_failover_state"]; st != "waiting-for-sync" && st != "failover-in-progress" && st != "no-failover" {
		t.Fatalf("master_failover_state %q", st)
	}
	if got := writer.Do("SET", "late", "x"); !reflect.DeepEqual(got, harness.Err("READONLY You can't write against a read only replica.")) {
		t.Fatalf("a write held by FAILOVER: %v", got)
	}
	harness.Eventually(t, "the replica to take over and the master to follow it", func() bool {
		mf, rf := harness.InfoFields(t, m, "replication"), harness.InfoFields(t, r, "replication")
		return rf["role"] == "master" && mf["role"] == "slave" && mf["master_port"] == harness.Port(rs.Addr) &&
			mf["master_link_status"] == "up" && mf["master_failover_state"] == "no-failover"
	})
	if n := r.Do("DBSIZE"); n != int64(50) {
		t.Fatalf("the new master has %v keys, want 50", n)
	}
	r.Expect(harness.Status("OK"), "SET", "after", "1")
	harness.CaughtUp(t, r, m)
	m.Expect("1", "GET", "after")
	m.Expect(harness.Err("ERR FAILOVER is not valid when server is a replica."), "FAILOVER")
}

// FAILOVER from HotKV to a Redis 8.0.2 replica: HotKV's PSYNC ... FAILOVER
// makes Redis the master, and HotKV follows it.
func TestFailoverFromHotKVToRedis(t *testing.T) {
	ms := harness.Start(t)
	m := ms.Raw(t)
	rs := harness.StartRedis(t, "--replicaof", "127.0.0.1", harness.Port(ms.Addr))
	r := rs.Raw(t)
	m.Expect(harness.Status("OK"), "SET", "before", "1")
	harness.CaughtUp(t, m, r)
	m.Expect(harness.Status("OK"), "FAILOVER", "TO", "127.0.0.1", harness.Port(rs.Addr))
	harness.Eventually(t, "Redis to take over and HotKV to follow it", func() bool {
		mf, rf := harness.InfoFields(t, m, "replication"), harness.InfoFields(t, r, "replication")
		return rf["role"] == "master" && mf["role"] == "slave" && mf["master_port"] == harness.Port(rs.Addr) &&
			mf["master_link_status"] == "up"
	})
	r.Expect("1", "GET", "before")
	r.Expect(harness.Status("OK"), "SET", "after", "2")
	harness.CaughtUp(t, r, m)
	m.Expect("2", "GET", "after")
}

// A replica that never acknowledges: FAILOVER waits with writes held
// (CLIENT UNPAUSE does not release them), until its TIMEOUT (then gives
// up, writes go on) or FAILOVER ABORT;
// REPLICAOF and new replicas wait for it too.
func TestFailoverTimeoutAndAbort(t *testing.T) {
	ms := harness.Start(t)
	m := ms.Raw(t)
	fake := ms.Raw(t) // a replica in name only: it reads nothing and acknowledges nothing
	fake.Expect(harness.Status("OK"), "REPLCONF", "listening-port", "1")
	fake.Send(harness.Encode("SYNC"))
	harness.Eventually(t, "the fake replica attached", func() bool {
		return harness.InfoFields(t, m, "replication")["connected_slaves"] == "1"
	})
	m.Expect(harness.Status("OK"), "SET", "k", "1")
	m.Expect(harness.Status("OK"), "FAILOVER", "TIMEOUT", "300")
	if st := harness.InfoFields(t, m, "replication")["master_failover_state"]; st != "waiting-for-sync" {
		t.Fatalf("master_failover_state %q, want waiting-for-sync", st)
	}
	m.Expect(harness.Err("ERR FAILOVER already in progress."), "FAILOVER")
	m.Expect(harness.Err("ERR REPLICAOF not allowed while failing over."), "REPLICAOF", "127.0.0.1", "1")
	other := ms.Raw(t)
	other.Expect(harness.Err("NOMASTERLINK Can't SYNC while failing over"), "PSYNC", "?", "-1")
	m.Expect(harness.Status("OK"), "CLIENT", "UNPAUSE") // lifts a client pause, not FAILOVER's hold
	w := ms.Raw(t)
	start := time.Now()
	w.Expect(harness.Status("OK"), "SET", "k", "2") // held until the timeout gives up
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("a write ran %v into a FAILOVER that held writes", d)
	}
	harness.Eventually(t, "the failover to give up", func() bool {
		return harness.InfoFields(t, m, "replication")["master_failover_state"] == "no-failover"
	})
	if role, ok := m.Do("ROLE").([]any); !ok || role[0] != "master" {
		t.Fatalf("ROLE after the failover gave up: %v", m.Do("ROLE"))
	}
	m.Expect(harness.Status("OK"), "FAILOVER")
	m.Expect(harness.Status("OK"), "FAILOVER", "ABORT")
	m.Expect(harness.Status("OK"), "SET", "k", "3")
	m.Expect(harness.Err("ERR No failover in progress."), "FAILOVER", "ABORT")
}

// FAILOVER ... FORCE to a replica that is gone by the time it hands over:
// the link to it fails before its PSYNC, and the server is a master again,
// writes going on.
func TestFailoverForceToGoneReplica(t *testing.T) {
	ms := harness.Start(t)
	m := ms.Raw(t)
	fake := ms.Raw(t)
	port := strconv.Itoa(harness.FreePort(t)) // nothing listens there
	fake.Expect(harness.Status("OK"), "REPLCONF", "listening-port", port)
	fake.Send(harness.Encode("PSYNC", "?", "-1"))
	harness.Eventually(t, "the fake replica online", func() bool {
		return strings.Contains(harness.InfoFields(t, m, "replication")["slave0"], "state=online")
	})
	m.Expect(harness.Status("OK"), "SET", "k", "1")
	m.Expect(harness.Status("OK"), "FAILOVER", "TO", "127.0.0.1", port, "TIMEOUT", "200", "FORCE")
	harness.Eventually(t, "the failover to give up", func() bool {
		f := harness.InfoFields(t, m, "replication")
		return f["master_failover_state"] == "no-failover" && f["role"] == "master"
	})
	m.Expect(harness.Status("OK"), "SET", "k", "2")
}
