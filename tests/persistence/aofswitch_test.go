package persistence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// CONFIG SET appendonly at run time (docs/persistence.md): turned on, the
// log's base is the data at the switch and every write after it is in the
// incremental file, so a restart from the log finds exactly the data.

// aofFill writes keys of every type, in two databases.
func aofFill(t *testing.T, c, c3 *redis.Client, prefix string) {
	t.Helper()
	ctx := context.Background()
	p := func(k string) string { return prefix + k }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Set(ctx, p("s"), "v", time.Hour).Err())
	must(c.SetBit(ctx, p("bits"), 1000, 1).Err())
	must(c.PFAdd(ctx, p("hll"), "a", "b", "c").Err())
	must(c.RPush(ctx, p("l"), "a", "b", "c").Err())
	must(c.HSet(ctx, p("h"), "f", "v", "g", "w").Err())
	must(c.HExpire(ctx, p("h"), time.Hour, "g").Err())
	must(c.SAdd(ctx, p("set"), "1", "2", "x").Err())
	must(c.ZAdd(ctx, p("z"), redis.Z{Score: 1.5, Member: "a"}, redis.Z{Score: -2, Member: "b"}).Err())
	must(c.XAdd(ctx, &redis.XAddArgs{Stream: p("x"), Values: []any{"f", "v"}}).Err())
	must(c.XGroupCreate(ctx, p("x"), "g", "0").Err())
	must(c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c1", Streams: []string{p("x"), ">"}}).Err())
	must(c3.Set(ctx, p("db3"), "x", 0).Err())
	must(c3.ZAdd(ctx, p("z3"), redis.Z{Score: 3, Member: "m"}).Err())
}

// aofWriters runs n clients writing until stop is closed: plain writes of
// several types, XADD with a generated ID, SPOP, MULTI/EXEC and a script.
func aofWriters(t *testing.T, addr string, n int, stop chan struct{}) (*sync.WaitGroup, *atomic.Int64) {
	var wg sync.WaitGroup
	var ops atomic.Int64
	var errs atomic.Pointer[error]
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: addr, DB: w % 2 * 3})
			defer c.Close()
			ctx := context.Background()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := fmt.Sprintf("w%d:", w)
				var err error
				switch i % 8 {
				case 0:
					err = c.Set(ctx, k+fmt.Sprint(i%50), i, 0).Err()
				case 1:
					err = c.Incr(ctx, k+"n").Err()
				case 2:
					err = c.LPush(ctx, k+"l", i).Err()
				case 3:
					err = c.HSet(ctx, k+"h", fmt.Sprint(i%20), i).Err()
				case 4:
					err = c.ZIncrBy(ctx, k+"z", 1, fmt.Sprint(i%10)).Err()
				case 5:
					err = c.XAdd(ctx, &redis.XAddArgs{Stream: k + "x", MaxLen: 20, Approx: true, Values: []any{"i", i}}).Err()
				case 6:
					_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
						p.SAdd(ctx, k+"set", i, i+1, i+2)
						p.SPop(ctx, k+"set")
						p.Incr(ctx, k+"tx")
						return nil
					})
				case 7:
					err = c.Eval(ctx, "redis.call('incr', KEYS[1]); return redis.call('rpush', KEYS[2], ARGV[1])",
						[]string{k + "e", k + "el"}, i).Err()
				}
				if err != nil {
					errs.CompareAndSwap(nil, &err)
					return
				}
				ops.Add(1)
			}
		}()
	}
	t.Cleanup(func() {
		if e := errs.Load(); e != nil {
			t.Errorf("writer: %v", *e)
		}
	})
	return &wg, &ops
}

