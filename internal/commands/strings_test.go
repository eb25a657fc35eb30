package commands

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/hotkv/hotkv/internal/ldouble"

	"github.com/hotkv/hotkv/internal/ai"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/vector/vindex"
)

// strKV runs handlers directly on a keyspace, as the dispatcher would (without
// locking: tests are single-goroutine).
type strKV struct {
	x *cmdtable.Ctx
}

func newStrKV(proto int) *strKV {
	ks := keyspace.New(1)
	k := &strKV{}
	k.x = &cmdtable.Ctx{W: &resp.Writer{Proto: proto}, KS: ks, Indexes: vindex.NewRegistry(), AI: ai.NewRegistry(),
		DB: ks.DBs[0], Now: time.Now().UnixMilli()}
	return k
}

func (k *strKV) argv(args []string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

// do runs one command and returns its raw reply.
func (k *strKV) do(t testing.TB, args ...string) string {
	t.Helper()
	cmd := cmdtable.Lookup([]byte(args[0]))
	if cmd == nil || !cmd.CheckArity(len(args)) {
		t.Fatalf("%v: unknown command or bad arity", args)
	}
	k.x.Args = k.argv(args)
	k.x.W.B = k.x.W.B[:0]
	cmd.Run(k.x)
	return string(k.x.W.B)
}

func (k *strKV) entry(key string) *keyspace.Entry {
	return k.x.DB.ShardFor([]byte(key)).Peek([]byte(key), k.x.Now)
}

func (k *strKV) putList(key string) {
	k.x.DB.ShardFor([]byte(key)).Put([]byte(key), &keyspace.Entry{Kind: keyspace.KindList, Obj: "a list"})
}

const (
	strWrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	strNil       = "$-1\r\n"
	strOKReply   = "+OK\r\n"
)

func strBulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }

// Replies checked against redis-server 8.0.2 with a list at "l".
func TestStringCommandsOnWrongType(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "l"}, strWrongType},
		{[]string{"set", "l", "v", "get"}, strWrongType},
		{[]string{"set", "l", "v", "nx", "get"}, strWrongType},
		{[]string{"set", "l", "v", "nx"}, strNil},
		{[]string{"setnx", "l", "v"}, ":0\r\n"},
		{[]string{"getset", "l", "v"}, strWrongType},
		{[]string{"getdel", "l"}, strWrongType},
		{[]string{"getex", "l"}, strWrongType},
		{[]string{"getex", "l", "persist"}, strWrongType},
		{[]string{"getex", "l", "ex", "0"}, strWrongType}, // type before expire value
		{[]string{"getex", "l", "bogus"}, "-ERR syntax error\r\n"},
		{[]string{"mget", "l", "s"}, "*2\r\n$-1\r\n$1\r\nv\r\n"},
		{[]string{"append", "l", "x"}, strWrongType},
		{[]string{"strlen", "l"}, strWrongType},
		{[]string{"getrange", "l", "0", "1"}, strWrongType},
		{[]string{"getrange", "l", "a", "1"}, "-ERR value is not an integer or out of range\r\n"},
		{[]string{"substr", "l", "0", "1"}, strWrongType},
		{[]string{"setrange", "l", "0", "x"}, strWrongType},
		{[]string{"setrange", "l", "0", ""}, strWrongType},
		{[]string{"setrange", "l", "-1", ""}, "-ERR offset is out of range\r\n"},
		{[]string{"incr", "l"}, strWrongType},
		{[]string{"decr", "l"}, strWrongType},
		{[]string{"incrby", "l", "2"}, strWrongType},
		{[]string{"incrby", "l", "x"}, "-ERR value is not an integer or out of range\r\n"},
		{[]string{"decrby", "l", "2"}, strWrongType},
		{[]string{"incrbyfloat", "l", "1.5"}, strWrongType},
		{[]string{"incrbyfloat", "l", "x"}, strWrongType},
		{[]string{"lcs", "l", "s"}, "-ERR The specified keys must contain string values\r\n"},
		{[]string{"lcs", "s", "l", "bogus"}, "-ERR The specified keys must contain string values\r\n"},
		{[]string{"msetnx", "l", "1", "n", "2"}, ":0\r\n"},
	} {
		k := newStrKV(2)
		k.putList("l")
		k.do(t, "set", "s", "v")
		if got := k.do(t, tc.args...); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
		if e := k.entry("l"); e == nil || e.Kind != keyspace.KindList {
			t.Errorf("%v: the list was modified: %+v", tc.args, e)
		}
	}
}

