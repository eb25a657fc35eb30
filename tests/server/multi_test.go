package server

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

func TestMultiExecBasics(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Err("ERR EXEC without MULTI"), "EXEC")
	r.Expect(harness.Err("ERR DISCARD without MULTI"), "DISCARD")
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Err("ERR MULTI calls can not be nested"), "MULTI") // not fatal to the transaction
	r.Expect(harness.Err("ERR WATCH inside MULTI is not allowed"), "WATCH", "k")
	r.Expect(harness.Status("QUEUED"), "SET", "k", "v")
	r.Expect(harness.Status("QUEUED"), "GET", "k")
	r.Expect([]any{harness.Status("OK"), "v"}, "EXEC")
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "SET", "k", "other")
	r.Expect(harness.Status("OK"), "DISCARD")
	r.Expect("v", "GET", "k")
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect([]any{}, "EXEC") // an empty transaction
}

// TestExecAbort: a command refused while queueing (unknown, wrong arity,
// not allowed in MULTI) dooms the transaction; nothing of it runs.
func TestExecAbort(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for _, bad := range [][]string{
		{"NOSUCH"},
		{"SET", "k"},
		{"CONFIG", "NOSUCH"},
		{"SHUTDOWN"},
	} {
		r.Expect(harness.Status("OK"), "MULTI")
		r.Expect(harness.Status("QUEUED"), "SET", "k", "queued")
		if _, ok := r.Do(bad...).(harness.Err); !ok {
			t.Fatalf("%q inside MULTI was not refused", bad)
		}
		r.Expect(harness.Status("QUEUED"), "SET", "k2", "queued")
		r.Expect(harness.Err("EXECABORT Transaction discarded because of previous errors."), "EXEC")
		r.Expect(int64(0), "EXISTS", "k", "k2")
	}
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Err("ERR Command not allowed inside a transaction"), "SHUTDOWN")
	r.Expect(harness.Status("OK"), "DISCARD")
	// A refused EXEC itself discards the transaction and says why.
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "SET", "k", "v")
	r.Expect(harness.Err("EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command"), "EXEC", "extra")
	r.Expect(harness.Err("ERR EXEC without MULTI"), "EXEC")
	r.Expect(int64(0), "EXISTS", "k")
	// Unauthenticated: EXEC is refused with the NOAUTH reason.
	a := harness.Start(t, "--requirepass", "pw").Raw(t)
	a.Expect(harness.Err("NOAUTH Authentication required."), "MULTI")
	a.Expect(harness.Err("EXECABORT Transaction discarded because of: NOAUTH Authentication required."), "EXEC")
}

// TestExecRuntimeErrors: errors while running a queued command are replies
// in EXEC's array; the other commands run.
func TestExecRuntimeErrors(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "SET", "a", "1")
	r.Expect(harness.Status("QUEUED"), "SET", "b", "2", "EX", "notanumber")
	r.Expect(harness.Status("QUEUED"), "CONFIG", "SET", "hz", "abc")
	r.Expect(harness.Status("QUEUED"), "GET", "a")
	r.Expect([]any{
		harness.Status("OK"),
		harness.Err("ERR value is not an integer or out of range"),
		harness.Err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer"),
		"1",
	}, "EXEC")
	r.Expect(int64(0), "EXISTS", "b")
}

