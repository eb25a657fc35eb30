package commands

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Blocking list commands with several clients. Like the tables in
// lists_test.go, each test runs against HotKV and, with $HOTKV_COMPARE_ADDR,
// against a real Redis, so the expected behaviour is Redis's.
// Most scenarios follow Redis's own test suite (tests/unit/type/list.tcl).

// blockingEnv gives a scenario a control connection and a way to open more
// clients, for each target and protocol.
type blockingEnv struct {
	t     *testing.T
	addr  string
	proto int
	ctl   *harness.Conn
}

func (e *blockingEnv) client() *harness.Conn { return harness.DialRaw(e.t, e.addr, e.proto) }

// want compares a reply with its expected RESP2 form.
func (e *blockingEnv) want(what, got, want string) {
	e.t.Helper()
	if e.proto == 3 {
		want = toRESP3(want)
	}
	if got != want {
		e.t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

func eachTarget(t *testing.T, scenario func(e *blockingEnv)) {
	for name, addr := range harness.Targets(t) {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s-RESP%d", name, proto), func(t *testing.T) {
				e := &blockingEnv{t: t, addr: addr, proto: proto}
				e.ctl = e.client()
				e.ctl.Exact("FLUSHALL")
				scenario(e)
				harness.WaitBlocked(t, e.ctl, 0) // nothing left blocked for the next run
			})
		}
	}
}

// One push of n elements serves n waiting clients in the order they blocked.
func TestBlockingFIFO(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		var cs []*harness.Conn
		for i := range 4 {
			c := e.client()
			c.Cmd("BLPOP list 0")
			harness.WaitBlocked(e.t, e.ctl, i+1)
			cs = append(cs, c)
		}
		e.want("RPUSH", e.ctl.Exact("RPUSH", "list", "a", "b", "c"), harness.Integer(3))
		for i, v := range []string{"a", "b", "c"} {
			e.want(fmt.Sprintf("client %d", i), cs[i].Next(), bulks("list", v))
		}
		e.want("LLEN after serving", e.ctl.Exact("LLEN", "list"), harness.Integer(0))
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("RPUSH", "list", "d")
		e.want("last client", cs[3].Next(), bulks("list", "d"))
	})
}

// Blocked clients are served before the pushing client's next command, and
// before any other client: a newcomer never takes an element from under a
// client that was already waiting.
func TestBlockingServedBeforeOthers(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		a := e.client()
		a.Cmd("BLPOP list 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("LPUSH", "list", "foo", "bar")
		// Redis's "BLPOP with variadic LPUSH": the waiter got the head, and
		// the pusher sees the rest at once.
		e.want("LRANGE right after LPUSH", e.ctl.Exact("LRANGE", "list", "0", "-1"), bulks("foo"))
		e.want("waiter", a.Next(), bulks("list", "bar"))

		e.ctl.Exact("DEL", "list")
		for round := range 50 {
			a.Cmd("BLPOP list 0")
			harness.WaitBlocked(e.t, e.ctl, 1)
			newcomer := e.client()
			// The push and the newcomer's BLPOP race; whichever comes
			// second, the element belongs to the client already waiting.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); newcomer.Cmd("BLPOP list 0") }()
			e.ctl.Exact("RPUSH", "list", fmt.Sprint("x", round))
			wg.Wait()
			e.want("first waiter", a.Next(), bulks("list", fmt.Sprint("x", round)))
			harness.WaitBlocked(e.t, e.ctl, 1)
			e.ctl.Exact("RPUSH", "list", "y")
			e.want("newcomer", newcomer.Next(), bulks("list", "y"))
		}
	})
}

