package pubsub

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// A tracking scenario runs steps on named connections of HotKV and of
// Redis 8 in lockstep and compares every reply. A step is a command, or:
// "<read>" reads one more reply (a push), "<close>" closes the connection.
// "<send>" sends a command without reading a reply (CLIENT REPLY OFF).
// "<sync>" sends a PING and returns the pushes read before its PONG;
// "<blocked>" waits until one client is blocked.
// "$id:X" in an argument is connection X's CLIENT ID on that server, and
// client IDs in replies are compared by connection name; of CLIENT LIST
// only the flags are compared.
type tstep struct {
	conn string
	args []string
}

func ts(conn string, args ...string) tstep { return tstep{conn, args} }

type tconns struct {
	srv   *harness.Server
	conns map[string]*harness.Conn
	ids   map[string]int64
}

func (c *tconns) get(t *testing.T, name string) *harness.Conn {
	if r := c.conns[name]; r != nil {
		return r
	}
	r := c.srv.Raw(t)
	c.conns[name] = r
	c.ids[name] = r.Do("CLIENT", "ID").(int64)
	return r
}

func (c *tconns) run(t *testing.T, s tstep) any {
	r := c.get(t, s.conn)
	switch s.args[0] {
	case "<read>":
		v := r.Read()
		if p, ok := v.(harness.Push); ok && p[0] == "tracking-redir-broken" {
			return c.norm(v)
		}
		return v
	case "<sync>": // a PING, and every push that came before its PONG
		var got []any
		r.Send(harness.Encode("PING"))
		for v := r.Read(); v != harness.Status("PONG"); v = r.Read() {
			if p, ok := v.(harness.Push); ok && p[0] == "tracking-redir-broken" {
				v = c.norm(v)
			}
			got = append(got, v)
		}
		return got
	case "<blocked>": // wait until the server has a client blocked
		probe := c.get(t, "_probe")
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if strings.Contains(probe.Do("INFO", "clients").(string), "blocked_clients:1") {
				return nil
			}
		}
		t.Fatal("no client blocked")
	case "<close>":
		r.NetConn.Close()
		delete(c.conns, s.conn)
		// Wait until the server has seen it go, as the next step may depend on it.
		probe := c.get(t, "_probe")
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if s, _ := probe.Do("CLIENT", "LIST", "ID", strconv.FormatInt(c.ids[s.conn], 10)).(string); s == "" {
				return nil
			}
		}
		t.Fatalf("server did not see %s close", s.conn)
	}
	send := s.args[0] == "<send>"
	if send {
		s.args = s.args[1:]
	}
	args := make([]string, len(s.args))
	for i, a := range s.args {
		if name, ok := strings.CutPrefix(a, "$id:"); ok {
			c.get(t, name)
			a = strconv.FormatInt(c.ids[name], 10)
		}
		args[i] = a
	}
	if send {
		r.Send(harness.Encode(args...))
		return nil
	}
	switch args[0] {
	case "HELLO": // server identities differ; the protocol is what matters
		r.Do(args...)
		return nil
	case "CLIENT":
		if strings.EqualFold(args[1], "LIST") { // only the flags
			return regexp.MustCompile(`flags=\S*`).FindAllString(r.Do(args...).(string), -1)
		}
	case "INFO": // only the tracking fields
		var keep []string
		for _, l := range strings.Split(r.Do(args...).(string), "\r\n") {
			if strings.HasPrefix(l, "tracking") {
				keep = append(keep, l)
			}
		}
		return keep
	}
	return r.Do(args...)
}

// norm names the client IDs in replies that carry them.
func (c *tconns) norm(v any) any {
	switch x := v.(type) {
	case int64:
		for name, id := range c.ids {
			if id == x {
				return "id:" + name
			}
		}
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = c.norm(x[i])
		}
		return out
	case harness.Map:
		out := make(harness.Map, len(x))
		for i := range x {
			out[i] = c.norm(x[i])
		}
		return out
	case harness.Push:
		out := make(harness.Push, len(x))
		for i := range x {
			out[i] = c.norm(x[i])
		}
		return out
	}
	return v
}