func TestWatch(t *testing.T) {
	s := harness.Start(t)
	r, other := s.Raw(t), s.Raw(t)
	exec := func(want any) {
		t.Helper()
		r.Expect(harness.Status("OK"), "MULTI")
		r.Expect(harness.Status("QUEUED"), "SET", "w", "mine")
		r.Expect(want, "EXEC")
	}
	// Untouched: EXEC runs.
	r.Expect(harness.Status("OK"), "WATCH", "w", "w2")
	exec([]any{harness.Status("OK")})
	// Changed by another client: EXEC answers null and runs nothing.
	r.Expect(harness.Status("OK"), "WATCH", "w")
	other.Expect(harness.Status("OK"), "SET", "w", "theirs")
	exec(nil)
	r.Expect("theirs", "GET", "w")
	// EXEC dropped the WATCH, so the next transaction runs.
	other.Expect(harness.Status("OK"), "SET", "w", "again")
	exec([]any{harness.Status("OK")})
	// Changed by the same client outside the transaction.
	r.Expect(harness.Status("OK"), "WATCH", "w")
	r.Expect(harness.Status("OK"), "SET", "w", "self")
	exec(nil)
	// Deleted, flushed, or a missing key created. (FLUSHDB touches only
	// watched keys that exist, as in Redis.)
	for _, tc := range []struct{ before, change []string }{
		{[]string{"SET", "w", "1"}, []string{"DEL", "w"}},
		{[]string{"SET", "w", "1"}, []string{"FLUSHDB"}},
		{[]string{"DEL", "w"}, []string{"SET", "w", "created"}},
	} {
		other.Do(tc.before...)
		r.Expect(harness.Status("OK"), "WATCH", "w")
		other.Do(tc.change...)
		exec(nil)
	}
	other.Do("DEL", "w")
	r.Expect(harness.Status("OK"), "WATCH", "w")
	other.Expect(harness.Status("OK"), "FLUSHDB")
	exec([]any{harness.Status("OK")})
	// UNWATCH and DISCARD forget the watch.
	r.Expect(harness.Status("OK"), "WATCH", "w")
	r.Expect(harness.Status("OK"), "UNWATCH")
	other.Expect(harness.Status("OK"), "SET", "w", "x")
	exec([]any{harness.Status("OK")})
	r.Expect(harness.Status("OK"), "WATCH", "w")
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("OK"), "DISCARD")
	other.Expect(harness.Status("OK"), "SET", "w", "y")
	exec([]any{harness.Status("OK")})
	// A watched key in another database is a different key.
	r.Expect(harness.Status("OK"), "WATCH", "w")
	other.Expect(harness.Status("OK"), "SELECT", "1")
	other.Expect(harness.Status("OK"), "SET", "w", "db1")
	exec([]any{harness.Status("OK")})
	// A watched key that expires before EXEC counts as changed.
	r.Expect(harness.Status("OK"), "SET", "w", "v", "PX", "30")
	r.Expect(harness.Status("OK"), "WATCH", "w")
	time.Sleep(60 * time.Millisecond)
	exec(nil)
	// RESP3: the aborted EXEC is a RESP3 null.
	r.Do("HELLO", "3")
	r.Expect(harness.Status("OK"), "WATCH", "w")
	other.Expect(harness.Status("OK"), "SELECT", "0")
	other.Expect(harness.Status("OK"), "SET", "w", "z")
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "GET", "w")
	r.Send(harness.Req("EXEC"))
	if line, _ := r.Reader.ReadString('\n'); line != "_\r\n" {
		t.Fatalf("RESP3 aborted EXEC = %q", line)
	}
}

// TestSelectInMulti: SELECT inside a transaction applies to the commands
// after it, and stays in force after EXEC, as in Redis.
func TestSelectInMulti(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "SET", "k", "db0")
	r.Expect(harness.Status("QUEUED"), "SELECT", "2")
	r.Expect(harness.Status("QUEUED"), "SET", "k", "db2")
	r.Expect(harness.Status("QUEUED"), "DBSIZE")
	r.Expect(harness.Status("QUEUED"), "SELECT", "99")
	r.Expect([]any{harness.Status("OK"), harness.Status("OK"), harness.Status("OK"), int64(1), harness.Err("ERR DB index is out of range")}, "EXEC")
	r.Expect("db2", "GET", "k")
	r.Expect(harness.Status("OK"), "SELECT", "0")
	r.Expect("db0", "GET", "k")
}

// TestCommandsThatLockInsideExec: INFO keyspace, UNWATCH and CLIENT INFO
// run inside EXEC while EXEC holds shard locks (they used to deadlock on
// them).
func TestCommandsThatLockInsideExec(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "WATCH", "a")
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "SET", "a", "1")
	r.Expect(harness.Status("QUEUED"), "INFO", "keyspace")
	r.Expect(harness.Status("QUEUED"), "UNWATCH")
	r.Expect(harness.Status("QUEUED"), "CLIENT", "INFO")
	r.Expect(harness.Status("QUEUED"), "FLUSHDB")
	r.Expect(harness.Status("QUEUED"), "INFO", "keyspace")
	got := r.Do("EXEC").([]any)
	if got[1] != "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0,subexpiry=0\r\n" || got[2] != harness.Status("OK") || got[5] != "# Keyspace\r\n" {
		t.Fatalf("EXEC = %#v", got)
	}
	if info := got[3].(string); !harness.ContainsAll(info, " flags=x ", " multi=6 ", " watch=0 ", " cmd=exec ") {
		t.Fatalf("CLIENT INFO inside EXEC: %s", info)
	}
	if info := r.Do("CLIENT", "INFO").(string); !harness.ContainsAll(info, " flags=N ", " multi=-1 ") {
		t.Fatalf("CLIENT INFO after EXEC: %s", info)
	}
	s.NoPanics(t)
}

// TestQuitResetInMulti: QUIT and RESET are not queued.
func TestQuitResetInMulti(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "SET", "k", "v")
	r.Expect(harness.Status("RESET"), "RESET")
	r.Expect(harness.Err("ERR EXEC without MULTI"), "EXEC")
	r.Expect(harness.Status("OK"), "MULTI")
	r.Send(harness.Req("QUIT"))
	r.ClosedAfter(harness.Status("OK"))
	s.Raw(t).Expect(int64(0), "EXISTS", "k")
}

