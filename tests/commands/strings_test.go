package commands

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

type strStep struct {
	args []string
	want any
}

func runStrSteps(t *testing.T, r *harness.Conn, steps []strStep) {
	t.Helper()
	for _, s := range steps {
		if got := r.Do(s.args...); !reflect.DeepEqual(got, s.want) {
			t.Errorf("%q: got %#v, want %#v", s.args, got, s.want)
		}
	}
}

// sargs spells a command in the step tables.
func sargs(args ...string) []string { return args }

const (
	strErrSyntax   = harness.Err("ERR syntax error")
	strErrNotInt   = harness.Err("ERR value is not an integer or out of range")
	strErrNotFloat = harness.Err("ERR value is not a valid float")
	strErrNaNInf   = harness.Err("ERR increment would produce NaN or Infinity")
	strErrOverflow = harness.Err("ERR increment or decrement would overflow")
	strErrTooBig   = harness.Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
	strOK          = harness.Status("OK")
)

// Every reply here was checked against redis-server 8.0.2.
func TestStringsExactReplies(t *testing.T) {
	s := harness.Start(t)
	cases := map[string][]strStep{
		"set options": {
			{sargs("SET", "k", "v", "EX", "10", "EX", "20"), strOK}, // repeating an option is allowed
			{sargs("SET", "k", "v", "NX", "NX"), nil},
			{sargs("SET", "k", "v", "EX", "abc", "XX", "NX"), strErrSyntax}, // syntax before the number
			{sargs("SET", "k", "v", "EX", "abc"), strErrNotInt},
			{sargs("SET", "k", "v", "EX", "0"), harness.Err("ERR invalid expire time in 'set' command")},
			{sargs("SET", "k", "v", "PX", "-1"), harness.Err("ERR invalid expire time in 'set' command")},
			{sargs("SET", "k", "v", "EX", "9223372036854775"), harness.Err("ERR invalid expire time in 'set' command")},
			{sargs("SET", "k", "v", "PX", "9223372036854775807"), harness.Err("ERR invalid expire time in 'set' command")},
			{sargs("SET", "k", "v", "EXAT", "9223372036854776"), harness.Err("ERR invalid expire time in 'set' command")},
			{sargs("SET", "k", "v", "EXAT", "9223372036854775"), strOK},
			{sargs("SET", "k", "v", "PXAT", "9223372036854775807"), strOK},
			{sargs("SET", "k", "v", "KEEPTTL", "EX", "1"), strErrSyntax},
			{sargs("SET", "k", "v", "EX", "10", "KEEPTTL"), strErrSyntax},
			{sargs("SET", "k", "v", "PX", "10", "EXAT", "10"), strErrSyntax},
			{sargs("SET", "k", "v", "XX", "NX"), strErrSyntax},
			{sargs("SET", "k", "v", "EX"), strErrSyntax},
			{sargs("SET", "k", "v", "foo"), strErrSyntax},
			{sargs("set", "k", "v1", "get", "get"), "v"},
			{sargs("SET", "k", "v2", "NX", "GET"), "v1"}, // not set, old value still answered
			{sargs("GET", "k"), "v1"},
			{sargs("SET", "k", "v3", "XX", "GET"), "v1"},
			{sargs("SET", "new", "v", "XX", "GET"), nil},
			{sargs("EXISTS", "new"), int64(0)},
			{sargs("SET", "new", "v", "NX", "GET"), nil},
			{sargs("SET", "new", "w", "nx"), nil},
			{sargs("SET", "new2", "w", "xx"), nil},
			{sargs("SET", "k", "v", "GET", "EX", "0"), harness.Err("ERR invalid expire time in 'set' command")},
			{sargs("SET"), harness.Err("ERR wrong number of arguments for 'set' command")},
		},
		"setnx setex psetex getset getdel": {
			{sargs("SETNX", "k", "v"), int64(1)},
			{sargs("SETNX", "k", "w"), int64(0)},
			{sargs("GET", "k"), "v"},
			{sargs("SETEX", "k", "0", "v"), harness.Err("ERR invalid expire time in 'setex' command")},
			{sargs("SETEX", "k", "abc", "v"), strErrNotInt},
			{sargs("SETEX", "k", "100", "v2"), strOK},
			{sargs("PSETEX", "k", "-5", "v"), harness.Err("ERR invalid expire time in 'psetex' command")},
			{sargs("PSETEX", "k", "100000", "v3"), strOK},
			{sargs("GETSET", "k", "v4"), "v3"},
			{sargs("GETSET", "nokey", "x"), nil},
			{sargs("GET", "nokey"), "x"},
			{sargs("GETDEL", "k"), "v4"},
			{sargs("GETDEL", "k"), nil},
			{sargs("EXISTS", "k"), int64(0)},
			{sargs("SETEX", "k", "10"), harness.Err("ERR wrong number of arguments for 'setex' command")},
		},
		"getex": {
			{sargs("GETEX", "missing", "EX", "0"), nil}, // a missing key wins over a bad time
			{sargs("GETEX", "missing", "foo"), strErrSyntax},
			{sargs("SET", "k", "v"), strOK},
			{sargs("GETEX", "k"), "v"},
			{sargs("GETEX", "k", "PERSIST", "EX", "1"), strErrSyntax},
			{sargs("GETEX", "k", "EX", "1", "PERSIST"), strErrSyntax},
			{sargs("GETEX", "k", "EX", "0"), harness.Err("ERR invalid expire time in 'getex' command")},
			{sargs("GETEX", "k", "PX", "x"), strErrNotInt},
			{sargs("GETEX", "k", "KEEPTTL"), strErrSyntax},
			{sargs("GETEX", "k", "GET"), strErrSyntax},
			{sargs("GETEX", "k", "NX"), strErrSyntax},
			{sargs("GETEX", "k", "EX", "1", "EX", "2"), "v"},
			{sargs("GETEX", "k", "PERSIST", "PERSIST"), "v"},
			{sargs("GETEX", "k", "EXAT", "1"), "v"}, // in the past: deleted
			{sargs("EXISTS", "k"), int64(0)},
		},
		"mget mset msetnx": {
			{sargs("MSET", "a", "1", "b"), harness.Err("ERR wrong number of arguments for 'mset' command")},
			{sargs("MSET", "a"), harness.Err("ERR wrong number of arguments for 'mset' command")},
			{sargs("MSETNX", "a", "1", "b"), harness.Err("ERR wrong number of arguments for 'msetnx' command")},
			{sargs("MSET", "a", "1", "b", "2", "a", "3"), strOK},
			{sargs("MGET", "a", "b", "zz"), []any{"3", "2", nil}},
			{sargs("MSETNX", "a", "1", "c", "2"), int64(0)},
			{sargs("EXISTS", "c"), int64(0)},
			{sargs("MSETNX", "c", "1", "d", "2"), int64(1)},
			{sargs("MGET", "c", "d"), []any{"1", "2"}},
			{sargs("MGET"), harness.Err("ERR wrong number of arguments for 'mget' command")},
		},
		"append strlen getrange setrange": {
			{sargs("APPEND", "s", "hel"), int64(3)},
			{sargs("APPEND", "s", "lo"), int64(5)},
			{sargs("STRLEN", "s"), int64(5)},
			{sargs("STRLEN", "nothing"), int64(0)},
			{sargs("GETRANGE", "s", "0", "-1"), "hello"},
			{sargs("GETRANGE", "s", "-3", "-1"), "llo"},
			{sargs("GETRANGE", "s", "-1", "-3"), ""},
			{sargs("GETRANGE", "s", "5", "10"), ""},
			{sargs("GETRANGE", "s", "4", "10"), "o"},
			{sargs("GETRANGE", "s", "-100", "-50"), "h"},
			{sargs("GETRANGE", "s", "-100", "100"), "hello"},
			{sargs("GETRANGE", "s", "3", "1"), ""},
			{sargs("GETRANGE", "s", "0", "-100"), "h"},
			{sargs("GETRANGE", "s", "-9223372036854775808", "9223372036854775807"), "hello"},
			{sargs("GETRANGE", "s", "a", "1"), strErrNotInt},
			{sargs("GETRANGE", "missing", "0", "-1"), ""},
			{sargs("SUBSTR", "s", "1", "2"), "el"},
			{sargs("SETRANGE", "r", "0", ""), int64(0)},
			{sargs("EXISTS", "r"), int64(0)},
			{sargs("SETRANGE", "r", "-1", "x"), harness.Err("ERR offset is out of range")},
			{sargs("SETRANGE", "r", "x", "x"), strErrNotInt},
			{sargs("SETRANGE", "r", "536870912", "x"), strErrTooBig},
			{sargs("SETRANGE", "r", "9223372036854775807", "x"), strErrTooBig},
			{sargs("SETRANGE", "r", "2", "ab"), int64(4)},
			{sargs("GET", "r"), "\x00\x00ab"},
			{sargs("SETRANGE", "r", "1", "XYZW"), int64(5)},
			{sargs("GET", "r"), "\x00XYZW"},
			{sargs("SETRANGE", "r", "9223372036854775807", ""), int64(5)},
			{sargs("SETRANGE", "s", "536870911", "xy"), strErrTooBig},
		},
		"incr family": {
			{sargs("INCR", "n"), int64(1)},
			{sargs("INCRBY", "n", "-11"), int64(-10)},
			{sargs("DECR", "n"), int64(-11)},
			{sargs("DECRBY", "n", "-20"), int64(9)},
			{sargs("SET", "n", " 1"), strOK},
			{sargs("INCR", "n"), strErrNotInt},
			{sargs("SET", "n", "01"), strOK},
			{sargs("INCR", "n"), strErrNotInt},
			{sargs("SET", "n", "-0"), strOK},
			{sargs("INCR", "n"), strErrNotInt},
			{sargs("SET", "n", "1.0"), strOK},
			{sargs("INCR", "n"), strErrNotInt},
			{sargs("SET", "n", "9223372036854775807"), strOK},
			{sargs("INCR", "n"), strErrOverflow},
			{sargs("INCRBY", "n", "0"), int64(9223372036854775807)},
			{sargs("SET", "n", "-9223372036854775808"), strOK},
			{sargs("DECR", "n"), strErrOverflow},
			{sargs("INCRBY", "n", "-1"), strErrOverflow},
			{sargs("DECRBY", "n", "-9223372036854775808"), harness.Err("ERR decrement would overflow")},
			{sargs("INCRBY", "x", "abc"), strErrNotInt},
			{sargs("INCRBY", "x", "1.5"), strErrNotInt},
			{sargs("INCRBY", "x", "9223372036854775808"), strErrNotInt},
			{sargs("INCRBY", "x", "-9223372036854775808"), int64(-9223372036854775808)},
			{sargs("GET", "x"), "-9223372036854775808"},
		},
		"incrbyfloat": {
			{sargs("INCRBYFLOAT", "f", "0.1"), "0.1"},
			{sargs("INCRBYFLOAT", "f", "0.2"), "0.3"},
			{sargs("GET", "f"), "0.3"},
			{sargs("INCRBYFLOAT", "f", "-0.3"), "0"},
			{sargs("INCRBYFLOAT", "f", "1e400"), "1" + strings.Repeat("0", 19) + "281880683947586514586453433629052038625910693539685534008629862039363994848324160522094053927317616200295822777259255734023828976593340661017797447434546173917862448116674971723778943824391593338047470675026246684401359237513603830343735485505244955964979021825038280091068414947402456898653040951017512658092615827588920183472511643316591362664138176309734806343732497430221946880"},
			{sargs("INCRBYFLOAT", "g", "10.5"), "10.5"},
			{sargs("INCRBYFLOAT", "g", "0.1"), "10.6"},
			{sargs("INCRBYFLOAT", "g", "5.0e3"), "5010.60000000000000009"}, // long double's error shows
			{sargs("INCRBYFLOAT", "g", "-5010.6"), "0"},
			{sargs("INCRBYFLOAT", "g", "0x1p-2"), "0.25"},
			{sargs("INCRBYFLOAT", "g", "+.5e1"), "5.25"},
			{sargs("INCRBYFLOAT", "g", "3.0000000000000000005"), "8.25"},
			{sargs("INCRBYFLOAT", "g", "0.000000000000000015"), "8.25000000000000001"},
			{sargs("INCRBYFLOAT", "h", "inf"), strErrNaNInf},
			{sargs("INCRBYFLOAT", "h", "-Infinity"), strErrNaNInf},
			{sargs("INCRBYFLOAT", "h", "1.1897314953572317651e+4932"), strErrNotFloat}, // overflows long double
			{sargs("INCRBYFLOAT", "h", "1e-5000"), strErrNotFloat},                     // underflows to zero
			{sargs("INCRBYFLOAT", "h", "nan"), strErrNotFloat},
			{sargs("INCRBYFLOAT", "h", " 1"), strErrNotFloat},
			{sargs("INCRBYFLOAT", "h", "1 "), strErrNotFloat},
			{sargs("INCRBYFLOAT", "h", "1e"), strErrNotFloat},
			{sargs("INCRBYFLOAT", "h", "1_0"), strErrNotFloat},
			{sargs("EXISTS", "h"), int64(0)},
			{sargs("SET", "h", "1.5e3"), strOK},
			{sargs("INCRBYFLOAT", "h", "1"), "1501"},
			{sargs("SET", "h", "abc"), strOK},
			{sargs("INCRBYFLOAT", "h", "1"), strErrNotFloat},
			{sargs("SET", "h", "1.18973149535723176502e+4932"), strOK},
			{sargs("INCRBYFLOAT", "h", "1.18973149535723176502e+4932"), strErrNaNInf},
		},
		"lcs": {
			{sargs("MSET", "key1", "ohmytext", "key2", "mynewtext"), strOK},
			{sargs("LCS", "key1", "key2"), "mytext"},
			{sargs("LCS", "key1", "key2", "LEN"), int64(6)},
			{sargs("LCS", "key1", "key2", "IDX"), []any{"matches", []any{
				[]any{[]any{int64(4), int64(7)}, []any{int64(5), int64(8)}},
				[]any{[]any{int64(2), int64(3)}, []any{int64(0), int64(1)}},
			}, "len", int64(6)}},
			{sargs("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"), []any{"matches", []any{
				[]any{[]any{int64(4), int64(7)}, []any{int64(5), int64(8)}, int64(4)},
			}, "len", int64(6)}},
			{sargs("LCS", "key1", "key2", "idx", "withmatchlen"), []any{"matches", []any{
				[]any{[]any{int64(4), int64(7)}, []any{int64(5), int64(8)}, int64(4)},
				[]any{[]any{int64(2), int64(3)}, []any{int64(0), int64(1)}, int64(2)},
			}, "len", int64(6)}},
			{sargs("LCS", "key1", "key2", "LEN", "IDX"), harness.Err("ERR If you want both the length and indexes, please just use IDX.")},
			{sargs("LCS", "key1", "key2", "MINMATCHLEN"), strErrSyntax},
			{sargs("LCS", "key1", "key2", "MINMATCHLEN", "x"), strErrNotInt},
			{sargs("LCS", "key1", "key2", "MINMATCHLEN", "-5", "LEN"), int64(6)},
			{sargs("LCS", "key1", "key2", "WITHMATCHLEN"), "mytext"},
			{sargs("LCS", "key1", "key2", "foo"), strErrSyntax},
			{sargs("LCS", "key1", "nokey"), ""},
			{sargs("LCS", "key1", "nokey", "IDX"), []any{"matches", []any{}, "len", int64(0)}},
			{sargs("LCS", "key1"), harness.Err("ERR wrong number of arguments for 'lcs' command")},
		},
	}
	for name, steps := range cases {
		t.Run(name, func(t *testing.T) {
			r := s.Raw(t)
			r.Do("FLUSHALL")
			runStrSteps(t, r, steps)
		})
	}
}

