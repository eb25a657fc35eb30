package tests

import (
	"strconv"
	"testing"
	"time"
)

// WAIT and WAITAOF as on a Redis primary without replicas: compared with
// Redis 8.0.2, errors, immediate answers, timeouts, MULTI and scripts.
func TestDifferentialWait(t *testing.T) {
	differ(t, [][]string{
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
	redis := startRedis(t, "--appendonly", "yes")
	hot := start(t, "--appendonly", "yes", "--dir", t.TempDir())
	for _, srv := range []*testServer{hot, redis} {
		r := srv.raw(t)
		r.expect(Status("OK"), "SET", "k", "v")
		r.expect([]any{int64(1), int64(0)}, "WAITAOF", "1", "0", "0")
		r.expect([]any{int64(1), int64(0)}, "WAITAOF", "0", "0", "0")
		start := time.Now()
		r.expect([]any{int64(1), int64(0)}, "WAITAOF", "1", "1", "50")
		if d := time.Since(start); d < 50*time.Millisecond {
			t.Fatalf("%s: WAITAOF for a replica answered after %v, before its timeout", srv.Addr, d)
		}
	}
}

// A WAIT for a replica that never comes lasts until CLIENT UNBLOCK, which
// answers 0 (TIMEOUT) or the error (ERROR), as in Redis; the client stays
// usable.
func TestWaitBlocksUntilUnblocked(t *testing.T) {
	hot := start(t)
	a, b := hot.raw(t), hot.raw(t)
	id := strconv.FormatInt(a.do("CLIENT", "ID").(int64), 10)
	a.send(encode("WAIT", "1", "0"))
	eventually(t, "WAIT to block", func() bool { return hot.infoInt(t, "clients", "blocked_clients") == 1 })
	b.expect(int64(1), "CLIENT", "UNBLOCK", id)
	a.expectRead(int64(0))
	a.send(encode("WAIT", "1", "0"))
	eventually(t, "WAIT to block", func() bool { return hot.infoInt(t, "clients", "blocked_clients") == 1 })
	b.expect(int64(1), "CLIENT", "UNBLOCK", id, "ERROR")
	a.expectRead(Err("UNBLOCKED client unblocked via CLIENT UNBLOCK"))
	a.expect(Status("PONG"), "PING")
	hot.noPanics(t)
}
