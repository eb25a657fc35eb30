package tests

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
)

// A replica never loses quietly what its master holds: it leaves maxmemory
// to its master (replica-ignore-maxmemory yes), and the entries a master's
// caches evict, by their own limits or by maxmemory, reach the replica and
// the append-only log as deletions (docs/replication.md, "Safety and
// failure behaviour").

// cachePresence is what a client of r sees of each prompt cache entry
// (PCACHE.TTL: -2 when absent) and each semantic cache entry (an exact
// LOOKUP: the entry, or the nearest other one).
func cachePresence(r *raw, prompts, semPrompts []string) []any {
	var out []any
	for _, p := range prompts {
		out = append(out, p, r.do("PCACHE.TTL", "pc", p))
	}
	for _, p := range semPrompts {
		out = append(out, p, r.do("SCACHE.LOOKUP", "sc", "VALUES", "2", "1", "0", "PROMPT", p, "NOREFRESH"))
	}
	return out
}

// The entries a cache's MAXENTRIES evicts depend on the reads it served,
// which are neither logged nor replicated: the master sends its choice
// ahead of the write (PCACHE.DELHASH, SCACHE.INVALIDATE ... ID), and the
// replica, whose own order of use differs, follows it rather than
// evicting by its own. A restart from the log gets the same entries back.
func TestReplicaCacheLimitEvictions(t *testing.T) {
	dir := t.TempDir()
	margs := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", ""}
	mp, m := startReplicaBinary(t, margs...)
	_, h := startReplicaBinary(t)
	h.expect(Status("OK"), "REPLICAOF", "127.0.0.1", portOf(t, mp.addr))
	for _, c := range [][]string{
		{"PCACHE.CREATE", "pc", "MAXENTRIES", "4"},
		{"SCACHE.CREATE", "sc", "DIM", "2", "MAXENTRIES", "2"},
		{"PCACHE.SET", "pc", "a", "1"}, {"PCACHE.SET", "pc", "b", "2"}, {"PCACHE.SET", "pc", "c", "3"}, {"PCACHE.SET", "pc", "d", "4"},
		{"SCACHE.STORE", "sc", "x", "1", "VALUES", "2", "1", "0"},
		{"SCACHE.STORE", "sc", "y", "2", "VALUES", "2", "0", "1"},
	} {
		if v := m.do(c...); isErr(v) {
			t.Fatalf("%q: %v", c, v)
		}
	}
	caughtUp(t, m, h)
	// Reads on the master make b and y its least recently used entries;
	// the replica, which saw none of them, would evict a and x.
	m.do("PCACHE.GET", "pc", "a")
	m.do("SCACHE.LOOKUP", "sc", "VALUES", "2", "1", "0")
	h.do("PCACHE.GET", "pc", "b") // the replica's own reads change nothing
	for _, c := range [][]string{
		{"PCACHE.SET", "pc", "e", "5"},
		{"SCACHE.STORE", "sc", "z", "3", "VALUES", "2", "1", "1"},
		{"MULTI"}, {"PCACHE.SET", "pc", "f", "6"}, {"PCACHE.SET", "pc", "g", "7"}, {"EXEC"},
	} {
		if v := m.do(c...); isErr(v) {
			t.Fatalf("%q: %v", c, v)
		}
	}
	caughtUp(t, m, h)
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
	if n := infoFields(t, h, "stats")["unexpected_error_replies"]; n != "0" {
		t.Errorf("unexpected_error_replies on the replica = %s", n)
	}

	persistKill(t, mp)
	_, m2 := startReplicaBinary(t, margs...)
	if got := cachePresence(m2, prompts, sems); !reflect.DeepEqual(got, want) {
		t.Errorf("entries after a restart from the log differ:\nbefore %v\nafter  %v", want, got)
	}
}

