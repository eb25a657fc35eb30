package pubsub

import (
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Keyspace notifications (notify-keyspace-events): every command of every
// family is run with a subscriber on __key*__:*, and the messages each one
// publishes are compared with Redis 8's for the same script, or, without
// Redis, with the expectations written out below.

// notifyScript exercises every write path that publishes an event, and
// some that must not (no change, wrong type, reads).
var notifyScript = [][]string{
	// strings
	{"SET", "s", "1"}, {"SET", "s", "2", "NX"}, {"SET", "s", "3", "XX", "EX", "100"}, {"SET", "s", "4", "KEEPTTL"},
	{"SET", "s", "5", "GET"}, {"SET", "s2", "x", "XX"}, {"SETNX", "s", "x"}, {"SETNX", "s3", "x"},
	{"SETEX", "s4", "100", "v"}, {"PSETEX", "s5", "100000", "v"}, {"MSET", "m1", "a", "m2", "b"},
	{"MSETNX", "m3", "a", "m4", "b"}, {"MSETNX", "m3", "a", "m5", "b"}, {"GETSET", "s", "6"}, {"GETDEL", "s"},
	{"GETDEL", "s"}, {"GETEX", "m1", "EX", "100"}, {"GETEX", "m1", "PERSIST"}, {"GETEX", "m1", "PERSIST"}, {"GETEX", "m1"},
	{"GETEX", "m1", "PX", "-5"}, {"APPEND", "a", "xy"}, {"APPEND", "a", "z"}, {"SETRANGE", "a", "5", "q"},
	{"SETRANGE", "a", "1", ""}, {"SETRANGE", "r", "0", ""}, {"INCR", "i"}, {"DECR", "i"}, {"INCRBY", "i", "5"},
	{"DECRBY", "i", "2"}, {"INCRBYFLOAT", "i", "1.5"}, {"INCR", "a"}, {"GET", "a"}, {"STRLEN", "a"},
	{"SET", "e", "v", "EX", "-1"}, {"SET", "e", "v", "PXAT", "1"}, {"DEL", "e"},
	// keys
	{"SET", "k", "v"}, {"EXPIRE", "k", "100"}, {"EXPIRE", "k", "50", "GT"}, {"PEXPIRE", "k", "200000"},
	{"EXPIREAT", "k", "4000000000"}, {"PEXPIREAT", "k", "4000000000000"}, {"PERSIST", "k"}, {"PERSIST", "k"},
	{"EXPIRE", "nokey", "10"}, {"EXPIRE", "k", "0"}, {"SET", "k", "v"}, {"PEXPIREAT", "k", "1"},
	{"SET", "k", "v"}, {"RENAME", "k", "k2"}, {"SET", "k3", "v"}, {"RENAME", "k2", "k3"}, {"RENAMENX", "k3", "k4"},
	{"SET", "k5", "v"}, {"RENAMENX", "k4", "k5"}, {"RENAME", "k4", "k4"}, {"COPY", "k4", "k6"}, {"COPY", "k4", "k6"},
	{"COPY", "k4", "k6", "REPLACE"}, {"COPY", "k4", "k7", "DB", "1"}, {"MOVE", "k6", "1"}, {"MOVE", "k5", "2"},
	{"DEL", "k4", "k5", "nokey"}, {"UNLINK", "k3", "nokey"}, {"EXISTS", "k4"}, {"TOUCH", "k4"}, {"TYPE", "m2"},
	{"SELECT", "1"}, {"SET", "d1", "v"}, {"DEL", "d1"}, {"SELECT", "0"}, {"SWAPDB", "0", "1"}, {"SWAPDB", "0", "1"},
	{"FLUSHDB"},
	// lists
	{"LPUSH", "l", "a", "b"}, {"RPUSH", "l", "c"}, {"LPUSHX", "l", "d"}, {"RPUSHX", "l", "e"}, {"LPUSHX", "nol", "x"},
	{"LPOP", "l"}, {"RPOP", "l", "2"}, {"LSET", "l", "0", "z"}, {"LINSERT", "l", "BEFORE", "z", "y"},
	{"LINSERT", "l", "BEFORE", "nope", "y"}, {"LREM", "l", "0", "nope"}, {"LREM", "l", "1", "y"}, {"RPUSH", "l", "p", "q"},
	{"LTRIM", "l", "0", "-1"}, {"LTRIM", "l", "1", "-1"}, {"LMOVE", "l", "l2", "LEFT", "RIGHT"},
	{"RPOPLPUSH", "l", "l2"}, {"RPOPLPUSH", "l", "l2"}, {"LMPOP", "2", "l", "l2", "LEFT", "COUNT", "2"},
	{"BLPOP", "l2", "1"}, {"BRPOP", "l2", "1"}, {"RPUSH", "l", "a"}, {"BLMOVE", "l", "l", "LEFT", "LEFT", "1"},
	{"BRPOPLPUSH", "l", "l3", "1"}, {"BLMPOP", "1", "1", "l3", "RIGHT"}, {"RPUSH", "l", "a", "b"}, {"LTRIM", "l", "5", "10"},
	{"RPUSH", "l", "a"}, {"LREM", "l", "0", "a"}, {"LPOP", "l"}, {"LRANGE", "l", "0", "-1"},
	// hashes
	{"HSET", "h", "f", "1", "g", "2"}, {"HSET", "h", "f", "1"}, {"HSETNX", "h", "f", "x"}, {"HSETNX", "h", "n", "x"},
	{"HMSET", "h", "a", "b"}, {"HINCRBY", "h", "f", "2"}, {"HINCRBYFLOAT", "h", "f", "0.5"}, {"HDEL", "h", "nope"},
	{"HDEL", "h", "a", "n"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "g"}, {"HPEXPIRE", "h", "100000", "FIELDS", "2", "g", "nope"},
	{"HEXPIREAT", "h", "4000000000", "FIELDS", "1", "g"}, {"HPEXPIREAT", "h", "4000000000000", "NX", "FIELDS", "1", "g"},
	{"HPERSIST", "h", "FIELDS", "1", "g"}, {"HPERSIST", "h", "FIELDS", "1", "g"}, {"HEXPIRE", "h", "0", "FIELDS", "1", "g"},
	{"HGETDEL", "h", "FIELDS", "1", "nope"}, {"HSET", "h", "x", "1", "y", "2"}, {"HGETDEL", "h", "FIELDS", "1", "x"},
	{"HGETEX", "h", "EX", "100", "FIELDS", "1", "y"}, {"HGETEX", "h", "PERSIST", "FIELDS", "1", "y"},
	{"HSETEX", "h", "EX", "100", "FIELDS", "1", "z", "1"}, {"HSETEX", "h", "FNX", "FIELDS", "1", "z", "1"},
	{"HGET", "h", "f"}, {"HGETALL", "h"}, {"HDEL", "h", "f", "y", "z"},
	// sets
	{"SADD", "st", "a", "b", "c"}, {"SADD", "st", "a"}, {"SREM", "st", "nope"}, {"SREM", "st", "a"},
	{"SMOVE", "st", "st2", "b"}, {"SMOVE", "st", "st2", "nope"}, {"SPOP", "st"}, {"SADD", "st", "a", "b", "c"},
	{"SPOP", "st", "2"}, {"SPOP", "st", "5"}, {"SADD", "x1", "a", "b"}, {"SADD", "x2", "b", "c"},
	{"SINTERSTORE", "x3", "x1", "x2"}, {"SUNIONSTORE", "x3", "x1", "x2"}, {"SDIFFSTORE", "x3", "x1", "x2"},
	{"SINTERSTORE", "x3", "x1", "nokey"}, {"SINTERSTORE", "x3", "x1", "nokey"}, {"SMEMBERS", "x1"}, {"SRANDMEMBER", "x1"},
	// sorted sets
	{"ZADD", "z", "1", "a", "2", "b", "3", "c"}, {"ZADD", "z", "1", "a"}, {"ZADD", "z", "5", "a"}, {"ZADD", "z", "INCR", "1", "a"},
	{"ZADD", "z", "NX", "1", "a"}, {"ZINCRBY", "z", "1", "b"}, {"ZREM", "z", "nope"}, {"ZREM", "z", "c"},
	{"ZADD", "z", "7", "c", "8", "d", "9", "e"}, {"ZREMRANGEBYRANK", "z", "0", "0"}, {"ZREMRANGEBYSCORE", "z", "7", "7"},
	{"ZREMRANGEBYLEX", "z", "-", "+"}, {"ZADD", "z", "0", "a", "0", "b", "1", "c", "2", "d"}, {"ZREMRANGEBYLEX", "z", "[a", "[a"},
	{"ZPOPMIN", "z"}, {"ZPOPMAX", "z", "1"}, {"ZMPOP", "1", "z", "MIN"}, {"ZADD", "z", "1", "a", "2", "b"},
	{"BZPOPMIN", "z", "1"}, {"BZPOPMAX", "z", "1"}, {"ZADD", "z", "1", "a", "2", "b"}, {"BZMPOP", "1", "1", "z", "MAX", "COUNT", "5"},
	{"ZADD", "y1", "1", "a", "2", "b"}, {"ZADD", "y2", "1", "b"}, {"ZUNIONSTORE", "y3", "2", "y1", "y2"},
	{"ZINTERSTORE", "y3", "2", "y1", "y2"}, {"ZDIFFSTORE", "y3", "2", "y1", "y2"}, {"ZRANGESTORE", "y4", "y1", "0", "-1"},
	{"ZINTERSTORE", "y3", "2", "y1", "nokey"}, {"ZRANGESTORE", "y4", "y1", "5", "6"}, {"ZRANGESTORE", "y4", "y1", "5", "6"},
	{"ZRANGE", "y1", "0", "-1"}, {"ZREM", "y2", "b"},
	// bitmaps and HyperLogLog
	{"SETBIT", "b", "7", "1"}, {"SETBIT", "b", "7", "1"}, {"BITFIELD", "b", "SET", "u8", "0", "3"},
	{"BITFIELD", "b", "GET", "u8", "0"}, {"BITFIELD", "b", "INCRBY", "u8", "0", "1"}, {"BITFIELD", "bf", "INCRBY", "u2", "0", "5", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "5"},
	{"BITOP", "AND", "b2", "b", "b"}, {"BITOP", "OR", "b2", "nokey"}, {"BITOP", "OR", "b2", "nokey"}, {"BITCOUNT", "b"},
	{"PFADD", "p", "a", "b"}, {"PFADD", "p", "a"}, {"PFADD", "p2"}, {"PFMERGE", "p3", "p", "p2"}, {"PFCOUNT", "p"},
	// vector sets
	{"VADD", "vs", "VALUES", "2", "1", "0", "m1"}, {"VADD", "vs", "VALUES", "2", "0", "1", "m2"}, {"VSETATTR", "vs", "m1", `{"a":1}`},
	{"VREM", "vs", "m1"}, {"VREM", "vs", "m2"},
	// streams
	{"XADD", "xs", "1-1", "f", "v"}, {"XADD", "xs", "2-1", "f", "v"}, {"XADD", "xs", "MAXLEN", "1", "3-1", "f", "v"},
	{"XADD", "xnone", "NOMKSTREAM", "1-1", "f", "v"}, {"XDEL", "xs", "9-9"}, {"XDEL", "xs", "3-1"}, {"XTRIM", "xs", "MAXLEN", "5"},
	{"XADD", "xs", "4-1", "f", "v"}, {"XADD", "xs", "5-1", "f", "v"}, {"XTRIM", "xs", "MINID", "5-1"}, {"XSETID", "xs", "9-9"},
	{"XGROUP", "CREATE", "xs", "g", "0"}, {"XGROUP", "CREATE", "xm", "g", "$", "MKSTREAM"}, {"XGROUP", "CREATE", "xs", "g", "0"},
	{"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "xs", ">"}, {"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "xs", ">"},
	{"XGROUP", "CREATECONSUMER", "xs", "g", "c2"}, {"XGROUP", "CREATECONSUMER", "xs", "g", "c2"},
	{"XCLAIM", "xs", "g", "c3", "0", "5-1"}, {"XAUTOCLAIM", "xs", "g", "c4", "0", "0"}, {"XACK", "xs", "g", "5-1"},
	{"XGROUP", "SETID", "xs", "g", "0"}, {"XGROUP", "DELCONSUMER", "xs", "g", "c1"}, {"XGROUP", "DELCONSUMER", "xs", "g", "nope"},
	{"XGROUP", "DESTROY", "xs", "g"}, {"XGROUP", "DESTROY", "xs", "g"}, {"XRANGE", "xs", "-", "+"}, {"DEL", "xs", "xm"},
	// transactions: events as each command runs
	{"MULTI"}, {"SET", "t", "1"}, {"INCR", "t"}, {"DEL", "t"}, {"EXEC"},
	// wrong type: nothing published
	{"LPUSH", "st2", "x"}, {"INCR", "h"},
	{"FLUSHALL"},
}

// notifyTimedScript covers events that time produces: keys and hash fields
// whose expiry passes (lazily on access or by the active cycle: the event
// is the same, and is counted with the next command either way), misses on
// reads (with m), and blocked clients served by another's push.
var notifyTimedScript = [][]string{
	{"SET", "a", "1", "PX", "30"}, {"SLEEP", "150"}, {"GET", "a"},
	{"HSET", "h", "f", "1", "g", "2"}, {"HPEXPIRE", "h", "30", "FIELDS", "1", "f"}, {"SLEEP", "150"}, {"HGETALL", "h"},
	{"HPEXPIRE", "h", "30", "FIELDS", "1", "g"}, {"SLEEP", "150"}, {"HGET", "h", "g"},
	{"SET", "v", "1", "PX", "30"}, {"SLEEP", "150"}, {"DEL", "v"},
	// key misses: reads of missing keys
	{"GET", "nokey"}, {"MGET", "nokey", "a"}, {"EXISTS", "nokey"}, {"TYPE", "nokey"}, {"TTL", "nokey"},
	{"STRLEN", "nokey"}, {"GETRANGE", "nokey", "0", "1"}, {"HGET", "nokey", "f"}, {"HGETALL", "nokey"},
	{"LRANGE", "nokey", "0", "-1"}, {"LINDEX", "nokey", "0"}, {"LLEN", "nokey"}, {"SMEMBERS", "nokey"},
	{"SISMEMBER", "nokey", "m"}, {"SCARD", "nokey"}, {"ZRANGE", "nokey", "0", "-1"}, {"ZSCORE", "nokey", "m"},
	{"ZCARD", "nokey"}, {"PFCOUNT", "nokey"}, {"BITCOUNT", "nokey"}, {"GETBIT", "nokey", "1"}, {"TOUCH", "nokey"},
	{"OBJECT", "ENCODING", "nokey"}, {"SET", "nokey", "1", "GET"}, {"GETDEL", "nokey"}, {"GETEX", "nokey"},
	{"COPY", "nokey", "x"}, {"SINTER", "nokey"}, {"ZUNION", "1", "nokey"}, {"HRANDFIELD", "nokey"},
	{"LPOP", "nokey"}, {"INCR", "nokey"}, {"BITOP", "AND", "bdst", "nokey", "nokey2"},
	// writes over a key whose time ran out but that no access deleted yet
	{"DEBUG", "SET-ACTIVE-EXPIRE", "0"},
	{"SADD", "src", "m"}, {"SET", "d", "v", "PX", "20"}, {"SADD", "ds", "a"}, {"PEXPIRE", "ds", "20"},
	{"SET", "d2", "v", "PX", "20"}, {"SLEEP", "60"},
	{"MSET", "d", "w"}, {"SINTERSTORE", "ds", "src"}, {"SUNIONSTORE", "d2", "src"},
	{"DEBUG", "SET-ACTIVE-EXPIRE", "1"},
	// BITFIELD publishes only a real change
	{"SETBIT", "bf", "0", "0"}, {"BITFIELD", "bf", "SET", "u8", "0", "0"}, {"BITFIELD", "bf", "INCRBY", "u8", "0", "0"},
	{"BITFIELD", "bf", "SET", "u8", "0", "7"}, {"BITFIELD", "bf", "SET", "u8", "16", "0"},
	{"FLUSHALL"},
}

// runTimed runs a script with SLEEP pseudo-commands and a BLPOP served by
// another client's push at the end, returning the events per step.
func runTimed(t *testing.T, s *harness.Server, classes string) [][]string {
	r := harness.NewEventRecorder(t, s, classes)
	var out [][]string
	for _, cmd := range notifyTimedScript {
		if cmd[0] == "SLEEP" {
			ms, _ := strconv.Atoi(cmd[1])
			time.Sleep(time.Duration(ms) * time.Millisecond)
			continue
		}
		_, ev := r.Run(cmd...)
		out = append(out, ev)
	}
	// A client blocked on a list, served by a push: the push publishes,
	// then the pop that serves the waiter.
	b := s.Raw(t)
	b.Send(harness.Encode("BLPOP", "q", "5"))
	harness.WaitBlocked(t, r.Cmd, 1)
	_, ev := r.Run("RPUSH", "q", "x")
	if got := b.Read(); !reflect.DeepEqual(got, []any{"q", "x"}) {
		t.Fatalf("BLPOP served %#v", got)
	}
	_, ev2 := r.Run("PING")
	return append(out, append(ev, ev2...))
}

func TestKeyspaceNotificationsMatchRedis(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	hot, red := harness.NewEventRecorder(t, harness.Start(t), "KEAn"), harness.NewEventRecorder(t, harness.StartRedis(t), "KEAn")
	for i, cmd := range notifyScript {
		_, got := hot.Run(cmd...)
		_, want := red.Run(cmd...)
		if os.Getenv("NOTIFY_TRACE") != "" {
			t.Logf("%d %q:\n  hotkv %q\n  redis %q", i, cmd, got, want)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d %q:\nhotkv: %q\nredis: %q", i, cmd, got, want)
		}
	}
	got, want := runTimed(t, harness.Start(t), "KEAm"), runTimed(t, harness.StartRedis(t, "--enable-debug-command", "yes"), "KEAm") // the script turns active expiry off around writes over expired keys
	var steps []string
	for _, cmd := range notifyTimedScript {
		if cmd[0] != "SLEEP" {
			steps = append(steps, strings.Join(cmd, " "))
		}
	}
	steps = append(steps, "RPUSH q x, served to BLPOP")
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s:\nhotkv: %q\nredis: %q", steps[i], got[i], want[i])
		}
	}
}