func TestWritesReplaceOtherTypes(t *testing.T) {
	for _, args := range [][]string{
		{"set", "l", "v"}, {"set", "l", "v", "xx"}, {"mset", "l", "v"}, {"setex", "l", "10", "v"}, {"psetex", "l", "10000", "v"},
	} {
		k := newStrKV(2)
		k.putList("l")
		k.do(t, args...)
		if e := k.entry("l"); e == nil || e.Kind != keyspace.KindString || string(e.Bytes()) != "v" || e.Obj != nil {
			t.Errorf("%v: entry %+v, want the string v", args, e)
		}
	}
}

// TTL interplay, on the entry itself (TTL/PTTL belong to the keys family).
func TestStringCommandsAndExpiry(t *testing.T) {
	k := newStrKV(2)
	now := k.x.Now
	future := fmt.Sprint(now + 100_000)
	expire := func(key string) int64 {
		t.Helper()
		e := k.entry(key)
		if e == nil {
			t.Fatalf("%s is missing", key)
		}
		return e.Expire
	}
	for _, tc := range []struct {
		name  string
		setup []string // run after "set k 10 pxat <future>"
		keeps bool
	}{
		{"set clears", []string{"set", "k", "v"}, false},
		{"set keepttl keeps", []string{"set", "k", "v", "keepttl"}, true},
		{"set get clears", []string{"set", "k", "v", "get"}, false},
		{"mset clears", []string{"mset", "k", "v"}, false},
		{"getset clears", []string{"getset", "k", "v"}, false},
		{"append keeps", []string{"append", "k", "0"}, true},
		{"setrange keeps", []string{"setrange", "k", "5", "x"}, true},
		{"setrange empty keeps", []string{"setrange", "k", "5", ""}, true},
		{"incr keeps", []string{"incr", "k"}, true},
		{"decrby keeps", []string{"decrby", "k", "3"}, true},
		{"incrbyfloat keeps", []string{"incrbyfloat", "k", "0.5"}, true},
		{"getex keeps", []string{"getex", "k"}, true},
		{"getex persist clears", []string{"getex", "k", "persist"}, false},
		{"set nx (not set) keeps", []string{"set", "k", "v", "nx"}, true},
	} {
		k.do(t, "set", "k", "10", "pxat", future)
		k.do(t, tc.setup...)
		got := expire("k")
		if tc.keeps && got != now+100_000 || !tc.keeps && got != 0 {
			t.Errorf("%s: expire %d, want kept=%v", tc.name, got, tc.keeps)
		}
	}

	for _, tc := range []struct {
		args []string
		want int64
	}{
		{[]string{"set", "k", "v", "ex", "10"}, now + 10_000},
		{[]string{"set", "k", "v", "px", "1500"}, now + 1500},
		{[]string{"set", "k", "v", "exat", "4000000000"}, 4_000_000_000_000},
		{[]string{"set", "k", "v", "pxat", "4000000000123"}, 4_000_000_000_123},
		{[]string{"setex", "k", "7", "v"}, now + 7000},
		{[]string{"psetex", "k", "77", "v"}, now + 77},
		{[]string{"getex", "k", "ex", "3"}, now + 3000},
		{[]string{"getex", "k", "px", "30"}, now + 30},
		{[]string{"getex", "k", "exat", "4000000001"}, 4_000_000_001_000},
		{[]string{"getex", "k", "pxat", "4000000000001"}, 4_000_000_000_001},
	} {
		k.do(t, "set", "k", "v")
		k.do(t, tc.args...)
		if got := expire("k"); got != tc.want {
			t.Errorf("%v: expire %d, want %d", tc.args, got, tc.want)
		}
	}

	// An absolute time in the past: SET stores the key already expired (it
	// vanishes on access, as in Redis), GETEX deletes it at once.
	past := fmt.Sprint(now - 1)
	if got := k.do(t, "set", "k", "v", "pxat", past); got != strOKReply {
		t.Fatalf("set pxat past: %q", got)
	}
	if got := k.do(t, "get", "k"); got != strNil {
		t.Errorf("get after set pxat past: %q", got)
	}
	k.do(t, "set", "k", "v")
	if got := k.do(t, "getex", "k", "exat", "1"); got != strBulk("v") {
		t.Errorf("getex exat past: %q", got)
	}
	if k.x.DB.ShardFor([]byte("k")).Len() != 0 {
		t.Error("getex exat past left the key in its shard")
	}
}

