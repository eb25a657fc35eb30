package commands

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Streams beyond what the differential tests can compare: IDs taken from
// the clock, reads blocked until another client's XADD, idle times, and
// persistence. The scenarios built on eachTarget also run against a real
// Redis when $HOTKV_COMPARE_ADDR names one (see targets), which checks the
// expectations themselves.

// streamReply is an XREAD/XREADGROUP reply as harness.ReadReply parses it: an array
// of [key, entries] pairs in RESP2, a map from key to entries in RESP3.
func streamReply(proto int, keyEntries ...any) any {
	if proto == 3 {
		return harness.Map(keyEntries)
	}
	out := []any{}
	for i := 0; i < len(keyEntries); i += 2 {
		out = append(out, []any{keyEntries[i], keyEntries[i+1]})
	}
	return out
}

// streamEntries builds a list of entries from "id field value ..." strings.
func streamEntries(entries ...string) []any {
	out := []any{}
	for _, e := range entries {
		w := strings.Fields(e)
		out = append(out, []any{w[0], strs(w[1:]...)})
	}
	return out
}

// streamFields turns a key/value reply (a flat RESP2 array or a RESP3 map)
// into a Go map.
func streamFields(t testing.TB, v any) map[string]any {
	t.Helper()
	var kv []any
	switch x := v.(type) {
	case harness.Map:
		kv = x
	case []any:
		kv = x
	default:
		t.Fatalf("not a key/value reply: %#v", v)
	}
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}

// streamAwait reads, in the background, the reply to a command already sent
// on r.
func streamAwait(r *harness.Conn) chan any {
	ch := make(chan any, 1)
	go func() {
		r.NetConn.SetReadDeadline(time.Now().Add(10 * time.Second))
		v, err := harness.ReadReply(r.Reader)
		if err != nil {
			ch <- err
			return
		}
		ch <- v
	}()
	return ch
}

func streamWant(t testing.TB, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\ngot  %#v\nwant %#v", what, got, want)
	}
}

// XADD with "*" takes the clock's milliseconds, and a sequence that counts
// up within one millisecond.
func TestStreamXAddAutoID(t *testing.T) {
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	before := time.Now().UnixMilli()
	id, err := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "*", Values: []string{"f", "v"}}).Result()
	after := time.Now().UnixMilli()
	if err != nil {
		t.Fatal(err)
	}
	ms, seq := streamParseID(t, id)
	if int64(ms) < before-5 || int64(ms) > after+5 || seq != 0 {
		t.Fatalf("XADD * = %s, want about %d..%d", id, before, after)
	}

	// A burst: IDs strictly increase; within one ms the sequence goes up by
	// one, a new ms starts at 0.
	cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range 2000 {
			p.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "*", Values: []string{"i", strconv.Itoa(i)}})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lastMS, lastSeq := ms, seq
	sameMS := 0
	for _, cmd := range cmds {
		id := cmd.(*redis.StringCmd).Val()
		ms, seq := streamParseID(t, id)
		switch {
		case ms == lastMS:
			sameMS++
			if seq != lastSeq+1 {
				t.Fatalf("%s after %d-%d: the sequence should go up by one", id, lastMS, lastSeq)
			}
		case ms > lastMS:
			if seq != 0 {
				t.Fatalf("%s after %d-%d: a new millisecond starts at sequence 0", id, lastMS, lastSeq)
			}
		default:
			t.Fatalf("%s after %d-%d: IDs must increase", id, lastMS, lastSeq)
		}
		lastMS, lastSeq = ms, seq
	}
	if now := time.Now().UnixMilli(); int64(lastMS) > now+5 {
		t.Fatalf("last ID %d-%d is ahead of the clock (%d)", lastMS, lastSeq, now)
	}
	if sameMS == 0 {
		t.Log("no two IDs shared a millisecond (a slow run); the sequence was not exercised")
	}
	if n := c.XLen(ctx, "s").Val(); n != 2001 {
		t.Fatalf("XLEN = %d", n)
	}

	// "ms-*" with the clock's ms, and "*" after an ID in the future.
	future := time.Now().UnixMilli() + 3600_000
	id = c.XAdd(ctx, &redis.XAddArgs{Stream: "f", ID: fmt.Sprintf("%d-*", future), Values: []string{"f", "v"}}).Val()
	if id != fmt.Sprintf("%d-0", future) {
		t.Fatalf("XADD %d-* = %s", future, id)
	}
	id = c.XAdd(ctx, &redis.XAddArgs{Stream: "f", ID: "*", Values: []string{"f", "v"}}).Val()
	if id != fmt.Sprintf("%d-1", future) {
		t.Fatalf("XADD * after an ID in the future = %s, want %d-1", id, future)
	}
	s.NoPanics(t)
}

