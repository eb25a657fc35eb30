package commands

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Generic key commands and expiry. Expected replies were checked against
// redis8-server 8.0.2.

type step struct {
	args []string
	want any
}

// f splits a command line on spaces.
func f(line string) []string { return strings.Fields(line) }

func runSteps(t *testing.T, r *harness.Conn, steps []step) {
	t.Helper()
	for _, st := range steps {
		if got := r.Do(st.args...); !reflect.DeepEqual(got, st.want) {
			t.Errorf("%q: got %#v, want %#v", st.args, got, st.want)
		}
	}
}

const (
	errNotInt   = harness.Err("ERR value is not an integer or out of range")
	errSyntax   = harness.Err("ERR syntax error")
	errDBIndex  = harness.Err("ERR DB index is out of range")
	errSame     = harness.Err("ERR source and destination objects are the same")
	errIntRange = harness.Err("ERR value is out of range, value must between -2147483648 and 2147483647")
	errNXXX     = harness.Err("ERR NX and XX, GT or LT options at the same time are not compatible")
	errGTLT     = harness.Err("ERR GT and LT options at the same time are not compatible")
	ok          = harness.Status("OK")
)

func wrongArgs(name string) harness.Err {
	return harness.Err("ERR wrong number of arguments for '" + name + "' command")
}

func TestKeysArgumentErrors(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("SET", "a", "1")
	runSteps(t, r, []step{
		{f("DEL"), wrongArgs("del")},
		{f("UNLINK"), wrongArgs("unlink")},
		{f("EXISTS"), wrongArgs("exists")},
		{f("TOUCH"), wrongArgs("touch")},
		{f("TYPE"), wrongArgs("type")},
		{f("TYPE a b"), wrongArgs("type")},
		{f("RENAME a"), wrongArgs("rename")},
		{f("RENAMENX a b c"), wrongArgs("renamenx")},
		{f("COPY a"), wrongArgs("copy")},
		{f("MOVE a"), wrongArgs("move")},
		{f("KEYS"), wrongArgs("keys")},
		{f("KEYS a b"), wrongArgs("keys")},
		{f("SCAN"), wrongArgs("scan")},
		{f("RANDOMKEY x"), wrongArgs("randomkey")},
		{f("DBSIZE x"), wrongArgs("dbsize")},
		{f("SWAPDB 0"), wrongArgs("swapdb")},
		{f("EXPIRE a"), wrongArgs("expire")},
		{f("PEXPIREAT a"), wrongArgs("pexpireat")},
		{f("TTL"), wrongArgs("ttl")},
		{f("PEXPIRETIME a b"), wrongArgs("pexpiretime")},
		{f("PERSIST"), wrongArgs("persist")},
		{f("OBJECT"), wrongArgs("object")},
		{f("OBJECT ENCODING"), wrongArgs("object|encoding")},
		{f("OBJECT encoding a b"), wrongArgs("object|encoding")},
		{f("OBJECT HELP x"), wrongArgs("object|help")},
		{f("OBJECT foo"), harness.Err("ERR unknown subcommand 'foo'. Try OBJECT HELP.")},
		{f("FLUSHDB foo"), errSyntax},
		{f("FLUSHALL ASYNC foo"), errSyntax},
		{f("FLUSHALL bar"), errSyntax},
	})
}

func TestDelExistsTouchType(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	runSteps(t, r, []step{
		{f("SET a 1"), ok},
		{f("SET b 2"), ok},
		{f("EXISTS a a missing b"), int64(3)},
		{f("TOUCH a missing a"), int64(2)},
		{f("TYPE a"), harness.Status("string")},
		{f("TYPE missing"), harness.Status("none")},
		{f("DEL a a missing"), int64(1)},
		{f("EXISTS a"), int64(0)},
		{f("UNLINK b missing"), int64(1)},
		{f("DBSIZE"), int64(0)},
	})
}

