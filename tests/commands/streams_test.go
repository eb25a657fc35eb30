package commands

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Differential tests for streams: every script runs on HotKV and on a real
// Redis 8.0.2, over RESP2 then RESP3, and each reply must be the same.
//
// streamDiffer compares the replies byte for byte, not parsed as harness.Differ
// does: stream commands answer with both kinds of null (XREAD's null array
// when nothing is there, the null bulk of a deleted entry in a consumer's
// history) and the parsed form cannot tell them apart. The few replies that
// carry clock readings (idle times, delivery times, seen-time) are compared
// with those numbers masked; see streamMaskTimes.
//
// Only deterministic inputs are used: explicit IDs, and "~" trimming only
// where Redis trims nothing (a stream of fewer than 100 small entries sits in
// one node, and "~" removes whole nodes only).

// streamDiffer runs script on both servers and reports the first reply that
// differs.
func streamDiffer(t *testing.T, script [][]string) {
	t.Helper()
	streamCompare(t, script, false)
}

// streamCompare is streamDiffer; anyLayout leaves out XINFO STREAM's
// radix-tree-keys and radix-tree-nodes, which count Redis's internal nodes.
func streamCompare(t *testing.T, script [][]string, anyLayout bool) {
	t.Helper()
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	// With STREAM_DIFF_ALL set, every differing reply is reported, not only
	// the first (later ones may just follow from the first).
	report := t.Fatalf
	if os.Getenv("STREAM_DIFF_ALL") != "" {
		report = t.Errorf
	}
	for _, proto := range []int{2, 3} {
		a, b := harness.DialRaw(t, hot.Addr, proto), harness.DialRaw(t, redis.Addr, proto)
		a.Exact("FLUSHALL")
		b.Exact("FLUSHALL")
		for i, c := range script {
			got, want := a.Exact(c...), b.Exact(c...)
			if os.Getenv("DIFF_TRACE") != "" {
				t.Logf("%q: %q | %q", c, got, want)
			}
			if got == want {
				continue
			}
			if streamHasTimes(c) {
				g, w := streamMaskTimes(c, parseExact(t, got), anyLayout), streamMaskTimes(c, parseExact(t, want), anyLayout)
				if reflect.DeepEqual(g, w) {
					continue
				}
				report("RESP%d line %d %q (times masked):\nhotkv: %#v\nredis: %#v", proto, i, c, g, w)
				continue
			}
			report("RESP%d line %d %q:\nhotkv: %q\nredis: %q", proto, i, c, got, want)
		}
	}
	hot.NoPanics(t)
}

func parseExact(t *testing.T, s string) any {
	t.Helper()
	v, err := harness.ReadReply(bufio.NewReader(strings.NewReader(s)))
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}

// streamHasTimes reports whether a command's reply holds clock readings:
// XPENDING's extended form (idle per entry), XINFO CONSUMERS (idle,
// inactive) and XINFO STREAM FULL (seen-time, active-time, delivery times).
func streamHasTimes(c []string) bool {
	switch strings.ToUpper(c[0]) {
	case "XPENDING":
		return len(c) > 3
	case "XINFO":
		return len(c) > 1 && (strings.EqualFold(c[1], "CONSUMERS") || strings.EqualFold(c[1], "STREAM"))
	}
	return false
}

// streamTime stands for a masked clock reading. -1 (a consumer that never
// read) stays as it is.
const streamTime = "<time>"

func streamMaskTime(v any) any {
	if n, ok := v.(int64); ok && n >= 0 {
		return streamTime
	}
	return v
}

func streamMaskTimes(c []string, v any, anyLayout bool) any {
	if strings.EqualFold(c[0], "XPENDING") {
		// [id, consumer, idle, deliveries] per entry.
		if entries, ok := v.([]any); ok {
			out := slices.Clone(entries)
			for i, e := range out {
				if f, ok := e.([]any); ok && len(f) == 4 {
					f = slices.Clone(f)
					f[2] = streamMaskTime(f[2])
					out[i] = f
				}
			}
			return out
		}
		return v
	}
	return streamMaskWalk(v, anyLayout)
}

// streamMaskWalk masks, in every key/value list (a RESP2 flat array or a
// RESP3 map), the values of the time keys, and the delivery times in "pending"
// lists: [id, consumer, time, count] in a group, [id, time, count] in a
// consumer of XINFO STREAM FULL.
func streamMaskWalk(v any, anyLayout bool) any {
	kv := func(xs []any) []any {
		out := slices.Clone(xs)
		for i := range out {
			out[i] = streamMaskWalk(out[i], anyLayout)
		}
		for i := 0; i+1 < len(out); i += 2 {
			switch out[i] {
			case "radix-tree-keys", "radix-tree-nodes":
				if anyLayout {
					out[i+1] = "<layout>"
				}
			case "idle", "inactive", "seen-time", "active-time":
				out[i+1] = streamMaskTime(out[i+1])
			case "pending":
				if list, ok := out[i+1].([]any); ok {
					list = slices.Clone(list)
					for j, e := range list {
						if f, ok := e.([]any); ok && (len(f) == 3 || len(f) == 4) {
							f = slices.Clone(f)
							f[len(f)-2] = streamMaskTime(f[len(f)-2])
							list[j] = f
						}
					}
					out[i+1] = list
				}
			}
		}
		return out
	}
	switch x := v.(type) {
	case harness.Map:
		return harness.Map(kv(x))
	case []any:
		return kv(x)
	}
	return v
}

// sx splits a command on spaces (no argument of these scripts holds one).
func sx(lines ...string) [][]string {
	out := make([][]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Fields(l)
	}
	return out
}

func TestDifferentialStreamXAdd(t *testing.T) {
	script := sx(
		// Explicit IDs: complete, ms only (seq 0), ms-* (next seq).
		"XADD s 1-1 f v",
		"XADD s 1-1 f v", // equal to the top item
		"XADD s 1-0 f v", // smaller
		"XADD s 1-* f v",
		"XADD s 1-* f v",
		"XADD s 2-* a 1 b 2",
		"XADD s 5 f v",
		"XADD s 5-* f v",
		"XADD s 4-* f v", // ms behind the top item
		"XADD s 4 f v",
		"XLEN s",
		"XRANGE s - +",
		// 0-0 is never valid; 0-* starts at 0-1.
		"XADD n 0-0 f v",
		"XADD n 0 f v",
		"XADD n 0-* f v",
		"XADD n 0-* f v",
		"XRANGE n - +",
		// Malformed IDs.
		"XADD s abc f v",
		"XADD s 1-x f v",
		"XADD s -1 f v",
		"XADD s 1--1 f v",
		"XADD s 1- f v",
		"XADD s -1-1 f v",
		"XADD s *-1 f v",
		"XADD s 18446744073709551616 f v",
		"XADD s 1-18446744073709551616 f v",
		"XADD s 0x10 f v",
		"XADD s +1 f v",        // strtoull takes the sign: 1-0
		"XADD lz 00007-01 f v", // and leading zeros
		// The largest IDs: a full sequence makes "ms-*" fail, the last
		// possible ID makes everything fail.
		"XADD big 7-18446744073709551615 f v",
		"XADD big 7-* f v",
		"XADD big 8-* f v",
		"XADD big 18446744073709551615-18446744073709551615 f v",
		"XADD big * f v",
		"XADD big 18446744073709551615-* f v",
		"XADD big2 18446744073709551615-* f v",
		"XADD big2 18446744073709551615-* f v",
		// "*" after an ID in the future keeps increasing the sequence.
		"XADD future 99999999999999-5 f v",
		"XADD future * f v",
		"XADD future * f v",
		// Arity: a field without its value.
		"XADD s * f",
		"XADD s * f v g",
		"XADD s",
		"XADD s *",
		"XADD s MAXLEN 5 *",
		// Trimming options and their errors.
		"XADD s MAXLEN -1 * f v",
		"XADD s MAXLEN abc * f v",
		"XADD s MAXLEN 10 LIMIT 5 * f v",
		"XADD s MAXLEN = 10 LIMIT 5 * f v",
		"XADD s MAXLEN 1 MINID 1 * f v",
		"XADD s MINID 1 MAXLEN 1 * f v",
		"XADD s LIMIT 10 * f v",
		"XADD s MAXLEN ~ 5 LIMIT -1 * f v",
		"XADD s MAXLEN ~ 5 LIMIT x * f v",
		"XADD s MINID abc * f v",
		"XADD s MINID -1 * f v",
		"XADD s MAXLEN",
		"XADD s MAXLEN ~",
		"XLEN s",
		// Exact trims.
		"XADD s MAXLEN 4 6-1 f v",
		"XRANGE s - +",
		"XADD s MAXLEN = 2 6-2 f v",
		"XRANGE s - +",
		"XADD s maxlen 3 6-3 f v",
		"XADD s MINID 6-2 7-1 f v",
		"XRANGE s - +",
		"XADD s MINID = 7 7-2 f v",
		"XRANGE s - +",
		// "~" on a stream this small trims nothing, with or without LIMIT.
		"XADD s MAXLEN ~ 1 8-1 f v",
		"XADD s MAXLEN ~ 1 LIMIT 0 8-2 f v",
		"XADD s MAXLEN ~ 1 LIMIT 1 8-3 f v",
		"XADD s MINID ~ 8-3 8-4 f v",
		"XLEN s",
		// MAXLEN 0 empties the stream but keeps the key.
		"XADD s MAXLEN 0 9-1 f v",
		"XLEN s",
		"EXISTS s",
		"XRANGE s - +",
		// The new entry must still be greater than the last one, even when
		// the trim removes every entry.
		"XADD s MAXLEN 0 9-1 f v",
		// NOMKSTREAM.
		"XADD nokey NOMKSTREAM * f v",
		"XADD nokey NOMKSTREAM MAXLEN 1 * f v",
		"EXISTS nokey",
		"XADD s NOMKSTREAM 10-1 f v",
		"XADD s nomkstream MAXLEN = 5 10-2 f v",
		"XRANGE s - +",
		// Wrong type, checked before or after the ID?
		"SET str x",
		"XADD str * f v",
		"XADD str 1-1 f v",
		"XADD str abc f v",
		"XLEN str",
		"XLEN nokey",
		"XLEN",
		"XLEN s s",
		// Options that look like IDs and IDs that look like options.
		"XADD s NOMKSTREAM NOMKSTREAM 11-1 f v",
		"XADD s MAXLEN 5 MAXLEN 6 11-2 f v",
		"XADD s MINID 0 MINID 11 11-3 f v",
		"XADD s FOO 1 * f v",
		"XRANGE s - +",
	)
	// Many fields, empty and binary fields and values, and entries that
	// reuse the previous entry's fields (Redis stores those differently,
	// but the reply is the same).
	script = append(script,
		[]string{"XADD", "fields", "1-1", "", "", "a b", "c\r\nd", "\x00\xff", "\x01"},
		[]string{"XADD", "fields", "1-2", "", "x", "a b", "y", "\x00\xff", "z"},
		[]string{"XADD", "fields", "1-3", "a b", "1", "", "2", "\x00\xff", "3"},
		[]string{"XADD", "fields", "1-4", "dup", "1", "dup", "2"},
		[]string{"XRANGE", "fields", "-", "+"},
		[]string{"XREVRANGE", "fields", "+", "-"},
	)
	wide := []string{"XADD", "fields", "2-1"}
	for i := range 300 {
		wide = append(wide, "field"+strconv.Itoa(i), strings.Repeat("v", i))
	}
	script = append(script, wide, []string{"XRANGE", "fields", "2", "2"}, []string{"XLEN", "fields"})
	streamDiffer(t, script)
}