// Without Redis at hand, the same machinery against written-out events
// (Redis 8.0.2's, as the test above checks them).
func TestKeyspaceNotifications(t *testing.T) {
	s := harness.Start(t)
	r := harness.NewEventRecorder(t, s, "KEA")
	for _, c := range []struct {
		cmd  []string
		want []string
	}{
		{[]string{"SET", "k", "v"}, harness.KeyEvents("set", "k")},
		{[]string{"SET", "k", "v", "NX"}, nil},
		{[]string{"SETEX", "k", "100", "v"}, harness.KeyEvents("set", "k", "expire", "k")},
		{[]string{"PERSIST", "k"}, harness.KeyEvents("persist", "k")},
		{[]string{"RENAME", "k", "k2"}, harness.KeyEvents("rename_from", "k", "rename_to", "k2")},
		{[]string{"EXPIRE", "k2", "0"}, harness.KeyEvents("del", "k2")},
		{[]string{"INCRBY", "n", "5"}, harness.KeyEvents("incrby", "n")},
		{[]string{"RPUSH", "l", "a", "b"}, harness.KeyEvents("rpush", "l")},
		{[]string{"LMOVE", "l", "l2", "LEFT", "RIGHT"}, harness.KeyEvents("rpush", "l2", "lpop", "l")},
		{[]string{"RPOP", "l"}, harness.KeyEvents("rpop", "l", "del", "l")},
		{[]string{"HSET", "h", "f", "1"}, harness.KeyEvents("hset", "h")},
		{[]string{"HDEL", "h", "nope"}, nil},
		{[]string{"HDEL", "h", "f"}, harness.KeyEvents("hdel", "h", "del", "h")},
		{[]string{"SADD", "s", "a"}, harness.KeyEvents("sadd", "s")},
		{[]string{"SINTERSTORE", "s", "nokey"}, harness.KeyEvents("del", "s")},
		{[]string{"ZADD", "z", "1", "a"}, harness.KeyEvents("zadd", "z")},
		{[]string{"ZINCRBY", "z", "1", "a"}, harness.KeyEvents("zincr", "z")},
		{[]string{"ZREMRANGEBYSCORE", "z", "-inf", "+inf"}, harness.KeyEvents("zremrangebyscore", "z", "del", "z")},
		{[]string{"SETBIT", "b", "3", "1"}, harness.KeyEvents("setbit", "b")},
		{[]string{"SETBIT", "b", "3", "1"}, nil},
		{[]string{"PFADD", "p", "x"}, harness.KeyEvents("pfadd", "p")},
		{[]string{"DEL", "b", "p", "nokey"}, harness.KeyEvents("del", "b", "del", "p")},
		{[]string{"GET", "nokey"}, nil}, // no m class
	} {
		if _, got := r.Run(c.cmd...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.cmd, got, c.want)
		}
	}

	// Only what is asked for: E alone publishes key events, K alone keyspace
	// events, a class alone neither; n adds new keys, x expirations.
	for _, c := range []struct {
		classes string
		want    []string
	}{
		{"E$", []string{"__keyevent@0__:set a"}},
		{"Kg$", []string{"__keyspace@0__:a set", "__keyspace@0__:a expire"}},
		{"g$", nil},
		{"Kl", nil},
		{"KEn", harness.KeyEvents("new", "a")},
		{"Ex", []string{"__keyevent@0__:expired a"}},
		{"", nil},
	} {
		r.Cmd.Do("DEL", "a")
		r.Run("PING")
		r.Cmd.Do("CONFIG", "SET", "notify-keyspace-events", c.classes)
		_, got := r.Run("SET", "a", "1", "PXAT", "1")
		_, exp := r.Run("GET", "a")
		if got = append(got, exp...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("classes %q: got %q, want %q", c.classes, got, c.want)
		}
	}

	// Events carry the database number.
	r.Cmd.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	r.Cmd.Do("SELECT", "3")
	if _, got := r.Run("SET", "x", "1"); !reflect.DeepEqual(got, []string{"__keyspace@3__:x set", "__keyevent@3__:set x"}) {
		t.Errorf("SET in db 3: %q", got)
	}
	if _, got := r.Run("MOVE", "x", "5"); !reflect.DeepEqual(got, []string{
		"__keyspace@3__:x move_from", "__keyevent@3__:move_from x", "__keyspace@5__:x move_to", "__keyevent@5__:move_to x"}) {
		t.Errorf("MOVE: %q", got)
	}
}