func streamParseID(t testing.TB, id string) (ms, seq uint64) {
	t.Helper()
	a, b, ok := strings.Cut(id, "-")
	ms, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("bad stream ID %q", id)
	}
	return ms, seq
}

// One XADD serves every client blocked on the stream, each with the entries
// after its own ID; a write to another key wakes nobody.
func TestStreamXReadBlockServesEveryReader(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		var waiting []chan any
		for i, c := range []string{
			"XREAD BLOCK 0 STREAMS s $",
			"XREAD BLOCK 0 STREAMS s $",
			"XREAD BLOCK 0 STREAMS other s $ $",
			"XREAD BLOCK 0 COUNT 5 STREAMS s 0", // missing key: blocks too
		} {
			r := e.client()
			r.Cmd(c)
			waiting = append(waiting, streamAwait(r))
			harness.WaitBlocked(e.t, e.ctl, i+1)
		}
		e.ctl.Exact("XADD", "unrelated", "1-1", "f", "v")
		e.ctl.Exact("SET", "s2", "x")
		harness.WaitBlocked(e.t, e.ctl, 4)
		e.ctl.Exact("XADD", "s", "1-1", "f", "v")
		want := streamReply(e.proto, "s", streamEntries("1-1 f v"))
		for i, ch := range waiting {
			streamWant(e.t, fmt.Sprintf("reader %d", i), recv(e.t, ch), want)
		}

		// A reader after 1-1 with COUNT 1, served by a transaction that adds
		// two entries: it gets the first one only.
		r := e.client()
		r.Cmd("XREAD BLOCK 0 COUNT 1 STREAMS s 1-1")
		ch := streamAwait(r)
		harness.WaitBlocked(e.t, e.ctl, 1)
		for _, c := range []string{"MULTI", "XADD s 2-1 a 1", "XADD s 3-1 b 2", "EXEC"} {
			e.ctl.Exact(strings.Fields(c)...)
		}
		streamWant(e.t, "COUNT 1 after MULTI", recv(e.t, ch), streamReply(e.proto, "s", streamEntries("2-1 a 1")))

		// "+" on a missing stream blocks until the first entry.
		r.Cmd("XREAD BLOCK 0 STREAMS plus +")
		ch = streamAwait(r)
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("XADD", "plus", "5-5", "f", "v")
		streamWant(e.t, "XREAD + served", recv(e.t, ch), streamReply(e.proto, "plus", streamEntries("5-5 f v")))

		// "$" is the last ID when the command arrives: an XADD before it
		// does not count, a later one does.
		r.Cmd("XREAD BLOCK 0 STREAMS s $")
		ch = streamAwait(r)
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("XADD", "s", "4-1", "c", "3")
		streamWant(e.t, "XREAD $ served", recv(e.t, ch), streamReply(e.proto, "s", streamEntries("4-1 c 3")))

		// Deleting the key or giving it another type does not end an XREAD:
		// it waits for an entry after its ID in whatever stream the key
		// holds next.
		r.Cmd("XREAD BLOCK 0 STREAMS s $")
		ch = streamAwait(r)
		harness.WaitBlocked(e.t, e.ctl, 1)
		for _, c := range []string{"DEL s", "SET s x", "DEL s", "XADD s 0-5 f old"} {
			e.ctl.Exact(strings.Fields(c)...)
		}
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("XADD", "s", "9-9", "f", "new")
		streamWant(e.t, "XREAD after DEL", recv(e.t, ch), streamReply(e.proto, "s", streamEntries("9-9 f new")))
	})
}

// A BLOCK that runs out answers a null array, after the timeout.
func TestStreamXReadBlockTimeout(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		e.ctl.Exact("XADD", "s", "1-1", "f", "v")
		e.ctl.Exact("XGROUP", "CREATE", "s", "g", "$")
		null := nullArray
		if e.proto == 3 {
			null = "_\r\n"
		}
		for _, c := range [][]string{
			{"XREAD", "BLOCK", "150", "STREAMS", "s", "$"},
			{"XREAD", "BLOCK", "150", "STREAMS", "s", "missing", "1-1", "$"},
			{"XREADGROUP", "GROUP", "g", "alice", "BLOCK", "150", "STREAMS", "s", ">"},
		} {
			begin := time.Now()
			got := e.ctl.Exact(c...)
			took := time.Since(begin)
			if got != null || took < 150*time.Millisecond || took > 3*time.Second {
				e.t.Fatalf("%q: %q after %v, want %q after 150ms", c, got, took, null)
			}
		}
		// The timeout left nothing pending and no entry read.
		e.want("XPENDING", e.ctl.Exact("XPENDING", "s", "g"), arr(harness.Integer(0), nullBulk, nullBulk, nullArray))
	})
}

