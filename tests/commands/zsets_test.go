package commands

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// zcase is one step of a sequential table: the command and its reply in
// RESP2 and in RESP3 (want3 == zsame: identical). Replies were taken from
// redis8-server 8.0.2; set HOTKV_REDIS_ADDR=host:port to re-check the table
// against a real Redis.
type zcase struct {
	args         []string
	want2, want3 any
}

type sameT struct{}

var zsame = sameT{}

func cmd(s string) []string { return strings.Fields(s) }

// sc is a score as RESP2 (bulk string) and RESP3 (double) answer it.
func sc(s string) (string, float64) {
	f, _ := strconv.ParseFloat(strings.Replace(s, "inf", "Inf", 1), 64)
	return s, f
}

// scored builds a WITHSCORES reply from "member score" pairs: flat in RESP2,
// [member, score] pairs in RESP3.
func scored(pairs ...string) (any, any) {
	flat, nested := []any{}, []any{}
	for i := 0; i < len(pairs); i += 2 {
		s2, s3 := sc(pairs[i+1])
		flat = append(flat, pairs[i], s2)
		nested = append(nested, []any{pairs[i], s3})
	}
	return flat, nested
}

func strs(ss ...string) []any {
	out := []any{}
	for _, s := range ss {
		out = append(out, s)
	}
	return out
}

func ws(c string, pairs ...string) zcase {
	a, b := scored(pairs...)
	return zcase{cmd(c), a, b}
}

func score(c, s string) zcase {
	a, b := sc(s)
	return zcase{cmd(c), a, b}
}

// zLong is a member too long for a listpack.
var zLong = strings.Repeat("l", 65)

const zWrongType = harness.Err("WRONGTYPE Operation against a key holding the wrong kind of value")

