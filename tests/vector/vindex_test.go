package vector

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// vixCase is one command and its expected reply.
type vixCase struct {
	cmd  []string
	want any
}

func vixCmd(line string) []string { return strings.Fields(line) }

// TestVectorIndexCommands drives every named-index command in both
// protocols, including each kind of bad input, which must leave the index
// unchanged.
func TestVectorIndexCommands(t *testing.T) {
	s := harness.Start(t)
	for _, proto := range []string{"2", "3"} {
		r := s.Raw(t)
		r.Do("HELLO", proto)
		for _, n := range []string{"docs", "e", "l2", "bin"} {
			r.Do("VSIM.DROPINDEX", n)
		}
		dist := func(f float64) any {
			if proto == "3" {
				return f
			}
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		info := func(kv ...any) any {
			if proto == "3" {
				return harness.Map(kv)
			}
			return kv
		}
		cases := []vixCase{
			{vixCmd("VSIM.CREATEINDEX docs DIM 3"), harness.Status("OK")},
			{vixCmd("VSIM.CREATEINDEX docs DIM 3"), harness.Err("ERR index already exists")},
			{vixCmd("VSIM.CREATEINDEX e"), harness.Err("ERR wrong number of arguments for 'vsim.createindex' command")},
			{vixCmd("VSIM.CREATEINDEX e METRIC L2"), harness.Err("ERR DIM is required")},
			{vixCmd("VSIM.CREATEINDEX e DIM 0"), harness.Err("ERR DIM must be an integer between 1 and 65536")},
			{vixCmd("VSIM.CREATEINDEX e DIM 2 M 1"), harness.Err("ERR M must be an integer between 4 and 4096")},
			{vixCmd("VSIM.CREATEINDEX e DIM 2 EF_CONSTRUCTION x"), harness.Err("ERR EF_CONSTRUCTION must be an integer between 1 and 1000000")},
			{vixCmd("VSIM.CREATEINDEX e DIM 2 METRIC HAMMING"), harness.Err("ERR METRIC must be COSINE, L2 or IP")},
			{vixCmd("VSIM.CREATEINDEX e DIM 2 TYPE FLOAT16"), harness.Err("ERR TYPE must be FLOAT32, INT8 or BINARY")},
			{vixCmd("VSIM.CREATEINDEX e DIM 2 TYPE BINARY METRIC L2"), harness.Err("ERR TYPE BINARY requires METRIC COSINE")},
			{vixCmd("VSIM.CREATEINDEX e DIM 2 BOGUS"), harness.Err("ERR syntax error")},
			{vixCmd("VSIM.CREATEINDEX l2 DIM 2 METRIC L2 TYPE INT8 RERANK M 8 EF_CONSTRUCTION 50"), harness.Status("OK")},
			{vixCmd("VSIM.CREATEINDEX bin DIM 8 TYPE BINARY"), harness.Status("OK")},
			{vixCmd("VSIM.LIST"), []any{"bin", "docs", "l2"}},

			{[]string{"VSIM.SET", "docs", "a", "VALUES", "3", "1", "0", "0", "ATTRS", `{"year":1990,"tag":"x"}`}, int64(1)},
			{vixCmd("VSIM.SET docs b VALUES 3 0 1 0"), int64(1)},
			{[]string{"VSIM.SET", "docs", "c", "FP32", harness.VSBlob(1, 1, 0), "ATTRS", `{"year":2000}`}, int64(1)},
			{vixCmd("VSIM.SET docs b VALUES 3 0 2 0"), int64(0)},
			// bad input: nothing changes
			{vixCmd("VSIM.SET docs d VALUES 2 1 0"), harness.Err("ERR vector dimension mismatch - got 2 but index has 3")},
			{vixCmd("VSIM.SET docs d VALUES 3 1 nan 0"), harness.Err("ERR invalid vector specification")},
			{vixCmd("VSIM.SET docs d VALUES 3 1 inf 0"), harness.Err("ERR invalid vector specification")},
			{vixCmd("VSIM.SET docs d VALUES 3 1 1e39 0"), harness.Err("ERR invalid vector specification")},
			{vixCmd("VSIM.SET docs d VALUES 3 0 0 0"), harness.Err("ERR zero vector has no direction under METRIC COSINE")},
			{vixCmd("VSIM.SET docs d FP32 abcde"), harness.Err("ERR invalid vector specification")},
			{[]string{"VSIM.SET", "docs", "d", "FP32", harness.VSBlob(1, float32(math.NaN()), 0)}, harness.Err("ERR invalid vector specification")},
			{vixCmd("VSIM.SET docs d VALUES 3 1 0 0 BOGUS"), harness.Err("ERR syntax error")},
			{vixCmd("VSIM.SET docs d VALUES 3 1 0 0 ATTRS [1]"), harness.Err("ERR ATTRS must be a JSON object")},
			{vixCmd("VSIM.SET docs d VALUES 3 1 0 0 ATTRS {bad"), harness.Err("ERR ATTRS must be a JSON object")},
			{vixCmd("VSIM.SET nope d VALUES 3 1 0 0"), harness.Err("ERR no such index")},
			{vixCmd("VSIM.MSET docs VALUES 3 d 1 0 1 e 0 0 0"), harness.Err("ERR zero vector has no direction under METRIC COSINE")},
			{vixCmd("VSIM.MSET docs VALUES 3 d 1 0 1 e 0 0"), harness.Err("ERR wrong number of arguments for 'vsim.mset' command")},
			{vixCmd("VSIM.MSET docs VALUES 2 d 1 0"), harness.Err("ERR vector dimension mismatch - got 2 but index has 3")},
			{vixCmd("VSIM.MSET docs VALUES x d 1 0"), harness.Err("ERR invalid vector specification")},
			{vixCmd("VSIM.MSET docs BOGUS d 1 0"), harness.Err("ERR syntax error")},
			{vixCmd("VSIM.MSET docs FP32 d abc"), harness.Err("ERR invalid vector specification")},
			{vixCmd("VSIM.INFO docs"), info("name", "docs", "dim", int64(3), "metric", "COSINE", "type", "FLOAT32",
				"rerank", int64(0), "m", int64(16), "ef_construction", int64(200), "size", int64(3), "attributes", int64(2),
				"max_level", int64(0), "bytes", vixAny, "bytes_per_vector", vixAny)},
			// batch insert
			{vixCmd("VSIM.MSET docs VALUES 3 d 1 0 1 a 1 0 0.01 d 0 0 1"), int64(1)},
			{[]string{"VSIM.MSET", "docs", "FP32", "e", harness.VSBlob(0, 1, 1)}, int64(1)},
			{vixCmd("VSIM.GET docs d"), []any{[]any{dist(0), dist(0), dist(1)}, nil}},
			{vixCmd("VSIM.GET docs a"), []any{[]any{dist(1), dist(0), dist(0.009999999776482582)}, nil}},
			{vixCmd("VSIM.GET docs c"), []any{[]any{dist(0.9999999403953552), dist(0.9999999403953552), dist(0)}, `{"year":2000}`}},
			{vixCmd("VSIM.GET docs zz"), nil},
			{vixCmd("VSIM.GET nope zz"), harness.Err("ERR no such index")},
			// search
			{vixCmd("VSIM.SEARCH docs VALUES 3 0 0 1 K 1"), []any{"d", dist(0)}},
			{vixCmd("VSIM.SEARCH docs VALUES 3 0 1 0.1 K 2 EF 5"), []any{"b", dist(0.00496286153793335), "e", dist(0.2260427474975586)}},
			{vixCmd("VSIM.SEARCH docs VALUES 3 1 1 0.0001 K 1 WITHATTRIBS"), []any{"c", vixAny, `{"year":2000}`}},
			{[]string{"VSIM.SEARCH", "docs", "VALUES", "3", "0", "1", "0", "K", "1", "FILTER", ".year > 1995"}, []any{"c", dist(0.29289323091506958)}},
			{[]string{"VSIM.SEARCH", "docs", "VALUES", "3", "0", "1", "0", "FILTER", ".year >", "K", "1"}, harness.Err("ERR syntax error in FILTER expression near: .year >")},
			{vixCmd("VSIM.SEARCH docs VALUES 3 0 1 0 K 0"), harness.Err("ERR invalid K")},
			{vixCmd("VSIM.SEARCH docs VALUES 3 0 1 0 EF -1"), harness.Err("ERR invalid EF")},
			{vixCmd("VSIM.SEARCH docs VALUES 3 0 1 0 FILTER-EF x"), harness.Err("ERR invalid FILTER-EF")},
			{vixCmd("VSIM.SEARCH docs VALUES 3 0 1 0 COUNT 3"), harness.Err("ERR syntax error")},
			{vixCmd("VSIM.SEARCH docs VALUES 3 0 0 0"), harness.Err("ERR zero vector has no direction under METRIC COSINE")},
			{vixCmd("VSIM.SEARCH docs VALUES 2 0 1"), harness.Err("ERR vector dimension mismatch - got 2 but index has 3")},
			{vixCmd("VSIM.SEARCH docs VALUES 3 0 1"), harness.Err("ERR invalid vector specification")},
			{vixCmd("VSIM.SEARCH nope VALUES 3 0 1 0"), harness.Err("ERR no such index")},
			// L2 with int8 codes re-ranked on exact vectors
			{vixCmd("VSIM.MSET l2 VALUES 2 o 0 0 p 3 4 q 10 10"), int64(3)},
			{vixCmd("VSIM.SEARCH l2 VALUES 2 3 3 K 2"), []any{"p", dist(1), "o", dist(18)}},
			{vixCmd("VSIM.SET l2 o VALUES 2 0 0"), int64(0)},
			{[]string{"VSIM.MSET", "bin", "FP32", "x", harness.VSBlob(1, -1, 1, -1, 1, -1, 1, -1), "y", harness.VSBlob(1, 1, 1, 1, 1, 1, 1, 1)}, int64(2)},
			{[]string{"VSIM.SEARCH", "bin", "FP32", harness.VSBlob(1, 1, 1, 1, 1, 1, 1, -1), "K", "1"}, []any{"y", dist(0.25)}},
			// delete, drop
			{vixCmd("VSIM.DEL docs a zz e"), int64(2)},
			{vixCmd("VSIM.GET docs a"), nil},
			{vixCmd("VSIM.SEARCH docs VALUES 3 1 0 0 K 10"), vixAny},
			{vixCmd("VSIM.DROPINDEX docs"), harness.Status("OK")},
			{vixCmd("VSIM.DROPINDEX docs"), harness.Err("ERR no such index")},
			{vixCmd("VSIM.INFO docs"), harness.Err("ERR no such index")},
			{vixCmd("FLUSHALL"), harness.Status("OK")},
			{vixCmd("VSIM.LIST"), []any{"bin", "l2"}},
		}
		for _, c := range cases {
			got := r.Do(c.cmd...)
			if c.want == vixAny {
				if _, isErr := got.(harness.Err); isErr {
					t.Errorf("RESP%s %q = %#v", proto, c.cmd, got)
				}
				continue
			}
			if w, ok := c.want.([]any); ok && c.cmd[0] == "VSIM.SEARCH" {
				got = vixMaskAny(got, w)
			}
			if m, ok := c.want.(harness.Map); ok {
				got = vixMaskAny(got, m)
			} else if kv, ok := c.want.([]any); ok && c.cmd[0] == "VSIM.INFO" {
				got = vixMaskAny(got, kv)
			}
			if !equalReply(got, c.want) {
				t.Errorf("RESP%s %q = %#v, want %#v", proto, c.cmd, got, c.want)
			}
		}
	}
}

// vixAny in an expected reply accepts any non-error value.
var vixAny any = struct{ any string }{"any"}

// vixMaskAny copies got, a flat key/value reply, putting vixAny where want has it.
func vixMaskAny[T ~[]any](got any, want T) any {
	var g []any
	switch v := got.(type) {
	case harness.Map:
		g = slices.Clone([]any(v))
	case []any:
		g = slices.Clone(v)
	default:
		return got
	}
	for i := range min(len(g), len(want)) {
		if want[i] == vixAny {
			g[i] = vixAny
		}
	}
	return T(g)
}

// TestVectorIndexDocsAndInfo: COMMAND DOCS describes the commands and INFO
// reports the indexes' memory.
func TestVectorIndexDocsAndInfo(t *testing.T) {
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	docs, err := c.Do(ctx, "COMMAND", "DOCS", "vsim.search", "vsim.createindex").Result()
	if err != nil {
		t.Fatal(err)
	}
	if str := fmt.Sprint(docs); !strings.Contains(str, "nearest to a vector") || !strings.Contains(str, "vector-index") {
		t.Errorf("COMMAND DOCS = %v", str)
	}
	c.Do(ctx, "VSIM.CREATEINDEX", "m", "DIM", 4)
	c.Do(ctx, "VSIM.MSET", "m", "VALUES", 4, "a", 1, 2, 3, 4, "b", 4, 3, 2, 1)
	info := c.Info(ctx, "memory").Val()
	for _, want := range []string{"vector_indexes:1", "vector_index_vectors:2", "vector_index_bytes_per_vector:"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO memory lacks %q", want)
		}
	}
}