func TestStringsRESP3Shapes(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("HELLO", "3")
	runStrSteps(t, r, []strStep{
		{sargs("GET", "missing"), nil},
		{sargs("MSET", "key1", "ohmytext", "key2", "mynewtext"), strOK},
		{sargs("MGET", "key1", "missing"), []any{"ohmytext", nil}},
		{sargs("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4"), harness.Map{"matches", []any{
			[]any{[]any{int64(4), int64(7)}, []any{int64(5), int64(8)}},
		}, "len", int64(6)}},
		{sargs("INCRBYFLOAT", "f", "1.5"), "1.5"}, // a bulk string, not a RESP3 double
		{sargs("SET", "key1", "x", "XX", "NX"), strErrSyntax},
		{sargs("SET", "key9", "x", "XX"), nil},
		{sargs("GETDEL", "key9"), nil},
	})
}

func TestStringsPastExpiryAndTTL(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	runStrSteps(t, r, []strStep{
		{sargs("SET", "k", "v", "PXAT", "1"), strOK},
		{sargs("GET", "k"), nil},
		{sargs("EXISTS", "k"), int64(0)},
		{sargs("SET", "k", "v", "EXAT", "1", "GET"), nil},
		{sargs("SET", "k", "v"), strOK},
		{sargs("SET", "k", "w", "EXAT", "1", "GET"), "v"},
		{sargs("GET", "k"), nil},
	})

	pttl := func(key string) int64 {
		t.Helper()
		v, _ := r.Do("PTTL", key).(int64)
		return v
	}
	const ms = 100_000
	for _, tc := range []struct {
		name  string
		args  []string
		keeps bool
	}{
		{"SET clears", sargs("SET", "k", "v"), false},
		{"SET KEEPTTL keeps", sargs("SET", "k", "v", "KEEPTTL"), true},
		{"GETSET clears", sargs("GETSET", "k", "v"), false},
		{"MSET clears", sargs("MSET", "k", "v"), false},
		{"APPEND keeps", sargs("APPEND", "k", "1"), true},
		{"SETRANGE keeps", sargs("SETRANGE", "k", "0", "2"), true},
		{"INCR keeps", sargs("INCR", "k"), true},
		{"INCRBYFLOAT keeps", sargs("INCRBYFLOAT", "k", "1.5"), true},
		{"GETEX keeps", sargs("GETEX", "k"), true},
		{"GETEX PERSIST clears", sargs("GETEX", "k", "PERSIST"), false},
	} {
		r.Do("SET", "k", "10", "PX", fmt.Sprint(ms))
		r.Do(tc.args...)
		got := pttl("k")
		if tc.keeps && (got <= 0 || got > ms) || !tc.keeps && got != -1 {
			t.Errorf("%s: PTTL %d", tc.name, got)
		}
	}
	r.Do("SET", "k", "v")
	r.Do("GETEX", "k", "EX", "50")
	if got := pttl("k"); got <= 40_000 || got > 50_000 {
		t.Errorf("GETEX EX 50: PTTL %d", got)
	}
	r.Do("SETEX", "k", "60", "v")
	if got := pttl("k"); got <= 50_000 || got > 60_000 {
		t.Errorf("SETEX 60: PTTL %d", got)
	}
}