// PCACHE.DELHASH deletes entries by their key, as the master sends them.
func TestPcacheDelHash(t *testing.T) {
	r := start(t).raw(t)
	r.expect(Err("ERR no such namespace"), "PCACHE.DELHASH", "pc", strings.Repeat("0", 64))
	r.do("PCACHE.CREATE", "pc", "MAXENTRIES", "1")
	r.expect(Err("ERR invalid prompt hash: 64 hexadecimal digits expected"), "PCACHE.DELHASH", "pc", "abc")
	r.expect(Err("ERR invalid prompt hash: 64 hexadecimal digits expected"), "PCACHE.DELHASH", "pc", strings.Repeat("g", 64))
	r.expect(Err("ERR wrong number of arguments for 'pcache.delhash' command"), "PCACHE.DELHASH", "pc")
	r.expect(int64(0), "PCACHE.DELHASH", "pc", strings.Repeat("0", 64))
	r.do("PCACHE.SET", "pc", "hi", "hello", "MODEL", "m")
	k := ai.HashPrompt("pc", "m", nil, []byte("hi"))
	r.expect(int64(1), "PCACHE.DELHASH", "pc", strings.Repeat("0", 64), strings.ToUpper(hex.EncodeToString(k[:])))
	r.expect(nil, "PCACHE.GET", "pc", "hi", "MODEL", "m")
}

// sameKeysAtSomeMoment waits (30 seconds at most) for a moment when the
// replica has the master's keys: the same DEBUG DIGEST and DBSIZE. The
// master's evictor may still take a key now and then as the heap it
// measures settles.
func sameKeysAtSomeMoment(t *testing.T, m, h *raw) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d1, n1 := m.do("DEBUG", "DIGEST"), m.do("DBSIZE")
		d2, n2 := h.do("DEBUG", "DIGEST"), h.do("DBSIZE")
		if d1 == d2 && n1 == n2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica never had the master's keys: master %v keys (%v), replica %v (%v)", n1, d1, n2, d2)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func statInt(t *testing.T, r *raw, field string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(infoFields(t, r, "stats")[field], 10, 64)
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
	if raceEnabled {
		t.Skip("eviction follows the collector's timing, which the race detector distorts")
	}
	mp, m := startReplicaBinary(t, "--maxmemory", "24mb", "--maxmemory-policy", "allkeys-random")
	_, h := startReplicaBinary(t, "--maxmemory", "8mb", "--maxmemory-policy", "allkeys-random", "--replica-ignore-maxmemory", "yes")
	h.expect(Status("OK"), "REPLICAOF", "127.0.0.1", portOf(t, mp.addr))
	caughtUp(t, m, h)
	c, ctx := mp.client(t), context.Background()
	for n := 0; statInt(t, m, "evicted_keys") == 0; n += 2000 {
		if n == 200_000 {
			t.Fatal("200 MB written and the master evicted nothing")
		}
		if err := fill(ctx, c, "k", n, 2000, 1000, 0); err != nil {
			t.Fatal(err)
		}
	}
	untilStable(t, func() int64 { return statInt(t, m, "evicted_keys") })
	sameKeysAtSomeMoment(t, m, h)
	if n := statInt(t, h, "evicted_keys"); n != 0 {
		t.Errorf("the replica evicted %d keys with replica-ignore-maxmemory yes", n)
	}
	t.Logf("master: %d keys evicted, %v left", statInt(t, m, "evicted_keys"), m.do("DBSIZE"))

	// no, under noeviction: the replica is over its limit with nothing it
	// may evict. The master's writes apply; a client's write gets OOM
	// (once the replica is writable), as on a master.
	h.expect(Status("OK"), "CONFIG", "SET", "maxmemory-policy", "noeviction")
	h.expect(Status("OK"), "CONFIG", "SET", "replica-ignore-maxmemory", "no")
	h.expect([]any{"replica-ignore-maxmemory", "no"}, "CONFIG", "GET", "replica-ignore-maxmemory")
	m.expect(Status("OK"), "SET", "after", "v")
	caughtUp(t, m, h)
	h.expect("v", "GET", "after")
	if n := statInt(t, h, "unexpected_error_replies"); n != 0 {
		t.Errorf("unexpected_error_replies on the replica = %d", n)
	}
	h.expect(Status("OK"), "CONFIG", "SET", "replica-read-only", "no")
	h.expect(Err("OOM command not allowed when used memory > 'maxmemory'."), "SET", "mine", "1")
	h.expect(Status("OK"), "CONFIG", "SET", "replica-ignore-maxmemory", "yes")
	h.expect(Status("OK"), "SET", "mine", "1")
	h.expect(int64(1), "DEL", "mine")

	// no, under an evicting policy: the replica evicts on its own.
	h.expect(Status("OK"), "CONFIG", "SET", "replica-ignore-maxmemory", "no")
	h.expect(Status("OK"), "CONFIG", "SET", "maxmemory-policy", "allkeys-random")
	eventually(t, "the replica evicted keys of its own", func() bool { return statInt(t, h, "evicted_keys") > 0 })
	if hn, mn := h.do("DBSIZE").(int64), m.do("DBSIZE").(int64); hn >= mn {
		t.Errorf("the replica has %d keys after evicting, the master %d", hn, mn)
	}
}