func trackingDiffer(t *testing.T, steps []tstep) {
	t.Helper()
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	a := &tconns{srv: hot, conns: map[string]*harness.Conn{}, ids: map[string]int64{}}
	b := &tconns{srv: redis, conns: map[string]*harness.Conn{}, ids: map[string]int64{}}
	for i, s := range steps {
		if os.Getenv("DIFF_TRACE") != "" {
			t.Logf("step %d %s %q", i, s.conn, s.args)
		}
		got := a.run(t, s)
		if os.Getenv("DIFF_TRACE") != "" {
			t.Logf("hotkv: %#v", got)
		}
		want := b.run(t, s)
		// Client IDs differ between the servers: compare them by name
		// where a reply carries them.
		if l := strings.ToLower(strings.Join(s.args, " ")); strings.Contains(l, "getredir") || strings.Contains(l, "trackinginfo") {
			got, want = a.norm(got), b.norm(want)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d %s %q:\nhotkv: %#v\nredis: %#v", i, s.conn, s.args, got, want)
		}
	}
}

func TestDifferentialTrackingDefault(t *testing.T) {
	trackingDiffer(t, []tstep{
		ts("A", "HELLO", "3"),
		ts("A", "CLIENT", "TRACKINGINFO"),
		ts("A", "CLIENT", "GETREDIR"),
		ts("A", "CLIENT", "TRACKING", "ON"),
		ts("A", "CLIENT", "TRACKINGINFO"),
		ts("A", "CLIENT", "GETREDIR"),
		ts("A", "GET", "k"),
		ts("B", "SET", "k", "1"),
		ts("A", "PING"), // the invalidation came first
		ts("A", "<read>"),
		ts("B", "SET", "k", "2"), // nobody read it since: no message
		ts("A", "PING"),
		// Several keys read at once; a DEL of two is two messages.
		ts("A", "MGET", "k", "x", "y"),
		ts("B", "DEL", "k", "y"), // only k existed: one message
		ts("A", "<read>"),
		ts("B", "SET", "x", "v"),
		ts("A", "<read>"),
		ts("B", "SET", "y", "v"),
		ts("A", "<read>"),
		// A client's own write: the reply, then the message.
		ts("A", "GET", "own"),
		ts("A", "SET", "own", "v"),
		ts("A", "<read>"),
		// Only read-only commands register keys.
		ts("A", "SET", "w", "1"),
		ts("B", "SET", "w", "2"),
		ts("A", "PING"),
		ts("A", "EXISTS", "e"),
		ts("A", "STRLEN", "s"),
		ts("B", "SET", "e", "1"),
		ts("A", "<read>"),
		ts("B", "APPEND", "s", "1"),
		ts("A", "<read>"),
		// Keys read in a transaction and by a script.
		ts("A", "MULTI"),
		ts("A", "GET", "m"),
		ts("A", "SET", "m", "1"),
		ts("A", "EXEC"),
		ts("A", "<read>"),
		ts("A", "EVAL", "return redis.call('get', KEYS[1])", "1", "sk"),
		ts("B", "SET", "sk", "1"),
		ts("A", "<read>"),
		ts("A", "EVAL_RO", "return redis.call('get', KEYS[1])", "1", "ro"),
		ts("B", "SET", "ro", "1"),
		ts("A", "<read>"),
		// Keys of other types, other databases (the table is by name).
		ts("A", "HGET", "h", "f"),
		ts("B", "HSET", "h", "f", "v"),
		ts("A", "<read>"),
		ts("A", "LRANGE", "l", "0", "-1"),
		ts("B", "SELECT", "1"),
		ts("B", "RPUSH", "l", "x"),
		ts("A", "<read>"),
		ts("B", "SELECT", "0"),
		// Expiry and deletion by EXPIRE.
		ts("A", "GET", "ttl"),
		ts("B", "SET", "ttl", "v", "PX", "30"),
		ts("A", "<read>"),
		ts("A", "GET", "ttl"),
		ts("A", "<read>"), // expired by the active cycle
		// FLUSHALL: a null invalidation; FLUSHDB by A itself: reply first.
		ts("A", "GET", "f"),
		ts("B", "FLUSHALL"),
		ts("A", "<read>"),
		ts("A", "FLUSHDB"),
		ts("A", "<read>"),
		ts("A", "INFO", "clients"),
		ts("A", "CLIENT", "TRACKING", "OFF"),
		ts("A", "CLIENT", "TRACKINGINFO"),
		ts("A", "GET", "off"),
		ts("B", "SET", "off", "1"),
		ts("A", "PING"),
	})
}

