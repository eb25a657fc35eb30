package replication

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/internal/ai"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// A replica never loses quietly what its master holds: it leaves maxmemory
// to its master (replica-ignore-maxmemory yes), and the entries a master's
// caches evict, by their own limits or by maxmemory, reach the replica and
// the append-only log as deletions (docs/replication.md, "Safety and
// failure behaviour").

// cachePresence is what a client of r sees of each prompt cache entry
// (PCACHE.TTL: -2 when absent) and each semantic cache entry (an exact
// LOOKUP: the entry, or the nearest other one).
func cachePresence(r *harness.Conn, prompts, semPrompts []string) []any {
	var out []any
	for _, p := range prompts {
		out = append(out, p, r.Do("PCACHE.TTL", "pc", p))
	}
	for _, p := range semPrompts {
		out = append(out, p, r.Do("SCACHE.LOOKUP", "sc", "VALUES", "2", "1", "0", "PROMPT", p, "NOREFRESH"))
	}
	return out
}

// The entries a cache's MAXENTRIES evicts depend on the reads it served,
// which are neither logged nor replicated: the master sends its choice
// ahead of the write (PCACHE.DELHASH, SCACHE.INVALIDATE ... ID), and the
// replica, whose own order of use differs, follows it rather than
// evicting by its own. A restart from the log gets the same entries back.
func TestReplicaCacheLimitEvictions(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	margs := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", ""}
	mp, m := harness.StartReplicaBinary(t, margs...)
	_, h := harness.StartReplicaBinary(t)
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	for _, c := range [][]string{
		{"PCACHE.CREATE", "pc", "MAXENTRIES", "4"},
		{"SCACHE.CREATE", "sc", "DIM", "2", "MAXENTRIES", "2"},
		{"PCACHE.SET", "pc", "a", "1"}, {"PCACHE.SET", "pc", "b", "2"}, {"PCACHE.SET", "pc", "c", "3"}, {"PCACHE.SET", "pc", "d", "4"},
		{"SCACHE.STORE", "sc", "x", "1", "VALUES", "2", "1", "0"},
		{"SCACHE.STORE", "sc", "y", "2", "VALUES", "2", "0", "1"},
	} {
		if v := m.Do(c...); isErr(v) {
			t.Fatalf("%q: %v", c, v)
		}
	}
	harness.CaughtUp(t, m, h)
	// Reads on the master make b and y its least recently used entries;
	// the replica, which saw none of them, would evict a and x.
	m.Do("PCACHE.GET", "pc", "a")
	m.Do("SCACHE.LOOKUP", "sc", "VALUES", "2", "1", "0")
	h.Do("PCACHE.GET", "pc", "b") // the replica's own reads change nothing
	for _, c := range [][]string{
		{"PCACHE.SET", "pc", "e", "5"},
		{"SCACHE.STORE", "sc", "z", "3", "VALUES", "2", "1", "1"},
		{"MULTI"}, {"PCACHE.SET", "pc", "f", "6"}, {"PCACHE.SET", "pc", "g", "7"}, {"EXEC"},
	} {
		if v := m.Do(c...); isErr(v) {
			t.Fatalf("%q: %v", c, v)
		}
	}
	harness.CaughtUp(t, m, h)
	prompts, sems := strings.Fields("a b c d e f g"), strings.Fields("x y z")
	want := cachePresence(m, prompts, sems)
	for i, p := range prompts {
		if present := want[2*i+1] != int64(-2); present != strings.Contains("aefg", p) {
			t.Fatalf("master: prompt %s present %v; %v", p, present, want)
		}
	}
	if got := cachePresence(h, prompts, sems); !reflect.DeepEqual(got, want) {
		t.Errorf("replica's entries differ from the master's:\nmaster  %v\nreplica %v", want, got)
	}
	if n := harness.InfoFields(t, h, "stats")["unexpected_error_replies"]; n != "0" {
		t.Errorf("unexpected_error_replies on the replica = %s", n)
	}

	harness.PersistKill(t, mp)
	_, m2 := harness.StartReplicaBinary(t, margs...)
	if got := cachePresence(m2, prompts, sems); !reflect.DeepEqual(got, want) {
		t.Errorf("entries after a restart from the log differ:\nbefore %v\nafter  %v", want, got)
	}
}