// TestVectorIndexRecall loads clustered data through VSIM.MSET batches
// from several connections and checks recall@10 against brute force, for
// cosine and L2, and that int8 codes with re-ranking keep recall.
func TestVectorIndexRecall(t *testing.T) {
	if vecRace {
		t.Skip("too slow under -race")
	}
	s := harness.Start(t)
	ctx := context.Background()
	const n, dim, nq, k = 3000, 24, 50, 10
	rng := rand.New(rand.NewPCG(7, 8))
	base := vsClustered(rng, n, dim, 30)
	for _, tc := range []struct {
		name, metric, typ string
		min               float64
	}{{"cos", "COSINE", "FLOAT32", 0.95}, {"l2", "L2", "FLOAT32", 0.95}, {"q8", "COSINE", "INT8", 0.93}} {
		c := s.Client(t)
		args := []any{"VSIM.CREATEINDEX", tc.name, "DIM", dim, "METRIC", tc.metric, "TYPE", tc.typ}
		if tc.typ == "INT8" {
			args = append(args, "RERANK")
		}
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cw := s.Client(t)
				batch := []any{"VSIM.MSET", tc.name, "FP32"}
				for i := w; i < n; i += 4 {
					batch = append(batch, strconv.Itoa(i), harness.VSBlob(base[i]...))
					if len(batch) >= 3+2*200 || i+4 >= n {
						if err := cw.Do(ctx, batch...).Err(); err != nil {
							t.Error(err)
						}
						batch = batch[:3]
					}
				}
			}()
		}
		wg.Wait()
		hits := 0
		for range nq {
			q := slices.Clone(base[rng.IntN(n)])
			for j := range q {
				q[j] += 0.2 * float32(rng.NormFloat64())
			}
			res, err := c.Do(ctx, "VSIM.SEARCH", tc.name, "FP32", harness.VSBlob(q...), "K", k, "EF", 100).Slice()
			if err != nil {
				t.Fatal(err)
			}
			truth := map[string]bool{}
			for _, i := range vsTruth(base, q, k, tc.metric) {
				truth[strconv.Itoa(i)] = true
			}
			for i := 0; i < len(res); i += 2 {
				if truth[res[i].(string)] {
					hits++
				}
			}
		}
		if recall := float64(hits) / (nq * k); recall < tc.min {
			t.Errorf("%s: recall@10 = %.3f, want >= %.2f", tc.name, recall, tc.min)
		}
	}
}

