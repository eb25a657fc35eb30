package commands

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// setCase is one command and its Redis 8.0.2 reply in RESP2. asSet marks
// replies that RESP3 sends as a set (~) rather than an array.
type setCase struct {
	args  []string
	want  any
	asSet bool
}

func setc(want any, args ...string) setCase  { return setCase{args: args, want: want} }
func setcs(want any, args ...string) setCase { return setCase{args: args, want: want, asSet: true} }

func sstrs(ss ...string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func sints(ns ...int64) []any {
	out := make([]any, len(ns))
	for i, n := range ns {
		out[i] = n
	}
	return out
}

const setWrongType = harness.Err("WRONGTYPE Operation against a key holding the wrong kind of value")

// setCases run in order on an empty database; every reply was checked
// against redis8-server. Small sets reply in a deterministic order (an intset
// ascending, a listpack in insertion order), which the cases pin down.
var setCases = []setCase{
	// SADD / SREM / SCARD / SISMEMBER / SMISMEMBER / SMEMBERS
	setc(int64(3), "SADD", "s", "3", "1", "2"),
	setcs(sstrs("1", "2", "3"), "SMEMBERS", "s"), // intset: ascending
	setc(int64(1), "SADD", "s", "a", "1"),
	setcs(sstrs("1", "2", "3", "a"), "SMEMBERS", "s"), // now a listpack: the intset's order, then insertion order
	setc(int64(1), "SADD", "s", "3", "a", "b"),
	setc(int64(1), "SREM", "s", "1", "zz"),
	setcs(sstrs("2", "3", "a", "b"), "SMEMBERS", "s"),
	setc(int64(4), "SCARD", "s"),
	setc(int64(0), "SCARD", "nokey"),
	setc(int64(1), "SISMEMBER", "s", "a"),
	setc(int64(0), "SISMEMBER", "s", "zz"),
	setc(int64(0), "SISMEMBER", "nokey", "a"),
	setc(sints(1, 0, 1), "SMISMEMBER", "s", "a", "zz", "3"),
	setc(sints(0, 0), "SMISMEMBER", "nokey", "a", "b"),
	setcs([]any{}, "SMEMBERS", "nokey"),
	setc(int64(0), "SREM", "nokey", "a"),
	setc(int64(2), "SADD", "gone", "x", "y"),
	setc(int64(2), "SREM", "gone", "x", "y", "x"),
	setc(int64(0), "EXISTS", "gone"), // an emptied set is deleted
	setc(int64(2), "SADD", "ints", "007", "7"),
	setcs(sstrs("007", "7"), "SMEMBERS", "ints"), // "007" is not an integer: a listpack
	setc(int64(1), "SADD", "empty", ""),
	setc(int64(1), "SISMEMBER", "empty", ""),
	setc(harness.Err("ERR wrong number of arguments for 'sadd' command"), "SADD", "s"),
	setc(harness.Err("ERR wrong number of arguments for 'smismember' command"), "SMISMEMBER", "s"),

	// wrong types
	setc(harness.Status("OK"), "SET", "str", "x"),
	setc(setWrongType, "SADD", "str", "a"),
	setc(setWrongType, "SREM", "str", "a"),
	setc(setWrongType, "SMEMBERS", "str"),
	setc(setWrongType, "SCARD", "str"),
	setc(setWrongType, "SISMEMBER", "str", "a"),
	setc(setWrongType, "SMISMEMBER", "str", "a"),
	setc(setWrongType, "SPOP", "str"),
	setc(setWrongType, "SPOP", "str", "0"),
	setc(setWrongType, "SRANDMEMBER", "str"),
	setc(setWrongType, "SRANDMEMBER", "str", "2"),
	setc(setWrongType, "SINTER", "str", "s"),
	setc(setWrongType, "SINTER", "nokey", "str"), // every key is checked, even after a missing one
	setc(setWrongType, "SINTERCARD", "1", "str"),
	setc(setWrongType, "SINTERSTORE", "d", "nokey", "str"),
	setc(setWrongType, "SUNION", "s", "str"),
	setc(setWrongType, "SDIFF", "nokey", "str"),
	setc(setWrongType, "SDIFF", "str", "nokey"),
	setc(setWrongType, "SSCAN", "str", "0"),
	setc(setWrongType, "SSCAN", "str", "0", "COUNT", "0"),

	// SMOVE
	setc(int64(0), "SMOVE", "nokey", "str", "a"), // a missing source wins over a wrong destination
	setc(setWrongType, "SMOVE", "s", "str", "a"),
	setc(setWrongType, "SMOVE", "str", "s", "a"),
	setc(int64(0), "SMOVE", "s", "s", "zz"),
	setc(int64(1), "SMOVE", "s", "s", "a"),
	setc(int64(1), "SMOVE", "s", "dst", "2"),
	setcs(sstrs("2"), "SMEMBERS", "dst"),
	setc(int64(0), "SMOVE", "s", "dst", "2"),
	setc(int64(1), "SADD", "s", "2"),
	setc(int64(1), "SMOVE", "s", "dst", "2"), // already in the destination: moved all the same
	setcs(sstrs("3", "a", "b"), "SMEMBERS", "s"),
	setc(int64(1), "SADD", "one", "x"),
	setc(int64(1), "SMOVE", "one", "dst", "x"),
	setc(int64(0), "EXISTS", "one"),
	setcs(sstrs("2", "x"), "SMEMBERS", "dst"),

	// SPOP / SRANDMEMBER arguments and empty replies
	setc(nil, "SPOP", "nokey"),
	setcs([]any{}, "SPOP", "nokey", "3"),
	setcs([]any{}, "SPOP", "s", "0"),
	setc(nil, "SRANDMEMBER", "nokey"),
	setc([]any{}, "SRANDMEMBER", "nokey", "5"),
	setc([]any{}, "SRANDMEMBER", "nokey", "-5"),
	setc([]any{}, "SRANDMEMBER", "s", "0"),
	setc(harness.Err("ERR value is out of range, must be positive"), "SPOP", "s", "-1"),
	setc(harness.Err("ERR value is out of range, must be positive"), "SPOP", "s", "x"),
	setc(harness.Err("ERR value is out of range, must be positive"), "SPOP", "nokey", "-1"),
	setc(harness.Err("ERR value is out of range, must be positive"), "SPOP", "s", "99999999999999999999"),
	setc(harness.Err("ERR syntax error"), "SPOP", "s", "1", "2"),
	setc(harness.Err("ERR value is not an integer or out of range"), "SRANDMEMBER", "s", "x"),
	setc(harness.Err("ERR value is not an integer or out of range"), "SRANDMEMBER", "nokey", "x"),
	setc(harness.Err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"),
		"SRANDMEMBER", "s", "-9223372036854775808"),
	setc(harness.Err("ERR syntax error"), "SRANDMEMBER", "s", "1", "2"),
	setc(int64(3), "SADD", "i", "5", "3", "1"),
	setc(sstrs("1", "3", "5"), "SRANDMEMBER", "i", "10"), // the whole set, in its order
	setc(sstrs("3", "a", "b"), "SRANDMEMBER", "s", "3"),
	setcs(sstrs("1", "3", "5"), "SPOP", "i", "3"), // the whole set, as SUNION of an intset
	setc(int64(0), "EXISTS", "i"),

	// SINTER / SINTERCARD / SINTERSTORE
	setc(int64(4), "SADD", "a", "x", "y", "z", "w"),
	setc(int64(4), "SADD", "b", "w", "z", "y", "x"),
	setc(int64(5), "SADD", "c", "w", "z", "y", "x", "q"),
	setcs(sstrs("x", "y", "z", "w"), "SINTER", "a", "b"), // the smallest set's order; ties keep key order
	setcs(sstrs("w", "z", "y", "x"), "SINTER", "b", "a"),
	setcs(sstrs("x", "y", "z", "w"), "SINTER", "c", "a"),
	setcs(sstrs("w", "z", "y", "x"), "SINTER", "c", "b", "a"),
	setcs(sstrs("x", "y", "z", "w"), "SINTER", "a", "a"),
	setcs([]any{}, "SINTER", "a", "nokey"),
	setcs(sstrs("w", "z", "y", "x", "q"), "SINTER", "c"),
	setc(int64(4), "SINTERCARD", "3", "a", "b", "c"),
	setc(int64(2), "SINTERCARD", "3", "a", "b", "c", "LIMIT", "2"),
	setc(int64(4), "SINTERCARD", "3", "a", "b", "c", "limit", "0"),
	setc(int64(1), "SINTERCARD", "1", "a", "LIMIT", "2", "LIMIT", "1"), // the last LIMIT wins
	setc(int64(0), "SINTERCARD", "2", "a", "nokey"),
	setc(harness.Err("ERR numkeys should be greater than 0"), "SINTERCARD", "0", "a"),
	setc(harness.Err("ERR numkeys should be greater than 0"), "SINTERCARD", "-1", "a"),
	setc(harness.Err("ERR numkeys should be greater than 0"), "SINTERCARD", "x", "a"),
	setc(harness.Err("ERR numkeys should be greater than 0"), "SINTERCARD", "99999999999999999999", "a"),
	setc(harness.Err("ERR Number of keys can't be greater than number of args"), "SINTERCARD", "2", "a"),
	setc(harness.Err("ERR LIMIT can't be negative"), "SINTERCARD", "1", "a", "LIMIT", "-1"),
	setc(harness.Err("ERR LIMIT can't be negative"), "SINTERCARD", "1", "str", "LIMIT", "x"), // options before types
	setc(harness.Err("ERR syntax error"), "SINTERCARD", "1", "a", "LIMIT"),
	setc(harness.Err("ERR syntax error"), "SINTERCARD", "1", "a", "foo"),
	setc(harness.Err("ERR wrong number of arguments for 'sintercard' command"), "SINTERCARD", "1"),
	setc(int64(4), "SINTERSTORE", "d", "c", "b", "a"),
	setcs(sstrs("w", "z", "y", "x"), "SMEMBERS", "d"),
	setc(int64(4), "SADD", "e", "3", "2", "1", "x"), // intset 1 2 3, then a listpack
	setc(int64(3), "SADD", "i", "3", "2", "1"),
	setc(int64(3), "SINTERSTORE", "f", "e", "i"),
	setcs(sstrs("1", "2", "3"), "SMEMBERS", "f"),
	setc(int64(4), "SINTERSTORE", "g", "e", "e"),
	setcs(sstrs("1", "2", "3", "x"), "SMEMBERS", "g"),
	setc(int64(3), "SREM", "g", "3", "2", "1"),
	setc(int64(3), "SADD", "g", "9", "8", "7"),
	setc(int64(1), "SREM", "g", "x"),
	setc(int64(3), "SINTERSTORE", "h", "g"), // a listpack of integers is stored as an intset
	setcs(sstrs("7", "8", "9"), "SMEMBERS", "h"),
	setc(int64(0), "SINTERSTORE", "h", "a", "nokey"),
	setc(int64(0), "EXISTS", "h"),
	setc(int64(600), append([]string{"SADD", "hash1"}, setMembers("", 600)...)...), // 600 integers: a hashtable
	setc(int64(5), "SADD", "hash2", "x", "12", "10", "11", "9"),
	setc(int64(4), "SINTERSTORE", "h", "hash1", "hash2"),
	setcs(sstrs("9", "10", "11", "12"), "SMEMBERS", "h"), // an all-integer result is stored as an intset
	setc(harness.Status("OK"), "SET", "sx", "v"),
	setc(int64(3), "SINTERSTORE", "sx", "i"), // overwrites any type
	setcs(sstrs("1", "2", "3"), "SMEMBERS", "sx"),

	// SUNION / SDIFF and their STORE forms
	setcs(sstrs("1", "2", "3"), "SUNION", "i", "nokey"), // only intsets: an intset, ascending
	setcs(sstrs("1", "2", "3"), "SUNION", "i", "i"),
	setcs(sstrs("1", "2", "3"), "SDIFF", "f", "nokey"),
	setcs(sstrs("x"), "SDIFF", "e", "i", "nokey"),
	setcs([]any{}, "SDIFF", "i", "i"),
	setcs([]any{}, "SDIFF", "nokey", "i"),
	setcs([]any{}, "SUNION", "nokey"),
	setc(int64(1), "SDIFFSTORE", "dd", "e", "i"),
	setcs(sstrs("x"), "SMEMBERS", "dd"),
	setc(int64(4), "SUNIONSTORE", "u", "e", "i"),
	setcs(sstrs("1", "2", "3", "x"), "SMEMBERS", "u"), // stored through an intset, then a listpack
	setc(int64(8), "SUNIONSTORE", "u", "c", "i"),
	setcs(sstrs("w", "z", "y", "x", "q", "1", "2", "3"), "SMEMBERS", "u"),
	setc(int64(0), "SUNIONSTORE", "u", "nokey"),
	setc(int64(0), "EXISTS", "u"),
	setc(int64(0), "SDIFFSTORE", "u2", "i", "i"),
	setc(int64(1), "SDIFFSTORE", "sx", "c", "a", "nokey"),
	setcs(sstrs("q"), "SMEMBERS", "sx"),

	// SSCAN
	setc([]any{"0", sstrs("w", "z", "y", "x", "q")}, "SSCAN", "c", "0"),
	setc([]any{"0", sstrs("w", "z", "y", "x", "q")}, "SSCAN", "c", "99", "COUNT", "1"), // small sets: all at once
	setc([]any{"0", sstrs("w")}, "SSCAN", "c", "0", "MATCH", "w*"),
	setc([]any{"0", sstrs("z")}, "SSCAN", "c", "0", "match", "w*", "MATCH", "z"),
	setc([]any{"0", sstrs("1", "2", "3")}, "SSCAN", "f", "0", "MATCH", "*"),
	setc([]any{"0", []any{}}, "SSCAN", "nokey", "0"),
	setc([]any{"0", []any{}}, "SSCAN", "nokey", "0", "COUNT", "0"), // a missing key answers before options
	setc([]any{"0", sstrs("1", "2", "3")}, "SSCAN", "f", "+5"),
	setc([]any{"0", sstrs("1", "2", "3")}, "SSCAN", "f", "007"),
	setc([]any{"0", sstrs("1", "2", "3")}, "SSCAN", "f", "-0"),
	setc([]any{"0", sstrs("1", "2", "3")}, "SSCAN", "f", "18446744073709551615"),
	setc(harness.Err("ERR invalid cursor"), "SSCAN", "f", "-1"),
	setc(harness.Err("ERR invalid cursor"), "SSCAN", "f", "18446744073709551616"),
	setc(harness.Err("ERR invalid cursor"), "SSCAN", "nokey", "x"),
	setc(harness.Err("ERR invalid cursor"), "SSCAN", "str", "x"),
	setc(harness.Err("ERR syntax error"), "SSCAN", "f", "0", "COUNT", "0"),
	setc(harness.Err("ERR syntax error"), "SSCAN", "f", "0", "COUNT", "-1"),
	setc(harness.Err("ERR value is not an integer or out of range"), "SSCAN", "f", "0", "COUNT", "x"),
	setc(harness.Err("ERR syntax error"), "SSCAN", "f", "0", "MATCH"),
	setc(harness.Err("ERR syntax error"), "SSCAN", "f", "0", "TYPE", "string"),
	setc(harness.Err("ERR NOVALUES option can only be used in HSCAN"), "SSCAN", "f", "0", "NOVALUES"),
	setc(harness.Err("ERR wrong number of arguments for 'sscan' command"), "SSCAN", "f"),

	setc(sstrs("a", "b"), "COMMAND", "GETKEYS", "SINTERCARD", "2", "a", "b", "LIMIT", "1"),
}

// resp3 converts a RESP2 expectation to RESP3: the reply itself becomes a set
// when the case says so (nested arrays stay arrays, as in Redis).
func (tc setCase) resp3() any {
	if arr, ok := tc.want.([]any); ok && tc.asSet {
		return harness.Set(arr)
	}
	return tc.want
}

func TestSetCommands(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			s := harness.Start(t)
			r := s.Raw(t)
			if proto == 3 {
				r.Do("HELLO", "3")
			}
			for _, tc := range setCases {
				want := tc.want
				if proto == 3 {
					want = tc.resp3()
				}
				if got := r.Do(tc.args...); !reflect.DeepEqual(got, want) {
					t.Errorf("%v: got %#v, want %#v", tc.args, got, want)
				}
			}
		})
	}
}

