package admin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// DEBUG's subcommands against Redis 8.0.2 (which runs with DEBUG allowed
// and rdbcompression off, HotKV never compressing: see DEBUG OBJECT's
// serializedlength in docs/commands/keys.md), then what only HotKV can
// show (reloads, logs, the cron).

func startRedisDebug(t *testing.T) *harness.Server {
	return harness.StartRedis(t, "--enable-debug-command", "yes", "--rdbcompression", "no")
}

// debugReply reads one reply's bytes, with the real reply after a RESP3
// attribute (DEBUG PROTOCOL attrib) and the push after the real reply
// (DEBUG PROTOCOL push: Redis sends pushes after the command's reply).
func debugReply(r *harness.Conn, cmd []string) any {
	b := r.RawDo(cmd...)
	if b[0] == '|' || b[0] != '-' && len(cmd) == 3 && strings.EqualFold(cmd[1], "protocol") && strings.EqualFold(cmd[2], "push") {
		var err error
		if b, err = harness.ReadRawReply(r.Reader, b); err != nil {
			r.T.Fatalf("read reply: %v", err)
		}
	}
	return string(b)
}

func sameBytes(got, want any) bool { return got == want }

func debugDiffer(t *testing.T, script [][]string, reply func(r *harness.Conn, cmd []string) any) {
	t.Helper()
	harness.DifferOn(t, startRedisDebug(t), harness.Start(t), script, reply, sameBytes)
}

