package commands

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Exact-reply helpers: list replies are compared byte for byte, because the
// difference between a null bulk ($-1) and a null array (*-1) is part of
// Redis's contract and the generic reader maps both to nil.

func arr(items ...string) string {
	return fmt.Sprintf("*%d\r\n", len(items)) + strings.Join(items, "")
}
func bulks(ss ...string) string {
	items := make([]string, len(ss))
	for i, s := range ss {
		items[i] = harness.Bulk(s)
	}
	return arr(items...)
}

const (
	okReply   = "+OK\r\n"
	nullBulk  = "$-1\r\n"
	nullArray = "*-1\r\n"
	wrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	notInt    = "-ERR value is not an integer or out of range\r\n"
)

// toRESP3 turns an expected RESP2 reply into its RESP3 form: list replies
// differ only in their nulls.
func toRESP3(s string) string {
	return strings.NewReplacer(nullBulk, "_\r\n", nullArray, "_\r\n").Replace(s)
}

type exchange struct {
	cmd  string // space separated; no argument contains a space
	want string // RESP2 reply; RESP3 replaces the nulls
}

func runTable(t *testing.T, table []exchange) {
	t.Helper()
	for name, addr := range harness.Targets(t) {
		for _, proto := range []int{2, 3} {
			r := harness.DialRaw(t, addr, proto)
			r.Exact("FLUSHALL")
			for _, ex := range table {
				want := ex.want
				if proto == 3 {
					want = toRESP3(want)
				}
				if got := r.Exact(strings.Fields(ex.cmd)...); got != want {
					t.Errorf("%s RESP%d: %s\n got %q\nwant %q", name, proto, ex.cmd, got, want)
				}
			}
		}
	}
}

func TestListPushPop(t *testing.T) {
	runTable(t, []exchange{
		{"RPUSH l a b c", harness.Integer(3)},
		{"LPUSH l z y", harness.Integer(5)},
		{"LRANGE l 0 -1", bulks("y", "z", "a", "b", "c")},
		{"LPUSH l", harness.ErrReply("ERR wrong number of arguments for 'lpush' command")},
		{"LPUSHX nokey a b", harness.Integer(0)},
		{"RPUSHX nokey a", harness.Integer(0)},
		{"EXISTS nokey", harness.Integer(0)},
		{"LPUSHX l x", harness.Integer(6)},
		{"RPUSHX l w v", harness.Integer(8)},
		{"LRANGE l 0 -1", bulks("x", "y", "z", "a", "b", "c", "w", "v")},
		{"SET s v", okReply},
		{"LPUSH s a", wrongType},
		{"RPUSH s a", wrongType},
		{"LPUSHX s a", wrongType},
		{"RPUSHX s a", wrongType},
		{"LPOP l", harness.Bulk("x")},
		{"RPOP l", harness.Bulk("v")},
		{"LPOP l 2", bulks("y", "z")},
		{"RPOP l 2", bulks("w", "c")},
		{"LPOP l 0", arr()},
		{"LPOP l 10", bulks("a", "b")},
		{"EXISTS l", harness.Integer(0)},
		{"LPOP l", nullBulk},
		{"LPOP l 1", nullArray},
		{"LPOP l 0", nullArray},
		{"RPOP l 0", nullArray},
		{"LPOP l -1", harness.ErrReply("ERR value is out of range, must be positive")},
		{"LPOP l x", harness.ErrReply("ERR value is out of range, must be positive")},
		{"LPOP l 01", harness.ErrReply("ERR value is out of range, must be positive")},
		{"LPOP l 1 2", harness.ErrReply("ERR wrong number of arguments for 'lpop' command")},
		{"RPOP l 1 2", harness.ErrReply("ERR wrong number of arguments for 'rpop' command")},
		{"LPOP s", wrongType},
		{"LPOP s 0", wrongType},
		{"LPOP s -1", harness.ErrReply("ERR value is out of range, must be positive")},
		{"RPUSH big 1 2 3", harness.Integer(3)},
		{"RPOP big 9223372036854775807", bulks("3", "2", "1")},
		{"LLEN big", harness.Integer(0)},
		{"RPUSH n 1", harness.Integer(1)},
		{"LLEN n", harness.Integer(1)},
		{"LLEN nokey", harness.Integer(0)},
		{"LLEN s", wrongType},
	})
}