// TestReadStats: the reads Redis counts in keyspace_hits/misses, and the
// writes it does not.
func TestReadStats(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("SET", "k", "v")
	stats := func() (hits, misses int64) {
		info := r.Do("INFO", "stats").(string)
		for _, l := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(l, "keyspace_hits:"); ok {
				hits, _ = strconv.ParseInt(v, 10, 64)
			}
			if v, ok := strings.CutPrefix(l, "keyspace_misses:"); ok {
				misses, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		return
	}
	for _, tc := range []struct {
		cmd          string
		hits, misses int64
	}{
		{"EXISTS k m", 1, 1}, {"TYPE k", 1, 0}, {"TTL m", 0, 1}, {"PEXPIRETIME k", 1, 0},
		{"OBJECT ENCODING k", 1, 0}, {"TOUCH k m", 1, 1}, {"COPY k k2", 1, 0}, {"COPY m k3", 0, 1},
		{"EXPIRE k 100", 0, 0}, {"PERSIST k", 0, 0}, {"RENAME k2 k4", 0, 0}, {"SCAN 0", 0, 0},
		{"SCAN 0 TYPE list", 2, 0}, {"KEYS *", 0, 0}, {"RANDOMKEY", 0, 0}, {"DEL k4", 0, 0},
	} {
		h0, m0 := stats()
		r.Do(f(tc.cmd)...)
		h1, m1 := stats()
		if h1-h0 != tc.hits || m1-m0 != tc.misses {
			t.Errorf("%s: %d hits, %d misses; want %d, %d", tc.cmd, h1-h0, m1-m0, tc.hits, tc.misses)
		}
	}
}

func TestExpireOptions(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	const at = "4000000000000" // an absolute time far ahead, so nothing depends on the clock
	for _, tc := range []struct {
		ttl  bool // the key has expiry `at` before the command
		cmd  string
		want any
		pexp int64 // PEXPIRETIME afterwards (-2: key gone)
	}{
		{false, "PEXPIREAT k 4000000000001 NX", int64(1), 4000000000001},
		{true, "PEXPIREAT k 4000000000001 NX", int64(0), 4000000000000},
		{false, "PEXPIREAT k 4000000000001 XX", int64(0), -1},
		{true, "PEXPIREAT k 4000000000001 XX", int64(1), 4000000000001},
		{false, "PEXPIREAT k 4000000000001 GT", int64(0), -1}, // no expiry counts as infinite
		{true, "PEXPIREAT k 4000000000000 GT", int64(0), 4000000000000},
		{true, "PEXPIREAT k 4000000000001 GT", int64(1), 4000000000001},
		{false, "PEXPIREAT k 4000000000001 LT", int64(1), 4000000000001},
		{true, "PEXPIREAT k 4000000000000 LT", int64(0), 4000000000000},
		{true, "PEXPIREAT k 3999999999999 LT", int64(1), 3999999999999},
		{true, "PEXPIREAT k 4000000000001 xx GT", int64(1), 4000000000001},
		{true, "PEXPIREAT k 4000000000001 nx NX", int64(0), 4000000000000},
		{false, "EXPIRE k 100 XX", int64(0), -1},
		{false, "EXPIRE k -1", int64(1), -2}, // a time in the past deletes
		{false, "PEXPIRE k 0", int64(1), -2},
		{false, "EXPIREAT k 1", int64(1), -2},
		{false, "PEXPIREAT k -9223372036854775808", int64(1), -2},
		{false, "EXPIRE k -9223372036854775", int64(1), -2},
		{false, "EXPIRE k -1 GT", int64(0), -1},
		{false, "EXPIRE k -1 LT", int64(1), -2},
		{true, "EXPIRE k -1 LT", int64(1), -2},
		{false, "EXPIRE missing 10", int64(0), -1},
		{false, "EXPIRE k 100 nx xx", errNXXX, -1},
		{false, "EXPIRE k 100 NX GT", errNXXX, -1},
		{false, "EXPIRE k 100 nx lt", errNXXX, -1},
		{false, "EXPIRE k 100 GT LT", errGTLT, -1},
		{false, "EXPIRE k abc nx xx", errNXXX, -1}, // options are checked first
		{false, "EXPIRE k abc foo", harness.Err("ERR Unsupported option foo"), -1},
		{false, "EXPIRE k 100 foo", harness.Err("ERR Unsupported option foo"), -1},
		{false, "EXPIRE k 1.5", errNotInt, -1},
		{false, "EXPIRE k 9223372036854775", harness.Err("ERR invalid expire time in 'expire' command"), -1},
		{false, "EXPIRE k -9223372036854775808", harness.Err("ERR invalid expire time in 'expire' command"), -1},
		{false, "PEXPIRE k 9223372036854775807", harness.Err("ERR invalid expire time in 'pexpire' command"), -1},
		{false, "EXPIREAT k 9223372036854775807", harness.Err("ERR invalid expire time in 'expireat' command"), -1},
		{false, "EXPIREAT k 9223372036854775", int64(1), 9223372036854775000},
		{false, "PEXPIREAT k 9223372036854775807", int64(1), 9223372036854775807},
	} {
		r.Do("SET", "k", "v")
		if tc.ttl {
			r.Do("PEXPIREAT", "k", at)
		}
		if got := r.Do(f(tc.cmd)...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s (ttl %v): got %#v, want %#v", tc.cmd, tc.ttl, got, tc.want)
		}
		if got := r.Do("PEXPIRETIME", "k"); got != tc.pexp {
			t.Errorf("%s (ttl %v): PEXPIRETIME %v, want %d", tc.cmd, tc.ttl, got, tc.pexp)
		}
	}
}

func TestTTLFamily(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	runSteps(t, r, []step{
		{f("TTL missing"), int64(-2)},
		{f("PTTL missing"), int64(-2)},
		{f("EXPIRETIME missing"), int64(-2)},
		{f("PEXPIRETIME missing"), int64(-2)},
		{f("SET k v"), ok},
		{f("TTL k"), int64(-1)},
		{f("PTTL k"), int64(-1)},
		{f("EXPIRETIME k"), int64(-1)},
		{f("PEXPIRETIME k"), int64(-1)},
		{f("PEXPIREAT k 1999999999500"), int64(1)},
		{f("EXPIRETIME k"), int64(2000000000)}, // rounded, as Redis does
		{f("PEXPIREAT k 1999999999499"), int64(1)},
		{f("EXPIRETIME k"), int64(1999999999)},
		{f("PEXPIRETIME k"), int64(1999999999499)},
		{f("PEXPIREAT k 9223372036854775807"), int64(1)},
		{f("EXPIRETIME k"), int64(9223372036854776)},
		{f("PERSIST k"), int64(1)},
		{f("PERSIST k"), int64(0)},
		{f("PERSIST missing"), int64(0)},
		{f("TTL k"), int64(-1)},
	})
	// One batch, one clock reading: the replies are exact.
	got := r.Pipe(f("PEXPIRE k 100500"), f("TTL k"), f("PTTL k"), f("PEXPIRE k 100499"), f("TTL k"))
	if want := []any{int64(1), int64(101), int64(100500), int64(1), int64(100)}; !reflect.DeepEqual(got, want) {
		t.Errorf("PEXPIRE 100500, TTL, PTTL, PEXPIRE 100499, TTL = %v, want %v", got, want)
	}
}

// TestExpiryMilliseconds: a key is gone as soon as its millisecond has
// passed, whichever command looks at it.
func TestExpiryMilliseconds(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	for _, probe := range []string{"GET k", "EXISTS k", "TTL k", "TYPE k", "PERSIST k", "RENAME k x", "OBJECT ENCODING k"} {
		r.Do("SET", "k", "v", "PX", "30")
		time.Sleep(60 * time.Millisecond)
		if got := r.Do("DBSIZE"); got != int64(1) {
			t.Fatalf("DBSIZE before %s = %v, want the unreclaimed expired key", probe, got)
		}
		r.Do(f(probe)...)
		if got := r.Do("DBSIZE"); got != int64(0) {
			t.Errorf("%s did not delete the expired key: DBSIZE %v", probe, got)
		}
	}
}

func TestRenameCopyMove(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	runSteps(t, r, []step{
		{f("RENAME a b"), harness.Err("ERR no such key")},
		{f("RENAMENX a b"), harness.Err("ERR no such key")},
		{f("RENAME a a"), harness.Err("ERR no such key")},
		{f("SET a 1"), ok},
		{f("RENAME a a"), ok},
		{f("RENAMENX a a"), int64(0)},
		{f("PEXPIREAT a 4000000000000"), int64(1)},
		{f("RENAME a b"), ok},
		{f("EXISTS a"), int64(0)},
		{f("PEXPIRETIME b"), int64(4000000000000)}, // the expiry goes with the value
		{f("SET a 2"), ok},
		{f("RENAMENX a b"), int64(0)},
		{f("RENAME a b"), ok}, // overwrites b, and its expiry
		{f("PEXPIRETIME b"), int64(-1)},
		{f("GET b"), "2"},
		{f("RENAMENX b c"), int64(1)},
		{f("GET c"), "2"},

		{f("COPY c c"), errSame},
		{f("COPY c c DB 0"), errSame},
		{f("COPY missing d"), int64(0)},
		{f("PEXPIREAT c 4000000000000"), int64(1)},
		{f("COPY c d"), int64(1)},
		{f("PEXPIRETIME d"), int64(4000000000000)},
		{f("SET e x"), ok},
		{f("COPY c e"), int64(0)},
		{f("COPY c e REPLACE"), int64(1)},
		{f("GET e"), "2"},
		{f("COPY c e db 16"), errDBIndex},
		{f("COPY c e db -1"), errDBIndex},
		{f("COPY c e db x"), errNotInt},
		{f("COPY c e db 99999999999"), errIntRange},
		{f("COPY c e db"), errSyntax},
		{f("COPY c e foo"), errSyntax},
		{f("COPY missing e db 99"), errDBIndex}, // arguments are checked first
		{f("COPY c c DB 1"), int64(1)},
		{f("COPY c c replace REPLACE db 1 DB 2"), int64(1)}, // the last DB wins

		{f("MOVE c 0"), errSame},
		{f("MOVE missing 0"), errSame},
		{f("MOVE c 16"), errDBIndex},
		{f("MOVE c -1"), errDBIndex},
		{f("MOVE c x"), errNotInt},
		{f("MOVE c +1"), errNotInt},
		{f("MOVE c 99999999999"), errIntRange},
		{f("MOVE missing 3"), int64(0)},
		{f("MOVE c 1"), int64(0)}, // c exists in db 1 already
		{f("MOVE d 3"), int64(1)},
		{f("EXISTS d"), int64(0)},
		{f("SELECT 3"), ok},
		{f("GET d"), "2"},
		{f("PEXPIRETIME d"), int64(4000000000000)},
		{f("SELECT 2"), ok},
		{f("GET c"), "2"},
		{f("PEXPIRETIME c"), int64(4000000000000)},
	})
}

// TestCopyIsDeep: the copy shares no bytes with the original (SET reuses a
// string's buffer in place when it fits).
func TestCopyIsDeep(t *testing.T) {
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	c.Set(ctx, "a", "hello", 0)
	for _, db := range []int{0, 1} {
		if n, err := c.Copy(ctx, "a", "b", db, true).Result(); err != nil || n != 1 {
			t.Fatalf("COPY DB %d = %d, %v", db, n, err)
		}
	}
	c.Set(ctx, "b", "HELLO", 0)
	c2 := s.Client(t, func(o *redis.Options) { o.DB = 1 })
	c2.Set(ctx, "b", "WORLD", 0)
	if v := c.Get(ctx, "a").Val(); v != "hello" {
		t.Fatalf("original changed to %q after writing its copies", v)
	}
}

func TestKeysCommand(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for _, k := range []string{"hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "other"} {
		r.Do("SET", k, "v")
	}
	r.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	r.Do("SET", "hexpired", "v", "PX", "1")
	time.Sleep(10 * time.Millisecond)
	for _, tc := range []struct {
		pat  string
		want []string
	}{
		{"h?llo", []string{"h*llo", "hallo", "hello", "hxllo"}},
		{"h*llo", []string{"h*llo", "hallo", "heeeello", "hello", "hllo", "hxllo"}},
		{"h[ae]llo", []string{"hallo", "hello"}},
		{"h[^e]llo", []string{"h*llo", "hallo", "hxllo"}},
		{"h[a-b]llo", []string{"hallo"}},
		{`h\*llo`, []string{"h*llo"}},
		{"HELLO", nil},
		{"*", []string{"h*llo", "hallo", "heeeello", "hello", "hllo", "hxllo", "other"}}, // no expired key
		{"nothing*", nil},
	} {
		var got []string
		for _, k := range r.Do("KEYS", tc.pat).([]any) {
			got = append(got, k.(string))
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("KEYS %s = %q, want %q", tc.pat, got, tc.want)
		}
	}
	if got := r.Do("DBSIZE"); got != int64(8) {
		t.Errorf("KEYS deleted the expired key (DBSIZE %v), Redis does not", got)
	}
}

// scanAll runs a full SCAN with extra arguments and returns every key, in the
// order returned, checking that only the last reply has cursor 0.
func scanAll(t *testing.T, r *harness.Conn, extra ...string) []string {
	t.Helper()
	var keys []string
	cursor := "0"
	for i := 0; ; i++ {
		reply := r.Do(append([]string{"SCAN", cursor}, extra...)...).([]any)
		cursor = reply[0].(string)
		for _, k := range reply[1].([]any) {
			keys = append(keys, k.(string))
		}
		if cursor == "0" {
			return keys
		}
		if i > 100000 {
			t.Fatal("SCAN does not end")
		}
	}
}

func TestScan(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	runSteps(t, r, []step{
		{f("SCAN 0"), []any{"0", []any{}}},
		{f("SCAN 0 COUNT 0"), errSyntax},
		{f("SCAN 0 COUNT -1"), errSyntax},
		{f("SCAN 0 COUNT x"), errNotInt},
		{f("SCAN 0 COUNT"), errSyntax},
		{f("SCAN 0 MATCH"), errSyntax},
		{f("SCAN 0 foo bar"), errSyntax},
		{f("SCAN 0 NOVALUES"), harness.Err("ERR NOVALUES option can only be used in HSCAN")},
		{f("SCAN 0 COUNT 0 NOVALUES"), errSyntax},
		{f("SCAN x"), harness.Err("ERR invalid cursor")},
		{f("SCAN -1"), harness.Err("ERR invalid cursor")},
		{f("SCAN 18446744073709551616"), harness.Err("ERR invalid cursor")},
		{[]string{"SCAN", "1 "}, harness.Err("ERR invalid cursor")},
		{f("SCAN 18446744073709551615"), []any{"0", []any{}}},
		{[]string{"SCAN", " 01"}, []any{"0", []any{}}}, // strtoull's leniency
		{f("SCAN +1"), []any{"0", []any{}}},
	})
	want := map[string]bool{}
	for i := 0; i < 500; i++ {
		k := fmt.Sprint("key:", i)
		want[k] = true
		r.Do("SET", k, "v")
	}
	r.Do("SET", "other", "v")
	for _, count := range []string{"1", "10", "1000"} {
		got := scanAll(t, r, "COUNT", count, "MATCH", "key:*")
		if len(got) != len(want) {
			t.Errorf("COUNT %s: %d keys, want %d", count, len(got), len(want))
		}
		for _, k := range got {
			if !want[k] {
				t.Errorf("COUNT %s: unexpected key %q", count, k)
			}
		}
	}
	// COUNT is the number of keys looked at per call: with about one key
	// per shard, calls return about COUNT keys.
	for cursor, calls := "0", 0; ; calls++ {
		reply := r.Do("SCAN", cursor, "COUNT", "10").([]any)
		cursor = reply[0].(string)
		if n := len(reply[1].([]any)); cursor != "0" && (n < 10 || n > 20) {
			t.Fatalf("SCAN COUNT 10 returned %d keys", n)
		}
		if cursor == "0" {
			if calls < 25 {
				t.Fatalf("a pass of 501 keys took %d calls with COUNT 10", calls+1)
			}
			break
		}
	}
	if got := scanAll(t, r, "TYPE", "STRING", "MATCH", "oth*"); !slices.Equal(got, []string{"other"}) {
		t.Errorf("TYPE STRING MATCH oth* = %q", got)
	}
	for _, typ := range []string{"list", "hash", "set", "zset", "vectorset", "nosuchtype"} {
		if got := scanAll(t, r, "TYPE", typ); len(got) != 0 {
			t.Errorf("TYPE %s = %q", typ, got)
		}
	}
	if got := scanAll(t, r, "TYPE", "string", "TYPE", "list"); len(got) != 0 { // the last TYPE wins
		t.Errorf("TYPE string TYPE list = %d keys", len(got))
	}

	// SCAN deletes the expired keys it meets, Redis-like.
	r.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	for i := 0; i < 50; i++ {
		r.Do("SET", fmt.Sprint("gone:", i), "v", "PX", "1")
	}
	time.Sleep(10 * time.Millisecond)
	if got := scanAll(t, r, "MATCH", "gone:*"); len(got) != 0 {
		t.Errorf("SCAN returned expired keys %q", got)
	}
	if got := r.Do("DBSIZE"); got != int64(501) {
		t.Errorf("DBSIZE after SCAN met 50 expired keys = %v, want 501", got)
	}

	r.Do("HELLO", "3")
	reply := r.Do("SCAN", "0", "MATCH", "other", "COUNT", "100000")
	if !reflect.DeepEqual(reply, []any{"0", []any{"other"}}) {
		t.Errorf("RESP3 SCAN = %#v", reply)
	}
}

// TestScanGuaranteeUnderWrites: while other clients add and delete keys, a
// full SCAN returns every key present throughout, and no key twice.
func TestScanGuaranteeUnderWrites(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	c := s.Client(t)
	stable := map[string]bool{}
	pipe := c.Pipeline()
	for i := 0; i < 3000; i++ {
		k := fmt.Sprint("stable:", i)
		stable[k] = true
		pipe.Set(ctx, k, "v", 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wc := s.Client(t)
			for i := 0; i < 200000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := fmt.Sprint("churn:", w, ":", i%2000)
				if i%3 == 2 {
					wc.Del(ctx, k)
				} else {
					wc.Set(ctx, k, "v", 0)
				}
			}
		}()
	}
	for round, count := range []int64{1, 7, 50} {
		seen := map[string]int{}
		var cursor uint64
		for {
			keys, next, err := c.Scan(ctx, cursor, "", count).Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				seen[k]++
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
		for k := range stable {
			if seen[k] == 0 {
				t.Errorf("round %d (COUNT %d): stable key %s missed", round, count, k)
			}
		}
		for k, n := range seen {
			if n > 1 {
				t.Errorf("round %d (COUNT %d): %s returned %d times", round, count, k, n)
			}
		}
	}
	close(stop)
	wg.Wait()
}

func TestRandomKey(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	if got := r.Do("RANDOMKEY"); got != nil {
		t.Fatalf("RANDOMKEY on an empty db = %#v", got)
	}
	keys := map[string]bool{"a": true, "b": true, "c": true}
	for k := range keys {
		r.Do("SET", k, "v")
	}
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		k, _ := r.Do("RANDOMKEY").(string)
		if !keys[k] {
			t.Fatalf("RANDOMKEY = %q", k)
		}
		seen[k] = true
	}
	if len(seen) != len(keys) {
		t.Errorf("200 draws gave only %v", seen)
	}
	// Expired keys are deleted as they are drawn, never returned.
	r.Do("FLUSHALL")
	r.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	for i := 0; i < 300; i++ {
		r.Do("SET", fmt.Sprint("x", i), "v", "PX", "1")
	}
	r.Do("SET", "live", "v")
	time.Sleep(10 * time.Millisecond)
	for i := 0; i < 5; i++ {
		if got := r.Do("RANDOMKEY"); got != "live" {
			t.Fatalf("RANDOMKEY = %#v, want the only live key", got)
		}
	}
	r.Do("DEL", "live")
	if got := r.Do("RANDOMKEY"); got != nil {
		t.Fatalf("RANDOMKEY with only expired keys = %#v", got)
	}
}