// XREADGROUP BLOCK with ">": an XADD serves one consumer per entry (the one
// blocked first), the entry becomes pending for it; NOACK leaves nothing
// pending; destroying the group or the key ends the wait with an error.
func TestStreamXReadGroupBlock(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		e.ctl.Exact("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
		alice, bob := e.client(), e.client()
		alice.Cmd("XREADGROUP GROUP g alice BLOCK 0 STREAMS s >")
		aliceCh := streamAwait(alice)
		harness.WaitBlocked(e.t, e.ctl, 1)
		bob.Cmd("XREADGROUP GROUP g bob BLOCK 0 STREAMS s >")
		bobCh := streamAwait(bob)
		harness.WaitBlocked(e.t, e.ctl, 2)

		e.ctl.Exact("XADD", "s", "1-1", "f", "v")
		streamWant(e.t, "alice", recv(e.t, aliceCh), streamReply(e.proto, "s", streamEntries("1-1 f v")))
		harness.WaitBlocked(e.t, e.ctl, 1) // bob found nothing new and waits on
		ext := e.ctl.Do("XPENDING", "s", "g", "-", "+", "10")
		if l, ok := ext.([]any); !ok || len(l) != 1 {
			e.t.Fatalf("XPENDING extended: %#v", ext)
		} else if f := l[0].([]any); f[0] != "1-1" || f[1] != "alice" || f[3] != int64(1) {
			e.t.Fatalf("XPENDING entry: %#v, want 1-1 pending for alice, delivered once", f)
		}

		e.ctl.Exact("XADD", "s", "2-1", "f", "w")
		streamWant(e.t, "bob", recv(e.t, bobCh), streamReply(e.proto, "s", streamEntries("2-1 f w")))
		streamWant(e.t, "XPENDING", e.ctl.Do("XPENDING", "s", "g"),
			[]any{int64(2), "1-1", "2-1", []any{[]any{"alice", "1"}, []any{"bob", "1"}}})

		// NOACK: delivered, not pending.
		carol := e.client()
		carol.Cmd("XREADGROUP GROUP g carol NOACK BLOCK 0 STREAMS s >")
		carolCh := streamAwait(carol)
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("XADD", "s", "3-1", "f", "x")
		streamWant(e.t, "carol", recv(e.t, carolCh), streamReply(e.proto, "s", streamEntries("3-1 f x")))
		streamWant(e.t, "XPENDING after NOACK", e.ctl.Do("XPENDING", "s", "g"),
			[]any{int64(2), "1-1", "2-1", []any{[]any{"alice", "1"}, []any{"bob", "1"}}})
		groups := e.ctl.Do("XINFO", "GROUPS", "s").([]any)
		g := streamFields(e.t, groups[0])
		if g["last-delivered-id"] != "3-1" || g["entries-read"] != int64(3) || g["lag"] != int64(0) || g["consumers"] != int64(3) {
			e.t.Fatalf("XINFO GROUPS: %v", g)
		}

		// A history read never blocks.
		streamWant(e.t, "history read with BLOCK", e.ctl.Do("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", "0"),
			streamReply(e.proto, "s", streamEntries("1-1 f v")))

		// The group or the key going away (a flush too) ends the wait with
		// NOGROUP, the key taking another type with WRONGTYPE; trimming or
		// moving the group's ID does not end it. INFO counts the key as
		// one a deletion unblocks, and the errors in errorstats.
		nogroup := harness.Err("NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option")
		e.ctl.Exact("CONFIG", "RESETSTAT")
		for _, c := range []struct {
			end  []string
			want any
		}{
			{[]string{"XGROUP", "DESTROY", "s", "g"}, nogroup},
			{[]string{"DEL", "s"}, nogroup},
			{[]string{"FLUSHDB"}, nogroup},
			{[]string{"FLUSHALL"}, nogroup},
			{[]string{"SET", "s", "x"}, zWrongType},
		} {
			e.ctl.Exact("DEL", "s")
			e.ctl.Exact("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
			r := e.client()
			r.Cmd("XREADGROUP GROUP g alice BLOCK 0 STREAMS s >")
			ch := streamAwait(r)
			harness.WaitBlocked(e.t, e.ctl, 1)
			if info := e.ctl.Exact("INFO", "clients"); !strings.Contains(info, "total_blocking_keys:1\r\n") ||
				!strings.Contains(info, "total_blocking_keys_on_nokey:1\r\n") {
				e.t.Fatalf("INFO clients with XREADGROUP blocked on one key:\n%s", info)
			}
			e.ctl.Exact("XTRIM", "s", "MAXLEN", "0")
			e.ctl.Exact("XGROUP", "SETID", "s", "g", "0")
			harness.WaitBlocked(e.t, e.ctl, 1)
			e.ctl.Exact(c.end...)
			streamWant(e.t, fmt.Sprintf("blocked XREADGROUP after %v", c.end), recv(e.t, ch), c.want)
		}
		if info := e.ctl.Exact("INFO", "errorstats"); !strings.Contains(info, "errorstat_NOGROUP:count=4\r\n") ||
			!strings.Contains(info, "errorstat_WRONGTYPE:count=1\r\n") {
			e.t.Fatalf("INFO errorstats after the blocked reads failed:\n%s", info)
		}
		if info := e.ctl.Exact("INFO", "clients"); !strings.Contains(info, "total_blocking_keys:0\r\n") {
			e.t.Fatalf("INFO clients with none blocked:\n%s", info)
		}
	})
}