func TestDifferentialStreamRanges(t *testing.T) {
	script := sx(
		"XADD s 1-1 a 1",
		"XADD s 1-2 b 2",
		"XADD s 2-0 c 3",
		"XADD s 3-5 d 4",
		"XADD s 3-6 e 5",
		"XADD s 10-0 f 6",
		"XRANGE s - +",
		"XREVRANGE s + -",
		// An ID without its sequence is the first of its ms as a start, the
		// last as an end.
		"XRANGE s 1 1",
		"XRANGE s 3 3",
		"XRANGE s 2 3",
		"XREVRANGE s 3 1",
		"XRANGE s 1-2 3-5",
		"XRANGE s 0 0",
		"XRANGE s 11 +",
		"XRANGE s 3-6 3-5", // start after end
		"XREVRANGE s 1 3",
		// Exclusive bounds.
		"XRANGE s (1-1 +",
		"XRANGE s (1-1 (3-6",
		"XRANGE s - (2-0",
		"XREVRANGE s (10-0 (1-1",
		"XREVRANGE s + (3-5",
		"XRANGE s (1 +", // "(1" is after 1-0, so 1-1 is in
		"XRANGE s - (3",
		"XRANGE s (3-5 (3-6",
		"XRANGE s (3-5 (3-5",
		"XRANGE s (- +",
		"XRANGE s - (+",
		"XRANGE s (+ +",
		"XRANGE s - (-",
		"XRANGE s (0-0 +",
		"XRANGE s - (0-0",
		"XRANGE s (18446744073709551615-18446744073709551615 +",
		"XRANGE s - (18446744073709551615-18446744073709551615",
		"XREVRANGE s (0-0 -",
		"XREVRANGE s + (18446744073709551615-18446744073709551615",
		"XRANGE s ( +",
		"XRANGE s ((1 +",
		"XRANGE s 18446744073709551615 +",
		"XRANGE s 10-18446744073709551615 18446744073709551615",
		"XREVRANGE s 0 -",
		"XREVRANGE s 10 10",
		"XRANGE s (9-18446744073709551615 (10-1",
		// COUNT.
		"XRANGE s - + COUNT 2",
		"XREVRANGE s + - COUNT 2",
		"XRANGE s - + COUNT 0",
		"XREVRANGE s + - COUNT 0",
		"XRANGE s - + COUNT -1",
		"XRANGE s - + COUNT -100",
		"XRANGE s - + COUNT 100",
		"XRANGE s - + count 1",
		"XRANGE s - + COUNT 1 COUNT 3",
		"XRANGE s - + COUNT",
		"XRANGE s - + COUNT x",
		"XRANGE s - + COUNT 1.5",
		"XRANGE s - + FOO 1",
		"XRANGE s - + COUNT 1 FOO",
		"XRANGE s - + COUNT 9223372036854775807",
		"XRANGE s - + COUNT 9223372036854775808",
		// Bad IDs and arity.
		"XRANGE s abc +",
		"XRANGE s - abc",
		"XRANGE s 1-x +",
		"XRANGE s -1 +",
		"XRANGE s * +",
		"XRANGE s 1-* +",
		"XREVRANGE s abc -",
		"XRANGE s -",
		"XRANGE s",
		"XREVRANGE s +",
		// Missing keys and other types.
		"XRANGE nokey - +",
		"XREVRANGE nokey + -",
		"XRANGE nokey abc +",
		"XRANGE nokey - + COUNT x",
		"SET str x",
		"XRANGE str - +",
		"XREVRANGE str + -",
		"XRANGE str abc +",
		"XLEN s",
	)
	// A stream of 250 entries spans several of Redis's nodes; ranges
	// across their borders answer the same.
	for i := 1; i <= 250; i++ {
		script = append(script, []string{"XADD", "long", fmt.Sprintf("%d-%d", i/3, i%3), "n", strconv.Itoa(i)})
	}
	script = append(script, sx(
		"XLEN long",
		"XRANGE long 30 35",
		"XRANGE long (33-1 34 COUNT 3",
		"XREVRANGE long 70 (60-2 COUNT 5",
		"XRANGE long - + COUNT 150",
		"XREVRANGE long + - COUNT 120",
		"XRANGE long - +",
	)...)
	streamDiffer(t, script)
}

func TestDifferentialStreamXDelXTrim(t *testing.T) {
	var script [][]string
	for i := 1; i <= 10; i++ {
		script = append(script, []string{"XADD", "s", fmt.Sprintf("%d-1", i), "i", strconv.Itoa(i)})
	}
	script = append(script, sx(
		// XDEL counts what it deleted.
		"XDEL s 2-1",
		"XDEL s 2-1",
		"XDEL s 3-1 4-1 4-1 99-1",
		"XDEL s 5", // 5-0: not there
		"XDEL nokey 1-1",
		"XRANGE s - +",
		"XLEN s",
		// Any bad ID fails the whole command before anything is deleted.
		"XDEL s 5-1 abc",
		"XDEL s abc",
		"XDEL s 1-*",
		"XDEL s *",
		"XDEL s -",
		"XDEL s",
		"XLEN s",
		"SET str x",
		"XDEL str 1-1",
		"XDEL str abc",
		// Deleting the last entry does not lower the last ID.
		"XDEL s 10-1",
		"XADD s 10-1 f v",
		"XADD s 10-2 f v",
		// XTRIM.
		"XTRIM s MAXLEN 5",
		"XRANGE s - +",
		"XTRIM s MAXLEN = 4",
		"XTRIM s MAXLEN 4",
		"XTRIM s maxlen ~ 1", // one small node: nothing goes
		"XTRIM s MAXLEN ~ 1 LIMIT 10",
		"XTRIM s MINID 8",
		"XRANGE s - +",
		"XTRIM s MINID = 9-1",
		"XTRIM s MINID ~ 10-1",
		"XRANGE s - +",
		"XTRIM s MINID 0",
		"XTRIM s MAXLEN 100",
		"XTRIM nokey MAXLEN 0",
		"EXISTS nokey",
		// Errors.
		"XTRIM s MAXLEN -1",
		"XTRIM s MAXLEN x",
		"XTRIM s MAXLEN 1 LIMIT 10",
		"XTRIM s MAXLEN = 1 LIMIT 10",
		"XTRIM s MAXLEN ~ 1 LIMIT -1",
		"XTRIM s MAXLEN 1 MINID 1",
		"XTRIM s MINID abc",
		"XTRIM s MINID -1",
		"XTRIM s MINID *",
		"XTRIM s LIMIT 1",
		"XTRIM s FOO 1",
		"XTRIM s MAXLEN",
		"XTRIM s",
		"XTRIM s MAXLEN 1 FOO",
		"XTRIM s MAXLEN 1 1",
		"XTRIM str MAXLEN 1",
		"XTRIM str MAXLEN -1",
		"XRANGE s - +",
		// MAXLEN 0 keeps the empty stream.
		"XTRIM s MAXLEN 0",
		"XLEN s",
		"EXISTS s",
		"XADD s 10-2 f v",
		"XADD s 10-3 f v",
		"XDEL s 10-3",
		"XLEN s",
		"EXISTS s",
	)...)
	// XDEL in the middle of a long stream, then trims that count only the
	// live entries.
	for i := 1; i <= 220; i++ {
		script = append(script, []string{"XADD", "long", strconv.Itoa(i), "n", strconv.Itoa(i)})
	}
	for i := 3; i <= 220; i += 7 {
		script = append(script, []string{"XDEL", "long", strconv.Itoa(i), strconv.Itoa(i + 1)})
	}
	script = append(script, sx(
		"XLEN long",
		"XRANGE long 1 20",
		"XTRIM long MAXLEN = 150",
		"XRANGE long - + COUNT 5",
		"XTRIM long MINID 120",
		"XRANGE long - + COUNT 5",
		"XREVRANGE long + - COUNT 5",
		"XLEN long",
	)...)
	streamDiffer(t, script)
}

