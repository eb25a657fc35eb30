package tests

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Blocking list commands with several clients. Like the tables in
// lists_test.go, each test runs against HotKV and, with $HOTKV_COMPARE_ADDR,
// against a real Redis, so the expected behaviour is Redis's.
// Most scenarios follow Redis's own test suite (tests/unit/type/list.tcl).

// next reads one reply of a command sent earlier.
func (r *raw) next() string {
	r.t.Helper()
	r.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	s, err := readExact(r.r)
	if err != nil {
		r.t.Fatalf("read reply: %v", err)
	}
	return s
}

// cmd sends a command without reading its reply (a "deferring client").
func (r *raw) cmd(args string) { r.send(encode(strings.Fields(args)...)) }

var blockedRe = regexp.MustCompile(`blocked_clients:(\d+)`)

// waitBlocked waits until the server counts n blocked clients.
func waitBlocked(t *testing.T, ctl *raw, n int) {
	t.Helper()
	want := fmt.Sprint(n)
	deadline := time.Now().Add(5 * time.Second)
	for {
		info := ctl.exact("INFO", "clients")
		m := blockedRe.FindStringSubmatch(info)
		if m != nil && m[1] == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %d blocked clients: %v", n, m)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// blockingEnv gives a scenario a control connection and a way to open more
// clients, for each target and protocol.
type blockingEnv struct {
	t     *testing.T
	addr  string
	proto int
	ctl   *raw
}

func (e *blockingEnv) client() *raw { return dialRaw(e.t, e.addr, e.proto) }

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
	for name, addr := range targets(t) {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s-RESP%d", name, proto), func(t *testing.T) {
				e := &blockingEnv{t: t, addr: addr, proto: proto}
				e.ctl = e.client()
				e.ctl.exact("FLUSHALL")
				scenario(e)
				waitBlocked(t, e.ctl, 0) // nothing left blocked for the next run
			})
		}
	}
}

// One push of n elements serves n waiting clients in the order they blocked.
func TestBlockingFIFO(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		var cs []*raw
		for i := range 4 {
			c := e.client()
			c.cmd("BLPOP list 0")
			waitBlocked(e.t, e.ctl, i+1)
			cs = append(cs, c)
		}
		e.want("RPUSH", e.ctl.exact("RPUSH", "list", "a", "b", "c"), integer(3))
		for i, v := range []string{"a", "b", "c"} {
			e.want(fmt.Sprintf("client %d", i), cs[i].next(), bulks("list", v))
		}
		e.want("LLEN after serving", e.ctl.exact("LLEN", "list"), integer(0))
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("RPUSH", "list", "d")
		e.want("last client", cs[3].next(), bulks("list", "d"))
	})
}

// Blocked clients are served before the pushing client's next command, and
// before any other client: a newcomer never takes an element from under a
// client that was already waiting.
func TestBlockingServedBeforeOthers(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		a := e.client()
		a.cmd("BLPOP list 0")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("LPUSH", "list", "foo", "bar")
		// Redis's "BLPOP with variadic LPUSH": the waiter got the head, and
		// the pusher sees the rest at once.
		e.want("LRANGE right after LPUSH", e.ctl.exact("LRANGE", "list", "0", "-1"), bulks("foo"))
		e.want("waiter", a.next(), bulks("list", "bar"))

		e.ctl.exact("DEL", "list")
		for round := range 50 {
			a.cmd("BLPOP list 0")
			waitBlocked(e.t, e.ctl, 1)
			newcomer := e.client()
			// The push and the newcomer's BLPOP race; whichever comes
			// second, the element belongs to the client already waiting.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); newcomer.cmd("BLPOP list 0") }()
			e.ctl.exact("RPUSH", "list", fmt.Sprint("x", round))
			wg.Wait()
			e.want("first waiter", a.next(), bulks("list", fmt.Sprint("x", round)))
			waitBlocked(e.t, e.ctl, 1)
			e.ctl.exact("RPUSH", "list", "y")
			e.want("newcomer", newcomer.next(), bulks("list", "y"))
		}
	})
}

