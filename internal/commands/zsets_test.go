package commands

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/resp"
)

// fakeSet stands for the sets family's value (KindSet) with the methods the
// sorted set commands use; Range hands out views of one reused buffer, as a
// listpack-backed set may.
type fakeSet struct{ members []string }

func (s *fakeSet) Len() int { return len(s.members) }
func (s *fakeSet) Has(m []byte) bool {
	for _, x := range s.members {
		if x == string(m) {
			return true
		}
	}
	return false
}
func (s *fakeSet) Range(fn func(m []byte) bool) {
	buf := make([]byte, 0, 16)
	for _, x := range s.members {
		buf = append(buf[:0], x...)
		if !fn(buf) {
			return
		}
	}
}

func zRun(x *cmdtable.Ctx, h func(*cmdtable.Ctx), args string) string {
	x.Args = nil
	for _, a := range strings.Fields(args) {
		x.Args = append(x.Args, []byte(a))
	}
	x.W.B = x.W.B[:0]
	h(x)
	return strings.ReplaceAll(string(x.W.B), "\r\n", " ")
}

func TestPlainSetsAsInputs(t *testing.T) {
	ks := keyspace.New(1)
	x := &cmdtable.Ctx{KS: ks, DB: ks.DBs[0], W: &resp.Writer{Proto: 2}}
	x.Shard([]byte("s")).Put([]byte("s"), &keyspace.Entry{Kind: keyspace.KindSet, Obj: &fakeSet{[]string{"c", "a", "b"}}})
	zRun(x, zadd, "ZADD z 5 a 0.5 d")
	for _, tc := range []struct {
		h          func(*cmdtable.Ctx)
		args, want string
	}{
		{zunion, "ZUNION 2 s z WITHSCORES", "*8 $1 d $3 0.5 $1 b $1 1 $1 c $1 1 $1 a $1 6 "},
		{zinter, "ZINTER 2 z s WEIGHTS 1 10 WITHSCORES", "*2 $1 a $2 15 "},
		{zdiff, "ZDIFF 2 s z WITHSCORES", "*4 $1 b $1 1 $1 c $1 1 "},
		{zintercard, "ZINTERCARD 2 s z", ":1 "},
		{zunionstore, "ZUNIONSTORE out 1 s", ":3 "},
		{zrange, "ZRANGE out 0 -1", "*3 $1 a $1 b $1 c "},
	} {
		if got := zRun(x, tc.h, tc.args); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.args, got, tc.want)
		}
	}
	// The member strings kept in "out" must not alias the set's buffer.
	members := strings.Fields(zRun(x, zrange, "ZRANGE out 0 -1"))
	sort.Strings(members)
	if strings.Join(members, " ") != "$1 $1 $1 *3 a b c" {
		t.Fatalf("stored members changed: %v", members)
	}
}

// appendG17 is C's "%.17g", as Redis's ld2string(LD_STR_AUTO) writes a
// skiplist's scores in ZSCAN.
func TestAppendG17(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "-0"}, {100, "100"}, {1.5, "1.5"}, {0.1, "0.10000000000000001"},
		{1e16, "10000000000000000"}, {1e17, "1e+17"}, {1e20, "1e+20"}, {123456789012345678, "1.2345678901234568e+17"},
		{1e-4, "0.0001"}, {1e-5, "1.0000000000000001e-05"}, {5e-324, "4.9406564584124654e-324"},
		{1e300, "1.0000000000000001e+300"}, {-0.74135621742, "-0.74135621742000002"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
	} {
		if got := string(appendG17([]byte("x"), tc.f)); got != "x"+tc.want {
			t.Errorf("%v: got %q, want %q", tc.f, got, "x"+tc.want)
		}
	}
}