func TestListRangeIndexSet(t *testing.T) {
	runTable(t, []exchange{
		{"RPUSH l a b c d e", harness.Integer(5)},
		{"SET s v", okReply},
		{"LRANGE l 1 3", bulks("b", "c", "d")},
		{"LRANGE l -2 -1", bulks("d", "e")},
		{"LRANGE l -100 100", bulks("a", "b", "c", "d", "e")},
		{"LRANGE l 3 1", arr()},
		{"LRANGE l 5 10", arr()},
		{"LRANGE l -1 -2", arr()},
		{"LRANGE l 9223372036854775807 -9223372036854775808", arr()},
		{"LRANGE l -9223372036854775808 9223372036854775807", bulks("a", "b", "c", "d", "e")},
		{"LRANGE l 0 9223372036854775808", notInt},
		{"LRANGE l x 1", notInt},
		{"LRANGE nokey 0 -1", arr()},
		{"LRANGE s 0 1", wrongType},
		{"LRANGE s x 1", notInt},
		{"LINDEX l 0", harness.Bulk("a")},
		{"LINDEX l -1", harness.Bulk("e")},
		{"LINDEX l 5", nullBulk},
		{"LINDEX l -6", nullBulk},
		{"LINDEX l -9223372036854775808", nullBulk},
		{"LINDEX l x", notInt},
		{"LINDEX nokey x", nullBulk},
		{"LINDEX s x", wrongType},
		{"LSET l 0 A", okReply},
		{"LSET l -1 EEEE", okReply},
		{"LSET l 2 ", harness.ErrReply("ERR wrong number of arguments for 'lset' command")},
		{"LRANGE l 0 -1", bulks("A", "b", "c", "d", "EEEE")},
		{"LSET l 5 x", harness.ErrReply("ERR index out of range")},
		{"LSET l -6 x", harness.ErrReply("ERR index out of range")},
		{"LSET l x x", notInt},
		// Redis keeps only the index's low 32 bits (a C int).
		{"LSET l 4294967297 B", okReply},
		{"LSET l 9223372036854775807 E", okReply},
		{"LSET l -9223372036854775808 a", okReply},
		{"LSET l 9223372036854775802 x", harness.ErrReply("ERR index out of range")},
		{"LSET l 4294967296 x", okReply},
		{"LRANGE l 0 -1", bulks("x", "B", "c", "d", "E")},
		{"LSET nokey 0 x", harness.ErrReply("ERR no such key")},
		{"LSET nokey x x", harness.ErrReply("ERR no such key")},
		{"LSET s x x", wrongType},
	})
}