// Chains of BLMOVE/BRPOPLPUSH complete within the push that starts them.
func TestBlockingLinkedMoves(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c1, c2 := e.client(), e.client()
		c1.Cmd("BLMOVE list1{t} list2{t} RIGHT LEFT 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		c2.Cmd("BLMOVE list2{t} list3{t} LEFT RIGHT 0")
		harness.WaitBlocked(e.t, e.ctl, 2)
		e.ctl.Exact("RPUSH", "list1{t}", "foo")
		e.want("list1", e.ctl.Exact("LRANGE", "list1{t}", "0", "-1"), arr())
		e.want("list2", e.ctl.Exact("LRANGE", "list2{t}", "0", "-1"), arr())
		e.want("list3", e.ctl.Exact("LRANGE", "list3{t}", "0", "-1"), bulks("foo"))
		e.want("c1", c1.Next(), harness.Bulk("foo"))
		e.want("c2", c2.Next(), harness.Bulk("foo"))

		// Circular BRPOPLPUSH: the element goes round once and stops.
		e.ctl.Exact("FLUSHALL")
		c1.Cmd("BRPOPLPUSH list1{t} list2{t} 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		c2.Cmd("BRPOPLPUSH list2{t} list1{t} 0")
		harness.WaitBlocked(e.t, e.ctl, 2)
		e.ctl.Exact("RPUSH", "list1{t}", "foo")
		e.want("list1", e.ctl.Exact("LRANGE", "list1{t}", "0", "-1"), bulks("foo"))
		e.want("list2", e.ctl.Exact("LRANGE", "list2{t}", "0", "-1"), arr())
		e.want("c1", c1.Next(), harness.Bulk("foo"))
		e.want("c2", c2.Next(), harness.Bulk("foo"))

		// Self-referential BRPOPLPUSH.
		e.ctl.Exact("FLUSHALL")
		c1.Cmd("BRPOPLPUSH blist blist 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("RPUSH", "blist", "foo")
		e.want("self", c1.Next(), harness.Bulk("foo"))
		e.want("blist", e.ctl.Exact("LRANGE", "blist", "0", "-1"), bulks("foo"))

		// Keys in different shards: the moved element wakes a BLPOP on the
		// destination.
		e.ctl.Exact("FLUSHALL")
		c2.Cmd("BLPOP target 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		c1.Cmd("BLMOVE source target LEFT RIGHT 0")
		harness.WaitBlocked(e.t, e.ctl, 2)
		e.ctl.Exact("RPUSH", "source", "foo")
		e.want("mover", c1.Next(), harness.Bulk("foo"))
		e.want("popper", c2.Next(), bulks("target", "foo"))
		e.want("target gone", e.ctl.Exact("EXISTS", "target", "source"), harness.Integer(0))
	})
}

// A served client whose command fails (wrong destination type) leaves the
// element for the next waiter.
func TestBlockingWrongDestination(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c1, c2 := e.client(), e.client()
		e.ctl.Exact("SET", "target1", "nolist")
		c1.Cmd("BRPOPLPUSH blist target1 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		c2.Cmd("BRPOPLPUSH blist target2 0")
		harness.WaitBlocked(e.t, e.ctl, 2)
		e.ctl.Exact("LPUSH", "blist", "foo")
		e.want("c1", c1.Next(), wrongType)
		e.want("c2", c2.Next(), harness.Bulk("foo"))
		e.want("target2", e.ctl.Exact("LRANGE", "target2", "0", "-1"), bulks("foo"))

		c1.Cmd("BRPOPLPUSH blist target1 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("RPUSH", "blist", "a", "b", "c")
		e.want("c1 again", c1.Next(), wrongType)
		e.want("order kept", e.ctl.Exact("LRANGE", "blist", "0", "-1"), bulks("a", "b", "c"))
	})
}

// Writes that leave no list behind do not wake a waiter (no WRONGTYPE for a
// key that became a string), and MULTI/EXEC is seen as a whole.
func TestBlockingTransactions(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		c.Cmd("BLPOP list 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		for _, cmd := range []string{"MULTI", "LPUSH list a", "LPUSH list b", "LPUSH list c", "EXEC"} {
			e.ctl.Exact(strings.Fields(cmd)...)
		}
		e.want("isolated from MULTI", c.Next(), bulks("list", "c"))

		e.ctl.Exact("DEL", "list")
		c.Cmd("BLPOP list 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		for _, cmd := range []string{"MULTI", "LPUSH list a", "DEL list", "SET list foo", "EXEC", "DEL list"} {
			e.ctl.Exact(strings.Fields(cmd)...)
		}
		e.ctl.Exact("SET", "list", "str") // a plain write of another type
		e.ctl.Exact("DEL", "list")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("LPUSH", "list", "b")
		e.want("not woken by push+del+set", c.Next(), bulks("list", "b"))

		// Blocking commands inside MULTI answer at once.
		e.ctl.Exact("RPUSH", "xlist", "foo", "bar")
		for _, cmd := range []string{"MULTI", "BLPOP xlist 0", "BLPOP xlist 0", "BLPOP xlist 0", "BLMPOP 0 1 xlist LEFT"} {
			e.ctl.Exact(strings.Fields(cmd)...)
		}
		e.want("EXEC", e.ctl.Exact("EXEC"), arr(bulks("xlist", "foo"), bulks("xlist", "bar"), nullArray, nullArray))
	})
}