// Inside MULTI, BLOCK does not block: the reads answer null at once.
func TestStreamBlockInsideMulti(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		e.ctl.Exact("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
		begin := time.Now()
		for _, c := range []string{"MULTI", "XREAD BLOCK 0 STREAMS s $", "XREAD BLOCK 0 STREAMS missing 0",
			"XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "XREADGROUP GROUP g c BLOCK 5000 STREAMS s >"} {
			e.ctl.Exact(strings.Fields(c)...)
		}
		e.want("EXEC", e.ctl.Exact("EXEC"), arr(nullArray, nullArray, nullArray, nullArray))
		if took := time.Since(begin); took > time.Second {
			e.t.Fatalf("EXEC took %v", took)
		}
	})
}

// XINFO CONSUMERS: idle counts from the consumer's last attempt, inactive
// from its last read that returned something (-1: never).
func TestStreamXInfoConsumersTimes(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		for _, c := range []string{"XADD s 1-1 f v", "XADD s 2-1 f v", "XGROUP CREATE s g 0",
			"XREADGROUP GROUP g alice COUNT 1 STREAMS s >", "XGROUP CREATECONSUMER s g bob"} {
			e.ctl.Exact(strings.Fields(c)...)
		}
		consumers := func() map[string]map[string]any {
			out := map[string]map[string]any{}
			for _, c := range e.ctl.Do("XINFO", "CONSUMERS", "s", "g").([]any) {
				f := streamFields(e.t, c)
				out[f["name"].(string)] = f
			}
			return out
		}
		between := func(what string, v any, lo, hi int64) {
			e.t.Helper()
			if n, ok := v.(int64); !ok || n < lo || n > hi {
				e.t.Fatalf("%s = %#v, want %d..%d", what, v, lo, hi)
			}
		}
		c := consumers()
		if len(c) != 2 || c["alice"]["pending"] != int64(1) || c["bob"]["pending"] != int64(0) {
			e.t.Fatalf("XINFO CONSUMERS: %v", c)
		}
		between("alice idle", c["alice"]["idle"], 0, 100)
		between("alice inactive", c["alice"]["inactive"], 0, 100)
		between("bob idle", c["bob"]["idle"], 0, 100)
		between("bob inactive", c["bob"]["inactive"], -1, -1)
		if len(c["alice"]) != 4 {
			e.t.Fatalf("fields: %v, want name, pending, idle, inactive", c["alice"])
		}

		time.Sleep(200 * time.Millisecond)
		e.ctl.Exact("XREADGROUP", "GROUP", "g", "bob", "COUNT", "1", "STREAMS", "s", ">") // gets 2-1
		c = consumers()
		between("alice idle after 200ms", c["alice"]["idle"], 200, 5000)
		between("alice inactive after 200ms", c["alice"]["inactive"], 200, 5000)
		between("bob idle after reading", c["bob"]["idle"], 0, 150)
		between("bob inactive after reading", c["bob"]["inactive"], 0, 150)
		between("bob pending", c["bob"]["pending"], 1, 1)

		// An attempt that finds nothing refreshes idle only.
		time.Sleep(200 * time.Millisecond)
		e.ctl.Exact("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">")
		c = consumers()
		between("alice idle after an empty read", c["alice"]["idle"], 0, 150)
		between("alice inactive after an empty read", c["alice"]["inactive"], 400, 5000)
	})
}