func TestDifferentialStreamXRead(t *testing.T) {
	script := sx(
		"XADD a 1-1 f a1",
		"XADD a 1-2 f a2",
		"XADD a 2-1 f a3",
		"XADD b 1-5 f b1",
		"XADD b 3-0 f b2",
		// Entries after each ID, from several streams.
		"XREAD STREAMS a 0",
		"XREAD STREAMS a b 0 0",
		"XREAD STREAMS a b 1-1 1-5",
		"XREAD STREAMS a b 1 1",
		"XREAD COUNT 1 STREAMS a b 0 0",
		"XREAD COUNT 2 STREAMS a b 0-0 0-0",
		"XREAD count 0 STREAMS a 0",
		"XREAD COUNT -1 STREAMS a 0",
		"XREAD COUNT 1 COUNT 2 STREAMS a 0",
		"XREAD STREAMS a b 2-1 3-0", // nothing after either: null
		"XREAD STREAMS a b 2-1 0",   // only b
		"XREAD STREAMS a a 0 1-2",   // one key twice
		"XREAD STREAMS a 18446744073709551615-18446744073709551615",
		// Missing keys are left out; all missing is a null.
		"XREAD STREAMS nokey 0",
		"XREAD STREAMS nokey a 0 0",
		"XREAD STREAMS nokey nokey2 0 0",
		// "$" is the last ID: nothing to read without BLOCK.
		"XREAD STREAMS a $",
		"XREAD STREAMS a b $ 0",
		"XREAD STREAMS nokey $",
		// "+" is the last entry (Redis 7.4), whatever COUNT says.
		"XREAD STREAMS a +",
		"XREAD STREAMS a b + +",
		"XREAD COUNT 5 STREAMS a +",
		"XREAD STREAMS nokey +",
		"XREAD STREAMS a nokey + +",
		"XREAD BLOCK 0 STREAMS a +",
		// An empty stream: "+" has nothing.
		"XADD e MAXLEN 0 1-1 f v",
		"XREAD STREAMS e +",
		"XREAD STREAMS e 0",
		"XREAD STREAMS e $",
		// BLOCK with data there answers at once; on nothing it times out to
		// a null.
		"XREAD BLOCK 0 STREAMS a 1-2",
		"XREAD BLOCK 1000 COUNT 1 STREAMS a b 0 0",
		"XREAD BLOCK 1 STREAMS a $",
		"XREAD BLOCK 1 STREAMS nokey 0",
		"XREAD BLOCK 1 STREAMS a 2-1",
		// Errors.
		"XREAD STREAMS a",
		"XREAD STREAMS a b 0",
		"XREAD STREAMS",
		"XREAD",
		"XREAD a 0",
		"XREAD COUNT 1",
		"XREAD COUNT x STREAMS a 0",
		"XREAD COUNT STREAMS a 0",
		"XREAD BLOCK -1 STREAMS a 0",
		"XREAD BLOCK x STREAMS a 0",
		"XREAD BLOCK 1.5 STREAMS a 0",
		// A timeout whose deadline overflows is refused, even with entries
		// there; one just below it is fine (until the year 2200 or so).
		"XREAD BLOCK 9223372036854775807 STREAMS a 0",
		"XREAD BLOCK 9223372036854775806 COUNT 1 STREAMS a 0",
		"XREAD BLOCK 9223370000000000000 COUNT 1 STREAMS a 0",
		"XREAD BLOCK 9223372036854775808 STREAMS a 0",
		"XREAD FOO STREAMS a 0",
		"XREAD STREAMS a abc",
		"XREAD STREAMS a (1-1",
		"XREAD STREAMS a -",
		"XREAD STREAMS a 1-*",
		"XREAD STREAMS a >",
		"XREAD STREAMS nokey >",
		"XREAD GROUP g c STREAMS a 0",
		"XREAD NOACK STREAMS a 0",
		"SET str x",
		"XREAD STREAMS str 0",
		"XREAD STREAMS a str 0 0",
		"XREAD STREAMS str $",
		"XREAD STREAMS str +",
		"XREAD STREAMS str abc",
		"XREAD STREAMS a b c 0 0",
	)
	streamDiffer(t, script)
}

func TestDifferentialStreamXGroup(t *testing.T) {
	script := sx(
		"XADD s 1-1 f 1",
		"XADD s 2-1 f 2",
		"XADD s 3-1 f 3",
		// CREATE.
		"XGROUP CREATE s g $",
		"XGROUP CREATE s g 0",
		"XGROUP CREATE s g2 0",
		"XGROUP CREATE s g3 2-1",
		"XGROUP CREATE s g4 5",
		"XGROUP CREATE s g5 $ ENTRIESREAD 2",
		"XGROUP CREATE s g6 0 ENTRIESREAD -1",
		"XGROUP CREATE s g7 0 ENTRIESREAD -2",
		"XGROUP CREATE s g7 0 ENTRIESREAD x",
		"XGROUP CREATE s g7 0 ENTRIESREAD 100",
		"XGROUP CREATE s g7 0 ENTRIESREAD",
		"XGROUP CREATE s g7 0 MKSTREAM ENTRIESREAD 1",
		"XGROUP CREATE s g8 abc",
		"XGROUP CREATE s g8 +",
		"XGROUP CREATE s g8 -",
		"XGROUP CREATE s g8 >",
		"XGROUP CREATE s g8 1-*",
		"XGROUP CREATE s g8 $ FOO",
		"XGROUP CREATE s g8",
		"XGROUP CREATE s",
		"XGROUP create s lower $",
		"XINFO GROUPS s",
		// A missing key needs MKSTREAM.
		"XGROUP CREATE nokey g $",
		"EXISTS nokey",
		"XGROUP CREATE nokey g $ MKSTREAM",
		"XGROUP CREATE nokey2 g 0 mkstream",
		"XGROUP CREATE nokey3 g abc MKSTREAM",
		"EXISTS nokey nokey2 nokey3",
		"TYPE nokey",
		"XLEN nokey",
		"XINFO GROUPS nokey",
		"SET str x",
		"XGROUP CREATE str g $",
		"XGROUP CREATE str g $ MKSTREAM",
		// SETID.
		"XGROUP SETID s g 0",
		"XGROUP SETID s g 2-1 ENTRIESREAD 1",
		"XINFO GROUPS s",
		"XGROUP SETID s g $",
		"XGROUP SETID s g 1 ENTRIESREAD -1",
		"XGROUP SETID s g 0 ENTRIESREAD -3",
		"XGROUP SETID s g 0 ENTRIESREAD 99",
		"XGROUP SETID s g abc",
		"XGROUP SETID s g 0 FOO",
		"XGROUP SETID s nogroup 0",
		"XGROUP SETID nokey9 g 0",
		"XGROUP SETID str g 0",
		"XGROUP SETID s g",
		"XINFO GROUPS s",
		// CREATECONSUMER and DELCONSUMER.
		"XGROUP CREATECONSUMER s g alice",
		"XGROUP CREATECONSUMER s g alice",
		"XGROUP CREATECONSUMER s g bob",
		"XGROUP CREATECONSUMER s nogroup alice",
		"XGROUP CREATECONSUMER nokey9 g alice",
		"XGROUP CREATECONSUMER str g alice",
		"XGROUP CREATECONSUMER s g",
		"XGROUP CREATECONSUMER s g a b",
		"XINFO GROUPS s",
		"XGROUP SETID s g 0",
		"XREADGROUP GROUP g alice COUNT 2 STREAMS s >",
		"XGROUP DELCONSUMER s g alice", // its two pending entries
		"XGROUP DELCONSUMER s g alice",
		"XGROUP DELCONSUMER s g bob",
		"XGROUP DELCONSUMER s g nobody",
		"XGROUP DELCONSUMER s nogroup alice",
		"XGROUP DELCONSUMER nokey9 g alice",
		"XGROUP DELCONSUMER str g alice",
		"XPENDING s g",
		"XINFO GROUPS s",
		// DESTROY.
		"XGROUP DESTROY s g2",
		"XGROUP DESTROY s g2",
		"XGROUP DESTROY nokey9 g",
		"XGROUP DESTROY str g",
		"XGROUP DESTROY s",
		"XGROUP DESTROY s g a",
		"XINFO GROUPS s",
		// Sub-commands.
		"XGROUP HELP",
		"XGROUP help",
		"XGROUP HELP extra",
		"XGROUP FOO",
		"XGROUP FOO s g",
		"XGROUP",
		"XINFO GROUPS s",
	)
	streamDiffer(t, script)
}