// An evicted key publishes evicted (class e), from the server's eviction
// rather than any command.
func TestKeyspaceNotificationEvicted(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	sub := s.Raw(t)
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "notify-keyspace-events", "Ee")
	sub.Do("SUBSCRIBE", "__keyevent@0__:evicted")
	for i := range 100 {
		r.Do("SET", "k"+strconv.Itoa(i), "v")
	}
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory-policy", "allkeys-random", "maxmemory", "1")
	m, ok := sub.Read().([]any)
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory", "0")
	if !ok || len(m) != 3 || m[0] != "message" || m[1] != "__keyevent@0__:evicted" {
		t.Fatalf("got %#v", m)
	}
	if n, _ := r.Do("EXISTS", m[2].(string)).(int64); n != 0 || !strings.HasPrefix(m[2].(string), "k") {
		t.Errorf("evicted %q, EXISTS %d", m[2], n)
	}
}

// CONFIG GET shows the classes as Redis prints them; bad characters are
// refused with Redis's error and the setting kept.
func TestNotifyKeyspaceEventsConfig(t *testing.T) {
	r := harness.Start(t).Raw(t)
	for _, c := range []struct{ set, get string }{
		{"KEA", "AKE"}, {"KEAn", "AKE"}, {"AKEnm", "AKEm"}, {"Kg", "gK"}, {"Ex", "xE"}, {"K$lz", "$lzK"},
		{"gK", "gK"}, {"nA", "A"}, {"KEg$lshzxetdn", "AKE"}, {"Elsn", "lsnE"}, {"", ""},
	} {
		r.Expect(harness.Status("OK"), "CONFIG", "SET", "notify-keyspace-events", c.set)
		if got := r.Do("CONFIG", "GET", "notify-keyspace-events"); !reflect.DeepEqual(got, []any{"notify-keyspace-events", c.get}) {
			t.Errorf("set %q: CONFIG GET %#v, want %q", c.set, got, c.get)
		}
	}
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "notify-keyspace-events", "Kl")
	for _, bad := range []string{"KEAq", "Ko", "K E"} {
		r.Expect(harness.Err("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'."),
			"CONFIG", "SET", "notify-keyspace-events", bad)
	}
	if got := r.Do("CONFIG", "GET", "notify-keyspace-events"); !reflect.DeepEqual(got, []any{"notify-keyspace-events", "lK"}) {
		t.Errorf("after refused sets: %#v", got)
	}
}