// sortedReply returns a reply's elements sorted (nil for a non-list), for
// replies whose order Redis does not define.
func setSortedReply(v any) []string {
	var elems []any
	switch x := v.(type) {
	case []any:
		elems = x
	case harness.Set:
		elems = x
	default:
		return nil
	}
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		s, _ := e.(string)
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func TestSetRandomCommands(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("HELLO", "3")
	for name, members := range map[string][]string{
		"intset":    setMembers("", 20),
		"listpack":  setMembers("m", 20),
		"hashtable": setMembers("m", 300),
	} {
		key := "r:" + name
		r.Do(append([]string{"SADD", key}, members...)...)
		isMember := func(m any) bool { return slices.Contains(members, m.(string)) }
		n := len(members)

		got := r.Do("SRANDMEMBER", key, "5")
		arr, ok := got.([]any)
		if !ok || len(arr) != 5 || len(setSortedUnique(arr)) != 5 || !setAll(arr, isMember) {
			t.Fatalf("%s SRANDMEMBER 5: %#v (want 5 distinct members in an array)", name, got)
		}
		got = r.Do("SRANDMEMBER", key, strconv.Itoa(n-1))
		if arr, ok = got.([]any); !ok || len(setSortedUnique(arr)) != n-1 || !setAll(arr, isMember) {
			t.Fatalf("%s SRANDMEMBER n-1: %d elements", name, len(arr))
		}
		got = r.Do("SRANDMEMBER", key, "-1000")
		if arr, ok = got.([]any); !ok || len(arr) != 1000 || !setAll(arr, isMember) {
			t.Fatalf("%s SRANDMEMBER -1000: %T of %d", name, got, len(arr))
		}
		if u := len(setSortedUnique(arr)); u < n/2 {
			t.Fatalf("%s SRANDMEMBER -1000 of %d members gave only %d distinct", name, n, u)
		}
		if !slices.Equal(setSortedReply(r.Do("SRANDMEMBER", key, "100000")), setSorted(members)) {
			t.Fatalf("%s SRANDMEMBER beyond the size is not the whole set", name)
		}
		if m := r.Do("SRANDMEMBER", key); !isMember(m) {
			t.Fatalf("%s SRANDMEMBER: %#v", name, m)
		}

		// SPOP in the three regimes: one, few (pop one by one), most (keep the rest).
		left := map[string]bool{}
		for _, m := range members {
			left[m] = true
		}
		pop := func(reply any) {
			t.Helper()
			for _, m := range setSortedReply(reply) {
				if !left[m] {
					t.Fatalf("%s SPOP returned %q, not a member left", name, m)
				}
				delete(left, m)
			}
			if card := r.Do("SCARD", key); card != int64(len(left)) {
				t.Fatalf("%s after SPOP: SCARD %v, want %d", name, card, len(left))
			}
		}
		m := r.Do("SPOP", key)
		pop([]any{m})
		got = r.Do("SPOP", key, "3")
		if st, ok := got.(harness.Set); !ok || len(st) != 3 {
			t.Fatalf("%s SPOP 3: %#v (want a set of 3)", name, got)
		}
		pop(got)
		got = r.Do("SPOP", key, strconv.Itoa(len(left)-2))
		pop(got)
		got = r.Do("SPOP", key, "100")
		if st, ok := got.(harness.Set); !ok || len(st) != 2 {
			t.Fatalf("%s SPOP beyond the size: %#v", name, got)
		}
		pop(got)
		if e := r.Do("EXISTS", key); e != int64(0) {
			t.Fatalf("%s: popping everything left the key", name)
		}
	}
	if got := r.Do("SRANDMEMBER", "nokey", "-9223372036854775807"); !reflect.DeepEqual(got, []any{}) {
		t.Fatalf("SRANDMEMBER of a missing key with a huge count: %#v", got)
	}
	r.Do("SADD", "tiny", "x")
	if got := r.Do("SRANDMEMBER", "tiny", "-9223372036854775807"); got != harness.Err("ERR value is out of range") {
		t.Fatalf("SRANDMEMBER with a reply too large to build: %#v", got)
	}
}

func setMembers(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

func setSorted(ss []string) []string {
	out := slices.Clone(ss)
	sort.Strings(out)
	return out
}

func setSortedUnique(arr []any) []string { return slices.Compact(setSortedReply(arr)) }

func setAll(arr []any, f func(any) bool) bool {
	for _, e := range arr {
		if !f(e) {
			return false
		}
	}
	return true
}

func TestSScanLargeSet(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	members := setMembers("m", 1000)
	r.Do(append([]string{"SADD", "big"}, members...)...)
	seen := map[string]bool{}
	cursor, calls := "0", 0
	for {
		reply, ok := r.Do("SSCAN", "big", cursor, "COUNT", "20").([]any)
		if !ok || len(reply) != 2 {
			t.Fatalf("SSCAN reply %#v", reply)
		}
		cursor = reply[0].(string)
		for _, m := range reply[1].([]any) {
			seen[m.(string)] = true
		}
		calls++
		if cursor == "0" {
			break
		}
		if calls > 1000 {
			t.Fatal("SSCAN does not end")
		}
	}
	if len(seen) != 1000 || calls < 20 {
		t.Fatalf("SSCAN saw %d members in %d calls (want all 1000 over many calls)", len(seen), calls)
	}
	// MATCH filters what a call returns but the scan still covers the table.
	matched := map[string]bool{}
	cursor = "0"
	for {
		reply := r.Do("SSCAN", "big", cursor, "MATCH", "m1*", "COUNT", "50").([]any)
		cursor = reply[0].(string)
		for _, m := range reply[1].([]any) {
			if !strings.HasPrefix(m.(string), "m1") {
				t.Fatalf("MATCH m1* returned %q", m)
			}
			matched[m.(string)] = true
		}
		if cursor == "0" {
			break
		}
	}
	if len(matched) != 111 {
		t.Fatalf("MATCH m1* found %d members, want 111", len(matched))
	}
	// As in Redis, COUNT bounds the members visited and MATCH filters them
	// afterwards: a pattern changes what a call returns, never the cursors.
	plain, filtered := "0", "0"
	for {
		p := r.Do("SSCAN", "big", plain, "COUNT", "10").([]any)
		f := r.Do("SSCAN", "big", filtered, "COUNT", "10", "MATCH", "nothing*").([]any)
		plain, filtered = p[0].(string), f[0].(string)
		if plain != filtered || len(f[1].([]any)) != 0 {
			t.Fatalf("with MATCH the scan went to %q (%d members), without to %q", filtered, len(f[1].([]any)), plain)
		}
		if plain == "0" {
			break
		}
	}
}

// TestSetWatch checks that set commands signal WATCH only when they change a
// key, as Redis does.
func TestSetWatch(t *testing.T) {
	s := harness.Start(t)
	r, other := s.Raw(t), s.Raw(t)
	other.Do("SADD", "src", "a", "b")
	other.Do("SADD", "dst", "a")
	other.Do("SADD", "x", "1", "2")
	for _, tc := range []struct {
		watch string
		cmd   []string
		dirty bool
	}{
		{"dst", []string{"SADD", "dst", "a"}, false},
		{"dst", []string{"SADD", "dst", "new"}, true},
		{"src", []string{"SREM", "src", "zz"}, false},
		{"dst", []string{"SMOVE", "src", "dst", "a"}, false}, // already there: only src changes
		{"src", []string{"SMOVE", "src", "dst", "b"}, true},
		{"src", []string{"SMOVE", "src", "dst", "nope"}, false},
		{"x", []string{"SINTERSTORE", "out", "x"}, false},
		{"out", []string{"SINTERSTORE", "out", "x"}, true},
		{"x", []string{"SUNIONSTORE", "out2", "x", "dst"}, false},
		{"missing", []string{"SINTERSTORE", "missing", "nokey"}, false}, // nothing stored, nothing deleted
		{"out", []string{"SDIFFSTORE", "out", "x", "x"}, true},          // deletes out
		{"nokey", []string{"SPOP", "nokey"}, false},
		{"nokey", []string{"SPOP", "nokey", "2"}, false},
		{"x", []string{"SPOP", "x", "0"}, false},
		{"x", []string{"SPOP", "x", "1"}, true},
	} {
		r.Do("WATCH", tc.watch)
		r.Do("MULTI")
		r.Do("PING")
		other.Do(tc.cmd...)
		got := r.Do("EXEC")
		if dirty := got == nil; dirty != tc.dirty {
			t.Errorf("WATCH %s, then %v: transaction aborted=%v, want %v", tc.watch, tc.cmd, dirty, tc.dirty)
		}
	}
}

// TestSetMultiKeyAtomic moves members between sets while other clients read
// them with multi-key commands: the dispatcher locks every key's shard (the
// keys are chosen to sit in different shards), so readers never see a member
// in both sets or in neither.
func TestSetMultiKeyAtomic(t *testing.T) {
	s := harness.Start(t)
	setup := s.Raw(t)
	const n = 50
	setup.Do(append([]string{"SADD", "left"}, setMembers("m", n)...)...)
	var wg sync.WaitGroup
	errs := make(chan string, 10)
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := s.Raw(t)
		rng := rand.New(rand.NewPCG(1, 1))
		for range 3000 {
			m := "m" + strconv.Itoa(rng.IntN(n))
			if w.Do("SMOVE", "left", "right", m) == int64(0) {
				w.Do("SMOVE", "right", "left", m)
			}
		}
	}()
	for _, check := range [][]string{
		{"SUNION", "left", "right"},
		{"SINTERCARD", "2", "left", "right"},
		{"SINTER", "left", "right"},
		{"SUNIONSTORE", "both", "left", "right"},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rd := s.Raw(t)
			for range 500 {
				got := rd.Do(check...)
				ok := true
				switch check[0] {
				case "SUNION":
					ok = len(got.([]any)) == n
				case "SINTERCARD":
					ok = got == int64(0)
				case "SINTER":
					ok = len(got.([]any)) == 0
				case "SUNIONSTORE":
					ok = got == int64(n)
				}
				if !ok {
					errs <- fmt.Sprintf("%v saw a torn state: %#v", check, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestSetModel runs random set commands against the server and a model made
// of Go maps, comparing every reply (as sorted lists where Redis leaves the
// order open) and the final contents.
func TestSetModel(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			s := harness.Start(t)
			r := s.Raw(t)
			if proto == 3 {
				r.Do("HELLO", "3")
			}
			runSetModel(t, r, rand.New(rand.NewPCG(uint64(proto), 42)), 4000)
		})
	}
}

type setModel map[string]map[string]bool

func (m setModel) members(k string) []string {
	out := []string{}
	for e := range m[k] {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}

func (m setModel) put(k string, elems map[string]bool) {
	if len(elems) == 0 {
		delete(m, k)
		return
	}
	m[k] = elems
}

func runSetModel(t *testing.T, r *harness.Conn, rng *rand.Rand, ops int) {
	setKeys := []string{"k1", "k2", "k3", "{k1}x"}
	keys := append(slices.Clone(setKeys), "str")
	r.Do("SET", "str", "v")
	model := setModel{}
	// Pools around the encoding thresholds: few integers (intset), short
	// strings (listpack), long strings and many members (hashtable).
	pools := [][]string{setMembers("", 40), setMembers("s", 40), setMembers(strings.Repeat("L", 70), 5), setMembers("", 700)}
	member := func() string {
		p := pools[rng.IntN(len(pools))]
		return p[rng.IntN(len(p))]
	}
	key := func() string { return keys[rng.IntN(len(keys))] }
	someKeys := func() []string {
		out := make([]string, 1+rng.IntN(3))
		for i := range out {
			out[i] = key()
		}
		return out
	}
	isStr := func(ks ...string) bool { return slices.Contains(ks, "str") }
	check := func(args []string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: got %#v, want %#v", args, got, want)
		}
	}
	sortedOf := func(elems map[string]bool) []string {
		out := []string{}
		for e := range elems {
			out = append(out, e)
		}
		sort.Strings(out)
		return out
	}
	for range ops {
		switch op := rng.IntN(14); op {
		case 0, 1: // SADD, sometimes a burst that crosses the thresholds
			k := key()
			n := 1 + rng.IntN(4)
			if rng.IntN(20) == 0 {
				n = 150 + rng.IntN(500)
			}
			args := []string{"SADD", k}
			for range n {
				args = append(args, member())
			}
			got := r.Do(args...)
			if isStr(k) {
				check(args, got, setWrongType)
				continue
			}
			if model[k] == nil {
				model[k] = map[string]bool{}
			}
			added := 0
			for _, m := range args[2:] {
				if !model[k][m] {
					model[k][m] = true
					added++
				}
			}
			check(args, got, int64(added))
		case 2: // SREM
			k := key()
			args := []string{"SREM", k, member(), member()}
			got := r.Do(args...)
			if isStr(k) {
				check(args, got, setWrongType)
				continue
			}
			removed := 0
			for _, m := range args[2:] {
				if model[k][m] {
					delete(model[k], m)
					removed++
				}
			}
			model.put(k, model[k])
			check(args, got, int64(removed))
		case 3: // SISMEMBER, SMISMEMBER, SCARD
			k, m1, m2 := key(), member(), member()
			if isStr(k) {
				continue
			}
			check([]string{"SISMEMBER", k, m1}, r.Do("SISMEMBER", k, m1), int64(setBoolInt(model[k][m1])))
			check([]string{"SMISMEMBER", k, m1, m2}, r.Do("SMISMEMBER", k, m1, m2),
				[]any{int64(setBoolInt(model[k][m1])), int64(setBoolInt(model[k][m2]))})
			check([]string{"SCARD", k}, r.Do("SCARD", k), int64(len(model[k])))
		case 4: // SMEMBERS
			k := key()
			got := r.Do("SMEMBERS", k)
			if isStr(k) {
				check([]string{"SMEMBERS", k}, got, setWrongType)
				continue
			}
			check([]string{"SMEMBERS", k}, setSortedReply(got), model.members(k))
		case 5: // SMOVE
			src, dst, m := key(), key(), member()
			args := []string{"SMOVE", src, dst, m}
			got := r.Do(args...)
			switch {
			case isStr(src) || (model[src] != nil && isStr(dst)):
				check(args, got, setWrongType)
			case !model[src][m]:
				check(args, got, int64(0))
			default:
				check(args, got, int64(1))
				delete(model[src], m)
				model.put(src, model[src])
				if model[dst] == nil {
					model[dst] = map[string]bool{}
				}
				model[dst][m] = true
			}
		case 6, 7: // SINTER/SUNION/SDIFF and STORE forms
			ks := someKeys()
			names := []string{"SINTER", "SUNION", "SDIFF"}
			name := names[rng.IntN(3)]
			store := rng.IntN(2) == 0
			args := append([]string{name}, ks...)
			dst := setKeys[rng.IntN(len(setKeys))]
			if store {
				args = append([]string{name + "STORE", dst}, ks...)
			}
			got := r.Do(args...)
			if isStr(ks...) {
				check(args, got, setWrongType)
				continue
			}
			result := map[string]bool{}
			switch name {
			case "SINTER":
				for e := range model[ks[0]] {
					in := true
					for _, k := range ks[1:] {
						in = in && model[k][e]
					}
					if in {
						result[e] = true
					}
				}
			case "SUNION":
				for _, k := range ks {
					for e := range model[k] {
						result[e] = true
					}
				}
			case "SDIFF":
				for e := range model[ks[0]] {
					result[e] = true
				}
				for _, k := range ks[1:] {
					for e := range model[k] {
						delete(result, e)
					}
				}
			}
			if store {
				check(args, got, int64(len(result)))
				model.put(dst, result)
			} else {
				check(args, setSortedReply(got), sortedOf(result))
			}
		case 8: // SINTERCARD
			ks := someKeys()
			args := append([]string{"SINTERCARD", strconv.Itoa(len(ks))}, ks...)
			limit := rng.IntN(4)
			if limit > 0 {
				args = append(args, "LIMIT", strconv.Itoa(limit))
			}
			got := r.Do(args...)
			if isStr(ks...) {
				check(args, got, setWrongType)
				continue
			}
			n := 0
			for e := range model[ks[0]] {
				in := true
				for _, k := range ks[1:] {
					in = in && model[k][e]
				}
				if in {
					n++
				}
			}
			if limit > 0 {
				n = min(n, limit)
			}
			check(args, got, int64(n))
		case 9: // SPOP
			k := key()
			if isStr(k) {
				continue
			}
			args := []string{"SPOP", k}
			if rng.IntN(2) == 0 {
				args = append(args, strconv.Itoa(rng.IntN(len(model[k])+3)))
			}
			got := r.Do(args...)
			popped := setSortedReply(got)
			if len(args) == 2 {
				if len(model[k]) == 0 {
					check(args, got, nil)
					continue
				}
				popped = []string{got.(string)}
			} else if want := min(len(model[k]), setAtoi(args[2])); len(popped) != want {
				t.Fatalf("%v: popped %d, want %d", args, len(popped), want)
			}
			for _, m := range popped {
				if !model[k][m] {
					t.Fatalf("%v: popped %q, not a member", args, m)
				}
				delete(model[k], m)
			}
			model.put(k, model[k])
		case 10: // SRANDMEMBER
			k := key()
			if isStr(k) {
				continue
			}
			count := rng.IntN(30) - 10
			args := []string{"SRANDMEMBER", k, strconv.Itoa(count)}
			got := setSortedReply(r.Do(args...))
			want := min(setAbs(count), len(model[k]))
			if count < 0 && len(model[k]) > 0 {
				want = -count
			}
			if len(got) != want {
				t.Fatalf("%v: %d members, want %d", args, len(got), want)
			}
			for i, m := range got {
				if !model[k][m] || (count > 0 && i > 0 && got[i-1] == m) {
					t.Fatalf("%v: %q is not a member or repeats", args, m)
				}
			}
		case 11: // SSCAN over the whole set
			k := key()
			if isStr(k) {
				continue
			}
			seen := map[string]bool{}
			cursor := "0"
			for range 10000 {
				reply := r.Do("SSCAN", k, cursor, "COUNT", strconv.Itoa(1+rng.IntN(20))).([]any)
				cursor = reply[0].(string)
				for _, m := range reply[1].([]any) {
					seen[m.(string)] = true
				}
				if cursor == "0" {
					break
				}
			}
			check([]string{"SSCAN", k}, sortedOf(seen), model.members(k))
		case 12: // DEL, to start sets over in other encodings
			if rng.IntN(4) == 0 {
				k := key()
				if !isStr(k) {
					r.Do("DEL", k)
					delete(model, k)
				}
			}
		case 13: // EXISTS agrees that emptied sets are gone
			k := key()
			if !isStr(k) {
				check([]string{"EXISTS", k}, r.Do("EXISTS", k), int64(setBoolInt(model[k] != nil)))
			}
		}
	}
	for _, k := range keys {
		if !isStr(k) {
			check([]string{"SMEMBERS", k}, setSortedReply(r.Do("SMEMBERS", k)), model.members(k))
		}
	}
}

func setBoolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func setAbs(n int) int { return max(n, -n) }

func setAtoi(s string) int { n, _ := strconv.Atoi(s); return n }

// BenchmarkSetMemory1M loads a 1M-member set ("member:0".."member:999999",
// or the integers 0..999999) into an in-process server and reports the heap
// it holds per member (see heapPer), for comparison with used_memory deltas
// of Redis and Valkey (docs/bench/sets.md).
func BenchmarkSetMemory1M(b *testing.B) {
	for _, prefix := range []string{"member:", ""} {
		name := "strings"
		if prefix == "" {
			name = "integers"
		}
		b.Run(name, func(b *testing.B) {
			heapPer(b, "bytes/member", 1_000_000, func(r *harness.Conn) {
				for batch := range 1000 {
					args := []string{"SADD", "big"}
					for i := batch * 1000; i < (batch+1)*1000; i++ {
						args = append(args, prefix+strconv.Itoa(i))
					}
					r.Do(args...)
				}
				if n := r.Do("SCARD", "big"); n != int64(1_000_000) {
					b.Fatalf("SCARD %v", n)
				}
			})
		})
	}
}