// TestDifferentialStreamXReadGroup covers XREADGROUP, with the group's
// entries-read and lag (XINFO GROUPS) after each kind of change.
func TestDifferentialStreamXReadGroup(t *testing.T) {
	script := sx(
		"XADD s 1-1 f 1",
		"XADD s 2-1 f 2",
		"XADD s 3-1 f 3",
		"XADD s 4-1 f 4",
		"XGROUP CREATE s g 0",
		"XINFO GROUPS s",
		// New entries for one consumer, then another.
		"XREADGROUP GROUP g alice COUNT 1 STREAMS s >",
		"XINFO GROUPS s",
		"XREADGROUP GROUP g bob COUNT 2 STREAMS s >",
		"XINFO GROUPS s",
		"XREADGROUP GROUP g alice STREAMS s >",
		"XREADGROUP GROUP g alice STREAMS s >", // nothing new: null
		"XINFO GROUPS s",
		"XPENDING s g",
		// History: the consumer's own pending entries after an ID.
		"XREADGROUP GROUP g alice STREAMS s 0",
		"XREADGROUP GROUP g bob STREAMS s 0",
		"XREADGROUP GROUP g bob STREAMS s 2-1",
		"XREADGROUP GROUP g bob COUNT 1 STREAMS s 0",
		"XREADGROUP GROUP g carol STREAMS s 0", // no history: an empty list, not a null
		"XREADGROUP GROUP g bob COUNT 0 STREAMS s 0",
		"XREADGROUP GROUP g bob COUNT -1 STREAMS s 0",
		"XREADGROUP GROUP g alice STREAMS s 99",
		// A deleted pending entry shows as [id, null] in the history.
		"XDEL s 2-1",
		"XREADGROUP GROUP g bob STREAMS s 0",
		"XPENDING s g",
		// History reads count a delivery each.
		"XPENDING s g - + 10 bob",
		// XADD after the group has read everything: lag 1.
		"XADD s 5-1 f 5",
		"XINFO GROUPS s",
		"XREADGROUP GROUP g alice STREAMS s >",
		"XINFO GROUPS s",
		// NOACK: delivered but not pending.
		"XADD s 6-1 f 6",
		"XREADGROUP GROUP g alice NOACK STREAMS s >",
		"XPENDING s g",
		"XINFO GROUPS s",
		"XREADGROUP GROUP g alice STREAMS s 0",
		// A new group after an XDEL: entries-read is unknown until it
		// catches up (lag null), from a tombstone's position.
		"XGROUP CREATE s late 0",
		"XINFO GROUPS s",
		"XREADGROUP GROUP late x COUNT 2 STREAMS s >",
		"XINFO GROUPS s",
		"XREADGROUP GROUP late x STREAMS s >",
		"XINFO GROUPS s",
		// A group created at an ID inside the stream, with ENTRIESREAD.
		"XGROUP CREATE s mid 3-1 ENTRIESREAD 2",
		"XGROUP CREATE s mid2 3-1",
		"XGROUP CREATE s end $",
		"XINFO GROUPS s",
		// Several streams at once, one with nothing new.
		"XADD t 1-1 f t1",
		"XGROUP CREATE t g 0",
		"XREADGROUP GROUP g alice STREAMS s t > >",
		"XADD s 7-1 f 7",
		"XADD t 2-1 f t2",
		"XREADGROUP GROUP g alice COUNT 1 STREAMS s t > >",
		"XREADGROUP GROUP g alice STREAMS s t 0 0",
		"XREADGROUP GROUP g alice STREAMS s t > 0",
		// Errors.
		"XREADGROUP GROUP g alice STREAMS s $",
		"XREADGROUP GROUP g alice STREAMS s +",
		"XREADGROUP GROUP g alice STREAMS s abc",
		"XREADGROUP GROUP g alice STREAMS s (1",
		"XREADGROUP GROUP nogroup alice STREAMS s >",
		"XREADGROUP GROUP g alice STREAMS nokey >",
		"XREADGROUP GROUP g alice STREAMS nokey 0",
		"XREADGROUP GROUP g alice STREAMS s nokey > >",
		"XREADGROUP GROUP g alice STREAMS s",
		"XREADGROUP GROUP g STREAMS s >",
		"XREADGROUP GROUP g alice",
		"XREADGROUP STREAMS s >",
		"XREADGROUP COUNT 1 STREAMS s >",
		"XREADGROUP GROUP g alice COUNT x STREAMS s >",
		"XREADGROUP GROUP g alice BLOCK -5 STREAMS s >",
		"XREADGROUP GROUP g alice BLOCK 9223372036854775807 STREAMS s 0",
		"XREADGROUP GROUP g alice FOO STREAMS s >",
		"XREADGROUP GROUP g alice",
		"XREADGROUP",
		"SET str x",
		"XREADGROUP GROUP g alice STREAMS str >",
		"XREADGROUP GROUP g alice STREAMS s str > >",
		// BLOCK with entries there answers at once; BLOCK on nothing new
		// times out to a null; BLOCK with a history ID never blocks.
		"XADD s 8-1 f 8",
		"XREADGROUP GROUP g alice BLOCK 0 STREAMS s >",
		"XREADGROUP GROUP g alice BLOCK 1 STREAMS s >",
		"XREADGROUP GROUP g alice BLOCK 0 COUNT 1 STREAMS s 0",
		"XINFO GROUPS s",
		"XINFO GROUPS t",
		"XPENDING s g",
		"XPENDING t g",
	)
	streamDiffer(t, script)
}

// TestDifferentialStreamLag follows entries-read and lag through the cases
// Redis documents for XINFO GROUPS: XDEL before, at and after the group's
// position, trims, XSETID, and a group created at "$" or in the middle.
func TestDifferentialStreamLag(t *testing.T) {
	var script [][]string
	for i := 1; i <= 6; i++ {
		script = append(script, []string{"XADD", "s", fmt.Sprintf("%d-0", i), "f", "v"})
	}
	info := []string{"XINFO", "GROUPS", "s"}
	script = append(script, sx(
		"XGROUP CREATE s start 0",
		"XGROUP CREATE s top $",
		"XGROUP CREATE s mid 3-0",
		"XGROUP CREATE s mid2 3-0 ENTRIESREAD 3",
	)...)
	script = append(script, info)
	for _, step := range []string{
		"XREADGROUP GROUP start c COUNT 2 STREAMS s >",
		"XDEL s 5-0", // after start's position: lag unknown
		"XREADGROUP GROUP start c COUNT 1 STREAMS s >",
		"XREADGROUP GROUP mid c COUNT 10 STREAMS s >",
		"XADD s 7-0 f v",
		"XDEL s 1-0", // the first entry
		"XREADGROUP GROUP start c STREAMS s >",
		"XDEL s 7-0", // the last entry
		"XADD s 8-0 f v",
		"XTRIM s MAXLEN 2",
		"XREADGROUP GROUP top c STREAMS s >",
		"XGROUP SETID s start 0",
		"XGROUP SETID s mid 6-0",
		"XGROUP SETID s mid2 $",
		"XSETID s 20-0",
		"XGROUP CREATE s after $",
		"XADD s 21-0 f v",
		"XSETID s 21-0 ENTRIESADDED 50",
		"XTRIM s MAXLEN 0",
		"XADD s 22-0 f v",
		"XREADGROUP GROUP start c STREAMS s >",
	} {
		script = append(script, strings.Fields(step), info)
	}
	streamDiffer(t, script)
}