func TestDifferentialTrackingModes(t *testing.T) {
	trackingDiffer(t, []tstep{
		ts("A", "HELLO", "3"),
		// NOLOOP: no message about the client's own writes.
		ts("A", "CLIENT", "TRACKING", "ON", "NOLOOP"),
		ts("A", "GET", "k"),
		ts("A", "SET", "k", "1"),
		ts("A", "PING"),
		ts("A", "GET", "k"),
		ts("B", "SET", "k", "2"),
		ts("A", "<read>"),
		ts("A", "CLIENT", "TRACKINGINFO"),
		ts("A", "CLIENT", "TRACKING", "OFF"),
		// OPTIN: only after CLIENT CACHING YES, for one command or one transaction.
		ts("A", "CLIENT", "TRACKING", "ON", "OPTIN"),
		ts("A", "GET", "a"),
		ts("B", "SET", "a", "1"),
		ts("A", "PING"),
		ts("A", "CLIENT", "CACHING", "YES"),
		ts("A", "CLIENT", "TRACKINGINFO"),
		ts("A", "GET", "a"),
		ts("A", "GET", "b"),
		ts("B", "SET", "b", "1"),
		ts("B", "SET", "a", "2"),
		ts("A", "<read>"),
		ts("A", "PING"),
		ts("A", "CLIENT", "CACHING", "YES"),
		ts("A", "MULTI"),
		ts("A", "GET", "m1"),
		ts("A", "GET", "m2"),
		ts("A", "EXEC"),
		ts("B", "MSET", "m1", "1", "m2", "2"),
		ts("A", "<read>"),
		ts("A", "<read>"),
		ts("A", "CLIENT", "CACHING", "NO"),
		ts("A", "CLIENT", "CACHING", "maybe"),
		ts("A", "CLIENT", "TRACKING", "ON", "OPTOUT"),
		ts("A", "CLIENT", "TRACKING", "OFF"),
		// OPTOUT: everything but after CLIENT CACHING NO.
		ts("A", "CLIENT", "TRACKING", "ON", "OPTOUT"),
		ts("A", "CLIENT", "CACHING", "YES"),
		ts("A", "CLIENT", "CACHING", "NO"),
		ts("A", "GET", "o1"),
		ts("A", "GET", "o2"),
		ts("B", "SET", "o1", "1"),
		ts("B", "SET", "o2", "1"),
		ts("A", "<read>"),
		ts("A", "PING"),
		ts("A", "CLIENT", "TRACKING", "OFF"),
		ts("A", "CLIENT", "CACHING", "YES"),
		// BCAST with prefixes: every key under them, read or not.
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "user:", "PREFIX", "job:"),
		ts("A", "CLIENT", "TRACKINGINFO"),
		ts("B", "SET", "user:1", "x"),
		ts("A", "<read>"),
		ts("B", "SET", "other", "x"),
		ts("B", "DEL", "job:7"),
		ts("B", "SET", "job:7", "x"),
		ts("A", "<read>"),
		ts("A", "SET", "user:2", "own"),
		ts("A", "<read>"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "us"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a", "PREFIX", "ab"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "user:"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "sess:"),
		ts("A", "CLIENT", "TRACKINGINFO"),
		ts("A", "CLIENT", "TRACKING", "ON"),
		ts("A", "INFO", "stats"),
		ts("A", "CLIENT", "TRACKING", "OFF"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST"),
		ts("B", "SET", "anything", "1"),
		ts("A", "<read>"),
		ts("A", "CLIENT", "TRACKING", "OFF"),
		// Option errors, in Redis's order.
		ts("A", "CLIENT", "TRACKING", "ON", "PREFIX", "x"),
		ts("A", "CLIENT", "TRACKING", "ON", "OPTIN", "OPTOUT"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST", "OPTIN"),
		ts("A", "CLIENT", "TRACKING", "ON", "REDIRECT", "999999"),
		ts("A", "CLIENT", "TRACKING", "ON", "REDIRECT", "x"),
		ts("A", "CLIENT", "TRACKING", "ON", "REDIRECT", "$id:B", "REDIRECT", "$id:B"),
		ts("A", "CLIENT", "TRACKING", "ON", "FOO"),
		ts("A", "CLIENT", "TRACKING", "MAYBE"),
		ts("A", "CLIENT", "TRACKING", "ON", "PREFIX"),
		ts("A", "CLIENT", "TRACKING"),
		ts("A", "CLIENT", "TRACKING", "ON", "OPTIN"),
		ts("A", "CLIENT", "TRACKING", "ON", "OPTOUT"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST"),
		ts("A", "CLIENT", "GETREDIR", "x"),
		ts("A", "RESET"),
		ts("A", "CLIENT", "TRACKINGINFO"),
	})
}

func TestDifferentialTrackingRedirect(t *testing.T) {
	trackingDiffer(t, []tstep{
		// RESP2: invalidations as messages on __redis__:invalidate.
		ts("R", "SUBSCRIBE", "__redis__:invalidate"),
		ts("A", "CLIENT", "TRACKING", "ON", "REDIRECT", "$id:R"),
		ts("A", "CLIENT", "GETREDIR"),
		ts("A", "CLIENT", "TRACKINGINFO"),
		ts("A", "GET", "k"),
		ts("B", "SET", "k", "1"),
		ts("R", "<read>"),
		ts("A", "GET", "k"),
		ts("A", "SET", "k", "2"),
		ts("R", "<read>"),
		ts("B", "FLUSHALL"),
		ts("R", "<read>"),
		// RESP3 redirect target: a push.
		ts("P", "HELLO", "3"),
		ts("P", "SUBSCRIBE", "__redis__:invalidate"),
		ts("C", "CLIENT", "TRACKING", "ON", "REDIRECT", "$id:P"),
		ts("C", "GET", "j"),
		ts("B", "SET", "j", "1"),
		ts("P", "PING"),
		ts("P", "<read>"),
		// The target gone: a RESP3 client hears of it.
		ts("D", "HELLO", "3"),
		ts("T", "PING"),
		ts("D", "CLIENT", "TRACKING", "ON", "REDIRECT", "$id:T"),
		ts("D", "GET", "z"),
		ts("T", "<close>"),
		ts("B", "SET", "z", "1"),
		ts("D", "<read>"),
		ts("D", "PING"),
		ts("D", "CLIENT", "TRACKINGINFO"),
		// A RESP2 client without redirection gets nothing, and stays in sync.
		ts("E", "CLIENT", "TRACKING", "ON"),
		ts("E", "GET", "q"),
		ts("B", "SET", "q", "1"),
		ts("E", "PING"),
	})
}

func TestDifferentialClientReply(t *testing.T) {
	trackingDiffer(t, []tstep{
		ts("A", "<send>", "CLIENT", "REPLY", "SKIP"),
		ts("A", "<send>", "SET", "k", "1"), // no reply: the next read is GET's
		ts("A", "GET", "k"),
		ts("A", "CLIENT", "REPLY", "MAYBE"),
		ts("A", "<send>", "CLIENT", "REPLY", "OFF"),
		ts("A", "<send>", "SET", "k", "2"),
		ts("A", "<send>", "CLIENT", "REPLY", "SKIP"),
		ts("A", "<send>", "INCR", "counter"),
		ts("A", "<send>", "GET", "k"),
		ts("A", "CLIENT", "REPLY", "ON"),
		ts("A", "GET", "k"),
		ts("A", "GET", "counter"),
		ts("A", "<send>", "CLIENT", "REPLY", "SKIP"),
		ts("A", "<send>", "CLIENT", "REPLY", "SKIP"), // skipped, and skips the next one again
		ts("A", "<send>", "PING"),
		ts("A", "ECHO", "x"),
		ts("A", "<send>", "CLIENT", "REPLY", "SKIP"),
		ts("A", "<send>", "SUBSCRIBE", "ch"),
		ts("B", "PUBLISH", "ch", "m"), // messages are pushes, never skipped
		ts("A", "<read>"),
	})
}

// TestTrackingNoStaleCache hammers the race client-side caching must win:
// a tracking client reads a key while other clients keep writing it. After
// each write settles, the last value the reader saw without a later
// invalidation must be the current one.
func TestTrackingNoStaleCache(t *testing.T) {
	hot := harness.Start(t)
	ctx := context.Background()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{hot.Addr}})
	if err != nil {
		t.Fatalf("rueidis (tracking on by default) refused the server: %v", err)
	}
	defer c.Close()
	w := hot.Client(t)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			w.Set(ctx, fmt.Sprintf("k%d", i%4), i, 0)
		}
	}()
	for i := 0; i < 3000; i++ {
		c.DoCache(ctx, c.B().Get().Key(fmt.Sprintf("k%d", i%4)).Cache(), time.Minute)
	}
	close(stop)
	<-done
	for k := range 4 {
		key := fmt.Sprintf("k%d", k)
		want, _ := w.Get(ctx, key).Result()
		var got string
		harness.Eventually(t, "the cached "+key+" to match the server", func() bool {
			got, _ = c.DoCache(ctx, c.B().Get().Key(key).Cache(), time.Minute).ToString()
			return got == want
		})
	}
	hot.NoPanics(t)
}

