package vector

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// vsFields splits a command written on one line (arguments without spaces).
func vsFields(lines ...string) [][]string {
	out := make([][]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Fields(l)
	}
	return out
}

// TestDifferentialVectorSets compares everything deterministic with Redis
// 8: errors, argument rules, counts, NOQUANT vectors, attributes, and VSIM
// on sets small enough for HNSW to be exact.
func TestDifferentialVectorSets(t *testing.T) {
	script := vsFields(
		// creation, updates, argument errors in Redis's order
		"VADD s VALUES 2 1 0 a SETATTR {\"x\":1,\"tag\":\"red\"}", "VADD s VALUES 2 1 0 a", "VGETATTR s a",
		"VADD s VALUES 2 0 1 b NOQUANT", "VADD s VALUES 2 0 1 b BIN", "VADD s VALUES 2 0 1 b M 32",
		"VADD s VALUES 2 0 1 b Q8 SETATTR {\"x\":2}", "VADD s VALUES 2 1 1 c SETATTR {\"x\":3,\"tag\":\"blue\"}",
		"VADD s VALUES 2 -1 0 d", "VADD s VALUES 2 0 0 z", "VREM s z",
		"VADD s VALUES 3 1 0 0 e", "VADD s VALUES 2 1 x e", "VADD s VALUES 2 1 nan e", "VADD s VALUES 0 e",
		"VADD s VALUES -1 e", "VADD s VALUES 2 1 e", "VADD s VALUES 2 1 0", "VADD s", "VADD s VALUES",
		"VADD s FP32 abc e", "VADD s FP32 abcd e", "VADD s BOGUS 2 1 0 e", "VADD s VALUES 2 1 0 e BOGUS",
		"VADD s VALUES 2 1 0 e EF 0", "VADD s VALUES 2 1 0 e EF 1000001", "VADD s VALUES 2 1 0 e EF x",
		"VADD s VALUES 2 1 0 e M 3", "VADD s VALUES 2 1 0 e M 4097", "VADD s VALUES 2 1 0 e M x", "VADD s VALUES 2 1 0 e SETATTR",
		"VADD s VALUES 2 1 0 e EF", "VADD s VALUES 2 1e400 0 e", "VADD s VALUES 2 0x10 0 e CAS", "VADD s VALUES 2 1.5 0.5 e CAS EF 10",
		"VADD s REDUCE 2 VALUES 2 1 0 e", "VADD s REDUCE 0 VALUES 2 1 0 e", "VADD s REDUCE x VALUES 2 1 0 e",
		"VADD n VALUES 3 1 2 3 a NOQUANT", "VADD n VALUES 3 1 2 3 a NOQUANT BIN", "VADD n VALUES 3 -4 5 0.25 b NOQUANT",
		"VADD q VALUES 2 1 0 a NOQUANT BIN", "VADD q VALUES 2 1 0 b BIN", "VADD q VALUES 2 1 0 b BIN M 8",
		"VADD r REDUCE 2 VALUES 3 1 0 0 a", "VADD r REDUCE 2 VALUES 4 1 0 0 0 b", "VADD r REDUCE 5 VALUES 3 1 0 0 b",
		"VADD r VALUES 3 1 0 0 b", "VADD r VALUES 2 1 0 b", "VDIM r", "VCARD r",
		"SET str x", "VADD str VALUES 2 1 0 a", "VSIM str ELE a", "VCARD str", "VDIM str", "VEMB str a",
		"VREM str a", "VGETATTR str a", "VSETATTR str a {}", "VLINKS str a", "VINFO str", "VRANDMEMBER str",
		"VISMEMBER str a", "VADD str VALUES 2 1 0 a BOGUS", "VADD str VALUES 2 1 x a", "VSIM str BOGUS 1",
		"VEMB str a BOGUS", "VRANDMEMBER str x", "VRANDMEMBER str 0", "VLINKS str a BOGUS", "VSIM s ELE a BOGUS",
		"VSIM s ELE zz BOGUS", "VSIM s VALUES 3 1 0 0 BOGUS", "VADD s VALUES 3 1 0 0 e M 8",
		// reads
		"VCARD s", "VCARD nokey", "VCARD", "VCARD s s", "VDIM s", "VDIM nokey", "VDIM",
		"VEMB n a", "VEMB n b", "VEMB n a RAW", "VEMB n a raw", "VEMB n a BOGUS", "VEMB n a RAW x", "VEMB n zz",
		"VEMB nokey a", "VEMB s", "VGETATTR s a", "VGETATTR s d", "VGETATTR s zz", "VGETATTR nokey a",
		"VGETATTR s", "VSETATTR s d {\"x\":9}", "VGETATTR s d", "VSETATTR s d notjson", "VGETATTR s d",
		"VSETATTR s zz {}", "VSETATTR nokey a {}", "VSETATTR s a", "VISMEMBER s a", "VISMEMBER s zz",
		"VISMEMBER nokey a", "VISMEMBER s", "VRANDMEMBER nokey", "VRANDMEMBER nokey 3", "VRANDMEMBER s 0",
		"VRANDMEMBER s x", "VRANDMEMBER s 1 2", "VRANDMEMBER", "VLINKS s zz", "VLINKS nokey a", "VLINKS s a BOGUS",
		"VLINKS s", "VINFO nokey", "VINFO",
		// VSIM
		"VSIM s VALUES 2 1 0", "VSIM s VALUES 2 1 0 WITHSCORES", "VSIM s ELE a WITHSCORES COUNT 2",
		"VSIM s FP32 "+harness.VSBlob(1, 0)+" COUNT 3", "VSIM s ELE zz", "VSIM nokey ELE a", "VSIM nokey BOGUS",
		"VSIM s VALUES 3 1 0 0", "VSIM s VALUES 2 1 0 COUNT 0", "VSIM s VALUES 2 1 0 COUNT -1", "VSIM s VALUES 2 1 0 COUNT x",
		"VSIM s VALUES 2 1 0 EF 0", "VSIM s VALUES 2 1 0 EF x", "VSIM s VALUES 2 1 0 EPSILON 0", "VSIM s VALUES 2 1 0 EPSILON x",
		"VSIM s VALUES 2 1 0 EPSILON 0.3", "VSIM s VALUES 2 1 0 EPSILON 1", "VSIM s VALUES 2 1 0 EPSILON 0.99 WITHSCORES",
		"VSIM s VALUES 2 1 0 FILTER-EF 0", "VSIM s VALUES 2 1 0 FILTER-EF x", "VSIM s VALUES 2 1 0 BOGUS",
		"VSIM s VALUES 2 1 0 COUNT", "VSIM s VALUES 2 1 0 TRUTH NOTHREAD COUNT 2", "VSIM s FOO 2 1 0",
		"VSIM s VALUES 2 1 x", "VSIM s VALUES 2 1", "VSIM s FP32 abc", "VSIM s VALUES 2 1 nan", "VSIM s", "VSIM s ELE",
		"VSIM s VALUES 0", "VSIM s VALUES 2 1 0 EF 1000001 COUNT 100", "VSIM r VALUES 3 1 0 0 COUNT 1",
		"VSIM r VALUES 4 1 0 0 0", "VSIM r VALUES 2 1 0 COUNT 1", "VSIM n ELE a",
		// removal; the last one deletes the key
		"VREM s a", "VREM s a", "VREM nokey a", "VREM s", "VREM s a b", "VCARD s",
		"VREM n a", "VREM n b", "EXISTS n", "TYPE s", "OBJECT ENCODING s",
	)
	script = append(script,
		[]string{"VSIM", "s", "VALUES", "2", "1", "0", "FILTER", ".x == 3"},
		[]string{"VSIM", "s", "VALUES", "2", "1", "0", "FILTER", ".x >= 2", "WITHSCORES"},
		[]string{"VSIM", "s", "VALUES", "2", "1", "0", "FILTER", ".tag == \"blue\" or .x == 2", "FILTER-EF", "5"},
		[]string{"VSIM", "s", "VALUES", "2", "1", "0", "FILTER", ".x =="},
		[]string{"VSIM", "s", "VALUES", "2", "1", "0", "FILTER", "(.x > 1"},
		[]string{"VSIM", "s", "VALUES", "2", "1", "0", "FILTER", ".x > 1 &&& 2"},
		[]string{"VSIM", "s", "VALUES", "2", "1", "0", "FILTER"},
	)
	harness.Differ(t, script)
}