func TestDebugDifferentialReplies(t *testing.T) {
	script := [][]string{}
	for _, typ := range []string{"string", "integer", "double", "bignum", "null", "array", "set", "map", "attrib",
		"push", "verbatim", "true", "false", "TRUE", "nosuch"} {
		script = append(script, []string{"DEBUG", "PROTOCOL", typ})
	}
	long := strings.Repeat("p", 130) // POPULATE's keys are cut at 127 bytes
	script = append(script, [][]string{
		{"DEBUG", "ERROR", "ERR custom failure"}, {"DEBUG", "ERROR", "MYERR two\r\nlines"},
		{"DEBUG", "HELP", "x"}, {"DEBUG", "JMAP"}, {"DEBUG", "STRINGMATCH-LEN"}, {"DEBUG", "NOSUCH"},
		{"DEBUG", "OBJECT"}, {"DEBUG", "OBJECT", "a", "b"}, {"DEBUG", "OBJECT", "nokey"}, {"DEBUG", "DIGEST", "x"},
		{"DEBUG", "SLEEP", "0"}, {"DEBUG", "SLEEP", "x"}, {"DEBUG", "SET-ACTIVE-EXPIRE", "1"}, {"DEBUG", "LOG", "hello"},
		{"DEBUG", "CHANGE-REPL-ID"}, {"DEBUG", "CHANGE-REPL-ID", "x"}, {"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"},
		{"DEBUG", "PAUSE-CRON", "0"}, {"DEBUG", "DICT-RESIZING", "1"}, {"DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "0"},
		{"DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "NEVER"}, {"DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "reset"},
		{"DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "100"}, {"DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "x"},
		{"DEBUG", "REPLYBUFFER", "RESIZING", "1"}, {"DEBUG", "REPLYBUFFER", "FOO", "1"}, {"DEBUG", "REPLYBUFFER", "RESIZING"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "x"}, {"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "5gb"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"}, {"DEBUG", "RELOAD", "FOO"}, {"DEBUG", "RELOAD", "MERGE", "x"},
		{"DEBUG", "POPULATE", "-1"}, {"DEBUG", "POPULATE", "x"}, {"DEBUG", "POPULATE", "2", "p", "-1"},
		{"DEBUG", "POPULATE", "2", "p", "x"}, {"DEBUG", "POPULATE", "1", "2", "3", "4"}, {"DBSIZE"},
		{"DEBUG", "POPULATE", "0"}, {"DEBUG", "POPULATE", "3"}, {"MGET", "key:0", "key:1", "key:2", "key:3"},
		{"SET", "key:1", "mine"}, {"DEBUG", "POPULATE", "4"}, {"MGET", "key:1", "key:3"},
		{"DEBUG", "POPULATE", "2", "pre", "3"}, {"MGET", "pre:0", "pre:1"}, {"DEBUG", "POPULATE", "2", "pad", "12"},
		{"GET", "pad:1"}, {"DEBUG", "POPULATE", "1", "z", "0"}, {"GET", "z:0"}, {"DEBUG", "POPULATE", "1", long},
		{"KEYS", long[:20] + "*"}, {"DBSIZE"}, {"TTL", "key:0"}, {"OBJECT", "ENCODING", "pad:0"},
		{"DEBUG", "DIGEST"}, {"DEBUG", "DIGEST-VALUE"}, {"DEBUG", "DIGEST-VALUE", "key:0", "nokey", "pad:1"},
		{"DEBUG", "HTSTATS", "99"}, {"DEBUG", "HTSTATS", "-1"}, {"DEBUG", "HTSTATS", "x"},
		{"DEBUG", "HTSTATS-KEY", "nokey"}, {"SADD", "small", "a"}, {"DEBUG", "HTSTATS-KEY", "small"},
		{"DEBUG", "HTSTATS-KEY", "key:0", "full"}, {"DEBUG", "LISTPACK", "nokey"}, {"DEBUG", "LISTPACK", "key:0"},
		{"DEBUG", "QUICKLIST", "nokey"}, {"RPUSH", "lp", "a"}, {"DEBUG", "QUICKLIST", "lp"},
		{"DEBUG", "QUICKLIST", "lp", "1", "2"}, {"DEBUG", "LISTPACK", "lp", "x"},
		{"FLUSHALL"}, {"DEBUG", "DIGEST"},
		// Last: Redis, with no log to load, has emptied the data by then.
		{"SET", "k", "v"}, {"DEBUG", "LOADAOF"},
	}...)
	debugDiffer(t, script, debugReply)
}

// TestDebugDigestDifferential builds the same data of every type on both
// servers, each encoding and with expiries, and requires the same digests
// of the dataset and of each value.
func TestDebugDigestDifferential(t *testing.T) {
	many := func(cmd []string, n int, f func(i int) []string) []string {
		for i := range n {
			cmd = append(cmd, f(i)...)
		}
		return cmd
	}
	keys := []string{"s1", "s2", "s3", "big", "l1", "l2", "set1", "set2", "set3", "z1", "z2", "h1", "h2", "h3", "h4",
		"st", "vq", "vb", "vn", "nokey"}
	script := [][]string{
		{"DEBUG", "DIGEST"},
		{"SET", "s1", "hello"}, {"SET", "s2", "12345"}, {"SET", "s3", ""}, {"SET", "big", strings.Repeat("x", 1000)},
		{"RPUSH", "l1", "a", "b", "c", "1", "2", "-3"},
		many([]string{"RPUSH", "l2"}, 600, func(i int) []string { return []string{fmt.Sprint("element-", i)} }),
		{"SADD", "set1", "1", "2", "3"}, {"SADD", "set2", "a", "b", "c"},
		many([]string{"SADD", "set3"}, 200, func(i int) []string { return []string{fmt.Sprint("m", i)} }),
		{"ZADD", "z1", "1", "a", "2.5", "b", "-0", "c", "100", "d", "1e8", "e", "8.710531292337911e+17", "f", "1e18", "g",
			"inf", "h", "-inf", "i", "0.1", "j", "12345678", "k"},
		many([]string{"ZADD", "z2"}, 200, func(i int) []string { return []string{fmt.Sprint(float64(i) * 1.5), fmt.Sprint("m", i)} }),
		{"HSET", "h1", "f1", "v1", "f2", "2"},
		many([]string{"HSET", "h2"}, 200, func(i int) []string { return []string{fmt.Sprint("f", i), fmt.Sprint("v", i)} }),
		{"HSET", "h3", "a", "1", "b", "2"}, {"HEXPIRE", "h3", "1000", "FIELDS", "1", "a"},
		many([]string{"HSET", "h4"}, 200, func(i int) []string { return []string{fmt.Sprint("f", i), fmt.Sprint("v", i)} }),
		{"HPEXPIRE", "h4", "1000000", "FIELDS", "2", "f1", "f2"},
		{"XADD", "st", "1-1", "a", "1", "b", "2"}, {"XADD", "st", "1-2", "a", "3", "b", "4"}, {"XADD", "st", "2-0", "c", "5"},
		{"XADD", "st", "3-0", "a", "1", "b", "2"}, {"XDEL", "st", "1-2"}, {"XGROUP", "CREATE", "st", "g", "0"},
		{"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "st", ">"},
		{"VADD", "vq", "VALUES", "3", "1", "2", "3", "e1"}, {"VADD", "vq", "VALUES", "3", "-1", "0.5", "2", "e2", "SETATTR", `{"a":1}`},
		{"VADD", "vb", "VALUES", "3", "1", "-2", "3", "e1", "BIN"}, {"VADD", "vn", "VALUES", "2", "0.25", "-4", "e1", "NOQUANT"},
		append([]string{"DEBUG", "DIGEST-VALUE"}, keys...),
		{"DEBUG", "DIGEST"},
		{"EXPIRE", "s1", "10000"}, {"PEXPIRE", "l2", "1000000"}, {"EXPIRE", "st", "1000"},
		{"DEBUG", "DIGEST-VALUE", "s1", "l2", "st", "s2"}, {"DEBUG", "DIGEST"},
		{"SELECT", "1"}, {"SET", "s1", "hello"}, {"DEBUG", "DIGEST-VALUE", "s1"}, {"SELECT", "0"}, {"DEBUG", "DIGEST"},
		// The order of a list's elements counts; a set's does not.
		{"LPUSH", "l1", "x"}, {"DEBUG", "DIGEST-VALUE", "l1"}, {"LPOP", "l1"}, {"RPOP", "l1"}, {"RPUSH", "l1", "-3"},
		{"SREM", "set2", "a"}, {"SADD", "set2", "a"}, {"DEBUG", "DIGEST"},
	}
	debugDiffer(t, script, debugReply)
}

// TestDebugObjectDifferential compares DEBUG OBJECT's fields but the
// address and access times: encodings, serialized lengths (strings,
// listpacks, intsets, tables, streams, quicklists with plain nodes) and
// the quicklist's shape.
func TestDebugObjectDifferential(t *testing.T) {
	volatile := regexp.MustCompile(` ?(Value at|lru|lru_seconds_idle):[^ ]*`)
	reply := func(r *harness.Conn, cmd []string) any {
		b := debugReply(r, cmd).(string)
		if len(cmd) > 1 && strings.EqualFold(cmd[1], "object") {
			b = volatile.ReplaceAllString(b, "")
		}
		return b
	}
	many := func(cmd []string, n int, f func(i int) string) []string {
		for i := range n {
			cmd = append(cmd, f(i))
		}
		return cmd
	}
	script := [][]string{
		{"SET", "i", "5"}, {"SET", "n", "20000"}, {"SET", "big", "12345678901"}, {"SET", "neg", "-70000"},
		{"SET", "e", "hello"}, {"SET", "r", strings.Repeat("r", 60)}, {"SET", "bin", "\x00\x01"}, {"SET", "empty", ""},
		{"INCR", "n"}, {"SET", "long", strings.Repeat("y", 20000)},
		{"RPUSH", "l", "a", "b", "1"},
		{"CONFIG", "SET", "list-max-listpack-size", "2"}, {"RPUSH", "q", "a", "b", "c", "d", "e"},
		{"CONFIG", "SET", "list-max-listpack-size", "-2"},
		many([]string{"RPUSH", "q2"}, 900, func(i int) string { return fmt.Sprintf("element-%012d", i) }),
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "10b"}, {"RPUSH", "q3", "x", strings.Repeat("a", 12), "b", strings.Repeat("c", 30)},
		{"RPUSH", "q3", strings.Repeat("d", 5000)}, {"LINSERT", "q3", "BEFORE", "b", strings.Repeat("e", 11)},
		{"LPUSH", "q3", "small"}, {"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"}, {"RPUSH", "q3", strings.Repeat("f", 12)},
		{"SADD", "si", "1", "2", "300000"}, {"SADD", "sl", "a", "b"},
		many([]string{"SADD", "sh"}, 200, func(i int) string { return fmt.Sprint("m", i) }),
		{"ZADD", "zl", "1", "a", "2.5", "b"},
		many([]string{"ZADD", "zs"}, 300, func(i int) string {
			if i%2 == 0 {
				return fmt.Sprint(i)
			}
			return fmt.Sprint("m", i)
		}),
		{"HSET", "hl", "f", "v", "n", "12"}, {"HSET", "hx", "f", "v", "g", "w"}, {"HEXPIRE", "hx", "1000", "FIELDS", "1", "f"},
		{"HSET", "hh", "f", strings.Repeat("v", 100)},
		{"XADD", "st", "1-1", "a", "1"}, {"XADD", "st", "1-2", "a", "2"}, {"XADD", "st", "2-1", "b", "3", "c", "4"},
		{"XGROUP", "CREATE", "st", "g", "0"},
	}
	for _, k := range []string{"i", "n", "big", "neg", "e", "r", "bin", "empty", "long", "l", "q", "q2", "q3",
		"si", "sl", "sh", "zl", "zs", "hl", "hx", "hh", "st"} {
		script = append(script, []string{"DEBUG", "OBJECT", k})
	}
	debugDiffer(t, script, reply)
}

// TestDebugHelp checks that HotKV's DEBUG HELP is Redis's for the
// subcommands it has: the same header and footer, and each of its entries
// as Redis writes it, in Redis's order.
func TestDebugHelp(t *testing.T) {
	lines := func(s *harness.Server) []string {
		var out []string
		for _, l := range s.Raw(t).Do("DEBUG", "HELP").([]any) {
			out = append(out, string(l.(harness.Status)))
		}
		return out
	}
	hot, redis := lines(harness.Start(t)), lines(startRedisDebug(t))
	if hot[0] != redis[0] || strings.Join(hot[len(hot)-2:], "|") != strings.Join(redis[len(redis)-2:], "|") {
		t.Fatalf("header/footer: %q...%q, Redis %q...%q", hot[0], hot[len(hot)-2:], redis[0], redis[len(redis)-2:])
	}
	next := 0
	for _, l := range hot[1:] {
		for next < len(redis) && redis[next] != l {
			next++
		}
		if next == len(redis) {
			t.Fatalf("HotKV's help line %q is not Redis's, or not in Redis's order", l)
		}
	}
	for _, sub := range []string{"DIGEST", "OBJECT <key>", "POPULATE <count> [<prefix>] [<size>]", "PROTOCOL <type>", "RELOAD [option ...]"} {
		if !strings.Contains(strings.Join(hot, "\n"), "\n"+sub+"\n") {
			t.Errorf("help lacks %q", sub)
		}
	}
}

// objectField is one field of DEBUG OBJECT's reply.
func objectField(t *testing.T, r *harness.Conn, key, field string) string {
	t.Helper()
	reply := string(r.Do("DEBUG", "OBJECT", key).(harness.Status))
	for _, f := range strings.Fields(reply) {
		if v, ok := strings.CutPrefix(f, field+":"); ok {
			return v
		}
	}
	t.Fatalf("DEBUG OBJECT %s: no %s in %q", key, field, reply)
	return ""
}

func TestDebugObject(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	// Redis's "INCR can modify objects in-place": the value's address
	// stays while it changes in place, and changes with a new value.
	r.Do("SET", "foo", "20000")
	r.Do("INCR", "foo")
	old := objectField(t, r, "foo", "at")
	r.Do("INCR", "foo")
	if got := objectField(t, r, "foo", "at"); got != old || !strings.HasPrefix(old, "0x") {
		t.Fatalf("address after INCR: %s, before %s", got, old)
	}
	r.Do("SET", "foo", strings.Repeat("x", 300))
	if got := objectField(t, r, "foo", "at"); got == old {
		t.Fatalf("a value that no longer fits its storage kept its address %s", got)
	}
	r.Do("RPUSH", "l", "a")
	old = objectField(t, r, "l", "at")
	r.Do("RPUSH", "l", "b")
	if got := objectField(t, r, "l", "at"); got != old {
		t.Fatalf("list address moved on RPUSH: %s, before %s", got, old)
	}
	// An expired key not yet reclaimed is still shown, as in Redis.
	r.Expect(harness.Status("OK"), "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	defer r.Do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
	r.Do("SET", "gone", "v", "PX", "1")
	time.Sleep(20 * time.Millisecond)
	if enc := objectField(t, r, "gone", "encoding"); enc != "embstr" {
		t.Fatalf("expired key: encoding %q", enc)
	}
	if idle := objectField(t, r, "gone", "lru_seconds_idle"); idle != "0" {
		t.Fatalf("lru_seconds_idle of a fresh key: %s", idle)
	}
}

// TestDebugReload saves and loads the snapshot in place: data, expiries
// and encodings come back, as does anything NOSAVE loads; NOFLUSH merges.
func TestDebugReload(t *testing.T) {
	dir := t.TempDir()
	s := harness.Start(t, "--dir", dir)
	r := s.Raw(t)
	r.Do("DEBUG", "POPULATE", "1000")
	r.Do("SET", "ttl", "v", "EX", "1000")
	r.Do("HSET", "h", "a", "1", "b", "2")
	r.Do("HEXPIRE", "h", "1000", "FIELDS", "1", "a")
	r.Do("CONFIG", "SET", "list-max-listpack-size", "2")
	defer r.Do("CONFIG", "SET", "list-max-listpack-size", "-2")
	r.Do("RPUSH", "q", "a", "b", "c")
	r.Do("SELECT", "3")
	r.Do("SADD", "s", "1", "2")
	r.Do("SELECT", "0")
	digest := r.Do("DEBUG", "DIGEST")
	shape := func() string { // the quicklist's fields, without address and access times
		return regexp.MustCompile(`^Value at:\S+ |lru:\d+ lru_seconds_idle:\d+ `).ReplaceAllString(string(r.Do("DEBUG", "OBJECT", "q").(harness.Status)), "")
	}
	before := shape()
	r.Expect(harness.Status("OK"), "DEBUG", "RELOAD")
	r.Expect(digest, "DEBUG", "DIGEST")
	if got := shape(); got != before || !strings.Contains(got, "ql_nodes:2 ") {
		t.Fatalf("quicklist after reload: %s, before %s", got, before)
	}
	r.Expect("listpackex", "OBJECT", "ENCODING", "h")
	if ttl := r.Do("TTL", "ttl").(int64); ttl < 990 {
		t.Fatalf("TTL after reload: %d", ttl)
	}
	if n := s.InfoInt(t, "persistence", "rdb_changes_since_last_save"); n != 0 {
		t.Fatalf("rdb_changes_since_last_save after DEBUG RELOAD: %d", n)
	}

	// NOSAVE loads the file as it is: what came after it is gone.
	r.Do("SET", "later", "x")
	r.Expect(harness.Status("OK"), "DEBUG", "RELOAD", "NOSAVE")
	r.Expect(nil, "GET", "later")
	r.Expect(digest, "DEBUG", "DIGEST")

	// NOFLUSH adds the file's keys to the data; a key in both is an error
	// (Redis kills itself) unless MERGE, and then the file's value wins.
	r.Do("SET", "later", "x")
	r.Expect(harness.Err("ERR Error trying to load the RDB dump, check server logs."), "DEBUG", "RELOAD", "NOSAVE", "NOFLUSH")
	r.Expect("x", "GET", "later")
	r.Do("SET", "key:1", "changed")
	r.Expect(harness.Status("OK"), "DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE")
	r.Expect("x", "GET", "later")
	r.Expect("value:1", "GET", "key:1")

	// A file that does not load leaves the data as it was.
	os.Remove(filepath.Join(dir, "dump.rdb"))
	r.Expect(harness.Err("ERR Error trying to load the RDB dump, check server logs."), "DEBUG", "RELOAD", "NOSAVE")
	r.Expect("x", "GET", "later")

	// A transaction or a script could only wait for itself.
	r.Do("MULTI")
	r.Do("DEBUG", "RELOAD")
	r.Do("DEBUG", "DIGEST-VALUE", "later")
	got := r.Do("EXEC").([]any)
	if got[0] != harness.Err("ERR DEBUG RELOAD and LOADAOF cannot run inside MULTI/EXEC or a script") || len(got[1].([]any)) != 1 {
		t.Fatalf("EXEC: %v", got)
	}
	s.NoPanics(t)
}

// TestDebugReloadUnderWrites runs RELOAD and LOADAOF while clients write:
// both hold every shard from the save (or the log's last record) to the
// swap, so no acknowledged write is lost.
func TestDebugReloadUnderWrites(t *testing.T) {
	s := harness.Start(t, "--dir", t.TempDir(), "--appendonly", "yes", "--appendfsync", "no")
	ctx := context.Background()
	const writers, incrs = 4, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.Client(t)
			for range incrs {
				if err := c.Incr(ctx, fmt.Sprint("counter", w)).Err(); err != nil {
					t.Errorf("INCR: %v", err)
					return
				}
				c.SAdd(ctx, "set", rand.Int64N(1000)) // multi-key-free traffic on another shard
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	admin := s.Client(t)
	reloads := 0
	for running := true; running; reloads++ {
		select {
		case <-done:
			running = false
		default:
		}
		sub := "RELOAD"
		if reloads%2 == 1 {
			sub = "LOADAOF"
		}
		if err := admin.Do(ctx, "DEBUG", sub).Err(); err != nil {
			t.Fatalf("DEBUG %s: %v", sub, err)
		}
		if reloads == 2 {
			admin.BgSave(ctx)
		}
	}
	if reloads < 4 {
		t.Fatalf("only %d reloads ran while the clients wrote", reloads)
	}
	for w := range writers {
		if n, err := admin.Get(ctx, fmt.Sprint("counter", w)).Int(); err != nil || n != incrs {
			t.Errorf("counter%d = %d, %v; %d INCRs were acknowledged", w, n, err, incrs)
		}
	}
	s.NoPanics(t)
}

// TestDebugLoadAOF writes the log out and loads it in place of the data.
func TestDebugLoadAOF(t *testing.T) {
	s := harness.Start(t, "--dir", t.TempDir(), "--appendonly", "yes", "--appendfsync", "no")
	r := s.Raw(t)
	r.Do("DEBUG", "POPULATE", "100") // not logged, as in Redis: LOADAOF drops them
	r.Do("SET", "a", "1", "EX", "1000")
	r.Do("RPUSH", "l", "x", "y")
	r.Do("HSET", "h", "f", "v")
	r.Do("XADD", "st", "*", "f", "v")
	r.Do("DEL", "key:0")
	r.Do("SELECT", "2")
	r.Do("INCRBY", "n", "5")
	r.Do("SELECT", "0")
	r.Do("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)")
	r.Do("DEBUG", "POPULATE", "100")
	r.Do("SELECT", "2")
	want := r.Do("DEBUG", "DIGEST")
	r.Expect(harness.Status("OK"), "DEBUG", "LOADAOF")
	if got := r.Do("DEBUG", "DIGEST"); got == want {
		t.Fatalf("the populated keys survived LOADAOF")
	}
	r.Expect(int64(1), "DBSIZE")
	r.Expect("5", "GET", "n")
	r.Do("SELECT", "0")
	r.Expect(int64(4), "DBSIZE")
	if ttl := r.Do("TTL", "a").(int64); ttl < 990 {
		t.Fatalf("TTL after LOADAOF: %d", ttl)
	}
	r.Expect(int64(1), "FCALL", "f", "0")
	// Reloading the same log again changes nothing.
	want = r.Do("DEBUG", "DIGEST")
	r.Expect(harness.Status("OK"), "DEBUG", "LOADAOF")
	r.Expect(want, "DEBUG", "DIGEST")

	// With appendonly off there is no log: Redis's error, the data kept.
	off := harness.Start(t)
	o := off.Raw(t)
	o.Do("SET", "k", "v")
	o.Expect(harness.Err("ERR Error trying to load the AOF files, check server logs."), "DEBUG", "LOADAOF")
	o.Expect("v", "GET", "k")
}

// TestDebugPauseCron stops the periodic cycle: expired keys stay until it
// resumes.
func TestDebugPauseCron(t *testing.T) {
	s := harness.Start(t, "--hz", "100")
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "DEBUG", "PAUSE-CRON", "1")
	r.Do("SET", "k", "v", "PX", "20")
	time.Sleep(300 * time.Millisecond)
	r.Expect(int64(1), "DBSIZE") // counted until reclaimed, as in Redis
	r.Expect(harness.Status("OK"), "DEBUG", "PAUSE-CRON", "0")
	harness.Eventually(t, "active expiry after PAUSE-CRON 0", func() bool { return r.Do("DBSIZE") == int64(0) })
}

// TestDebugFromScripts: DEBUG and CLIENT become callable from scripts
// with SET-DISABLE-DENY-SCRIPTS 1; the other noscript commands do not.
func TestDebugFromScripts(t *testing.T) {
	r := harness.Start(t).Raw(t)
	call := func(cmd string) any { return r.Do("EVAL", "return redis.call("+cmd+")", "0") }
	if got := call("'debug','protocol','integer'"); !strings.Contains(fmt.Sprint(got), "not allowed from script") {
		t.Fatalf("DEBUG from a script before SET-DISABLE-DENY-SCRIPTS: %v", got)
	}
	r.Expect(harness.Status("OK"), "DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1")
	defer r.Do("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0")
	r.Expect(int64(12345), "EVAL", "return redis.call('debug','protocol','integer')", "0")
	r.Do("SET", "k", "v")
	if got, _ := r.Do("EVAL", "redis.call('set',KEYS[1],'w') return redis.call('debug','object',KEYS[1])", "1", "k").(harness.Status); !strings.HasPrefix(string(got), "Value at:") {
		t.Fatalf("DEBUG OBJECT from a script that holds the key: %q", got)
	}
	if got := call("'client','id'"); fmt.Sprint(got) == "" || strings.Contains(fmt.Sprint(got), "ERR") {
		t.Fatalf("CLIENT ID from a script: %v", got)
	}
	if got := call("'save'"); !strings.Contains(fmt.Sprint(got), "not allowed from script") {
		t.Fatalf("SAVE from a script: %v", got)
	}
}

func TestDebugHTStats(t *testing.T) {
	r := harness.Start(t).Raw(t)
	r.Expect("[Dictionary HT]\n[Expires HT]\n", "DEBUG", "HTSTATS", "0")
	r.Do("DEBUG", "POPULATE", "100")
	r.Do("EXPIRE", "key:1", "100")
	got := r.Do("DEBUG", "HTSTATS", "0", "full").(string)
	if !regexp.MustCompile(`^\[Dictionary HT\]\nHash table 0 stats \(main hash table\):\n table size: \d+\n number of elements: 100\n max probe length: \d+\n avg probe length: \d+\.\d\d\n Probe length distribution:\n(   \d+: \d+ \(\d+\.\d\d%\)\n)+\[Expires HT\]\nHash table 0 stats \(main hash table\):\n number of elements: 1\n$`).MatchString(got) {
		t.Fatalf("HTSTATS 0 full:\n%s", got)
	}
	for i := range 300 {
		r.Do("SADD", "big", strconv.Itoa(i)+"x")
	}
	got = r.Do("DEBUG", "HTSTATS-KEY", "big", "full").(string)
	m := regexp.MustCompile(`^Hash table 0 stats \(main hash table\):\n table size: (\d+)\n number of elements: 300\n different slots: (\d+)\n max chain length: \d+\n avg chain length \(counted\): \d+\.\d\d\n avg chain length \(computed\): \d+\.\d\d\n Chain length distribution:\n(   \d+: \d+ \(\d+\.\d\d%\)\n)+$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("HTSTATS-KEY big full:\n%s", got)
	}
	if size, _ := strconv.Atoi(m[1]); size < 300 || size&(size-1) != 0 {
		t.Fatalf("table size %d: not a power of two holding 300", size)
	}
	r.Expect("Hash table 0 stats (main hash table):\n table size: "+m[1]+"\n number of elements: 300\n", "DEBUG", "HTSTATS-KEY", "big")
	r.Do("ZADD", "z", "1", strings.Repeat("m", 100))
	r.Expect("Hash table 0 stats (main hash table):\n table size: 4\n number of elements: 1\n", "DEBUG", "HTSTATS-KEY", "z")
}

// TestDebugLogs: LOG, LISTPACK and QUICKLIST write to the server's log.
func TestDebugLogs(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	r := harness.Start(t, "--logfile", logfile).Raw(t)
	r.Expect(harness.Status("OK"), "DEBUG", "LOG", "hello from the test")
	r.Do("HSET", "h", "f", strings.Repeat("v", 50))
	r.Expect(harness.Status("Listpack structure printed to the server log"), "DEBUG", "LISTPACK", "h")
	r.Do("CONFIG", "SET", "list-max-listpack-size", "1")
	defer r.Do("CONFIG", "SET", "list-max-listpack-size", "-2")
	r.Do("RPUSH", "q", "one", "two")
	r.Expect(harness.Status("Quicklist structure printed to the server log"), "DEBUG", "QUICKLIST", "q", "1")
	b, err := os.ReadFile(logfile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"DEBUG LOG: hello from the test",
		"DEBUG LISTPACK \"h\": {total bytes 62} {num entries 2}\n  [0] \"f\"\n  [1] \"" + strings.Repeat("v", 40) + "\"...\n",
		"DEBUG QUICKLIST \"q\": {count : 2} {len : 2} {fill : 1} {compress : 0}\n" +
			"  {quicklist node(0) {container : PACKED, size: 12, count: 1}}\n    [0] \"one\"\n" +
			"  {quicklist node(1) {container : PACKED, size: 12, count: 1}}\n    [0] \"two\"\n",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("log lacks %q:\n%s", want, b)
		}
	}
}

// TestDebugSkipChecksum: RESTORE takes a payload with a wrong checksum
// while SET-SKIP-CHECKSUM-VALIDATION is on.
func TestDebugSkipChecksum(t *testing.T) {
	r := harness.Start(t).Raw(t)
	r.Do("SET", "k", "v")
	p := []byte(r.Do("DUMP", "k").(string))
	p[len(p)-1] ^= 0xff
	r.Expect(harness.Err("ERR DUMP payload version or checksum are wrong"), "RESTORE", "k2", "0", string(p))
	r.Expect(harness.Status("OK"), "DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
	defer rdb.SkipChecksum.Store(false)
	r.Expect(harness.Status("OK"), "RESTORE", "k2", "0", string(p))
	r.Expect("v", "GET", "k2")
	r.Expect(harness.Status("OK"), "DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "0")
	r.Expect(harness.Err("ERR DUMP payload version or checksum are wrong"), "RESTORE", "k3", "0", string(p))
}

func TestDebugChangeReplID(t *testing.T) {
	s := harness.Start(t)
	before := s.Info(t, "replication")["master_replid"]
	s.Raw(t).Expect(harness.Status("OK"), "DEBUG", "CHANGE-REPL-ID")
	if after := s.Info(t, "replication")["master_replid"]; after == before || len(after) != 40 {
		t.Fatalf("master_replid %q, before %q", after, before)
	}
}

// TestDebugInMulti: DEBUG runs inside EXEC, which holds every shard for it.
func TestDebugInMulti(t *testing.T) {
	r := harness.Start(t).Raw(t)
	r.Do("MULTI")
	r.Do("DEBUG", "POPULATE", "10")
	r.Do("DEBUG", "DIGEST-VALUE", "key:1")
	r.Do("DEBUG", "OBJECT", "key:2")
	r.Do("DEBUG", "DIGEST")
	got := r.Do("EXEC").([]any)
	if got[0] != harness.Status("OK") || len(got[1].([]any)) != 1 || !strings.Contains(string(got[2].(harness.Status)), "encoding:embstr") || got[3] == harness.Status(strings.Repeat("0", 40)) {
		t.Fatalf("EXEC: %v", got)
	}
	r.Expect(int64(10), "DBSIZE")
	r.Expect(harness.Status("Apparently Redis did not crash: test passed"), "DEBUG", "STRINGMATCH-TEST")
}

// TestDebugProtocolFromScripts: scripts reading DEBUG PROTOCOL's replies
// (what Redis's scripting tests do, with SET-DISABLE-DENY-SCRIPTS 1) in
// RESP2 and RESP3 see and return what Redis's scripts do.
func TestDebugProtocolFromScripts(t *testing.T) {
	script := [][]string{{"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"}}
	for _, resp := range []string{"2", "3"} {
		for _, typ := range []string{"string", "integer", "double", "bignum", "null", "array", "set", "map", "attrib",
			"verbatim", "true", "false"} {
			script = append(script, []string{"EVAL", "redis.setresp(" + resp + ") return redis.call('debug','protocol','" + typ + "')", "0"})
		}
	}
	script = append(script, []string{"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"})
	debugDiffer(t, script, debugReply)
}