func TestObject(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for _, tc := range []struct{ val, enc string }{
		{"1", "int"}, {"-1234567890123456789", "int"}, {"9223372036854775807", "int"},
		{"12345678901234567890", "embstr"}, {"01", "embstr"}, {"-0", "embstr"}, {"+1", "embstr"},
		{"", "embstr"}, {"hello", "embstr"}, {strings.Repeat("x", 44), "embstr"},
		{strings.Repeat("x", 45), "raw"},
	} {
		r.Do("SET", "k", tc.val)
		if got := r.Do("OBJECT", "ENCODING", "k"); got != tc.enc {
			t.Errorf("OBJECT ENCODING of %q = %#v, want %q", tc.val, got, tc.enc)
		}
	}
	for _, tc := range []struct {
		val  string
		refs int64
	}{{"0", 2147483647}, {"9999", 2147483647}, {"10000", 1}, {"-5", 1}, {"abc", 1}} {
		r.Do("SET", "k", tc.val)
		if got := r.Do("OBJECT", "REFCOUNT", "k"); got != tc.refs {
			t.Errorf("OBJECT REFCOUNT of %q = %#v, want %d", tc.val, got, tc.refs)
		}
	}
	r.Do("SET", "k", "v")
	if got := r.Do("OBJECT", "IDLETIME", "k"); got != int64(0) && got != int64(1) { // 1 if a second just ticked
		t.Errorf("OBJECT IDLETIME right after SET = %#v", got)
	}
	runSteps(t, r, []step{
		{f("OBJECT ENCODING missing"), nil},
		{f("OBJECT REFCOUNT missing"), nil},
		{f("OBJECT IDLETIME missing"), nil},
		{f("OBJECT FREQ missing"), nil},
		{f("OBJECT FREQ k"), harness.Err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")},
	})
	help := r.Do("OBJECT", "HELP").([]any)
	if len(help) != 15 || help[0] != harness.Status("OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:") ||
		help[4] != harness.Status("FREQ <key>") || help[14] != harness.Status("    Print this help.") {
		t.Errorf("OBJECT HELP = %#v", help)
	}
}

func TestSwapDBAndFlush(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	other := s.Raw(t)
	runSteps(t, r, []step{
		{f("SWAPDB 0 16"), errDBIndex},
		{f("SWAPDB -1 0"), errDBIndex},
		{f("SWAPDB x 1"), harness.Err("ERR invalid first DB index")},
		{f("SWAPDB 1 x"), harness.Err("ERR invalid second DB index")},
		{f("SWAPDB 0 99999999999"), harness.Err("ERR invalid second DB index")},
		{f("SET a 0"), ok},
		{f("PEXPIREAT a 4000000000000"), int64(1)},
		{f("SWAPDB 0 0"), ok},
		{f("GET a"), "0"},
		{f("SELECT 1"), ok},
		{f("SET b 1"), ok},
		{f("SWAPDB 0 1"), ok},
		{f("GET a"), "0"}, // a client's database follows the swap
		{f("PEXPIRETIME a"), int64(4000000000000)},
		{f("GET b"), nil},
	})
	runSteps(t, other, []step{
		{f("GET b"), "1"},
		{f("SET c 2"), ok},
		{f("FLUSHDB SYNC"), ok},
		{f("DBSIZE"), int64(0)},
	})
	runSteps(t, r, []step{
		{f("DBSIZE"), int64(1)}, // FLUSHDB emptied db 0 only
		{f("FLUSHALL ASYNC"), ok},
		{f("DBSIZE"), int64(0)},
	})
}

// TestWatchKeyCommands: a watched key changed by these commands fails EXEC,
// and a command that changes nothing does not (Redis's exact behaviour).
func TestWatchKeyCommands(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  []string // run by the watcher before WATCH x, in db 0
		other  []string // run by another client, from db 0, after WATCH x
		failed bool
	}{
		{"DEL", []string{"SET x 1"}, []string{"DEL x"}, true},
		{"DEL missing", nil, []string{"DEL x"}, false},
		{"UNLINK", []string{"SET x 1"}, []string{"UNLINK x"}, true},
		{"EXPIRE", []string{"SET x 1"}, []string{"EXPIRE x 100"}, true},
		{"EXPIRE refused by NX", []string{"SET x 1 EX 100"}, []string{"EXPIRE x 200 NX"}, false},
		{"EXPIRE in the past", []string{"SET x 1"}, []string{"PEXPIREAT x 1"}, true},
		{"PERSIST", []string{"SET x 1 EX 100"}, []string{"PERSIST x"}, true},
		{"PERSIST nothing", []string{"SET x 1"}, []string{"PERSIST x"}, false},
		{"RENAME from", []string{"SET x 1"}, []string{"RENAME x y"}, true},
		{"RENAME onto", []string{"SET y 1"}, []string{"RENAME y x"}, true},
		{"RENAMENX refused", []string{"SET x 1", "SET y 1"}, []string{"RENAMENX y x"}, false},
		{"COPY onto", []string{"SET y 1"}, []string{"COPY y x"}, true},
		{"COPY from", []string{"SET x 1"}, []string{"COPY x y"}, false},
		{"COPY refused", []string{"SET x 1", "SET y 1"}, []string{"COPY y x"}, false},
		{"COPY into watched db", nil, []string{"SELECT 1", "SET x 1", "COPY x x DB 0"}, true},
		{"MOVE away", []string{"SET x 1"}, []string{"MOVE x 1"}, true},
		{"MOVE in", nil, []string{"SELECT 1", "SET x 1", "MOVE x 0"}, true},
		{"MOVE refused", []string{"SET x 1"}, []string{"SELECT 1", "SET x 2", "MOVE x 0"}, false},
		{"FLUSHDB", []string{"SET x 1"}, []string{"FLUSHDB"}, true},
		{"FLUSHDB other key", nil, []string{"SET y 1", "FLUSHDB"}, false},
		{"FLUSHDB other db", []string{"SET x 1"}, []string{"SELECT 1", "FLUSHDB"}, false},
		{"FLUSHALL", []string{"SET x 1"}, []string{"FLUSHALL"}, true},
		{"FLUSHALL absent key", nil, []string{"FLUSHALL"}, false},
		{"SWAPDB away", []string{"SET x 1"}, []string{"SWAPDB 0 1"}, true},
		{"SWAPDB in", nil, []string{"SELECT 1", "SET x 1", "SWAPDB 0 1"}, true},
		{"SWAPDB absent both sides", []string{"SET y 1"}, []string{"SWAPDB 0 1"}, false},
		{"SWAPDB same", []string{"SET x 1"}, []string{"SWAPDB 0 0"}, false},
		{"SWAPDB stale key in", nil, []string{"DEBUG SET-ACTIVE-EXPIRE 0", "SELECT 1", "SET x 1 PX 1", "DEBUG SLEEP 0.01", "SWAPDB 0 1"}, false},
		{"SWAPDB other dbs", []string{"SET x 1"}, []string{"SWAPDB 1 2"}, false},
		{"TOUCH", []string{"SET x 1"}, []string{"TOUCH x"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := harness.Start(t)
			a, b := s.Raw(t), s.Raw(t)
			for _, c := range tc.setup {
				a.Do(f(c)...)
			}
			a.Do("WATCH", "x")
			for _, c := range tc.other {
				if got := b.Do(f(c)...); reflect.TypeOf(got) == reflect.TypeOf(harness.Err("")) {
					t.Fatalf("%s: %v", c, got)
				}
			}
			a.Do("MULTI")
			a.Do("PING")
			got := a.Do("EXEC")
			if failed := got == nil; failed != tc.failed {
				t.Errorf("EXEC = %#v, want failed %v", got, tc.failed)
			}
		})
	}
}