func TestStringsGoRedis(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for name, c := range map[string]*redis.Client{"resp3": s.Client(t), "resp2": s.Client(t, harness.Resp2)} {
		t.Run(name, func(t *testing.T) {
			p := name + ":"
			check := func(what string, got, want any) {
				t.Helper()
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: got %#v, want %#v", what, got, want)
				}
			}
			check("SetNX", c.SetNX(ctx, p+"a", "1", 0).Val(), true)
			check("SetNX again", c.SetNX(ctx, p+"a", "2", 0).Val(), false)
			check("SetArgs GET", c.SetArgs(ctx, p+"a", "3", redis.SetArgs{Get: true, KeepTTL: true}).Val(), "1")
			check("MSet", c.MSet(ctx, p+"b", "x", p+"c", "y").Val(), "OK")
			check("MGet", c.MGet(ctx, p+"a", p+"b", p+"nope").Val(), []any{"3", "x", nil})
			check("MSetNX", c.MSetNX(ctx, p+"c", "z", p+"d", "w").Val(), false)
			check("Incr", c.Incr(ctx, p+"a").Val(), int64(4))
			check("DecrBy", c.DecrBy(ctx, p+"a", 10).Val(), int64(-6))
			check("IncrByFloat", c.IncrByFloat(ctx, p+"a", 0.5).Val(), -5.5)
			check("Append", c.Append(ctx, p+"b", "yz").Val(), int64(3))
			check("GetRange", c.GetRange(ctx, p+"b", 1, -1).Val(), "yz")
			check("SetRange", c.SetRange(ctx, p+"b", 1, "Q").Val(), int64(3))
			check("StrLen", c.StrLen(ctx, p+"b").Val(), int64(3))
			check("GetSet", c.GetSet(ctx, p+"b", "new").Val(), "xQz")
			check("GetDel", c.GetDel(ctx, p+"b").Val(), "new")
			check("Get missing", c.Get(ctx, p+"b").Err(), redis.Nil)
			check("SetEx", c.SetEx(ctx, p+"e", "v", time.Minute).Val(), "OK")
			check("GetEx", c.GetEx(ctx, p+"e", time.Hour).Val(), "v")
			check("Set past", c.SetArgs(ctx, p+"e", "v", redis.SetArgs{ExpireAt: time.Unix(1, 0)}).Val(), "OK")
			check("Get expired", c.Get(ctx, p+"e").Err(), redis.Nil)
			c.MSet(ctx, p+"k1", "ohmytext", p+"k2", "mynewtext")
			check("LCS", c.LCS(ctx, &redis.LCSQuery{Key1: p + "k1", Key2: p + "k2"}).Val().MatchString, "mytext")
			m := c.LCS(ctx, &redis.LCSQuery{Key1: p + "k1", Key2: p + "k2", Idx: true, WithMatchLen: true, MinMatchLen: 4}).Val()
			check("LCS IDX", m, &redis.LCSMatch{Len: 6, Matches: []redis.LCSMatchedPosition{
				{Key1: redis.LCSPosition{Start: 4, End: 7}, Key2: redis.LCSPosition{Start: 5, End: 8}, MatchLen: 4},
			}})
		})
	}
}