// Chains of BLMOVE/BRPOPLPUSH complete within the push that starts them.
func TestBlockingLinkedMoves(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c1, c2 := e.client(), e.client()
		c1.cmd("BLMOVE list1{t} list2{t} RIGHT LEFT 0")
		waitBlocked(e.t, e.ctl, 1)
		c2.cmd("BLMOVE list2{t} list3{t} LEFT RIGHT 0")
		waitBlocked(e.t, e.ctl, 2)
		e.ctl.exact("RPUSH", "list1{t}", "foo")
		e.want("list1", e.ctl.exact("LRANGE", "list1{t}", "0", "-1"), arr())
		e.want("list2", e.ctl.exact("LRANGE", "list2{t}", "0", "-1"), arr())
		e.want("list3", e.ctl.exact("LRANGE", "list3{t}", "0", "-1"), bulks("foo"))
		e.want("c1", c1.next(), bulk("foo"))
		e.want("c2", c2.next(), bulk("foo"))

		// Circular BRPOPLPUSH: the element goes round once and stops.
		e.ctl.exact("FLUSHALL")
		c1.cmd("BRPOPLPUSH list1{t} list2{t} 0")
		waitBlocked(e.t, e.ctl, 1)
		c2.cmd("BRPOPLPUSH list2{t} list1{t} 0")
		waitBlocked(e.t, e.ctl, 2)
		e.ctl.exact("RPUSH", "list1{t}", "foo")
		e.want("list1", e.ctl.exact("LRANGE", "list1{t}", "0", "-1"), bulks("foo"))
		e.want("list2", e.ctl.exact("LRANGE", "list2{t}", "0", "-1"), arr())
		e.want("c1", c1.next(), bulk("foo"))
		e.want("c2", c2.next(), bulk("foo"))

		// Self-referential BRPOPLPUSH.
		e.ctl.exact("FLUSHALL")
		c1.cmd("BRPOPLPUSH blist blist 0")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("RPUSH", "blist", "foo")
		e.want("self", c1.next(), bulk("foo"))
		e.want("blist", e.ctl.exact("LRANGE", "blist", "0", "-1"), bulks("foo"))

		// Keys in different shards: the moved element wakes a BLPOP on the
		// destination.
		e.ctl.exact("FLUSHALL")
		c2.cmd("BLPOP target 0")
		waitBlocked(e.t, e.ctl, 1)
		c1.cmd("BLMOVE source target LEFT RIGHT 0")
		waitBlocked(e.t, e.ctl, 2)
		e.ctl.exact("RPUSH", "source", "foo")
		e.want("mover", c1.next(), bulk("foo"))
		e.want("popper", c2.next(), bulks("target", "foo"))
		e.want("target gone", e.ctl.exact("EXISTS", "target", "source"), integer(0))
	})
}

// A served client whose command fails (wrong destination type) leaves the
// element for the next waiter.
func TestBlockingWrongDestination(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c1, c2 := e.client(), e.client()
		e.ctl.exact("SET", "target1", "nolist")
		c1.cmd("BRPOPLPUSH blist target1 0")
		waitBlocked(e.t, e.ctl, 1)
		c2.cmd("BRPOPLPUSH blist target2 0")
		waitBlocked(e.t, e.ctl, 2)
		e.ctl.exact("LPUSH", "blist", "foo")
		e.want("c1", c1.next(), wrongType)
		e.want("c2", c2.next(), bulk("foo"))
		e.want("target2", e.ctl.exact("LRANGE", "target2", "0", "-1"), bulks("foo"))

		c1.cmd("BRPOPLPUSH blist target1 0")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("RPUSH", "blist", "a", "b", "c")
		e.want("c1 again", c1.next(), wrongType)
		e.want("order kept", e.ctl.exact("LRANGE", "blist", "0", "-1"), bulks("a", "b", "c"))
	})
}

