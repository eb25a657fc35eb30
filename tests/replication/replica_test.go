package replication

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// HotKV as a replica of a real Redis 8.0.2 (docs/replication.md, "HotKV as
// a replica"). The replica runs as its own process: a replica stops key
// expiry process-wide, which would change the in-process servers of other
// tests.

// chainCaughtUp waits for a replica of a replica to have its master's data.
// The middle one's own stream has offsets of its own (its master's PINGs
// are not in it, its own PINGs are), so the offsets do not compare.
func chainCaughtUp(t *testing.T, middle, replica *harness.Conn) {
	t.Helper()
	harness.Eventually(t, "the replica of the replica caught up", func() bool {
		return harness.InfoFields(t, replica, "replication")["master_link_status"] == "up" &&
			replica.Do("DEBUG", "DIGEST") == middle.Do("DEBUG", "DIGEST")
	})
}

func TestReplicaOfRedis(t *testing.T) {
	harness.OutOfProcess(t)
	for _, diskless := range []string{"yes", "no"} {
		t.Run("repl-diskless-sync "+diskless, func(t *testing.T) {
			bin := harness.PeerPath("redis8-server")
			if bin == "" {
				t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
			}
			ms := harness.StartPeer(t, bin, t.TempDir(), "--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0")
			m := ms.Raw(t)
			harness.FillEveryType(t, m, true)
			_, h := harness.StartReplicaBinary(t)
			h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, ms.Addr))
			h.Expect(harness.Status("OK Already connected to specified master"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, ms.Addr))
			harness.CaughtUp(t, m, h)
			harness.SameData(t, m, h, 16, true)

			// ROLE, INFO, read-only.
			role, _ := h.Do("ROLE").([]any)
			if len(role) != 5 || role[0] != "slave" || role[1] != "127.0.0.1" || role[3] != "connected" {
				t.Fatalf("ROLE %v", role)
			}
			inf := harness.InfoFields(t, h, "replication")
			for k, v := range map[string]string{"role": "slave", "master_host": "127.0.0.1", "master_port": harness.PortOf(t, ms.Addr),
				"master_sync_in_progress": "0", "slave_read_only": "1", "master_replid": harness.InfoFields(t, m, "replication")["master_replid"]} {
				if inf[k] != v {
					t.Errorf("INFO replication %s=%q, want %q", k, inf[k], v)
				}
			}
			h.Expect(harness.Err("READONLY You can't write against a read only replica."), "SET", "k", "v")
			h.Expect(harness.Status("OK"), "MULTI")
			h.Expect(harness.Err("READONLY You can't write against a read only replica."), "SET", "k", "v")
			h.Expect(harness.Err("EXECABORT Transaction discarded because of previous errors."), "EXEC")
			h.Expect([]any{"replicaof", "127.0.0.1 " + harness.PortOf(t, ms.Addr)}, "CONFIG", "GET", "replicaof")
			h.Expect(harness.Err("READONLY You can't write against a read only replica. script: 5c4d62f4e30c54fb15935b5892148e5ce7374077, on @user_script:1."), "EVAL", "return redis.call('SET', 'k', 'v')", "0")
			h.Expect("v", "EVAL", "return redis.call('GET', 's:raw') and 'v'", "0")
			h.Expect(harness.Err("READONLY You can't write against a read only replica."), "FCALL", "myfunc", "0", "x")
			h.Expect("r", "EVAL", "#!lua flags=no-writes\nreturn 'r'", "0")
			h.Expect(harness.Err("READONLY You can't write against a read only replica."), "EVAL", "#!lua\nreturn 'r'", "0")

			// The master's writes stream over.
			for _, c := range [][]string{
				{"SET", "new", "1"}, {"INCRBY", "new", "41"}, {"EXPIRE", "new", "1000"}, {"DEL", "l:small"},
				{"MULTI"}, {"LPUSH", "tx", "a"}, {"SADD", "set:lp", "z"}, {"HSET", "h:lp", "f3", "v3"}, {"EXEC"},
				{"EVAL", "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('INCR', KEYS[2])", "2", "lua1", "lua2", "hello"},
				{"FCALL", "myfunc", "0", "x"},
				{"SELECT", "3"}, {"SET", "db3", "x"}, {"ZADD", "z3", "1", "a"},
				{"SELECT", "9"}, {"FLUSHDB"}, {"SELECT", "0"},
				{"XADD", "st", "9-1", "f", "v"}, {"XACK", "st", "g1", "1-1"},
				{"HPEXPIRE", "h:ht", "500000", "FIELDS", "1", "f9"},
				{"SET", "short", "v", "PX", "300"},
			} {
				if e, ok := m.Do(c...).(harness.Err); ok {
					t.Fatalf("%v on the master: %s", c, e)
				}
			}
			harness.CaughtUp(t, m, h)
			harness.SameData(t, m, h, 16, true)

			// Expiry is the master's: the replica hides the key once its
			// time has passed, and drops it when the master's DEL comes.
			time.Sleep(400 * time.Millisecond)
			h.Expect(int64(0), "EXISTS", "short")
			m.Do("GET", "short") // the master expires it on access and sends DEL
			harness.CaughtUp(t, m, h)
			harness.SameData(t, m, h, 16, true)

			// A dropped link reconnects and continues from where it
			// stopped (PSYNC replid offset: +CONTINUE, no new full sync),
			// in the database the stream had selected: the master sends
			// no SELECT for the write after the drop.
			m.Do("SELECT", "5")
			m.Do("SET", "in5", "x")
			harness.CaughtUp(t, m, h)
			m.Do("CLIENT", "KILL", "TYPE", "replica")
			m.Do("SET", "in5-after-kill", "y")
			m.Do("SELECT", "0")
			m.Do("SET", "after-kill", "1")
			harness.CaughtUp(t, m, h)
			harness.SameData(t, m, h, 16, true)
			if st := harness.InfoFields(t, m, "stats"); st["sync_full"] != "1" || st["sync_partial_ok"] != "1" {
				t.Errorf("the master's sync counts after the drop: sync_full %s, sync_partial_ok %s (want 1 and 1)", st["sync_full"], st["sync_partial_ok"])
			}

			// Every command of the stream applied without an error.
			if n := harness.InfoFields(t, h, "stats")["unexpected_error_replies"]; n != "0" {
				t.Errorf("unexpected_error_replies = %s", n)
			}

			// REPLICAOF NO ONE: a master again, with the data.
			h.Expect(harness.Status("OK"), "REPLICAOF", "NO", "ONE")
			h.Expect([]any{"master", int64(0), []any{}}, "ROLE")
			replid := harness.InfoFields(t, m, "replication")["master_replid"]
			if f := harness.InfoFields(t, h, "replication"); f["role"] != "master" || f["master_replid2"] != replid || f["master_replid"] == replid {
				t.Fatalf("INFO replication after REPLICAOF NO ONE: %v (the master's replid %s)", f, replid)
			}
			h.Expect(harness.Status("OK"), "SET", "k", "v")
			h.Expect("1", "GET", "after-kill")
		})
	}
}