// TestTrackingRueidis is client-side caching as rueidis applications use
// it: it turns tracking on (OPTIN) by default, caches with CLIENT CACHING
// YES in a MULTI, and drops entries as invalidations arrive.
func TestTrackingRueidis(t *testing.T) {
	hot := harness.Start(t)
	ctx := context.Background()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{hot.Addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Do(ctx, c.B().Set().Key("user:1").Value("ada").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	get := func() (string, bool) {
		r := c.DoCache(ctx, c.B().Get().Key("user:1").Cache(), time.Minute)
		v, err := r.ToString()
		if err != nil {
			t.Fatal(err)
		}
		return v, r.IsCacheHit()
	}
	if v, hit := get(); v != "ada" || hit {
		t.Fatalf("first read: %q hit=%v, want ada from the server", v, hit)
	}
	if v, hit := get(); v != "ada" || !hit {
		t.Fatalf("second read: %q hit=%v, want ada from the cache", v, hit)
	}
	if n := hot.InfoInt(t, "clients", "tracking_clients"); n < 1 {
		t.Fatalf("tracking_clients %d", n)
	}
	if n := hot.InfoInt(t, "stats", "tracking_total_keys"); n != 1 {
		t.Fatalf("tracking_total_keys %d, want 1", n)
	}
	hot.Client(t).Set(ctx, "user:1", "grace", 0)
	harness.Eventually(t, "the invalidation to reach rueidis", func() bool {
		v, hit := get()
		return v == "grace" && !hit
	})
	hot.Client(t).Del(ctx, "user:1")
	harness.Eventually(t, "the deletion to reach rueidis", func() bool {
		r := c.DoCache(ctx, c.B().Get().Key("user:1").Cache(), time.Minute)
		return rueidis.IsRedisNil(r.Error())
	})
}

// TestTrackingTableMaxKeys: past tracking-table-max-keys the server forgets
// keys, invalidating them to their readers (and, since the keys did not
// change, to no BCAST client), so the table stays bounded.
func TestTrackingTableMaxKeys(t *testing.T) {
	hot := harness.Start(t, "--tracking-table-max-keys", "10")
	a, bc := hot.Raw(t), hot.Raw(t)
	bc.Do("HELLO", "3")
	bc.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "ON", "BCAST")
	a.Do("HELLO", "3")
	a.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "ON")
	for i := range 50 {
		a.Send(harness.Encode("GET", fmt.Sprintf("k%d", i)))
	}
	// The table is trimmed before each command, so invalidations come
	// between the replies.
	seen := 0
	for replies := 0; replies < 50; {
		switch v := a.Read().(type) {
		case harness.Push:
			if v[0] != "invalidate" {
				t.Fatalf("got %#v, want an invalidation", v)
			}
			seen++
		case nil:
			replies++
		default:
			t.Fatalf("got %#v, want GET's null or an invalidation", v)
		}
	}
	harness.Eventually(t, "the table back under its limit", func() bool {
		return hot.InfoInt(t, "stats", "tracking_total_keys") <= 10
	})
	// The keys forgotten were invalidated: 40 messages or more.
	for seen < 40 {
		if p, ok := a.Read().(harness.Push); !ok || p[0] != "invalidate" {
			t.Fatalf("got %#v, want invalidations", p)
		}
		seen++
	}
	bc.Expect(harness.Status("PONG"), "PING")
	a.Expect(harness.Status("OK"), "CONFIG", "SET", "tracking-table-max-keys", "0")
	a.Expect(harness.Map{"tracking-table-max-keys", "0"}, "CONFIG", "GET", "tracking-table-max-keys")
}