func TestIncrRewritesInPlace(t *testing.T) {
	k := newStrKV(2)
	k.do(t, "set", "n", "1000")
	e := k.entry("n")
	before := unsafe.SliceData(e.Bytes())
	for _, want := range []string{":1001\r\n", ":1002\r\n"} {
		if got := k.do(t, "incr", "n"); got != want {
			t.Fatalf("incr: %q, want %q", got, want)
		}
	}
	if k.do(t, "decrby", "n", "2000") != ":-998\r\n" || string(e.Bytes()) != "-998" {
		t.Fatalf("decrby: %q", e.Bytes())
	}
	if unsafe.SliceData(e.Bytes()) != before {
		t.Error("INCR replaced the value's buffer although it had room")
	}
}

// Allocation-free hot path for existing keys: the benchmarks show it, this
// keeps it from regressing.
func TestHotPathDoesNotAllocate(t *testing.T) {
	k := newStrKV(2)
	k.do(t, "set", "key", "value-0123456789")
	k.do(t, "set", "n", "1000000")
	k.x.W.B = make([]byte, 0, 4096)
	for _, args := range [][]string{
		{"get", "key"},
		{"set", "key", "value-9876543210"},
		{"incr", "n"},
		{"incrby", "n", "3"},
		{"append", "key", ""},
		{"strlen", "key"},
		{"getrange", "key", "1", "4"},
		{"mget", "key", "n"},
	} {
		cmd := cmdtable.Lookup([]byte(args[0]))
		k.x.Args = k.argv(args)
		allocs := testing.AllocsPerRun(100, func() {
			k.x.W.B = k.x.W.B[:0]
			cmd.Run(k.x)
		})
		if allocs != 0 {
			t.Errorf("%v: %v allocations per call", args, allocs)
		}
	}
}

func TestSetrangeGrowsWithZeros(t *testing.T) {
	k := newStrKV(2)
	if got := k.do(t, "setrange", "k", "3", "ab"); got != ":5\r\n" {
		t.Fatalf("setrange new: %q", got)
	}
	if got := k.do(t, "setrange", "k", "6", "c"); got != ":7\r\n" {
		t.Fatalf("setrange grow: %q", got)
	}
	if got := string(k.entry("k").Bytes()); got != "\x00\x00\x00ab\x00c" {
		t.Fatalf("value %q", got)
	}
	if got := k.do(t, "setrange", "k", "1", "ZZ"); got != ":7\r\n" || string(k.entry("k").Bytes()) != "\x00ZZab\x00c" {
		t.Fatalf("setrange overwrite: %q %q", got, k.entry("k").Bytes())
	}
}

func TestAppendAndSetrangeSizeLimit(t *testing.T) {
	const tooBig = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n"
	k := newStrKV(2)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"setrange", "k", "536870912", "x"}, tooBig},
		{[]string{"setrange", "k", "536870911", ""}, ":0\r\n"},
		{[]string{"setrange", "k", "9223372036854775807", "x"}, tooBig},
		{[]string{"setrange", "k", "-1", "x"}, "-ERR offset is out of range\r\n"},
		{[]string{"set", "k", "abc"}, strOKReply},
		{[]string{"setrange", "k", "536870910", "xyz"}, tooBig},
		{[]string{"setrange", "k", "9223372036854775807", ""}, ":3\r\n"},
	} {
		if got := k.do(t, tc.args...); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
	}
	// APPEND's check, without building a 512MB value.
	if !checkStringLen(k.x, maxStringLen-1, 1) || checkStringLen(k.x, maxStringLen-1, 2) || checkStringLen(k.x, maxStringLen, 1<<62) {
		t.Error("checkLen limits")
	}
}

