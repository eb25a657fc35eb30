package replication

import (
	"strings"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// FAILOVER on a Redis 8.0.2 master hands over to its HotKV replica: the
// master sends PSYNC <replid> <offset> FAILOVER, which makes the HotKV
// replica a master, and then follows it; nothing written before is lost
// and HotKV's writes reach Redis.
func TestFailoverFromRedisToHotKV(t *testing.T) {
	rs := harness.StartRedis(t)
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
