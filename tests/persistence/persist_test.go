package persistence

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Durability tests: they kill the real server process (kill -9) and check
// what a restart finds.

// persistWriters runs n writers until stop is closed. Each sets its own keys
// in sequence and, every few writes, moves a unit between two counters in a
// transaction; acked[i] is the last sequence number whose reply arrived.
func persistWriters(t *testing.T, p *harness.Proc, n int, stop chan struct{}) (acked []int, wg *sync.WaitGroup) {
	acked = make([]int, n)
	wg = &sync.WaitGroup{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: p.Addr, MaxRetries: -1, PoolSize: 1})
			defer c.Close()
			ctx := context.Background()
			for seq := 1; ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				if seq%4 == 0 {
					_, err := c.TxPipelined(ctx, func(tx redis.Pipeliner) error {
						tx.IncrBy(ctx, fmt.Sprintf("from:%d", i), -1)
						tx.IncrBy(ctx, fmt.Sprintf("to:%d", i), 1)
						tx.Set(ctx, fmt.Sprintf("w:%d:%d", i, seq), seq, 0)
						return nil
					})
					if err != nil {
						return
					}
				} else if err := c.Set(ctx, fmt.Sprintf("w:%d:%d", i, seq), seq, 0).Err(); err != nil {
					return
				}
				acked[i] = seq
			}
		}()
	}
	return acked, wg
}

// persistAwaitAcks waits (10 s at most) until the server has run n writes.
func persistAwaitAcks(p *harness.Proc, n int) {
	c := redis.NewClient(&redis.Options{Addr: p.Addr})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if v, _ := c.Info(context.Background(), "persistence").Result(); !strings.Contains(v, "rdb_changes_since_last_save:") {
			continue
		} else if i := strings.Index(v, "rdb_changes_since_last_save:"); i >= 0 {
			var k int
			fmt.Sscan(v[i+len("rdb_changes_since_last_save:"):], &k)
			if k >= n {
				return
			}
		}
	}
}

// persistVerify checks that every acknowledged write is there and that the
// transactions were kept whole.
func persistVerify(t *testing.T, p *harness.Proc, acked []int) {
	t.Helper()
	c := p.Client(t)
	ctx := context.Background()
	for i, last := range acked {
		for seq := 1; seq <= last; seq++ {
			v, err := c.Get(ctx, fmt.Sprintf("w:%d:%d", i, seq)).Result()
			if err != nil || v != strconv.Itoa(seq) {
				t.Fatalf("writer %d: acknowledged write %d of %d lost after restart: %q %v", i, seq, last, v, err)
			}
		}
		from, _ := c.Get(ctx, fmt.Sprintf("from:%d", i)).Int()
		to, _ := c.Get(ctx, fmt.Sprintf("to:%d", i)).Int()
		if from+to != 0 || to < last/4 {
			t.Fatalf("writer %d: transaction torn or lost: from %d to %d, %d acknowledged", i, from, to, last/4)
		}
	}
}

func TestPersistAlwaysSurvivesKill9(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--loglevel", "warning"}
	var prev []int
	for round := range 3 {
		p := harness.StartBinary(t, args...)
		if prev != nil {
			persistVerify(t, p, prev) // what the previous round acknowledged
		}
		stop := make(chan struct{})
		acked, wg := persistWriters(t, p, 16, stop)
		persistAwaitAcks(p, 20)
		time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
		harness.PersistKill(t, p)
		close(stop)
		wg.Wait()
		total := 0
		for _, n := range acked {
			total += n
		}
		if total == 0 {
			t.Fatalf("round %d: no write acknowledged", round)
		}
		t.Logf("round %d: %d writes acknowledged before kill -9", round, total)
		// Writers of the next round start their sequences over: keep the
		// higher of the two acknowledgements per writer.
		for i := range acked {
			if prev != nil && prev[i] > acked[i] {
				acked[i] = prev[i]
			}
		}
		prev = acked
	}
	p := harness.StartBinary(t, args...)
	persistVerify(t, p, prev)
}