// XPENDING's IDLE filter and idle column, XCLAIM's and XAUTOCLAIM's
// min-idle-time, and the delivery times IDLE and TIME set.
func TestStreamIdleTimes(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		for _, c := range []string{"XADD s 1-1 f 1", "XADD s 2-1 f 2", "XADD s 3-1 f 3", "XADD s 4-1 f 4",
			"XGROUP CREATE s g 0", "XREADGROUP GROUP g alice COUNT 2 STREAMS s >"} {
			e.ctl.Exact(strings.Fields(c)...)
		}
		time.Sleep(250 * time.Millisecond)
		e.ctl.Exact("XREADGROUP", "GROUP", "g", "bob", "COUNT", "2", "STREAMS", "s", ">")
		type pe struct {
			id, owner   string
			idle, count int64
		}
		pending := func(args ...string) []pe {
			e.t.Helper()
			var out []pe
			for _, x := range e.ctl.Do(append([]string{"XPENDING", "s", "g"}, args...)...).([]any) {
				f := x.([]any)
				out = append(out, pe{f[0].(string), f[1].(string), f[2].(int64), f[3].(int64)})
			}
			return out
		}
		ids := func(ps []pe) string {
			var s []string
			for _, p := range ps {
				s = append(s, p.id+"/"+p.owner)
			}
			return strings.Join(s, " ")
		}
		all := pending("-", "+", "10")
		if ids(all) != "1-1/alice 2-1/alice 3-1/bob 4-1/bob" {
			e.t.Fatalf("XPENDING: %v", all)
		}
		for _, p := range all {
			if p.owner == "alice" && (p.idle < 250 || p.idle > 5000) || p.owner == "bob" && p.idle > 200 {
				e.t.Fatalf("idle times: %v (alice's entries are 250ms older)", all)
			}
		}
		if got := ids(pending("IDLE", "200", "-", "+", "10")); got != "1-1/alice 2-1/alice" {
			e.t.Fatalf("XPENDING IDLE 200: %q", got)
		}
		if got := ids(pending("IDLE", "200", "-", "+", "10", "bob")); got != "" {
			e.t.Fatalf("XPENDING IDLE 200 for bob: %q", got)
		}

		// XCLAIM takes only entries idle at least min-idle-time, and resets
		// their idle time.
		e.want("XCLAIM of fresh entries", e.ctl.Exact("XCLAIM", "s", "g", "carol", "200", "3-1", "4-1", "JUSTID"), arr())
		e.want("XCLAIM of old and fresh", e.ctl.Exact("XCLAIM", "s", "g", "carol", "200", "1-1", "3-1", "JUSTID"), bulks("1-1"))
		if p := pending("-", "1-1", "1"); len(p) != 1 || p[0].owner != "carol" || p[0].idle > 200 || p[0].count != 1 {
			e.t.Fatalf("after XCLAIM JUSTID: %v (idle reset, count unchanged)", p)
		}
		time.Sleep(250 * time.Millisecond)
		e.want("XAUTOCLAIM", e.ctl.Exact("XAUTOCLAIM", "s", "g", "dave", "200", "0", "COUNT", "1"),
			arr(harness.Bulk("2-1"), arr(arr(harness.Bulk("1-1"), bulks("f", "1"))), arr()))
		if p := pending("-", "1-1", "1"); len(p) != 1 || p[0].owner != "dave" || p[0].idle > 200 || p[0].count != 2 {
			e.t.Fatalf("after XAUTOCLAIM: %v (delivered twice, idle reset)", p)
		}

		// IDLE and TIME set the delivery time.
		e.ctl.Exact("XCLAIM", "s", "g", "erin", "0", "2-1", "IDLE", "5000", "JUSTID")
		when := time.Now().UnixMilli() - 60_000
		e.ctl.Exact("XCLAIM", "s", "g", "erin", "0", "3-1", "TIME", strconv.FormatInt(when, 10), "JUSTID")
		p := pending("-", "+", "10", "erin")
		if len(p) != 2 || p[0].idle < 5000 || p[0].idle > 7000 || p[1].idle < 60_000 || p[1].idle > 62_000 {
			e.t.Fatalf("after XCLAIM IDLE 5000 and TIME now-60s: %v", p)
		}
		if got := ids(pending("IDLE", "10000", "-", "+", "10")); got != "3-1/erin" {
			e.t.Fatalf("XPENDING IDLE 10000: %q", got)
		}
	})
}