// TestDifferentialStreamPending covers XACK, XPENDING, XCLAIM and XAUTOCLAIM.
// Idle times are masked; min-idle thresholds are either 0 or an hour, so
// which entries qualify does not depend on timing (an entry can only be an
// hour idle through IDLE or TIME given to XCLAIM).
func TestDifferentialStreamPending(t *testing.T) {
	var script [][]string
	for i := 1; i <= 8; i++ {
		script = append(script, []string{"XADD", "s", fmt.Sprintf("%d-1", i), "f", strconv.Itoa(i)})
	}
	script = append(script, sx(
		"XGROUP CREATE s g 0",
		"XPENDING s g", // empty summary
		"XPENDING s g - + 10",
		"XREADGROUP GROUP g alice COUNT 3 STREAMS s >",
		"XREADGROUP GROUP g bob COUNT 3 STREAMS s >",
		"XREADGROUP GROUP g carol COUNT 1 STREAMS s >",
		"XGROUP CREATECONSUMER s g dave",
		// Summary: count, smallest and largest ID, count per consumer
		// (consumers with nothing pending left out).
		"XPENDING s g",
		// Extended form, with consumer filter and COUNT.
		"XPENDING s g - + 10",
		"XPENDING s g - + 2",
		"XPENDING s g - + 0",
		"XPENDING s g - + -1",
		"XPENDING s g 3-1 + 10",
		"XPENDING s g (3-1 + 10",
		"XPENDING s g - (3-1 10",
		"XPENDING s g 2 5 10",
		"XPENDING s g - + 10 bob",
		"XPENDING s g - + 10 dave",
		"XPENDING s g - + 10 nobody",
		// IDLE filters: nothing is an hour idle; everything is 0 ms idle.
		"XPENDING s g IDLE 3600000 - + 10",
		"XPENDING s g IDLE 0 - + 10 alice",
		"XPENDING s g IDLE -1 - + 10",
		// XACK.
		"XACK s g 1-1",
		"XACK s g 1-1",
		"XACK s g 2-1 3-1 99-1",
		"XACK s g 8-1", // delivered to nobody
		"XACK s nogroup 4-1",
		"XACK nokey g 4-1",
		"XACK s g abc",
		"XACK s g 4-1 abc", // bad IDs fail the whole command
		"XACK s g",
		"XPENDING s g",
		"XPENDING s g - + 10",
		// Errors.
		"XPENDING s nogroup",
		"XPENDING nokey g",
		"XPENDING s g - + 10 bob extra",
		"XPENDING s g - +",
		"XPENDING s g - + x",
		"XPENDING s g abc + 10",
		"XPENDING s g - abc 10",
		"XPENDING s g IDLE x - + 10",
		"XPENDING s g IDLE 10",
		"XPENDING s g IDLE",
		"XPENDING s g - + 10 IDLE 10",
		"XPENDING s nogroup - + 10",
		"XPENDING s",
		"SET str x",
		"XPENDING str g",
		"XACK str g 1-1",
		// XCLAIM: min-idle 0 claims at once, an hour claims nothing.
		"XCLAIM s g alice 3600000 4-1 5-1",
		"XCLAIM s g alice 0 4-1 5-1",
		"XPENDING s g",
		"XPENDING s g - + 10",
		"XCLAIM s g bob 0 4-1 JUSTID", // no delivery count added
		"XPENDING s g - + 10 bob",
		"XCLAIM s g bob 0 5-1 RETRYCOUNT 9",
		"XPENDING s g - + 10 bob",
		// IDLE and TIME set the delivery time: an hour-idle entry now
		// passes the hour thresholds.
		"XCLAIM s g carol 0 4-1 IDLE 7200000 JUSTID",
		"XPENDING s g IDLE 3600000 - + 10",
		"XCLAIM s g carol 0 5-1 TIME 1000 JUSTID",
		"XPENDING s g IDLE 3600000 - + 10",
		"XCLAIM s g dave 3600000 4-1 5-1 6-1 JUSTID",
		"XPENDING s g",
		// FORCE creates the pending entry for an entry nobody was given;
		// without FORCE such IDs are left out; IDs not in the stream never.
		"XCLAIM s g erin 0 8-1",
		"XCLAIM s g erin 0 8-1 FORCE",
		"XPENDING s g - + 10 erin", // a new pending entry, then a delivery: 2
		"XACK s g 8-1",
		"XCLAIM s g erin 0 8-1 FORCE JUSTID", // JUSTID adds no delivery: 1
		"XPENDING s g - + 10 erin",
		"XCLAIM s g erin 0 99-1 FORCE",
		"XCLAIM s g erin 0 8-1 FORCE JUSTID RETRYCOUNT 3",
		"XPENDING s g - + 10 erin",
		// A deleted entry is dropped from the PEL by XCLAIM.
		"XDEL s 7-1",
		"XPENDING s g",
		"XCLAIM s g erin 0 7-1",
		"XPENDING s g",
		"XCLAIM s g erin 0 7-1 FORCE",
		// LASTID moves the group's last-delivered-id forward only.
		"XINFO GROUPS s",
		"XCLAIM s g erin 0 6-1 LASTID 9-5 JUSTID",
		"XINFO GROUPS s",
		"XCLAIM s g erin 0 6-1 LASTID 1-1 JUSTID",
		"XINFO GROUPS s",
		// Options in any order, lower case, repeated.
		"XCLAIM s g erin 0 6-1 justid idle 10 retrycount 2 force",
		"XCLAIM s g erin 0 6-1 JUSTID IDLE 1 IDLE 2",
		"XPENDING s g - + 10 erin",
		// Errors.
		"XCLAIM s g erin x 6-1",
		"XCLAIM s g erin -1 6-1",
		"XCLAIM s g erin 0 abc",
		"XCLAIM s g erin 0 6-1 abc",
		"XCLAIM s g erin 0 6-1 IDLE x",
		"XCLAIM s g erin 0 6-1 IDLE",
		"XCLAIM s g erin 0 6-1 TIME x",
		"XCLAIM s g erin 0 6-1 RETRYCOUNT x",
		"XCLAIM s g erin 0 6-1 RETRYCOUNT -1",
		"XCLAIM s g erin 0 6-1 LASTID abc",
		"XCLAIM s g erin 0 6-1 FOO",
		"XCLAIM s g erin 0 6-1 IDLE -5 JUSTID",
		"XCLAIM s nogroup erin 0 6-1",
		"XCLAIM nokey g erin 0 6-1",
		"XCLAIM str g erin 0 6-1",
		"XCLAIM s g erin 0",
		// An entry deleted while pending can still be acknowledged.
		"XDEL s 4-1",
		"XACK s g 4-1",
		"XPENDING s g",
		"XPENDING s g - + 10",
		"XINFO GROUPS s",
	)...)
	streamDiffer(t, script)
}

func TestDifferentialStreamXAutoClaim(t *testing.T) {
	var script [][]string
	for i := 1; i <= 12; i++ {
		script = append(script, []string{"XADD", "s", fmt.Sprintf("%d-0", i), "f", strconv.Itoa(i)})
	}
	script = append(script, sx(
		"XGROUP CREATE s g 0",
		"XREADGROUP GROUP g alice COUNT 10 STREAMS s >",
		// Deleted entries come back in the third list and leave the PEL.
		"XDEL s 3-0 4-0 9-0",
		// A scan in steps of COUNT: the cursor is the next ID to look at,
		// 0-0 at the end.
		"XAUTOCLAIM s g bob 0 0 COUNT 2",
		"XAUTOCLAIM s g bob 0 2-0 COUNT 2",
		"XAUTOCLAIM s g bob 0 (4-0 COUNT 3 JUSTID",
		"XAUTOCLAIM s g bob 0 8-0 COUNT 100",
		"XAUTOCLAIM s g bob 0 0-0 JUSTID", // default COUNT 100
		"XPENDING s g",
		"XPENDING s g - + 20",
		// An hour of min-idle: nothing qualifies but what XCLAIM made old.
		"XAUTOCLAIM s g carol 3600000 0",
		"XCLAIM s g bob 0 5-0 6-0 IDLE 7200000 JUSTID",
		"XAUTOCLAIM s g carol 3600000 0 COUNT 1",
		"XAUTOCLAIM s g carol 3600000 0",
		"XPENDING s g",
		// Options and errors.
		"XAUTOCLAIM s g carol 0 0 count 1 justid",
		"XAUTOCLAIM s g carol 0 0 COUNT 0",
		"XAUTOCLAIM s g carol 0 0 COUNT -1",
		"XAUTOCLAIM s g carol 0 0 COUNT x",
		// Redis refuses a COUNT above LONG_MAX/16 (below that, a huge COUNT
		// fails or not on the memory it can reserve: left out).
		"XAUTOCLAIM s g carol 0 0 COUNT 576460752303423488",
		"XAUTOCLAIM s g carol 0 0 COUNT 9223372036854775807",
		"XAUTOCLAIM s g carol 0 0 COUNT 1000 JUSTID",
		"XAUTOCLAIM s g carol 0 0 COUNT",
		"XAUTOCLAIM s g carol 0 0 FOO",
		"XAUTOCLAIM s g carol 0 0 JUSTID JUSTID",
		"XAUTOCLAIM s g carol x 0",
		"XAUTOCLAIM s g carol -1 0",
		"XAUTOCLAIM s g carol 0 abc",
		"XAUTOCLAIM s g carol 0 -",
		"XAUTOCLAIM s g carol 0 +",
		"XAUTOCLAIM s g carol 0 (18446744073709551615-18446744073709551615",
		"XAUTOCLAIM s nogroup carol 0 0",
		"XAUTOCLAIM nokey g carol 0 0",
		"SET str x",
		"XAUTOCLAIM str g carol 0 0",
		"XAUTOCLAIM s g carol 0",
		"XAUTOCLAIM s g carol 18446744073709551615 0",
		"XPENDING s g",
		"XINFO GROUPS s",
	)...)
	// Deleted entries found by the scan count against COUNT: with 25
	// deleted pending entries, COUNT 1 reports one of them per call.
	for i := 1; i <= 30; i++ {
		script = append(script, []string{"XADD", "d", fmt.Sprintf("%d-0", i), "f", strconv.Itoa(i)})
	}
	script = append(script, []string{"XGROUP", "CREATE", "d", "g", "0"}, []string{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "d", ">"})
	for i := 1; i <= 25; i++ {
		script = append(script, []string{"XDEL", "d", fmt.Sprintf("%d-0", i)})
	}
	script = append(script, sx(
		"XAUTOCLAIM d g c2 0 0 COUNT 1",
		"XAUTOCLAIM d g c2 0 10-0 COUNT 1",
		"XAUTOCLAIM d g c2 0 20-0 COUNT 1",
		"XAUTOCLAIM d g c2 0 0 COUNT 1",
		"XPENDING d g",
	)...)
	streamDiffer(t, script)
}