func TestLongDoubleParse(t *testing.T) {
	for _, tc := range []struct {
		in, out string // out "" = refused
	}{
		{"0.1", "0.1"},
		{"-0", "0"},
		{"+.5", "0.5"},
		{"5.", "5"},
		{"1e3", "1000"},
		{"1E-2", "0.01"},
		{"0x10", "16"},
		{"0X1P-2", "0.25"},
		{"0x.8", "0.5"},
		{"1.5e308", "149999999999999999999901476489468468031016840965060944967133685421180106066691046036756664728216022031902928370522024964340854582506645209487860806577896175175227643677561112877760303256738896516844124921428435196017215141331511736789270744288327321353040504243421434090049846615188904452633296864511849922560"},
		// %.17Lf rounds the exact binary value: 5e-18 is stored a little below.
		{"0.000000000000000005", "0"},
		{"0.0000000000000000051", "0.00000000000000001"},
		{"0.000000000000000015", "0.00000000000000002"},
		{"1.9e-4951", "0"}, // a denormal, not an underflow
		{"1.8e-4951", ""},  // rounds to zero: ERANGE
		{"1e-4951", ""},
		{"1e4933", ""},
		{"0x1p16384", ""},
		{"1e", ""}, {"1e+", ""}, {".", ""}, {"", ""}, {" 1", ""}, {"1 ", ""}, {"1_0", ""}, {"0x", ""}, {"0x1p", ""},
		{"nan", ""}, {"-nan", ""}, {"infinit", ""}, {"--1", ""}, {"+-1", ""}, {"1\x00", ""}, {"0b1", ""},
		{strings.Repeat("1", 5*1024), ""},
	} {
		f, ok := ldouble.Parse([]byte(tc.in))
		if tc.out == "" {
			if ok {
				t.Errorf("parse %q: accepted as %v", tc.in, f)
			}
			continue
		}
		if !ok {
			t.Errorf("parse %q: refused", tc.in)
			continue
		}
		if got := string(ldouble.Append(nil, f)); got != tc.out {
			t.Errorf("parse %q: %s, want %s", tc.in, got, tc.out)
		}
	}
	for _, in := range []string{"inf", "-INF", "+Infinity", "iNfInItY"} {
		f, ok := ldouble.Parse([]byte(in))
		if !ok || !f.IsInf() {
			t.Errorf("parse %q: %v %v, want an infinity", in, f, ok)
		}
	}
}

func TestIncrbyfloatArithmetic(t *testing.T) {
	const nanInf = "-ERR increment would produce NaN or Infinity\r\n"
	k := newStrKV(3)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"incrbyfloat", "f", "0.1"}, strBulk("0.1")},
		{[]string{"incrbyfloat", "f", "0.2"}, strBulk("0.3")}, // long double, not double
		{[]string{"incrbyfloat", "f", "-0.3"}, strBulk("0")},
		{[]string{"incrbyfloat", "f", "-0.000000000000000001"}, strBulk("0")}, // "-0" printed as 0
		{[]string{"incrbyfloat", "f", "inf"}, nanInf},
		{[]string{"incrbyfloat", "f", "x"}, "-ERR value is not a valid float\r\n"},
	} {
		if got := k.do(t, tc.args...); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
	}
	// The largest long double plus itself overflows.
	k.do(t, "set", "g", "0x1.fffffffffffffffep16383")
	if got := k.do(t, "incrbyfloat", "g", "0x1.fffffffffffffffep16383"); got != nanInf {
		t.Errorf("overflow: %q", got)
	}
	k.do(t, "set", "g", "inf")
	if got := k.do(t, "incrbyfloat", "g", "-inf"); got != nanInf {
		t.Errorf("inf-inf: %q", got)
	}
	k.do(t, "set", "g", "nan")
	if got := k.do(t, "incrbyfloat", "g", "1"); got != "-ERR value is not a valid float\r\n" {
		t.Errorf("nan value: %q", got)
	}
}