// streamPersistState describes the streams the persistence tests build:
// everything the commands show, with clock readings masked (a consumer that
// never read keeps its -1).
func streamPersistState(t *testing.T, r *harness.Conn) string {
	t.Helper()
	var b strings.Builder
	for _, c := range [][]string{
		{"XRANGE", "s", "-", "+"}, {"XINFO", "STREAM", "s"}, {"XINFO", "GROUPS", "s"},
		{"XPENDING", "s", "g"}, {"XPENDING", "s", "g", "-", "+", "100"}, {"XPENDING", "s", "g2"},
		{"XINFO", "CONSUMERS", "s", "g"}, {"XINFO", "CONSUMERS", "s", "g2"}, {"XINFO", "STREAM", "s", "FULL"},
		{"XRANGE", "auto", "-", "+"}, {"XINFO", "STREAM", "auto"},
		{"XINFO", "STREAM", "empty"}, {"XINFO", "GROUPS", "empty"},
		{"XINFO", "STREAM", "gone"}, {"TYPE", "s"}, {"OBJECT", "ENCODING", "s"},
		{"XPENDING", "s", "g", "IDLE", "3600000", "-", "+", "10"},
	} {
		v := r.Do(c...)
		if streamHasTimes(c) {
			v = streamMaskTimes(c, v, false)
		}
		fmt.Fprintf(&b, "%v: %#v\n", c, v)
	}
	return b.String()
}

// streamPersistFill builds streams with every kind of state: deleted and
// trimmed entries, XSETID's counters, groups at several positions, pending
// entries with several owners and delivery counts, consumers with and
// without reads, an old delivery time, an empty stream with a group.
func streamPersistFill(t *testing.T, s *harness.Server) {
	t.Helper()
	r := s.Raw(t)
	// A reader blocked before the writes, served by one of them: its read
	// must be kept like any other.
	r.Do("XGROUP", "CREATE", "s", "g2", "$", "MKSTREAM")
	blocked := s.Raw(t)
	blocked.Send(harness.Encode("XREADGROUP", "GROUP", "g2", "waiter", "BLOCK", "0", "STREAMS", "s", ">"))
	zWaitBlocked(t, r, 1)
	r.Do("XADD", "s", "0-1", "warm", "up") // trimmed below: a pending entry that is gone
	for _, c := range []string{
		"XADD s 1-1 a 1 b 2", "XADD s 1-2 a 3", "XADD s 2-0 c 4", "XADD s MAXLEN 20 3-0 d 5",
		"XADD s 4-0 e 6", "XADD s 5-0 f 7", "XADD s 6-0 g 8", "XADD s 7-0 h 9",
		"XGROUP CREATE s g 0", "XGROUP CREATE s late 4-0 ENTRIESREAD 3",
		"XREADGROUP GROUP g alice COUNT 3 STREAMS s >",
		"XREADGROUP GROUP g bob COUNT 2 STREAMS s >",
		"XREADGROUP GROUP g carol NOACK COUNT 1 STREAMS s >",
		"XGROUP CREATECONSUMER s g idler",
		"XGROUP CREATECONSUMER s g dropped", "XGROUP DELCONSUMER s g dropped",
		"XACK s g 1-2",
		"XCLAIM s g bob 0 1-1 RETRYCOUNT 5 JUSTID",
		"XCLAIM s g dave 0 2-0 IDLE 7200000",
		"XAUTOCLAIM s g erin 0 3-0 COUNT 1",
		"XDEL s 5-0",
		"XTRIM s MINID 1-1",
		"XADD s 8-0 i 10",
		"XSETID s 9-0 ENTRIESADDED 20 MAXDELETEDID 5-0",
		"XCLAIM s late frank 0 6-0 FORCE LASTID 6-0",
		"XGROUP SETID s late 6-0 ENTRIESREAD 5",
		"XREADGROUP GROUP g alice COUNT 1 STREAMS s 0", // a history read: one more delivery
		"XADD empty MAXLEN 0 3-3 f v", "XGROUP CREATE empty eg $",
		"XADD gone 1-1 f v", "XDEL gone 1-1",
	} {
		if v, isErr := r.Do(strings.Fields(c)...).(harness.Err); isErr {
			t.Fatalf("%s: %v", c, v)
		}
	}
	// IDs from the clock, in a transaction and out.
	r.Do("XADD", "auto", "*", "n", "1")
	r.Do("MULTI")
	r.Do("XADD", "auto", "*", "n", "2")
	r.Do("XADD", "auto", "*", "n", "3")
	r.Do("EXEC")
	for i := 4; i < 50; i++ {
		r.Do("XADD", "auto", "MAXLEN", "=", "40", "*", "n", strconv.Itoa(i))
	}
	if v := blocked.Read(); fmt.Sprint(v) == "" || strings.Contains(fmt.Sprint(v), "ERR") {
		t.Fatalf("blocked XREADGROUP got %#v", v)
	}
	if v := r.Do("XPENDING", "s", "g2"); !reflect.DeepEqual(v, []any{int64(1), "0-1", "0-1", []any{[]any{"waiter", "1"}}}) {
		t.Fatalf("the served reader's entry is not pending: %#v", v)
	}
	// XAUTOCLAIM drops the trimmed 0-1 from g2's pending entries.
	if v := r.Do("XAUTOCLAIM", "s", "g2", "w2", "0", "0"); !reflect.DeepEqual(v, []any{"0-0", []any{}, []any{"0-1"}}) {
		t.Fatalf("XAUTOCLAIM over a trimmed entry: %#v", v)
	}
}