// TestTrackingTableLimitBeforeCommand: a table over tracking-table-max-keys
// (lowered by CONFIG SET) is brought under it before the next command of
// any client, not only by the cron; the invalidation to the client about to
// run comes before that command's reply (Redis's regression test for
// #11715: a command queued in MULTI).
func TestTrackingTableLimitBeforeCommand(t *testing.T) {
	hot := harness.Start(t)
	r, rd := hot.Raw(t), hot.Raw(t)
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "tracking-table-max-keys", "2")
	r.Expect(harness.Status("OK"), "DEBUG", "PAUSE-CRON", "1") // the cron would trim the table too
	defer r.Do("DEBUG", "PAUSE-CRON", "0")
	rd.Do("HELLO", "3")
	rd.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "ON")
	rd.Expect([]any{nil, nil}, "MGET", "1{tag}", "2{tag}")
	rd.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "tracking-table-max-keys", "1")
	rd.Send(harness.Encode("PING") + harness.Encode("EXEC"))
	if p, ok := rd.Read().(harness.Push); !ok || len(p) != 2 || p[0] != "invalidate" {
		t.Fatalf("before QUEUED: %#v, want an invalidation", p)
	}
	if v := rd.Read(); v != harness.Status("QUEUED") {
		t.Fatalf("got %#v, want QUEUED", v)
	}
	if v := rd.Read(); !reflect.DeepEqual(v, []any{harness.Status("PONG")}) {
		t.Fatalf("EXEC: %#v", v)
	}
	if n := hot.InfoInt(t, "stats", "tracking_total_keys"); n != 1 {
		t.Fatalf("tracking_total_keys %d, want 1", n)
	}
	// Under CLIENT REPLY OFF the invalidations still come: CLIENT REPLY
	// silences replies, not pushes.
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "tracking-table-max-keys", "3")
	off := hot.Raw(t)
	off.Do("HELLO", "3")
	off.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "ON")
	off.Expect([]any{nil, nil}, "MGET", "3{tag}", "4{tag}")
	off.Send(harness.Encode("CLIENT", "REPLY", "OFF"))
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "tracking-table-max-keys", "1")
	off.Send(harness.Encode("PING"))
	if p, ok := off.Read().(harness.Push); !ok || p[0] != "invalidate" {
		t.Fatalf("under CLIENT REPLY OFF: %#v, want an invalidation", p)
	}
}