// TestDifferentialStreamXInfo covers XINFO STREAM (plain and FULL), GROUPS
// and CONSUMERS. The radix-tree counts in XINFO STREAM describe Redis's
// storage; for streams under 100 small entries they are 1 key and 2 nodes
// (0 and 1 when empty).
func TestDifferentialStreamXInfo(t *testing.T) {
	script := sx(
		"XADD s 1-1 a 1 b 2",
		"XADD s 2-1 c 3",
		"XINFO STREAM s",
		"XINFO STREAM s FULL",
		"XGROUP CREATE s g 0",
		"XGROUP CREATE s g2 $",
		"XINFO STREAM s",
		"XINFO STREAM s FULL",
		"XINFO STREAM s FULL COUNT 1",
		"XINFO STREAM s FULL COUNT 0", // 0: everything
		"XINFO STREAM s FULL COUNT -1",
		"XINFO STREAM s full count 1",
		"XINFO STREAM s FULL COUNT x",
		"XINFO STREAM s FULL COUNT",
		"XINFO STREAM s FOO",
		"XINFO STREAM s COUNT 1",
		"XINFO STREAM s FULL FOO 1",
		// Consumers and pending entries (times masked).
		"XREADGROUP GROUP g alice COUNT 1 STREAMS s >",
		"XGROUP CREATECONSUMER s g bob",
		"XINFO CONSUMERS s g",
		"XINFO CONSUMERS s g2",
		"XINFO STREAM s FULL",
		"XINFO STREAM s FULL COUNT 1",
		// Deletions: max-deleted-entry-id, first and last entry.
		"XDEL s 2-1",
		"XINFO STREAM s",
		"XADD s 3-1 d 4",
		"XDEL s 1-1",
		"XINFO STREAM s",
		"XINFO GROUPS s",
		"XINFO STREAM s FULL",
		// An empty stream.
		"XTRIM s MAXLEN 0",
		"XINFO STREAM s",
		"XINFO STREAM s FULL",
		"XADD e MAXLEN 0 5-5 f v",
		"XINFO STREAM e",
		"XINFO STREAM e FULL",
		"XGROUP CREATE fresh g $ MKSTREAM",
		"XINFO STREAM fresh",
		"XINFO STREAM fresh FULL",
		"XINFO GROUPS fresh",
		"XINFO CONSUMERS fresh g",
		// Errors.
		"XINFO STREAM nokey",
		"XINFO STREAM nokey FULL",
		"XINFO GROUPS nokey",
		"XINFO CONSUMERS nokey g",
		"XINFO CONSUMERS s nogroup",
		"SET str x",
		"XINFO STREAM str",
		"XINFO GROUPS str",
		"XINFO CONSUMERS str g",
		"XINFO STREAM",
		"XINFO GROUPS",
		"XINFO GROUPS s extra",
		"XINFO CONSUMERS s",
		"XINFO CONSUMERS s g extra",
		"XINFO HELP",
		"XINFO help",
		"XINFO HELP extra",
		"XINFO FOO",
		"XINFO FOO s",
		"XINFO",
	)
	// Entries that repeat the master entry's fields, and more than FULL's
	// default COUNT of 10.
	for i := 1; i <= 14; i++ {
		script = append(script, []string{"XADD", "many", fmt.Sprintf("%d-0", i), "a", strconv.Itoa(i), "b", "x"})
	}
	script = append(script, sx(
		"XGROUP CREATE many g 0",
		"XREADGROUP GROUP g c1 COUNT 12 STREAMS many >",
		"XINFO STREAM many",
		"XINFO STREAM many FULL",
		"XINFO STREAM many FULL COUNT 3",
		"XINFO STREAM many FULL COUNT 0",
		"XINFO CONSUMERS many g",
	)...)
	streamDiffer(t, script)
}

func TestDifferentialStreamXSetID(t *testing.T) {
	script := sx(
		"XADD s 1-1 f v",
		"XADD s 2-1 f v",
		"XSETID s 5-0",
		"XINFO STREAM s",
		"XADD s 5-0 f v", // not greater than the new last ID
		"XADD s 5-* f v",
		"XSETID s 5-1", // equal: fine
		"XSETID s 5-0", // below the top entry
		"XSETID s 4",
		"XSETID s 10 ENTRIESADDED 3 MAXDELETEDID 2-0",
		"XINFO STREAM s",
		"XSETID s 10 ENTRIESADDED 100 MAXDELETEDID 10-0",
		"XINFO STREAM s",
		// Errors.
		"XSETID s 11 ENTRIESADDED 2",  // below the length
		"XSETID s 11 ENTRIESADDED -1", // negative
		"XSETID s 11 ENTRIESADDED x",  // not a number
		"XSETID s 11 MAXDELETEDID 12", // above the last ID
		"XSETID s 11 ENTRIESADDED 100 MAXDELETEDID 12",
		"XSETID s 11 MAXDELETEDID abc",
		"XSETID s abc",
		"XSETID s *",
		"XSETID s 11-*",
		"XSETID s 11 FOO",
		"XSETID s 11 ENTRIESADDED",
		"XSETID s",
		"XSETID nokey 1-1",
		"SET str x",
		"XSETID str 1-1",
		"XINFO STREAM s",
		// An empty stream may go back, even to 0-0, but never below its
		// max-deleted-entry-id.
		"XTRIM s MAXLEN 0",
		"XSETID s 3-0",
		"XSETID s 0-0",
		"XINFO STREAM s",
		"XADD e MAXLEN 0 7-0 f v",
		"XSETID e 0-0",
		"XINFO STREAM e",
		"XADD e 0-1 f v",
		"XSETID e 1-0 ENTRIESADDED 0",
		"XSETID e 1-0 ENTRIESADDED 1",
		"XSETID e 1-0 ENTRIESADDED 5 MAXDELETEDID 0-0",
		"XINFO STREAM e",
	)
	streamDiffer(t, script)
}

// TestDifferentialStreamKeyspace covers streams under the generic key
// commands and transactions.
func TestDifferentialStreamKeyspace(t *testing.T) {
	script := sx(
		"XADD s 1-1 f v",
		"XADD s 2-1 g w",
		"XGROUP CREATE s g 0",
		"XREADGROUP GROUP g alice COUNT 1 STREAMS s >",
		"TYPE s",
		"OBJECT ENCODING s",
		"EXISTS s",
		"SCAN 0 TYPE stream",
		"KEYS *",
		// COPY keeps groups, consumers and pending entries, independent of
		// the original.
		"COPY s c",
		"XRANGE c - +",
		"XINFO GROUPS c",
		"XPENDING c g",
		"XREADGROUP GROUP g bob STREAMS c >",
		"XINFO GROUPS c",
		"XINFO GROUPS s",
		"XADD c 3-1 h x",
		"XLEN s",
		"XLEN c",
		"XINFO STREAM c",
		"XINFO STREAM s",
		"COPY s c",
		"COPY s c REPLACE",
		"XLEN c",
		// RENAME moves it all.
		"RENAME c r",
		"EXISTS c",
		"XRANGE r - +",
		"XINFO GROUPS r",
		"XPENDING r g",
		"RENAMENX r s",
		// DEL, UNLINK, and a new stream under the same name.
		"DEL r",
		"EXISTS r",
		"XADD r 1-1 f v",
		"XINFO GROUPS r",
		"UNLINK r",
		// Other types' commands on a stream.
		"GET s",
		"LPUSH s x",
		"HGET s f",
		"SADD s x",
		"ZADD s 1 x",
		"APPEND s x",
		// Expiry.
		"EXPIRE s 100",
		"TTL s",
		"PERSIST s",
		"TTL s",
		// Another database.
		"MOVE s 1",
		"SELECT 1",
		"XINFO GROUPS s",
		"XPENDING s g",
		"COPY s c DB 2",
		"MOVE s 0",
		"SELECT 2",
		"XRANGE c - +",
		"XINFO GROUPS c",
		"SELECT 0",
		// Transactions.
		"MULTI",
		"XADD m 1-1 f v",
		"XADD m 1-1 f v", // fails at EXEC only
		"XADD m 2-1 f v",
		"XLEN m",
		"XRANGE m - +",
		"EXEC",
		"MULTI",
		"XADD m *", // wrong arity: the transaction is discarded
		"XADD m 3-1 f v",
		"EXEC",
		"XLEN m",
		"MULTI",
		"XGROUP CREATE m g 0",
		"XREADGROUP GROUP g c STREAMS m >",
		"XACK m g 1-1",
		"XPENDING m g",
		"XREAD BLOCK 0 STREAMS m $", // no blocking in a transaction
		"XREADGROUP GROUP g c BLOCK 0 STREAMS m >",
		"EXEC",
	)
	// Scripts: stream replies through Lua's conversions (a deleted entry's
	// null becomes false), and BLOCK does not block.
	for _, body := range []string{
		"return redis.call('XADD', KEYS[1], '9-1', 'a', 'b')",
		"return redis.call('XRANGE', KEYS[1], '-', '+')",
		"return redis.call('XREAD', 'STREAMS', KEYS[1], '0')",
		"return redis.call('XREAD', 'BLOCK', '0', 'STREAMS', KEYS[1], '$')",
		"return redis.call('XREADGROUP', 'GROUP', 'g', 'lua', 'COUNT', '1', 'STREAMS', KEYS[1], '>')",
		"redis.call('XDEL', KEYS[1], '2-1'); return redis.call('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', KEYS[1], '0')",
		"return redis.call('XREADGROUP', 'GROUP', 'g', 'lua', 'BLOCK', '0', 'STREAMS', KEYS[1], '>')",
		"return redis.call('XPENDING', KEYS[1], 'g')",
		"return redis.call('XINFO', 'GROUPS', KEYS[1])",
		"return redis.call('XINFO', 'STREAM', KEYS[1])",
		"return redis.call('XAUTOCLAIM', KEYS[1], 'g', 'lua', '0', '0')",
		"return redis.pcall('XADD', KEYS[1], '1-1', 'f', 'v')",
		"return redis.call('XLEN', KEYS[1])",
	} {
		script = append(script, []string{"EVAL", body, "1", "m"})
	}
	script = append(script, sx(
		// The keys of stream commands, for ACLs and clients that route.
		"COMMAND GETKEYS XREAD COUNT 1 STREAMS a b 0 0",
		"COMMAND GETKEYS XREAD BLOCK 0 STREAMS a b c $ $ $",
		"COMMAND GETKEYS XREADGROUP GROUP g c NOACK STREAMS a b > >",
		"COMMAND GETKEYS XREADGROUP GROUP g streams STREAMS a >",
		"COMMAND GETKEYS XREAD STREAMS a",
		"COMMAND GETKEYS XADD s * f v",
		"COMMAND GETKEYS XGROUP CREATE s g $",
		"COMMAND GETKEYS XINFO STREAM s FULL",
		"COMMAND GETKEYS XINFO HELP",
		"COMMAND GETKEYS XAUTOCLAIM s g c 0 0",
		"FLUSHALL",
		"XLEN s",
		"EXISTS s m",
	)...)
	streamDiffer(t, script)
}