// Writes that leave no list behind do not wake a waiter (no WRONGTYPE for a
// key that became a string), and MULTI/EXEC is seen as a whole.
func TestBlockingTransactions(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		c.cmd("BLPOP list 0")
		waitBlocked(e.t, e.ctl, 1)
		for _, cmd := range []string{"MULTI", "LPUSH list a", "LPUSH list b", "LPUSH list c", "EXEC"} {
			e.ctl.exact(strings.Fields(cmd)...)
		}
		e.want("isolated from MULTI", c.next(), bulks("list", "c"))

		e.ctl.exact("DEL", "list")
		c.cmd("BLPOP list 0")
		waitBlocked(e.t, e.ctl, 1)
		for _, cmd := range []string{"MULTI", "LPUSH list a", "DEL list", "SET list foo", "EXEC", "DEL list"} {
			e.ctl.exact(strings.Fields(cmd)...)
		}
		e.ctl.exact("SET", "list", "str") // a plain write of another type
		e.ctl.exact("DEL", "list")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("LPUSH", "list", "b")
		e.want("not woken by push+del+set", c.next(), bulks("list", "b"))

		// Blocking commands inside MULTI answer at once.
		e.ctl.exact("RPUSH", "xlist", "foo", "bar")
		for _, cmd := range []string{"MULTI", "BLPOP xlist 0", "BLPOP xlist 0", "BLPOP xlist 0", "BLMPOP 0 1 xlist LEFT"} {
			e.ctl.exact(strings.Fields(cmd)...)
		}
		e.want("EXEC", e.ctl.exact("EXEC"), arr(bulks("xlist", "foo"), bulks("xlist", "bar"), nullArray, nullArray))
	})
}

// A blocked command does not touch WATCHed keys; once served it does.
func TestBlockingWatch(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		b, w := e.client(), e.client()
		e.ctl.exact("SET", "somekey", "somevalue")
		b.cmd("BRPOPLPUSH srclist dstlist 0")
		waitBlocked(e.t, e.ctl, 1)
		w.exact("WATCH", "dstlist")
		w.exact("MULTI")
		w.exact("GET", "somekey")
		e.want("EXEC while still blocked", w.exact("EXEC"), arr(bulk("somevalue")))

		w.exact("WATCH", "dstlist")
		w.exact("MULTI")
		w.exact("GET", "somekey")
		e.ctl.exact("LPUSH", "srclist", "element")
		e.want("served", b.next(), bulk("element"))
		e.want("EXEC after the move", w.exact("EXEC"), nullArray)
	})
}

// BLPOP on the same key several times, and on several keys.
func TestBlockingSameKeyTwice(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		c.cmd("BLPOP list1{t} list2{t} list2{t} list1{t} 0")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("LPUSH", "list1{t}", "a")
		e.want("list1", c.next(), bulks("list1{t}", "a"))
		c.cmd("BLPOP list1{t} list2{t} list2{t} list1{t} 0")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("LPUSH", "list2{t}", "b")
		e.want("list2", c.next(), bulks("list2{t}", "b"))
		e.ctl.exact("LPUSH", "list1{t}", "a")
		e.ctl.exact("LPUSH", "list2{t}", "b")
		e.want("both ready: first key", c.exact("BLPOP", "list1{t}", "list2{t}", "list2{t}", "list1{t}", "0"), bulks("list1{t}", "a"))
		e.want("both ready: second key", c.exact("BLPOP", "list1{t}", "list2{t}", "list2{t}", "list1{t}", "0"), bulks("list2{t}", "b"))

		// BLMPOP with COUNT, woken by a push on its second key.
		c.cmd("BLMPOP 0 2 a b RIGHT COUNT 2")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("RPUSH", "b", "1", "2", "3")
		e.want("BLMPOP", c.next(), arr(bulk("b"), bulks("3", "2")))
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
			e.want(tc.cmd, c.exact(strings.Fields(tc.cmd)...), tc.want)
			// Only a lower bound: how late a busy machine answers is not
			// the server's contract.
			if took := time.Since(begin); took < 150*time.Millisecond {
				e.t.Errorf("%s answered after %v, before its timeout", tc.cmd, took)
			}
		}
		e.want("nothing created", e.ctl.exact("EXISTS", "list", "d"), integer(0))

		// A client that timed out is not served later.
		c.cmd("BLPOP list 0.05")
		e.want("timeout", c.next(), nullArray)
		waitBlocked(e.t, e.ctl, 0)
		e.ctl.exact("RPUSH", "list", "x")
		e.want("element kept", e.ctl.exact("LRANGE", "list", "0", "-1"), bulks("x"))

		// Zero blocks until served.
		e.ctl.exact("DEL", "list")
		c.cmd("BLPOP list 0")
		waitBlocked(e.t, e.ctl, 1)
		time.Sleep(200 * time.Millisecond)
		e.ctl.exact("RPUSH", "list", "late")
		e.want("zero timeout", c.next(), bulks("list", "late"))
	})
}