// TestTrackingTableFlushedWithNoTracker: a flush empties the table even
// when the clients whose reads it holds have stopped tracking, as Redis's
// flush frees its whole table.
func TestTrackingTableFlushedWithNoTracker(t *testing.T) {
	hot := harness.Start(t)
	a, b := hot.Raw(t), hot.Raw(t)
	a.Do("HELLO", "3")
	a.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "ON")
	a.Expect(nil, "GET", "k")
	a.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "OFF")
	if n := hot.InfoInt(t, "stats", "tracking_total_keys"); n != 1 {
		t.Fatalf("tracking_total_keys %d before the flush, want 1", n)
	}
	b.Expect(harness.Status("OK"), "FLUSHALL")
	if n := hot.InfoInt(t, "stats", "tracking_total_keys"); n != 0 {
		t.Fatalf("tracking_total_keys %d after FLUSHALL, want 0", n)
	}
}

// TestDifferentialTrackingRedirectToSelfRESP2: a RESP2 client redirecting
// to itself, subscribed to __redis__:invalidate, gets its invalidations as
// messages, as any REDIRECT target does.
func TestDifferentialTrackingRedirectToSelfRESP2(t *testing.T) {
	trackingDiffer(t, []tstep{
		ts("A", "CLIENT", "TRACKING", "ON", "REDIRECT", "$id:A"),
		ts("A", "GET", "k"),
		ts("A", "SUBSCRIBE", "__redis__:invalidate"),
		ts("B", "SET", "k", "v"),
		ts("A", "<read>"),
	})
}