// Under everysec, a write reaches the OS before its reply goes out, so a
// process crash loses nothing; only a machine crash can lose the last
// second, which kill -9 cannot show. The test measures the process-crash
// window (writes acknowledged but lost).
func TestPersistEverysecKill9(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "everysec", "--loglevel", "warning"}
	p := harness.StartBinary(t, args...)
	stop := make(chan struct{})
	acked, wg := persistWriters(t, p, 8, stop)
	persistAwaitAcks(p, 20)
	time.Sleep(200 * time.Millisecond)
	harness.PersistKill(t, p)
	close(stop)
	wg.Wait()
	p = harness.StartBinary(t, args...)
	persistVerify(t, p, acked)
}

// persistFill writes n keys under always and kills the server.
func persistFill(t *testing.T, dir string, n int) {
	p := harness.StartBinary(t, "--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--loglevel", "warning")
	c := p.Client(t)
	for i := range n {
		if err := c.Set(context.Background(), fmt.Sprint("k", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	harness.PersistKill(t, p)
}

func TestPersistTruncatedTail(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	persistFill(t, dir, 100)
	log := harness.PersistLogFile(t, dir)
	fi, _ := os.Stat(log)
	if err := os.Truncate(log, fi.Size()-3); err != nil { // the last record, torn
		t.Fatal(err)
	}
	// With aof-load-truncated no, start-up stops and says where.
	bad := harness.PersistMustFail(t, harness.Binary(t), "--dir", dir, "--appendonly", "yes", "--aof-load-truncated", "no", "--port", "0")
	if !strings.Contains(bad, log) || !strings.Contains(bad, "truncated last record") {
		t.Fatalf("refusal does not name the file and the problem: %s", bad)
	}
	p := harness.StartBinary(t, "--dir", dir, "--appendonly", "yes")
	c := p.Client(t)
	if n := c.DBSize(context.Background()).Val(); n != 99 {
		t.Fatalf("%d keys loaded, want the 99 whole records", n)
	}
	// The torn record was cut off: new writes follow whole records.
	c.Set(context.Background(), "new", "v", 0)
	harness.PersistKill(t, p)
	if !strings.Contains(p.Stderr.String(), "aof-load-truncated") { // read once the process is gone
		t.Errorf("no warning logged:\n%s", p.Stderr)
	}
	p = harness.StartBinary(t, "--dir", dir, "--appendonly", "yes")
	if v := p.Client(t).Get(context.Background(), "new").Val(); v != "v" {
		t.Fatalf("write after a truncated load lost: %q", v)
	}
}

// A log damaged in the middle stops start-up, naming the file, the offset and
// the fix; hotkv --check --fix cuts it at its first bad record and the server
// then starts with every write before the damage.
func TestPersistCorruptMiddle(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	persistFill(t, dir, 100)
	log := harness.PersistLogFile(t, dir)
	b, _ := os.ReadFile(log)
	b[len(b)/2] ^= 0xff
	os.WriteFile(log, b, 0o644)
	fixCmd := "hotkv --check --fix " + log
	out := harness.PersistMustFail(t, harness.Binary(t), "--dir", dir, "--appendonly", "yes", "--port", "0")
	if !strings.Contains(out, log+": at offset") || !strings.Contains(out, "checksum") || !strings.Contains(out, fixCmd) {
		t.Fatalf("start-up error does not name the file, offset and fix: %s", out)
	}
	if chk := harness.PersistMustFail(t, harness.Binary(t), "--check", log); !strings.Contains(chk, "at offset") {
		t.Fatalf("--check: %s", chk)
	}
	fixed, err := exec.Command(harness.Binary(t), "--check", "--fix", log).CombinedOutput()
	var offset int64
	var records int
	if _, serr := fmt.Sscanf(strings.TrimPrefix(string(fixed), log+": "), "cut at offset %d: kept %d records", &offset, &records); err != nil || serr != nil {
		t.Fatalf("--fix: %s %v %v", fixed, err, serr)
	}
	if !strings.Contains(out, fmt.Sprintf("at offset %d:", offset)) || !strings.Contains(string(fixed), fmt.Sprintf("dropped %d bytes", int64(len(b))-offset)) {
		t.Fatalf("--fix cut elsewhere than the start-up error said:\n%s\n%s", out, fixed)
	}
	if bak, _ := os.ReadFile(log + ".bak"); string(bak) != string(b) {
		t.Fatal("the backup is not the damaged file")
	}
	if records < 30 || records > 70 {
		t.Fatalf("kept %d records of 100, damage was in the middle", records)
	}
	ctx := context.Background()
	p := harness.StartBinary(t, "--dir", dir, "--appendonly", "yes")
	c := p.Client(t)
	if n := c.DBSize(ctx).Val(); n != int64(records) {
		t.Fatalf("DBSIZE %d, want the %d writes before the damage", n, records)
	}
	for i := range records {
		if v := c.Get(ctx, fmt.Sprint("k", i)).Val(); v != strconv.Itoa(i) {
			t.Fatalf("k%d = %q", i, v)
		}
	}
	if err := c.Set(ctx, "new", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	harness.PersistKill(t, p)
	p = harness.StartBinary(t, "--dir", dir, "--appendonly", "yes")
	if v := p.Client(t).Get(ctx, "new").Val(); v != "v" {
		t.Fatalf("write after the fix lost: %q", v)
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	p.Wait(t)

	// A sound log is left alone.
	sound, _ := os.ReadFile(log)
	again, err := exec.Command(harness.Binary(t), "--check", "--fix", log).CombinedOutput()
	if now, _ := os.ReadFile(log); err != nil || !strings.Contains(string(again), "nothing to fix") || string(now) != string(sound) {
		t.Fatalf("--fix on a sound log: %s %v", again, err)
	}
	// A snapshot (the log's base) is refused and left alone.
	base, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.base.hkv"))
	if len(base) != 1 {
		t.Fatalf("bases: %v", base)
	}
	snap, _ := os.ReadFile(base[0])
	if out := harness.PersistMustFail(t, harness.Binary(t), "--check", "--fix", base[0]); !strings.Contains(out, "snapshot cannot be fixed") {
		t.Fatalf("--fix on a snapshot: %s", out)
	}
	if now, _ := os.ReadFile(base[0]); string(now) != string(snap) {
		t.Fatal("--fix changed a snapshot")
	}
	// A log a later one follows is refused: that one would replay over the gap.
	m := filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")
	mb, _ := os.ReadFile(m)
	os.WriteFile(m, append(mb, "file appendonly.aof.99.incr.aof seq 99 type i\n"...), 0o644)
	if out := harness.PersistMustFail(t, harness.Binary(t), "--check", "--fix", log); !strings.Contains(out, "not the last log") {
		t.Fatalf("--fix on an earlier log: %s", out)
	}
}

// A snapshot taken while transactions move units between keys on different
// shards holds every transaction whole: the sums stay zero.
func TestPersistSnapshotPointInTime(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	p := harness.StartBinary(t, "--dir", dir, "--save", "", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	// Enough keys that the saver takes a while to walk them.
	for i := 0; i < 50000; i += 1000 {
		pipe := c.Pipeline()
		for j := i; j < i+1000; j++ {
			pipe.Set(ctx, fmt.Sprint("fill:", j), strings.Repeat("x", 50), 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	acked, wg := persistWriters(t, p, 8, stop)
	for range 3 {
		time.Sleep(50 * time.Millisecond)
		if err := c.Do(ctx, "bgsave").Err(); err != nil && !strings.Contains(err.Error(), "in progress") {
			t.Fatal(err)
		}
	}
	// Wait for the last snapshot, then crash.
	for strings.Contains(c.Info(ctx, "persistence").Val(), "rdb_bgsave_in_progress:1") {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	harness.PersistKill(t, p)
	p = harness.StartBinary(t, "--dir", dir, "--save", "")
	c = p.Client(t)
	for i := range acked {
		from, _ := c.Get(ctx, fmt.Sprintf("from:%d", i)).Int()
		to, _ := c.Get(ctx, fmt.Sprintf("to:%d", i)).Int()
		if from+to != 0 {
			t.Fatalf("writer %d: torn transaction in the snapshot: from %d to %d", i, from, to)
		}
		// Its plain writes form a prefix: a snapshot is one instant.
		var missing bool
		for seq := 1; seq <= acked[i]; seq++ {
			has := c.Exists(ctx, fmt.Sprintf("w:%d:%d", i, seq)).Val() == 1
			if has && missing {
				t.Fatalf("writer %d: write %d is in the snapshot but an earlier one is not", i, seq)
			}
			missing = missing || !has
		}
	}
	if n := c.DBSize(ctx).Val(); n < 50000 {
		t.Fatalf("%d keys loaded", n)
	}
}

// Every type round-trips through SHUTDOWN (which saves when save points are
// in force: a --dir brings Redis's defaults) and a restart.
func TestPersistShutdownSavesEveryType(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	p := harness.StartBinary(t, "--dir", dir)
	c := p.Client(t)
	ctx := context.Background()
	c.Set(ctx, "s", "v", time.Hour)
	c.SetBit(ctx, "bits", 1000, 1)
	c.PFAdd(ctx, "hll", "a", "b", "c")
	c.RPush(ctx, "l", "a", "b", "c")
	c.HSet(ctx, "h", "f", "v", "g", "w")
	c.HExpire(ctx, "h", time.Hour, "g")
	c.SAdd(ctx, "set", "1", "2", "x")
	c.ZAdd(ctx, "z", redis.Z{Score: 1.5, Member: "a"}, redis.Z{Score: -2, Member: "b"})
	c3 := p.Client(t, func(o *redis.Options) { o.DB = 3 })
	c3.Set(ctx, "db3", "x", 0)
	if cfg := c.ConfigGet(ctx, "save").Val(); cfg["save"] != "3600 1 300 100 60 10000" {
		t.Fatalf("save points with --dir: %v", cfg)
	}
	c.Shutdown(ctx)
	p.Wait(t)
	p = harness.StartBinary(t, "--dir", dir)
	c = p.Client(t)
	if ttl := c.TTL(ctx, "s").Val(); ttl < 59*time.Minute {
		t.Errorf("ttl %v", ttl)
	}
	if c.GetBit(ctx, "bits", 1000).Val() != 1 || c.PFCount(ctx, "hll").Val() != 3 {
		t.Error("bitmap or HyperLogLog lost")
	}
	if v := c.LRange(ctx, "l", 0, -1).Val(); fmt.Sprint(v) != "[a b c]" {
		t.Errorf("list %v", v)
	}
	if v := c.HGetAll(ctx, "h").Val(); len(v) != 2 {
		t.Errorf("hash %v", v)
	}
	if ttl := c.HTTL(ctx, "h", "g").Val(); len(ttl) != 1 || ttl[0] < 3500 {
		t.Errorf("field ttl %v", ttl)
	}
	if n := c.SCard(ctx, "set").Val(); n != 3 {
		t.Errorf("set %d", n)
	}
	if v := c.ZRangeWithScores(ctx, "z", 0, -1).Val(); len(v) != 2 || v[0].Score != -2 {
		t.Errorf("zset %v", v)
	}
	if v := p.Client(t, func(o *redis.Options) { o.DB = 3 }).Get(ctx, "db3").Val(); v != "x" {
		t.Errorf("db 3: %q", v)
	}
}

// A background save that fails makes writes fail with MISCONF while save
// points are in force; the next good save lifts it.
func TestPersistMisconf(t *testing.T) {
	dir := t.TempDir()
	s := harness.Start(t, "--dir", dir, "--save", "3600 1")
	r := s.Raw(t)
	os.Mkdir(filepath.Join(dir, "dump.rdb"), 0o755) // the rename onto it fails
	if v := r.Do("SAVE"); !strings.HasPrefix(fmt.Sprint(v), "ERR") {
		t.Fatalf("SAVE onto a directory: %v", v)
	}
	if v := fmt.Sprint(r.Do("SET", "k", "v")); v != "OK" { // as Redis: only a failed BGSAVE refuses writes
		t.Fatalf("write after a failed SAVE: %v", v)
	}
	r.Do("DEL", "k")
	r.Do("BGSAVE")
	for i := 0; i < 200 && !strings.Contains(fmt.Sprint(r.Do("INFO", "persistence")), "rdb_bgsave_in_progress:0"); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if v := fmt.Sprint(r.Do("SET", "k", "v")); !strings.HasPrefix(v, "MISCONF") {
		t.Fatalf("write after a failed BGSAVE: %v", v)
	}
	if v := r.Do("GET", "k"); v != nil {
		t.Fatalf("reads still work: %v", v)
	}
	if info := fmt.Sprint(r.Do("INFO", "persistence")); !strings.Contains(info, "rdb_last_bgsave_status:err") {
		t.Fatalf("INFO: %s", info)
	}
	before := harness.InfoFields(t, r, "persistence")["rdb_changes_since_last_save"]
	r.Do("CONFIG", "RESETSTAT") // as Redis: the change count is not a statistic
	if after := harness.InfoFields(t, r, "persistence")["rdb_changes_since_last_save"]; after != before || before == "0" {
		t.Fatalf("rdb_changes_since_last_save %s before RESETSTAT, %s after", before, after)
	}
	os.Remove(filepath.Join(dir, "dump.rdb"))
	if v := fmt.Sprint(r.Do("SAVE")); v != "OK" {
		t.Fatalf("SAVE: %v", v)
	}
	if v := fmt.Sprint(r.Do("SET", "k", "v")); v != "OK" {
		t.Fatalf("write after recovery: %v", v)
	}
}

func TestPersistCheckFlag(t *testing.T) {
	dir := t.TempDir()
	s := harness.Start(t, "--dir", dir)
	r := s.Raw(t)
	r.Do("SET", "a", "b")
	if v := fmt.Sprint(r.Do("SAVE")); v != "OK" {
		t.Fatal(v)
	}
	out, err := exec.Command(harness.Binary(t), "--check", filepath.Join(dir, "dump.rdb")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "snapshot OK: 1 keys") {
		t.Fatalf("%s %v", out, err)
	}
}

// The log replays every kind of write to the same state: relative expiries
// land where they did, SPOP removes the same members, served blocked
// clients pop the same element, cross-database commands and transactions.
func TestPersistLogReplay(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--appendonly", "yes"}
	s := harness.Start(t, args...)
	r := s.Raw(t)
	blocked := s.Raw(t)
	blocked.Send(harness.Encode("BLPOP", "q", "0"))
	time.Sleep(50 * time.Millisecond)
	for _, c := range [][]string{
		{"SET", "a", "1", "EX", "100"},
		{"SADD", "s", "a", "b", "c", "d", "e"},
		{"SPOP", "s", "2"},
		{"SPOP", "s"},
		{"RPUSH", "q", "x", "y"},
		{"HSET", "h", "f", "v", "g", "w"},
		{"HEXPIRE", "h", "100", "FIELDS", "1", "g"},
		{"SET", "m", "moved"},
		{"MOVE", "m", "2"},
		{"COPY", "a", "a2", "DB", "3"},
		{"MULTI"}, {"INCR", "n"}, {"INCR", "n"}, {"EXEC"},
		{"SET", "gone", "x"}, {"DEL", "gone"},
		{"ZADD", "z", "1", "a", "2", "b"}, {"ZINCRBY", "z", "5", "a"},
		{"SELECT", "5"}, {"SET", "five", "5"}, {"SWAPDB", "5", "6"},
	} {
		r.Do(c...)
	}
	if v := blocked.Read(); fmt.Sprint(v) != "[q x]" {
		t.Fatalf("BLPOP got %v", v)
	}
	r.Do("SELECT", "0")
	before := persistState(r)
	s.Shutdown(context.Background())

	s2 := harness.Start(t, args...)
	if after := persistState(s2.Raw(t)); after != before {
		t.Fatalf("after replay:\n%s\nwant:\n%s", after, before)
	}
}

// persistState describes the keys TestPersistLogReplay writes.
func persistState(r *harness.Conn) string {
	var b strings.Builder
	for _, c := range [][]string{
		{"PEXPIRETIME", "a"}, {"SMEMBERS", "s"}, {"LRANGE", "q", "0", "-1"}, {"HGETALL", "h"},
		{"HPEXPIRETIME", "h", "FIELDS", "1", "g"}, {"EXISTS", "m"}, {"GET", "n"}, {"EXISTS", "gone"},
		{"ZRANGE", "z", "0", "-1", "WITHSCORES"},
		{"SELECT", "2"}, {"GET", "m"}, {"SELECT", "3"}, {"PEXPIRETIME", "a2"},
		{"SELECT", "5"}, {"EXISTS", "five"}, {"SELECT", "6"}, {"GET", "five"}, {"SELECT", "0"},
	} {
		v := r.Do(c...)
		if c[0] == "SMEMBERS" || c[0] == "HGETALL" {
			v = sortedAny(v)
		}
		fmt.Fprintf(&b, "%v: %v\n", c, v)
	}
	return b.String()
}

func sortedAny(v any) string {
	var s []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			s = append(s, fmt.Sprint(e))
		}
	default:
		return fmt.Sprint(v)
	}
	slices.Sort(s)
	return fmt.Sprint(s)
}

// Rewrites (BGREWRITEAOF and automatic ones, from a tiny size threshold)
// while writers run lose nothing: each cut between the base and the new log
// falls between commands.
func TestPersistRewriteUnderLoad(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--auto-aof-rewrite-min-size", "20kb", "--auto-aof-rewrite-percentage", "50", "--loglevel", "warning"}
	p := harness.StartBinary(t, args...)
	stop := make(chan struct{})
	acked, wg := persistWriters(t, p, 8, stop)
	c := p.Client(t)
	ctx := context.Background()
	persistAwaitAcks(p, 20)
	for range 3 {
		c.Do(ctx, "bgrewriteaof") // may find one running
		time.Sleep(150 * time.Millisecond)
	}
	rewrites := 0
	if info := c.Info(ctx, "persistence").Val(); strings.Contains(info, "aof_rewrites:") {
		fmt.Sscan(info[strings.Index(info, "aof_rewrites:")+len("aof_rewrites:"):], &rewrites)
	}
	harness.PersistKill(t, p)
	close(stop)
	wg.Wait()
	if rewrites < 2 { // the start-up one and at least one more
		t.Fatalf("only %d rewrites", rewrites)
	}
	p = harness.StartBinary(t, args...)
	persistVerify(t, p, acked)
	// Manifest, base, incr: what the killed rewrite left is gone. The
	// restarted server may itself be rewriting the log it loaded (it is
	// over the tiny threshold), which holds a temporary base and two incr
	// files for a moment: wait for that to end.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		entries, _ := os.ReadDir(filepath.Join(dir, "appendonlydir"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if len(names) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("files left: %v", names)
		}
	}
}

// rdb_changes_since_last_save counts writes that changed something, as
// Redis's dirty counter: a refused write, and one that found nothing to
// do (DEL of a missing key, SADD of a member there, SETBIT or BITFIELD
// writing the value already there, XREADGROUP of the pending entries, a
// pop of nothing), adds nothing. Compared with Redis step by step, on
// commands that change one thing (Redis counts some by elements).
func TestDifferentialDirty(t *testing.T) {
	changes := func(r *harness.Conn) int64 {
		for _, l := range strings.Split(r.Do("INFO", "persistence").(string), "\r\n") {
			if v, ok := strings.CutPrefix(l, "rdb_changes_since_last_save:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		r.T.Fatal("no rdb_changes_since_last_save")
		return 0
	}
	delta := func(r *harness.Conn, cmd []string) any {
		before := changes(r)
		reply := r.Do(cmd...)
		_, isErr := reply.(harness.Err)
		return fmt.Sprint(changes(r)-before, " ", isErr)
	}
	harness.DifferRun(t, [][]string{
		{"SET", "s", "v"}, {"SET", "s", "w", "NX"}, {"DEL", "missing"}, {"DEL", "s"}, {"LPUSH", "s", "x"},
		{"SET", "s", "v"}, {"LPUSH", "s", "x"}, {"INCR", "s"},
		{"SADD", "set", "a"}, {"SADD", "set", "a"}, {"SREM", "set", "b"}, {"EXPIRE", "missing", "10"},
		{"SETBIT", "bits", "0", "0"}, {"SETBIT", "bits", "0", "0"}, {"SETBIT", "bits", "0", "1"}, {"SETBIT", "bits", "0", "1"},
		{"BITFIELD", "bf", "SET", "i5", "0", "0"}, {"BITFIELD", "bf", "SET", "i5", "0", "0"}, {"BITFIELD", "bf", "SET", "i5", "0", "1"},
		{"BITFIELD", "bf", "GET", "i5", "0"}, {"BITFIELD", "bf", "INCRBY", "i5", "0", "0"},
		{"XADD", "x", "1-0", "f", "v"}, {"XADD", "x", "2-0", "f", "v"}, {"XGROUP", "CREATE", "x", "g", "0"},
		{"XGROUP", "CREATECONSUMER", "x", "g", "alice"}, {"XGROUP", "CREATECONSUMER", "x", "g", "alice"},
		{"XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "x", ">"},
		{"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "x", "0"},
		{"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "x", "9000"},
		{"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "x", ">"},
		{"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "x", ">"},
		{"LPOP", "nolist"}, {"RPOP", "nolist", "2"}, {"ZPOPMIN", "nozset"}, {"HDEL", "nohash", "f"},
		{"PERSIST", "set"}, {"GETDEL", "missing"}, {"GETDEL", "bits"},
	}, delta, reflect.DeepEqual)
}

// Where HotKV's count of changes is its own (Redis counts some of these by
// elements, or not at all), what must hold: a claim that moves an entry
// counts even with nothing logged, a blocked pop counts when it is served,
// a BITFIELD that creates its key counts (and is logged) though OVERFLOW
// FAIL refused its write, and writes that change nothing never make the
// count appear, however many clients send them at once.
func TestDirtyCounts(t *testing.T) {
	s := harness.Start(t, "--dir", t.TempDir()) // it SAVEs
	r := s.Raw(t)
	// Read on r: a connection publishes its counts after each batch, and
	// before INFO on itself.
	changes := func() int64 {
		n, _ := strconv.ParseInt(harness.InfoFields(t, r, "persistence")["rdb_changes_since_last_save"], 10, 64)
		return n
	}
	r.Do("XADD", "x", "1-0", "f", "v")
	r.Do("XGROUP", "CREATE", "x", "g", "0")
	r.Do("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "x", ">")
	for _, c := range [][]string{
		{"XCLAIM", "x", "g", "bob", "0", "1-0"},
		{"XAUTOCLAIM", "x", "g", "carol", "0", "0"},
		{"BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "u2", "100", "4"},
	} {
		before := changes()
		r.Do(c...)
		if d := changes() - before; d != 1 {
			t.Errorf("%q: changes +%d, want +1", c, d)
		}
	}
	if got := r.Do("STRLEN", "bf"); got != int64(13) {
		t.Errorf("STRLEN bf = %v: the refused BITFIELD should still have made its key", got)
	}

	b := s.Raw(t)
	before := changes()
	b.Send(harness.Encode("BLPOP", "q", "5"))
	harness.WaitBlocked(t, r, 1)
	r.Do("RPUSH", "q", "a")
	b.Read()
	if d := changes() - before; d != 2 {
		t.Errorf("BLPOP served by RPUSH: changes +%d, want +2", d)
	}

	r.Expect(harness.Status("OK"), "SAVE")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		w := s.Raw(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				w.Do("DEL", "nokey")
			}
		}()
	}
	for range 100 {
		if n := changes(); n != 0 {
			t.Errorf("rdb_changes_since_last_save %d while only DELs of a missing key ran", n)
			break
		}
	}
	close(stop)
	wg.Wait()
}