func TestListInsertRemTrim(t *testing.T) {
	runTable(t, []exchange{
		{"RPUSH l a b c", harness.Integer(3)},
		{"SET s v", okReply},
		{"LINSERT l BEFORE b X", harness.Integer(4)},
		{"LINSERT l after c Y", harness.Integer(5)},
		{"LINSERT l before a W", harness.Integer(6)},
		{"LRANGE l 0 -1", bulks("W", "a", "X", "b", "c", "Y")},
		{"LINSERT l before nope Z", harness.Integer(-1)},
		{"LINSERT l middle b Z", harness.ErrReply("ERR syntax error")},
		{"LINSERT nokey middle b Z", harness.ErrReply("ERR syntax error")},
		{"LINSERT nokey before b Z", harness.Integer(0)},
		{"LINSERT s before b Z", wrongType},
		{"LINSERT s middle b Z", harness.ErrReply("ERR syntax error")},
		{"RPUSH r a b a c a d a", harness.Integer(7)},
		{"LREM r -2 a", harness.Integer(2)},
		{"LRANGE r 0 -1", bulks("a", "b", "a", "c", "d")},
		{"LREM r 1 a", harness.Integer(1)},
		{"LRANGE r 0 -1", bulks("b", "a", "c", "d")},
		{"LREM r 0 a", harness.Integer(1)},
		{"LREM r 0 zz", harness.Integer(0)},
		{"LREM r 9223372036854775807 b", harness.Integer(1)},
		{"LREM r -9223372036854775808 c", harness.ErrReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")},
		{"LREM r -9223372036854775807 c", harness.Integer(1)},
		{"LREM r 0 d", harness.Integer(1)},
		{"EXISTS r", harness.Integer(0)},
		{"LREM r x a", notInt},
		{"LREM nokey 0 a", harness.Integer(0)},
		{"LREM s 0 a", wrongType},
		{"LREM s x a", notInt},
		{"RPUSH t a b c d e", harness.Integer(5)},
		{"LTRIM t 1 -2", okReply},
		{"LRANGE t 0 -1", bulks("b", "c", "d")},
		{"LTRIM t -100 100", okReply},
		{"LLEN t", harness.Integer(3)},
		{"LTRIM t 2 1", okReply},
		{"EXISTS t", harness.Integer(0)},
		{"RPUSH t a b", harness.Integer(2)},
		{"LTRIM t 5 10", okReply},
		{"EXISTS t", harness.Integer(0)},
		{"LTRIM nokey 0 1", okReply},
		{"LTRIM nokey x 1", notInt},
		{"LTRIM s 0 1", wrongType},
		{"LTRIM s x 1", notInt},
	})
}

func TestListPos(t *testing.T) {
	rankZero := harness.ErrReply("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
	runTable(t, []exchange{
		{"RPUSH l a b c a b c a", harness.Integer(7)},
		{"SET s v", okReply},
		{"LPOS l a", harness.Integer(0)},
		{"LPOS l c", harness.Integer(2)},
		{"LPOS l z", nullBulk},
		{"LPOS nokey a", nullBulk},
		{"LPOS s a", wrongType},
		{"LPOS l a RANK 2", harness.Integer(3)},
		{"LPOS l a rank -1", harness.Integer(6)},
		{"LPOS l a RANK -2", harness.Integer(3)},
		{"LPOS l a RANK 4", nullBulk},
		{"LPOS l a RANK 9223372036854775807", nullBulk},
		{"LPOS l a RANK 0", rankZero},
		{"LPOS l a RANK -9223372036854775808", harness.ErrReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")},
		{"LPOS l a RANK x", notInt},
		{"LPOS l a COUNT 0", arr(harness.Integer(0), harness.Integer(3), harness.Integer(6))},
		{"LPOS l a COUNT 2", arr(harness.Integer(0), harness.Integer(3))},
		{"LPOS l a COUNT 2 RANK -1", arr(harness.Integer(6), harness.Integer(3))},
		{"LPOS l a COUNT -1", harness.ErrReply("ERR COUNT can't be negative")},
		{"LPOS l a COUNT x", harness.ErrReply("ERR COUNT can't be negative")},
		{"LPOS l z COUNT 0", arr()},
		{"LPOS nokey a COUNT 0", arr()},
		{"LPOS nokey a COUNT 1", arr()},
		{"LPOS l a MAXLEN 3", harness.Integer(0)},
		{"LPOS l a MAXLEN 3 COUNT 0", arr(harness.Integer(0))},
		{"LPOS l a MAXLEN 0 COUNT 0", arr(harness.Integer(0), harness.Integer(3), harness.Integer(6))},
		{"LPOS l a RANK -1 COUNT 0 MAXLEN 4", arr(harness.Integer(6), harness.Integer(3))},
		{"LPOS l b RANK 2 MAXLEN 4", nullBulk},
		{"LPOS l a RANK 2 COUNT 1 MAXLEN 1", arr()},
		{"LPOS l a MAXLEN -1", harness.ErrReply("ERR MAXLEN can't be negative")},
		{"LPOS l a RANK", harness.ErrReply("ERR syntax error")},
		{"LPOS l a COUNT", harness.ErrReply("ERR syntax error")},
		{"LPOS l a FOO", harness.ErrReply("ERR syntax error")},
		{"LPOS l a COUNT 1 RANK 0", rankZero},
		{"LPOS l a RANK 0 COUNT -1", rankZero},
		{"LPOS l a COUNT -1 RANK 0", harness.ErrReply("ERR COUNT can't be negative")},
		{"LPOS l a RANK 1 RANK 3", harness.Integer(6)},
		{"LPOS s a RANK 0", rankZero},
		{"LPOS s a FOO", harness.ErrReply("ERR syntax error")},
		{"LPOS nokey a COUNT x", harness.ErrReply("ERR COUNT can't be negative")},
	})
}

func TestListMove(t *testing.T) {
	runTable(t, []exchange{
		{"SET s v", okReply},
		{"RPUSH l a b c", harness.Integer(3)},
		{"LMOVE l d left right", harness.Bulk("a")},
		{"LMOVE l d LEFT RIGHT", harness.Bulk("b")},
		{"LMOVE l d up right", harness.ErrReply("ERR syntax error")},
		{"LMOVE l d left down", harness.ErrReply("ERR syntax error")},
		{"LMOVE nokey d up right", harness.ErrReply("ERR syntax error")},
		{"LMOVE nokey d left right", nullBulk},
		{"LMOVE nokey s left right", nullBulk},
		{"LMOVE l s left right", wrongType},
		{"LMOVE s l left right", wrongType},
		{"LRANGE l 0 -1", bulks("c")},
		{"LRANGE d 0 -1", bulks("a", "b")},
		{"LMOVE l l left right", harness.Bulk("c")},
		{"LRANGE l 0 -1", bulks("c")},
		{"LMOVE d d left right", harness.Bulk("a")},
		{"LRANGE d 0 -1", bulks("b", "a")},
		{"LMOVE d d right left", harness.Bulk("a")},
		{"LRANGE d 0 -1", bulks("a", "b")},
		{"LMOVE d x right right", harness.Bulk("b")},
		{"LMOVE d x left left", harness.Bulk("a")},
		{"LRANGE x 0 -1", bulks("a", "b")},
		{"EXISTS d", harness.Integer(0)},
		{"RPOPLPUSH x y", harness.Bulk("b")},
		{"RPOPLPUSH x y", harness.Bulk("a")},
		{"LRANGE y 0 -1", bulks("a", "b")},
		{"EXISTS x", harness.Integer(0)},
		{"RPOPLPUSH nokey y", nullBulk},
		{"RPOPLPUSH y s", wrongType},
		{"RPOPLPUSH s y", wrongType},
		{"RPOPLPUSH nokey s", nullBulk},
	})
}

func TestListMultiPop(t *testing.T) {
	runTable(t, []exchange{
		{"SET s v", okReply},
		{"LMPOP", harness.ErrReply("ERR wrong number of arguments for 'lmpop' command")},
		{"LMPOP 1 l", harness.ErrReply("ERR wrong number of arguments for 'lmpop' command")},
		{"LMPOP 0 l left", harness.ErrReply("ERR numkeys should be greater than 0")},
		{"LMPOP -1 l left", harness.ErrReply("ERR numkeys should be greater than 0")},
		{"LMPOP x l left", harness.ErrReply("ERR numkeys should be greater than 0")},
		{"LMPOP 99999999999999999999 l left", harness.ErrReply("ERR numkeys should be greater than 0")},
		{"LMPOP 9223372036854775807 l left", harness.ErrReply("ERR syntax error")},
		{"LMPOP 2 l left", harness.ErrReply("ERR syntax error")},
		{"LMPOP 1 l middle", harness.ErrReply("ERR syntax error")},
		{"LMPOP 1 l left count", harness.ErrReply("ERR syntax error")},
		{"LMPOP 1 l left count 0", harness.ErrReply("ERR count should be greater than 0")},
		{"LMPOP 1 l left count -1", harness.ErrReply("ERR count should be greater than 0")},
		{"LMPOP 1 l left count x", harness.ErrReply("ERR count should be greater than 0")},
		{"LMPOP 1 l left count 1 count 1", harness.ErrReply("ERR syntax error")},
		{"LMPOP 1 l left foo", harness.ErrReply("ERR syntax error")},
		{"LMPOP 1 nokey left", nullArray},
		{"LMPOP 2 s l left", wrongType},
		{"RPUSH l a b c d", harness.Integer(4)},
		{"LMPOP 2 l s left", arr(harness.Bulk("l"), bulks("a"))},
		{"LMPOP 2 nokey l RIGHT COUNT 2", arr(harness.Bulk("l"), bulks("d", "c"))},
		{"LMPOP 2 nokey l left COUNT 10", arr(harness.Bulk("l"), bulks("b"))},
		{"EXISTS l", harness.Integer(0)},
		{"LMPOP 2 nokey l left COUNT 10", nullArray},
		{"COMMAND GETKEYS LMPOP 2 a b left", bulks("a", "b")},
		{"COMMAND GETKEYS BLMPOP 0 2 a b left COUNT 3", bulks("a", "b")},
	})
}

// Blocking commands that find data answer at once; inside MULTI they never
// block. Waiting itself is in blocking_test.go.
func TestListBlockingImmediate(t *testing.T) {
	notFloat := harness.ErrReply("ERR timeout is not a float or out of range")
	runTable(t, []exchange{
		{"SET s v", okReply},
		{"BLPOP l x", notFloat},
		{"BLPOP l -1", harness.ErrReply("ERR timeout is negative")},
		{"BLPOP l -0.1", harness.ErrReply("ERR timeout is negative")},
		{"BLPOP l inf", harness.ErrReply("ERR timeout is out of range")},
		{"BLPOP l -inf", harness.ErrReply("ERR timeout is negative")},
		{"BLPOP l nan", notFloat},
		{"BLPOP l 1e400", harness.ErrReply("ERR timeout is out of range")},
		{"BLPOP l 1e5000", notFloat},
		{"BLPOP l 9223372036854775", harness.ErrReply("ERR timeout is out of range")},
		{"BLPOP l 0x", notFloat},
		{"BLPOP l 1_0", notFloat},
		{"BLPOP l 0.01abc", notFloat},
		{"BLPOP l 0.001", nullArray},
		{"BLPOP l 0x0.01p0", nullArray},
		{"BLPOP l 1e-400", nullArray},
		{"BRPOP l .001", nullArray},
		{"BLPOP s 0", wrongType},
		{"BLPOP nokey s 0", wrongType},
		{"RPUSH l a b c", harness.Integer(3)},
		{"BLPOP s l 0", wrongType},
		{"BLPOP l s 0", arr(harness.Bulk("l"), harness.Bulk("a"))},
		{"BRPOP nokey l 0", arr(harness.Bulk("l"), harness.Bulk("c"))},
		{"BLMOVE l d up right 0", harness.ErrReply("ERR syntax error")},
		{"BLMOVE l d left right x", notFloat},
		{"BLMOVE l d left right 0", harness.Bulk("b")},
		{"BLMOVE nokey d left right 0.001", nullArray},
		{"BRPOPLPUSH nokey d 0.001", nullArray},
		{"BRPOPLPUSH d e x", notFloat},
		{"BRPOPLPUSH d e 0", harness.Bulk("b")},
		{"BLMOVE s d left right 0", wrongType},
		{"BLMOVE e s left right 0", wrongType},
		{"BLMPOP x 1 l left", notFloat},
		{"BLMPOP x 0 l left", harness.ErrReply("ERR numkeys should be greater than 0")},
		{"BLMPOP x 1 l middle", harness.ErrReply("ERR syntax error")},
		{"BLMPOP x 1 l left count 0", harness.ErrReply("ERR count should be greater than 0")},
		{"BLMPOP 0.001 2 l left", harness.ErrReply("ERR syntax error")},
		{"BLMPOP 0.001 1 l left", nullArray},
		{"BLMPOP 0 1 s left", wrongType},
		{"RPUSH l 1 2 3", harness.Integer(3)},
		{"BLMPOP 0 2 nokey l right COUNT 2", arr(harness.Bulk("l"), bulks("3", "2"))},
		{"MULTI", okReply},
		{"BLPOP nokey 0", "+QUEUED\r\n"},
		{"BRPOP nokey 1", "+QUEUED\r\n"},
		{"BLMOVE nokey d left right 0", "+QUEUED\r\n"},
		{"BRPOPLPUSH nokey d 0", "+QUEUED\r\n"},
		{"BLMPOP 0 1 nokey left", "+QUEUED\r\n"},
		{"BLPOP s 0", "+QUEUED\r\n"},
		{"BLPOP l x", "+QUEUED\r\n"},
		{"BLPOP l 0", "+QUEUED\r\n"},
		{"EXEC", arr(nullArray, nullArray, nullBulk, nullBulk, nullArray, wrongType, notFloat, arr(harness.Bulk("l"), harness.Bulk("1")))},
	})
}

// TestListCommandInfo checks the key specs and flags clients read from
// COMMAND INFO to route list commands.
func TestListCommandInfo(t *testing.T) {
	r := harness.Start(t).Raw(t)
	for _, tc := range []struct {
		name              string
		arity             int64
		first, last, step int64
	}{
		{"lpush", -3, 1, 1, 1}, {"lmove", 5, 1, 2, 1}, {"blpop", -3, 1, -2, 1},
		{"lmpop", -4, 0, 0, 0}, {"blmpop", -5, 0, 0, 0}, {"brpoplpush", 4, 1, 2, 1},
	} {
		info := r.Do("COMMAND", "INFO", tc.name).([]any)[0].([]any)
		if info[1] != tc.arity || info[3] != tc.first || info[4] != tc.last || info[5] != tc.step {
			t.Errorf("%s: arity/first/last/step = %v %v %v %v", tc.name, info[1], info[3], info[4], info[5])
		}
	}
	info := r.Do("COMMAND", "INFO", "blpop").([]any)[0].([]any)
	if cats := fmt.Sprint(info[6]); !strings.Contains(cats, "@blocking") || !strings.Contains(cats, "@list") {
		t.Errorf("blpop ACL categories %s", cats)
	}
}

// listModel is the in-test model of the list keyspace for the property test.
type listModel struct {
	lists   map[string][]string
	strings map[string]bool
}

// TestListModel runs random list commands against the server and against a
// model built from Go slices, comparing every reply byte for byte and the
// whole state at the end. With $HOTKV_COMPARE_ADDR set the same sequence also
// runs against that Redis, which checks the model itself.
func TestListModel(t *testing.T) {
	for name, addr := range harness.Targets(t) {
		for _, proto := range []int{2, 3} {
			for seed := uint64(1); seed <= 3; seed++ {
				r := harness.DialRaw(t, addr, proto)
				r.Exact("FLUSHALL")
				runModel(t, fmt.Sprintf("%s RESP%d seed %d", name, proto, seed), r, proto, seed, 1500)
			}
		}
	}
}

func runModel(t *testing.T, label string, r *harness.Conn, proto int, seed uint64, ops int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := &listModel{lists: map[string][]string{}, strings: map[string]bool{}}
	keys := []string{"k1", "k2", "k3", "{t}a", "{t}b"}
	elems := []string{"a", "b", "c", "1", "-5", "", "long-" + strings.Repeat("x", 100)}
	key := func() string { return keys[rng.IntN(len(keys))] }
	elem := func() string { return elems[rng.IntN(len(elems))] }
	idx := func() string { return strconv.Itoa(rng.IntN(14) - 7) }
	end := func() string { return []string{"LEFT", "RIGHT", "left"}[rng.IntN(3)] }
	for i := 0; i < ops; i++ {
		var args []string
		switch rng.IntN(20) {
		case 0, 1, 2:
			args = []string{[]string{"LPUSH", "RPUSH", "LPUSHX", "RPUSHX"}[rng.IntN(4)], key()}
			for range 1 + rng.IntN(4) {
				args = append(args, elem())
			}
		case 3, 4:
			args = []string{[]string{"LPOP", "RPOP"}[rng.IntN(2)], key()}
			if rng.IntN(2) == 0 {
				args = append(args, strconv.Itoa(rng.IntN(5)))
			}
		case 5:
			args = []string{"LLEN", key()}
		case 6, 7:
			args = []string{"LRANGE", key(), idx(), idx()}
		case 8:
			args = []string{"LINDEX", key(), idx()}
		case 9:
			args = []string{"LSET", key(), idx(), elem()}
		case 10:
			args = []string{"LINSERT", key(), []string{"BEFORE", "AFTER"}[rng.IntN(2)], elem(), elem()}
		case 11:
			args = []string{"LREM", key(), strconv.Itoa(rng.IntN(7) - 3), elem()}
		case 12:
			args = []string{"LTRIM", key(), idx(), idx()}
		case 13:
			args = []string{"LPOS", key(), elem()}
			if rng.IntN(2) == 0 {
				args = append(args, "RANK", []string{"1", "2", "-1", "-2", "3"}[rng.IntN(5)])
			}
			if rng.IntN(2) == 0 {
				args = append(args, "COUNT", strconv.Itoa(rng.IntN(3)))
			}
			if rng.IntN(3) == 0 {
				args = append(args, "MAXLEN", strconv.Itoa(rng.IntN(5)))
			}
		case 14:
			args = []string{"LMOVE", key(), key(), end(), end()}
		case 15:
			args = []string{"RPOPLPUSH", key(), key()}
		case 16:
			n := 1 + rng.IntN(3)
			args = []string{"LMPOP", strconv.Itoa(n)}
			for range n {
				args = append(args, key())
			}
			args = append(args, end())
			if rng.IntN(2) == 0 {
				args = append(args, "COUNT", strconv.Itoa(1+rng.IntN(4)))
			}
		case 17:
			args = []string{"BLPOP", key(), key(), "0.001"}
		case 18:
			if rng.IntN(4) == 0 {
				args = []string{"SET", key(), "str"}
			} else {
				args = []string{"DEL", key()}
			}
		case 19:
			args = []string{"BLMOVE", key(), key(), end(), end(), "0.001"}
		}
		want := m.apply(args)
		if proto == 3 {
			want = toRESP3(want)
		}
		if got := r.Exact(args...); got != want {
			t.Fatalf("%s op %d: %q\n got %q\nwant %q", label, i, args, got, want)
		}
	}
	for _, k := range keys {
		want := bulks(m.lists[k]...)
		if got := r.Exact("LRANGE", k, "0", "-1"); !m.strings[k] && got != want {
			t.Fatalf("%s final %s: %q, model %q", label, k, got, want)
		}
		exists := 0
		if m.lists[k] != nil || m.strings[k] {
			exists = 1
		}
		if got := r.Exact("EXISTS", k); got != harness.Integer(exists) {
			t.Fatalf("%s final EXISTS %s = %q, model %d", label, k, got, exists)
		}
	}
}

// apply runs one command on the model and returns Redis's RESP2 reply. It
// covers only the argument shapes runModel generates.
func (m *listModel) apply(args []string) string {
	cmd, key := strings.ToUpper(args[0]), args[1]
	list := m.lists[key]
	isStr := m.strings[key]
	set := func(k string, l []string) {
		if len(l) == 0 {
			delete(m.lists, k)
		} else {
			m.lists[k] = l
		}
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	norm := func(start, stop int) (int, int, bool) {
		n := len(list)
		if start < 0 {
			start += n
		}
		if stop < 0 {
			stop += n
		}
		start = max(start, 0)
		if start > stop || start >= n {
			return 0, 0, false
		}
		return start, min(stop, n-1), true
	}
	switch cmd {
	case "SET":
		delete(m.lists, key)
		m.strings[key] = true
		return okReply
	case "DEL":
		had := list != nil || isStr
		delete(m.lists, key)
		delete(m.strings, key)
		if had {
			return harness.Integer(1)
		}
		return harness.Integer(0)
	case "LMPOP":
		n := num(args[1])
		keys, front := args[2:2+n], strings.EqualFold(args[2+n], "left")
		count := 1
		if len(args) > 3+n {
			count = num(args[4+n])
		}
		for _, k := range keys {
			if m.strings[k] {
				return wrongType
			}
			if l := m.lists[k]; l != nil {
				c := min(count, len(l))
				var got []string
				if front {
					got, l = slices.Clone(l[:c]), l[c:]
				} else {
					got = slices.Clone(l[len(l)-c:])
					slices.Reverse(got)
					l = l[:len(l)-c]
				}
				set(k, l)
				return arr(harness.Bulk(k), bulks(got...))
			}
		}
		return nullArray
	case "BLPOP":
		for _, k := range args[1 : len(args)-1] {
			if m.strings[k] {
				return wrongType
			}
			if l := m.lists[k]; l != nil {
				set(k, l[1:])
				return arr(harness.Bulk(k), harness.Bulk(l[0]))
			}
		}
		return nullArray
	}
	if isStr { // every generated call on a string key is well formed
		return wrongType
	}
	switch cmd {
	case "LPUSH", "RPUSH", "LPUSHX", "RPUSHX":
		if list == nil && strings.HasSuffix(cmd, "X") {
			return harness.Integer(0)
		}
		for _, e := range args[2:] {
			if cmd[0] == 'L' {
				list = append([]string{e}, list...)
			} else {
				list = append(list, e)
			}
		}
		set(key, list)
		return harness.Integer(len(list))
	case "LPOP", "RPOP":
		count := -1
		if len(args) == 3 {
			count = num(args[2])
		}
		switch {
		case list == nil && count >= 0:
			return nullArray
		case list == nil:
			return nullBulk
		case count == 0:
			return arr()
		}
		c := max(count, 1)
		c = min(c, len(list))
		var got []string
		if cmd == "LPOP" {
			got, list = slices.Clone(list[:c]), list[c:]
		} else {
			got = slices.Clone(list[len(list)-c:])
			slices.Reverse(got)
			list = list[:len(list)-c]
		}
		set(key, list)
		if count < 0 {
			return harness.Bulk(got[0])
		}
		return bulks(got...)
	case "LLEN":
		return harness.Integer(len(list))
	case "LRANGE":
		from, to, ok := norm(num(args[2]), num(args[3]))
		if !ok {
			return arr()
		}
		return bulks(list[from : to+1]...)
	case "LINDEX":
		i := num(args[2])
		if i < 0 {
			i += len(list)
		}
		if list == nil || i < 0 || i >= len(list) {
			return nullBulk
		}
		return harness.Bulk(list[i])
	case "LSET":
		if list == nil {
			return harness.ErrReply("ERR no such key")
		}
		i := num(args[2])
		if i < 0 {
			i += len(list)
		}
		if i < 0 || i >= len(list) {
			return harness.ErrReply("ERR index out of range")
		}
		list[i] = args[3]
		return okReply
	case "LINSERT":
		if list == nil {
			return harness.Integer(0)
		}
		at := slices.Index(list, args[3])
		if at < 0 {
			return harness.Integer(-1)
		}
		if strings.EqualFold(args[2], "after") {
			at++
		}
		list = slices.Insert(list, at, args[4])
		set(key, list)
		return harness.Integer(len(list))
	case "LREM":
		count, removed := num(args[2]), 0
		var out []string
		if count >= 0 {
			for _, e := range list {
				if e == args[3] && (count == 0 || removed < count) {
					removed++
					continue
				}
				out = append(out, e)
			}
		} else {
			for i := len(list) - 1; i >= 0; i-- {
				if list[i] == args[3] && removed < -count {
					removed++
					continue
				}
				out = append(out, list[i])
			}
			slices.Reverse(out)
		}
		if list != nil {
			set(key, out)
		}
		return harness.Integer(removed)
	case "LTRIM":
		if list == nil {
			return okReply
		}
		from, to, ok := norm(num(args[2]), num(args[3]))
		if !ok {
			set(key, nil)
		} else {
			set(key, slices.Clone(list[from:to+1]))
		}
		return okReply
	case "LPOS":
		rank, count, maxlen := 1, -1, 0
		for j := 3; j < len(args); j += 2 {
			switch args[j] {
			case "RANK":
				rank = num(args[j+1])
			case "COUNT":
				count = num(args[j+1])
			case "MAXLEN":
				maxlen = num(args[j+1])
			}
		}
		var found []string
		matches := 0
		for seen := 0; seen < len(list) && (maxlen == 0 || seen < maxlen); seen++ {
			i := seen
			if rank < 0 {
				i = len(list) - 1 - seen
			}
			if list[i] != args[2] {
				continue
			}
			matches++
			if matches >= max(rank, -rank) {
				found = append(found, harness.Integer(i))
				if count < 0 || (count > 0 && len(found) == count) {
					break
				}
			}
		}
		if count < 0 {
			if len(found) == 0 {
				return nullBulk
			}
			return found[0]
		}
		return arr(found...)
	case "LMOVE", "RPOPLPUSH", "BLMOVE":
		from, to := "RIGHT", "LEFT"
		if cmd != "RPOPLPUSH" {
			from, to = args[3], args[4]
		}
		dst := args[2]
		if list == nil {
			if cmd == "BLMOVE" {
				return nullArray // timed out
			}
			return nullBulk
		}
		if m.strings[dst] {
			return wrongType
		}
		var v string
		if strings.EqualFold(from, "left") {
			v, list = list[0], list[1:]
		} else {
			v, list = list[len(list)-1], list[:len(list)-1]
		}
		set(key, list)
		dl := m.lists[dst]
		if strings.EqualFold(to, "left") {
			dl = append([]string{v}, dl...)
		} else {
			dl = append(slices.Clone(dl), v)
		}
		set(dst, dl)
		return harness.Bulk(v)
	}
	panic("model: unknown command " + cmd)
}

// TestListGoRedis drives the list commands through go-redis in both
// protocols: a client library must parse every reply shape.
func TestListGoRedis(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for name, c := range map[string]*redis.Client{"resp3": s.Client(t), "resp2": s.Client(t, harness.Resp2)} {
		key := "l-" + name
		if n, err := c.RPush(ctx, key, "a", "b", "c", "a").Result(); err != nil || n != 4 {
			t.Fatalf("%s RPUSH = %d, %v", name, n, err)
		}
		if v, err := c.LRange(ctx, key, 0, -1).Result(); err != nil || !slices.Equal(v, []string{"a", "b", "c", "a"}) {
			t.Fatalf("%s LRANGE = %v, %v", name, v, err)
		}
		if v, err := c.LPosCount(ctx, key, "a", 0, redis.LPosArgs{Rank: -1}).Result(); err != nil || !slices.Equal(v, []int64{3, 0}) {
			t.Fatalf("%s LPOS COUNT = %v, %v", name, v, err)
		}
		if _, err := c.LPos(ctx, key, "zz", redis.LPosArgs{}).Result(); err != redis.Nil {
			t.Fatalf("%s LPOS missing = %v, want redis.Nil", name, err)
		}
		if v, err := c.LPopCount(ctx, key, 2).Result(); err != nil || !slices.Equal(v, []string{"a", "b"}) {
			t.Fatalf("%s LPOP 2 = %v, %v", name, v, err)
		}
		if k, v, err := c.LMPop(ctx, "right", 5, "nokey", key).Result(); err != nil || k != key || !slices.Equal(v, []string{"a", "c"}) {
			t.Fatalf("%s LMPOP = %q %v, %v", name, k, v, err)
		}
		// go-redis rounds typed timeouts up to a second; Do sends ours as is.
		for _, cmd := range [][]any{{"BLPOP", key, "0.01"}, {"BLMOVE", key, "dst", "LEFT", "RIGHT", "0.01"}} {
			if _, err := c.Do(ctx, cmd...).Result(); err != redis.Nil {
				t.Fatalf("%s %v timeout = %v, want redis.Nil", name, cmd, err)
			}
		}
		done := make(chan []string)
		go func() {
			v, _ := c.BRPop(ctx, 5*time.Second, "nokey", key).Result()
			done <- v
		}()
		harness.WaitBlocked(t, s.Raw(t), 1)
		c.LPush(ctx, key, "x")
		if v := <-done; !slices.Equal(v, []string{key, "x"}) {
			t.Fatalf("%s BRPOP = %v", name, v)
		}
	}
}