// A client that disconnects while blocked leaves the element to the next.
func TestBlockingDisconnect(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		gone, stays := e.client(), e.client()
		gone.cmd("BLPOP list 0")
		waitBlocked(e.t, e.ctl, 1)
		stays.cmd("BLPOP list 0")
		waitBlocked(e.t, e.ctl, 2)
		gone.conn.Close()
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("RPUSH", "list", "x")
		e.want("second client", stays.next(), bulks("list", "x"))

		killed := e.client()
		id := strings.Trim(killed.exact("CLIENT", "ID"), ":\r\n")
		killed.cmd("BLPOP list 0")
		waitBlocked(e.t, e.ctl, 1)
		stays.cmd("BLPOP list 0")
		waitBlocked(e.t, e.ctl, 2)
		e.want("CLIENT KILL", e.ctl.exact("CLIENT", "KILL", "ID", id), integer(1))
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("RPUSH", "list", "y")
		e.want("after CLIENT KILL", stays.next(), bulks("list", "y"))
	})
}

// A client blocked forever does not hold up the server's shutdown (the
// harness fails the test if Shutdown times out).
func TestBlockedClientDoesNotHoldShutdown(t *testing.T) {
	s := start(t)
	c := dialRaw(t, s.Addr, 2)
	c.cmd("BLMOVE a b LEFT LEFT 0")
	waitBlocked(t, dialRaw(t, s.Addr, 2), 1)
}

// Pipelined commands behind a blocking one run after it is served.
func TestBlockingPipeline(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		c.send(encode("BLPOP", "list", "0") + encode("LLEN", "list") + encode("PING"))
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("RPUSH", "list", "a", "b")
		e.want("BLPOP", c.next(), bulks("list", "a"))
		e.want("LLEN", c.next(), integer(1))
		e.want("PING", c.next(), "+PONG\r\n")
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
					cmd := encode("BLPOP", keys[0], keys[1], keys[2], "1")
					if i%2 == 1 { // BLMOVE into a sink, in some other shard
						cmd = encode("BLMOVE", keys[i%len(keys)], sinks[i%len(sinks)], "LEFT", "RIGHT", "1")
					}
					c.send(cmd)
					c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
					v, err := readReply(c.r)
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
					c.send(encode("RPUSH", keys[(p+i)%len(keys)], fmt.Sprintf("%d-%d", p, i)))
					c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
					if _, err := readReply(c.r); err != nil {
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
			v, _ := dialRaw(e.t, e.addr, 2).do("LRANGE", k, "0", "-1").([]any)
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
		c.cmd("BLPOP foo{t} 5")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("LPUSH", "bob{t}", "abc", "def", "hij")
		e.ctl.exact("RENAME", "bob{t}", "foo{t}")
		e.want("renamed", c.next(), bulks("foo{t}", "hij"))
		e.want("rest", e.ctl.exact("LRANGE", "foo{t}", "0", "-1"), bulks("def", "abc"))

		c.exact("SELECT", "9")
		c.cmd("BLPOP swapped 5")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("RPUSH", "swapped", "x")
		e.ctl.exact("SWAPDB", "0", "9")
		e.want("swapped in", c.next(), bulks("swapped", "x"))
	})
}

