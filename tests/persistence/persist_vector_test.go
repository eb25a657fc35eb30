package persistence

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Vector sets, named indexes and the AI layer through every way to disk:
// snapshot, SHUTDOWN, log rewrite, log replay after kill -9.

// vpersistVec returns a random vector as VALUES arguments.
func vpersistVec(rng *rand.Rand, dim int) []any {
	out := []any{"VALUES", dim}
	for range dim {
		out = append(out, fmt.Sprintf("%.4f", rng.Float64()*2-1))
	}
	return out
}

func vpersistDo(t *testing.T, c *redis.Client, args ...any) any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil && err != redis.Nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

// vpersistFill writes vector sets (every coding, REDUCE, attributes,
// deletes, an expiry), a named index, and prompt cache, semantic cache and
// memory entries. Seed varies the data so a second call adds more.
func vpersistFill(t *testing.T, c *redis.Client, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	do := func(args ...any) { vpersistDo(t, c, args...) }
	if seed == 1 {
		do("VSIM.CREATEINDEX", "docs", "DIM", 8, "M", 8)
		do("VSIM.CREATEINDEX", "l2", "DIM", 4, "METRIC", "L2", "TYPE", "INT8", "RERANK")
		do("PCACHE.CREATE", "pc", "TTL", 3600)
		do("SCACHE.CREATE", "sc", "DIM", 4, "THRESHOLD", 0.2)
		do("AMEM.CREATE", "mem", "DIM", 4)
	}
	for i := range 60 {
		n := fmt.Sprint(seed, ":", i)
		do(append(append([]any{"VADD", "vs"}, vpersistVec(rng, 8)...), n, "SETATTR", fmt.Sprintf(`{"i":%d}`, i))...)
		do(append(append([]any{"VADD", "q8"}, vpersistVec(rng, 8)...), n, "Q8")...)
		do(append(append([]any{"VADD", "bin"}, vpersistVec(rng, 8)...), n, "BIN")...)
		do(append(append([]any{"VADD", "red", "REDUCE", 4}, vpersistVec(rng, 12)...), n)...)
		do(append(append([]any{"VSIM.SET", "docs", n}, vpersistVec(rng, 8)...), "ATTRS", `{"n":1}`)...)
		do(append([]any{"VSIM.SET", "l2", n}, vpersistVec(rng, 4)...)...)
		if i%10 == 0 {
			do("VREM", "vs", fmt.Sprint(seed, ":", i/2))
			do("VSIM.DEL", "docs", fmt.Sprint(seed, ":", i/2))
			do(append([]any{"SCACHE.STORE", "sc", fmt.Sprint("prompt", seed, i), "response"}, vpersistVec(rng, 4)...)...)
			do(append([]any{"AMEM.ADD", "mem", fmt.Sprint("fact", seed, i)}, append(vpersistVec(rng, 4), "IMPORTANCE", 0.5)...)...)
			do("PCACHE.SET", "pc", fmt.Sprint("p", seed, i), fmt.Sprint("r", i))
		}
	}
	mset := []any{"VSIM.MSET", "docs", "VALUES", 8}
	for i := range 3 {
		mset = append(append(mset, fmt.Sprint("m", seed, i)), vpersistVec(rng, 8)[2:]...)
	}
	do(mset...)
	do("VSIM.CREATEINDEX", "tmp", "DIM", 2)
	do("VSIM.SET", "tmp", "a", "VALUES", 2, 1, 0)
	do("VSIM.DROPINDEX", "tmp")
	do("PCACHE.DEL", "pc", fmt.Sprint("p", seed, 0))
	do("SCACHE.INVALIDATE", "sc", "ID", seed*2)
	do("AMEM.FORGET", "mem", "ID", seed*3)
	do("EXPIRE", "bin", 3600)
}

