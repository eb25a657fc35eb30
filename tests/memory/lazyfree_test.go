package memory

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// lazyStats reads INFO's lazyfree_pending_objects and lazyfreed_objects.
func lazyStats(t *testing.T, r *harness.Conn) (pending, freed int64) {
	t.Helper()
	m := harness.InfoFields(t, r, "memory")
	pending, _ = strconv.ParseInt(m["lazyfree_pending_objects"], 10, 64)
	freed, _ = strconv.ParseInt(m["lazyfreed_objects"], 10, 64)
	return pending, freed
}

// lazyFreed waits for the lazy free to finish and returns lazyfreed_objects.
func lazyFreed(t *testing.T, r *harness.Conn) int64 {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		pending, _ := lazyStats(t, r)
		if pending == 0 {
			// Redis's lazyfree thread lowers the pending count before it
			// raises the freed one: read again, a round trip later.
			_, freed := lazyStats(t, r)
			return freed
		}
		if time.Now().After(end) {
			t.Fatalf("lazyfree_pending_objects stayed at %d", pending)
		}
	}
}

// withArgs is cmd followed by n arguments made by arg.
func withArgs(n int, arg func(i int) []string, cmd ...string) []string {
	for i := range n {
		cmd = append(cmd, arg(i)...)
	}
	return cmd
}

// TestDifferentialLazyFree: which deletions count in lazyfreed_objects,
// and how many, as Redis 8.0.2 counts the values its lazy-free thread
// frees: UNLINK (and DEL with lazyfree-lazy-user-del) of a value whose
// free effort is above 64 allocations; every key of a FLUSHALL or FLUSHDB,
// ASYNC or SYNC (which Redis 8 runs as a blocking ASYNC), but not inside
// MULTI; SCRIPT FLUSH ASYNC and FUNCTION FLUSH ASYNC of more than 64.
func TestDifferentialLazyFree(t *testing.T) {
	member := func(i int) []string { return []string{"m" + strconv.Itoa(i)} }
	field := func(i int) []string { return []string{"f" + strconv.Itoa(i), "v"} }
	scored := func(i int) []string { return []string{strconv.Itoa(i), "m" + strconv.Itoa(i)} }
	big := func(int) []string { return []string{strings.Repeat("x", 6000)} } // a quicklist node each
	script := [][]string{
		withArgs(200, member, "SADD", "set"), {"UNLINK", "set"},
		withArgs(60, member, "SADD", "set"), {"UNLINK", "set"}, // a listpack: one allocation
		withArgs(200, func(i int) []string { return []string{strconv.Itoa(i)} }, "SADD", "ints"), {"UNLINK", "ints"},
		withArgs(200, field, "HSET", "h"), {"DEL", "h"}, // DEL frees at once
		{"CONFIG", "SET", "lazyfree-lazy-user-del", "yes"},
		withArgs(200, field, "HSET", "h"), {"DEL", "h"},
		{"CONFIG", "SET", "lazyfree-lazy-user-del", "no"},
		withArgs(200, scored, "ZADD", "z"), {"UNLINK", "z"},
		withArgs(100, big, "RPUSH", "l"), {"UNLINK", "l"},
		withArgs(50, big, "RPUSH", "l"), {"UNLINK", "l"},
		{"SET", "s", strings.Repeat("x", 100000)}, {"UNLINK", "s"},
		{"CONFIG", "SET", "stream-node-max-entries", "5"},
	}
	for i := range 400 {
		script = append(script, []string{"XADD", "x", "*", "f", strconv.Itoa(i)})
	}
	script = append(script, []string{"UNLINK", "x"},
		[]string{"XADD", "x", "*", "f", "v"}, []string{"XGROUP", "CREATE", "x", "g", "0"}, []string{"UNLINK", "x"},
		[]string{"CONFIG", "SET", "stream-node-max-entries", "100"},
		[]string{"VADD", "v", "VALUES", "2", "1", "2", "a"}, []string{"UNLINK", "v"},
		[]string{"MSET", "a", "1", "b", "2", "c", "3"}, []string{"FLUSHALL"},
		[]string{"MSET", "a", "1", "b", "2"}, []string{"FLUSHDB", "ASYNC"},
		[]string{"MSET", "a", "1", "b", "2"}, []string{"MULTI"}, []string{"FLUSHALL", "SYNC"}, []string{"EXEC"},
		[]string{"MSET", "a", "1", "b", "2"}, []string{"CONFIG", "SET", "lazyfree-lazy-user-flush", "yes"},
		[]string{"MULTI"}, []string{"FLUSHALL"}, []string{"EXEC"},
		[]string{"CONFIG", "SET", "lazyfree-lazy-user-flush", "no"},
	)
	for i := range 70 {
		script = append(script, []string{"SCRIPT", "LOAD", fmt.Sprintf("return %d", i)})
	}
	script = append(script, []string{"SCRIPT", "FLUSH", "ASYNC"})
	for i := range 70 {
		script = append(script, []string{"SCRIPT", "LOAD", fmt.Sprintf("return %d", i)})
	}
	script = append(script, []string{"SCRIPT", "FLUSH"})
	lib := "#!lua name=many\n"
	for i := range 70 {
		lib += fmt.Sprintf("redis.register_function('f%d', function() return %d end)\n", i, i)
	}
	script = append(script, []string{"FUNCTION", "LOAD", lib}, []string{"FUNCTION", "FLUSH", "ASYNC"},
		[]string{"FUNCTION", "LOAD", "#!lua name=few\nredis.register_function('f', function() return 1 end)"},
		[]string{"FUNCTION", "FLUSH", "ASYNC"})
	delta := func(r *harness.Conn, cmd []string) any {
		before := lazyFreed(t, r)
		reply := r.Do(cmd...)
		if _, isErr := reply.(harness.Err); isErr {
			return reply
		}
		return lazyFreed(t, r) - before
	}
	harness.DifferRun(t, script, delta, reflect.DeepEqual)
}