// A blocked command does not touch WATCHed keys; once served it does.
func TestBlockingWatch(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		b, w := e.client(), e.client()
		e.ctl.Exact("SET", "somekey", "somevalue")
		b.Cmd("BRPOPLPUSH srclist dstlist 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		w.Exact("WATCH", "dstlist")
		w.Exact("MULTI")
		w.Exact("GET", "somekey")
		e.want("EXEC while still blocked", w.Exact("EXEC"), arr(harness.Bulk("somevalue")))

		w.Exact("WATCH", "dstlist")
		w.Exact("MULTI")
		w.Exact("GET", "somekey")
		e.ctl.Exact("LPUSH", "srclist", "element")
		e.want("served", b.Next(), harness.Bulk("element"))
		e.want("EXEC after the move", w.Exact("EXEC"), nullArray)
	})
}

// BLPOP on the same key several times, and on several keys.
func TestBlockingSameKeyTwice(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		c.Cmd("BLPOP list1{t} list2{t} list2{t} list1{t} 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("LPUSH", "list1{t}", "a")
		e.want("list1", c.Next(), bulks("list1{t}", "a"))
		c.Cmd("BLPOP list1{t} list2{t} list2{t} list1{t} 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("LPUSH", "list2{t}", "b")
		e.want("list2", c.Next(), bulks("list2{t}", "b"))
		e.ctl.Exact("LPUSH", "list1{t}", "a")
		e.ctl.Exact("LPUSH", "list2{t}", "b")
		e.want("both ready: first key", c.Exact("BLPOP", "list1{t}", "list2{t}", "list2{t}", "list1{t}", "0"), bulks("list1{t}", "a"))
		e.want("both ready: second key", c.Exact("BLPOP", "list1{t}", "list2{t}", "list2{t}", "list1{t}", "0"), bulks("list2{t}", "b"))

		// BLMPOP with COUNT, woken by a push on its second key.
		c.Cmd("BLMPOP 0 2 a b RIGHT COUNT 2")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("RPUSH", "b", "1", "2", "3")
		e.want("BLMPOP", c.Next(), arr(harness.Bulk("b"), bulks("3", "2")))
	})
}

// Timeouts have millisecond precision; a timed-out client leaves the queue.
func TestBlockingTimeouts(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		for _, tc := range []struct{ cmd, want string }{
			{"BLPOP list 0.15", nullArray},
			{"BRPOP list1 list2 0.15", nullArray},
			{"BLMOVE list d LEFT LEFT 0.15", nullArray},
			{"BRPOPLPUSH list d 0.15", nullArray},
			{"BLMPOP 0.15 1 list LEFT", nullArray},
		} {
			begin := time.Now()
			e.want(tc.cmd, c.Exact(strings.Fields(tc.cmd)...), tc.want)
			// Only a lower bound: how late a busy machine answers is not
			// the server's contract.
			if took := time.Since(begin); took < 150*time.Millisecond {
				e.t.Errorf("%s answered after %v, before its timeout", tc.cmd, took)
			}
		}
		e.want("nothing created", e.ctl.Exact("EXISTS", "list", "d"), harness.Integer(0))

		// A client that timed out is not served later.
		c.Cmd("BLPOP list 0.05")
		e.want("timeout", c.Next(), nullArray)
		harness.WaitBlocked(e.t, e.ctl, 0)
		e.ctl.Exact("RPUSH", "list", "x")
		e.want("element kept", e.ctl.Exact("LRANGE", "list", "0", "-1"), bulks("x"))

		// Zero blocks until served.
		e.ctl.Exact("DEL", "list")
		c.Cmd("BLPOP list 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		time.Sleep(200 * time.Millisecond)
		e.ctl.Exact("RPUSH", "list", "late")
		e.want("zero timeout", c.Next(), bulks("list", "late"))
	})
}

// A client that disconnects while blocked leaves the element to the next.
func TestBlockingDisconnect(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		gone, stays := e.client(), e.client()
		gone.Cmd("BLPOP list 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		stays.Cmd("BLPOP list 0")
		harness.WaitBlocked(e.t, e.ctl, 2)
		gone.NetConn.Close()
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("RPUSH", "list", "x")
		e.want("second client", stays.Next(), bulks("list", "x"))

		killed := e.client()
		id := strings.Trim(killed.Exact("CLIENT", "ID"), ":\r\n")
		killed.Cmd("BLPOP list 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		stays.Cmd("BLPOP list 0")
		harness.WaitBlocked(e.t, e.ctl, 2)
		e.want("CLIENT KILL", e.ctl.Exact("CLIENT", "KILL", "ID", id), harness.Integer(1))
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("RPUSH", "list", "y")
		e.want("after CLIENT KILL", stays.Next(), bulks("list", "y"))
	})
}