// vpersistState describes everything vpersistFill writes, searches
// included: the same graph gives the same answers.
func vpersistState(t *testing.T, c *redis.Client) string {
	var b strings.Builder
	rng := rand.New(rand.NewPCG(99, 1))
	q := func(args ...any) {
		fmt.Fprintf(&b, "%v: %v\n", args, vpersistDo(t, c, args...))
	}
	for _, k := range []string{"vs", "q8", "bin", "red"} {
		q("VCARD", k)
		q("VDIM", k)
		q("TYPE", k)
	}
	b.WriteString(fmt.Sprintln(vpersistDo(t, c, "TTL", "bin").(int64) > 3000))
	q("VGETATTR", "vs", "1:3")
	q("VEMB", "vs", "1:3")
	q("VEMB", "q8", "1:3")
	q("VLINKS", "vs", "1:7")
	q("VLINKS", "bin", "1:9")
	for range 10 {
		q(append(append([]any{"VSIM", "vs"}, vpersistVec(rng, 8)...), "WITHSCORES", "COUNT", 5, "EF", 20)...)
		q(append(append([]any{"VSIM", "q8"}, vpersistVec(rng, 8)...), "COUNT", 5, "EF", 10)...)
		q(append(append([]any{"VSIM", "bin"}, vpersistVec(rng, 8)...), "COUNT", 5)...)
		q(append(append([]any{"VSIM", "red"}, vpersistVec(rng, 12)...), "COUNT", 5)...)
		q(append(append([]any{"VSIM.SEARCH", "docs"}, vpersistVec(rng, 8)...), "K", 5, "EF", 10, "WITHATTRIBS")...)
		q(append(append([]any{"VSIM.SEARCH", "l2"}, vpersistVec(rng, 4)...), "K", 3)...)
	}
	q("VSIM.LIST")
	q("VSIM.GET", "docs", "1:3")
	q("VSIM.GET", "docs", "m11")
	for _, cmd := range [][]any{{"VSIM.INFO", "docs"}, {"SCACHE.INFO", "sc"}} {
		info := vpersistDo(t, c, cmd...).(map[any]any)
		for k := range info {
			if strings.Contains(k.(string), "bytes") {
				delete(info, k) // memory estimates: a loaded graph has less slack
			}
		}
		fmt.Fprintln(&b, cmd, info)
	}
	q("PCACHE.LIST")
	q("PCACHE.GET", "pc", "p150")
	q("PCACHE.GET", "pc", "p10")
	q("SCACHE.LIST")
	q(append([]any{"SCACHE.LOOKUP", "sc"}, vpersistVec(rng, 4)...)...)
	q("AMEM.LIST")
	q("AMEM.RANGE", "mem")
	return b.String()
}

// vpersistSame fails on the first line of state that differs.
func vpersistSame(t *testing.T, before, after string) {
	t.Helper()
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	for i := range b {
		if i >= len(a) || a[i] != b[i] {
			t.Fatalf("after restart, line %d:\n%.1000s\nwant:\n%.1000s", i, a[min(i, len(a)-1)], b[i])
		}
	}
}

func TestVPersistEveryWayToDisk(t *testing.T) {
	harness.OutOfProcess(t)
	ctx := context.Background()
	restart := func(t *testing.T, dir string, args []string, stop func(p *harness.Proc, c *redis.Client), fill2 bool) {
		p := harness.StartBinary(t, append([]string{"--dir", dir}, args...)...)
		c := p.Client(t)
		vpersistFill(t, c, 1)
		stop(p, c)
		if fill2 {
			vpersistFill(t, c, 2) // after the snapshot: only the log has these
		}
		before := vpersistState(t, c)
		harness.PersistKill(t, p)
		p = harness.StartBinary(t, append([]string{"--dir", dir}, args...)...)
		vpersistSame(t, before, vpersistState(t, p.Client(t)))
	}
	noLog := []string{"--save", ""}
	always := []string{"--save", "", "--appendonly", "yes", "--appendfsync", "always"}
	t.Run("save", func(t *testing.T) {
		restart(t, t.TempDir(), noLog, func(p *harness.Proc, c *redis.Client) { c.Save(ctx) }, false)
	})
	t.Run("shutdown", func(t *testing.T) {
		dir := t.TempDir()
		p := harness.StartBinary(t, "--dir", dir)
		c := p.Client(t)
		vpersistFill(t, c, 1)
		before := vpersistState(t, c)
		c.Shutdown(ctx)
		p.Wait(t)
		p = harness.StartBinary(t, "--dir", dir)
		vpersistSame(t, before, vpersistState(t, p.Client(t)))
	})
	t.Run("bgrewriteaof", func(t *testing.T) {
		restart(t, t.TempDir(), always, func(p *harness.Proc, c *redis.Client) {
			c.BgRewriteAOF(ctx)
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if strings.Contains(c.Info(ctx, "persistence").Val(), "aof_rewrite_in_progress:0") {
					return
				}
			}
			t.Fatal("rewrite did not finish")
		}, true)
	})
	t.Run("replay", func(t *testing.T) {
		restart(t, t.TempDir(), always, func(*harness.Proc, *redis.Client) {}, true)
	})
}

