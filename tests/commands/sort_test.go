package commands

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// SORT and SORT_RO against Redis 8.0.2: options and their errors in
// Redis's order, numeric and ALPHA sorts of lists, sets and sorted sets, BY
// and GET patterns (string keys, hash fields, missing keys), BY nosort,
// LIMIT clamping, STORE, and the order of elements with equal weights.

// sortFixture is data most SORT scripts below read: a list, an intset, a
// listpack set and a sorted set, weights as strings and hash fields, and
// objects to GET.
func sortFixture() [][]string {
	return [][]string{
		{"RPUSH", "l", "3", "1", "2", "10", "-5", "2.5", "1e2", "07", "3"},
		{"SADD", "si", "5", "3", "10", "1", "-7", "300000"},
		{"SADD", "sl", "pear", "apple", "fig", "Banana", "10", "9"},
		{"ZADD", "z", "3", "c", "1", "a", "2", "b", "2", "bb", "0", "z0"},
		{"RPUSH", "names", "bob", "alice", "carol", "dave", "eve"},
		{"MSET", "w_bob", "3", "w_alice", "1", "w_carol", "2", "w_eve", "x9"},
		{"MSET", "o_bob", "B", "o_alice", "A", "o_dave", "D"},
		{"HSET", "h_bob", "age", "30", "name", "Bobby"},
		{"HSET", "h_alice", "age", "25", "name", "Alicia"},
		{"HSET", "h_carol", "age", "25"},
		{"SET", "h_dave", "notahash"},
		{"HSET", "w_dave", "f", "1"},
		{"MSET", "w_a", "5", "w_b", "5", "w_bb", "1", "w_c", "0.5", "w_z0", "5"},
	}
}