// A client blocked forever does not hold up the server's shutdown (the
// harness fails the test if Shutdown times out).
func TestBlockedClientDoesNotHoldShutdown(t *testing.T) {
	s := harness.Start(t)
	c := harness.DialRaw(t, s.Addr, 2)
	c.Cmd("BLMOVE a b LEFT LEFT 0")
	harness.WaitBlocked(t, harness.DialRaw(t, s.Addr, 2), 1)
}

// Pipelined commands behind a blocking one run after it is served.
func TestBlockingPipeline(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		c.Send(harness.Encode("BLPOP", "list", "0") + harness.Encode("LLEN", "list") + harness.Encode("PING"))
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("RPUSH", "list", "a", "b")
		e.want("BLPOP", c.Next(), bulks("list", "a"))
		e.want("LLEN", c.Next(), harness.Integer(1))
		e.want("PING", c.Next(), "+PONG\r\n")
	})
}

// Many producers and consumers, some moving elements to other shards: every
// element ends up exactly once with a consumer or in a sink list.
func TestBlockingStress(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		const consumers, perProducer, producers = 6, 200, 3
		keys := []string{"q1", "q2", "{q}3"}
		sinks := []string{"sink1", "sink2"}
		got := make(chan string, producers*perProducer)
		var wg sync.WaitGroup
		for i := range consumers {
			c := e.client()
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					cmd := harness.Encode("BLPOP", keys[0], keys[1], keys[2], "1")
					if i%2 == 1 { // BLMOVE into a sink, in some other shard
						cmd = harness.Encode("BLMOVE", keys[i%len(keys)], sinks[i%len(sinks)], "LEFT", "RIGHT", "1")
					}
					c.Send(cmd)
					c.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
					v, err := harness.ReadReply(c.Reader)
					if err != nil || v == nil {
						return // timed out: the producers are done
					}
					if pair, ok := v.([]any); ok {
						got <- pair[1].(string)
					}
				}
			}()
		}
		var pw sync.WaitGroup
		for p := range producers {
			c := e.client()
			pw.Add(1)
			go func() {
				defer pw.Done()
				for i := range perProducer {
					c.Send(harness.Encode("RPUSH", keys[(p+i)%len(keys)], fmt.Sprintf("%d-%d", p, i)))
					c.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
					if _, err := harness.ReadReply(c.Reader); err != nil {
						return
					}
				}
			}()
		}
		pw.Wait()
		wg.Wait()
		close(got)
		seen := map[string]bool{}
		var all []string
		for v := range got {
			all = append(all, v)
		}
		for _, k := range append(sinks, keys...) {
			v, _ := harness.DialRaw(e.t, e.addr, 2).Do("LRANGE", k, "0", "-1").([]any)
			for _, x := range v {
				all = append(all, x.(string))
			}
		}
		for _, v := range all {
			if seen[v] {
				e.t.Errorf("%s delivered twice", v)
			}
			seen[v] = true
		}
		if len(seen) != producers*perProducer {
			e.t.Errorf("delivered %d of %d elements", len(seen), producers*perProducer)
		}
	})
}

// A key created by RENAME or SWAPDB serves a waiter.
func TestBlockingKeyMovedIntoPlace(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		c.Cmd("BLPOP foo{t} 5")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("LPUSH", "bob{t}", "abc", "def", "hij")
		e.ctl.Exact("RENAME", "bob{t}", "foo{t}")
		e.want("renamed", c.Next(), bulks("foo{t}", "hij"))
		e.want("rest", e.ctl.Exact("LRANGE", "foo{t}", "0", "-1"), bulks("def", "abc"))

		c.Exact("SELECT", "9")
		c.Cmd("BLPOP swapped 5")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("RPUSH", "swapped", "x")
		e.ctl.Exact("SWAPDB", "0", "9")
		e.want("swapped in", c.Next(), bulks("swapped", "x"))
	})
}

// Waiters are per database.
func TestBlockingPerDatabase(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		c.Exact("SELECT", "1")
		c.Cmd("BLPOP k 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("RPUSH", "k", "db0")
		e.want("db0 keeps its element", e.ctl.Exact("LLEN", "k"), harness.Integer(1))
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("SELECT", "1")
		e.ctl.Exact("RPUSH", "k", "db1")
		e.want("db1 waiter", c.Next(), bulks("k", "db1"))
		e.ctl.Exact("FLUSHALL")
		e.ctl.Exact("SELECT", "0")
	})
}