// PCACHE.DELHASH deletes entries by their key, as the master sends them.
func TestPcacheDelHash(t *testing.T) {
	r := harness.Start(t).Raw(t)
	r.Expect(harness.Err("ERR no such namespace"), "PCACHE.DELHASH", "pc", strings.Repeat("0", 64))
	r.Do("PCACHE.CREATE", "pc", "MAXENTRIES", "1")
	r.Expect(harness.Err("ERR invalid prompt hash: 64 hexadecimal digits expected"), "PCACHE.DELHASH", "pc", "abc")
	r.Expect(harness.Err("ERR invalid prompt hash: 64 hexadecimal digits expected"), "PCACHE.DELHASH", "pc", strings.Repeat("g", 64))
	r.Expect(harness.Err("ERR wrong number of arguments for 'pcache.delhash' command"), "PCACHE.DELHASH", "pc")
	r.Expect(int64(0), "PCACHE.DELHASH", "pc", strings.Repeat("0", 64))
	r.Do("PCACHE.SET", "pc", "hi", "hello", "MODEL", "m")
	k := ai.HashPrompt("pc", "m", nil, []byte("hi"))
	r.Expect(int64(1), "PCACHE.DELHASH", "pc", strings.Repeat("0", 64), strings.ToUpper(hex.EncodeToString(k[:])))
	r.Expect(nil, "PCACHE.GET", "pc", "hi", "MODEL", "m")
}

// sameKeysAtSomeMoment waits (30 seconds at most) for a moment when the
// replica has the master's keys: the same DEBUG DIGEST and DBSIZE. The
// master's evictor may still take a key now and then as the heap it
// measures settles.
func sameKeysAtSomeMoment(t *testing.T, m, h *harness.Conn) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d1, n1 := m.Do("DEBUG", "DIGEST"), m.Do("DBSIZE")
		d2, n2 := h.Do("DEBUG", "DIGEST"), h.Do("DBSIZE")
		if d1 == d2 && n1 == n2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica never had the master's keys: master %v keys (%v), replica %v (%v)", n1, d1, n2, d2)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func statInt(t *testing.T, r *harness.Conn, field string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(harness.InfoFields(t, r, "stats")[field], 10, 64)
	if err != nil {
		t.Fatalf("INFO stats %s: %v", field, err)
	}
	return n
}

// untilStable waits until f stops changing (it settles once eviction
// has), up to 30 seconds.
func untilStable(t *testing.T, f func() int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for prev := int64(-1); f() != prev; time.Sleep(300 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("eviction went on for 30 seconds")
		}
		prev = f()
	}
}

