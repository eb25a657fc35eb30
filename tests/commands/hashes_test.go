package commands

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Hash commands over a socket. Expected replies are redis 8.0.2's, recorded
// with redis8-cli (and diffed byte for byte against HotKV in RESP2 and
// RESP3) for the same sequence of commands.

// hstep is one command of a sequence and its reply in RESP2 and RESP3.
type hstep struct {
	args   []string
	r2, r3 any
}

// same is a step whose reply has one shape in both protocols.
func same(want any, args ...string) hstep { return hstep{args, want, want} }

// shapes is a step whose RESP3 reply differs.
func shapes(r2, r3 any, args ...string) hstep { return hstep{args, r2, r3} }

// runSteps plays steps on a fresh server in RESP2, then on another in RESP3.
// With HOTKV_REFERENCE=host:port it plays them against that server instead
// (flushed first): that is how the expectations were checked against redis
// 8.0.2.
func runHashSteps(t *testing.T, steps []hstep) {
	t.Helper()
	for _, proto := range []int{2, 3} {
		var r *harness.Conn
		if addr := os.Getenv("HOTKV_REFERENCE"); addr != "" {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			r = &harness.Conn{T: t, NetConn: c, Reader: bufio.NewReader(c)}
			r.Do("FLUSHALL")
		} else {
			r = harness.Start(t).Raw(t)
		}
		if proto == 3 {
			r.Do("HELLO", "3")
		}
		for i, st := range steps {
			want := st.r2
			if proto == 3 {
				want = st.r3
			}
			if got := r.Do(st.args...); !matches(got, want) {
				t.Fatalf("RESP%d step %d %q: got %#v, want %#v", proto, i, st.args, got, want)
			}
		}
	}
}

// about is an integer reply of a remaining time in seconds: n, or a little
// less on a slow machine.
type about int64