// The destination of a waiting BLMOVE is locked by a long transaction when
// the source gets its element: the waiter is served once the transaction is
// done, and the push's reply waits for that too.
func TestBlockingMoveIntoBusyShard(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		mover, tx := e.client(), e.client()
		mover.Cmd("BLMOVE src dst LEFT RIGHT 0")
		harness.WaitBlocked(e.t, e.ctl, 1)
		tx.Exact("MULTI")
		tx.Exact("RPUSH", "dst", "first")
		tx.Exact("DEBUG", "SLEEP", "0.3")
		tx.Cmd("EXEC")
		time.Sleep(50 * time.Millisecond) // EXEC now holds dst's shard
		e.want("push", e.ctl.Exact("RPUSH", "src", "moved"), harness.Integer(1))
		e.want("dst after the push", e.ctl.Exact("LRANGE", "dst", "0", "-1"), bulks("first", "moved"))
		e.want("mover", mover.Next(), harness.Bulk("moved"))
		e.want("EXEC", tx.Next(), arr(harness.Integer(1), okReply))
	})
}

// CLIENT UNBLOCK ends another client's wait as a timeout would, or with an
// error; CLIENT LIST flags the waiting client with b.
func TestClientUnblock(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		for _, tc := range []struct{ cmd, reason, want string }{
			{"BLPOP list 0", "", nullArray},
			{"BRPOP list 0", "TIMEOUT", nullArray},
			{"BZPOPMIN zset 0", "timeout", nullArray},
			{"BLMPOP 0 1 list LEFT", "TIMEOUT", nullArray},
			{"BLMOVE list other LEFT RIGHT 0", "ERROR", harness.ErrReply("UNBLOCKED client unblocked via CLIENT UNBLOCK")},
			{"BRPOP list 100", "error", harness.ErrReply("UNBLOCKED client unblocked via CLIENT UNBLOCK")},
		} {
			c := e.client()
			id := strings.TrimSuffix(strings.TrimPrefix(c.Exact("CLIENT", "ID"), ":"), "\r\n")
			c.Cmd(tc.cmd)
			harness.WaitBlocked(e.t, e.ctl, 1)
			list := e.ctl.Exact("CLIENT", "LIST", "ID", id)
			if !regexp.MustCompile(` flags=b `).MatchString(list) {
				e.t.Errorf("%s: CLIENT LIST of the blocked client: %q", tc.cmd, list)
			}
			args := []string{"CLIENT", "UNBLOCK", id}
			if tc.reason != "" {
				args = append(args, tc.reason)
			}
			e.want(tc.cmd+": CLIENT UNBLOCK", e.ctl.Exact(args...), harness.Integer(1))
			e.want(tc.cmd+": its reply", c.Next(), tc.want)
			harness.WaitBlocked(e.t, e.ctl, 0)
			e.want(tc.cmd+": CLIENT UNBLOCK again", e.ctl.Exact(args...), harness.Integer(0))
			e.want(tc.cmd+": the client carries on", c.Exact("LPUSH", "list", "x"), harness.Integer(1))
			e.ctl.Exact("DEL", "list")
		}
		e.want("unknown id", e.ctl.Exact("CLIENT", "UNBLOCK", "999999"), harness.Integer(0))
		e.want("bad id", e.ctl.Exact("CLIENT", "UNBLOCK", "x"), harness.ErrReply("ERR value is not an integer or out of range"))
		e.want("bad reason", e.ctl.Exact("CLIENT", "UNBLOCK", "1", "later"), harness.ErrReply("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"))
		e.want("too many", e.ctl.Exact("CLIENT", "UNBLOCK", "1", "TIMEOUT", "x"),
			harness.ErrReply("ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. Try CLIENT HELP."))
	})
}

// Which error a blocking command with several bad arguments answers:
// BLMPOP and BZMPOP read their timeout after numkeys, the direction and
// COUNT; BLMOVE after its directions; the others first.
func TestDifferentialBlockingArgumentErrors(t *testing.T) {
	harness.Differ(t, [][]string{
		{"BZMPOP", "x", "0", "z", "MIN"},
		{"BZMPOP", "-1", "1", "z", "MID"},
		{"BZMPOP", "inf", "1", "z", "MIN", "COUNT", "0"},
		{"BZMPOP", "x", "1", "z", "MIN"},
		{"BLMPOP", "x", "0", "l", "LEFT"},
		{"BLMPOP", "-1", "1", "l", "UP"},
		{"BLMPOP", "inf", "1", "l", "LEFT", "COUNT", "0"},
		{"BZPOPMIN", "z", "x"},
		{"BLMOVE", "l", "d", "UP", "LEFT", "x"},
		{"BLMOVE", "l", "d", "LEFT", "LEFT", "x"},
	})
}
