package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// The maxmemory tests run the server as its own process: the limit is on the
// process's heap, which in-process servers share with the test binary.

const oomText = "OOM command not allowed when used memory > 'maxmemory'."

// With allkeys-lru, keys that have not been used for a while go before the
// ones just used: fill the cache, let two seconds pass (the LRU clock counts
// seconds, as Redis's does), then write and read a hot set and new keys.
func TestMaxmemoryAllkeysLRU(t *testing.T) {
	harness.OutOfProcess(t)
	if harness.RaceEnabled {
		// The race detector slows writes and the collector the limit is
		// measured from by several times: the evictor's ticks then judge
		// a heap several fills old (TestEvictionConcurrent runs under it).
		t.Skip("measures eviction against the collector's timing")
	}
	p := harness.StartBinary(t, "--maxmemory", "32mb", "--maxmemory-policy", "allkeys-lru", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	old := 0
	for ; old < 2_000_000 && harness.InfoField(t, c, "stats", "evicted_keys") == 0; old += 10_000 {
		if err := harness.Fill(ctx, c, "old", old, 10_000, 100, 0); err != nil {
			t.Fatalf("writing under allkeys-lru: %v", err)
		}
	}
	if old == 2_000_000 {
		t.Fatal("20M keys written and nothing evicted")
	}
	// Top the cache up with live keys until evictions resume, so that the
	// new keys below find no headroom. A measurement made while writes run
	// can be off by thousands of keys either way (a collection's live heap
	// holds what was in flight; keys written after it count in neither), so
	// each step is measured on a collection of the idle server: MEMORY
	// PURGE, then the evictor's next tick (hz 10).
	purge := func() {
		if err := c.Do(ctx, "MEMORY", "PURGE").Err(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	purge()
	for before, steps := harness.InfoField(t, c, "stats", "evicted_keys"), 0; ; old += 2_000 {
		if steps++; steps > 100 {
			t.Fatal("200,000 keys more and no eviction")
		}
		if err := harness.Fill(ctx, c, "old", old, 2_000, 100, 0); err != nil {
			t.Fatal(err)
		}
		if purge(); harness.InfoField(t, c, "stats", "evicted_keys") != before {
			break
		}
	}
	time.Sleep(2200 * time.Millisecond)
	evictedOld := harness.InfoField(t, c, "stats", "evicted_keys")
	keysOld, _ := c.DBSize(ctx).Result()
	const hot = 1000
	if err := harness.Fill(ctx, c, "hot", 0, hot, 100, 0); err != nil {
		t.Fatal(err)
	}
	// New keys worth a third of the cache, in steps, reading the hot keys
	// after each.
	fresh := int(keysOld) / 3
	for i := 0; i < fresh; i += 5_000 {
		if err := harness.Fill(ctx, c, "new", i, 5_000, 100, 0); err != nil {
			t.Fatal(err)
		}
		pl := c.Pipeline()
		for j := range hot {
			pl.Get(ctx, "hot:"+strconv.Itoa(j))
		}
		pl.Exec(ctx) // evicted ones answer nil; counted below
		time.Sleep(20 * time.Millisecond)
	}
	// The last writes' evictions. Between a collection and the next
	// measurement, keys written count in neither (docs/configuration.md):
	// on a loaded machine, where the evictor's ticks run late, a fill can
	// end thousands of keys past the limit (CI saw 14,500 of 23,357 new keys
	// unevicted). A collection of the idle server measures them; then wait
	// until the count holds still for a second.
	purge()
	for prev, still, deadline := int64(-1), 0, time.Now().Add(10*time.Second); still < 4 && time.Now().Before(deadline); {
		n := harness.InfoField(t, c, "stats", "evicted_keys")
		if n == prev {
			still++
		} else {
			still = 0
		}
		prev = n
		time.Sleep(300 * time.Millisecond)
	}
	keptHot, keptNew, keptOld := countKeys(ctx, c, "hot", hot), countKeys(ctx, c, "new", fresh), countKeys(ctx, c, "old", old)
	evicted := harness.InfoField(t, c, "stats", "evicted_keys") - evictedOld
	t.Logf("%d old keys filled the cache (%d kept); then %d hot and %d new: evicted %d, kept %d old, %d hot, %d new",
		old, keysOld, hot, fresh, evicted, keptOld, keptHot, keptNew)
	// Memory that is not keys (buffers and argument lists of the fills,
	// left to the collector) can hold a few MB more when keysOld is read
	// than at the end, and then that many more keys fit: a cold CI run
	// evicted 11,927 for 24,326 new keys. A quarter still shows the new
	// keys made room by evicting.
	if evicted < int64(fresh)/4 {
		t.Fatalf("only %d evictions for %d new keys", evicted, fresh)
	}
	if keptHot < hot*98/100 || keptNew < fresh*95/100 {
		t.Errorf("recently used keys evicted: kept %d/%d hot, %d/%d new", keptHot, hot, keptNew, fresh)
	}
	// The Go heap, garbage included, stays within the runtime's memory
	// limit, 1.25 x maxmemory (docs/configuration.md).
	if used, max := harness.InfoField(t, c, "memory", "used_memory"), harness.InfoField(t, c, "memory", "maxmemory"); used > max*5/4 {
		t.Errorf("used_memory %d > 1.25 x maxmemory %d", used, max)
	}
}

// With allkeys-lfu, keys read often outlive keys written once: new keys
// start at Redis's initial count of 5, and a key read a few dozen times
// counts higher.
func TestMaxmemoryAllkeysLFU(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t, "--maxmemory", "32mb", "--maxmemory-policy", "allkeys-lfu", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	const hot = 1000
	if err := harness.Fill(ctx, c, "hot", 0, hot, 100, 0); err != nil {
		t.Fatal(err)
	}
	for range 40 {
		pl := c.Pipeline()
		for i := range hot {
			pl.Get(ctx, "hot:"+strconv.Itoa(i))
		}
		if _, err := pl.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if f, _ := c.ObjectFreq(ctx, "hot:7").Result(); f <= 5 {
		t.Fatalf("OBJECT FREQ of a key read 40 times = %d", f)
	}
	cold := 0
	for ; cold < 2_000_000 && harness.InfoField(t, c, "stats", "evicted_keys") < int64(cold)/2+1; cold += 10_000 {
		if err := harness.Fill(ctx, c, "cold", cold, 10_000, 100, 0); err != nil {
			t.Fatalf("writing under allkeys-lfu: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	kept := 0
	for i := range hot {
		if c.Exists(ctx, "hot:"+strconv.Itoa(i)).Val() == 1 {
			kept++
		}
	}
	evicted := harness.InfoField(t, c, "stats", "evicted_keys")
	t.Logf("%d cold keys written, %d evicted, %d of %d hot keys kept", cold, evicted, kept, hot)
	if kept < hot*98/100 {
		t.Errorf("only %d of %d frequently read keys kept while %d keys were evicted", kept, hot, evicted)
	}
}

// noeviction refuses writes that may add data once the limit is reached,
// with Redis's error, keeps serving reads and deletions, and accepts writes
// again once memory is freed.
func TestMaxmemoryNoeviction(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t, "--maxmemory", "24mb", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	var err error
	written := 0
	for ; written < 2_000_000 && err == nil; written += 20_000 {
		err = harness.Fill(ctx, c, "k", written, 20_000, 100, 0)
	}
	if err == nil || err.Error() != oomText {
		t.Fatalf("after %d keys: %v, want %q", written, err, oomText)
	}
	for _, tc := range []struct {
		cmd  []any
		want string
	}{
		{[]any{"set", "new", "v"}, oomText},
		{[]any{"lpush", "l", "x"}, oomText},
		{[]any{"get", "k:1"}, strings.Repeat("v", 100)},
		{[]any{"incr", "k:1"}, oomText}, // denyoom, as in Redis, even on an existing key
		{[]any{"exists", "k:1"}, "1"},
		{[]any{"del", "k:1"}, "1"},
		{[]any{"expire", "k:2", "100"}, "1"},
		{[]any{"eval", "return redis.call('get', 'k:3')", "0"}, strings.Repeat("v", 100)},
		{[]any{"eval", "return redis.call('set', 'new', 'v')", "0"}, oomText + " script: "},
		{[]any{"eval", "return redis.call('del', 'k:4')", "0"}, "1"},
		// A script with a shebang is refused before it runs, unless it
		// declares no-writes or allow-oom (which lets it write).
		{[]any{"eval", "#!lua\nreturn redis.call('get', 'k:3')", "0"}, oomText},
		{[]any{"eval", "#!lua flags=no-writes\nreturn redis.call('get', 'k:3')", "0"}, strings.Repeat("v", 100)},
		{[]any{"eval", "#!lua flags=allow-oom\nreturn redis.call('set', 'oomok', 'v')", "0"}, "OK"},
	} {
		v, err := c.Do(ctx, tc.cmd...).Result()
		got := fmt.Sprint(v)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want && !(strings.HasSuffix(tc.want, "script: ") && strings.HasPrefix(got, tc.want)) {
			t.Errorf("%v = %q, want %q", tc.cmd, got, tc.want)
		}
	}
	// In MULTI only the commands that may add data are refused, and they
	// doom the transaction.
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "GET", "k:3")
	r.Expect(harness.Err(oomText), "SET", "a", "b")
	r.Expect(harness.Err("EXECABORT Transaction discarded because of previous errors."), "EXEC")
	if n := harness.InfoField(t, c, "stats", "evicted_keys"); n != 0 {
		t.Errorf("noeviction evicted %d keys", n)
	}
	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "SET accepted after FLUSHALL", func() bool { return c.Set(ctx, "new", "v", 0).Err() == nil })
}

// Memory freed inside a collection (the key stays) is seen too: the server
// measures again while writes are refused.
func TestMaxmemoryNoevictionInsideCollection(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t, "--maxmemory", "24mb", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	val := strings.Repeat("v", 100)
	fields := 0
	var err error
	for ; fields < 2_000_000 && err == nil; fields += 1000 {
		pl := c.Pipeline()
		for i := fields; i < fields+1000; i++ {
			pl.HSet(ctx, "h", "f"+strconv.Itoa(i), val)
		}
		_, err = pl.Exec(ctx)
	}
	if err == nil || err.Error() != oomText {
		t.Fatalf("after %d fields: %v, want %q", fields, err, oomText)
	}
	n, _ := c.HLen(ctx, "h").Result()
	for i := 0; i < int(n); i += 1000 {
		pl := c.Pipeline()
		for j := i; j < min(i+1000, int(n)); j++ {
			if j%10 != 0 {
				pl.HDel(ctx, "h", "f"+strconv.Itoa(j))
			}
		}
		if _, err := pl.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, "HSET accepted after HDEL of 90% of the fields", func() bool {
		return c.HSet(ctx, "h", "again", "v").Err() == nil
	})
}

// The volatile policies evict only keys with an expiry; with none left they
// refuse writes. volatile-ttl evicts the nearest expiry first.
func TestMaxmemoryVolatileTTL(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t, "--maxmemory", "24mb", "--maxmemory-policy", "volatile-ttl", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	if err := harness.Fill(ctx, c, "persistent", 0, 1000, 100, 0); err != nil {
		t.Fatal(err)
	}
	if err := harness.Fill(ctx, c, "long", 0, 1000, 100, time.Hour); err != nil {
		t.Fatal(err)
	}
	// Short-lived keys, far more than fit: they go first, nearest first.
	for i := 0; i < 250_000; i += 25_000 {
		if err := harness.Fill(ctx, c, "short", i, 25_000, 200, 10*time.Minute+time.Duration(i)*time.Millisecond); err != nil {
			t.Fatalf("writing under volatile-ttl: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := harness.InfoField(t, c, "stats", "evicted_keys"); n == 0 {
		t.Fatal("nothing evicted")
	}
	for _, prefix := range []string{"persistent", "long"} {
		for i := range 1000 {
			if c.Exists(ctx, prefix+":"+strconv.Itoa(i)).Val() == 0 {
				t.Fatalf("%s:%d was evicted before the short-lived keys", prefix, i)
			}
		}
	}
	// Without volatile keys, nothing can be evicted: writes get OOM.
	if err := c.Do(ctx, "config", "set", "maxmemory-policy", "volatile-lru").Err(); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; i < 2_000_000 && err == nil; i += 20_000 {
		err = harness.Fill(ctx, c, "plain", i, 20_000, 100, 0)
	}
	if err == nil || err.Error() != oomText {
		t.Fatalf("volatile-lru with no volatile keys left: %v, want %q", err, oomText)
	}
	for i := range 1000 {
		if c.Exists(ctx, "persistent:"+strconv.Itoa(i)).Val() == 0 {
			t.Fatalf("volatile-lru evicted persistent:%d, which has no expiry", i)
		}
	}
}

// Evicted keys are logged to the append-only file as deletions: after a
// restart the data set is the one that was live, not everything written.
func TestMaxmemoryEvictionIsLogged(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	p := harness.StartBinary(t, "--dir", dir, "--appendonly", "yes", "--maxmemory", "24mb",
		"--maxmemory-policy", "allkeys-random", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	for i := 0; i < 400_000; i += 50_000 {
		if err := harness.Fill(ctx, c, "k", i, 50_000, 100, 0); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
	}
	if harness.InfoField(t, c, "stats", "evicted_keys") == 0 {
		t.Fatal("nothing evicted")
	}
	// Stop evicting (what a tick asked for may still be under way) and
	// count what is left, then stop the server.
	if err := c.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	before, _ := c.DBSize(ctx).Result()
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	if _, err := r.NetConn.Write([]byte(harness.Req("SHUTDOWN"))); err != nil {
		t.Fatal(err)
	}
	if code := p.Wait(t); code != 0 {
		t.Fatalf("exit code %d after SHUTDOWN", code)
	}
	p = harness.StartBinary(t, "--dir", dir, "--appendonly", "yes", "--loglevel", "warning")
	after, _ := p.Client(t).DBSize(ctx).Result()
	if after != before {
		t.Fatalf("dbsize %d after restart, %d before", after, before)
	}
}

// Under an LFU policy keys count their accesses (OBJECT FREQ), as Redis's
// logarithmic counter does; IDLETIME is then refused, and the reverse.
func TestObjectFreqUnderLFU(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "SET", "k", "v")
	r.Expect(harness.Err(errNoLFUText), "OBJECT", "FREQ", "k")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory-policy", "ALLKEYS-LFU")
	r.Expect([]any{"maxmemory-policy", "allkeys-lfu"}, "CONFIG", "GET", "maxmemory-policy")
	r.Expect(harness.Status("OK"), "SET", "n", "v")
	r.Expect(int64(5), "OBJECT", "FREQ", "n") // a new key starts at 5
	r.Expect("v", "GET", "n")
	r.Expect(int64(6), "OBJECT", "FREQ", "n") // the first increments are certain
	for range 2000 {
		r.Do("GET", "n")
	}
	if f := r.Do("OBJECT", "FREQ", "n").(int64); f < 10 || f > 40 {
		t.Errorf("OBJECT FREQ after 2000 reads = %d, want a logarithmic count (10..40)", f)
	}
	r.Expect(harness.Err(errLFUIdleText), "OBJECT", "IDLETIME", "n")
	// With lfu-log-factor 0 every access counts: an overwrite is one access
	// (its lookup), whichever command makes it.
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "lfu-log-factor", "0")
	r.Expect(harness.Status("OK"), "SET", "s", "a")
	r.Expect(int64(5), "OBJECT", "FREQ", "s")
	r.Expect(harness.Status("OK"), "SET", "s", "b")
	r.Expect(int64(6), "OBJECT", "FREQ", "s")
	r.Expect(harness.Status("OK"), "MSET", "s", "c", "t", "d")
	r.Expect(int64(7), "OBJECT", "FREQ", "s")
	r.Expect(int64(5), "OBJECT", "FREQ", "t")
	r.Expect("c", "GETSET", "s", "e")
	r.Expect(int64(8), "OBJECT", "FREQ", "s")
	r.Expect(nil, "OBJECT", "FREQ", "missing")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory-policy", "volatile-lru")
	r.Expect(harness.Err(errNoLFUText), "OBJECT", "FREQ", "n")
}

const (
	errNoLFUText   = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	errLFUIdleText = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

func TestMaxmemoryConfig(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for _, p := range []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"} {
		r.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory-policy", strings.ToUpper(p))
		r.Expect([]any{"maxmemory-policy", p}, "CONFIG", "GET", "maxmemory-policy")
	}
	for _, tc := range []struct {
		args []string
		want any
	}{
		{[]string{"maxmemory-policy", "lru"}, harness.Err("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction")},
		{[]string{"maxmemory-samples", "0"}, harness.Err("ERR CONFIG SET failed (possibly related to argument 'maxmemory-samples') - argument must be between 1 and 64 inclusive")},
		{[]string{"maxmemory-samples", "10"}, harness.Status("OK")},
		{[]string{"lfu-log-factor", "-1"}, harness.Err("ERR CONFIG SET failed (possibly related to argument 'lfu-log-factor') - argument must be between 0 and 2147483647 inclusive")},
		{[]string{"lfu-decay-time", "5"}, harness.Status("OK")},
	} {
		r.Expect(tc.want, append([]string{"CONFIG", "SET"}, tc.args...)...)
	}
	r.Expect([]any{"lfu-decay-time", "5", "lfu-log-factor", "10"}, "CONFIG", "GET", "lfu*")
	r.Expect([]any{"maxmemory-samples", "10"}, "CONFIG", "GET", "maxmemory-samples")
}

// Eviction runs beside writers, readers, transactions, a snapshot and the
// append-only log (in-process, for the race detector): the server must stay
// consistent and keep answering. The limit leaves the test process's own
// heap 4 MB of room for data, which the writers soon fill.
func TestEvictionConcurrent(t *testing.T) {
	s := harness.Start(t, "--maxmemory-policy", "allkeys-lfu", "--dir", t.TempDir(), "--appendonly", "yes")
	ctx := context.Background()
	runtime.GC()
	limit := (s.InfoInt(t, "memory", "used_memory") + 4<<20) * 4 / 3
	c := s.Client(t)
	if err := c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(limit, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	// The writers run 1.5 s, longer (up to 15 s) while nothing is evicted:
	// on a loaded machine, or under -race, they fill the room more slowly.
	var stop atomic.Bool
	errc := make(chan error, 8)
	val := strings.Repeat("v", 8000)
	for w := range 4 {
		c := s.Client(t)
		go func() {
			var err error
			for i := 0; !stop.Load() && err == nil; i++ {
				k := fmt.Sprintf("k%d:%d", w, i)
				switch i % 4 {
				case 0, 1:
					err = c.Set(ctx, k, val, 0).Err()
				case 2:
					err = c.Get(ctx, fmt.Sprintf("k%d:%d", w, i/2)).Err()
					if err == redis.Nil {
						err = nil
					}
				case 3:
					err = c.Watch(ctx, func(tx *redis.Tx) error {
						_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
							p.Incr(ctx, k+":n")
							return nil
						})
						return err
					}, k+":n")
					if err == redis.TxFailedErr {
						err = nil
					}
				}
			}
			errc <- err
		}()
	}
	start := time.Now()
	for time.Since(start) < 1500*time.Millisecond ||
		time.Since(start) < 15*time.Second && s.InfoInt(t, "stats", "evicted_keys") == 0 {
		// A save already running, or an AOF rewrite the writers' growth
		// started (auto-aof-rewrite-min-size), refuses it, as in Redis.
		if err := c.BgSave(ctx).Err(); err != nil && !strings.Contains(err.Error(), "in progress") &&
			!strings.Contains(err.Error(), "Another child process is active") {
			t.Error(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop.Store(true)
	for range 4 {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	if n := s.InfoInt(t, "stats", "evicted_keys"); n == 0 {
		t.Error("nothing evicted")
	}
	s.NoPanics(t)
}

// A server shut down in-process lets go of its data. The in-process
// maxmemory tests measure the process's heap: a keyspace kept alive by a
// package-level map (the AI layer's registries were keyed by it) added each
// earlier test's data to the next one's, which then evicted every key and
// still answered OOM.
func TestShutdownReleasesData(t *testing.T) {
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	t.Run("server", func(t *testing.T) {
		s := harness.Start(t, "--dir", t.TempDir())
		c := s.Client(t)
		ctx := context.Background()
		val := strings.Repeat("v", 8000)
		for i := range 4000 { // 32 MB
			if err := c.Set(ctx, strconv.Itoa(i), val, 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Do(ctx, "PCACHE.CREATE", "p").Err(); err != nil {
			t.Fatal(err)
		}
	})
	if after := heap(); after > before+8<<20 {
		t.Fatalf("heap %d MB after the server stopped, %d MB before it started", after>>20, before>>20)
	}
}

// The order and timing of the OOM check, in-process: a limit of one byte
// puts any server over it.
func TestMaxmemoryEdges(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "SET", "a", "1")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory", "1")
	harness.Eventually(t, "OOM under noeviction", func() bool { return r.Do("SET", "x", "y") == harness.Err(oomText) })
	// Refused before the subscribed-context and MONITOR checks, as in Redis.
	sub := s.Raw(t)
	sub.Do("SUBSCRIBE", "ch")
	sub.Expect(harness.Err(oomText), "SET", "x", "y")
	mon := s.Raw(t)
	mon.Expect(harness.Status("OK"), "MONITOR")
	mon.Expect(harness.Err(oomText), "SET", "x", "y")
	// Lifting the limit takes effect at once, for the very next command.
	r.Send(harness.Req("CONFIG", "SET", "maxmemory", "0") + harness.Req("SET", "b", "2"))
	r.ExpectRead(harness.Status("OK"))
	r.ExpectRead(harness.Status("OK"))
	// With a policy that evicts, writes go through and evict instead;
	// CONFIG RESETSTAT counts from zero again.
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory-policy", "allkeys-random", "maxmemory", "1")
	harness.Eventually(t, "evictions", func() bool {
		r.Do("SET", "k"+strconv.Itoa(rand.IntN(1000)), "v")
		return s.InfoInt(t, "stats", "evicted_keys") > 0
	})
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory", "0")
	// The background evictor may finish one eviction it began before the
	// limit was lifted: wait until the count holds still.
	last := int64(-1)
	harness.Eventually(t, "evictions to stop", func() bool {
		n := s.InfoInt(t, "stats", "evicted_keys")
		held := n == last
		last = n
		time.Sleep(20 * time.Millisecond)
		return held
	})
	r.Expect(harness.Status("OK"), "CONFIG", "RESETSTAT")
	if n := s.InfoInt(t, "stats", "evicted_keys"); n != 0 {
		t.Errorf("evicted_keys = %d after CONFIG RESETSTAT", n)
	}
}

// One large value must not make every small key added after it count as
// large: small SETs far below the limit are accepted (an estimate that
// charged each new key the average size refused them).
func TestMaxmemoryLargeValueThenSmallKeys(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t, "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	if err := c.Set(ctx, "big", strings.Repeat("x", 30<<20), 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigSet(ctx, "maxmemory", "100mb").Err(); err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		if err := c.Set(ctx, "small:"+strconv.Itoa(i), "v", 0).Err(); err != nil {
			t.Fatalf("SET small:%d with 30 MB of 100 MB used: %v", i, err)
		}
		if i%1000 == 0 {
			time.Sleep(120 * time.Millisecond) // let measurements see the new keys
		}
	}
	if n, _ := c.DBSize(ctx).Result(); n != 5001 {
		t.Fatalf("dbsize %d, want 5001", n)
	}
}

// Lowering the limit a little below what large keys take evicts about the
// excess, not everything: evicted keys must lower the estimate by what they
// weighed, even on a server that then sits idle.
func TestMaxmemoryLargeValuesEvictTheExcess(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t, "--maxmemory-policy", "allkeys-lru", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	const n = 5000
	if err := harness.Fill(ctx, c, "k", 0, n, 10_000, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "MEMORY", "PURGE").Err(); err != nil { // a collection: used_memory is then the live heap
		t.Fatal(err)
	}
	used := harness.InfoField(t, c, "memory", "used_memory")
	// The data share (75%) of this limit is 10% below the live heap.
	if err := c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(int64(float64(used)/0.75/1.1), 10)).Err(); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "evictions", func() bool { return harness.InfoField(t, c, "stats", "evicted_keys") > 0 })
	time.Sleep(3 * time.Second) // idle: no write forces a collection
	if ev := harness.InfoField(t, c, "stats", "evicted_keys"); ev > n/3 {
		t.Fatalf("evicted %d of %d keys to shed about a tenth", ev, n)
	}
}

// Scripts write under allkeys-lru at the limit: room is made before each
// script runs (evicting takes shard locks, which a running script holds).
func TestMaxmemoryScriptsEvict(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t, "--maxmemory", "16mb", "--maxmemory-policy", "allkeys-random", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	for i := 0; harness.InfoField(t, c, "stats", "evicted_keys") == 0; i++ {
		if err := harness.Fill(ctx, c, "k", i*20_000, 20_000, 100, 0); err != nil {
			t.Fatal(err)
		}
	}
	// Reads first, so the script holds shards when it starts writing.
	set := redis.NewScript("for i = 1, 20 do redis.call('exists', KEYS[1] .. ':' .. i) end for i = 1, 20 do redis.call('set', KEYS[1] .. ':' .. i, ARGV[1]) end return 1")
	val := strings.Repeat("s", 1000)
	for i := range 2000 {
		if err := set.Run(ctx, c, []string{"s" + strconv.Itoa(i)}, val).Err(); err != nil {
			t.Fatalf("script %d: %v", i, err)
		}
	}
	if used, max := harness.InfoField(t, c, "memory", "used_memory"), harness.InfoField(t, c, "memory", "maxmemory"); used > max*5/4 {
		t.Errorf("used_memory %d > 1.25 x maxmemory %d", used, max)
	}
}

// TestMaxmemoryLoweredAppliesAtOnce: the command right after CONFIG SET
// maxmemory lowers the limit meets it, as in Redis, which checks the limit
// before every command: in the same pipeline, and queued in MULTI (the
// transaction then aborts), and read-only transactions still run.
func TestMaxmemoryLoweredAppliesAtOnce(t *testing.T) {
	harness.Differ(t, [][]string{
		{"SET", "x", "value"},
		{"CONFIG", "SET", "maxmemory", "1"},
		{"LPUSH", "mylist", "v"},
		{"CONFIG", "SET", "maxmemory", "0"},
		{"LPUSH", "mylist", "v"},
		{"MULTI"},
		{"SET", "foo1", "bar1"},
		{"CONFIG", "SET", "maxmemory", "1"}, // queued: runs in EXEC
		{"EXEC"},
		{"MULTI"},
		{"GET", "x"},
		{"CONFIG", "SET", "maxmemory", "1"},
		{"SET", "foo2", "bar2"},
		{"EXEC"},
		{"CONFIG", "SET", "maxmemory", "0"},
		{"EXISTS", "foo1", "foo2", "mylist"},
	})
	s := harness.Start(t)
	c := s.Raw(t)
	c.Send(harness.Encode("CONFIG", "SET", "maxmemory", "1") + harness.Encode("SET", "k", "v") + harness.Encode("CONFIG", "SET", "maxmemory", "0"))
	c.ExpectRead(harness.Status("OK"))
	c.ExpectRead(harness.Err("OOM command not allowed when used memory > 'maxmemory'."))
	c.ExpectRead(harness.Status("OK"))
}