// TestVectorIndexConcurrent inserts, replaces, deletes and searches one
// index from many connections at once (meant for -race); the final size must
// be what the writers leave.
func TestVectorIndexConcurrent(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	const writers, readers, per, dim = 4, 4, 48, 8
	s.Client(t).Do(ctx, "VSIM.CREATEINDEX", "c", "DIM", dim)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.Client(t, func(o *redis.Options) { o.PoolSize = 1 })
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for i := range per {
				v := vsClustered(rng, 1, dim, 1)[0]
				id := fmt.Sprintf("w%d-%d", w, i%(per/2)) // the second half replaces the first
				if err := c.Do(ctx, "VSIM.SET", "c", id, "FP32", harness.VSBlob(v...), "ATTRS", fmt.Sprintf(`{"i":%d}`, i)).Err(); err != nil {
					t.Error(err)
					return
				}
				if i >= per/2 && i%4 == 0 {
					if n, _ := c.Do(ctx, "VSIM.DEL", "c", id).Int(); n != 1 {
						t.Errorf("VSIM.DEL %s = %d", id, n)
					}
				}
			}
		}()
	}
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.Client(t, func(o *redis.Options) { o.PoolSize = 1 })
			for range per {
				args := []any{"VSIM.SEARCH", "c", "VALUES", dim, 1, 0, 0, 0, 0, 0, 0, 1, "K", 5}
				if r%2 == 1 {
					args = append(args, "FILTER", ".i >= 12", "WITHATTRIBS")
				}
				res, err := c.Do(ctx, args...).Slice()
				if err != nil {
					t.Error(err)
					return
				}
				if len(res) > 15 {
					t.Errorf("VSIM.SEARCH returned %d items", len(res))
				}
			}
		}()
	}
	wg.Wait()
	// Each writer leaves per/2 ids minus those deleted in the second half.
	want := writers * (per/2 - per/2/4)
	if got, _ := s.Client(t).Do(ctx, "VSIM.INFO", "c").Result(); !strings.Contains(fmt.Sprint(got), fmt.Sprintf("size:%d", want)) {
		t.Errorf("VSIM.INFO = %v, want size %d", got, want)
	}
}