// TestDifferentialStreamRandom runs random XADD (explicit increasing IDs,
// sometimes trimming), XDEL of present and absent IDs, exact XTRIMs and
// reads with random bounds against both servers. The streams grow to a few
// hundred entries, past Redis's 100-entry nodes, so deletes, trims and
// ranges cut across node borders; the final XINFO STREAM is compared without
// its radix-tree counts, which describe Redis's node layout.
func TestDifferentialStreamRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 23))
	type stream struct {
		ms, seq int
		ids     []string // every ID added, deleted or not
	}
	streams := map[string]*stream{"x0": {}, "x1": {}}
	// id is an ID near the stream's range: mostly one that was added, else
	// any ms up to a little past the last, with or without a sequence.
	id := func(s *stream) string {
		if len(s.ids) > 0 && r.IntN(3) > 0 {
			return s.ids[r.IntN(len(s.ids))]
		}
		ms := r.IntN(s.ms + 5)
		if r.IntN(3) == 0 {
			return strconv.Itoa(ms)
		}
		return fmt.Sprintf("%d-%d", ms, r.IntN(4))
	}
	// early is an ID in the oldest quarter, for MINID trims that remove a
	// little.
	early := func(s *stream) string {
		if len(s.ids) == 0 {
			return "0"
		}
		return s.ids[r.IntN(len(s.ids)/4+1)]
	}
	bound := func(s *stream, open string) string {
		switch r.IntN(8) {
		case 0:
			return open
		case 1:
			return "(" + id(s)
		}
		return id(s)
	}
	count := func(c []string) []string {
		if r.IntN(2) == 0 {
			c = append(c, "COUNT", strconv.Itoa(r.IntN(40)))
		}
		return c
	}
	var script [][]string
	for range 1500 {
		k := "x" + strconv.Itoa(r.IntN(2))
		s := streams[k]
		switch n := r.IntN(40); {
		case n < 20:
			// Next ID: a later ms or the same ms with the next sequence,
			// written in each of the ways XADD accepts.
			var arg string
			if s.ms == 0 || r.IntN(3) == 0 {
				s.ms += 1 + r.IntN(3)
				s.seq = 0
				arg = strconv.Itoa(s.ms)
				if r.IntN(2) == 0 {
					arg += "-*"
				}
			} else {
				s.seq++
				arg = fmt.Sprintf("%d-%d", s.ms, s.seq)
				if r.IntN(2) == 0 {
					arg = fmt.Sprintf("%d-*", s.ms)
				}
			}
			s.ids = append(s.ids, fmt.Sprintf("%d-%d", s.ms, s.seq))
			c := []string{"XADD", k}
			switch r.IntN(20) {
			case 0:
				c = append(c, "MAXLEN", "=", strconv.Itoa(150+r.IntN(300)))
			case 1:
				c = append(c, "MINID", early(s))
			}
			c = append(c, arg)
			for f := r.IntN(3); f >= 0; f-- {
				c = append(c, "f"+strconv.Itoa(r.IntN(4)), strconv.Itoa(r.IntN(1000)))
			}
			script = append(script, c)
		case n < 25:
			c := []string{"XDEL", k}
			for d := 1 + r.IntN(3); d > 0; d-- {
				c = append(c, id(s))
			}
			script = append(script, c)
		case n == 25:
			if r.IntN(2) == 0 {
				script = append(script, []string{"XTRIM", k, "MAXLEN", "=", strconv.Itoa(100 + r.IntN(300))})
			} else {
				script = append(script, []string{"XTRIM", k, "MINID", "=", early(s)})
			}
		case n < 31:
			script = append(script, count([]string{"XRANGE", k, bound(s, "-"), bound(s, "+")}))
		case n < 36:
			script = append(script, count([]string{"XREVRANGE", k, bound(s, "+"), bound(s, "-")}))
		case n < 38:
			script = append(script, []string{"XREAD", "COUNT", strconv.Itoa(1 + r.IntN(10)), "STREAMS", "x0", "x1",
				id(streams["x0"]), id(streams["x1"])})
		default:
			script = append(script, []string{"XLEN", k})
		}
	}
	for _, k := range []string{"x0", "x1"} {
		script = append(script, []string{"XRANGE", k, "-", "+"}, []string{"XLEN", k}, []string{"XINFO", "STREAM", k})
	}
	streamCompare(t, script, true)
}

// TestDifferentialStreamNotifications compares the keyspace events stream
// commands publish (class t, with the generic ones), per command, including
// the commands that must publish nothing.
func TestDifferentialStreamNotifications(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	hot, red := harness.NewEventRecorder(t, harness.Start(t), "KEAn"), harness.NewEventRecorder(t, harness.StartRedis(t), "KEAn")
	for i, c := range sx(
		"XADD s 1-1 f v",
		"XADD s 1-1 f v", // an error: nothing
		"XADD s MAXLEN 1 2-1 f v",
		"XADD s MAXLEN 5 3-1 f v", // nothing trimmed
		"XADD nokey NOMKSTREAM * f v",
		"XDEL s 2-1",
		"XDEL s 99-1",
		"XTRIM s MAXLEN 5",
		"XTRIM s MINID 4",
		"XTRIM s MINID 4",
		"XADD s 5-1 f v",
		"XGROUP CREATE s g 0",
		"XGROUP CREATE s g 0",
		"XGROUP CREATE mk g $ MKSTREAM",
		"XGROUP CREATECONSUMER s g c",
		"XGROUP CREATECONSUMER s g c",
		"XREADGROUP GROUP g alice STREAMS s >",
		"XREADGROUP GROUP g alice STREAMS s >",
		"XREADGROUP GROUP g newbie STREAMS s >",
		"XREADGROUP GROUP g alice STREAMS s 0",
		"XGROUP SETID s g 0",
		"XCLAIM s g bob 0 5-1",
		"XCLAIM s g bob 0 5-1",
		"XAUTOCLAIM s g carol 0 0",
		"XAUTOCLAIM s g dave 3600000 0",
		"XACK s g 5-1",
		"XPENDING s g",
		"XGROUP DELCONSUMER s g c",
		"XGROUP DELCONSUMER s g nobody",
		"XGROUP DESTROY s g",
		"XGROUP DESTROY s g",
		"XSETID s 10-0",
		"XSETID s 10-0 ENTRIESADDED 100",
		"XREAD STREAMS s 0",
		"XRANGE s - +",
		"XINFO STREAM s",
		"XLEN s",
		"COPY s s2",
		"RENAME s2 s3",
		"EXPIRE s3 100",
		"XTRIM s MAXLEN 0",
		"DEL s s3 mk",
		"MULTI", "XADD m 1-1 f v", "XADD m MAXLEN 0 2-1 f v", "XGROUP CREATE m g $", "EXEC",
	) {
		_, got := hot.Run(c...)
		_, want := red.Run(c...)
		if os.Getenv("NOTIFY_TRACE") != "" {
			t.Logf("%d %q:\n  hotkv %q\n  redis %q", i, c, got, want)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d %q:\nhotkv: %q\nredis: %q", i, c, got, want)
		}
	}
}