// A client cut off for its pub/sub output (here: its own keyspace events)
// in the same batch as a blocking command must not stay registered as a
// waiter: a later push would hand the element to the closed connection.
func TestClientClosedWhileBlockingLeavesNoWaiter(t *testing.T) {
	s := harness.Start(t)
	ctl := s.Raw(t)
	ctl.Expect(harness.Status("OK"), "CONFIG", "SET", "notify-keyspace-events", "KEA", "pubsub-output-buffer-limit", "1024")
	a := s.Raw(t)
	a.Do("HELLO", "3")
	a.Do("PSUBSCRIBE", "__key*__:*")
	var batch strings.Builder
	for i := range 10 {
		batch.WriteString(harness.Encode("SET", strings.Repeat("k", 300)+strconv.Itoa(i), "v"))
	}
	batch.WriteString(harness.Encode("BLPOP", "q", "0"))
	a.Send(batch.String())
	// Whatever was queued before the cut may arrive first; then end of file.
	a.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, a.Reader); err != nil {
		t.Fatalf("the client was not disconnected for its output: %v", err)
	}
	harness.Eventually(t, "no blocked client", func() bool { return s.InfoInt(t, "clients", "blocked_clients") == 0 })
	ctl.Expect(int64(1), "RPUSH", "q", "x")
	ctl.Expect(int64(1), "LLEN", "q")
}