// TestDifferentialTrackingNoloopExpiry: what the active expiry cycle
// deletes is no client's write, so NOLOOP does not hide it from the client
// whose command last held the key's shard.
func TestDifferentialTrackingNoloopExpiry(t *testing.T) {
	trackingDiffer(t, []tstep{
		ts("A", "HELLO", "3"),
		ts("A", "CLIENT", "TRACKING", "ON", "NOLOOP"),
		ts("A", "SET", "k", "v", "PX", "100"),
		ts("A", "GET", "k"),
		ts("A", "<read>"),
	})
}

// TestDifferentialTrackingBlocked: a blocked command that a write serves
// runs as its own client's, as Redis re-runs it: what it changes reaches
// the writer despite NOLOOP, its client's invalidations follow its reply,
// and a served XREAD tracks its stream again.
func TestDifferentialTrackingBlocked(t *testing.T) {
	trackingDiffer(t, []tstep{
		ts("P", "HELLO", "3"),
		ts("P", "CLIENT", "TRACKING", "ON", "NOLOOP"),
		ts("P", "GET", "{t}dst"), // in the shard P's LPUSH locks
		ts("W", "<send>", "BLMOVE", "{t}src", "{t}dst", "LEFT", "RIGHT", "0"),
		ts("X", "<blocked>"),
		ts("P", "LPUSH", "{t}src", "x"),
		ts("W", "<read>"),
		ts("P", "<sync>"),
		ts("V", "HELLO", "3"),
		ts("V", "CLIENT", "TRACKING", "ON"),
		ts("V", "GET", "dst"),
		ts("V", "<send>", "BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"),
		ts("X", "<blocked>"),
		ts("P", "LPUSH", "src", "x"),
		ts("V", "<read>"),
		ts("V", "<sync>"),
		ts("V", "<send>", "XREAD", "BLOCK", "0", "STREAMS", "s", "$"),
		ts("X", "<blocked>"),
		ts("P", "XADD", "s", "1-1", "f", "v"),
		ts("V", "<read>"),
		ts("V", "<read>"),
		ts("P", "XADD", "s", "2-1", "f", "v"),
		ts("V", "<sync>"),
	})
}

// TestDifferentialTrackingClientState: CLIENT CACHING's errors in each
// mode, CLIENT LIST's flags in Redis's order, and a FLUSHALL's invalidation
// of its own client under CLIENT REPLY OFF (a push: not silenced).
func TestDifferentialTrackingClientState(t *testing.T) {
	trackingDiffer(t, []tstep{
		ts("A", "HELLO", "3"),
		ts("A", "CLIENT", "TRACKING", "ON"),
		ts("A", "CLIENT", "CACHING", "YES"),
		ts("A", "CLIENT", "CACHING", "NO"),
		ts("A", "CLIENT", "CACHING", "maybe"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST"),
		ts("A", "CLIENT", "TRACKING", "OFF"),
		ts("A", "CLIENT", "CACHING", "YES"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST"),
		ts("A", "CLIENT", "CACHING", "NO"),
		ts("A", "CLIENT", "NO-EVICT", "ON"),
		ts("A", "CLIENT", "NO-TOUCH", "ON"),
		ts("A", "WATCH", "w"),
		ts("B", "SET", "w", "1"),
		ts("A", "<read>"),
		ts("B", "CLIENT", "LIST", "ID", "$id:A"),
		ts("W", "CLIENT", "TRACKING", "ON", "REDIRECT", "$id:T"),
		ts("W", "GET", "q"),
		ts("T", "<close>"),
		ts("B", "SET", "q", "1"),
		ts("W", "<send>", "BLPOP", "l", "0"),
		ts("X", "<blocked>"),
		ts("B", "CLIENT", "LIST", "ID", "$id:W"),
		ts("B", "LPUSH", "l", "x"),
		ts("W", "<read>"),
		ts("C", "HELLO", "3"),
		ts("C", "CLIENT", "TRACKING", "ON"),
		ts("C", "GET", "k"),
		ts("C", "<send>", "CLIENT", "REPLY", "OFF"),
		ts("C", "<send>", "FLUSHALL"),
		ts("C", "<read>"),
		ts("C", "CLIENT", "REPLY", "ON"),
	})
}

// TestTrackingOnAgainHoldsPushes: a client that turned tracking off and on
// again holds its pushes in the batch that turned it on like in any other,
// so an invalidation sent while that batch runs follows the reply carrying
// the value it invalidates.
func TestTrackingOnAgainHoldsPushes(t *testing.T) {
	hot := harness.Start(t)
	a, b := hot.Raw(t), hot.Raw(t)
	a.Do("HELLO", "3")
	a.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "ON")
	a.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "OFF")
	a.Send(harness.Encode("CLIENT", "TRACKING", "ON") + harness.Encode("GET", "k") + harness.Encode("DEBUG", "SLEEP", "0.2"))
	time.Sleep(50 * time.Millisecond) // B writes while A's batch sleeps
	b.Expect(harness.Status("OK"), "SET", "k", "1")
	a.ExpectRead(harness.Status("OK"))
	a.ExpectRead(nil)
	a.ExpectRead(harness.Status("OK"))
	a.ExpectRead(harness.Push{"invalidate", []any{"k"}})
}