// promptsPresent reports, for prompts "prompt 0" .. "prompt n-1" of
// streamCaches, whether each is in prompt cache p and in semantic cache s
// (an exact LOOKUP finding that prompt).
func promptsPresent(t *testing.T, addr string, n int) []bool {
	t.Helper()
	c := (&proc{addr: addr}).client(t)
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
	if raceEnabled {
		t.Skip("eviction follows the collector's timing, which the race detector distorts")
	}
	dir := t.TempDir()
	margs := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--auto-aof-rewrite-percentage", "0", "--save", ""}
	mp, m := startReplicaBinary(t, append([]string{"--maxmemory", "16mb", "--maxmemory-policy", "allkeys-random"}, margs...)...)
	_, h := startReplicaBinary(t, "--maxmemory", "16mb", "--maxmemory-policy", "allkeys-random")
	h.expect(Status("OK"), "REPLICAOF", "127.0.0.1", portOf(t, mp.addr))
	m.expect(Status("OK"), "PCACHE.CREATE", "p")
	m.expect(Status("OK"), "SCACHE.CREATE", "s", "DIM", "16")
	c, ctx := mp.client(t), context.Background()
	evicted := func() int64 {
		return aiInfo(t, c, "PCACHE.INFO", "p", "evicted") + aiInfo(t, c, "SCACHE.INFO", "s", "evicted")
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
	m.expect(Status("OK"), "CONFIG", "SET", "maxmemory", "0")
	caughtUp(t, m, h)
	n := rounds * 200
	want := promptsPresent(t, mp.addr, n)
	kept := 0
	for _, in := range want {
		if in {
			kept++
		}
	}
	t.Logf("%d prompt and %d semantic entries evicted of %d each; %d left in all", aiInfo(t, c, "PCACHE.INFO", "p", "evicted"), aiInfo(t, c, "SCACHE.INFO", "s", "evicted"), n, kept)
	if got := promptsPresent(t, h.conn.RemoteAddr().String(), n); !reflect.DeepEqual(got, want) {
		t.Errorf("the replica's entries differ from the master's (%d of %d differ)", differing(got, want), len(want))
	}
	hc := (&proc{addr: h.conn.RemoteAddr().String()}).client(t)
	if n := aiInfo(t, hc, "PCACHE.INFO", "p", "evicted") + aiInfo(t, hc, "SCACHE.INFO", "s", "evicted"); n != 0 {
		t.Errorf("the replica's caches evicted %d entries themselves", n)
	}

	// A write's reply under appendfsync always means the log holds it and
	// all before it, the background evictions' records too.
	m.expect(Status("OK"), "SET", "synced", "1")
	persistKill(t, mp)
	p2, _ := startReplicaBinary(t, margs...)
	if got := promptsPresent(t, p2.addr, n); !reflect.DeepEqual(got, want) {
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
		pl.Do(ctx, "SCACHE.STORE", "s", prompt, resp, "FP32", randBlob(rng, 16))
	}
	_, err := pl.Exec(ctx)
	return err
}