// shardedKeys returns two keys that live in different shards.
func shardedKeys(t *testing.T) (string, string) {
	a := "acct-a"
	for i := range 100 {
		b := "acct-b" + strconv.Itoa(i)
		if keyspace.ShardIndex([]byte(a)) != keyspace.ShardIndex([]byte(b)) {
			return a, b
		}
	}
	t.Fatal("no keys in different shards")
	return "", ""
}

// TestExecAtomicAcrossShards: writers set two keys in different shards to
// the same value inside MULTI; readers read both inside MULTI and must never
// see them differ. Without EXEC holding both shards, readers catch a
// half-applied transaction within a few hundred rounds.
func TestExecAtomicAcrossShards(t *testing.T) {
	s := harness.Start(t)
	a, b := shardedKeys(t)
	ctx := context.Background()
	const writers, readers, rounds = 6, 4, 300
	var wg sync.WaitGroup
	errc := make(chan error, writers+readers)
	for w := range writers {
		c := s.Client(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				v := strconv.Itoa(w*rounds + i)
				if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, a, v, 0)
					p.Set(ctx, b, v, 0)
					return nil
				}); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	for range readers {
		c := s.Client(t, harness.Resp2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				var ga, gb *redis.StringCmd
				_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					ga, gb = p.Get(ctx, a), p.Get(ctx, b)
					return nil
				})
				if err != nil && !errors.Is(err, redis.Nil) {
					errc <- err
					return
				}
				if ga.Val() != gb.Val() {
					errc <- errors.New("a=" + ga.Val() + " b=" + gb.Val() + " inside one EXEC")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
}

// TestExecAtomicIncr is the same invariant with INCR.
func TestExecAtomicIncr(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	a, b := shardedKeys(t)
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for range 4 {
		c := s.Client(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 250 {
				if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Incr(ctx, a)
					p.Incr(ctx, b)
					return nil
				}); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	for range 4 {
		c := s.Client(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 250 {
				var ga, gb *redis.StringCmd
				if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					ga, gb = p.Get(ctx, a), p.Get(ctx, b)
					return nil
				}); err != nil && !errors.Is(err, redis.Nil) {
					errc <- err
					return
				}
				if ga.Val() != gb.Val() {
					errc <- errors.New("a=" + ga.Val() + " b=" + gb.Val())
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	if v, _ := s.Client(t).Get(ctx, a).Int(); v != 1000 {
		t.Fatalf("a = %d after 1000 increments", v)
	}
}

// TestWatchOptimisticLocking is the classic check-and-set loop from many
// clients: every increment lands exactly once.
func TestWatchOptimisticLocking(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	const clients, each = 6, 40
	var wg sync.WaitGroup
	errc := make(chan error, clients)
	for range clients {
		c := s.Client(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				for {
					err := c.Watch(ctx, func(tx *redis.Tx) error {
						n, err := tx.Get(ctx, "counter").Int()
						if err != nil && !errors.Is(err, redis.Nil) {
							return err
						}
						_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
							p.Set(ctx, "counter", n+1, 0)
							return nil
						})
						return err
					}, "counter")
					if err == nil {
						break
					}
					if !errors.Is(err, redis.TxFailedErr) {
						errc <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	if n, err := s.Client(t).Get(ctx, "counter").Int(); err != nil || n != clients*each {
		t.Fatalf("counter = %d, %v; want %d", n, err, clients*each)
	}
}

// TestExecLockOrder: EXEC must not take a shard lock out of order while it
// holds others (dropping a WATCH on a lower shard, or INFO counting keys),
// or it deadlocks against a multi-key command locking in order.
func TestExecLockOrder(t *testing.T) {
	s := harness.Start(t)
	lo, hi := shardedKeys(t)
	if keyspace.ShardIndex([]byte(lo)) > keyspace.ShardIndex([]byte(hi)) {
		lo, hi = hi, lo
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errc := make(chan error, 3)
	run := func(f func(c *redis.Client) error) {
		c := s.Client(t, func(o *redis.Options) { o.ReadTimeout = 5 * time.Second; o.MaxRetries = -1 })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if err := f(c); err != nil && !errors.Is(err, redis.TxFailedErr) {
					errc <- err
					return
				}
			}
		}()
	}
	run(func(c *redis.Client) error { // watch the low shard, write the high one
		return c.Watch(ctx, func(tx *redis.Tx) error {
			_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Set(ctx, hi, "1", 0); return nil })
			return err
		}, lo)
	})
	run(func(c *redis.Client) error { // INFO inside a transaction holding the high shard
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, hi, "2", 0)
			p.Info(ctx, "keyspace")
			return nil
		})
		return err
	})
	run(func(c *redis.Client) error { return c.Del(ctx, lo, hi).Err() }) // locks low, then high
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
}