// TestVectorSetKeyspace: a vector set is an ordinary key.
func TestVectorSetKeyspace(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for _, e := range []string{"a", "b", "c"} {
		r.Do("VADD", "v", "VALUES", "2", "1", "1", e, "NOQUANT", "SETATTR", `{"n":"`+e+`"}`)
	}
	want := map[string]any{
		"TYPE v": harness.Status("vectorset"), "OBJECT ENCODING v": "raw", "VCARD v": int64(3),
		"COPY v w": int64(1), "VCARD w": int64(3), "VGETATTR w b": `{"n":"b"}`,
		"RENAME w w2": harness.Status("OK"), "VCARD w2": int64(3), "EXISTS w": int64(0),
		"EXPIRE w2 100": int64(1), "TTL w2": int64(100), "DEL w2": int64(1), "EXISTS w2": int64(0),
		"SCAN 0 TYPE vectorset": []any{"0", []any{"v"}}, "FLUSHDB": harness.Status("OK"), "EXISTS v": int64(0),
	}
	for _, c := range []string{"TYPE v", "OBJECT ENCODING v", "VCARD v", "COPY v w", "VCARD w", "VGETATTR w b",
		"RENAME w w2", "VCARD w2", "EXISTS w", "EXPIRE w2 100", "TTL w2", "DEL w2", "EXISTS w2",
		"SCAN 0 TYPE vectorset", "FLUSHDB", "EXISTS v"} {
		got := r.Do(strings.Fields(c)...)
		if !equalReply(got, want[c]) {
			t.Errorf("%s = %#v, want %#v", c, got, want[c])
		}
	}
}