// TestReplicaOfConfig starts a replica from the replicaof directive,
// authenticating with masteruser/masterauth.
func TestReplicaOfConfig(t *testing.T) {
	harness.OutOfProcess(t)
	bin := harness.PeerPath("redis8-server")
	if bin == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	ms := harness.StartPeer(t, bin, t.TempDir(), "--repl-diskless-sync-delay", "0")
	m := ms.Raw(t)
	m.Expect(harness.Status("OK"), "ACL", "SETUSER", "repl", "on", ">secret", "+@all", "~*")
	m.Expect(harness.Status("OK"), "CONFIG", "SET", "requirepass", "pw")
	m.Expect(harness.Status("OK"), "AUTH", "pw")
	m.Expect(harness.Status("OK"), "SET", "a", "1")
	_, h := harness.StartReplicaBinary(t, "--replicaof", "127.0.0.1", harness.PortOf(t, ms.Addr), "--masteruser", "repl", "--masterauth", "secret")
	harness.CaughtUp(t, m, h)
	h.Expect("1", "GET", "a")
	h.Expect([]any{"replicaof", "127.0.0.1 " + harness.PortOf(t, ms.Addr)}, "CONFIG", "GET", "replicaof")

	// A wrong password: the link stays down, and says so.
	_, h2 := harness.StartReplicaBinary(t, "--replicaof", "127.0.0.1", harness.PortOf(t, ms.Addr), "--masterauth", "wrong")
	time.Sleep(500 * time.Millisecond)
	if f := harness.InfoFields(t, h2, "replication"); f["master_link_status"] != "down" || f["role"] != "slave" {
		t.Fatalf("INFO replication with a wrong password: %v", f)
	}
	h2.Expect(harness.Err("READONLY You can't write against a read only replica."), "SET", "k", "v")
	h2.Expect(harness.Status("OK"), "CONFIG", "SET", "replica-read-only", "no")
	h2.Expect(harness.Status("OK"), "SET", "k", "v")
}