// TestWatchExpiry: a watched key that expires before EXEC fails it, whether
// or not anything deleted it yet.
func TestWatchExpiry(t *testing.T) {
	for _, active := range []string{"0", "1"} {
		s := harness.Start(t)
		r := s.Raw(t)
		r.Do("DEBUG", "SET-ACTIVE-EXPIRE", active)
		r.Pipe(f("SET x 1 PX 20"), f("WATCH x")) // one batch: x is live when watched
		time.Sleep(60 * time.Millisecond)
		r.Do("MULTI")
		r.Do("PING")
		if got := r.Do("EXEC"); got != nil {
			t.Errorf("active expiry %s: EXEC = %#v after the watched key expired", active, got)
		}
	}
}

// TestActiveExpiry: keys nobody reads are reclaimed by the expiry cycle;
// with it disabled they stay until something looks at them.
func TestActiveExpiry(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	c := s.Client(t)
	fill := func(n int) {
		pipe := c.Pipeline()
		for i := 0; i < n; i++ {
			pipe.Set(ctx, fmt.Sprint("k", i), "v", 50*time.Millisecond)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitSize := func(want int64) int64 {
		deadline := time.Now().Add(3 * time.Second)
		for {
			n := c.DBSize(ctx).Val()
			if n == want || time.Now().After(deadline) {
				return n
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	fill(10000)
	if n := waitSize(0); n != 0 {
		t.Fatalf("DBSIZE still %d 3s after 10k keys expired", n)
	}

	c.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	fill(1000)
	time.Sleep(300 * time.Millisecond) // three cycles' worth
	if n := c.DBSize(ctx).Val(); n != 1000 {
		t.Fatalf("with active expiry off, DBSIZE = %d, want the 1000 unread expired keys", n)
	}
	if v, err := c.Get(ctx, "k1").Result(); err != redis.Nil {
		t.Fatalf("GET of an expired key = %q, %v", v, err)
	}
	if n := c.DBSize(ctx).Val(); n != 999 {
		t.Fatalf("DBSIZE after one lazy expiry = %d, want 999", n)
	}
	c.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	if n := waitSize(0); n != 0 {
		t.Fatalf("DBSIZE %d after active expiry was re-enabled", n)
	}
}

// TestGoRedisKeyFlows drives the family as applications do.
func TestGoRedisKeyFlows(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for name, c := range map[string]*redis.Client{"resp3": s.Client(t), "resp2": s.Client(t, harness.Resp2)} {
		t.Run(name, func(t *testing.T) {
			c.FlushAll(ctx)
			c.Set(ctx, "k", "v", 0)
			if ok, err := c.ExpireNX(ctx, "k", time.Minute).Result(); !ok || err != nil {
				t.Fatalf("EXPIRE NX = %v, %v", ok, err)
			}
			if ok := c.ExpireGT(ctx, "k", time.Second).Val(); ok {
				t.Fatal("EXPIRE GT with a shorter time succeeded")
			}
			if ok := c.ExpireLT(ctx, "k", time.Second*30).Val(); !ok {
				t.Fatal("EXPIRE LT with a shorter time failed")
			}
			if d := c.TTL(ctx, "k").Val(); d != 30*time.Second && d != 29*time.Second {
				t.Fatalf("TTL = %v", d)
			}
			if at := c.ExpireTime(ctx, "k").Val(); time.Until(time.Unix(int64(at/time.Second), 0)) > 31*time.Second {
				t.Fatalf("EXPIRETIME = %v", at)
			}
			if typ := c.Type(ctx, "k").Val(); typ != "string" {
				t.Fatalf("TYPE = %q", typ)
			}
			if n := c.Copy(ctx, "k", "k2", 0, false).Val(); n != 1 {
				t.Fatalf("COPY = %d", n)
			}
			if err := c.Rename(ctx, "k2", "k3").Err(); err != nil {
				t.Fatal(err)
			}
			if ok := c.Move(ctx, "k3", 5).Val(); !ok {
				t.Fatal("MOVE failed")
			}
			keys, cursor, err := c.ScanType(ctx, 0, "k*", 100, "string").Result()
			if err != nil || cursor != 0 || !slices.Equal(keys, []string{"k"}) {
				t.Fatalf("SCAN = %q, %d, %v", keys, cursor, err)
			}
			if k := c.RandomKey(ctx).Val(); k != "k" {
				t.Fatalf("RANDOMKEY = %q", k)
			}
			if enc := c.ObjectEncoding(ctx, "k").Val(); enc != "embstr" {
				t.Fatalf("OBJECT ENCODING = %q", enc)
			}
			if ok := c.Persist(ctx, "k").Val(); !ok {
				t.Fatal("PERSIST failed")
			}
			if n := c.Unlink(ctx, "k", "nope").Val(); n != 1 {
				t.Fatalf("UNLINK = %d", n)
			}
			if err := c.Do(ctx, "SWAPDB", 0, 5).Err(); err != nil {
				t.Fatal(err)
			}
			if n := c.DBSize(ctx).Val(); n != 1 {
				t.Fatalf("DBSIZE after SWAPDB = %d", n)
			}
		})
	}
}

// TestCrossDatabaseCommandsConcurrently: MOVE and COPY ... DB write a second
// database while plain commands write it; run with -race, a missing lock on
// the second database shows as a data race. SWAPDB joins at the end.
func TestCrossDatabaseCommandsConcurrently(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	run := func(workers, rounds int, op func(c *redis.Client, w, i int) error) {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := s.Client(t, func(o *redis.Options) { o.DB = w % 2 })
				for i := 0; i < rounds; i++ {
					if err := op(c, w, i); err != nil && err != redis.Nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	crossOrPlain := func(c *redis.Client, w, i int) error {
		k := fmt.Sprint("k", i%4)
		if w%2 == 1 { // db 1: plain writes of the keys the others move and copy in
			if i%2 == 0 {
				return c.Set(ctx, k, "v", 0).Err()
			}
			return c.Del(ctx, k, k+"c").Err()
		}
		switch i % 3 {
		case 0:
			return c.Set(ctx, k, "v", 0).Err()
		case 1:
			return c.Move(ctx, k, 1).Err()
		default:
			return c.Copy(ctx, k, k+"c", 1, true).Err()
		}
	}
	run(4, 2000, crossOrPlain)
	run(4, 300, func(c *redis.Client, w, i int) error {
		if i%10 == 0 {
			return c.Do(ctx, "SWAPDB", 0, 1).Err()
		}
		return crossOrPlain(c, w, i)
	})
}

// BenchmarkScanPass: one full SCAN COUNT 10 pass over 200k keys; "calls"
// shows how far above COUNT the per-shard minimum step puts replies.
func BenchmarkScanPass(b *testing.B) {
	s := harness.Start(b)
	ctx := context.Background()
	pipe := s.Client(b).Pipeline()
	for i := 0; i < 200000; i++ {
		pipe.Set(ctx, fmt.Sprint("key:", i), "x", 0)
		if i%10000 == 9999 {
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	r := s.Raw(b)
	for b.Loop() {
		calls := 0
		for cursor := "0"; ; calls++ {
			reply := r.Do("SCAN", cursor, "COUNT", "10").([]any)
			if cursor = reply[0].(string); cursor == "0" {
				break
			}
		}
		b.ReportMetric(float64(calls), "calls/op")
	}
}