// Waiters are per database.
func TestBlockingPerDatabase(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		c := e.client()
		c.exact("SELECT", "1")
		c.cmd("BLPOP k 0")
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("RPUSH", "k", "db0")
		e.want("db0 keeps its element", e.ctl.exact("LLEN", "k"), integer(1))
		waitBlocked(e.t, e.ctl, 1)
		e.ctl.exact("SELECT", "1")
		e.ctl.exact("RPUSH", "k", "db1")
		e.want("db1 waiter", c.next(), bulks("k", "db1"))
		e.ctl.exact("FLUSHALL")
		e.ctl.exact("SELECT", "0")
	})
}

// The destination of a waiting BLMOVE is locked by a long transaction when
// the source gets its element: the waiter is served once the transaction is
// done, and the push's reply waits for that too.
func TestBlockingMoveIntoBusyShard(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		mover, tx := e.client(), e.client()
		mover.cmd("BLMOVE src dst LEFT RIGHT 0")
		waitBlocked(e.t, e.ctl, 1)
		tx.exact("MULTI")
		tx.exact("RPUSH", "dst", "first")
		tx.exact("DEBUG", "SLEEP", "0.3")
		tx.cmd("EXEC")
		time.Sleep(50 * time.Millisecond) // EXEC now holds dst's shard
		e.want("push", e.ctl.exact("RPUSH", "src", "moved"), integer(1))
		e.want("dst after the push", e.ctl.exact("LRANGE", "dst", "0", "-1"), bulks("first", "moved"))
		e.want("mover", mover.next(), bulk("moved"))
		e.want("EXEC", tx.next(), arr(integer(1), okReply))
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
			{"BLMOVE list other LEFT RIGHT 0", "ERROR", errReply("UNBLOCKED client unblocked via CLIENT UNBLOCK")},
			{"BRPOP list 100", "error", errReply("UNBLOCKED client unblocked via CLIENT UNBLOCK")},
		} {
			c := e.client()
			id := strings.TrimSuffix(strings.TrimPrefix(c.exact("CLIENT", "ID"), ":"), "\r\n")
			c.cmd(tc.cmd)
			waitBlocked(e.t, e.ctl, 1)
			list := e.ctl.exact("CLIENT", "LIST", "ID", id)
			if !regexp.MustCompile(` flags=b `).MatchString(list) {
				e.t.Errorf("%s: CLIENT LIST of the blocked client: %q", tc.cmd, list)
			}
			args := []string{"CLIENT", "UNBLOCK", id}
			if tc.reason != "" {
				args = append(args, tc.reason)
			}
			e.want(tc.cmd+": CLIENT UNBLOCK", e.ctl.exact(args...), integer(1))
			e.want(tc.cmd+": its reply", c.next(), tc.want)
			waitBlocked(e.t, e.ctl, 0)
			e.want(tc.cmd+": CLIENT UNBLOCK again", e.ctl.exact(args...), integer(0))
			e.want(tc.cmd+": the client carries on", c.exact("LPUSH", "list", "x"), integer(1))
			e.ctl.exact("DEL", "list")
		}
		e.want("unknown id", e.ctl.exact("CLIENT", "UNBLOCK", "999999"), integer(0))
		e.want("bad id", e.ctl.exact("CLIENT", "UNBLOCK", "x"), errReply("ERR value is not an integer or out of range"))
		e.want("bad reason", e.ctl.exact("CLIENT", "UNBLOCK", "1", "later"), errReply("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"))
		e.want("too many", e.ctl.exact("CLIENT", "UNBLOCK", "1", "TIMEOUT", "x"),
			errReply("ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. Try CLIENT HELP."))
	})
}

// Which error a blocking command with several bad arguments answers:
// BLMPOP and BZMPOP read their timeout after numkeys, the direction and
// COUNT; BLMOVE after its directions; the others first.
func TestDifferentialBlockingArgumentErrors(t *testing.T) {
	differ(t, [][]string{
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