// A snapshot (SAVE, then a restart) keeps streams whole: entries, counters,
// groups, consumers, pending entries and their delivery times.
func TestStreamPersistSnapshot(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", ""}
	s := harness.Start(t, args...)
	streamPersistFill(t, s)
	r := s.Raw(t)
	before := streamPersistState(t, r)
	if v := r.Do("SAVE"); v != harness.Status("OK") {
		t.Fatalf("SAVE: %#v", v)
	}
	s.Shutdown(context.Background())

	s2 := harness.Start(t, args...)
	r2 := s2.Raw(t)
	if after := streamPersistState(t, r2); after != before {
		t.Fatalf("after SAVE and restart:\n%s\nwant:\n%s", after, before)
	}
	// The group reads on from where it was: after 5-0, the last entry
	// delivered before the restart.
	r2.Expect("10-0", "XADD", "s", "10-0", "z", "z")
	r2.Expect([]any{[]any{"s", streamEntries("6-0 g 8", "7-0 h 9", "8-0 i 10", "10-0 z z")}},
		"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">")
	s2.NoPanics(t)
}

// The append-only log replays to the same streams, "*" IDs included, and so
// does the log after a rewrite.
func TestStreamPersistAOF(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--appendonly", "yes"}
	s := harness.Start(t, args...)
	streamPersistFill(t, s)
	before := streamPersistState(t, s.Raw(t))
	s.Shutdown(context.Background())

	s2 := harness.Start(t, args...)
	r2 := s2.Raw(t)
	if after := streamPersistState(t, r2); after != before {
		t.Fatalf("after replaying the log:\n%s\nwant:\n%s", after, before)
	}
	if v := r2.Do("BGREWRITEAOF"); fmt.Sprint(v) == "" || strings.HasPrefix(fmt.Sprint(v), "ERR") {
		t.Fatalf("BGREWRITEAOF: %v", v)
	}
	harness.Eventually(t, "the rewrite to finish", func() bool {
		info := s2.Info(t, "persistence")
		return info["aof_rewrite_in_progress"] == "0" && info["aof_rewrite_scheduled"] == "0"
	})
	s2.Shutdown(context.Background())

	s3 := harness.Start(t, args...)
	if after := streamPersistState(t, s3.Raw(t)); after != before {
		t.Fatalf("after a rewrite and a restart:\n%s\nwant:\n%s", after, before)
	}
	s3.NoPanics(t)
}

// Which stream commands end a WATCH on their key: in Redis only changes to
// the entries do (XADD, an XDEL or XTRIM that removes something, a stream
// created by MKSTREAM); consumer-group bookkeeping (XREADGROUP, XACK,
// XCLAIM, XGROUP, ...), XSETID and commands that change nothing leave the
// transaction to run.
func TestStreamWatch(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		w := e.client()
		aborted, ran := nullArray, arr("+PONG\r\n")
		if e.proto == 3 {
			aborted = "_\r\n"
		}
		for _, c := range []struct {
			cmd, key string
			aborts   bool
		}{
			{"XADD s 9-1 f v", "s", true},
			{"XADD s NOMKSTREAM MAXLEN 0 9-1 f v", "s", true},
			{"XDEL s 2-1", "s", true},
			{"XTRIM s MAXLEN 1", "s", true},
			{"XGROUP CREATE mk g $ MKSTREAM", "mk", true},
			{"DEL s", "s", true},
			{"XDEL s 99-1", "s", false},
			{"XTRIM s MAXLEN 100", "s", false},
			{"XADD nokey NOMKSTREAM 5-1 f v", "nokey", false},
			{"XREADGROUP GROUP g c2 STREAMS s >", "s", false},
			{"XREADGROUP GROUP g c STREAMS s 0", "s", false},
			{"XREADGROUP GROUP g c NOACK STREAMS s >", "s", false},
			{"XACK s g 1-1", "s", false},
			{"XACK s g 99-1", "s", false},
			{"XCLAIM s g other 0 1-1", "s", false},
			{"XCLAIM s g other 0 3-1 FORCE", "s", false},
			{"XAUTOCLAIM s g other 0 0", "s", false},
			{"XGROUP CREATE s g2 0", "s", false},
			{"XGROUP SETID s g 0", "s", false},
			{"XGROUP DESTROY s g", "s", false},
			{"XGROUP CREATECONSUMER s g new", "s", false},
			{"XGROUP DELCONSUMER s g c", "s", false},
			{"XSETID s 10-0", "s", false},
			{"XSETID s 3-1", "s", false},
			{"XPENDING s g", "s", false},
			{"XINFO GROUPS s", "s", false},
			{"XREAD STREAMS s 0", "s", false},
		} {
			for _, setup := range []string{"DEL s mk nokey", "XADD s 1-1 f v", "XADD s 2-1 f v", "XADD s 3-1 f v",
				"XGROUP CREATE s g 0", "XREADGROUP GROUP g c COUNT 1 STREAMS s >"} {
				e.ctl.Exact(strings.Fields(setup)...)
			}
			w.Exact("WATCH", c.key)
			e.ctl.Exact(strings.Fields(c.cmd)...)
			w.Exact("MULTI")
			w.Exact("PING")
			want := ran
			if c.aborts {
				want = aborted
			}
			e.want(fmt.Sprintf("EXEC after %s by another client", c.cmd), w.Exact("EXEC"), want)
		}
	})
}