// TestLazyFreeReclaimsMemory: deleting a large value or flushing brings
// used_memory back down without further traffic, as Redis's lazy free does
// (the collector alone may leave it up for minutes on an idle server).
// A server process of its own: used_memory is the process's heap.
func TestLazyFreeReclaimsMemory(t *testing.T) {
	harness.OutOfProcess(t)
	_, r := harness.StartReplicaBinary(t)
	used := func() int64 { return int64(harness.InfoFloat(t, harness.InfoFields(t, r, "memory"), "used_memory")) }
	orig := used()
	fill := func() int64 {
		for i := 0; i < 100000; i += 10000 {
			r.Do(withArgs(10000, func(j int) []string { return []string{strconv.Itoa(i + j)} }, "SADD", "set")...)
			r.Do(withArgs(10000, func(j int) []string { return []string{"k" + strconv.Itoa(i+j), "v"} }, "MSET")...)
		}
		peak := used()
		if peak < orig+4<<20 {
			t.Fatalf("used_memory %d after filling, from %d", peak, orig)
		}
		return peak
	}
	down := func(what string, peak int64) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			u := used()
			if u < orig+(peak-orig)/2 {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%s: used_memory %d, from %d at peak and %d at start", what, u, peak, orig)
			}
		}
	}
	peak := fill()
	r.Expect(int64(1), "UNLINK", "set")
	r.Do(withArgs(100000, func(j int) []string { return []string{"k" + strconv.Itoa(j)} }, "DEL")...)
	down("UNLINK and DEL", peak)

	peak = fill()
	r.Expect(harness.Status("OK"), "FLUSHALL") // replies once the memory is reclaimed
	if u := used(); u >= orig+(peak-orig)/2 {
		t.Fatalf("right after FLUSHALL: used_memory %d, from %d at peak and %d at start", u, peak, orig)
	}

	// One value much larger than all the rest, which a sample of keys
	// would miss: FLUSHALL reclaims all the same.
	r.Do(withArgs(10000, func(j int) []string { return []string{"k" + strconv.Itoa(j), "v"} }, "MSET")...)
	r.Expect(int64(64<<20), "SETRANGE", "huge", strconv.Itoa(64<<20-1), "x")
	peak = used()
	r.Expect(harness.Status("OK"), "FLUSHALL")
	if u := used(); u >= orig+(peak-orig)/2 {
		t.Fatalf("right after FLUSHALL of a 64 MB value among small ones: used_memory %d, from %d at peak and %d at start", u, peak, orig)
	}

	// One large value: the flush's estimate of its keys must see it.
	for i := 0; i < 200000; i += 10000 {
		r.Do(withArgs(10000, func(j int) []string { return []string{strconv.Itoa(i + j)} }, "SADD", "set")...)
	}
	peak = used()
	r.Expect(harness.Status("OK"), "FLUSHDB", "ASYNC")
	down("FLUSHDB ASYNC of one large set", peak)

	// DEBUG RELOAD replaces the data with its copy from the file: the data
	// replaced is reclaimed, not left beside the new.
	r.Expect(harness.Status("OK"), "DEBUG", "POPULATE", "300000", "key", "100")
	loaded := used()
	r.Expect(harness.Status("OK"), "DEBUG", "RELOAD")
	for end := time.Now().Add(5 * time.Second); used() > orig+(loaded-orig)*3/2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("after DEBUG RELOAD: used_memory %d, %d before it, %d at start", used(), loaded, orig)
		}
	}
	r.Expect(harness.Status("OK"), "FLUSHALL")

	// Large values that expire with no traffic: the active expiry cycle
	// reports them.
	for j := range 20 {
		k := "t" + strconv.Itoa(j)
		r.Expect(int64(1<<20), "SETRANGE", k, strconv.Itoa(1<<20-1), "x")
		r.Expect(int64(1), "PEXPIRE", k, "300")
	}
	peak = used()
	for end := time.Now().Add(20 * time.Second); r.Do("DBSIZE") != int64(0); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%v keys left to expire", r.Do("DBSIZE"))
		}
	}
	down("keys expired", peak)

	r.Expect(harness.Status("OK"), "SET", "big", strings.Repeat("x", 8<<20))
	peak = used()
	r.Expect(int64(1), "DEL", "big")
	down("DEL of an 8 MB string", peak)
}