func TestStringsMultiExec(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	runStrSteps(t, r, []strStep{
		{sargs("MULTI"), strOK},
		{sargs("SET", "n", "10"), harness.Status("QUEUED")},
		{sargs("INCRBY", "n", "5"), harness.Status("QUEUED")},
		{sargs("INCRBYFLOAT", "n", "0.5"), harness.Status("QUEUED")},
		{sargs("MSET", "a", "1", "b"), harness.Status("QUEUED")}, // arity -3 passes; the pair check fails at EXEC
		{sargs("INCR", "n"), harness.Status("QUEUED")},
		{sargs("APPEND", "n", "x"), harness.Status("QUEUED")},
		{sargs("GETDEL", "n"), harness.Status("QUEUED")},
		{sargs("EXEC"), []any{strOK, int64(15), "15.5", harness.Err("ERR wrong number of arguments for 'mset' command"),
			strErrNotInt, int64(5), "15.5x"}},
		{sargs("MULTI"), strOK},
		{sargs("SET", "n"), harness.Err("ERR wrong number of arguments for 'set' command")},
		{sargs("EXEC"), harness.Err("EXECABORT Transaction discarded because of previous errors.")},
	})

	// WATCH sees a string write from another connection.
	other := s.Raw(t)
	runStrSteps(t, r, []strStep{
		{sargs("SET", "w", "1"), strOK},
		{sargs("WATCH", "w"), strOK},
	})
	runStrSteps(t, other, []strStep{{sargs("INCR", "w"), int64(2)}})
	runStrSteps(t, r, []strStep{
		{sargs("MULTI"), strOK},
		{sargs("INCR", "w"), harness.Status("QUEUED")},
		{sargs("EXEC"), nil},
		{sargs("GET", "w"), "2"},
	})
}