func zsetTable() []zcase {
	popmin2, _ := scored("a", "1")
	return []zcase{
		// ZADD and its options.
		{cmd("ZADD z 1 a 2 b 3 c"), int64(3), zsame},
		{cmd("ZADD z 1 a"), int64(0), zsame},
		{cmd("ZADD z CH 5 a 2 b 9 d"), int64(2), zsame},
		{cmd("ZADD z NX XX 1 a"), harness.Err("ERR XX and NX options at the same time are not compatible"), zsame},
		{cmd("ZADD z GT LT 1 a"), harness.Err("ERR GT, LT, and/or NX options at the same time are not compatible"), zsame},
		{cmd("ZADD z NX GT 1 a"), harness.Err("ERR GT, LT, and/or NX options at the same time are not compatible"), zsame},
		{cmd("ZADD z INCR 1 a 2 b"), harness.Err("ERR INCR option supports a single increment-element pair"), zsame},
		{cmd("ZADD z 1 a 2"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZADD z NX"), harness.Err("ERR wrong number of arguments for 'zadd' command"), zsame},
		{cmd("ZADD z x a"), harness.Err("ERR value is not a valid float"), zsame},
		{cmd("ZADD z nan a"), harness.Err("ERR value is not a valid float"), zsame},
		{cmd("ZADD z GT CH 1 a 10 b"), int64(1), zsame},
		{cmd("ZADD z LT CH 1 a 20 b"), int64(1), zsame},
		{cmd("ZADD z XX 1 new"), int64(0), zsame},
		{cmd("ZADD z INCR NX 1 a"), nil, zsame},
		{cmd("ZADD z INCR GT -1 a"), nil, zsame},
		score("ZADD z INCR 0.5 a", "1.5"),
		score("ZADD z INCR 0x10 a", "17.5"),
		{cmd("ZADD z inf a"), int64(0), zsame},
		{cmd("ZINCRBY z -inf a"), harness.Err("ERR resulting score is not a number (NaN)"), zsame},
		score("ZINCRBY z 1 a", "inf"),
		score("ZINCRBY z 1e-7 fresh", "1e-7"),
		{cmd("ZADD nokey XX 1 a"), int64(0), zsame},
		{cmd("EXISTS nokey"), int64(0), zsame},
		{cmd("SET str x"), harness.Status("OK"), zsame},
		{cmd("ZADD str 1 a"), zWrongType, zsame},
		{cmd("ZADD str x a"), harness.Err("ERR value is not a valid float"), zsame},
		// Reads.
		ws("ZRANGE z 0 -1 WITHSCORES", "fresh", "1e-7", "c", "3", "d", "9", "b", "10", "a", "inf"),
		score("ZSCORE z d", "9"),
		{cmd("ZSCORE z nope"), nil, zsame},
		{cmd("ZSCORE nokey a"), nil, zsame},
		{cmd("ZMSCORE z d nope"), []any{"9", nil}, []any{9.0, nil}},
		{cmd("ZMSCORE nokey a"), []any{nil}, zsame},
		{cmd("ZCARD z"), int64(5), zsame},
		{cmd("ZCARD nokey"), int64(0), zsame},
		{cmd("ZCARD str"), zWrongType, zsame},
		{cmd("ZCOUNT z (3 +inf"), int64(3), zsame},
		{cmd("ZCOUNT z -inf (3"), int64(1), zsame},
		{cmd("ZCOUNT z a b"), harness.Err("ERR min or max is not a float"), zsame},
		{cmd("ZCOUNT z 0x1 2"), harness.Err("ERR min or max is not a float"), zsame},
		{cmd("ZRANK z d"), int64(2), zsame},
		{cmd("ZREVRANK z d"), int64(2), zsame},
		{cmd("ZRANK z a WITHSCORE"), []any{int64(4), "inf"}, []any{int64(4), math.Inf(1)}},
		{cmd("ZREVRANK z a WITHSCORE"), []any{int64(0), "inf"}, []any{int64(0), math.Inf(1)}},
		{cmd("ZRANK z nope WITHSCORE"), nil, zsame},
		{cmd("ZRANK z a foo"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZRANK z a WITHSCORE x"), harness.Err("ERR wrong number of arguments for 'zrank' command"), zsame},
		// The ZRANGE family.
		{cmd("DEL z"), int64(1), zsame},
		{cmd("ZADD z 1 a 2 b 3 c 4 d 5 e"), int64(5), zsame},
		{cmd("ZRANGE z 1 -2"), strs("b", "c", "d"), zsame},
		{cmd("ZRANGE z -100 100 REV"), strs("e", "d", "c", "b", "a"), zsame},
		{cmd("ZRANGE z 3 1"), strs(), zsame},
		{cmd("ZREVRANGE z 0 1"), strs("e", "d"), zsame},
		ws("ZREVRANGE z 0 1 WITHSCORES", "e", "5", "d", "4"),
		{cmd("ZRANGE z (1 3 BYSCORE"), strs("b", "c"), zsame},
		ws("ZRANGE z 5 (2 BYSCORE REV LIMIT 1 2 WITHSCORES", "d", "4", "c", "3"),
		{cmd("ZRANGE z 0 -1 LIMIT 1 2"), harness.Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"), zsame},
		{cmd("ZRANGE z 0 -1 LIMIT 0 -1"), strs("a", "b", "c", "d", "e"), zsame},
		{cmd("ZRANGE z - + BYLEX WITHSCORES"), harness.Err("ERR syntax error, WITHSCORES not supported in combination with BYLEX"), zsame},
		{cmd("ZRANGE z a b BYLEX"), harness.Err("ERR min or max not valid string range item"), zsame},
		{cmd("ZRANGE z 0 1 REV REV"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZRANGE z 0 1 BYLEX BYSCORE"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZRANGE z x 1"), harness.Err("ERR value is not an integer or out of range"), zsame},
		{cmd("ZRANGE str 0 1"), zWrongType, zsame},
		{cmd("ZRANGE nokey 0 1"), strs(), zsame},
		{cmd("ZRANGEBYSCORE z -inf +inf LIMIT 1 2"), strs("b", "c"), zsame},
		{cmd("ZRANGEBYSCORE z -inf +inf LIMIT -1 2"), strs(), zsame},
		{cmd("ZRANGEBYSCORE z -inf +inf LIMIT 3 -1"), strs("d", "e"), zsame},
		{cmd("ZRANGEBYSCORE z ( (3"), strs("a", "b"), zsame},
		{cmd("ZRANGEBYSCORE z -inf +inf LIMIT 3 9223372036854775807"), strs("d", "e"), zsame},
		{cmd("ZREVRANGEBYSCORE z +inf -inf LIMIT 3 9223372036854775807"), strs("b", "a"), zsame},
		{cmd("ZRANGEBYSCORE z -inf +inf LIMIT -9223372036854775808 1"), strs(), zsame},
		{cmd("ZRANGEBYSCORE z -inf +inf LIMIT 9223372036854775807 1"), strs(), zsame},
		{cmd("ZRANGEBYSCORE z 1 2 REV"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZRANGEBYSCORE z 1 2 LIMIT 1"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZRANGEBYSCORE z 1 2 LIMIT a 1"), harness.Err("ERR value is not an integer or out of range"), zsame},
		ws("ZREVRANGEBYSCORE z +inf 4 WITHSCORES", "e", "5", "d", "4"),
		{cmd("ZREVRANGEBYSCORE z 4 +inf"), strs(), zsame},
		{cmd("DEL lex"), int64(0), zsame},
		{cmd("ZADD lex 0 a 0 b 0 c 0 d 0 e"), int64(5), zsame},
		{cmd("ZRANGEBYLEX lex [b (d"), strs("b", "c"), zsame},
		{cmd("ZRANGEBYLEX lex - + LIMIT 1 2"), strs("b", "c"), zsame},
		{cmd("ZREVRANGEBYLEX lex + [c"), strs("e", "d", "c"), zsame},
		{cmd("ZRANGEBYLEX lex - + WITHSCORES"), harness.Err("ERR syntax error, WITHSCORES not supported in combination with BYLEX"), zsame},
		{cmd("ZRANGEBYLEX lex b c"), harness.Err("ERR min or max not valid string range item"), zsame},
		{cmd("ZLEXCOUNT lex (a [c"), int64(2), zsame},
		{cmd("ZLEXCOUNT lex + -"), int64(0), zsame},
		{cmd("ZLEXCOUNT lex a b"), harness.Err("ERR min or max not valid string range item"), zsame},
		{cmd("ZRANGESTORE dst z 1 2"), int64(2), zsame},
		ws("ZRANGE dst 0 -1 WITHSCORES", "b", "2", "c", "3"),
		{cmd("ZRANGESTORE dst z 5 (3 BYSCORE REV LIMIT 0 1"), int64(1), zsame},
		{cmd("ZRANGE dst 0 -1"), strs("e"), zsame},
		{cmd("ZRANGESTORE dst z 0 -1 WITHSCORES"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZRANGESTORE dst nokey 0 -1"), int64(0), zsame},
		{cmd("EXISTS dst"), int64(0), zsame},
		// Removal; an emptied set is deleted.
		{cmd("ZREM z a nope"), int64(1), zsame},
		{cmd("ZREMRANGEBYSCORE z (4 +inf"), int64(1), zsame},
		{cmd("ZREMRANGEBYRANK z 5 1"), int64(0), zsame},
		{cmd("ZREMRANGEBYRANK z a b"), harness.Err("ERR value is not an integer or out of range"), zsame},
		{cmd("ZREMRANGEBYLEX lex [b (d"), int64(2), zsame},
		{cmd("ZREMRANGEBYLEX lex - +"), int64(3), zsame},
		{cmd("EXISTS lex"), int64(0), zsame},
		{cmd("ZREMRANGEBYRANK z 0 -1"), int64(3), zsame},
		{cmd("EXISTS z"), int64(0), zsame},
		// Pops.
		{cmd("ZADD z 1 a 2 b 3 c 4 d"), int64(4), zsame},
		{cmd("ZPOPMIN z"), popmin2, []any{"a", 1.0}},
		{cmd("ZPOPMAX z 2"), []any{"d", "4", "c", "3"}, []any{[]any{"d", 4.0}, []any{"c", 3.0}}},
		{cmd("ZPOPMIN z 0"), []any{}, zsame},
		{cmd("ZPOPMIN z -1"), harness.Err("ERR value is out of range, must be positive"), zsame},
		{cmd("ZPOPMIN z x"), harness.Err("ERR value is out of range, must be positive"), zsame},
		{cmd("ZPOPMIN z 1 2"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZPOPMIN str 0"), zWrongType, zsame},
		{cmd("ZPOPMIN nokey"), []any{}, zsame},
		{cmd("ZMPOP 2 nokey z MIN COUNT 5"), []any{"z", []any{[]any{"b", "2"}}}, []any{"z", []any{[]any{"b", 2.0}}}},
		{cmd("EXISTS z"), int64(0), zsame},
		{cmd("ZMPOP 1 z MIN"), nil, zsame},
		{cmd("ZMPOP 0 z MIN"), harness.Err("ERR numkeys should be greater than 0"), zsame},
		{cmd("ZMPOP 2 z MIN"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZMPOP 1 z MIN COUNT 0"), harness.Err("ERR count should be greater than 0"), zsame},
		{cmd("ZMPOP 1 z MIN COUNT 1 COUNT 1"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZMPOP 9223372036854775807 z MIN"), harness.Err("ERR syntax error"), zsame},
		{cmd("BZMPOP 0 9223372036854775806 z MIN"), harness.Err("ERR syntax error"), zsame},
		{cmd("BZPOPMIN z x"), harness.Err("ERR timeout is not a float or out of range"), zsame},
		{cmd("BZPOPMIN z -1"), harness.Err("ERR timeout is negative"), zsame},
		{cmd("BZPOPMIN z inf"), harness.Err("ERR timeout is out of range"), zsame},
		{cmd("BZMPOP 0 0 z MIN"), harness.Err("ERR numkeys should be greater than 0"), zsame},
		{cmd("ZADD z 1 a"), int64(1), zsame},
		{cmd("BZPOPMAX nokey z 0"), []any{"z", "a", "1"}, []any{"z", "a", 1.0}},
		// Set algebra; plain sets would count as scores of 1.
		{cmd("ZADD z1 1 a 2 b 3 c"), int64(3), zsame},
		{cmd("ZADD z2 10 b 20 c 30 d"), int64(3), zsame},
		ws("ZUNION 2 z1 z2 WITHSCORES", "a", "1", "b", "12", "c", "23", "d", "30"),
		ws("ZUNION 2 z1 z2 WEIGHTS 2 -1 AGGREGATE MAX WITHSCORES", "d", "-30", "a", "2", "b", "4", "c", "6"),
		ws("ZINTER 2 z1 z2 AGGREGATE MIN WITHSCORES", "b", "2", "c", "3"),
		ws("ZDIFF 2 z1 z2 WITHSCORES", "a", "1"),
		{cmd("ZDIFF 2 z2 z1"), strs("d"), zsame},
		{cmd("ZUNIONSTORE out 2 z1 z2 WEIGHTS 1 0"), int64(4), zsame},
		ws("ZRANGE out 0 -1 WITHSCORES", "d", "0", "a", "1", "b", "2", "c", "3"),
		{cmd("ZINTERSTORE out 2 z1 nokey"), int64(0), zsame},
		{cmd("EXISTS out"), int64(0), zsame},
		{cmd("ZDIFFSTORE out 1 z1"), int64(3), zsame},
		{cmd("ZINTERCARD 2 z1 z2"), int64(2), zsame},
		{cmd("ZINTERCARD 2 z1 z2 LIMIT 1"), int64(1), zsame},
		{cmd("ZINTERCARD 2 z1 z2 LIMIT -1"), harness.Err("ERR LIMIT can't be negative"), zsame},
		{cmd("ZUNIONSTORE out 0 z1"), harness.Err("ERR at least 1 input key is needed for 'zunionstore' command"), zsame},
		{cmd("ZINTER -1 z1"), harness.Err("ERR at least 1 input key is needed for 'zinter' command"), zsame},
		{cmd("ZUNION 3 z1"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZUNION 1 z1 WEIGHTS x"), harness.Err("ERR weight value is not a float"), zsame},
		{cmd("ZUNION 1 z1 WEIGHTS"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZDIFF 1 z1 WEIGHTS 1"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZUNIONSTORE out 1 z1 WITHSCORES"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZUNION 1 z1 AGGREGATE foo"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZUNION 2 str z1"), zWrongType, zsame},
		{cmd("ZADD inf 1 m"), int64(1), zsame},
		{cmd("ZADD ninf -inf m"), int64(1), zsame},
		{cmd("ZADD five 5 m"), int64(1), zsame},
		ws("ZUNION 3 inf ninf five WEIGHTS inf 1 1 WITHSCORES", "m", "5"), // inf + -inf is 0, then + 5
		ws("ZUNION 3 five inf ninf WEIGHTS 1 inf 1 WITHSCORES", "m", "0"),
		// ZRANDMEMBER: deterministic cases only.
		{cmd("ZRANDMEMBER z1 0"), []any{}, zsame},
		{cmd("ZRANDMEMBER nokey 5"), []any{}, zsame},
		{cmd("ZRANDMEMBER nokey"), nil, zsame},
		ws("ZRANDMEMBER z1 10 WITHSCORES", "c", "3", "b", "2", "a", "1"), // the whole set, in reverse
		{cmd("ZRANDMEMBER z1 -9223372036854775808"), harness.Err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"), zsame},
		{cmd("ZRANDMEMBER z1 5000000000000000000 WITHSCORES"), harness.Err("ERR value is out of range"), zsame},
		{cmd("ZRANDMEMBER z1 1 foo"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZRANDMEMBER str 1"), zWrongType, zsame},
		// ZSCAN of a small set: everything at once, in order, scores as strings.
		{cmd("ZSCAN z1 0"), []any{"0", strs("a", "1", "b", "2", "c", "3")}, zsame},
		{cmd("ZSCAN z1 0 MATCH [ab]"), []any{"0", strs("a", "1", "b", "2")}, zsame},
		{cmd("ZSCAN nokey 0"), []any{"0", []any{}}, zsame},
		// A skiplist's scores come as "%.17g" (ld2string), a listpack's as
		// ZSCORE answers them.
		{cmd("ZADD zsk 0.1 " + zLong), int64(1), zsame},
		{cmd("ZSCAN zsk 0"), []any{"0", strs(zLong, "0.10000000000000001")}, zsame},
		{cmd("ZADD zsk 1e20 " + zLong), int64(0), zsame},
		{cmd("ZSCAN zsk 0"), []any{"0", strs(zLong, "1e+20")}, zsame},
		{cmd("ZADD zsk 483487.1768483745 " + zLong), int64(0), zsame},
		{cmd("ZSCAN zsk 0"), []any{"0", strs(zLong, "483487.17684837448")}, zsame},
		{cmd("ZADD zsk -0 " + zLong), int64(0), zsame},
		{cmd("ZSCAN zsk 0"), []any{"0", strs(zLong, "-0")}, zsame},
		{cmd("ZADD zsk -inf " + zLong), int64(0), zsame},
		{cmd("ZSCAN zsk 0"), []any{"0", strs(zLong, "-inf")}, zsame},
		{cmd("ZADD zlp 0.1 m 483487.1768483745 n"), int64(2), zsame},
		{cmd("ZSCAN zlp 0"), []any{"0", strs("m", "0.1", "n", "4.834871768483745e+5")}, zsame},
		{cmd("ZSCAN z1 x"), harness.Err("ERR invalid cursor"), zsame},
		{cmd("ZSCAN z1 0 COUNT 0"), harness.Err("ERR syntax error"), zsame},
		{cmd("ZSCAN z1 0 COUNT x"), harness.Err("ERR value is not an integer or out of range"), zsame},
		{cmd("ZSCAN z1 0 NOVALUES"), harness.Err("ERR NOVALUES option can only be used in HSCAN"), zsame},
		{cmd("ZSCAN z1 0 MATCH"), harness.Err("ERR syntax error"), zsame},
		// A listpack stores -0 as 0. A new set is sized by its first member
		// only, so a long member later converts it after the ones before it
		// were stored; ZRANGESTORE inserts in the range's direction.
		{cmd("ZADD nz0 -0 b 1 " + zLong), int64(2), zsame},
		score("ZSCORE nz0 b", "0"),
		{cmd("ZADD nz1 1 " + zLong + " -0 b -0 c"), int64(3), zsame},
		score("ZSCORE nz1 b", "-0"),
		{cmd("ZRANGESTORE nz2 nz1 0 -1"), int64(3), zsame},
		ws("ZRANGE nz2 0 -1 WITHSCORES", "b", "0", "c", "0", zLong, "1"),
		{cmd("ZRANGESTORE nz2 nz1 0 -1 REV"), int64(3), zsame},
		ws("ZRANGE nz2 0 -1 WITHSCORES", "b", "-0", "c", "-0", zLong, "1"),
		{cmd("ZRANGESTORE nz2 nz1 +inf (0 BYSCORE REV"), int64(1), zsame},
		{cmd("ZRANGESTORE nz2 nz1 0 1"), int64(2), zsame},
		ws("ZRANGE nz2 0 -1 WITHSCORES", "b", "0", "c", "0"),
		{cmd("ZUNIONSTORE nz2 1 nz1"), int64(3), zsame},
		ws("ZRANGE nz2 0 -1 WITHSCORES", "b", "-0", "c", "-0", zLong, "1"),
		// Score formatting as Redis 7+ (fpconv/Grisu2) prints it.
		score("ZADD f INCR 1e-5 m", "0.00001"),
		score("ZADD f INCR 1e20 m", "1e+20"),
		score("ZADD f INCR 17.87999939407465 n", "17.879999394074652"),
		score("ZADD f INCR 123456789012345678 o", "123456789012345680"),
	}
}

func runZTable(t *testing.T, addr string) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprint("RESP", proto), func(t *testing.T) {
			r := (&harness.Server{Addr: addr}).Raw(t)
			r.Do("FLUSHALL")
			if proto == 3 {
				r.Do("HELLO", "3")
			}
			for _, tc := range zsetTable() {
				want := tc.want2
				if proto == 3 && tc.want3 != zsame {
					want = tc.want3
				}
				if got := r.Do(tc.args...); !reflect.DeepEqual(got, want) {
					t.Errorf("%v:\n got  %#v\n want %#v", tc.args, got, want)
				}
			}
		})
	}
}

func TestZSetCommandsTable(t *testing.T) {
	s := harness.Start(t)
	runZTable(t, s.Addr)
}

// TestZSetTableAgainstRedis runs the zsame table against a real Redis when
// HOTKV_REDIS_ADDR is set, to keep the expected replies honest.
func TestZSetTableAgainstRedis(t *testing.T) {
	addr := os.Getenv("HOTKV_REDIS_ADDR")
	if addr == "" {
		t.Skip("HOTKV_REDIS_ADDR not set")
	}
	runZTable(t, addr)
}

func TestZSetEncodingAndBigScan(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	args := []string{"ZADD", "big"}
	for i := range 1000 {
		args = append(args, strconv.Itoa(i%7), fmt.Sprintf("m%04d", i))
	}
	if got := r.Do(args...); got != int64(1000) {
		t.Fatalf("ZADD: %v", got)
	}
	// A hashtable-backed scan: cursors until 0, every member at least once.
	seen := map[string]string{}
	cursor := "0"
	for rounds := 0; ; rounds++ {
		rep := r.Do("ZSCAN", "big", cursor, "COUNT", "50").([]any)
		items := rep[1].([]any)
		for i := 0; i < len(items); i += 2 {
			seen[items[i].(string)] = items[i+1].(string)
		}
		if cursor = rep[0].(string); cursor == "0" {
			break
		}
		if rounds > 1000 {
			t.Fatal("ZSCAN does not terminate")
		}
	}
	if len(seen) != 1000 || seen["m0013"] != "6" {
		t.Fatalf("ZSCAN saw %d members, m0013=%q", len(seen), seen["m0013"])
	}
	if got := r.Do("ZRANGE", "big", "500", "502"); !reflect.DeepEqual(got, strs("m0500", "m0507", "m0514")) {
		t.Fatalf("ZRANGE 500 502 = %v", got)
	}
	if got := r.Do("ZRANGEBYSCORE", "big", "(5", "6", "LIMIT", "10", "2"); !reflect.DeepEqual(got, strs("m0076", "m0083")) {
		t.Fatalf("ZRANGEBYSCORE LIMIT = %v", got)
	}
}

func TestZSetGoRedisClients(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for name, c := range map[string]*redis.Client{"resp3": s.Client(t), "resp2": s.Client(t, harness.Resp2)} {
		k := "gz" + name
		if n, err := c.ZAdd(ctx, k, redis.Z{Score: 1.5, Member: "a"}, redis.Z{Score: -2, Member: "b"}).Result(); err != nil || n != 2 {
			t.Fatalf("%s ZADD: %v %v", name, n, err)
		}
		zs, err := c.ZRangeWithScores(ctx, k, 0, -1).Result()
		if err != nil || !reflect.DeepEqual(zs, []redis.Z{{Score: -2, Member: "b"}, {Score: 1.5, Member: "a"}}) {
			t.Fatalf("%s ZRANGE WITHSCORES: %v %v", name, zs, err)
		}
		if f, err := c.ZIncrBy(ctx, k, 0.25, "a").Result(); err != nil || f != 1.75 {
			t.Fatalf("%s ZINCRBY: %v %v", name, f, err)
		}
		if f, err := c.ZScore(ctx, k, "a").Result(); err != nil || f != 1.75 {
			t.Fatalf("%s ZSCORE: %v %v", name, f, err)
		}
		if zs, err := c.ZPopMax(ctx, k).Result(); err != nil || !reflect.DeepEqual(zs, []redis.Z{{Score: 1.75, Member: "a"}}) {
			t.Fatalf("%s ZPOPMAX: %v %v", name, zs, err)
		}
		if r, err := c.BZPopMin(ctx, time.Second, k).Result(); err != nil || r.Key != k || r.Member != "b" || r.Score != -2 {
			t.Fatalf("%s BZPOPMIN: %+v %v", name, r, err)
		}
		if err := c.BZPopMin(ctx, 50*time.Millisecond, k).Err(); err != redis.Nil {
			t.Fatalf("%s BZPOPMIN timeout: %v, want redis.Nil", name, err)
		}
		if rank, err := c.ZRankWithScore(ctx, k, "a").Result(); err != redis.Nil {
			t.Fatalf("%s ZRANK WITHSCORE on a missing key: %v %v", name, rank, err)
		}
	}
}

// Blocking pops.

// blockedClient sends cmd on its own connection and delivers the reply.
func blockedClient(t *testing.T, s *harness.Server, args ...string) (*harness.Conn, chan any) {
	r := s.Raw(t)
	r.Send(harness.Encode(args...))
	ch := make(chan any, 1)
	go func() {
		r.NetConn.SetReadDeadline(time.Now().Add(10 * time.Second))
		v, err := harness.ReadReply(r.Reader)
		if err != nil {
			ch <- err
			return
		}
		ch <- v
	}()
	return r, ch
}

// zWaitBlocked waits until the server counts n blocked clients.
func zWaitBlocked(t *testing.T, r *harness.Conn, n int) {
	t.Helper()
	want := fmt.Sprintf("blocked_clients:%d\r\n", n)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if info, _ := r.Do("INFO", "clients").(string); strings.Contains(info, want) {
			return
		}
	}
	t.Fatalf("never saw %q", strings.TrimSpace(want))
}

func recv(t *testing.T, ch chan any) any {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("no reply from the blocked client")
		return nil
	}
}

func TestBZPopFIFOAndOnePushServesSeveral(t *testing.T) {
	s := harness.Start(t)
	ctl := s.Raw(t)
	var chans []chan any
	for i := range 3 {
		_, ch := blockedClient(t, s, "BZPOPMIN", "k", "other", "0")
		chans = append(chans, ch)
		zWaitBlocked(t, ctl, i+1) // fixes the arrival order
	}
	if got := ctl.Do("ZADD", "k", "1", "a", "2", "b"); got != int64(2) {
		t.Fatalf("ZADD: %v", got)
	}
	for i, want := range [][]any{{"k", "a", "1"}, {"k", "b", "2"}} {
		if got := recv(t, chans[i]); !reflect.DeepEqual(got, want) {
			t.Fatalf("client %d got %v, want %v", i, got, want)
		}
	}
	zWaitBlocked(t, ctl, 1) // the third still waits
	ctl.Do("ZADD", "other", "7", "z")
	if got := recv(t, chans[2]); !reflect.DeepEqual(got, []any{"other", "z", "7"}) {
		t.Fatalf("third client got %v", got)
	}
	if got := ctl.Do("EXISTS", "k", "other"); got != int64(0) {
		t.Fatalf("popped sets should be gone: EXISTS = %v", got)
	}
}

func TestBZPopTimeoutPrecision(t *testing.T) {
	s := harness.Start(t)
	for _, proto := range []string{"2", "3"} {
		r := s.Raw(t)
		r.Do("HELLO", proto)
		begin := time.Now()
		got := r.Do("BZPOPMAX", "nothing", "0.25")
		took := time.Since(begin)
		if got != nil || took < 250*time.Millisecond || took > 2*time.Second {
			t.Fatalf("RESP%s: got %#v after %v, want a null after 0.25s", proto, got, took)
		}
		r.Send(harness.Encode("BZMPOP", "0.05", "1", "nothing", "MIN"))
		line, _ := r.Reader.ReadString('\n')
		if want := map[string]string{"2": "*-1\r\n", "3": "_\r\n"}[proto]; line != want {
			t.Fatalf("RESP%s BZMPOP timeout reply %q, want %q", proto, line, want)
		}
	}
}

func TestBZPopDisconnectKeepsElement(t *testing.T) {
	s := harness.Start(t)
	ctl := s.Raw(t)
	gone, _ := blockedClient(t, s, "BZPOPMIN", "k", "0")
	zWaitBlocked(t, ctl, 1)
	_, ch := blockedClient(t, s, "BZPOPMIN", "k", "0")
	zWaitBlocked(t, ctl, 2)
	gone.NetConn.Close()
	zWaitBlocked(t, ctl, 1)
	ctl.Do("ZADD", "k", "1", "a")
	if got := recv(t, ch); !reflect.DeepEqual(got, []any{"k", "a", "1"}) {
		t.Fatalf("the remaining client got %v", got)
	}
}

func TestBZPopWokenByOtherWrites(t *testing.T) {
	s := harness.Start(t)
	ctl := s.Raw(t)
	ctl.Do("ZADD", "src", "1", "a", "2", "b")

	// ZUNIONSTORE, ZRANGESTORE and a MULTI/EXEC create the key.
	for _, setup := range [][][]string{
		{{"ZUNIONSTORE", "k", "1", "src"}},
		{{"ZRANGESTORE", "k", "src", "0", "0"}},
		{{"MULTI"}, {"ZADD", "k", "1", "a"}, {"EXEC"}},
	} {
		_, ch := blockedClient(t, s, "BZMPOP", "0", "2", "k", "x", "MIN", "COUNT", "5")
		zWaitBlocked(t, ctl, 1)
		for _, c := range setup {
			ctl.Do(c...)
		}
		got, ok := recv(t, ch).([]any)
		if !ok || len(got) != 2 || got[0] != "k" {
			t.Fatalf("after %v: got %#v", setup, got)
		}
		ctl.Do("DEL", "k")
	}

	// A key that becomes another type keeps the client waiting, as in Redis.
	_, ch := blockedClient(t, s, "BZPOPMIN", "k", "0")
	zWaitBlocked(t, ctl, 1)
	ctl.Do("SET", "k", "string")
	zWaitBlocked(t, ctl, 1)
	ctl.Do("DEL", "k")
	ctl.Do("ZADD", "k", "3", "c")
	if got := recv(t, ch); !reflect.DeepEqual(got, []any{"k", "c", "3"}) {
		t.Fatalf("after SET/DEL/ZADD: %v", got)
	}
}

func TestBZPopInsideMulti(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("MULTI")
	r.Do("BZPOPMIN", "empty", "0")
	r.Do("BZMPOP", "0", "1", "empty", "MAX")
	if got := r.Do("EXEC"); !reflect.DeepEqual(got, []any{nil, nil}) {
		t.Fatalf("EXEC = %#v, want two nulls (no blocking in MULTI)", got)
	}
}

func TestZSetRace(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.Client(t)
			for i := range 300 {
				m := fmt.Sprint(i % 50)
				c.ZIncrBy(ctx, "race", 1, m)
				c.ZRangeByScore(ctx, "race", &redis.ZRangeBy{Min: "-inf", Max: "+inf", Count: 5})
				if w == 0 {
					c.ZPopMin(ctx, "race")
				}
				c.ZUnionStore(ctx, "race2", &redis.ZStore{Keys: []string{"race", "race2"}})
			}
		}()
	}
	wg.Wait()
}

// TestZSetModel runs random operation sequences against the server and a
// sorted-slice model, comparing every reply and the final state.
func TestZSetModel(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	rng := rand.New(rand.NewPCG(11, 12))
	model := map[string]map[string]float64{}
	keys := []string{"a", "b", "c"}

	sorted := func(k string) []string { // members in (score, member) order
		m := model[k]
		out := make([]string, 0, len(m))
		for x := range m {
			out = append(out, x)
		}
		sort.Slice(out, func(i, j int) bool {
			a, b := m[out[i]], m[out[j]]
			return a < b || (a == b && out[i] < out[j])
		})
		return out
	}
	fmtScore := func(f float64) string {
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	for op := range 4000 {
		k := keys[rng.IntN(len(keys))]
		member := fmt.Sprint("m", rng.IntN(200))
		var args []string
		var want any
		switch rng.IntN(9) {
		case 0, 1, 2: // ZADD
			sc := float64(rng.IntN(40)) / 4
			args = []string{"ZADD", k, fmtScore(sc), member}
			_, had := model[k][member]
			if model[k] == nil {
				model[k] = map[string]float64{}
			}
			model[k][member] = sc
			want = int64(map[bool]int{true: 0, false: 1}[had])
		case 3: // ZREM
			args = []string{"ZREM", k, member}
			_, had := model[k][member]
			delete(model[k], member)
			if len(model[k]) == 0 {
				delete(model, k)
			}
			want = int64(map[bool]int{true: 1, false: 0}[had])
		case 4: // ZRANK
			args = []string{"ZRANK", k, member}
			want = nil
			if i := slices.Index(sorted(k), member); i >= 0 {
				want = int64(i)
			}
		case 5: // ZRANGE by rank
			a, b := rng.IntN(20)-10, rng.IntN(220)-10
			args = []string{"ZRANGE", k, fmt.Sprint(a), fmt.Sprint(b)}
			all := sorted(k)
			n := len(all)
			if a < 0 {
				a += n
			}
			if b < 0 {
				b += n
			}
			a = max(a, 0)
			b = min(b, n-1)
			want = []any{}
			if a <= b {
				want = strs(all[a : b+1]...)
			}
		case 6: // ZRANGEBYSCORE with LIMIT
			lo, hi := float64(rng.IntN(40))/4, float64(rng.IntN(40))/4
			off, cnt := rng.IntN(5), rng.IntN(8)-1
			args = []string{"ZRANGEBYSCORE", k, "(" + fmtScore(lo), fmtScore(hi), "LIMIT", fmt.Sprint(off), fmt.Sprint(cnt)}
			var in []string
			for _, x := range sorted(k) {
				if v := model[k][x]; v > lo && v <= hi {
					in = append(in, x)
				}
			}
			if off < len(in) {
				in = in[off:]
			} else {
				in = nil
			}
			if cnt >= 0 && cnt < len(in) {
				in = in[:cnt]
			}
			want = strs(in...)
		case 7: // ZPOPMIN
			args = []string{"ZPOPMIN", k}
			want = []any{}
			if all := sorted(k); len(all) > 0 {
				want = []any{all[0], fmtScore(model[k][all[0]])}
				delete(model[k], all[0])
				if len(model[k]) == 0 {
					delete(model, k)
				}
			}
		case 8: // ZCOUNT
			lo := float64(rng.IntN(40)) / 4
			args = []string{"ZCOUNT", k, fmtScore(lo), "+inf"}
			n := 0
			for _, v := range model[k] {
				if v >= lo {
					n++
				}
			}
			want = int64(n)
		}
		if got := r.Do(args...); !reflect.DeepEqual(got, want) {
			t.Fatalf("op %d %v: got %#v, model %#v", op, args, got, want)
		}
	}
	for _, k := range keys {
		got := r.Do("ZRANGE", k, "0", "-1", "WITHSCORES")
		want := []any{}
		for _, m := range sorted(k) {
			want = append(want, m, fmtScore(model[k][m]))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("final %s: got %v, model %v", k, got, want)
		}
	}
}

// TestZSetDifferential sends the zsame random commands (valid and not, both
// protocols, small listpack-size and large sets) to HotKV and to the real
// Redis at HOTKV_REDIS_ADDR, and requires identical replies. Commands whose
// answers Redis leaves to chance are left out: ZRANDMEMBER picks, ZSCAN order
// on large sets, lex ranges over mixed scores on large sets.
func TestZSetDifferential(t *testing.T) {
	addr := os.Getenv("HOTKV_REDIS_ADDR")
	if addr == "" {
		t.Skip("HOTKV_REDIS_ADDR not set")
	}
	s := harness.Start(t)
	for seed, tc := range []struct {
		proto string
		big   bool
	}{{"2", false}, {"3", false}, {"2", true}, {"3", true}} {
		t.Run(fmt.Sprintf("RESP%s/big=%v", tc.proto, tc.big), func(t *testing.T) {
			h, rd := s.Raw(t), (&harness.Server{Addr: addr}).Raw(t)
			for _, c := range []*harness.Conn{h, rd} {
				c.Do("HELLO", tc.proto)
				c.Do("FLUSHALL")
				c.Do("SET", "str", "x")
			}
			g := zgen{r: rand.New(rand.NewPCG(uint64(seed), 99)), big: tc.big}
			for i := range 3000 {
				args := g.next()
				want, got := rd.Do(args...), h.Do(args...)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("command %d %q:\n hotkv %#v\n redis %#v", i, args, got, want)
				}
			}
		})
	}
}

type zgen struct {
	r   *rand.Rand
	big bool
}

func (g *zgen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *zgen) n(lo, hi int) string      { return strconv.Itoa(lo + g.r.IntN(hi-lo)) }

func (g *zgen) member() string {
	u := 12
	if g.big {
		u = 300
	}
	return "m" + g.n(0, u)
}

func (g *zgen) key() string { return g.pick("z1", "z2", "z3", "z1", "z2", "str") }

// lexKey holds only score-0 members when sets are large (see above).
func (g *zgen) lexKey() string {
	if g.big {
		return "lx"
	}
	return g.key()
}

func (g *zgen) score() string {
	return g.pick(g.n(-5, 30), g.n(-5, 30)+".25", "inf", "-inf", "1e-7", "0x10", "nan", "x", "-0", "17.87999939407465")
}
func (g *zgen) rng() string {
	return g.pick("-inf", "+inf", "(1", "3", "(5.5", g.n(-3, 25), "(", "x", "(-inf", "0x1")
}
func (g *zgen) lex() string {
	return g.pick("-", "+", "[m1", "(m3", "[m", "(m5", "m1", "[", "(m10", "[m7")
}
func (g *zgen) limit() []string {
	if g.r.IntN(3) > 0 {
		return nil
	}
	return []string{"LIMIT", g.pick(g.n(-3, 5), g.n(0, 300), "-9223372036854775808", "9223372036854775807"),
		g.pick(g.n(-2, 12), g.n(200, 400), "9223372036854775807")}
}

func (g *zgen) next() []string {
	switch g.r.IntN(20) {
	case 0, 1, 2, 3:
		args := []string{"ZADD", g.key()}
		for range g.r.IntN(3) {
			args = append(args, g.pick("NX", "XX", "GT", "LT", "CH", "INCR"))
		}
		pairs := 1 + g.r.IntN(3)
		if g.big {
			pairs = 1 + g.r.IntN(40)
		}
		for range pairs {
			sc := g.n(-5, 30)
			if g.r.IntN(10) == 0 {
				sc = g.score()
			}
			args = append(args, sc, g.member())
		}
		return args
	case 4:
		return []string{"ZINCRBY", g.key(), g.score(), g.member()}
	case 5:
		return []string{g.pick("ZREM", "ZSCORE", "ZRANK", "ZREVRANK", "ZMSCORE"), g.key(), g.member()}
	case 6:
		return []string{g.pick("ZCOUNT"), g.key(), g.rng(), g.rng()}
	case 7:
		return []string{"ZLEXCOUNT", g.lexKey(), g.lex(), g.lex()}
	case 8, 9:
		by := g.pick("", "BYSCORE", "BYLEX")
		k, a, b := g.key(), g.n(-12, 12), g.n(-12, 12)
		switch by {
		case "BYSCORE":
			a, b = g.rng(), g.rng()
		case "BYLEX":
			k, a, b = g.lexKey(), g.lex(), g.lex()
		}
		args := []string{"ZRANGE", k, a, b}
		if g.r.IntN(4) == 0 {
			args = []string{"ZRANGESTORE", g.pick("dst", "z3"), k, a, b}
		}
		if by != "" {
			args = append(args, by)
		}
		for range g.r.IntN(3) {
			args = append(args, g.pick("REV", "WITHSCORES", "REV"))
		}
		return append(args, g.limit()...)
	case 10:
		args := []string{g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), g.key(), g.rng(), g.rng()}
		if g.r.IntN(2) == 0 {
			args = append(args, "WITHSCORES")
		}
		return append(args, g.limit()...)
	case 11:
		return append([]string{g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), g.lexKey(), g.lex(), g.lex()}, g.limit()...)
	case 12:
		switch g.r.IntN(3) {
		case 0:
			return []string{"ZREMRANGEBYSCORE", g.key(), g.rng(), g.rng()}
		case 1:
			return []string{"ZREMRANGEBYRANK", g.key(), g.n(-12, 12), g.n(-12, 12)}
		}
		return []string{"ZREMRANGEBYLEX", g.lexKey(), g.lex(), g.lex()}
	case 13:
		args := []string{g.pick("ZPOPMIN", "ZPOPMAX"), g.key()}
		if g.r.IntN(2) == 0 {
			args = append(args, g.n(-1, 4))
		}
		return args
	case 14:
		return []string{"ZMPOP", "2", g.key(), g.key(), g.pick("MIN", "MAX"), "COUNT", g.n(0, 4)}
	case 15:
		return []string{g.pick("BZPOPMIN", "BZPOPMAX"), g.key(), g.key(), "0.01"}
	case 16, 17:
		op := g.pick("ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZINTERCARD")
		args := []string{op}
		if strings.HasSuffix(op, "STORE") {
			args = append(args, g.pick("dst", "z3"))
		}
		nk := 1 + g.r.IntN(3)
		args = append(args, strconv.Itoa(nk))
		for range nk {
			args = append(args, g.key())
		}
		if op != "ZINTERCARD" && !strings.Contains(op, "DIFF") && g.r.IntN(2) == 0 {
			args = append(args, "WEIGHTS")
			for range nk {
				args = append(args, g.pick("1", "2", "-1", "0", "inf", "0.5"))
			}
		}
		if op != "ZINTERCARD" && !strings.Contains(op, "DIFF") && g.r.IntN(2) == 0 {
			args = append(args, "AGGREGATE", g.pick("SUM", "MIN", "MAX"))
		}
		if !strings.HasSuffix(op, "STORE") && op != "ZINTERCARD" && g.r.IntN(2) == 0 {
			args = append(args, "WITHSCORES")
		}
		if op == "ZINTERCARD" && g.r.IntN(2) == 0 {
			args = append(args, "LIMIT", g.n(0, 3))
		}
		return args
	case 18:
		if g.big {
			args := []string{"ZADD", "lx"}
			for range 1 + g.r.IntN(30) {
				args = append(args, "0", g.member())
			}
			return args
		}
		return []string{"ZSCAN", g.key(), "0", "MATCH", g.pick("m1*", "*", "m?")}
	}
	return []string{g.pick("ZCARD", "EXISTS"), g.key()}
}

// TestZSetWatchOnlyRealChanges: as in Redis, writes that change nothing do
// not fail a transaction watching the key; real changes do.
func TestZSetWatchOnlyRealChanges(t *testing.T) {
	s := harness.Start(t)
	a, b := s.Raw(t), s.Raw(t)
	a.Do("ZADD", "w", "1", "x")
	a.Do("ZADD", "src", "1", "x")
	for _, tc := range []struct {
		write []string
		abort bool
	}{
		{cmd("ZADD w 1 x"), false},
		{cmd("ZREM w nope"), false},
		{cmd("ZADD w XX 5 nope"), false},
		{cmd("ZINCRBY w 0 x"), false},
		{cmd("ZREMRANGEBYSCORE w 5 6"), false},
		{cmd("ZUNIONSTORE other 1 w"), false}, // w is only a source
		{cmd("ZADD w 2 x"), true},
		{cmd("ZUNIONSTORE w 1 src"), true},
		{cmd("ZPOPMIN w"), true},
	} {
		a.Do("WATCH", "w")
		a.Do("MULTI")
		a.Do("PING")
		b.Do(tc.write...)
		got := a.Do("EXEC")
		if aborted := got == nil; aborted != tc.abort {
			t.Errorf("%v: EXEC = %#v, want aborted=%v", tc.write, got, tc.abort)
		}
	}
}

func TestZRandMember(t *testing.T) {
	s := harness.Start(t)
	for _, size := range []int{5, 300} { // listpack-size and larger
		r := s.Raw(t)
		key := fmt.Sprint("rz", size)
		args := []string{"ZADD", key}
		for i := range size {
			args = append(args, strconv.Itoa(i), fmt.Sprint("m", i))
		}
		r.Do(args...)
		scoreOf := func(m string) string { return strings.TrimPrefix(m, "m") }
		for _, count := range []int{1, 2, size / 2, size - 1, size, size + 3, -1, -(3 * size)} {
			got := r.Do("ZRANDMEMBER", key, strconv.Itoa(count), "WITHSCORES").([]any)
			want := count
			if count > size {
				want = size
			}
			if count < 0 {
				want = -count
			}
			if len(got) != 2*want {
				t.Fatalf("size %d count %d: %d items, want %d pairs", size, count, len(got), want)
			}
			seen := map[string]bool{}
			for i := 0; i < len(got); i += 2 {
				m := got[i].(string)
				if got[i+1] != scoreOf(m) {
					t.Fatalf("size %d count %d: %s has score %v", size, count, m, got[i+1])
				}
				if seen[m] && count > 0 {
					t.Fatalf("size %d count %d: %s twice", size, count, m)
				}
				seen[m] = true
			}
		}
		if m, _ := r.Do("ZRANDMEMBER", key).(string); !strings.HasPrefix(m, "m") {
			t.Fatalf("ZRANDMEMBER without count = %v", m)
		}
	}
}

// BenchmarkZSetMemory reports the heap per member (see heapPer) of the
// sorted set of docs/bench/zsets.md: 1M members "member:N" added in random
// order with uniformly random scores, 1000 per ZADD.
func BenchmarkZSetMemory(b *testing.B) {
	const n = 1_000_000
	r := rand.New(rand.NewPCG(1, 1))
	perm := r.Perm(n)
	heapPer(b, "bytes/member", n, func(c *harness.Conn) {
		for batch := 0; batch < n; batch += 1000 {
			args := []string{"ZADD", "bigz"}
			for _, i := range perm[batch : batch+1000] {
				args = append(args, strconv.FormatFloat(r.Float64()*n, 'g', -1, 64), "member:"+strconv.Itoa(i))
			}
			c.Do(args...)
		}
		if got := c.Do("ZCARD", "bigz"); got != int64(n) {
			b.Fatalf("ZCARD %v", got)
		}
	})
}

// TestDifferentialZAddEncodingHint: like Redis, ZADD to an existing small
// set converts it to a skiplist when the call names more members than a
// listpack holds, even if it adds none of them (a long member it does not
// add leaves it a listpack).
func TestDifferentialZAddEncodingHint(t *testing.T) {
	many := []string{"ZADD", "z", "XX"}
	for range 130 {
		many = append(many, "1", "a")
	}
	long := strings.Repeat("m", 70)
	harness.Differ(t, [][]string{
		{"ZADD", "z", "1", "a"}, many, {"OBJECT", "ENCODING", "z"}, {"ZCARD", "z"},
		{"ZADD", "y", "1", "a"}, {"ZADD", "y", "XX", "1", long}, {"OBJECT", "ENCODING", "y"}, {"ZCARD", "y"},
		{"ZADD", "w", "1", "a"}, {"ZADD", "w", "NX", "2", "a"}, {"OBJECT", "ENCODING", "w"},
	})
}