// TestDifferentialStreamGroupsRandom runs random consumer-group traffic on
// one stream: XREADGROUP (new entries, NOACK, history), XACK, XCLAIM and
// XAUTOCLAIM with their options, consumers created and deleted, group IDs
// moved, entries deleted and trimmed under pending entries, and reads of
// the state (XPENDING with idle times masked, XINFO GROUPS, XINFO
// CONSUMERS). Every min-idle-time is 0, so which entries qualify never
// depends on timing.
func TestDifferentialStreamGroupsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 29))
	var ids []string // every ID added
	ms, seq := 1, -1
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	id := func() string {
		if len(ids) > 0 && r.IntN(4) > 0 {
			return ids[r.IntN(len(ids))]
		}
		return fmt.Sprintf("%d-%d", r.IntN(ms+3), r.IntN(3))
	}
	group := func() string { return pick("g1", "g2", "g3") }
	consumer := func() string { return pick("alice", "bob", "carol", "dave") }
	script := sx("XGROUP CREATE s g1 $ MKSTREAM", "XGROUP CREATE s g2 0", "XGROUP CREATE s g3 0")
	for range 1500 {
		switch n := r.IntN(60); {
		case n < 18:
			if r.IntN(2) == 0 {
				ms, seq = ms+1, -1
			}
			seq++
			ids = append(ids, fmt.Sprintf("%d-%d", ms, seq))
			c := []string{"XADD", "s"}
			if r.IntN(15) == 0 {
				c = append(c, "MAXLEN", "=", strconv.Itoa(60+r.IntN(120)))
			}
			c = append(c, fmt.Sprintf("%d-*", ms), "f", strconv.Itoa(r.IntN(100)))
			script = append(script, c)
		case n < 26:
			c := []string{"XREADGROUP", "GROUP", group(), consumer(), "COUNT", strconv.Itoa(1 + r.IntN(8))}
			if r.IntN(5) == 0 {
				c = append(c, "NOACK")
			}
			script = append(script, append(c, "STREAMS", "s", ">"))
		case n < 29:
			script = append(script, []string{"XREADGROUP", "GROUP", group(), consumer(), "COUNT", strconv.Itoa(r.IntN(10)),
				"STREAMS", "s", pick("0", id())})
		case n < 34:
			c := []string{"XACK", "s", group()}
			for k := 1 + r.IntN(4); k > 0; k-- {
				c = append(c, id())
			}
			script = append(script, c)
		case n < 38:
			c := []string{"XCLAIM", "s", group(), consumer(), "0"}
			for k := 1 + r.IntN(3); k > 0; k-- {
				c = append(c, id())
			}
			for _, o := range [][]string{{"JUSTID"}, {"FORCE"}, {"RETRYCOUNT", strconv.Itoa(r.IntN(5))}, {"LASTID", id()}} {
				if r.IntN(4) == 0 {
					c = append(c, o...)
				}
			}
			script = append(script, c)
		case n < 41:
			c := []string{"XAUTOCLAIM", "s", group(), consumer(), "0", pick("0", "-", id(), "("+id()), "COUNT", strconv.Itoa(1 + r.IntN(6))}
			if r.IntN(3) == 0 {
				c = append(c, "JUSTID")
			}
			script = append(script, c)
		case n < 44:
			script = append(script, []string{"XDEL", "s", id(), id()})
		case n == 44:
			if r.IntN(2) == 0 {
				script = append(script, []string{"XTRIM", "s", "MAXLEN", "=", strconv.Itoa(40 + r.IntN(100))})
			} else if len(ids) > 0 {
				script = append(script, []string{"XTRIM", "s", "MINID", "=", ids[r.IntN(len(ids)/3+1)]})
			}
		case n == 45:
			c := []string{"XGROUP", "SETID", "s", group(), pick("0", "$", id())}
			if r.IntN(3) == 0 {
				c = append(c, "ENTRIESREAD", strconv.Itoa(r.IntN(len(ids)+2)-1))
			}
			script = append(script, c)
		case n == 46:
			script = append(script, []string{"XGROUP", pick("CREATECONSUMER", "DELCONSUMER"), "s", group(), consumer()})
		case n < 50:
			script = append(script, []string{"XPENDING", "s", group()})
		case n < 53:
			c := []string{"XPENDING", "s", group(), pick("-", id(), "("+id()), pick("+", id()), strconv.Itoa(r.IntN(12))}
			if r.IntN(3) == 0 {
				c = append(c, consumer())
			}
			script = append(script, c)
		case n < 56:
			script = append(script, []string{"XINFO", "GROUPS", "s"})
		case n < 58:
			script = append(script, []string{"XINFO", "CONSUMERS", "s", group()})
		default:
			script = append(script, []string{"XLEN", "s"}, []string{"XINFO", "STREAM", "s"})
		}
	}
	for _, g := range []string{"g1", "g2", "g3"} {
		script = append(script, []string{"XPENDING", "s", g}, []string{"XPENDING", "s", g, "-", "+", "1000"},
			[]string{"XINFO", "CONSUMERS", "s", g})
	}
	script = append(script, []string{"XINFO", "GROUPS", "s"}, []string{"XINFO", "STREAM", "s", "FULL", "COUNT", "0"},
		[]string{"XRANGE", "s", "-", "+"})
	streamCompare(t, script, true)
}

// TestDifferentialStreamReview holds cases a review found: COUNT 0 still
// looks the key up first, a negative FULL COUNT keeps the default of 10, and
// an approximate MINID trim judges a node by its last ID even when that
// entry was deleted.
func TestDifferentialStreamReview(t *testing.T) {
	script := sx(
		"SET str x",
		"XRANGE str - + COUNT 0",
		"XREVRANGE nokey + - COUNT -5",
		"XRANGE nokey - + COUNT 0",
		"XADD t 5-0 f 1",
		"XADD t 18446744073709551615 f 2",
		"XDEL t 18446744073709551615",
		"XTRIM t MINID ~ 8",
		"XLEN t",
		"XADD m 1-1 f v",
		"XADD m 2-1 f v",
		"XDEL m 2-1",
		"XTRIM m MINID = 8",
		"XLEN m",
		"XADD m 9-1 f v",
		"XRANGE m - +",
	)
	for i := 1; i <= 13; i++ {
		script = append(script, []string{"XADD", "f", fmt.Sprintf("%d-1", i), "k", "v"})
	}
	script = append(script, sx("XINFO STREAM f FULL COUNT -1", "XINFO STREAM f FULL COUNT 0", "XRANGE f - + COUNT -1")...)
	streamDiffer(t, script)
}

// TestDifferentialStreamOptionsToTheEnd holds what the random differential
// test found in argument handling: an XADD whose options run to the end
// (no ID, no fields) is an arity error, after the option errors Redis
// checks first; XINFO STREAM looks its key up before it reads FULL and
// COUNT.
func TestDifferentialStreamOptionsToTheEnd(t *testing.T) {
	streamDiffer(t, sx(
		"SET str v",
		"XADD s 1-1 f v",
		"XADD s MINID 7-1 NOMKSTREAM",
		"XADD s MAXLEN 5",
		"XADD s NOMKSTREAM",
		"XADD s MAXLEN ~ 5 LIMIT 2",
		"XADD s LIMIT 2 MAXLEN 5",
		"XADD s MAXLEN 5 MINID 1",
		"XADD nokey NOMKSTREAM MAXLEN = 1",
		"XADD str MAXLEN 1",
		"XLEN s",
		"XINFO STREAM nokey FULL COUNT x",
		"XINFO STREAM nokey BOGUS",
		"XINFO STREAM str FULL COUNT x",
		"XINFO STREAM str FULL x y",
		"XINFO STREAM s FULL COUNT x",
		"XINFO STREAM s FULL COUNT",
		"XINFO STREAM s BOGUS",
	))
}

// TestDifferentialStreamEmptiedNode: an exact MINID trim that deletes the
// last live entries of a node ending in an XDELed entry keeps the node, as
// Redis does. The next entries join it, which decides what a later "~"
// trim removes whole; another trim removes it.
func TestDifferentialStreamEmptiedNode(t *testing.T) {
	script := sx("CONFIG SET stream-node-max-entries 5",
		"XADD s 1-0 f v", "XADD s 2-0 f v", "XADD s 3-0 f v",
		"XDEL s 3-0",
		"XTRIM s MINID = 3",
		"XINFO STREAM s",
		"XRANGE s - +", "XREVRANGE s + -", "XDEL s 1-0",
		"XADD s 4-0 f v", "XADD s 5-0 f v", "XADD s 6-0 f v", "XADD s 7-0 f v", "XADD s 8-0 f v", "XADD s 9-0 f v",
		"XINFO STREAM s",
		"XTRIM s MAXLEN ~ 4",
		"XRANGE s - +",
		"XINFO STREAM s",
		"XADD e 1-0 f v", "XADD e 2-0 f v", "XDEL e 2-0",
		"XTRIM e MINID = 2",
		"XINFO STREAM e",
		"XTRIM e MAXLEN = 0",
		"XINFO STREAM e",
		"XADD e 3-0 f v", "XDEL e 3-0", "XTRIM e MINID 4",
		"XINFO STREAM e",
		"CONFIG SET stream-node-max-entries 100",
	)
	streamDiffer(t, script)
}

// TestDifferentialStreamGroupOptionAfterEntriesRead: a bad option after a
// good ENTRIESREAD is one syntax error, and nothing is created or set
// (HotKV went on after the error and answered twice).
func TestDifferentialStreamGroupOptionAfterEntriesRead(t *testing.T) {
	streamDiffer(t, sx(
		"XGROUP CREATE s g $ MKSTREAM ENTRIESREAD 0 BOGUS",
		"EXISTS s",
		"XGROUP CREATE s g $ MKSTREAM",
		"XGROUP SETID s g 0 ENTRIESREAD 3 BOGUS",
		"XGROUP CREATE s g2 0 ENTRIESREAD 1 ENTRIESREAD x",
		"XINFO GROUPS s",
	))
}