func equalReply(a, b any) bool { return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) }

// TestVectorSetReplies checks the reply shapes the differential test cannot
// (VINFO, WITHATTRIBS, VLINKS, VRANDMEMBER) in both protocols.
func TestVectorSetReplies(t *testing.T) {
	s := harness.Start(t)
	for _, proto := range []string{"2", "3"} {
		r := s.Raw(t)
		r.Do("HELLO", proto)
		r.Do("FLUSHALL")
		r.Do("VADD", "v", "VALUES", "2", "1", "0", "a", "SETATTR", `{"x":1}`)
		r.Do("VADD", "v", "VALUES", "2", "0", "1", "b")
		got := r.Do("VSIM", "v", "ELE", "a", "WITHSCORES", "WITHATTRIBS")
		var want any = []any{"a", "1", `{"x":1}`, "b", "0.5", nil}
		if proto == "3" {
			want = harness.Map{"a", []any{1.0, `{"x":1}`}, "b", []any{0.5, nil}}
		}
		if !equalReply(got, want) {
			t.Errorf("RESP%s VSIM WITHSCORES WITHATTRIBS = %#v, want %#v", proto, got, want)
		}
		got = r.Do("VSIM", "v", "ELE", "a", "WITHATTRIBS")
		want = []any{"a", `{"x":1}`, "b", nil}
		if proto == "3" {
			want = harness.Map{"a", `{"x":1}`, "b", nil}
		}
		if !equalReply(got, want) {
			t.Errorf("RESP%s VSIM WITHATTRIBS = %#v, want %#v", proto, got, want)
		}
		got = r.Do("VLINKS", "v", "a", "WITHSCORES")
		want = []any{[]any{"b", "0.5"}}
		if proto == "3" {
			want = []any{harness.Map{"b", 0.5}}
		}
		if !equalReply(got, want) {
			t.Errorf("RESP%s VLINKS = %#v, want %#v", proto, got, want)
		}
		info := r.Do("VINFO", "v")
		var kv []any
		switch i := info.(type) {
		case harness.Map:
			kv = i
		case []any:
			kv = i
		}
		fields := map[any]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			fields[kv[i]] = kv[i+1]
		}
		for k, v := range map[string]any{"quant-type": harness.Status("int8"), "hnsw-m": int64(16), "vector-dim": int64(2),
			"size": int64(2), "attributes-count": int64(1), "hnsw-max-node-uid": int64(2), "projection-input-dim": int64(0)} {
			if !equalReply(fields[harness.Status(k)], v) {
				t.Errorf("RESP%s VINFO %s = %#v, want %#v", proto, k, fields[harness.Status(k)], v)
			}
		}
		if b, _ := fields[harness.Status("bytes-per-vector")].(int64); b <= 0 {
			t.Errorf("RESP%s VINFO bytes-per-vector = %v", proto, fields[harness.Status("bytes-per-vector")])
		}
		// VRANDMEMBER: distinct members for a positive count, duplicates allowed for a negative one.
		if got, _ := r.Do("VRANDMEMBER", "v", "5").([]any); len(got) != 2 || got[0] == got[1] {
			t.Errorf("VRANDMEMBER v 5 = %v", got)
		}
		if got, _ := r.Do("VRANDMEMBER", "v", "-5").([]any); len(got) != 5 {
			t.Errorf("VRANDMEMBER v -5 = %v", got)
		}
		if got := r.Do("VRANDMEMBER", "v", "-100000000"); got != harness.Err("ERR value is out of range") {
			t.Errorf("VRANDMEMBER v -100000000 = %v", got)
		}
		if got := r.Do("VRANDMEMBER", "v"); got != "a" && got != "b" {
			t.Errorf("VRANDMEMBER v = %v", got)
		}
		// Inside EXEC the search runs at its place in the transaction.
		r.Do("MULTI")
		r.Do("VADD", "v", "VALUES", "2", "-1", "0", "c")
		r.Do("VSIM", "v", "VALUES", "2", "-1", "0", "COUNT", "1")
		r.Do("VCARD", "v")
		want = []any{int64(1), []any{"c"}, int64(3)}
		if proto == "3" {
			want = []any{true, []any{"c"}, int64(3)}
		}
		if got := r.Do("EXEC"); !equalReply(got, want) {
			t.Errorf("RESP%s EXEC = %#v, want %#v", proto, got, want)
		}
	}
}