// TestVectorIndexFilterReturnsK (issue 24): a filtered VSIM.SEARCH returns
// K hits whenever K elements match, nearest first. With 3 matches among
// 5,000 elements and K 3 the graph walk used to stop at its default
// FILTER-EF with fewer. Selective filters (here up to 1% of the
// elements) are answered by an exact scan: the brute-force top K, no
// tolerance but float32 rounding. Common ones walk the graph: K hits,
// recall@10 >= 0.9. Fewer matches than K: all of them.
func TestVectorIndexFilterReturnsK(t *testing.T) {
	if vecRace {
		t.Skip("too slow under -race")
	}
	s := harness.Start(t)
	ctx := context.Background()
	c := s.Client(t)
	const n, dim = 5000, 16
	rng := rand.New(rand.NewPCG(24, 6))
	base := vsClustered(rng, n, dim, 20)
	rank := rng.Perm(n) // element i matches ".r < m" when rank[i] < m
	if err := c.Do(ctx, "VSIM.CREATEINDEX", "f", "DIM", dim).Err(); err != nil {
		t.Fatal(err)
	}
	pipe := c.Pipeline()
	for i, v := range base {
		pipe.Do(ctx, "VSIM.SET", "f", strconv.Itoa(i), "FP32", harness.VSBlob(v...), "ATTRS", fmt.Sprintf(`{"r":%d}`, rank[i]))
		if i%500 == 499 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	// search returns the ids and distances of a filtered VSIM.SEARCH, and
	// the brute-force ranking of the matching elements.
	type hit struct {
		id int
		d  float64
	}
	search := func(q []float32, k, matches int) (got, truth []hit) {
		res, err := c.Do(ctx, "VSIM.SEARCH", "f", "FP32", harness.VSBlob(q...), "K", k,
			"FILTER", fmt.Sprintf(".r < %d", matches)).Slice()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(res); i += 2 {
			id, _ := strconv.Atoi(res[i].(string))
			got = append(got, hit{id, res[i+1].(float64)})
		}
		for i, v := range base {
			if rank[i] < matches {
				truth = append(truth, hit{i, vsCosine(v, q)})
			}
		}
		slices.SortFunc(truth, func(a, b hit) int { return cmp.Compare(a.d, b.d) })
		return got, truth
	}
	const tol = 1e-5 // float32 distances against float64 ones
	// check: min(k, matches) distinct matching hits, nearest first, each at
	// its true distance; it returns how many are in the true top k.
	check := func(label string, q []float32, got, truth []hit, k int) int {
		if len(got) != min(k, len(truth)) {
			t.Fatalf("%s: %d hits, want %d", label, len(got), min(k, len(truth)))
		}
		good, seen := 0, map[int]bool{}
		for j, h := range got {
			if rank[h.id] >= len(truth) || seen[h.id] {
				t.Fatalf("%s: hit %d does not match, or repeats", label, h.id)
			}
			seen[h.id] = true
			if d := vsCosine(base[h.id], q); math.Abs(d-h.d) > tol {
				t.Fatalf("%s: hit %d at distance %v, true %v", label, h.id, h.d, d)
			}
			if j > 0 && h.d < got[j-1].d {
				t.Fatalf("%s: hits out of order: %v", label, got)
			}
			if h.d <= truth[len(got)-1].d+tol {
				good++
			}
		}
		return good
	}
	exact := func(label string, q []float32, got, truth []hit, k int) {
		check(label, q, got, truth, k)
		for j, h := range got {
			if math.Abs(h.d-truth[j].d) > tol {
				t.Fatalf("%s: hit %d is %d at %v, brute force has %d at %v", label, j, h.id, h.d, truth[j].id, truth[j].d)
			}
		}
	}
	queries := make([][]float32, 20)
	for i := range queries {
		queries[i] = slices.Clone(base[rng.IntN(n)])
		for j := range queries[i] {
			queries[i][j] += 0.2 * float32(rng.NormFloat64())
		}
	}
	for qi, q := range queries {
		got, truth := search(q, 3, 3) // the case, default FILTER-EF
		exact(fmt.Sprintf("query %d, 3 matches, K 3", qi), q, got, truth, 3)
		got, truth = search(q, 10, 3)
		exact(fmt.Sprintf("query %d, 3 matches, K 10", qi), q, got, truth, 10)
	}
	for _, tc := range []struct {
		matches int
		exact   bool
	}{{5, true}, {50, true}, {500, false}, {2500, false}} {
		good := 0
		for qi, q := range queries {
			label := fmt.Sprintf("query %d, %d matches", qi, tc.matches)
			got, truth := search(q, 10, tc.matches)
			if tc.exact {
				exact(label, q, got, truth, 10)
				continue
			}
			good += check(label, q, got, truth, 10)
		}
		if r := float64(good) / float64(10*len(queries)); !tc.exact && r < 0.9 {
			t.Errorf("%d matches: recall@10 %.3f", tc.matches, r)
		}
	}
}