// TestReplicaOfValkey replicates a Valkey 8.1.1 master.
func TestReplicaOfValkey(t *testing.T) {
	harness.OutOfProcess(t)
	bin := harness.PeerPath("valkey-server")
	if bin == "" {
		t.Skip("valkey-server not installed (run ../shared/peers/install.sh)")
	}
	ms := harness.StartPeer(t, bin, t.TempDir(), "--repl-diskless-sync-delay", "0")
	m := ms.Raw(t)
	harness.FillEveryType(t, m, false)
	_, h := harness.StartReplicaBinary(t, "--replicaof", "127.0.0.1", harness.PortOf(t, ms.Addr))
	harness.CaughtUp(t, m, h)
	harness.SameData(t, m, h, 16, false)
	for _, c := range [][]string{{"SET", "new", "1"}, {"EXPIRE", "new", "100"}, {"MULTI"}, {"LPUSH", "tx", "a"}, {"INCR", "n"}, {"EXEC"},
		{"EVAL", "return redis.call('SET', KEYS[1], ARGV[1])", "1", "lua", "v"}, {"SELECT", "2"}, {"FLUSHDB"}} {
		m.Do(c...)
	}
	harness.CaughtUp(t, m, h)
	harness.SameData(t, m, h, 16, false)
}

// A HotKV replica of a HotKV master, and a replica of that replica: every
// type, a vector set (which travels in the hotkv-snapshot AUX field, RDB
// having no form for it) and the writes after the sync reach both.
func TestReplicaOfHotKV(t *testing.T) {
	harness.OutOfProcess(t)
	mp, m := harness.StartReplicaBinary(t)
	harness.FillEveryType(t, m, true)
	m.Expect(int64(1), "VADD", "vs", "VALUES", "2", "1", "2", "a")
	_, h := harness.StartReplicaBinary(t)
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	harness.CaughtUp(t, m, h)
	_, h2 := harness.StartReplicaBinary(t)
	h2.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, h.NetConn.RemoteAddr().String()))
	chainCaughtUp(t, h, h2)
	for _, w := range [][]string{
		{"INCRBY", "s:int", "5"}, {"SET", "new", "v", "PX", "100000"}, {"LPUSH", "new:l", "a", "b"},
		{"HSET", "new:h", "f", "v"}, {"VADD", "vs", "VALUES", "2", "3", "4", "b"}, {"DEL", "s:raw"},
		{"EVAL", "redis.call('set', 'lua', '1') return redis.call('incr', 'lua')", "0"},
	} {
		m.Do(w...)
	}
	m.Expect(harness.Status("OK"), "MULTI")
	m.Expect(harness.Status("QUEUED"), "SET", "tx:a", "1")
	m.Expect(harness.Status("QUEUED"), "SELECT", "5")
	m.Expect(harness.Status("QUEUED"), "SET", "tx:b", "2")
	m.Do("EXEC")
	m.Do("SELECT", "0")
	harness.CaughtUp(t, m, h)
	chainCaughtUp(t, h, h2)
	for _, r := range []*harness.Conn{h, h2} {
		harness.SameData(t, m, r, 16, true)
		if got := r.Do("VCARD", "vs"); got != int64(2) {
			t.Errorf("VCARD vs on a replica = %v", got)
		}
		if got := r.Do("VSIM", "vs", "ELE", "a", "COUNT", "1"); fmt.Sprint(got) != "[a]" {
			t.Errorf("VSIM on a replica = %v", got)
		}
	}
	h.Expect(harness.Err("READONLY You can't write against a read only replica."), "SET", "x", "1")
	// The middle replica shows its master's replid, and serves its own
	// stream (its offsets are not the master's) under an ID of its own.
	topID := harness.InfoFields(t, m, "replication")["master_replid"]
	midID := harness.InfoFields(t, h2, "replication")["master_replid"]
	if got := harness.InfoFields(t, h, "replication")["master_replid"]; got != topID || midID == topID {
		t.Errorf("replids: top %s, middle shows %s, its replica follows %s", topID, got, midID)
	}

	// The middle replica's link to the master drops: it continues from its
	// offset (the master counts a partial sync), and the writes after the
	// drop reach both replicas.
	m.Do("CLIENT", "KILL", "TYPE", "replica")
	m.Do("SET", "after-kill", "1")
	m.Do("LPUSH", "new:l", "c")
	harness.CaughtUp(t, m, h)
	chainCaughtUp(t, h, h2)
	for _, r := range []*harness.Conn{h, h2} {
		harness.SameData(t, m, r, 16, true)
	}
	if st := harness.InfoFields(t, m, "stats"); st["sync_full"] != "1" || st["sync_partial_ok"] != "1" {
		t.Errorf("the master's sync counts after the drop: sync_full %s, sync_partial_ok %s (want 1 and 1)", st["sync_full"], st["sync_partial_ok"])
	}

	// Now the master's backlog (1 MB) has moved past the middle replica
	// when it comes back: it syncs in full, which replaces its data. Its
	// own replica, whose stream never carried that, is dropped and syncs
	// in full too rather than continue.
	m.Do("CLIENT", "KILL", "TYPE", "replica")
	m.Do("SET", "big", strings.Repeat("x", 2<<20))
	harness.CaughtUp(t, m, h)
	// (The middle replica's own stream restarts from its offset, no longer
	// its master's: compare the data instead of the offsets.)
	harness.Eventually(t, "the second replica resynced", func() bool { return h2.Do("DEBUG", "DIGEST") == m.Do("DEBUG", "DIGEST") })
	for _, r := range []*harness.Conn{h, h2} {
		harness.SameData(t, m, r, 16, true)
	}
	if st := harness.InfoFields(t, m, "stats"); st["sync_full"] != "2" {
		t.Errorf("the master's sync_full after its backlog moved past the replica: %s, want 2", st["sync_full"])
	}
	if st := harness.InfoFields(t, h, "stats"); st["sync_full"] != "2" {
		t.Errorf("the middle replica's sync_full after its full resync: %s, want 2", st["sync_full"])
	}
	if got := harness.InfoFields(t, h2, "replication")["master_replid"]; got == midID || got == topID {
		t.Errorf("after the middle replica's full resync its replica follows %s (before %s, top %s): want a new ID", got, midID, topID)
	}
}

// TestReplicaOfWhileSyncing: REPLICAOF to a master that cannot be reached,
// given at any point of the sync with the previous one, leaves the link
// down. The old link, stopping, could mark it up in the moment between its
// last check and marking it (too short for this test to hit reliably: the
// marking is now under the lock REPLICAOF takes).
func TestReplicaOfWhileSyncing(t *testing.T) {
	harness.OutOfProcess(t)
	mp, m := harness.StartReplicaBinary(t)
	m.Do("SET", "k", "v")
	_, h := harness.StartReplicaBinary(t)
	for i := range 30 {
		h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
		time.Sleep(time.Duration(i%12) * time.Millisecond)
		h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", "1")
		time.Sleep(20 * time.Millisecond)
		if f := harness.InfoFields(t, h, "replication"); f["master_link_status"] != "down" || f["master_port"] != "1" {
			t.Fatalf("try %d: REPLICAOF to port 1 shows link %s, port %s", i, f["master_link_status"], f["master_port"])
		}
	}
}