// vsClustered returns n vectors of dim around k random centres.
func vsClustered(rng *rand.Rand, n, dim, k int) [][]float32 {
	centres := make([][]float32, k)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(rng.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[rng.IntN(k)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + 0.3*float32(rng.NormFloat64())
		}
		out[i] = v
	}
	return out
}

func vsCosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return 1 - d/math.Sqrt(na*nb)
}

// vsTruth is the exact top k (ids as indexes) of q among base, by cosine
// distance or, for metric "L2", squared Euclidean distance.
func vsTruth(base [][]float32, q []float32, k int, metric string) []int {
	ids := make([]int, len(base))
	d := make([]float64, len(base))
	for i, b := range base {
		ids[i] = i
		if metric != "L2" {
			d[i] = vsCosine(b, q)
			continue
		}
		for j := range b {
			x := float64(b[j]) - float64(q[j])
			d[i] += x * x
		}
	}
	slices.SortFunc(ids, func(a, b int) int { return cmp.Compare(d[a], d[b]) })
	return ids[:k]
}

// TestVectorSetRecall builds a set over the server (pipelined VADDs from
// several connections) and checks VSIM's recall@10 against brute force.
func TestVectorSetRecall(t *testing.T) {
	if vecRace {
		t.Skip("too slow under -race")
	}
	s := harness.Start(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	const n, dim, nq, k = 3000, 32, 50, 10
	base := vsClustered(rng, n, dim, 20)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.Client(t)
			p := c.Pipeline()
			for i := w; i < n; i += 4 {
				p.Do(ctx, "VADD", "v", "FP32", harness.VSBlob(base[i]...), fmt.Sprint(i), "NOQUANT")
			}
			if _, err := p.Exec(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	c := s.Client(t)
	if got := c.Do(ctx, "VCARD", "v").Val(); got != int64(n) {
		t.Fatalf("VCARD = %v", got)
	}
	hits := 0
	for range nq {
		q := slices.Clone(base[rng.IntN(n)])
		for j := range q {
			q[j] += 0.2 * float32(rng.NormFloat64())
		}
		res, err := c.Do(ctx, "VSIM", "v", "FP32", harness.VSBlob(q...), "COUNT", k, "EF", 100).StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		truth := map[string]bool{}
		for _, i := range vsTruth(base, q, k, "COSINE") {
			truth[fmt.Sprint(i)] = true
		}
		for _, r := range res {
			if truth[r] {
				hits++
			}
		}
	}
	if recall := float64(hits) / (nq * k); recall < 0.95 {
		t.Errorf("recall@10 = %.3f, want >= 0.95", recall)
	}
}

// TestVectorSetConcurrent runs VADD, VSIM and VREM on one set from many
// connections (meant for -race): every reply must be well-formed and the
// final count must match what the writers report.
func TestVectorSetConcurrent(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	const writers, readers, per, dim = 4, 4, 60, 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	live := 0
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.Client(t, func(o *redis.Options) { o.PoolSize = 1 })
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			added := 0
			for i := range per {
				v := vsClustered(rng, 1, dim, 1)[0]
				name := fmt.Sprintf("w%d-%d", w, i)
				if err := c.Do(ctx, "VADD", "v", "FP32", harness.VSBlob(v...), name, "SETATTR", fmt.Sprintf(`{"i":%d}`, i)).Err(); err != nil {
					t.Error(err)
					return
				}
				added++
				if i%3 == 0 {
					if ok, err := c.Do(ctx, "VREM", "v", name).Bool(); !ok {
						t.Errorf("VREM %s = %v, %v", name, ok, err)
					}
					added--
				}
			}
			mu.Lock()
			live += added
			mu.Unlock()
		}()
	}
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.Client(t, func(o *redis.Options) { o.PoolSize = 1 })
			for range per {
				err := c.Do(ctx, "VSIM", "v", "VALUES", dim, 1, 0, 0, 0, 0, 0, 0, 1, "COUNT", 5, "FILTER", ".i > 10").Err()
				if err != nil && err != redis.Nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := s.Client(t).Do(ctx, "VCARD", "v").Val(); got != int64(live) {
		t.Errorf("VCARD = %v, want %d", got, live)
	}
}

// TestVectorSetGoRedis drives the vector-set commands through go-redis's
// typed API, which parses Redis 8's replies, in RESP3 and RESP2.
func TestVectorSetGoRedis(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for _, c := range []*redis.Client{s.Client(t), s.Client(t, harness.Resp2)} {
		c.FlushAll(ctx)
		if ok, err := c.VAdd(ctx, "m", "heat", &redis.VectorValues{Val: []float64{0.9, 0.1, 0}}).Result(); !ok || err != nil {
			t.Fatalf("VAdd = %v, %v", ok, err)
		}
		c.VAddWithArgs(ctx, "m", "ronin", &redis.VectorValues{Val: []float64{0.8, 0.3, 0.1}}, &redis.VAddArgs{SetAttr: `{"year":1998}`})
		c.VAddWithArgs(ctx, "m", "amelie", &redis.VectorFP32{Val: []byte(harness.VSBlob(0, 0.2, 0.9))}, &redis.VAddArgs{Cas: true, EF: 100})
		if n := c.VCard(ctx, "m").Val(); n != 3 {
			t.Errorf("VCard = %d", n)
		}
		if n := c.VDim(ctx, "m").Val(); n != 3 {
			t.Errorf("VDim = %d", n)
		}
		if emb, err := c.VEmb(ctx, "m", "heat", false).Result(); err != nil || len(emb) != 3 {
			t.Errorf("VEmb = %v, %v", emb, err)
		}
		if a := c.VGetAttr(ctx, "m", "ronin").Val(); a != `{"year":1998}` {
			t.Errorf("VGetAttr = %q", a)
		}
		if ok := c.VSetAttr(ctx, "m", "heat", map[string]any{"year": 1995}).Val(); !ok {
			t.Error("VSetAttr failed")
		}
		if info, err := c.VInfo(ctx, "m").Result(); err != nil || info["size"] != int64(3) || info["quant-type"] != "int8" {
			t.Errorf("VInfo = %v, %v", info, err)
		}
		if links, err := c.VLinks(ctx, "m", "heat").Result(); err != nil || len(links) != 1 || len(links[0]) != 2 {
			t.Errorf("VLinks = %v, %v", links, err)
		}
		if links, err := c.VLinksWithScores(ctx, "m", "heat").Result(); err != nil || len(links) != 1 || len(links[0]) != 2 {
			t.Errorf("VLinksWithScores = %v, %v", links, err)
		}
		if names := c.VSim(ctx, "m", &redis.VectorRef{Name: "heat"}).Val(); !slices.Equal(names, []string{"heat", "ronin", "amelie"}) {
			t.Errorf("VSim = %v", names)
		}
		if hits, err := c.VSimWithScores(ctx, "m", &redis.VectorValues{Val: []float64{1, 0, 0}}).Result(); err != nil || len(hits) != 3 || hits[0].Name != "heat" || hits[0].Score < 0.99 {
			t.Errorf("VSimWithScores = %v, %v", hits, err)
		}
		names := c.VSimWithArgs(ctx, "m", &redis.VectorRef{Name: "heat"}, &redis.VSimArgs{Count: 5, Filter: ".year > 1996", FilterEF: 50, EF: 10}).Val()
		if !slices.Equal(names, []string{"ronin"}) {
			t.Errorf("VSimWithArgs FILTER = %v", names)
		}
		if hits, err := c.VSimWithArgsWithScoresWithAttribs(ctx, "m", &redis.VectorRef{Name: "heat"}, &redis.VSimArgs{Count: 2}).Result(); err != nil || len(hits) != 2 || hits[1].Attribs == nil || *hits[1].Attribs != `{"year":1998}` {
			t.Errorf("VSimWithArgsWithScoresWithAttribs = %+v, %v", hits, err)
		}
		if m := c.VRandMember(ctx, "m").Val(); m == "" {
			t.Error("VRandMember empty")
		}
		if ms := c.VRandMemberCount(ctx, "m", 2).Val(); len(ms) != 2 {
			t.Errorf("VRandMemberCount = %v", ms)
		}
		if ok := c.VIsMember(ctx, "m", "amelie").Val(); !ok {
			t.Error("VIsMember amelie = false")
		}
		if ok := c.VRem(ctx, "m", "amelie").Val(); !ok || c.VIsMember(ctx, "m", "amelie").Val() {
			t.Error("VRem")
		}
	}
}