// Which list, hash, bitmap and HLL commands disturb a WATCH of their key:
// as in Redis, those that change it, LTRIM, HSET and PFMERGE whenever they
// run, and no command that fails or changes nothing (an LREM or HDEL that
// finds nothing, an HSETNX of a present field, a SETBIT to the bit it has,
// a PFADD that changes no register, PFDEBUG).
func TestDifferentialWatchTouches(t *testing.T) {
	list := []string{"RPUSH", "k", "a", "b", "c"}
	hash := []string{"HSET", "k", "f", "v", "n", "1"}
	bits := []string{"SET", "k", "\x80"}
	var script [][]string
	for _, c := range []struct{ setup, cmd []string }{
		{list, []string{"LINSERT", "k", "MIDDLE", "a", "x"}},
		{list, []string{"LINSERT", "k", "BEFORE", "zz", "x"}},
		{list, []string{"LINSERT", "k", "BEFORE", "a", "x"}},
		{[]string{"SET", "k", "x"}, []string{"LPUSH", "k", "x"}},
		{nil, []string{"LPUSHX", "k", "x"}},
		{list, []string{"LREM", "k", "0", "zz"}},
		{list, []string{"LREM", "k", "0", "a"}},
		{list, []string{"LTRIM", "k", "0", "-1"}},
		{list, []string{"LPOP", "k", "0"}},
		{list, []string{"LPOP", "k", "-1"}},
		{list, []string{"RPOP", "k"}},
		{list, []string{"LSET", "k", "10", "x"}},
		{list, []string{"LSET", "k", "0", "a"}},
		{list, []string{"RPOPLPUSH", "k", "s"}},
		{list, []string{"LMOVE", "nokey", "k", "LEFT", "LEFT"}},
		{list, []string{"LMPOP", "1", "k", "LEFT", "COUNT", "0"}},
		{list, []string{"BLPOP", "k", "x"}},
		{list, []string{"BLMPOP", "0", "2", "nokey", "k", "RIGHT"}},
		{hash, []string{"HSET", "k", "f", "v"}},
		{hash, []string{"HSET", "k", "f", "v", "g"}},
		{hash, []string{"HSETNX", "k", "f", "w"}},
		{hash, []string{"HDEL", "k", "zz"}},
		{hash, []string{"HDEL", "k", "f"}},
		{hash, []string{"HINCRBY", "k", "f", "1"}},
		{hash, []string{"HINCRBY", "k", "n", "1"}},
		{hash, []string{"HINCRBYFLOAT", "k", "n", "x"}},
		{hash, []string{"HGETDEL", "k", "FIELDS", "1", "zz"}},
		{hash, []string{"HPERSIST", "k", "FIELDS", "1", "f"}},
		{hash, []string{"HEXPIRE", "k", "100", "XX", "FIELDS", "1", "f"}},
		{hash, []string{"HEXPIRE", "k", "100", "FIELDS", "1", "f"}},
		{hash, []string{"HGETEX", "k", "FIELDS", "1", "f"}},
		{hash, []string{"HSETEX", "k", "FNX", "FIELDS", "1", "f", "v"}},
		{bits, []string{"SETBIT", "k", "0", "1"}},
		{bits, []string{"SETBIT", "k", "0", "0"}},
		{bits, []string{"SETBIT", "k", "x", "1"}},
		{bits, []string{"BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "100"}},
		{bits, []string{"BITFIELD", "k", "SET", "u8", "0", "128"}},
		{bits, []string{"BITFIELD", "k", "SET", "u8", "0", "1"}},
		{bits, []string{"BITOP", "AND", "k", "nokey"}},
		{bits, []string{"BITOP", "AND", "d", "k"}},
		{bits, []string{"BITOP", "NOT", "k", "k", "k"}},
		{[]string{"PFADD", "k", "a"}, []string{"PFADD", "k", "a"}},
		{[]string{"PFADD", "k", "a"}, []string{"PFADD", "k", "b"}},
		{bits, []string{"PFADD", "k", "a"}},
		{[]string{"PFADD", "k", "a"}, []string{"PFCOUNT", "k"}},
		{[]string{"PFADD", "k", "a"}, []string{"PFMERGE", "k", "k"}},
		{bits, []string{"PFMERGE", "k", "nokey"}},
		{[]string{"PFADD", "k", "a"}, []string{"PFDEBUG", "TODENSE", "k"}},
	} {
		script = append(script, []string{"FLUSHALL"})
		if c.setup != nil {
			script = append(script, c.setup)
		}
		script = append(script, []string{"SET", "s", "x"}, []string{"WATCH", "k"}, c.cmd,
			[]string{"MULTI"}, []string{"PING"}, []string{"EXEC"})
	}
	harness.Differ(t, script)
}