// Concurrent keyless writers (index inserts, memories whose ids the server
// assigns) through a log rewrite and a kill -9: every acknowledged insert
// is there after the restart, and every acknowledged memory id holds the
// text it was given.
func TestVPersistConcurrentKeylessWrites(t *testing.T) {
	harness.OutOfProcess(t)
	ctx := context.Background()
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--appendonly", "yes", "--appendfsync", "always"}
	p := harness.StartBinary(t, args...)
	c := p.Client(t)
	vpersistDo(t, c, "VSIM.CREATEINDEX", "docs", "DIM", 4)
	vpersistDo(t, c, "AMEM.CREATE", "mem", "DIM", 4, "DEDUP", "OFF")
	const writers = 4
	ids := make([]map[int64]string, writers)
	sets := make([]int, writers)
	done := make(chan struct{})
	for w := range writers {
		ids[w] = map[int64]string{}
		go func() {
			defer func() { done <- struct{}{} }()
			wc := p.Client(t)
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for i := range 150 {
				name := fmt.Sprint(w, ":", i)
				if err := wc.Do(ctx, append([]any{"VSIM.SET", "docs", name}, vpersistVec(rng, 4)...)...).Err(); err != nil {
					return
				}
				sets[w] = i + 1
				v, err := wc.Do(ctx, append([]any{"AMEM.ADD", "mem", name}, vpersistVec(rng, 4)...)...).Result()
				if err != nil {
					return
				}
				ids[w][v.(map[any]any)["id"].(int64)] = name
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	c.BgRewriteAOF(ctx)
	for range writers {
		<-done
	}
	harness.PersistKill(t, p)
	p = harness.StartBinary(t, args...)
	c = p.Client(t)
	for w := range writers {
		for i := range sets[w] {
			if v := vpersistDo(t, c, "VSIM.GET", "docs", fmt.Sprint(w, ":", i)); v == nil {
				t.Fatalf("index element %d:%d lost", w, i)
			}
		}
		for id, name := range ids[w] {
			if v, _ := vpersistDo(t, c, "AMEM.GET", "mem", id).(map[any]any); v == nil || v["text"] != name {
				t.Fatalf("memory %d: %s, want text %s", id, v, name)
			}
		}
	}
}

// Saves and log rewrites while vector sets, indexes and memories are
// written and searched, in the test process (so the race detector sees the
// server): every save succeeds and a restart has every element.
func TestVPersistSavesDuringWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--appendonly", "yes"}
	s := harness.Start(t, args...)
	c := s.Client(t)
	vpersistDo(t, c, "VSIM.CREATEINDEX", "docs", "DIM", 4)
	vpersistDo(t, c, "AMEM.CREATE", "mem", "DIM", 4)
	done := make(chan struct{})
	for w := range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			wc := s.Client(t)
			rng := rand.New(rand.NewPCG(uint64(w), 5))
			for i := range 100 {
				name := fmt.Sprint(w, ":", i)
				for _, cmd := range [][]any{
					append([]any{"VSIM.SET", "docs", name}, vpersistVec(rng, 4)...),
					append(append([]any{"VADD", "vs"}, vpersistVec(rng, 4)...), name),
					append([]any{"AMEM.ADD", "mem", name}, vpersistVec(rng, 4)...),
					append([]any{"VSIM.SEARCH", "docs"}, vpersistVec(rng, 4)...),
					append([]any{"VSIM", "vs"}, vpersistVec(rng, 4)...),
				} {
					if err := wc.Do(ctx, cmd...).Err(); err != nil {
						t.Errorf("%v: %v", cmd[0], err)
						return
					}
				}
				if i%10 == 0 {
					wc.Do(ctx, "VREM", "vs", fmt.Sprint(w, ":", i/2))
				}
			}
		}()
	}
	idle := func() {
		for strings.Contains(c.Info(ctx, "persistence").Val(), "aof_rewrite_in_progress:1") {
			time.Sleep(5 * time.Millisecond)
		}
	}
	for range 3 {
		if err := c.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.BgRewriteAOF(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		idle()
	}
	for range 3 {
		<-done
	}
	want := fmt.Sprint(vpersistDo(t, c, "VCARD", "vs"), vpersistDo(t, c, "VSIM.INFO", "docs").(map[any]any)["size"])
	s.Shutdown(ctx)
	c = harness.Start(t, args...).Client(t)
	if got := fmt.Sprint(vpersistDo(t, c, "VCARD", "vs"), vpersistDo(t, c, "VSIM.INFO", "docs").(map[any]any)["size"]); got != want || want != "270 300" {
		t.Fatalf("after restart: %s, before %s (want 270 300)", got, want)
	}
}