// matches is reflect.DeepEqual, except that an about matches the integers
// from n-2 to n.
func matches(got, want any) bool {
	switch w := want.(type) {
	case about:
		g, ok := got.(int64)
		return ok && g <= int64(w) && g >= int64(w)-2
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !matches(g[i], w[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}

const (
	errWrongType = harness.Err("WRONGTYPE Operation against a key holding the wrong kind of value")
	notFloat     = harness.Err("ERR value is not a valid float")
)

func arityErr(cmd string) harness.Err {
	return harness.Err("ERR wrong number of arguments for '" + cmd + "' command")
}

func TestHashBasicCommands(t *testing.T) {
	ok := harness.Status("OK")
	runHashSteps(t, []hstep{
		same(ok, "SET", "s", "x"),
		same(int64(2), "HSET", "h", "a", "1", "b", "2"),
		same(arityErr("hset"), "HSET", "h", "a"),
		same(arityErr("hset"), "HSET", "h", "a", "1", "b"),
		same(arityErr("hmset"), "HMSET", "h", "a"),
		same(ok, "HMSET", "h", "c", "3"),
		same(int64(0), "HSET", "h", "a", "1"),
		same(errWrongType, "HSET", "s", "a", "1"),
		same(errWrongType, "HGET", "s", "a"),
		same(errWrongType, "HMGET", "s", "a"),
		same(errWrongType, "HGETALL", "s"),
		same(errWrongType, "HLEN", "s"),
		same("1", "HGET", "h", "a"),
		same(nil, "HGET", "h", "zz"),
		same(nil, "HGET", "nokey", "a"),
		same([]any{"1", nil, "3"}, "HMGET", "h", "a", "zz", "c"),
		same([]any{nil, nil}, "HMGET", "nokey", "a", "b"),
		shapes([]any{"a", "1", "b", "2", "c", "3"}, harness.Map{"a", "1", "b", "2", "c", "3"}, "HGETALL", "h"),
		shapes([]any{}, harness.Map{}, "HGETALL", "nokey"),
		same([]any{"a", "b", "c"}, "HKEYS", "h"),
		same([]any{"1", "2", "3"}, "HVALS", "h"),
		same([]any{}, "HKEYS", "nokey"),
		same([]any{}, "HVALS", "nokey"),
		same(int64(3), "HLEN", "h"),
		same(int64(0), "HLEN", "nokey"),
		same(int64(1), "HEXISTS", "h", "a"),
		same(int64(0), "HEXISTS", "h", "zz"),
		same(int64(0), "HEXISTS", "nokey", "a"),
		same(int64(1), "HSTRLEN", "h", "a"),
		same(int64(0), "HSTRLEN", "h", "zz"),
		same(int64(0), "HSTRLEN", "nokey", "a"),
		same(int64(0), "HSETNX", "h", "a", "9"),
		same(int64(1), "HSETNX", "h", "z", "9"),
		same(int64(1), "HSETNX", "h2", "z", "9"),
		same(int64(1), "HDEL", "h", "z", "zz", "z"),
		same(int64(0), "HDEL", "nokey", "a"),
		same(int64(1), "HDEL", "h2", "z"),
		same(int64(0), "EXISTS", "h2"), // the last field took the key with it
		// HINCRBY / HINCRBYFLOAT
		same(int64(5), "HINCRBY", "h", "n", "5"),
		same(errNotInt, "HINCRBY", "h", "n", "x"),
		same(errNotInt, "HINCRBY", "h", "n", " 1"),
		same(harness.Err("ERR increment or decrement would overflow"), "HINCRBY", "h", "n", "9223372036854775807"),
		same(int64(-10), "HINCRBY", "h", "a", "-11"),
		same(int64(2), "HSET", "h", "t", "abc", "z0", "007"),
		same(harness.Err("ERR hash value is not an integer"), "HINCRBY", "h", "t", "1"),
		same(harness.Err("ERR hash value is not an integer"), "HINCRBY", "h", "z0", "1"),
		same(harness.Err("ERR hash value is not a float"), "HINCRBYFLOAT", "h", "t", "1"),
		same("8", "HINCRBYFLOAT", "h", "z0", "1"),
		same("0.1", "HINCRBYFLOAT", "h", "f", "0.1"),
		same("0.3", "HINCRBYFLOAT", "h", "f", "0.2"),
		same("1234567890.42345678899437189", "HINCRBYFLOAT", "h", "f", "1234567890.123456789"),
		same("16", "HINCRBYFLOAT", "h", "x16", "0x10"),
		same(harness.Err("ERR value is NaN or Infinity"), "HINCRBYFLOAT", "h", "f", "inf"),
		same(notFloat, "HINCRBYFLOAT", "h", "f", "nan"),
		same(notFloat, "HINCRBYFLOAT", "h", "f", "1 "),
		same(errWrongType, "HINCRBYFLOAT", "s", "f", "1"),
		same(notFloat, "HINCRBYFLOAT", "s", "f", "x"), // the increment is checked first
		same(errNotInt, "HINCRBY", "s", "f", "x"),
		same(errWrongType, "HINCRBY", "s", "f", "1"),
		same(arityErr("hincrby"), "HINCRBY", "h", "f"),
		same(arityErr("hget"), "HGET", "h"),
		same(arityErr("hgetall"), "HGETALL", "h", "x"),
	})
}

func TestHashRandFieldAndScan(t *testing.T) {
	runHashSteps(t, []hstep{
		same(harness.Status("OK"), "SET", "s", "x"),
		same(int64(3), "HSET", "h", "a", "1", "b", "2", "c", "3"),
		same(nil, "HRANDFIELD", "nokey"),
		same([]any{}, "HRANDFIELD", "nokey", "5"),
		same([]any{}, "HRANDFIELD", "nokey", "-5", "WITHVALUES"),
		same(errWrongType, "HRANDFIELD", "s"),
		same(errWrongType, "HRANDFIELD", "s", "1"),
		same(errNotInt, "HRANDFIELD", "s", "x"),
		same(errNotInt, "HRANDFIELD", "h", "9223372036854775808"),
		same(errSyntax, "HRANDFIELD", "h", "1", "zz"),
		same(errSyntax, "HRANDFIELD", "h", "1", "withvalues", "x"),
		same(errSyntax, "HRANDFIELD", "nokey", "1", "zz"),
		same(harness.Err("ERR value is out of range"), "HRANDFIELD", "h", "9223372036854775807", "withvalues"),
		same(harness.Err("ERR value is out of range"), "HRANDFIELD", "h", "-4611686018427387904", "withvalues"),
		same(harness.Err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"),
			"HRANDFIELD", "h", "-9223372036854775808"),
		same([]any{}, "HRANDFIELD", "h", "0"),
		same([]any{}, "HRANDFIELD", "h", "0", "WITHVALUES"),
		// A count at least the size returns the whole hash in its order.
		same([]any{"a", "b", "c"}, "HRANDFIELD", "h", "3"),
		shapes([]any{"a", "1", "b", "2", "c", "3"}, []any{[]any{"a", "1"}, []any{"b", "2"}, []any{"c", "3"}},
			"HRANDFIELD", "h", "4611686018427387903", "withvalues"),
		// HSCAN: a small hash comes whole with cursor 0, whatever the cursor.
		same([]any{"0", []any{"a", "1", "b", "2", "c", "3"}}, "HSCAN", "h", "0"),
		same([]any{"0", []any{"a", "1", "b", "2", "c", "3"}}, "HSCAN", "h", "123", "COUNT", "1"),
		same([]any{"0", []any{"a", "b", "c"}}, "HSCAN", "h", "0", "NOVALUES"),
		same([]any{"0", []any{"b"}}, "HSCAN", "h", "0", "novalues", "match", "[b-b]"),
		same([]any{"0", []any{"c", "3"}}, "HSCAN", "h", "0", "MATCH", "a*", "MATCH", "c"),
		same([]any{"0", []any{}}, "HSCAN", "nokey", "0"),
		same([]any{"0", []any{}}, "HSCAN", "nokey", "0", "COUNT", "0"), // options unchecked without a key
		same(harness.Err("ERR invalid cursor"), "HSCAN", "h", "x"),
		same(harness.Err("ERR invalid cursor"), "HSCAN", "h", "-1"),
		same(harness.Err("ERR invalid cursor"), "HSCAN", "h", "18446744073709551616"),
		same(harness.Err("ERR invalid cursor"), "HSCAN", "s", "x"),
		same(errWrongType, "HSCAN", "s", "0"),
		same(errSyntax, "HSCAN", "h", "0", "COUNT", "0"),
		same(errNotInt, "HSCAN", "h", "0", "COUNT", "x"),
		same(errSyntax, "HSCAN", "h", "0", "MATCH"),
		same(errSyntax, "HSCAN", "h", "0", "TYPE", "string"),
		same(arityErr("hscan"), "HSCAN", "h"),
	})
}

func TestHashFieldExpiryCommands(t *testing.T) {
	const far = "4102444800123" // 2100-01-01, in ms
	runHashSteps(t, []hstep{
		same(harness.Status("OK"), "SET", "s", "x"),
		same(int64(3), "HSET", "e", "a", "1", "b", "2", "c", "3"),
		same(arityErr("hexpire"), "HEXPIRE", "e", "100", "FIELDS", "1"),
		same(harness.Err("ERR Parameter `numFields` should be greater than 0"), "HEXPIRE", "e", "100", "FIELDS", "0", "a"),
		same(harness.Err("ERR Parameter `numFields` should be greater than 0"), "HEXPIRE", "e", "100", "FIELDS", "x", "a"),
		same(harness.Err("ERR The `numfields` parameter must match the number of arguments"), "HEXPIRE", "e", "100", "FIELDS", "2", "a"),
		same(harness.Err("ERR The `numfields` parameter must match the number of arguments"), "HEXPIRE", "e", "100", "FIELDS", "1", "a", "b"),
		same(harness.Err("ERR Mandatory argument FIELDS is missing or not at the right position"), "HEXPIRE", "e", "100", "zz", "FIELDS", "1", "a"),
		same(harness.Err("ERR invalid expire time, must be >= 0"), "HEXPIRE", "e", "-1", "FIELDS", "1", "a"),
		same(errNotInt, "HEXPIRE", "e", "x", "FIELDS", "1", "a"),
		same(errNotInt, "HEXPIRE", "nokey", "x", "FIELDS", "1", "a"),
		same(errWrongType, "HEXPIRE", "s", "x", "FIELDS", "1", "a"), // the key is looked at first
		same([]any{int64(-2), int64(-2)}, "HEXPIRE", "nokey", "100", "FIELDS", "2", "a", "b"),
		same(harness.Err("ERR invalid expire time in 'hexpire' command"), "HEXPIRE", "e", "70368744177", "FIELDS", "1", "a"),
		same(harness.Err("ERR invalid expire time in 'hpexpireat' command"), "HPEXPIREAT", "e", "70368744177664", "FIELDS", "1", "a"),
		same([]any{int64(1)}, "HEXPIREAT", "e", "70368744177", "FIELDS", "1", "a"),
		same([]any{int64(70368744177)}, "HEXPIRETIME", "e", "FIELDS", "1", "a"),
		same([]any{int64(1), int64(-2)}, "HPEXPIREAT", "e", far, "FIELDS", "2", "a", "zz"),
		same([]any{int64(4102444800123), int64(-1), int64(-2)}, "HPEXPIRETIME", "e", "FIELDS", "3", "a", "b", "zz"),
		same([]any{int64(4102444801)}, "HEXPIRETIME", "e", "FIELDS", "1", "a"), // rounded up
		same([]any{int64(0), int64(0)}, "HPEXPIREAT", "e", far, "GT", "FIELDS", "2", "a", "b"),
		same([]any{int64(1)}, "HPEXPIREAT", "e", "4102444800124", "gt", "FIELDS", "1", "a"),
		same([]any{int64(1), int64(1)}, "HPEXPIREAT", "e", "4102444800000", "LT", "FIELDS", "2", "a", "b"),
		same([]any{int64(0), int64(1)}, "HPEXPIREAT", "e", "4102444800000", "NX", "FIELDS", "2", "a", "c"),
		same([]any{int64(1), int64(-2)}, "HPEXPIREAT", "e", "4102444900000", "XX", "FIELDS", "2", "a", "zz"),
		same([]any{int64(1), int64(1), int64(-2)}, "HPERSIST", "e", "FIELDS", "3", "a", "c", "zz"),
		same([]any{int64(-1)}, "HPERSIST", "e", "FIELDS", "1", "a"),
		same([]any{int64(-2), int64(-2)}, "HPERSIST", "nokey", "FIELDS", "2", "a", "b"),
		same(harness.Err("ERR Number of fields must be a positive integer"), "HPERSIST", "e", "FIELDS", "0", "a"),
		same(harness.Err("ERR Mandatory argument FIELDS is missing or not at the right position"), "HTTL", "e", "FIELDZ", "1", "a"),
		same(harness.Err("ERR The `numfields` parameter must match the number of arguments"), "HPTTL", "nokey", "FIELDS", "2", "a"),
		same(errWrongType, "HTTL", "s", "FIELDS", "1", "a"),
		same([]any{int64(-2), int64(-2)}, "HTTL", "nokey", "FIELDS", "2", "a", "b"),
		same([]any{int64(1)}, "HEXPIRE", "e", "100", "FIELDS", "1", "c"),
		same([]any{about(100), int64(-1), int64(-2)}, "HTTL", "e", "FIELDS", "3", "c", "a", "zz"),
		// HSET drops a field's expiry; HINCRBY keeps it.
		same([]any{int64(1), int64(1)}, "HPEXPIREAT", "e", "4102444800000", "FIELDS", "2", "a", "b"),
		same(int64(0), "HSET", "e", "a", "5"),
		same(int64(3), "HINCRBY", "e", "b", "1"),
		same([]any{int64(-1), int64(4102444800000)}, "HPEXPIRETIME", "e", "FIELDS", "2", "a", "b"),
		// Fields ordered by expiry, as in Redis's listpackex.
		same([]any{"c", "b", "a"}, "HKEYS", "e"),
		// A time in the past deletes (2); a repeated field is then gone (-2).
		same([]any{int64(2), int64(-2)}, "HPEXPIREAT", "e", "1", "FIELDS", "2", "a", "a"),
		same([]any{int64(2), int64(2)}, "HEXPIRE", "e", "0", "FIELDS", "2", "b", "c"),
		same(int64(0), "EXISTS", "e"),
	})
}

func TestHashGetDelGetExSetEx(t *testing.T) {
	mandatory := harness.Err("ERR Mandatory argument FIELDS is missing or not at the right position")
	mismatch := harness.Err("ERR The `numfields` parameter must match the number of arguments")
	positive := harness.Err("ERR Number of fields must be a positive integer")
	oneExpiry := harness.Err("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
	runHashSteps(t, []hstep{
		same(harness.Status("OK"), "SET", "s", "x"),
		same(int64(3), "HSET", "h", "a", "1", "b", "2", "c", "3"),
		// HGETDEL
		same([]any{"1", nil}, "HGETDEL", "h", "FIELDS", "2", "a", "zz"),
		same(positive, "HGETDEL", "h", "FIELDS", "0", "a"),
		same(positive, "HGETDEL", "h", "FIELDS", "9223372036854775808", "a"),
		same(mandatory, "HGETDEL", "h", "FIELDZ", "1", "a"),
		same(mismatch, "HGETDEL", "h", "FIELDS", "2", "a"),
		same([]any{nil, nil}, "HGETDEL", "nokey", "FIELDS", "2", "a", "b"),
		same(errWrongType, "HGETDEL", "s", "FIELDS", "1", "a"),
		same(arityErr("hgetdel"), "HGETDEL", "h", "FIELDS", "1"),
		same([]any{"2", nil}, "HGETDEL", "h", "FIELDS", "2", "b", "b"),
		same([]any{"3"}, "HGETDEL", "h", "FIELDS", "1", "c"),
		same(int64(0), "EXISTS", "h"),
		// HGETEX
		same(int64(3), "HSET", "h", "a", "1", "b", "2", "c", "3"),
		same([]any{"1", nil}, "HGETEX", "h", "FIELDS", "2", "a", "zz"),
		same([]any{"1", nil}, "HGETEX", "h", "EX", "100", "FIELDS", "2", "a", "zz"),
		same([]any{about(100)}, "HTTL", "h", "FIELDS", "1", "a"),
		same([]any{"1"}, "HGETEX", "h", "persist", "FIELDS", "1", "a"),
		same([]any{int64(-1)}, "HTTL", "h", "FIELDS", "1", "a"),
		same(harness.Err("ERR invalid expire time, must be >= 0"), "HGETEX", "h", "EX", "-1", "FIELDS", "1", "a"),
		same(errNotInt, "HGETEX", "h", "EX", "x", "FIELDS", "1", "a"),
		same(harness.Err("ERR invalid expire time in 'hgetex' command"), "HGETEX", "h", "EX", "99999999999999", "FIELDS", "1", "c"),
		same(mandatory, "HGETEX", "h", "EX", "100", "EX", "100", "FIELDS", "1", "a"),
		same(mandatory, "HGETEX", "h", "zz", "FIELDS", "1", "a"),
		same(mismatch, "HGETEX", "h", "FIELDS", "2", "a"),
		same(positive, "HGETEX", "h", "PX", "10", "FIELDS", "0", "a"),
		same(arityErr("hgetex"), "HGETEX", "h", "EX", "10", "FIELDS"),
		same(arityErr("hgetex"), "HGETEX", "h", "EX", "10", "zz"),
		same(errNotInt, "HGETEX", "h", "EX", "x", "FIELDS"),
		same([]any{nil, nil}, "HGETEX", "nokey", "EX", "10", "FIELDS", "2", "a", "b"),
		same(errWrongType, "HGETEX", "s", "PERSIST", "zz", "1"),
		same([]any{"2", "2"}, "HGETEX", "h", "PXAT", "4102444800000", "FIELDS", "2", "b", "b"),
		same([]any{int64(4102444800000)}, "HPEXPIRETIME", "h", "FIELDS", "1", "b"),
		same([]any{"2", nil}, "HGETEX", "h", "EXAT", "1", "FIELDS", "2", "b", "b"), // in the past: deleted
		same([]any{"1", "3"}, "HGETEX", "h", "PX", "0", "FIELDS", "2", "a", "c"),
		same(int64(0), "EXISTS", "h"),
		// HSETEX
		same(int64(1), "HSETEX", "h", "FIELDS", "1", "a", "10"),
		same(arityErr("hsetex"), "HSETEX", "h", "FIELDS", "2", "a", "10"),
		same(arityErr("hsetex"), "HSETEX", "h", "FIELDS", "1", "a", "10", "b", "20"),
		same(arityErr("hsetex"), "HSETEX", "h", "EX", "10", "FIELDS", "1", "a"),
		same(arityErr("hsetex"), "HSETEX", "h", "FIELDS", "1", "a", "1", "EX", "10"),
		same(harness.Err("ERR invalid number of fields"), "HSETEX", "h", "FIELDS", "0", "a", "1"),
		same(harness.Err("ERR invalid number of fields"), "HSETEX", "h", "FIELDS", "2147483648", "a", "1"),
		same(int64(1), "HSETEX", "h", "EX", "100", "FIELDS", "1", "a", "11"),
		same([]any{about(100)}, "HTTL", "h", "FIELDS", "1", "a"),
		same(int64(1), "HSETEX", "h", "KEEPTTL", "FIELDS", "1", "a", "12"),
		same([]any{about(100)}, "HTTL", "h", "FIELDS", "1", "a"),
		same(int64(1), "HSETEX", "h", "FIELDS", "1", "a", "13"),
		same([]any{int64(-1)}, "HTTL", "h", "FIELDS", "1", "a"),
		same(int64(0), "HSETEX", "h", "FNX", "FIELDS", "2", "new", "1", "a", "1"),
		same(int64(0), "HSETEX", "h", "FXX", "FIELDS", "2", "a", "1", "zz", "2"),
		same(int64(1), "HSETEX", "h", "FXX", "PXAT", "4102444800000", "FIELDS", "1", "a", "14"),
		same(int64(1), "HSETEX", "h", "FNX", "FIELDS", "2", "n", "1", "n", "2"),
		same([]any{"14", "2"}, "HMGET", "h", "a", "n"),
		same([]any{int64(4102444800000)}, "HPEXPIRETIME", "h", "FIELDS", "1", "a"),
		same(harness.Err("ERR Only one of FXX or FNX arguments can be specified"), "HSETEX", "h", "FNX", "FXX", "FIELDS", "1", "a", "1"),
		same(oneExpiry, "HSETEX", "h", "EX", "1", "PX", "1", "FIELDS", "1", "a", "1"),
		same(oneExpiry, "HSETEX", "h", "KEEPTTL", "KEEPTTL", "FIELDS", "1", "a", "1"),
		same(harness.Err("ERR unknown argument: zz"), "HSETEX", "h", "zz", "FIELDS", "1", "a", "1"),
		same(errNotInt, "HSETEX", "h", "EX", "FIELDS", "1", "a", "1"),
		same(oneExpiry, "HSETEX", "h", "FNX", "EX", "10", "KEEPTTL"),
		same(errWrongType, "HSETEX", "s", "FIELDS", "1", "a", "1"),
		same(int64(0), "HSETEX", "nokey", "FXX", "FIELDS", "1", "a", "1"),
		same(int64(1), "HSETEX", "nokey", "PX", "0", "FIELDS", "1", "a", "1"),
		same(int64(0), "EXISTS", "nokey"),
	})
}

// TestHashGoRedis drives the commands through go-redis in both protocols,
// as applications do.
func TestHashGoRedis(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for name, c := range map[string]*redis.Client{"resp3": s.Client(t), "resp2": s.Client(t, harness.Resp2)} {
		key := "gr" + name
		if n, err := c.HSet(ctx, key, "a", "1", "b", "2").Result(); err != nil || n != 2 {
			t.Fatalf("%s: HSET = %d, %v", name, n, err)
		}
		all, err := c.HGetAll(ctx, key).Result()
		if err != nil || !reflect.DeepEqual(all, map[string]string{"a": "1", "b": "2"}) {
			t.Fatalf("%s: HGETALL = %v, %v", name, all, err)
		}
		res, err := c.HExpire(ctx, key, time.Minute, "a", "zz").Result()
		if err != nil || !reflect.DeepEqual(res, []int64{1, -2}) {
			t.Fatalf("%s: HEXPIRE = %v, %v", name, res, err)
		}
		ttl, err := c.HTTL(ctx, key, "a", "b").Result()
		if err != nil || len(ttl) != 2 || ttl[0] < 58 || ttl[0] > 60 || ttl[1] != -1 {
			t.Fatalf("%s: HTTL = %v, %v", name, ttl, err)
		}
		f, err := c.HIncrByFloat(ctx, key, "b", 0.5).Result()
		if err != nil || f != 2.5 {
			t.Fatalf("%s: HINCRBYFLOAT = %v, %v", name, f, err)
		}
		kv, err := c.HRandFieldWithValues(ctx, key, 5).Result()
		if err != nil || len(kv) != 2 {
			t.Fatalf("%s: HRANDFIELD WITHVALUES = %v, %v", name, kv, err)
		}
		vals, err := c.HGetDel(ctx, key, "a", "zz").Result()
		if err != nil || !reflect.DeepEqual(vals, []string{"1", ""}) {
			t.Fatalf("%s: HGETDEL = %q, %v", name, vals, err)
		}
		keys, cur, err := c.HScan(ctx, key, 0, "*", 10).Result()
		if err != nil || cur != 0 || !reflect.DeepEqual(keys, []string{"b", "2.5"}) {
			t.Fatalf("%s: HSCAN = %q %d, %v", name, keys, cur, err)
		}
	}
}

// TestHashBigTable: past the compact form, fields live in a table; HSCAN
// walks it with a cursor and still returns every field.
func TestHashBigTable(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	const n = 2000
	args := []string{"HSET", "big"}
	for i := 0; i < n; i++ {
		args = append(args, fmt.Sprint("f", i), fmt.Sprint("v", i))
	}
	if got := r.Do(args...); got != int64(n) {
		t.Fatalf("HSET = %v", got)
	}
	seen := map[string]string{}
	cursor, rounds := "0", 0
	for {
		rep := r.Do("HSCAN", "big", cursor, "COUNT", "100").([]any)
		items := rep[1].([]any)
		for i := 0; i < len(items); i += 2 {
			seen[items[i].(string)] = items[i+1].(string)
		}
		rounds++
		if cursor = rep[0].(string); cursor == "0" {
			break
		}
	}
	if len(seen) != n || seen["f1999"] != "v1999" || rounds < 5 {
		t.Fatalf("HSCAN saw %d fields in %d calls", len(seen), rounds)
	}
	rep := r.Do("HRANDFIELD", "big", "-5000").([]any)
	if len(rep) != 5000 {
		t.Fatalf("HRANDFIELD -5000 returned %d", len(rep))
	}
	uniq := r.Do("HRANDFIELD", "big", "1500").([]any)
	set := map[any]bool{}
	for _, f := range uniq {
		set[f] = true
	}
	if len(set) != 1500 {
		t.Fatalf("HRANDFIELD 1500 returned %d distinct of %d", len(set), len(uniq))
	}
	if got := r.Do("HRANDFIELD", "big", "-16777217"); got != harness.Err("ERR value is out of range") {
		t.Fatalf("a huge negative count: %v", got)
	}
	if got := r.Do("HLEN", "big"); got != int64(n) {
		t.Fatalf("HLEN = %v", got)
	}
}

// waitFor polls cond every 10ms until it holds or 5s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestHashFieldLazyExpiry: with active expiry off, an expired field is
// invisible to every read and reclaimed when the hash is accessed; the key
// goes with its last field.
func TestHashFieldLazyExpiry(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	r.Do("HSET", "h", "a", "1", "b", "2", "c", "3")
	before := harness.InfoInt(t, r, "stats", "expired_subkeys")
	if got := r.Do("HPEXPIRE", "h", "20", "FIELDS", "2", "a", "b"); !reflect.DeepEqual(got, []any{int64(1), int64(1)}) {
		t.Fatalf("HPEXPIRE = %v", got)
	}
	waitFor(t, "the fields to expire", func() bool { return r.Do("HGET", "h", "a") == nil })
	for _, c := range []struct {
		args []string
		want any
	}{
		{[]string{"HEXISTS", "h", "b"}, int64(0)},
		{[]string{"HLEN", "h"}, int64(1)},
		{[]string{"HGETALL", "h"}, []any{"c", "3"}},
		{[]string{"HMGET", "h", "a", "b", "c"}, []any{nil, nil, "3"}},
		{[]string{"HTTL", "h", "FIELDS", "2", "a", "c"}, []any{int64(-2), int64(-1)}},
		{[]string{"HSCAN", "h", "0"}, []any{"0", []any{"c", "3"}}},
		{[]string{"HRANDFIELD", "h", "-3"}, []any{"c", "c", "c"}},
		{[]string{"HSETNX", "h", "a", "new"}, int64(1)},
		{[]string{"HGET", "h", "a"}, "new"},
	} {
		if got := r.Do(c.args...); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("%q after expiry: got %#v, want %#v", c.args, got, c.want)
		}
	}
	if got := r.Do("INFO", "keyspace").(string); !strings.Contains(got, "db0:keys=1,expires=0,avg_ttl=0,subexpiry=1") {
		t.Fatalf("INFO keyspace: %q", got)
	}
	if n := harness.InfoInt(t, r, "stats", "expired_subkeys") - before; n != 2 {
		t.Fatalf("expired_subkeys grew by %d, want 2", n)
	}
	r.Do("HPEXPIRE", "h", "20", "FIELDS", "2", "a", "c")
	time.Sleep(30 * time.Millisecond) // both fields are past their time; nothing has touched them
	if got := r.Do("DBSIZE"); got != int64(1) {
		t.Fatalf("without active expiry the key stays until accessed: DBSIZE %v", got)
	}
	if got := r.Do("HLEN", "h"); got != int64(0) {
		t.Fatalf("HLEN of a hash whose fields expired = %v", got)
	}
	if got := r.Do("DBSIZE"); got != int64(0) {
		t.Fatalf("the key must go with its last field: DBSIZE %v", got)
	}
}

// TestHashFieldActiveExpiry: fields nobody reads are reclaimed by the server
// cron, in chunks for a large hash, and a hash whose last field expired is
// deleted; a WATCHed hash losing fields fails the transaction.
func TestHashFieldActiveExpiry(t *testing.T) {
	s := harness.Start(t, "--hz", "100")
	r := s.Raw(t)
	const n = 3000 // several chunks of the per-visit quota
	args := []string{"HSET", "big"}
	fields := []string{"HPEXPIRE", "big", "30", "FIELDS", fmt.Sprint(n)}
	for i := 0; i < n; i++ {
		args = append(args, fmt.Sprint("f", i), "v")
		fields = append(fields, fmt.Sprint("f", i))
	}
	r.Do(append(args, "keep", "v")...)
	r.Do(fields...)
	r.Do("HSET", "small", "a", "1", "b", "2")
	r.Do("HPEXPIRE", "small", "30", "FIELDS", "2", "a", "b")
	w := s.Raw(t)
	w.Do("WATCH", "big")
	before := harness.InfoInt(t, r, "stats", "expired_subkeys")
	// Only INFO and DBSIZE until then: neither reads the hashes.
	waitFor(t, "active expiry of the fields", func() bool {
		return harness.InfoInt(t, r, "stats", "expired_subkeys")-before == n+2
	})
	if got := r.Do("DBSIZE"); got != int64(1) {
		t.Fatalf("DBSIZE = %v: the emptied hash must be gone, the other kept", got)
	}
	if got := r.Do("HGETALL", "big"); !reflect.DeepEqual(got, []any{"keep", "v"}) {
		t.Fatalf("HGETALL big = %v", got)
	}
	w.Do("MULTI")
	w.Do("HLEN", "big")
	if got := w.Do("EXEC"); got != nil {
		t.Fatalf("EXEC after the watched hash lost fields = %#v, want nil", got)
	}
}

// TestHashConcurrentExpiry: clients write, read and expire fields of shared
// hashes while the active cycle reclaims them (run with -race); afterwards
// only fields without expiry are left.
func TestHashConcurrentExpiry(t *testing.T) {
	s := harness.Start(t, "--hz", "100")
	const clients, ops = 4, 400
	done := make(chan error, clients)
	for c := 0; c < clients; c++ {
		go func(c int) {
			r := s.Raw(t)
			for i := 0; i < ops; i++ {
				key := fmt.Sprint("ch", i%3)
				f := fmt.Sprint("f", (i*7+c)%20)
				var rep any
				switch i % 5 {
				case 0, 1:
					rep = r.Do("HSET", key, f, "v")
				case 2:
					rep = r.Do("HPEXPIRE", key, fmt.Sprint(1+i%4), "FIELDS", "2", f, "f0")
				case 3:
					rep = r.Do("HGETALL", key)
				case 4:
					rep = r.Do("HSCAN", key, "0", "COUNT", "5")
				}
				if e, isErr := rep.(harness.Err); isErr {
					done <- fmt.Errorf("client %d op %d: %s", c, i, e)
					return
				}
			}
			done <- nil
		}(c)
	}
	for c := 0; c < clients; c++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	r := s.Raw(t)
	time.Sleep(20 * time.Millisecond) // past every field's time
	for i := 0; i < 3; i++ {
		key := fmt.Sprint("ch", i)
		all := pairsOf(r.Do("HGETALL", key))
		if n := r.Do("HLEN", key); n != int64(len(all)) {
			t.Fatalf("%s: HLEN %v, HGETALL %d fields", key, n, len(all))
		}
		for f, v := range all {
			if ttl := r.Do("HPTTL", key, "FIELDS", "1", f).([]any)[0]; v != "v" || ttl != int64(-1) {
				t.Fatalf("%s: field %q=%q with TTL %v outlived its time", key, f, v, ttl)
			}
		}
	}
}

// BenchmarkHashMemory reports the heap per field (see heapPer) of the two
// data sets of docs/bench/hashes.md: one hash of 1M fields "field:N" ->
// "value:N", and 100k hashes "user:K" of 10 fields each (keys included).
func BenchmarkHashMemory(b *testing.B) {
	b.Run("1Mfields", func(b *testing.B) {
		heapPer(b, "bytes/field", 1_000_000, func(r *harness.Conn) {
			for batch := range 10_000 {
				args := []string{"HSET", "big"}
				for i := batch * 100; i < (batch+1)*100; i++ {
					n := strconv.Itoa(i)
					args = append(args, "field:"+n, "value:"+n)
				}
				r.Do(args...)
			}
			if n := r.Do("HLEN", "big"); n != int64(1_000_000) {
				b.Fatalf("HLEN %v", n)
			}
		})
	})
	b.Run("100kx10", func(b *testing.B) {
		heapPer(b, "bytes/field", 1_000_000, func(r *harness.Conn) {
			for k := range 100_000 {
				args := []string{"HSET", "user:" + strconv.Itoa(k)}
				for j := range 10 {
					args = append(args, "field:"+strconv.Itoa(j), "value:"+strconv.Itoa(k*10+j))
				}
				r.Do(args...)
			}
			if n := r.Do("DBSIZE"); n != int64(100_000) {
				b.Fatalf("DBSIZE %v", n)
			}
		})
	})
}