// TestTrackingOffEndsQueue: a client that turns tracking off gets its
// replies written directly again, and the goroutine writing its queue
// ends, also while CLIENT REPLY OFF leaves nothing to write.
func TestTrackingOffEndsQueue(t *testing.T) {
	hot := harness.Start(t)
	writers := func() int {
		buf := make([]byte, 1<<20)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "pubsub.(*Subscriber).writer")
	}
	n := writers()
	a := hot.Raw(t)
	a.Do("HELLO", "3")
	a.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "ON")
	if w := writers(); w != n+1 {
		t.Fatalf("%d queue writers with tracking on, want %d", w, n+1)
	}
	a.Send(harness.Encode("CLIENT", "REPLY", "OFF"))
	a.Send(harness.Encode("CLIENT", "TRACKING", "OFF"))
	harness.Eventually(t, "the queue writer to end", func() bool { return writers() == n })
	a.Expect(harness.Status("OK"), "CLIENT", "REPLY", "ON")
}

// TestDifferentialTrackingBroadcastBatches: in BCAST mode Redis sends the
// keys modified in one event-loop turn in one message per prefix, sorted;
// HotKV gathers those of one client's batch of commands the same way: a
// multi-key write, a transaction and a script each give one message.
func TestDifferentialTrackingBroadcastBatches(t *testing.T) {
	trackingDiffer(t, []tstep{
		ts("A", "HELLO", "3"),
		ts("A", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a", "PREFIX", "b"),
		ts("R", "CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", "$id:S"),
		ts("S", "SUBSCRIBE", "__redis__:invalidate"),
		ts("B", "MSET", "c3", "1", "a2", "1", "b1", "1", "a1", "1", "a2", "2"),
		ts("A", "<sync>"),
		ts("S", "<read>"),
		ts("B", "MULTI"),
		ts("B", "SET", "b9", "1"),
		ts("B", "DEL", "a1", "b1", "zz"),
		ts("B", "INCR", "b0"),
		ts("B", "EXEC"),
		ts("A", "<sync>"),
		ts("S", "<read>"),
		ts("B", "EVAL", "redis.call('set', 'a5', 1) redis.call('set', 'a4', 1) return redis.call('del', 'c3')", "0"),
		ts("A", "<sync>"),
		ts("S", "<read>"),
		ts("A", "SET", "a7", "own"), // its own write: after its reply
		ts("A", "<read>"),
		ts("S", "<read>"),
	})
}

// TestDifferentialTrackingRedirectQuit: a client that answered QUIT is
// gone at once for the others: invalidations redirected to it become
// tracking-redir-broken, even for a write right after its OK.
func TestDifferentialTrackingRedirectQuit(t *testing.T) {
	trackingDiffer(t, []tstep{
		ts("A", "HELLO", "3"),
		ts("R", "SUBSCRIBE", "__redis__:invalidate"),
		ts("A", "CLIENT", "TRACKING", "ON", "REDIRECT", "$id:R"),
		ts("B", "SET", "key1", "1"),
		ts("A", "GET", "key1"),
		ts("R", "QUIT"),
		ts("B", "SET", "key1", "2"),
		ts("A", "<sync>"),
		ts("A", "CLIENT", "TRACKINGINFO"),
	})
}