func aofInfo(t *testing.T, c *redis.Client, field string) string {
	t.Helper()
	info := c.Info(context.Background(), "persistence").Val()
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

func aofAwaitRewrite(t *testing.T, c *redis.Client) {
	t.Helper()
	harness.Eventually(t, "the rewrite", func() bool {
		return aofInfo(t, c, "aof_rewrite_in_progress") == "0" && aofInfo(t, c, "aof_rewrite_scheduled") == "0"
	})
}

func digest(t *testing.T, c *redis.Client) string {
	t.Helper()
	d, err := c.Do(context.Background(), "DEBUG", "DIGEST").Text()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func aofFiles(t *testing.T, dir string) []string {
	entries, _ := os.ReadDir(filepath.Join(dir, "appendonlydir"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Turned on under load (plain writes, MULTI/EXEC, scripts from 6 clients),
// then killed: the restart from the log has the same data, key for key.
func TestAOFSwitchOnUnderLoad(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--enable-debug-command", "yes", "--loglevel", "warning"}
	p := harness.StartBinary(t, append(args, "--appendonly", "no")...)
	c := p.Client(t)
	c3 := p.Client(t, func(o *redis.Options) { o.DB = 3 })
	ctx := context.Background()
	aofFill(t, c, c3, "before:")
	if err := c.Do(ctx, "DEBUG", "POPULATE", "20000", "pop:", "100").Err(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	wg, ops := aofWriters(t, p.Addr, 6, stop)
	for ops.Load() < 300 {
		time.Sleep(time.Millisecond)
	}
	if err := c.ConfigSet(ctx, "appendonly", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	if v := aofInfo(t, c, "aof_enabled"); v != "1" {
		t.Fatalf("aof_enabled %s after CONFIG SET appendonly yes", v)
	}
	aofFill(t, c, c3, "after:")
	at := ops.Load()
	aofAwaitRewrite(t, c)
	for ops.Load() < at+500 { // writes after the base too
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if got := aofInfo(t, c, "aof_last_bgrewrite_status"); got != "ok" {
		t.Fatalf("aof_last_bgrewrite_status %s", got)
	}
	want := digest(t, c)
	keys := c.DBSize(ctx).Val()
	if files := aofFiles(t, dir); len(files) != 3 {
		t.Fatalf("appendonlydir holds %v", files)
	}
	harness.PersistKill(t, p) // replies were sent after write(2): nothing is lost
	p = harness.StartBinary(t, append(args, "--appendonly", "yes")...)
	c = p.Client(t)
	if got := digest(t, c); got != want {
		t.Fatalf("digest after restart from the log %s, before %s (keys %d, were %d)", got, want, c.DBSize(ctx).Val(), keys)
	}
}

// Turned off: the log keeps what was written until then, and a restart
// with appendonly no loads the snapshot, as Redis does.
func TestAOFSwitchOff(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--enable-debug-command", "yes", "--loglevel", "warning"}
	p := harness.StartBinary(t, append(args, "--appendonly", "yes")...)
	c := p.Client(t)
	c3 := p.Client(t, func(o *redis.Options) { o.DB = 3 })
	ctx := context.Background()
	aofFill(t, c, c3, "a:")
	inLog := digest(t, c)
	if err := c.ConfigSet(ctx, "appendonly", "no").Err(); err != nil {
		t.Fatal(err)
	}
	if v := aofInfo(t, c, "aof_enabled"); v != "0" {
		t.Fatalf("aof_enabled %s", v)
	}
	if err := c.Do(ctx, "WAITAOF", "1", "0", "0").Err(); err == nil || !strings.Contains(err.Error(), "appendonly is disabled") {
		t.Fatalf("WAITAOF with the log off: %v", err)
	}
	aofFill(t, c, c3, "b:")
	want := digest(t, c)
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	harness.PersistKill(t, p)

	p = harness.StartBinary(t, append(args, "--appendonly", "no")...)
	if got := digest(t, p.Client(t)); got != want {
		t.Fatalf("restart from the snapshot: digest %s, want %s", got, want)
	}
	harness.PersistKill(t, p)
	p = harness.StartBinary(t, append(args, "--appendonly", "yes")...)
	if got := digest(t, p.Client(t)); got != inLog {
		t.Fatalf("restart from the log turned off: digest %s, want %s (the data when it was turned off)", got, inLog)
	}
}

// CONFIG REWRITE writes appendonly yes set at run time; the restart loads
// the log.
func TestAOFSwitchConfigRewrite(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "hotkv.conf")
	os.WriteFile(conf, []byte("save \"\"\nappendonly no\nenable-debug-command yes\ndir "+dir+"\n"), 0o644)
	p := harness.StartBinary(t, conf, "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	aofFill(t, c, p.Client(t, func(o *redis.Options) { o.DB = 3 }), "")
	if err := c.ConfigSet(ctx, "appendonly", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigRewrite(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(conf)
	if !strings.Contains(string(b), "appendonly yes") {
		t.Fatalf("config file after CONFIG REWRITE:\n%s", b)
	}
	aofAwaitRewrite(t, c)
	c.Set(ctx, "late", "1", 0)
	want := digest(t, c)
	harness.PersistKill(t, p)
	p = harness.StartBinary(t, conf, "--loglevel", "warning")
	if got := digest(t, p.Client(t)); got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
}

// Redis's edge cases: turned on twice, off during the rewrite that turns it
// on, on again, a directory that cannot be made, off inside MULTI, on
// while a save runs, WAITAOF.
func TestAOFSwitchEdges(t *testing.T) {
	dir := t.TempDir()
	s := harness.Start(t, "--dir", dir, "--save", "")
	c := s.Client(t)
	ctx := context.Background()
	info := func(f string) string { return aofInfo(t, c, f) }

	// A file where the directory should be: CONFIG SET fails, nothing changes.
	os.WriteFile(filepath.Join(dir, "appendonlydir"), nil, 0o644)
	err := c.ConfigSet(ctx, "appendonly", "yes").Err()
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'appendonly') - Unable to turn on AOF. Check server logs." {
		t.Fatalf("CONFIG SET appendonly yes without a directory: %v", err)
	}
	if info("aof_enabled") != "0" || info("aof_last_bgrewrite_status") != "err" || c.ConfigGet(ctx, "appendonly").Val()["appendonly"] != "no" {
		t.Fatalf("after the failure: aof_enabled %s, status %s, %v", info("aof_enabled"), info("aof_last_bgrewrite_status"), c.ConfigGet(ctx, "appendonly").Val())
	}
	os.Remove(filepath.Join(dir, "appendonlydir"))

	// Twice: one rewrite.
	c.Do(ctx, "DEBUG", "POPULATE", "50000")
	c.ConfigSet(ctx, "appendonly", "yes")
	if err := c.ConfigSet(ctx, "appendonly", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	// WAITAOF waits for the log's base, as Redis's for its rewrite.
	c.Set(ctx, "x", "y", 0)
	if v := c.Do(ctx, "WAITAOF", "1", "0", "0").Val(); fmt.Sprint(v) != "[1 0]" {
		t.Fatalf("WAITAOF while turning on: %v", v)
	}
	aofAwaitRewrite(t, c)
	if info("aof_rewrites") != "1" || info("aof_last_bgrewrite_status") != "ok" || info("aof_enabled") != "1" {
		t.Fatalf("rewrites %s, status %s", info("aof_rewrites"), info("aof_last_bgrewrite_status"))
	}
	if v := c.Do(ctx, "WAITAOF", "1", "0", "0").Val(); fmt.Sprint(v) != "[1 0]" {
		t.Fatalf("WAITAOF: %v", v)
	}

	// Off, on, off at once (the rewrite stops), then on: one log, whole.
	c.ConfigSet(ctx, "appendonly", "no")
	c.Set(ctx, "k1", "v", 0)
	c.ConfigSet(ctx, "appendonly", "yes")
	c.Set(ctx, "k2", "v", 0)
	c.ConfigSet(ctx, "appendonly", "no")
	if info("aof_rewrite_in_progress") != "0" || info("aof_enabled") != "0" {
		t.Fatalf("after turning it off: in progress %s, enabled %s", info("aof_rewrite_in_progress"), info("aof_enabled"))
	}
	if err := c.BgSave(ctx).Err(); err != nil { // the stopped rewrite does not hold persistence
		t.Fatal(err)
	}
	c.Set(ctx, "k3", "v", 0)
	c.ConfigSet(ctx, "appendonly", "yes") // may be scheduled behind the BGSAVE
	if v := info("aof_enabled"); v != "1" {
		t.Fatalf("aof_enabled %s", v)
	}
	c.Set(ctx, "k4", "v", 0)
	aofAwaitRewrite(t, c)
	c.Set(ctx, "k5", "v", 0)
	want := digest(t, c)
	if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err != nil {
		t.Fatal(err)
	}
	if got := digest(t, c); got != want {
		t.Fatalf("DEBUG LOADAOF: digest %s, want %s", got, want)
	}
	files := aofFiles(t, dir)
	slices.Sort(files)
	if len(files) != 3 || !strings.HasSuffix(files[0], ".base.hkv") {
		t.Fatalf("appendonlydir holds %v", files)
	}

	// Off inside MULTI: after EXEC.
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "SET", "m", "1")
	r.Expect(harness.Status("QUEUED"), "CONFIG", "SET", "appendonly", "no")
	r.Expect([]any{harness.Status("OK"), harness.Status("OK")}, "EXEC")
	if info("aof_enabled") != "0" {
		t.Fatal("still on after EXEC")
	}
	// On inside MULTI.
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "CONFIG", "SET", "appendonly", "yes")
	r.Expect(harness.Status("QUEUED"), "SET", "m", "2")
	r.Expect([]any{harness.Status("OK"), harness.Status("OK")}, "EXEC")
	aofAwaitRewrite(t, c)
	want = digest(t, c)
	if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err != nil {
		t.Fatal(err)
	}
	if got := digest(t, c); got != want {
		t.Fatalf("DEBUG LOADAOF after MULTI: digest %s, want %s", got, want)
	}
	s.NoPanics(t)
}

// Switched on and off repeatedly while clients write (race detector in CI):
// each time it ends on, the log reloads to the same data.
func TestAOFSwitchRepeatedly(t *testing.T) {
	s := harness.Start(t, "--dir", t.TempDir(), "--save", "", "--appendfsync", "always")
	c := s.Client(t)
	ctx := context.Background()
	stop := make(chan struct{})
	wg, ops := aofWriters(t, s.Addr, 4, stop)
	blocked := s.Client(t)
	var bwg sync.WaitGroup
	bwg.Add(1)
	go func() { // a blocked client served by pushes, logged as its pop
		defer bwg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			blocked.BLPop(ctx, 50*time.Millisecond, "bl")
		}
	}()
	pusher := s.Client(t)
	for round := range 6 {
		pusher.RPush(ctx, "bl", round)
		c.ConfigSet(ctx, "appendonly", "yes")
		if round%2 == 0 {
			aofAwaitRewrite(t, c)
		}
		pusher.RPush(ctx, "bl", round)
		c.ConfigSet(ctx, "appendonly", "no")
	}
	c.ConfigSet(ctx, "appendonly", "yes")
	aofAwaitRewrite(t, c)
	at := ops.Load()
	for ops.Load() < at+200 {
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	bwg.Wait()
	want := digest(t, c)
	if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err != nil {
		t.Fatal(err)
	}
	if got := digest(t, c); got != want {
		t.Fatalf("DEBUG LOADAOF: digest %s, want %s", got, want)
	}
	s.NoPanics(t)
}

// BGREWRITEAOF with the log off writes a log of a base alone, as Redis's:
// DEBUG LOADAOF and a start with appendonly yes load it; turning the log on
// replaces it.
func TestAOFSwitchRewriteWhileOff(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--enable-debug-command", "yes", "--loglevel", "warning"}
	p := harness.StartBinary(t, append(args, "--appendonly", "no")...)
	c := p.Client(t)
	ctx := context.Background()
	aofFill(t, c, p.Client(t, func(o *redis.Options) { o.DB = 3 }), "")
	if v := c.BgRewriteAOF(ctx).Val(); v != "Background append only file rewriting started" {
		t.Fatalf("BGREWRITEAOF with the log off: %q", v)
	}
	aofAwaitRewrite(t, c)
	if aofInfo(t, c, "aof_rewrites") != "1" || aofInfo(t, c, "aof_enabled") != "0" {
		t.Fatalf("rewrites %s, enabled %s", aofInfo(t, c, "aof_rewrites"), aofInfo(t, c, "aof_enabled"))
	}
	if files := aofFiles(t, dir); len(files) != 2 {
		t.Fatalf("appendonlydir holds %v", files)
	}
	want := digest(t, c)
	c.Set(ctx, "later", "1", 0)
	if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err != nil {
		t.Fatal(err)
	}
	if got := digest(t, c); got != want {
		t.Fatalf("DEBUG LOADAOF: digest %s, want %s", got, want)
	}
	c.Set(ctx, "later", "2", 0)
	harness.PersistKill(t, p)
	p = harness.StartBinary(t, append(args, "--appendonly", "yes")...)
	c = p.Client(t)
	if got := digest(t, c); got != want {
		t.Fatalf("start from its log: digest %s, want %s", got, want)
	}
	// Off, written, on: the new log replaces it.
	c.ConfigSet(ctx, "appendonly", "no")
	c.BgRewriteAOF(ctx)
	aofAwaitRewrite(t, c)
	c.Set(ctx, "later", "3", 0)
	c.ConfigSet(ctx, "appendonly", "yes")
	aofAwaitRewrite(t, c)
	want = digest(t, c)
	if files := aofFiles(t, dir); len(files) != 3 {
		t.Fatalf("appendonlydir holds %v", files)
	}
	harness.PersistKill(t, p)
	p = harness.StartBinary(t, append(args, "--appendonly", "yes")...)
	if got := digest(t, p.Client(t)); got != want {
		t.Fatalf("restart: digest %s, want %s", got, want)
	}
}

// A rewrite turning the log on that fails (here the manifest cannot be
// written) leaves the log on and logging, reports the failure, and is
// retried until it succeeds, as Redis retries it.
func TestAOFSwitchRewriteRetried(t *testing.T) {
	dir := t.TempDir()
	s := harness.Start(t, "--dir", dir, "--save", "")
	c := s.Client(t)
	ctx := context.Background()
	blocker := filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest.tmp")
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.Do(ctx, "DEBUG", "POPULATE", "1000")
	if err := c.ConfigSet(ctx, "appendonly", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the failure", func() bool { return aofInfo(t, c, "aof_last_bgrewrite_status") == "err" })
	if aofInfo(t, c, "aof_enabled") != "1" {
		t.Fatal("the log went off")
	}
	for i := range 100 {
		c.Incr(ctx, "n")
		c.RPush(ctx, "l", i)
	}
	if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err == nil {
		t.Fatal("DEBUG LOADAOF loaded a log without a base")
	}
	os.RemoveAll(blocker)
	harness.Eventually(t, "the retry", func() bool { return aofInfo(t, c, "aof_last_bgrewrite_status") == "ok" })
	aofAwaitRewrite(t, c)
	c.Incr(ctx, "n")
	want := digest(t, c)
	if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err != nil {
		t.Fatal(err)
	}
	if got := digest(t, c); got != want || c.Get(ctx, "n").Val() != "101" {
		t.Fatalf("DEBUG LOADAOF: digest %s, want %s; n %s", got, want, c.Get(ctx, "n").Val())
	}
	if files := aofFiles(t, dir); len(files) != 3 {
		t.Fatalf("appendonlydir holds %v", files)
	}
}