func TestDifferentialSortLists(t *testing.T) {
	script := sortFixture()
	script = append(script, [][]string{
		{"SORT", "l"}, {"SORT", "l", "DESC"}, {"SORT", "l", "ASC"}, {"SORT", "l", "ALPHA"}, {"SORT", "l", "alpha", "desc"},
		{"SORT", "l", "DESC", "ASC"}, {"SORT", "l", "ALPHA", "ALPHA"},
		// LIMIT: clamped to the list, negative counts meaning all
		{"SORT", "l", "LIMIT", "0", "2"}, {"SORT", "l", "LIMIT", "2", "3"}, {"SORT", "l", "LIMIT", "1", "-1"},
		{"SORT", "l", "LIMIT", "-5", "2"}, {"SORT", "l", "LIMIT", "2", "100"}, {"SORT", "l", "LIMIT", "100", "2"},
		{"SORT", "l", "LIMIT", "0", "0"}, {"SORT", "l", "LIMIT", "8", "1"}, {"SORT", "l", "LIMIT", "9", "1"},
		{"SORT", "l", "LIMIT", "-1", "-1"}, {"SORT", "l", "LIMIT", "3", "-100"}, {"SORT", "l", "DESC", "LIMIT", "1", "3"},
		{"SORT", "l", "LIMIT", "9223372036854775807", "9223372036854775807"},
		{"SORT", "l", "LIMIT", "-9223372036854775808", "1"}, {"SORT", "l", "LIMIT", "1", "2", "LIMIT", "0", "1"},
		// option errors, before the key is looked at
		{"SORT", "l", "LIMIT", "x", "1"}, {"SORT", "l", "LIMIT", "1", "x"}, {"SORT", "l", "LIMIT", "1"},
		{"SORT", "l", "LIMIT", "1.5", "2"}, {"SORT", "l", "LIMIT", "9223372036854775808", "1"},
		{"SORT", "l", "FOO"}, {"SORT", "l", "BY"}, {"SORT", "l", "GET"}, {"SORT", "l", "STORE"},
		{"SORT", "l", "LIMIT", "x", "1", "FOO"}, {"SORT", "l", "FOO", "LIMIT", "x", "1"},
		{"SORT"}, {"SORT_RO"},
		// BY nosort: the list's order, DESC reversing it, LIMIT a range of it
		{"SORT", "l", "BY", "nosort"}, {"SORT", "l", "BY", "nosort", "DESC"},
		{"SORT", "l", "BY", "nosort", "LIMIT", "2", "3"}, {"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "2", "3"},
		{"SORT", "l", "BY", "nosort", "LIMIT", "7", "10"}, {"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "7", "10"},
		{"SORT", "l", "BY", "nosort", "LIMIT", "9", "1"}, {"SORT", "l", "BY", "nosort", "LIMIT", "0", "0"},
		{"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "-3", "2"},
		{"SORT", "l", "BY", "w_*", "BY", "nosort"}, {"SORT", "l", "BY", "nosort", "BY", "w_*"},
		{"SORT", "l", "BY", "nosort", "ALPHA"}, {"SORT", "l", "BY", "constant"}, {"SORT", "l", "BY", ""},
		// BY a string key or a hash field; missing weights count as 0
		{"SORT", "names", "BY", "w_*"}, {"SORT", "names", "BY", "w_*", "DESC"}, {"SORT", "names", "BY", "w_*", "ALPHA"},
		{"SORT", "names", "BY", "w_*", "ALPHA", "DESC"}, {"SORT", "names", "BY", "h_*->age"},
		{"SORT", "names", "BY", "h_*->age", "DESC"}, {"SORT", "names", "BY", "h_*->name", "ALPHA"},
		{"SORT", "names", "BY", "h_*->nofield"}, {"SORT", "names", "BY", "nokey_*"}, {"SORT", "names", "BY", "*"},
		{"SORT", "names", "BY", "w_*", "LIMIT", "1", "2"}, {"SORT", "names", "BY", "w_*", "ALPHA", "LIMIT", "1", "2"},
		{"SORT", "names", "BY", "h_*->age", "LIMIT", "0", "3"}, {"SORT", "names", "BY", "h_*->"},
		{"SORT", "names", "BY", "*->age"}, {"SORT", "names", "BY", "h_*-", "ALPHA"},
		// GET: #, string keys, hash fields, missing ones as nulls
		{"SORT", "names", "ALPHA", "GET", "#"}, {"SORT", "names", "ALPHA", "GET", "o_*"},
		{"SORT", "names", "ALPHA", "GET", "#", "GET", "o_*", "GET", "h_*->name", "GET", "h_*->age"},
		{"SORT", "names", "ALPHA", "GET", "const"}, {"SORT", "names", "ALPHA", "GET", "h_*->"}, {"SORT", "names", "ALPHA", "GET", "w_*->f"},
		{"SORT", "names", "ALPHA", "GET", "h_*->name", "LIMIT", "1", "2"}, {"SORT", "names", "BY", "nosort", "GET", "#", "GET", "o_*"},
		{"SORT", "names", "BY", "w_*", "GET", "w_*", "DESC"}, {"SORT", "names", "ALPHA", "GET", "*"},
		{"SORT", "names", "ALPHA", "GET", "#x"}, {"SORT", "names", "ALPHA", "GET", "o_*", "LIMIT", "10", "2"},
		{"SORT", "nokey", "GET", "#"},
		// numeric weights that are not numbers
		{"SORT", "names"}, {"SORT", "names", "BY", "w_*", "LIMIT", "0", "1"}, {"SORT", "names", "BY", "h_*->name"},
		{"SORT", "names", "LIMIT", "0", "0"}, {"SORT", "names", "BY", "nosort"},
		// wrong type and missing keys
		{"SET", "str", "x"}, {"SORT", "str"}, {"SORT", "str", "LIMIT", "x", "1"}, {"SORT", "str", "FOO"},
		{"SORT", "h_bob"}, {"SORT_RO", "str"}, {"SORT", "nokey"}, {"SORT", "nokey", "ALPHA", "DESC", "LIMIT", "0", "5"},
		{"SORT_RO", "nokey"}, {"SORT", "nokey", "BY", "nosort"},
		// SORT_RO: the same, without STORE
		{"SORT_RO", "l"}, {"SORT_RO", "names", "BY", "w_*", "GET", "#", "GET", "o_*"}, {"SORT_RO", "l", "STORE", "dst"},
		{"SORT_RO", "l", "LIMIT", "0", "2", "DESC"}, {"EXISTS", "dst"},
		// inside a transaction
		{"MULTI"}, {"SORT", "l"}, {"SORT", "names", "BY", "w_*", "GET", "o_*", "STORE", "tx"}, {"LRANGE", "tx", "0", "-1"},
		{"SORT", "str"}, {"SORT_RO", "l", "DESC"}, {"EXEC"},
		{"MULTI"}, {"SORT", "l", "LIMIT", "x", "1"}, {"SORT", "l", "STORE"}, {"EXEC"},
	}...)
	harness.Differ(t, script)
}

func TestDifferentialSortNumbers(t *testing.T) {
	// Weights parse as Redis 8 does (fast_float): no spaces, hex or
	// underscores; + allowed; inf and infinity in any case; NaN refused;
	// out of range to ±inf or 0; the empty string is 0.
	script := [][]string{{"RPUSH", "vl", "v", "u"}, {"SET", "wu", "3"}}
	for _, v := range []string{"", " 1", "1 ", "+1", "-1", "1e500", "-1e500", "1e-400", "4.9e-324", "nan", "NaN", "-nan",
		"inf", "-Infinity", "INF", "+inf", "infinit", "infx", "in", "0x10", "1.", ".5", "+.5", ".", "+", "-", "1e", "1e+",
		"1e5.5", "1.e5", "1_0", "--1", "+-1", "1,5", "00012", "-0", "0", "1E3", "1.5e3", "9007199254740993",
		"1\x00abc", "\x001", "1\x00", "12345678901234567890", "0.1", "0.10000000000000001"} {
		script = append(script, []string{"DEL", "n"}, []string{"RPUSH", "n", v, "5", "0", "-0", "1e-400"},
			[]string{"SORT", "n"}, []string{"SORT", "n", "DESC"},
			[]string{"SET", "wv", v}, []string{"SORT", "vl", "BY", "w*"}, []string{"SORT", "vl", "BY", "w*", "DESC"})
	}
	script = append(script, []string{"DEL", "w"}, []string{"RPUSH", "w", "a", "b", "c"}, []string{"MSET", "wa", "2", "wb", "1", "wc", "\x001"},
		[]string{"SORT", "w", "BY", "w*"}, []string{"SORT", "w", "BY", "w*", "DESC"})
	harness.Differ(t, script)
}

func TestDifferentialSortSetsAndZSets(t *testing.T) {
	script := sortFixture()
	script = append(script, [][]string{
		// an intset, a listpack set: sorted, or in their order with nosort
		{"SORT", "si"}, {"SORT", "si", "DESC"}, {"SORT", "si", "ALPHA"}, {"SORT", "si", "LIMIT", "1", "2"},
		{"SORT", "si", "BY", "nosort"}, {"SORT", "si", "BY", "nosort", "DESC"}, {"SORT", "si", "BY", "nosort", "LIMIT", "1", "3"},
		{"SORT", "si", "BY", "nosort", "DESC", "LIMIT", "1", "3"}, {"SORT", "si", "BY", "nosort", "GET", "#", "GET", "o_*"},
		{"SORT", "sl", "ALPHA"}, {"SORT", "sl", "ALPHA", "DESC"}, {"SORT", "sl"}, {"SORT", "sl", "BY", "nosort"},
		{"SORT", "sl", "BY", "nosort", "DESC", "LIMIT", "2", "2"}, {"SREM", "sl", "fig"}, {"SADD", "sl", "fig", "kiwi"},
		{"SORT", "sl", "BY", "nosort"}, {"SORT", "sl", "BY", "w_*", "ALPHA"}, {"SORT", "sl", "BY", "w_*"},
		// nosort with STORE sorts a set ALPHA, DESC honoured
		{"SORT", "si", "BY", "nosort", "STORE", "d1"}, {"LRANGE", "d1", "0", "-1"},
		{"SORT", "si", "BY", "nosort", "DESC", "STORE", "d1"}, {"LRANGE", "d1", "0", "-1"},
		{"SORT", "sl", "BY", "nosort", "LIMIT", "1", "3", "STORE", "d1"}, {"LRANGE", "d1", "0", "-1"},
		{"SORT", "sl", "BY", "nosort", "GET", "o_*", "GET", "#", "STORE", "d1"}, {"LRANGE", "d1", "0", "-1"},
		// and so does one in a script
		{"EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "si"},
		{"EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort', 'DESC', 'LIMIT', 1, 2)", "1", "sl"},
		{"EVAL", "return redis.call('SORT_RO', KEYS[1], 'BY', 'nosort')", "1", "sl"},
		{"EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "l"},
		{"EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "z"},
		// sorted sets: converted to skiplist; nosort keeps the zset order
		{"OBJECT", "ENCODING", "z"}, {"SORT", "z", "ALPHA"}, {"OBJECT", "ENCODING", "z"}, {"SORT", "z"},
		{"SORT", "z", "ALPHA", "DESC", "LIMIT", "1", "2"}, {"SORT", "z", "BY", "nosort"}, {"SORT", "z", "BY", "nosort", "DESC"},
		{"SORT", "z", "BY", "nosort", "LIMIT", "1", "2"}, {"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "2"},
		{"SORT", "z", "BY", "nosort", "LIMIT", "4", "9"}, {"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "4", "9"},
		{"SORT", "z", "BY", "nosort", "LIMIT", "5", "1"}, {"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "5", "1"},
		{"SORT", "z", "BY", "nosort", "LIMIT", "0", "0"}, {"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "-2", "-2"},
		{"SORT", "z", "BY", "w_*"}, {"SORT", "z", "BY", "w_*", "DESC"}, {"SORT", "z", "BY", "w_*", "LIMIT", "1", "3"},
		{"SORT", "z", "BY", "w_*", "GET", "#", "GET", "w_*"}, {"SORT", "z", "BY", "nosort", "STORE", "d2"},
		{"LRANGE", "d2", "0", "-1"}, {"ZADD", "z2", "1", "x"}, {"SORT_RO", "z2", "ALPHA"}, {"OBJECT", "ENCODING", "z2"},
		{"ZADD", "z2", "-0", "y"}, {"ZSCORE", "z2", "y"}, {"ZRANGE", "z2", "0", "-1", "WITHSCORES"},
		{"ZADD", "z3", "1", "x"}, {"SORT", "z3", "LIMIT", "x", "1"}, {"OBJECT", "ENCODING", "z3"},
		{"SORT", "z3", "FOO"}, {"OBJECT", "ENCODING", "z3"}, {"SORT", "z3"}, {"OBJECT", "ENCODING", "z3"},
	}...)
	// A hashtable set: sorted results are deterministic (nosort's order is
	// not, in Redis, unless stored).
	big := []string{"SADD", "sh"}
	for i := 0; i < 300; i++ {
		big = append(big, fmt.Sprintf("m%03d", (i*37)%300))
	}
	script = append(script, big, []string{"OBJECT", "ENCODING", "sh"}, []string{"SORT", "sh", "ALPHA", "LIMIT", "0", "10"},
		[]string{"SORT", "sh", "ALPHA", "DESC", "LIMIT", "290", "20"}, []string{"SORT", "sh", "BY", "nosort", "STORE", "d3"},
		[]string{"LRANGE", "d3", "0", "4"}, []string{"SORT", "sh", "BY", "nosort", "DESC", "LIMIT", "5", "3", "STORE", "d3"},
		[]string{"LRANGE", "d3", "0", "-1"}, []string{"SORT", "sh"}, []string{"SORT", "sh", "BY", "w_*", "LIMIT", "0", "3"})
	harness.Differ(t, script)
}

func TestDifferentialSortStore(t *testing.T) {
	script := sortFixture()
	script = append(script, [][]string{
		{"SORT", "l", "STORE", "dst"}, {"LRANGE", "dst", "0", "-1"}, {"TYPE", "dst"}, {"OBJECT", "ENCODING", "dst"},
		{"SORT", "l", "DESC", "LIMIT", "1", "3", "STORE", "dst"}, {"LRANGE", "dst", "0", "-1"},
		// missing GET values are stored as empty strings
		{"SORT", "names", "ALPHA", "GET", "o_*", "GET", "#", "STORE", "dst"}, {"LRANGE", "dst", "0", "-1"}, {"LLEN", "dst"},
		// onto a key of another type, dropping its TTL
		{"SET", "sdst", "v", "EX", "100"}, {"SORT", "l", "LIMIT", "0", "2", "STORE", "sdst"}, {"TYPE", "sdst"}, {"TTL", "sdst"},
		{"SORT", "l", "STORE", "l"}, {"LRANGE", "l", "0", "-1"}, {"SORT", "l", "STORE", "a", "STORE", "b"}, {"EXISTS", "a", "b"},
		// an empty result deletes the destination
		{"SORT", "nokey", "STORE", "dst"}, {"EXISTS", "dst"}, {"SORT", "nokey", "STORE", "dst"},
		{"SORT", "names", "BY", "nosort", "LIMIT", "5", "1", "STORE", "sdst"}, {"EXISTS", "sdst"},
		{"SORT", "l", "LIMIT", "0", "0", "GET", "#", "STORE", "b"}, {"EXISTS", "b"},
		// errors store nothing
		{"SET", "keep", "v"}, {"SORT", "names", "STORE", "keep"}, {"GET", "keep"}, {"SORT", "str", "STORE", "keep"},
		{"SET", "str", "x"}, {"SORT", "str", "STORE", "keep"}, {"GET", "keep"},
		{"SORT", "l", "STORE", "keep", "LIMIT", "x", "1"}, {"GET", "keep"},
		{"SORT_RO", "l", "STORE", "keep"}, {"GET", "keep"},
		// GETKEYS: the key and the last STORE's destination
		{"COMMAND", "GETKEYS", "SORT", "k"}, {"COMMAND", "GETKEYS", "SORT", "k", "STORE", "d"},
		{"COMMAND", "GETKEYS", "SORT", "k", "STORE", "d", "LIMIT", "1", "2", "STORE", "e"},
		{"COMMAND", "GETKEYS", "SORT", "k", "STORE", "limit", "STORE", "d"}, {"COMMAND", "GETKEYS", "SORT", "k", "GET", "store", "d"},
		{"COMMAND", "GETKEYS", "SORT", "k", "BY", "x", "STORE"}, {"COMMAND", "GETKEYS", "SORT", "k", "LIMIT", "STORE", "d"},
		{"COMMAND", "GETKEYS", "SORT_RO", "k", "STORE", "d"}, {"COMMAND", "GETKEYS", "SORT", "k", "store", "D", "by", "w"},
	}...)
	// The stored list's encoding: Redis builds it as a quicklist and
	// converts it to a listpack when it fits one node, a stricter test than
	// RPUSH's; sizes around the 8 KB limit.
	for _, size := range []int{30, 63, 64, 80, 100, 4000, 8185, 8190} {
		for _, extra := range []int{0, 7, 30, 60, 90, 150} {
			cmd := []string{"RPUSH", "src"}
			for i := 0; i < max(1, 8192/(size+3)-1); i++ {
				cmd = append(cmd, fmt.Sprintf("%04d%s", i, strings.Repeat("x", size-4)))
			}
			cmd = append(cmd, "~"+strings.Repeat("y", extra))
			script = append(script, []string{"DEL", "src"}, cmd, []string{"OBJECT", "ENCODING", "src"},
				[]string{"SORT", "src", "ALPHA", "STORE", "enc"}, []string{"OBJECT", "ENCODING", "enc"}, []string{"LLEN", "enc"})
		}
	}
	ints := []string{"RPUSH", "ints"}
	for i := 0; i < 760; i++ {
		ints = append(ints, strconv.FormatInt(1e12+int64(i), 10))
	}
	script = append(script, ints, []string{"SORT", "ints", "STORE", "enc"}, []string{"OBJECT", "ENCODING", "enc"},
		[]string{"SORT", "ints", "BY", "nosort", "GET", "#", "GET", "nokey", "STORE", "enc"}, []string{"OBJECT", "ENCODING", "enc"})
	// many one-byte elements: 4089 fit in one node, 4090 do not
	for _, n := range []int{4089, 4090} {
		digits := []string{"RPUSH", fmt.Sprint("digits", n)}
		for i := 0; i < n; i++ {
			digits = append(digits, strconv.Itoa(i%10))
		}
		script = append(script, digits, []string{"SORT", digits[1], "STORE", "enc"}, []string{"OBJECT", "ENCODING", "enc"},
			[]string{"SORT", digits[1], "BY", "nosort", "LIMIT", "1", "-1", "STORE", "enc"}, []string{"OBJECT", "ENCODING", "enc"})
	}
	harness.Differ(t, script)
}

// TestDifferentialSortTies checks the order of equal ALPHA BY weights,
// which Redis leaves to glibc's qsort (a stable merge sort) or, with a
// LIMIT and BY, to its own partial quicksort.
func TestDifferentialSortTies(t *testing.T) {
	var script [][]string
	for _, n := range []int{5, 7, 8, 20, 41, 60, 200} {
		key := fmt.Sprintf("t%d", n)
		push := []string{"RPUSH", key}
		for i := 1; i <= n; i++ {
			e := fmt.Sprintf("%s_e%d", key, i)
			push = append(push, e)
			if i%5 != 0 { // every fifth has no weight
				script = append(script, []string{"SET", "w_" + e, strconv.Itoa(i % 3)})
			}
		}
		script = append(script, push)
		for _, opts := range [][]string{{}, {"DESC"}, {"LIMIT", "0", "5"}, {"LIMIT", "3", "10"}, {"DESC", "LIMIT", "2", "7"},
			{"LIMIT", strconv.Itoa(n - 4), "10"}, {"LIMIT", "0", "0"}, {"LIMIT", strconv.Itoa(n), "1"}, {"LIMIT", "1", "-1"},
			{"STORE", "tdst"}, {"LIMIT", "4", "9", "STORE", "tdst"}} {
			cmd := append([]string{"SORT", key, "BY", "w_*", "ALPHA"}, opts...)
			script = append(script, cmd)
			if len(opts) > 0 && opts[len(opts)-1] == "tdst" {
				script = append(script, []string{"LRANGE", "tdst", "0", "-1"})
			}
		}
		// numeric ties fall back to the elements' bytes
		script = append(script, []string{"SORT", key, "BY", "w_*", "LIMIT", "2", "9"}, []string{"SORT", key, "BY", "w_*", "DESC"})
	}
	// a listpack set in its insertion order
	sadd := []string{"SADD", "ts"}
	for i := 0; i < 50; i++ {
		sadd = append(sadd, fmt.Sprintf("t_%d", (i*7)%50))
		script = append(script, []string{"SET", fmt.Sprintf("w_t_%d", i), strconv.Itoa(i % 2)})
	}
	script = append(script, sadd, []string{"SORT", "ts", "BY", "w_*", "ALPHA"}, []string{"SORT", "ts", "BY", "w_*", "ALPHA", "LIMIT", "10", "10"},
		[]string{"SORT", "ts", "BY", "w_*", "ALPHA", "DESC", "LIMIT", "0", "30"})
	harness.Differ(t, script)
}

// TestDifferentialSortPatterns covers how patterns are read: only the first
// '*' is replaced, "->" after it names a hash field, the pattern ends at a
// NUL byte where Redis reads it as a C string, and ALPHA without STORE
// compares up to a NUL byte too (strcoll).
func TestDifferentialSortPatterns(t *testing.T) {
	script := [][]string{
		{"RPUSH", "p", "a", "b", "c"}, {"MSET", "xax*", "3", "xbx*", "1", "xcx*", "2", "k-a", "9", "k-b", "8"},
		{"HSET", "ha", "f", "2", "f->g", "1", "f\x00z", "7"}, {"HSET", "hb", "f", "1", "f->g", "3"},
		{"SET", "#", "hash-key"}, {"SET", "#a", "x"}, {"SET", "a", "plain"},
		{"SORT", "p", "BY", "x*x*"}, {"SORT", "p", "BY", "x*x*", "GET", "x*x*"}, {"SORT", "p", "BY", "h*->f"},
		{"SORT", "p", "BY", "h*->f->g"}, {"SORT", "p", "GET", "h*->f->g", "ALPHA"}, {"SORT", "p", "ALPHA", "GET", "k-*"},
		{"SORT", "p", "ALPHA", "GET", "k-*->"}, {"SORT", "p", "ALPHA", "GET", "#\x00x"}, {"SORT", "p", "ALPHA", "GET", "*\x00x"},
		{"SORT", "p", "ALPHA", "GET", "h*->f\x00z"}, {"SORT", "p", "ALPHA", "GET", "h*\x00->f"}, {"SORT", "p", "BY", "\x00*"},
		{"SORT", "p", "ALPHA", "GET", "#*"}, {"SORT", "p", "ALPHA", "GET", "h*->\x00f"}, {"SORT", "p", "ALPHA", "GET", ""},
		{"RPUSH", "nul", "a\x00c", "a\x00b", "a", "a\x00", "b", "A"},
		{"SORT", "nul", "ALPHA"}, {"SORT", "nul", "ALPHA", "DESC"}, {"SORT", "nul", "ALPHA", "STORE", "nd"}, {"LRANGE", "nd", "0", "-1"},
		{"MSET", "v_a\x00c", "q\x00b", "v_a\x00b", "q\x00a", "v_a", "q"},
		{"SORT", "nul", "BY", "v_*", "ALPHA"}, {"SORT", "nul", "BY", "v_*", "ALPHA", "STORE", "nd"}, {"LRANGE", "nd", "0", "-1"},
		{"SORT", "nul", "BY", "v_*", "ALPHA", "LIMIT", "1", "3"},
	}
	harness.Differ(t, script)
}

// TestDifferentialSortRandom runs random SORTs (every option, weights with
// ties, missing keys and non-numbers) over random lists, small sets and
// sorted sets; the stored results are read back. Sorted sets are sorted
// with ALPHA BY only where weights cannot tie, since Redis's order for them
// then depends on its hashtable.
func TestDifferentialSortRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 2718))
	elem := func() string {
		switch r.IntN(4) {
		case 0:
			return strconv.Itoa(r.IntN(40) - 10)
		case 1:
			return strconv.FormatFloat(float64(r.IntN(200))/8-5, 'g', -1, 64)
		case 2:
			return string(rune('a'+r.IntN(6))) + strconv.Itoa(r.IntN(5))
		}
		return strconv.Itoa(r.IntN(1000))
	}
	weight := func() string {
		switch r.IntN(6) {
		case 0:
			return "w" // not a number
		case 1, 2:
			return strconv.Itoa(r.IntN(4))
		}
		return strconv.FormatFloat(float64(r.IntN(100))/4, 'g', -1, 64)
	}
	var script [][]string
	for round := 0; round < 12; round++ {
		script = append(script, []string{"FLUSHDB"})
		keys := map[string]bool{}
		var elems []string
		add := func(k string, n int, cmd string) {
			c := []string{cmd, k}
			for i := 0; i < n; i++ {
				e := elem()
				if k == "I" {
					e = strconv.Itoa(r.IntN(100) - 20) // an intset
				}
				if cmd == "ZADD" {
					c = append(c, strconv.Itoa(r.IntN(5)))
				}
				c = append(c, e)
				elems = append(elems, e)
			}
			script = append(script, c)
			keys[k] = true
		}
		add("L", 1+r.IntN(60), "RPUSH")
		add("S", 1+r.IntN(40), "SADD")
		add("I", 1+r.IntN(20), "SADD")
		add("Z", 1+r.IntN(30), "ZADD")
		for _, e := range elems {
			if r.IntN(4) > 0 {
				script = append(script, []string{"SET", "w_" + e, weight()})
			}
			if r.IntN(3) > 0 {
				script = append(script, []string{"HSET", "h_" + e, "f", weight(), "g", "G" + e})
			}
			if r.IntN(2) > 0 {
				script = append(script, []string{"SET", "o_" + e, "O" + e})
			}
		}
		distinct := map[string]bool{} // Z's weights under u_*, all different
		for _, e := range elems {
			if !distinct[e] {
				distinct[e] = true
				script = append(script, []string{"SET", "u_" + e, fmt.Sprintf("%05d", len(distinct))})
			}
		}
		for i := 0; i < 40; i++ {
			key := []string{"L", "S", "I", "Z", "nokey"}[r.IntN(5)]
			cmd := []string{"SORT", key}
			if r.IntN(4) == 0 {
				cmd[0] = "SORT_RO"
			}
			by := ""
			switch r.IntN(5) {
			case 0:
				by = "w_*"
			case 1:
				by = "h_*->f"
			case 2:
				by = "nosort"
			}
			alpha := r.IntN(2) == 0
			if key == "Z" && alpha && by != "" && by != "nosort" {
				by = "u_*"
			}
			var opts [][]string
			if by != "" {
				opts = append(opts, []string{"BY", by})
			}
			if alpha {
				opts = append(opts, []string{"ALPHA"})
			}
			if r.IntN(2) == 0 {
				opts = append(opts, []string{[]string{"ASC", "DESC"}[r.IntN(2)]})
			}
			if r.IntN(2) == 0 {
				opts = append(opts, []string{"LIMIT", strconv.Itoa(r.IntN(30) - 5), strconv.Itoa(r.IntN(30) - 3)})
			}
			for g := r.IntN(4); g > 0; g-- {
				opts = append(opts, []string{"GET", []string{"#", "o_*", "h_*->g", "w_*", "nope_*"}[r.IntN(5)]})
			}
			store := cmd[0] == "SORT" && r.IntN(3) == 0
			if store {
				opts = append(opts, []string{"STORE", "dst"})
			}
			r.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
			for _, o := range opts {
				cmd = append(cmd, o...)
			}
			script = append(script, cmd)
			if store {
				script = append(script, []string{"LRANGE", "dst", "0", "-1"}, []string{"OBJECT", "ENCODING", "dst"})
			}
		}
		script = append(script, []string{"OBJECT", "ENCODING", "Z"}, []string{"OBJECT", "ENCODING", "S"})
	}
	harness.Differ(t, script)
}

// TestSortNotificationsMatchRedis compares the keyspace events of SORT:
// sortstore (and new) for a stored list, del for an empty result, a
// keymiss for each pattern key looked up and missing, and hexpired for a
// hash field that expired before BY or GET read it.
func TestSortNotificationsMatchRedis(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	script := [][]string{
		{"RPUSH", "l", "b", "a", "c"}, {"SET", "w_a", "2"}, {"HSET", "h_b", "f", "1"},
		{"SORT", "l", "ALPHA", "STORE", "d"}, {"SORT", "l", "ALPHA", "STORE", "d"}, {"SORT", "nokey", "STORE", "d"},
		{"SORT", "nokey", "STORE", "d"}, {"SORT", "l", "BY", "w_*"}, {"SORT", "l", "BY", "h_*->f", "GET", "#", "GET", "w_*"},
		{"SORT", "l", "BY", "nosort", "GET", "h_*->f", "STORE", "d"}, {"SORT_RO", "l", "ALPHA", "GET", "o_*"},
		{"SET", "s", "v"}, {"SORT", "l", "LIMIT", "0", "0", "STORE", "s"}, {"SORT", "s", "STORE", "d"},
		{"SADD", "set", "x", "y"}, {"SORT", "set", "BY", "nosort", "STORE", "d"}, {"SORT", "l", "STORE", "d", "LIMIT", "x", "1"},
		// a hash field whose time ran out, read by BY and by GET
		// (a field is left, so that a lazy and an active expiry publish alike)
		{"HSET", "h_a", "f", "5", "g", "1", "k", "0"}, {"HPEXPIRE", "h_a", "30", "FIELDS", "1", "f"}, {"SLEEP"},
		{"SORT", "l", "ALPHA", "BY", "h_*->f", "GET", "h_*->g"}, {"HPEXPIRE", "h_a", "30", "FIELDS", "1", "g"}, {"SLEEP"},
		{"SORT", "l", "ALPHA", "GET", "h_*->g", "STORE", "d"}, {"LRANGE", "d", "0", "-1"},
	}
	hot, red := harness.NewEventRecorder(t, harness.Start(t), "KEAmn"), harness.NewEventRecorder(t, harness.StartRedis(t), "KEAmn")
	for i, cmd := range script {
		if cmd[0] == "SLEEP" {
			time.Sleep(150 * time.Millisecond)
			continue
		}
		gotReply, got := hot.Run(cmd...)
		wantReply, want := red.Run(cmd...)
		if os.Getenv("NOTIFY_TRACE") != "" {
			t.Logf("%d %q:\n  hotkv %q\n  redis %q", i, cmd, got, want)
		}
		if !reflect.DeepEqual(gotReply, wantReply) || !reflect.DeepEqual(got, want) {
			t.Errorf("%d %q:\nhotkv: %#v %q\nredis: %#v %q", i, cmd, gotReply, got, wantReply, want)
		}
	}
}

// sortWatchAndWake runs, on one server, what SORT ... STORE signals: a
// transaction watching the destination fails, one watching only keys SORT
// read succeeds, and a client blocked on the destination is served.
func sortWatchAndWake(t *testing.T, s *harness.Server) []any {
	a, b, c := s.Raw(t), s.Raw(t), s.Raw(t)
	a.Do("FLUSHALL")
	a.Do("RPUSH", "l", "2", "1")
	a.Do("SET", "w_1", "5")
	var out []any
	a.Do("WATCH", "d")
	b.Do("SORT", "l", "STORE", "d")
	a.Do("MULTI")
	a.Do("PING")
	out = append(out, a.Do("EXEC"))
	a.Do("WATCH", "l", "w_1", "w_2")
	b.Do("SORT", "l", "BY", "w_*", "GET", "w_*", "STORE", "d2")
	b.Do("SORT_RO", "l", "BY", "w_*")
	a.Do("MULTI")
	a.Do("PING")
	out = append(out, a.Do("EXEC"))
	a.Do("WATCH", "d")
	b.Do("SORT", "nokey", "STORE", "nothing") // deletes nothing
	b.Do("SORT", "nokey", "STORE", "d")       // deletes d
	a.Do("MULTI")
	a.Do("PING")
	out = append(out, a.Do("EXEC"))
	c.Send(harness.Encode("BLPOP", "q", "5"))
	harness.WaitBlocked(t, a, 1)
	out = append(out, b.Do("SORT", "l", "DESC", "STORE", "q"), c.Read(), a.Do("LRANGE", "q", "0", "-1"))
	return out
}

func TestSortWatchAndBlockedClients(t *testing.T) {
	got := sortWatchAndWake(t, harness.Start(t))
	want := []any{nil, []any{harness.Status("PONG")}, nil, int64(2), []any{"q", "2"}, []any{"1"}}
	if harness.RedisServerPath() != "" {
		want = sortWatchAndWake(t, harness.StartRedis(t))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

// TestSortSeesAtomicWrites checks that BY and GET, which read keys SORT
// does not declare, see the database as of one instant: writers replace
// every weight and object key at once (MSET over many shards), so one
// SORT must read them all from the same MSET.
func TestSortSeesAtomicWrites(t *testing.T) {
	s := harness.Start(t)
	setup := s.Raw(t)
	const n = 50
	push := []string{"RPUSH", "l"}
	for i := 0; i < n; i++ {
		push = append(push, fmt.Sprintf("e%d", i))
	}
	setup.Do(push...)
	mset := func(v int) []string {
		cmd := []string{"MSET"}
		for i := 0; i < n; i++ {
			cmd = append(cmd, fmt.Sprintf("w_e%d", i), strconv.Itoa(v), fmt.Sprintf("o_e%d", i), strconv.Itoa(v))
		}
		return cmd
	}
	setup.Do(mset(0)...)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		c := s.Raw(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := 1; ; v++ {
				select {
				case <-stop:
					return
				default:
				}
				c.Do(mset(v)...)
			}
		}()
	}
	r := s.Raw(t)
	var bad any
	deadline := time.Now().Add(time.Second)
	for i := 0; bad == nil && time.Now().Before(deadline); i++ {
		var reply any
		if i%2 == 0 {
			reply = r.Do("SORT", "l", "BY", "w_*", "GET", "o_*", "GET", "w_*")
		} else {
			r.Do("SORT", "l", "BY", "nosort", "GET", "o_*", "STORE", "dst")
			reply = r.Do("LRANGE", "dst", "0", "-1")
		}
		vals, ok := reply.([]any)
		if !ok || len(vals) != 2*n && len(vals) != n {
			bad = reply
		}
		for _, v := range vals {
			if v != vals[0] {
				bad = reply
			}
		}
	}
	close(stop)
	wg.Wait()
	if bad != nil {
		t.Fatalf("SORT did not see one MSET: %v", bad)
	}
	s.NoPanics(t)
}

// TestSortLogReplay stores SORT results with the append-only log on and
// checks that replaying the log rebuilds the same lists (SORT ... STORE is
// logged as it ran, so its result must not depend on the process).
func TestSortLogReplay(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--appendonly", "yes"}
	s := harness.Start(t, args...)
	r := s.Raw(t)
	big := []string{"SADD", "hs"}
	for i := 0; i < 300; i++ {
		big = append(big, fmt.Sprintf("m%d", i))
		r.Do("SET", fmt.Sprintf("w_m%d", i), strconv.Itoa(i%3))
	}
	for _, c := range [][]string{
		big, {"RPUSH", "l", "3", "1", "2"}, {"ZADD", "z", "1", "a", "2", "b"},
		{"SORT", "hs", "BY", "w_*", "ALPHA", "STORE", "d1"}, {"SORT", "hs", "BY", "w_*", "ALPHA", "LIMIT", "5", "20", "STORE", "d2"},
		{"SORT", "hs", "BY", "nosort", "STORE", "d3"}, {"SORT", "l", "DESC", "GET", "#", "GET", "w_*", "STORE", "d4"},
		{"SORT", "z", "ALPHA", "STORE", "d8"}, {"SET", "d5", "x"}, {"SORT", "nokey", "STORE", "d5"}, {"SORT", "l", "STORE", "l"},
		{"EVAL", "return redis.call('SORT', 'hs', 'BY', 'nosort', 'STORE', 'd6')", "0"},
		{"MULTI"}, {"SORT", "l", "LIMIT", "0", "1", "STORE", "d7"}, {"SORT_RO", "l"}, {"EXEC"},
	} {
		r.Do(c...)
	}
	state := func(r *harness.Conn) string {
		var b strings.Builder
		for _, k := range []string{"d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "l"} {
			fmt.Fprintf(&b, "%s: %v %v\n", k, r.Do("LRANGE", k, "0", "-1"), r.Do("OBJECT", "ENCODING", k))
		}
		return b.String()
	}
	before := state(r)
	s.Shutdown(context.Background())
	if after := state(harness.Start(t, args...).Raw(t)); after != before {
		t.Fatalf("after replay:\n%s\nwant:\n%s", after, before)
	}
}

// TestDifferentialSortLimitTies: BY with LIMIT sorts with Redis's partial
// quicksort, so elements of equal weight come out in the order its steps
// leave them; many ties make that order show.
func TestDifferentialSortLimitTies(t *testing.T) {
	script := [][]string{}
	push := []string{"RPUSH", "l"}
	for i := range 90 {
		push = append(push, fmt.Sprintf("e%d", i))
		script = append(script, []string{"SET", fmt.Sprintf("w_e%d", i), fmt.Sprint(i * 7 % 5)})
	}
	script = append(script, push)
	for _, lim := range [][2]string{{"0", "10"}, {"5", "20"}, {"40", "7"}, {"80", "20"}} {
		script = append(script, []string{"SORT", "l", "BY", "w_*", "LIMIT", lim[0], lim[1]},
			[]string{"SORT", "l", "BY", "w_*", "LIMIT", lim[0], lim[1], "DESC"})
	}
	harness.Differ(t, script)
}
