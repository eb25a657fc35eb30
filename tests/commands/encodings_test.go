package commands

import (
	bin "encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	"github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/zset"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Differential tests of the encoding thresholds (hash-/set-/zset-max-*,
// list-max-listpack-size, stream-node-max-*): the same CONFIG SET and
// commands on HotKV and Redis 8.0.2, and after each write the same
// encoding and everything it decides: the order of SMEMBERS and of a
// listpack's SCAN (one call, cursor 0), a list's quicklist nodes (read
// from DUMP), a stream's radix tree counts.
//
// The thresholds are process-wide, as in Redis: every HotKV server of the
// test process shares them (a new server sets them from its
// configuration). These tests do not run in parallel and put Redis's
// defaults back when they end.

// encDiff drives one HotKV and one Redis.
type encDiff struct {
	t    *testing.T
	a, b *harness.Conn // HotKV, Redis
}

func newEncDiff(t *testing.T) *encDiff {
	t.Helper()
	t.Cleanup(func() {
		hash.SetThresholds(hash.DefaultListpackEntries, hash.DefaultListpackValue)
		set.SetThresholds(set.DefaultIntsetEntries, set.DefaultListpackEntries, set.DefaultListpackValue)
		zset.SetThresholds(zset.DefaultListpackEntries, zset.DefaultListpackValue)
		list.SetFill(list.DefaultFill)
		stream.SetNodeLimits(stream.DefaultNodeEntries, stream.DefaultNodeBytes)
	})
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	return &encDiff{t: t, a: hot.Raw(t), b: redis.Raw(t)}
}

// do sends cmd to both servers and requires the same reply.
func (d *encDiff) do(cmd ...string) any {
	d.t.Helper()
	got, want := d.a.Do(cmd...), d.b.Do(cmd...)
	if !reflect.DeepEqual(got, want) {
		d.t.Fatalf("%s:\nhotkv: %s\nredis: %s", trunc(cmd), trunc(got), trunc(want))
	}
	return got
}

// trunc formats v for a failure message, cut to 400 bytes.
func trunc(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}

// same sends cmd to both servers and requires replies equal once norm
// has been applied to each.
func (d *encDiff) same(norm func(any) any, cmd ...string) {
	d.t.Helper()
	got, want := norm(d.a.Do(cmd...)), norm(d.b.Do(cmd...))
	if !reflect.DeepEqual(got, want) {
		d.t.Fatalf("%s:\nhotkv: %s\nredis: %s", trunc(cmd), trunc(got), trunc(want))
	}
}

// sortedFlat sorts a flat array reply (set members).
func sortedFlat(v any) any {
	a, _ := v.([]any)
	return harness.SortedStrings(a)
}

// sortedPairs sorts a flat array of pairs (HGETALL) by pair.
func sortedPairs(v any) any {
	a, _ := v.([]any)
	var out []string
	for i := 0; i+1 < len(a); i += 2 {
		out = append(out, fmt.Sprint(a[i])+"\x00"+fmt.Sprint(a[i+1]))
	}
	slices.Sort(out)
	return out
}

// scanPairs is an HSCAN reply with its pairs sorted.
func scanPairs(v any) any {
	a, _ := v.([]any)
	if len(a) != 2 {
		return v
	}
	return []any{a[0], sortedPairs(a[1])}
}

// run sends each step to both servers and checks the keys it wrote.
func (d *encDiff) run(steps [][]string) {
	d.t.Helper()
	for _, s := range steps {
		d.do(s...)
		for _, k := range writtenKeys(s) {
			d.check(k)
		}
	}
}

// writtenKeys are the keys a step may have written.
func writtenKeys(cmd []string) []string {
	switch strings.ToUpper(cmd[0]) {
	case "CONFIG", "FLUSHALL", "DEL":
		return nil
	case "SMOVE", "LMOVE", "RPOPLPUSH", "COPY":
		return cmd[1:3]
	case "SORT":
		return cmd[len(cmd)-1:]
	}
	return cmd[1:2]
}

// check compares key's type and encoding, and what the encoding decides.
func (d *encDiff) check(key string) {
	d.t.Helper()
	typ := d.do("TYPE", key)
	if typ == harness.Status("none") {
		return
	}
	enc := d.do("OBJECT", "ENCODING", key)
	small := enc == "listpack" || enc == "intset" || enc == "listpackex"
	switch typ {
	case harness.Status("set"):
		if small { // an intset lists its members ascending, a listpack in insertion order
			d.do("SMEMBERS", key)
			d.do("SSCAN", key, "0", "COUNT", "1")
		} else {
			d.same(sortedFlat, "SMEMBERS", key)
		}
	case harness.Status("hash"):
		d.same(sortedPairs, "HGETALL", key)
		if small { // a listpack answers a whole scan at once
			d.same(scanPairs, "HSCAN", key, "0", "COUNT", "1")
		}
	case harness.Status("zset"):
		d.do("ZRANGE", key, "0", "-1", "WITHSCORES")
		if small {
			d.do("ZSCAN", key, "0", "COUNT", "1")
		}
	case harness.Status("list"):
		d.do("LRANGE", key, "0", "-1")
		d.sameNodes(key)
	case harness.Status("stream"):
		d.do("XINFO", "STREAM", key)
	}
}

// sameNodes requires a list's quicklist nodes, read from both servers'
// DUMP, to be the same.
func (d *encDiff) sameNodes(key string) {
	d.t.Helper()
	ph, _ := d.a.Do("DUMP", key).(string)
	pr, _ := d.b.Do("DUMP", key).(string)
	got, want := listNodes(d.t, ph), listNodes(d.t, pr)
	if !slices.Equal(got, want) {
		d.t.Fatalf("%s: quicklist nodes differ\nhotkv: %v\nredis: %v", key, nodeShape(got), nodeShape(want))
	}
}

// listNodes decodes a list's DUMP payload (RDB_TYPE_LIST_QUICKLIST_2) into
// its nodes, each "container:bytes" (a listpack, or a plain node's element).
func listNodes(t *testing.T, payload string) []string {
	t.Helper()
	b := []byte(payload)
	if len(b) < 2 || b[0] != 18 {
		t.Fatalf("not a quicklist payload: %.40q", payload)
	}
	n, b := rdbLength(b[1:])
	var out []string
	for range n {
		var c uint64
		c, b = rdbLength(b)
		s, rest, ok := rdb.ReadString(b)
		if !ok {
			t.Fatalf("bad node in %.40q", payload)
		}
		out = append(out, strconv.FormatUint(c, 10)+":"+string(s))
		b = rest
	}
	return out
}

// rdbLength reads an RDB length.
func rdbLength(b []byte) (uint64, []byte) {
	switch b[0] >> 6 {
	case 0:
		return uint64(b[0] & 0x3f), b[1:]
	case 1:
		return uint64(b[0]&0x3f)<<8 | uint64(b[1]), b[2:]
	}
	if b[0] == 0x80 {
		return uint64(bin.BigEndian.Uint32(b[1:])), b[5:]
	}
	return bin.BigEndian.Uint64(b[1:]), b[9:]
}

// nodeShape summarizes nodes as "elements@bytes" (listpack) or "plain@bytes".
func nodeShape(nodes []string) []string {
	var out []string
	for _, n := range nodes {
		c, data, _ := strings.Cut(n, ":")
		if c == "1" {
			out = append(out, fmt.Sprintf("plain@%d", len(data)))
			continue
		}
		out = append(out, fmt.Sprintf("%d@%d", bin.LittleEndian.Uint16([]byte(data[4:6])), len(data)))
	}
	return out
}

func intRange(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

func ecmd(name, key string, args ...string) []string { return append([]string{name, key}, args...) }

// TestDifferentialSetEncodings: intset, listpack and hashtable at
// set-max-intset-entries 10, set-max-listpack-entries 5 and
// set-max-listpack-value 3, at and one past each.
func TestDifferentialSetEncodings(t *testing.T) {
	d := newEncDiff(t)
	d.do("CONFIG", "SET", "set-max-intset-entries", "10", "set-max-listpack-entries", "5", "set-max-listpack-value", "3")
	d.run([][]string{
		ecmd("SADD", "i", intRange(1, 3)...), ecmd("SADD", "i", intRange(4, 10)...), ecmd("SADD", "i", "11"),
		ecmd("SADD", "i2", intRange(1, 11)...), // sized by its first SADD
		ecmd("SADD", "i3", intRange(-2, 7)...), ecmd("SADD", "i3", "7", "-2", "8"),
		// A string converts an intset to a listpack if the longest integer
		// (sign included) fits set-max-listpack-value too.
		ecmd("SADD", "a", "100", "2"), ecmd("SADD", "a", "x"),
		ecmd("SADD", "b", "1000", "2"), ecmd("SADD", "b", "x"),
		ecmd("SADD", "c", "-10", "2"), ecmd("SADD", "c", "abc"),
		ecmd("SADD", "e", "-100", "2"), ecmd("SADD", "e", "abc"),
		ecmd("SADD", "f", intRange(1, 4)...), ecmd("SADD", "f", "abc"),
		ecmd("SADD", "g", intRange(1, 5)...), ecmd("SADD", "g", "abc"),
		// Strings: value length and count at and past the limits.
		ecmd("SADD", "l", "abc"), ecmd("SADD", "l", "de", "01", "+1"), ecmd("SADD", "l", "fghi"),
		ecmd("SADD", "m", "a", "b", "c", "d", "e"), ecmd("SADD", "m", "a"), ecmd("SADD", "m", "f"),
		ecmd("SADD", "n", "a"), ecmd("SADD", "n", "a", "a", "a", "a", "a"), ecmd("SADD", "n", "a", "a", "a", "a", "a", "a"),
		ecmd("SADD", "o", "abcd"), ecmd("SADD", "p", "a", "b", "c", "d", "e", "f"),
		{"SMOVE", "l", "q", "abc"}, {"SMOVE", "i", "q2", "5"}, {"SMOVE", "m", "q", "b"},
		ecmd("SINTERSTORE", "r1", "i", "i2"), ecmd("SINTERSTORE", "r2", "i3", "c"), ecmd("SINTERSTORE", "r3", "c", "a"),
		ecmd("SUNIONSTORE", "r4", "a", "c"), ecmd("SUNIONSTORE", "r5", "i", "i3"), ecmd("SUNIONSTORE", "r6", "f", "q"),
		ecmd("SDIFFSTORE", "r7", "i2", "i3"), ecmd("SDIFFSTORE", "r8", "f", "a"),
		ecmd("SREM", "i", intRange(1, 9)...), ecmd("SREM", "m", "c", "d"),
		// A threshold lowered later converts nothing until a write crosses it.
		{"CONFIG", "SET", "set-max-listpack-entries", "2", "set-max-intset-entries", "3"},
		ecmd("SADD", "f", "abc"), ecmd("SADD", "i3", "1"), ecmd("SREM", "f", "1"), ecmd("SADD", "m", "a"),
		ecmd("SADD", "a", "y"), ecmd("SADD", "i3", "100"),
		// Raised again: hashtables stay, new sets use the new limits.
		{"CONFIG", "SET", "set-max-listpack-entries", "300", "set-max-intset-entries", "600", "set-max-listpack-value", "1000"},
		ecmd("SADD", "a", "z"), ecmd("SADD", "s", intRange(1, 600)...), ecmd("SADD", "s", "x"),
		ecmd("SADD", "t", strings.Repeat("x", 127), strings.Repeat("y", 128), strings.Repeat("z", 1000), "w"),
		ecmd("SREM", "t", strings.Repeat("y", 128)), ecmd("SADD", "t", strings.Repeat("v", 1001)),
		ecmd("SADD", "u", intRange(1, 300)...), ecmd("SADD", "u", "x"), ecmd("SADD", "u2", append(intRange(1, 299), "x")...),
		ecmd("SADD", "u2", "y"),
		// The aliases are the same parameters.
		{"CONFIG", "SET", "set-max-listpack-entries", "0", "set-max-intset-entries", "0", "set-max-listpack-value", "0"},
		ecmd("SADD", "v", "1"), ecmd("SADD", "w", "x"),
	})
	d.same(sortedPairs, "CONFIG", "GET", "set-max-*")
	// RESTORE checks a listpack's count only, an intset's count, and gives
	// a set listed member by member (a hashtable's payload) an intset or
	// a listpack when it fits.
	for _, k := range []string{"t", "m", "u", "s", "c"} {
		d.do("CONFIG", "SET", "set-max-listpack-entries", "300", "set-max-intset-entries", "600", "set-max-listpack-value", "1000")
		pr, ph := d.b.Do("DUMP", k), d.a.Do("DUMP", k)
		for _, lim := range [][]string{{"3", "4", "10"}, {"600", "600", "1"}, {"1", "1000", "1000"}} {
			d.do("CONFIG", "SET", "set-max-listpack-entries", lim[0], "set-max-intset-entries", lim[1], "set-max-listpack-value", lim[2])
			for i, p := range []any{pr, ph} {
				dst := fmt.Sprintf("restored:%s:%d", k, i)
				d.do("DEL", dst)
				d.do("RESTORE", dst, "0", p.(string))
				d.check(dst)
			}
		}
	}
}

// fieldPairs makes n field-value pairs f<i> v<i>.
func fieldPairs(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	return out
}

// TestDifferentialHashEncodings: listpack, listpackex and hashtable at
// hash-max-listpack-entries 4 and hash-max-listpack-value 5, at and one past
// each, by every command that writes fields.
func TestDifferentialHashEncodings(t *testing.T) {
	d := newEncDiff(t)
	d.do("CONFIG", "SET", "hash-max-listpack-entries", "4", "hash-max-listpack-value", "5")
	d.run([][]string{
		ecmd("HSET", "h", fieldPairs(1, 3)...), ecmd("HSET", "h", fieldPairs(4, 4)...), ecmd("HSET", "h", fieldPairs(5, 5)...),
		ecmd("HSET", "h2", fieldPairs(1, 5)...),
		// More pairs than the limit convert even when they repeat a field.
		ecmd("HSET", "h3", "a", "1"), ecmd("HSET", "h3", "a", "1", "a", "2", "a", "3", "a", "4"),
		ecmd("HSET", "h3b", "a", "1", "a", "2", "a", "3", "a", "4", "a", "5"),
		ecmd("HMSET", "h4", "a", "1", "a", "2", "a", "3", "a", "4", "a", "5"),
		// Lengths of fields and values at and past the limit.
		ecmd("HSET", "v", "abcde", "12345"), ecmd("HSET", "v", "x", "123456"),
		ecmd("HSET", "v2", "abcdef", "1"), ecmd("HSETNX", "v3", "a", "abcde"), ecmd("HSETNX", "v3", "b", "abcdef"),
		ecmd("HSET", "n", "a", "9999"), ecmd("HINCRBY", "n", "a", "1"), ecmd("HINCRBY", "n", "a", "90000"),
		ecmd("HINCRBY", "n2", "a", "99999"), ecmd("HINCRBY", "n2", "a", "1"),
		ecmd("HINCRBYFLOAT", "n3", "a", "1.5"), ecmd("HINCRBYFLOAT", "n3", "a", "1.05"), ecmd("HINCRBYFLOAT", "n3", "a", "0.001"),
		// HSETEX and field expiry (listpackex).
		ecmd("HSETEX", "x", "FIELDS", "2", "a", "1", "b", "2"), ecmd("HSETEX", "x", "PX", "100000", "FIELDS", "1", "c", "3"),
		ecmd("HSETEX", "x", "FIELDS", "2", "d", "4", "e", "5"),
		ecmd("HSETEX", "x2", "FIELDS", "5", "a", "1", "a", "2", "a", "3", "a", "4", "a", "5"),
		ecmd("HSET", "x3", "a", "1"), ecmd("HSETEX", "x3", "FXX", "FIELDS", "5", "b", "1", "b", "2", "b", "3", "b", "4", "b", "5"),
		ecmd("HSETEX", "x3", "FNX", "FIELDS", "1", "a", "123456"), ecmd("HSETEX", "x3", "KEEPTTL", "FIELDS", "1", "a", "123456"),
		ecmd("HSET", "x4", fieldPairs(1, 4)...), ecmd("HPEXPIRE", "x4", "100000", "FIELDS", "2", "f1", "f9"),
		ecmd("HSET", "x4", "f1", "new"), ecmd("HSET", "x4", "f9", "v"),
		ecmd("HSET", "x5", "a", "1"), ecmd("HGETEX", "x5", "PX", "100000", "FIELDS", "1", "a"), ecmd("HSET", "x5", "b", "abcdef"),
		ecmd("HSET", "d", fieldPairs(1, 4)...), ecmd("HDEL", "d", "f1", "f2"),
		// A lowered limit converts a listpack at its next write, an update
		// included; HDEL converts nothing.
		{"CONFIG", "SET", "hash-max-listpack-entries", "2", "hash-max-listpack-value", "1"},
		ecmd("HDEL", "h2", "f1"), ecmd("HSET", "d", "f3", "x"), ecmd("HSET", "v3", "a", "y"),
		ecmd("HSET", "n", "a", "1"), ecmd("HINCRBY", "n2", "b", "1"),
		// Raised again: hashtables stay.
		{"CONFIG", "SET", "hash-max-ziplist-entries", "600", "hash-max-ziplist-value", "1000"},
		ecmd("HSET", "h", "f1", "x"), ecmd("HSET", "big", fieldPairs(1, 500)...), ecmd("HSET", "big", "f501", strings.Repeat("x", 1000)),
		ecmd("HSET", "big", "f502", strings.Repeat("x", 1001)),
		ecmd("HSET", "long", "a", strings.Repeat("y", 300), strings.Repeat("z", 999), "b"),
	})
	d.same(sortedPairs, "CONFIG", "GET", "hash-max-*")
	// RESTORE checks a listpack's count only; a hash listed field by field
	// (a hashtable's payload) becomes a listpack again when it fits.
	d.do(ecmd("HSET", "ht", fieldPairs(1, 10)...)...)
	for _, k := range []string{"long", "big", "x4", "ht", "h3"} {
		d.do("CONFIG", "SET", "hash-max-listpack-entries", "600", "hash-max-listpack-value", "1000")
		pr, ph := d.b.Do("DUMP", k), d.a.Do("DUMP", k)
		for _, lim := range [][]string{{"2", "1"}, {"600", "1"}, {"10", "1000"}} {
			d.do("CONFIG", "SET", "hash-max-listpack-entries", lim[0], "hash-max-listpack-value", lim[1])
			for i, p := range []any{pr, ph} {
				dst := fmt.Sprintf("restored:%s:%d", k, i)
				d.do("DEL", dst)
				d.do("RESTORE", dst, "0", p.(string))
				d.check(dst)
			}
		}
	}
}

// scoredMembers makes n score-member pairs i m<i>.
func scoredMembers(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	return out
}

// TestDifferentialZSetEncodings: listpack and skiplist at
// zset-max-listpack-entries 4 and zset-max-listpack-value 5, at and one
// past each.
func TestDifferentialZSetEncodings(t *testing.T) {
	d := newEncDiff(t)
	d.do("CONFIG", "SET", "zset-max-listpack-entries", "4", "zset-max-listpack-value", "5")
	d.run([][]string{
		ecmd("ZADD", "z", scoredMembers(1, 3)...), ecmd("ZADD", "z", scoredMembers(4, 4)...), ecmd("ZADD", "z", scoredMembers(5, 5)...),
		ecmd("ZADD", "z2", scoredMembers(1, 5)...),
		// Pairs past the limit convert an existing set even when nothing is added.
		ecmd("ZADD", "z3", "1", "a"), ecmd("ZADD", "z3", "NX", "1", "a", "2", "a", "3", "a", "4", "a"),
		ecmd("ZADD", "z3", "NX", "1", "a", "2", "a", "3", "a", "4", "a", "5", "a"),
		// Member lengths at and past the limit; a new set is sized by its first member.
		ecmd("ZADD", "l", "1", "abcde"), ecmd("ZADD", "l", "2", "abcdef"),
		ecmd("ZADD", "l2", "1", "a", "2", "abcdef", "0", "b", "-0", "c"), ecmd("ZADD", "l3", "1", "abcdef", "2", "a"),
		ecmd("ZINCRBY", "l4", "1", "abcde"), ecmd("ZINCRBY", "l4", "1", "abcdef"),
		ecmd("ZADD", "l5", "XX", "1", "abcdef"), ecmd("ZADD", "l5", "1", "a"), ecmd("ZADD", "l5", "XX", "1", "abcdef"),
		// Stored results are built with the limits.
		ecmd("ZUNIONSTORE", "u", "2", "z2", "l"), ecmd("ZUNIONSTORE", "u2", "1", "l2"), ecmd("ZINTERSTORE", "u3", "2", "z", "z2"),
		ecmd("ZDIFFSTORE", "u4", "2", "z2", "z"), ecmd("ZRANGESTORE", "u5", "z2", "0", "3"), ecmd("ZRANGESTORE", "u6", "z2", "0", "4"),
		ecmd("ZRANGESTORE", "u7", "l2", "0", "-1"), ecmd("GEOADD", "g", "1", "1", "a", "2", "2", "b"),
		ecmd("GEOADD", "g", "3", "3", "c", "4", "4", "d", "5", "5", "e"),
		// A lowered limit converts a listpack at its next insertion, not
		// at an update.
		{"CONFIG", "SET", "zset-max-listpack-entries", "2", "zset-max-listpack-value", "1"},
		ecmd("ZADD", "l", "5", "abcde"), ecmd("ZADD", "u5", "9", "m1"), ecmd("ZINCRBY", "u5", "1", "m2"), ecmd("ZADD", "u5", "1", "n"),
		ecmd("ZREM", "z", "m1"),
		{"CONFIG", "SET", "zset-max-ziplist-entries", "300", "zset-max-ziplist-value", "1000"},
		ecmd("ZADD", "z", "0", "x"), ecmd("ZADD", "big", scoredMembers(1, 300)...), ecmd("ZADD", "big", "0", strings.Repeat("x", 1000)),
		ecmd("ZADD", "big", "0", strings.Repeat("y", 1001)),
		ecmd("ZADD", "long", "1", strings.Repeat("x", 999), "2", "b"),
	})
	d.same(sortedPairs, "CONFIG", "GET", "zset-max-*")
	// RESTORE checks a listpack's count only; a skiplist payload becomes a
	// listpack again when it fits.
	for _, k := range []string{"long", "big", "z", "u6"} {
		d.do("CONFIG", "SET", "zset-max-listpack-entries", "300", "zset-max-listpack-value", "1000")
		pr, ph := d.b.Do("DUMP", k), d.a.Do("DUMP", k)
		for _, lim := range [][]string{{"1", "1"}, {"300", "1"}, {"301", "1000"}} {
			d.do("CONFIG", "SET", "zset-max-listpack-entries", lim[0], "zset-max-listpack-value", lim[1])
			for i, p := range []any{pr, ph} {
				dst := fmt.Sprintf("restored:%s:%d", k, i)
				d.do("DEL", dst)
				d.do("RESTORE", dst, "0", p.(string))
				d.check(dst)
			}
		}
	}
}

// elem is an element of n bytes, distinct by i.
func elem(i, n int) string {
	s := strconv.Itoa(i) + ":"
	return s + strings.Repeat("x", max(n-len(s), 0))
}

// TestDifferentialListSizeClasses: for every size class of
// list-max-listpack-size (-1 to -5, and below) and entry counts, a list
// grows past the limit one push at a time and shrinks back, and its
// encoding and quicklist nodes follow Redis's at every step.
func TestDifferentialListSizeClasses(t *testing.T) {
	d := newEncDiff(t)
	for _, c := range []struct {
		fill       string
		elem, push int
	}{
		{"-1", 100, 130}, {"-2", 200, 130}, {"-3", 400, 130}, {"-4", 800, 130}, {"-5", 1600, 130}, {"-6", 1600, 130},
		{"-1", 8, 1300}, {"-2", 8, 2500}, // 10-byte entries: a node fills within SIZE_ESTIMATE_OVERHEAD of its limit
		{"1", 5, 6}, {"0", 5, 4}, {"5", 5, 17}, {"4", 3000, 9}, {"100", 1000, 30},
	} {
		d.do("CONFIG", "SET", "list-max-listpack-size", c.fill)
		d.do("DEL", "r", "l")
		every := max(c.push/50, 1)
		for i := range c.push {
			d.do("RPUSH", "r", elem(i, c.elem))
			d.do("LPUSH", "l", elem(i, c.elem))
			if i%every == 0 || i > c.push-8 {
				d.check("r")
				d.check("l")
			}
		}
		d.check("r")
		d.check("l")
		// Shrinking converts back at half the limit, from one node only:
		// popping the head of a list that grew at the tail leaves several.
		for i := range c.push - 1 {
			d.do("RPOP", "r")
			d.do("RPOP", "l")
			if i%every == 0 || i > c.push-8 {
				d.check("r")
				d.check("l")
			}
		}
	}
	// Elements too large for a node get plain nodes; several values pushed
	// at once convert the list before the first goes in.
	d.do("CONFIG", "SET", "list-max-listpack-size", "-1")
	d.run([][]string{
		ecmd("RPUSH", "p", elem(1, 5000)), ecmd("RPUSH", "p", "a", "b"), ecmd("LPUSH", "p", elem(2, 4096), elem(3, 4097)),
		ecmd("RPUSH", "m", elem(1, 1000), elem(2, 1000), elem(3, 1000), elem(4, 1100)),
		ecmd("RPUSH", "m2", elem(1, 1000), elem(2, 1000), elem(3, 1000), elem(4, 1060)),
		{"CONFIG", "SET", "list-max-listpack-size", "2"},
		ecmd("RPUSH", "c", "a", "b"), ecmd("RPUSH", "c", "c"), ecmd("RPUSH", "c", elem(1, 8192), elem(2, 8193), "d", "e", "f"),
		ecmd("LPOP", "c", "2"), ecmd("RPOP", "c", "3"), ecmd("LPOP", "c"),
		// A quicklist keeps filling its nodes with the size it was created with.
		{"CONFIG", "SET", "list-max-listpack-size", "5"},
		ecmd("RPUSH", "c", "1", "2", "3", "4", "5", "6"), ecmd("LPUSH", "c", "7", "8", "9"),
		ecmd("RPUSH", "n", "1", "2", "3", "4", "5", "6"), ecmd("RPUSH", "n", "7", "8", "9", "10", "11"),
		{"CONFIG", "SET", "list-max-listpack-size", "-2"},
		ecmd("RPUSH", "n", intRange(12, 40)...), ecmd("LTRIM", "n", "0", "3"), ecmd("RPUSH", "n", "x"), ecmd("LTRIM", "n", "1", "1"),
		// LSET and LINSERT convert a full listpack before they look for
		// their element, even when there is none.
		{"CONFIG", "SET", "list-max-listpack-size", "4"},
		ecmd("RPUSH", "e", "a", "b", "c", "d"), ecmd("LSET", "e", "10", "x"), ecmd("RPUSH", "e2", "a", "b", "c", "d"),
		ecmd("LINSERT", "e2", "BEFORE", "zz", "x"), ecmd("RPUSH", "e3", "a", "b", "c"), ecmd("LSET", "e3", "0", "x"),
		ecmd("RPOPLPUSH", "e3", "e3"), ecmd("RPUSH", "e4", "a", "b", "c", "d", "e"), ecmd("RPOP", "e4", "2"),
		ecmd("LMOVE", "e4", "e4", "RIGHT", "LEFT"), ecmd("LPOP", "e4"), ecmd("LMOVE", "e4", "e5", "LEFT", "LEFT"),
	})
}

// TestDifferentialListOps runs random list commands at several
// list-max-listpack-size values and compares, after each, the lists'
// encodings and quicklist nodes: pushes and pops at both ends, LSET and
// LINSERT (which split and merge nodes), LREM, LTRIM, LMOVE on one list
// and between two, RESTORE and SORT ... STORE.
func TestDifferentialListOps(t *testing.T) {
	d := newEncDiff(t)
	for _, fill := range []string{"3", "-1", "10", "1", "-2"} {
		d.do("CONFIG", "SET", "list-max-listpack-size", fill)
		d.do("DEL", "a", "b", "s")
		r := rand.New(rand.NewPCG(uint64(len(fill)), 3))
		val := func() string {
			switch r.IntN(12) {
			case 0:
				return elem(r.IntN(100), 5000) // plain at -1, a node of its own
			case 1:
				return elem(r.IntN(100), 9000) // plain at -2 and for counts
			case 2:
				return strconv.Itoa(r.IntN(2000) - 1000)
			case 3, 4:
				return elem(r.IntN(100), 300+r.IntN(900))
			}
			return string(rune('a' + r.IntN(5)))
		}
		for op := range 400 {
			k := []string{"a", "b"}[r.IntN(2)]
			n, _ := d.a.Do("LLEN", k).(int64)
			var c []string
			switch x := r.IntN(20); {
			case x < 4:
				c = []string{"RPUSH", k, val()}
				for range r.IntN(3) {
					c = append(c, val())
				}
			case x < 7:
				c = []string{"LPUSH", k, val(), val()}
			case x == 7:
				c = []string{"RPOP", k}
			case x == 8:
				c = []string{"LPOP", k, strconv.Itoa(1 + r.IntN(3))}
			case x == 9 || x == 10:
				c = []string{"LSET", k, strconv.Itoa(int(r.Int64N(n+1)) - int(n/2)), val()}
			case x == 11 || x == 12:
				pivot := d.a.Do("LINDEX", k, strconv.Itoa(int(r.Int64N(n+1))))
				p, _ := pivot.(string)
				c = []string{"LINSERT", k, []string{"BEFORE", "AFTER"}[r.IntN(2)], p, val()}
			case x == 13:
				c = []string{"LREM", k, strconv.Itoa(r.IntN(5) - 2), string(rune('a' + r.IntN(5)))}
			case x == 14:
				c = []string{"LTRIM", k, strconv.Itoa(r.IntN(3)), strconv.Itoa(-1 - r.IntN(3))}
			case x == 15:
				c = []string{"LMOVE", k, []string{"a", "b"}[r.IntN(2)], []string{"LEFT", "RIGHT"}[r.IntN(2)], []string{"LEFT", "RIGHT"}[r.IntN(2)]}
			case x == 16:
				c = []string{"RPOPLPUSH", k, k}
			case x == 17:
				c = []string{"SORT", k, "BY", "nosort", "STORE", "s"}
			case x == 18:
				c = []string{"CONFIG", "SET", "list-max-listpack-size", []string{"3", "-1", "10", "-2", fill}[r.IntN(5)]}
			default:
				// RESTORE both servers' payloads under the current fill.
				if n == 0 {
					continue
				}
				for i, p := range []any{d.b.Do("DUMP", k), d.a.Do("DUMP", k)} {
					dst := fmt.Sprintf("r%d", i)
					d.do("DEL", dst)
					d.do("RESTORE", dst, "0", p.(string))
					d.check(dst)
				}
				continue
			}
			d.do(c...)
			for _, k := range writtenKeys(c) {
				d.check(k)
			}
			if t.Failed() {
				t.Fatalf("fill %s op %d", fill, op)
			}
		}
		d.do("CONFIG", "SET", "list-max-listpack-size", fill)
	}
}

// TestDifferentialStreamNodes: XADD opens nodes where Redis does with
// stream-node-max-entries and stream-node-max-bytes (XINFO STREAM's
// radix-tree-keys and radix-tree-nodes), and trimming with ~ removes the
// same whole nodes, with a default LIMIT of 100 times the entries limit.
func TestDifferentialStreamNodes(t *testing.T) {
	d := newEncDiff(t)
	r := rand.New(rand.NewPCG(5, 5))
	for _, lim := range [][2]string{{"3", "0"}, {"0", "200"}, {"5", "300"}, {"1", "0"}, {"100", "4096"}, {"2", "1"}} {
		d.do("CONFIG", "SET", "stream-node-max-entries", lim[0], "stream-node-max-bytes", lim[1])
		d.do("DEL", "s")
		ms := 1000
		for range 60 {
			ms += 1 + r.IntN(3)*300
			id := fmt.Sprintf("%d-%d", ms, r.IntN(3))
			f := []string{"XADD", "s", id}
			switch r.IntN(4) {
			case 0: // the first entry's fields: stored without their names
				f = append(f, "f", strconv.Itoa(r.IntN(300)))
			case 1:
				f = append(f, "f", strconv.Itoa(r.IntN(300)), "g", strings.Repeat("v", r.IntN(40)))
			case 2:
				f = append(f, strings.Repeat("k", 1+r.IntN(20)), strconv.Itoa(r.IntN(100000)-50000))
			default:
				f = append(f, "f", strings.Repeat("x", r.IntN(120)))
			}
			if r.IntN(2) == 0 {
				f = slices.Insert(f, 2, "MAXLEN", "~", "40")
			}
			d.do(f...)
			if r.IntN(8) == 0 {
				d.do("XDEL", "s", id)
			}
			d.check("s")
		}
		d.do("XTRIM", "s", "MAXLEN", "~", "10")
		d.check("s")
		d.do("XTRIM", "s", "MAXLEN", "7")
		d.check("s")
		d.do("XTRIM", "s", "MINID", "~", "3000")
		d.check("s")
	}
}