// MSET and MGET lock every key's shard, so a reader never sees half of a
// concurrent MSET.
func TestStringsMSetIsAtomic(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	c := s.Client(t)
	keys := []string{"atom:a", "atom:b", "atom:c", "atom:d", "atom:e", "atom:f"}
	c.MSet(ctx, "atom:a", "0", "atom:b", "0", "atom:c", "0", "atom:d", "0", "atom:e", "0", "atom:f", "0")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := s.Client(t)
		for i := 1; i <= 500; i++ {
			v := fmt.Sprint(i)
			args := make([]any, 0, 2*len(keys))
			for _, k := range keys {
				args = append(args, k, v)
			}
			if err := w.MSet(ctx, args...).Err(); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 500; i++ {
		vals, err := c.MGet(ctx, keys...).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals[1:] {
			if v != vals[0] {
				t.Fatalf("MGET saw a partial MSET: %v", vals)
			}
		}
	}
	wg.Wait()
}

// Redis disturbs WATCH only when a write really modifies the key: a SET NX
// that sets nothing or a failed INCR leaves the transaction free to run.
func TestStringsWatchOnlySeesRealChanges(t *testing.T) {
	s := harness.Start(t)
	r, other := s.Raw(t), s.Raw(t)
	for _, tc := range []struct {
		write   []string
		aborted bool
	}{
		{sargs("SET", "k", "x", "NX"), false},
		{sargs("SET", "nokey", "x", "XX"), false},
		{sargs("SETNX", "k", "x"), false},
		{sargs("MSETNX", "nokey", "1", "k", "2"), false},
		{sargs("GETEX", "k"), false},
		{sargs("GETEX", "k", "PERSIST"), false}, // k has no TTL to remove
		{sargs("GETDEL", "nokey"), false},
		{sargs("INCR", "k"), false}, // not an integer
		{sargs("SETRANGE", "k", "0", ""), false},
		{sargs("SETEX", "k", "0", "v"), false},
		{sargs("MSET", "k", "1", "nokey"), false}, // odd pair count
		{sargs("SET", "k", "x", "XX"), true},
		{sargs("APPEND", "k", ""), true}, // Redis signals even an empty APPEND
		{sargs("SETRANGE", "k", "1", "x"), true},
		{sargs("GETEX", "k", "EX", "100"), true},
		{sargs("GETDEL", "k"), true},
		{sargs("MSETNX", "nokey", "1"), true},
		{sargs("INCRBYFLOAT", "nokey", "1"), true},
	} {
		r.Do("FLUSHALL")
		r.Do("SET", "k", "abc")
		r.Do("WATCH", "k", "nokey")
		other.Do(tc.write...)
		r.Do("MULTI")
		r.Do("PING")
		got := r.Do("EXEC")
		if aborted := got == nil; aborted != tc.aborted {
			t.Errorf("WATCH then %q: EXEC = %#v, want aborted=%v", tc.write, got, tc.aborted)
		}
	}
}

// MGET looks its keys up in batches (prefetching each batch): replies stay
// in argument order across batch boundaries, with nil for missing keys,
// other types, and keys that expired, and repeated keys answered each time.
func TestMGetManyKeys(t *testing.T) {
	s := harness.Start(t)
	c := s.Client(t, harness.Resp2)
	ctx := context.Background()
	var keys []string
	var want []any
	for i := range 45 {
		k := fmt.Sprintf("mg:%d", i)
		keys = append(keys, k)
		switch i % 5 {
		case 0:
			want = append(want, nil) // never set
		case 1:
			c.RPush(ctx, k, "x")
			want = append(want, nil) // a list
		case 2:
			c.Set(ctx, k, "gone", time.Millisecond)
			want = append(want, nil) // expires below
		default:
			c.Set(ctx, k, "v"+fmt.Sprint(i), 0)
			want = append(want, "v"+fmt.Sprint(i))
		}
	}
	keys = append(keys, "mg:3", "mg:0", "mg:3")
	want = append(want, "v3", nil, "v3")
	time.Sleep(5 * time.Millisecond)
	got, err := c.MGet(ctx, keys...).Result()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MGET of %d keys:\n got %v\nwant %v", len(keys), got, want)
	}
	if n := c.Exists(ctx, "mg:2", "mg:7").Val(); n != 0 {
		t.Fatalf("expired keys still exist: %d", n)
	}
}