// CLIENT UNBLOCK ends a blocked read (a null, or an error with ERROR); an
// XADD from a script or a transaction serves a blocked reader once it is
// done.
func TestStreamBlockedReadersUnblockAndScripts(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		e.ctl.Exact("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
		r := e.client()
		id := strings.TrimSpace(strings.TrimPrefix(r.Exact("CLIENT", "ID"), ":"))
		null := nullArray
		if e.proto == 3 {
			null = "_\r\n"
		}
		for _, c := range []struct{ read, unblock, want string }{
			{"XREAD BLOCK 0 STREAMS s $", "CLIENT UNBLOCK " + id, null},
			{"XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "CLIENT UNBLOCK " + id + " TIMEOUT", null},
			{"XREADGROUP GROUP g c BLOCK 0 STREAMS s >", "CLIENT UNBLOCK " + id + " ERROR",
				"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"},
		} {
			r.Cmd(c.read)
			harness.WaitBlocked(e.t, e.ctl, 1)
			e.want(c.unblock, e.ctl.Exact(strings.Fields(c.unblock)...), harness.Integer(1))
			e.want(c.read+" after "+c.unblock, r.Next(), c.want)
		}
		e.want("nothing delivered", e.ctl.Exact("XPENDING", "s", "g"), arr(harness.Integer(0), nullBulk, nullBulk, nullArray))

		r.Cmd("XREADGROUP GROUP g c BLOCK 0 STREAMS s >")
		ch := streamAwait(r)
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("EVAL", "redis.call('XADD', KEYS[1], '1-1', 'a', '1'); redis.call('XADD', KEYS[1], '2-1', 'b', '2')", "1", "s")
		streamWant(e.t, "served by EVAL", recv(e.t, ch), streamReply(e.proto, "s", streamEntries("1-1 a 1", "2-1 b 2")))
	})
}

// A blocked XREADGROUP whose stream expires is answered NOGROUP without any
// other command touching its shard (the cron serves it), and serving a
// blocked XREAD does not signal WATCH on the keys it only read.
func TestStreamBlockedReadersAfterExpiryAndWatch(t *testing.T) {
	eachTarget(t, func(e *blockingEnv) {
		e.ctl.Exact("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
		r := e.client()
		r.Cmd("XREADGROUP GROUP g c BLOCK 0 STREAMS s >")
		ch := streamAwait(r)
		harness.WaitBlocked(e.t, e.ctl, 1)
		e.ctl.Exact("PEXPIRE", "s", "100")
		streamWant(e.t, "blocked XREADGROUP after its stream expired", recv(e.t, ch),
			harness.Err("NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"))
		harness.WaitBlocked(e.t, e.ctl, 0)

		e.ctl.Exact("XADD", "s2", "1-1", "x", "1")
		b := e.client()
		b.Cmd("XREAD BLOCK 0 STREAMS s1 s2 $ $")
		bch := streamAwait(b)
		harness.WaitBlocked(e.t, e.ctl, 1)
		w := e.client()
		w.Exact("WATCH", "s2")
		e.ctl.Exact("XADD", "s1", "1-1", "a", "1")
		streamWant(e.t, "blocked XREAD", recv(e.t, bch), streamReply(e.proto, "s1", streamEntries("1-1 a 1")))
		w.Exact("MULTI")
		w.Exact("PING")
		e.want("EXEC after a blocked XREAD was served", w.Exact("EXEC"), arr("+PONG\r\n"))
	})
}
