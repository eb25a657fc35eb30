package replication

import (
	"strconv"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// WAIT and WAITAOF as on a Redis primary without replicas: compared with
// Redis 8.0.2, errors, immediate answers, timeouts, MULTI and scripts.
func TestDifferentialWait(t *testing.T) {
	harness.Differ(t, [][]string{
		{"WAIT", "0", "0"}, {"WAIT", "-3", "0"}, {"WAIT", "1", "20"}, {"WAIT", "x", "0"}, {"WAIT", "1", "-1"},
		{"WAIT", "1", "x"}, {"WAIT", "1", "9223372036854775807"}, {"WAIT", "1"},
		{"WAITAOF", "0", "0", "0"}, {"WAITAOF", "1", "0", "0"}, {"WAITAOF", "0", "1", "20"}, {"WAITAOF", "2", "0", "0"},
		{"WAITAOF", "-1", "0", "0"}, {"WAITAOF", "0", "-1", "0"}, {"WAITAOF", "x", "0", "0"}, {"WAITAOF", "0", "x", "0"},
		{"WAITAOF", "0", "0", "-5"},
		{"MULTI"}, {"WAIT", "5", "0"}, {"WAITAOF", "0", "5", "0"}, {"EXEC"},
		{"EVAL", "return redis.call('wait', 5, 0)", "0"},
		{"EVAL", "return redis.call('waitaof', 0, 5, 0)", "0"},
	})
}

func TestDifferentialWaitAOF(t *testing.T) {
	redis := harness.StartRedis(t, "--appendonly", "yes")
	hot := harness.Start(t, "--appendonly", "yes", "--dir", t.TempDir())
	for _, srv := range []*harness.Server{hot, redis} {
		r := srv.Raw(t)
		r.Expect(harness.Status("OK"), "SET", "k", "v")
		r.Expect([]any{int64(1), int64(0)}, "WAITAOF", "1", "0", "0")
		r.Expect([]any{int64(1), int64(0)}, "WAITAOF", "0", "0", "0")
		start := time.Now()
		r.Expect([]any{int64(1), int64(0)}, "WAITAOF", "1", "1", "50")
		if d := time.Since(start); d < 50*time.Millisecond {
			t.Fatalf("%s: WAITAOF for a replica answered after %v, before its timeout", srv.Addr, d)
		}
	}
}

// A WAIT for a replica that never comes lasts until CLIENT UNBLOCK, which
// answers 0 (TIMEOUT) or the error (ERROR), as in Redis; the client stays
// usable.
func TestWaitBlocksUntilUnblocked(t *testing.T) {
	hot := harness.Start(t)
	a, b := hot.Raw(t), hot.Raw(t)
	id := strconv.FormatInt(a.Do("CLIENT", "ID").(int64), 10)
	a.Send(harness.Encode("WAIT", "1", "0"))
	harness.Eventually(t, "WAIT to block", func() bool { return hot.InfoInt(t, "clients", "blocked_clients") == 1 })
	b.Expect(int64(1), "CLIENT", "UNBLOCK", id)
	a.ExpectRead(int64(0))
	a.Send(harness.Encode("WAIT", "1", "0"))
	harness.Eventually(t, "WAIT to block", func() bool { return hot.InfoInt(t, "clients", "blocked_clients") == 1 })
	b.Expect(int64(1), "CLIENT", "UNBLOCK", id, "ERROR")
	a.ExpectRead(harness.Err("UNBLOCKED client unblocked via CLIENT UNBLOCK"))
	a.Expect(harness.Status("PONG"), "PING")
	hot.NoPanics(t)
}