// MSET prefetches its keys in batches of 16: every pair lands, across batch
// boundaries, and a key given twice keeps its last value, as in Redis.
func TestMSetManyKeys(t *testing.T) {
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	var args []any
	var keys []string
	for i := range 40 {
		k := fmt.Sprintf("ms:%d", i%37) // keys 0-2 twice
		args = append(args, k, fmt.Sprint(i))
	}
	for i := range 37 {
		keys = append(keys, fmt.Sprintf("ms:%d", i))
	}
	if err := c.MSet(ctx, args...).Err(); err != nil {
		t.Fatal(err)
	}
	got := c.MGet(ctx, keys...).Val()
	for i, v := range got {
		want := fmt.Sprint(i)
		if i < 3 {
			want = fmt.Sprint(i + 37)
		}
		if v != want {
			t.Fatalf("ms:%d = %v, want %s", i, v, want)
		}
	}
}

// BenchmarkStringMemory reports the heap per key (see heapPer) of 1M string
// keys as valkey-benchmark and scripts/bench-10m.sh write them: "key:%012d"
// -> "xxx", 1000 per MSET.
func BenchmarkStringMemory(b *testing.B) {
	const n = 1_000_000
	heapPer(b, "bytes/key", n, func(r *harness.Conn) {
		for batch := 0; batch < n; batch += 1000 {
			args := []string{"MSET"}
			for i := batch; i < batch+1000; i++ {
				args = append(args, fmt.Sprintf("key:%012d", i), "xxx")
			}
			r.Do(args...)
		}
		if got := r.Do("DBSIZE"); got != int64(n) {
			b.Fatalf("DBSIZE %v", got)
		}
	})
}