// A replica with a smaller maxmemory than its master's data, under an
// evicting policy: with replica-ignore-maxmemory yes (the default) it
// evicts nothing and has every key the master has, the master's
// evictions included (as DELs); with no it evicts on its own, as a master.
// Either way the master's stream applies: over the limit under
// noeviction, where the replica's own clients get OOM.
func TestReplicaIgnoreMaxmemory(t *testing.T) {
	harness.OutOfProcess(t)
	if harness.RaceEnabled {
		t.Skip("eviction follows the collector's timing, which the race detector distorts")
	}
	mp, m := harness.StartReplicaBinary(t, "--maxmemory", "24mb", "--maxmemory-policy", "allkeys-random")
	_, h := harness.StartReplicaBinary(t, "--maxmemory", "8mb", "--maxmemory-policy", "allkeys-random", "--replica-ignore-maxmemory", "yes")
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	harness.CaughtUp(t, m, h)
	c, ctx := mp.Client(t), context.Background()
	for n := 0; statInt(t, m, "evicted_keys") == 0; n += 2000 {
		if n == 200_000 {
			t.Fatal("200 MB written and the master evicted nothing")
		}
		if err := harness.Fill(ctx, c, "k", n, 2000, 1000, 0); err != nil {
			t.Fatal(err)
		}
	}
	untilStable(t, func() int64 { return statInt(t, m, "evicted_keys") })
	sameKeysAtSomeMoment(t, m, h)
	if n := statInt(t, h, "evicted_keys"); n != 0 {
		t.Errorf("the replica evicted %d keys with replica-ignore-maxmemory yes", n)
	}
	t.Logf("master: %d keys evicted, %v left", statInt(t, m, "evicted_keys"), m.Do("DBSIZE"))

	// no, under noeviction: the replica is over its limit with nothing it
	// may evict. The master's writes apply; a client's write gets OOM
	// (once the replica is writable), as on a master.
	h.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory-policy", "noeviction")
	h.Expect(harness.Status("OK"), "CONFIG", "SET", "replica-ignore-maxmemory", "no")
	h.Expect([]any{"replica-ignore-maxmemory", "no"}, "CONFIG", "GET", "replica-ignore-maxmemory")
	m.Expect(harness.Status("OK"), "SET", "after", "v")
	harness.CaughtUp(t, m, h)
	h.Expect("v", "GET", "after")
	if n := statInt(t, h, "unexpected_error_replies"); n != 0 {
		t.Errorf("unexpected_error_replies on the replica = %d", n)
	}
	h.Expect(harness.Status("OK"), "CONFIG", "SET", "replica-read-only", "no")
	h.Expect(harness.Err("OOM command not allowed when used memory > 'maxmemory'."), "SET", "mine", "1")
	h.Expect(harness.Status("OK"), "CONFIG", "SET", "replica-ignore-maxmemory", "yes")
	h.Expect(harness.Status("OK"), "SET", "mine", "1")
	h.Expect(int64(1), "DEL", "mine")

	// no, under an evicting policy: the replica evicts on its own.
	h.Expect(harness.Status("OK"), "CONFIG", "SET", "replica-ignore-maxmemory", "no")
	h.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory-policy", "allkeys-random")
	harness.Eventually(t, "the replica evicted keys of its own", func() bool { return statInt(t, h, "evicted_keys") > 0 })
	if hn, mn := h.Do("DBSIZE").(int64), m.Do("DBSIZE").(int64); hn >= mn {
		t.Errorf("the replica has %d keys after evicting, the master %d", hn, mn)
	}
}

// promptsPresent reports, for prompts "prompt 0" .. "prompt n-1" of
// streamCaches, whether each is in prompt cache p and in semantic cache s
// (an exact LOOKUP finding that prompt).
func promptsPresent(t *testing.T, addr string, n int) []bool {
	t.Helper()
	c := (&harness.Proc{Addr: addr}).Client(t)
	ctx := context.Background()
	pl := c.Pipeline()
	ttls, hits := make([]*redis.Cmd, n), make([]*redis.Cmd, n)
	query := []any{"VALUES", 16}
	for range 16 {
		query = append(query, 1)
	}
	for i := range n {
		prompt := "prompt " + strconv.Itoa(i)
		ttls[i] = pl.Do(ctx, "PCACHE.TTL", "p", prompt)
		hits[i] = pl.Do(ctx, append(append([]any{"SCACHE.LOOKUP", "s"}, query...), "PROMPT", prompt, "NOREFRESH")...)
	}
	if _, err := pl.Exec(ctx); err != nil && err != redis.Nil {
		t.Fatal(err)
	}
	out := make([]bool, 2*n)
	for i := range n {
		out[2*i] = ttls[i].Val() != int64(-2)
		if m, ok := hits[i].Val().(map[any]any); ok {
			out[2*i+1] = m["prompt"] == "prompt "+strconv.Itoa(i)
		}
	}
	return out
}

// Prompt and semantic cache entries a master evicts under maxmemory are
// gone on its replica (which, with replica-ignore-maxmemory yes, evicts
// none itself) once the stream has caught up, and stay gone when the
// master restarts from its append-only log.
func TestReplicaCacheMaxmemoryEvictions(t *testing.T) {
	harness.OutOfProcess(t)
	if harness.RaceEnabled {
		t.Skip("eviction follows the collector's timing, which the race detector distorts")
	}
	dir := t.TempDir()
	margs := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--auto-aof-rewrite-percentage", "0", "--save", ""}
	mp, m := harness.StartReplicaBinary(t, append([]string{"--maxmemory", "16mb", "--maxmemory-policy", "allkeys-random"}, margs...)...)
	_, h := harness.StartReplicaBinary(t, "--maxmemory", "16mb", "--maxmemory-policy", "allkeys-random")
	h.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, mp.Addr))
	m.Expect(harness.Status("OK"), "PCACHE.CREATE", "p")
	m.Expect(harness.Status("OK"), "SCACHE.CREATE", "s", "DIM", "16")
	c, ctx := mp.Client(t), context.Background()
	evicted := func() int64 {
		return harness.AIInfo(t, c, "PCACHE.INFO", "p", "evicted") + harness.AIInfo(t, c, "SCACHE.INFO", "s", "evicted")
	}
	rounds := 0
	for ; evicted() == 0; rounds++ {
		if rounds == 40 {
			t.Fatal("16000 cache entries of 4 KB stored and none evicted")
		}
		if err := streamCachesFrom(ctx, c, rounds); err != nil {
			t.Fatal(err)
		}
	}
	untilStable(t, evicted)
	// No more evictions from here: what the master holds now is what the
	// replica and a replay of the log must hold.
	m.Expect(harness.Status("OK"), "CONFIG", "SET", "maxmemory", "0")
	harness.CaughtUp(t, m, h)
	n := rounds * 200
	want := promptsPresent(t, mp.Addr, n)
	kept := 0
	for _, in := range want {
		if in {
			kept++
		}
	}
	t.Logf("%d prompt and %d semantic entries evicted of %d each; %d left in all", harness.AIInfo(t, c, "PCACHE.INFO", "p", "evicted"), harness.AIInfo(t, c, "SCACHE.INFO", "s", "evicted"), n, kept)
	if got := promptsPresent(t, h.NetConn.RemoteAddr().String(), n); !reflect.DeepEqual(got, want) {
		t.Errorf("the replica's entries differ from the master's (%d of %d differ)", differing(got, want), len(want))
	}
	hc := (&harness.Proc{Addr: h.NetConn.RemoteAddr().String()}).Client(t)
	if n := harness.AIInfo(t, hc, "PCACHE.INFO", "p", "evicted") + harness.AIInfo(t, hc, "SCACHE.INFO", "s", "evicted"); n != 0 {
		t.Errorf("the replica's caches evicted %d entries themselves", n)
	}

	// A write's reply under appendfsync always means the log holds it and
	// all before it, the background evictions' records too.
	m.Expect(harness.Status("OK"), "SET", "synced", "1")
	harness.PersistKill(t, mp)
	p2, _ := harness.StartReplicaBinary(t, margs...)
	if got := promptsPresent(t, p2.Addr, n); !reflect.DeepEqual(got, want) {
		t.Errorf("the entries after a restart from the log differ (%d of %d differ)", differing(got, want), len(want))
	}
}

func differing(a, b []bool) (n int) {
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// streamCachesFrom stores round r of streamCaches's entries: prompts
// r*200 .. r*200+199, 4 KB each, in prompt cache p and semantic cache s.
func streamCachesFrom(ctx context.Context, c *redis.Client, r int) error {
	rng := rand.New(rand.NewPCG(uint64(r), 4))
	resp := string(make([]byte, 4000))
	pl := c.Pipeline()
	for i := range 200 {
		prompt := "prompt " + strconv.Itoa(r*200+i)
		pl.Do(ctx, "PCACHE.SET", "p", prompt, resp)
		pl.Do(ctx, "SCACHE.STORE", "s", prompt, resp, "FP32", harness.RandBlob(rng, 16))
	}
	_, err := pl.Exec(ctx)
	return err
}
