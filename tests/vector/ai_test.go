package vector

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/client/hotkv"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// The AI layer end to end: PCACHE (exact prompt cache), SCACHE (semantic
// cache) and AMEM (agent memory), through the real server, with raw RESP
// for reply shapes and the typed client for flows.

const aiDim = 8

// aiVec is a unit vector at cosine distance d from e_base, leaning towards
// e_axis: cos θ·e_base + sin θ·e_axis, so 1-cos = d exactly.
func aiVec(base, axis int, d float64) []float32 {
	v := make([]float32, aiDim)
	c := 1 - d
	v[base] = float32(c)
	v[axis] = float32(math.Sqrt(max(1-c*c, 0)))
	return v
}

// aiVecAt is aiVec from e0.
func aiVecAt(d float64, axis int) []float32 { return aiVec(0, axis, d) }

// aiValues renders a vector as VALUES arguments.
func aiValues(v []float32) []string {
	a := []string{"VALUES", strconv.Itoa(len(v))}
	for _, f := range v {
		a = append(a, strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	return a
}

func aiCmd(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			out = append(out, p)
		case []string:
			out = append(out, p...)
		case []float32:
			out = append(out, aiValues(p)...)
		}
	}
	return out
}

func aiClient(t testing.TB, s *harness.Server, opts ...func(*redis.Options)) *hotkv.Client {
	return hotkv.New(s.Client(t, opts...))
}

func TestAIPromptCache(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Err("ERR no such namespace"), "PCACHE.GET", "ns", "hi")
	r.Expect(harness.Status("OK"), "PCACHE.CREATE", "ns", "MAXENTRIES", "2")
	r.Expect(harness.Err("ERR already exists"), "PCACHE.CREATE", "ns")
	r.Expect(int64(1), "PCACHE.SET", "ns", "hi", "hello!", "MODEL", "m1", "PARAMS", "2", "temperature", "0", "top_p", "1")
	// The parameters' order does not matter; model and parameters do.
	r.Expect("hello!", "PCACHE.GET", "ns", "hi", "PARAMS", "2", "top_p", "1", "temperature", "0", "MODEL", "m1")
	r.Expect(nil, "PCACHE.GET", "ns", "hi", "MODEL", "m1")
	r.Expect(nil, "PCACHE.GET", "ns", "hi", "MODEL", "m2", "PARAMS", "2", "top_p", "1", "temperature", "0")
	r.Expect(nil, "PCACHE.GET", "ns", "hi ")
	r.Expect(int64(0), "PCACHE.SET", "ns", "hi", "hello again", "MODEL", "m1", "PARAMS", "2", "temperature", "0", "top_p", "1")
	r.Expect(harness.Err("ERR syntax error"), "PCACHE.GET", "ns", "hi", "PARAMS", "2", "top_p", "1")
	r.Expect(harness.Err("ERR syntax error"), "PCACHE.SET", "ns", "p", "r", "EX")

	// LRU: the entry read last survives the third insert.
	r.Expect(int64(1), "PCACHE.SET", "ns", "a", "A")
	r.Expect("hello again", "PCACHE.GET", "ns", "hi", "MODEL", "m1", "PARAMS", "2", "temperature", "0", "top_p", "1")
	r.Expect(int64(1), "PCACHE.SET", "ns", "b", "B")
	r.Expect(nil, "PCACHE.GET", "ns", "a")
	r.Expect("B", "PCACHE.GET", "ns", "b")
	r.Expect(int64(1), "PCACHE.DEL", "ns", "b")
	r.Expect(int64(0), "PCACHE.DEL", "ns", "b")

	info := r.Do("PCACHE.INFO", "ns").([]any) // RESP2: a flat array
	want := map[string]any{"entries": int64(1), "bytes": int64(len("hello again")), "hits": int64(3),
		"misses": int64(4), "sets": int64(4), "evicted": int64(1), "maxentries": int64(2), "refresh": int64(1), "ttl": "0"}
	for i := 0; i < len(info); i += 2 {
		if w, ok := want[info[i].(string)]; ok && !reflect.DeepEqual(info[i+1], w) {
			t.Errorf("PCACHE.INFO %v = %#v, want %#v", info[i], info[i+1], w)
		}
	}
	r.Do("HELLO", "3")
	if m, ok := r.Do("PCACHE.INFO", "ns").(harness.Map); !ok || len(m) != 22 || m[0] != "entries" {
		t.Fatalf("PCACHE.INFO in RESP3: %#v", m)
	}

	// Size caps: an entry larger than MAXBYTES is refused, smaller ones evict.
	r.Expect(harness.Status("OK"), "PCACHE.CREATE", "small", "MAXBYTES", "10")
	r.Expect(harness.Err("ERR entry too large"), "PCACHE.SET", "small", "p", "01234567890")
	r.Expect(int64(1), "PCACHE.SET", "small", "p1", "012345")
	r.Expect(int64(1), "PCACHE.SET", "small", "p2", "012345")
	r.Expect(nil, "PCACHE.GET", "small", "p1")
	r.Expect("012345", "PCACHE.GET", "small", "p2")

	r.Expect(harness.Status("OK"), "PCACHE.DROP", "small")
	r.Expect(harness.Err("ERR no such namespace"), "PCACHE.DROP", "small")
	r.Expect([]any{"ns"}, "PCACHE.LIST")
	s.NoPanics(t)
}

func TestAIPromptCacheTTL(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "PCACHE.CREATE", "ns", "TTL", "100")
	r.Expect(harness.Status("OK"), "PCACHE.CREATE", "fixed", "TTL", "100", "NOREFRESH")
	r.Expect(int64(1), "PCACHE.SET", "ns", "short", "x", "PX", "30")
	r.Expect(int64(1), "PCACHE.SET", "ns", "kept", "y", "PERSIST")
	r.Expect(int64(1), "PCACHE.SET", "ns", "default", "z")
	r.Expect(int64(1), "PCACHE.SET", "fixed", "p", "v")
	r.Expect(int64(-1), "PCACHE.TTL", "ns", "kept")
	r.Expect(int64(-2), "PCACHE.TTL", "ns", "absent")
	time.Sleep(60 * time.Millisecond)
	r.Expect(nil, "PCACHE.GET", "ns", "short")
	r.Expect(int64(-2), "PCACHE.TTL", "ns", "short")
	r.Expect("y", "PCACHE.GET", "ns", "kept")
	// A hit restarts the lifetime unless the namespace says NOREFRESH.
	r.Expect("z", "PCACHE.GET", "ns", "default")
	r.Expect("v", "PCACHE.GET", "fixed", "p")
	// Both were set before the sleep; only the refreshed one restarted after
	// it, so it has more left whatever the machine's speed.
	refreshed := r.Do("PCACHE.TTL", "ns", "default").(int64)
	fixed := r.Do("PCACHE.TTL", "fixed", "p").(int64)
	if refreshed <= fixed || refreshed > 100_000 || fixed > 100_000-60 {
		t.Errorf("TTL after a hit: %d ms with REFRESH, %d ms with NOREFRESH", refreshed, fixed)
	}
}

func TestAIChunkPrefix(t *testing.T) {
	s := harness.Start(t)
	c := aiClient(t, s)
	ctx := context.Background()
	for _, k := range []string{"m@0", "m@1", "m@2", "m@4"} {
		s.Client(t).Set(ctx, k, "kv", 0)
	}
	for _, tc := range []struct {
		keys []string
		want int
	}{
		{[]string{"m@0", "m@1", "m@2", "m@3", "m@4"}, 3},
		{[]string{"m@0", "m@1", "m@2"}, 3},
		{[]string{"m@9", "m@0"}, 0},
	} {
		if n, err := c.ChunkPrefix(ctx, tc.keys...); err != nil || n != tc.want {
			t.Errorf("PCACHE.PREFIX %v = %d, %v; want %d", tc.keys, n, err, tc.want)
		}
	}
}

func TestAISemanticCache(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), aiCmd("SCACHE.CREATE", "qa", "DIM", "8", "THRESHOLD", "0.1")...)
	r.Expect(int64(1), aiCmd("SCACHE.STORE", "qa", "What is the capital of France?", "Paris", aiVecAt(0, 1))...)
	// A paraphrase at distance 0.05 hits, one at 0.15 misses, unless the
	// call raises the threshold.
	hit := r.Do(aiCmd("SCACHE.LOOKUP", "qa", aiVecAt(0.05, 2))...).([]any)
	if hit[0] != "id" || hit[1] != int64(1) || hit[3] != "Paris" || hit[5] != "What is the capital of France?" || hit[8] != "match" || hit[9] != "semantic" {
		t.Fatalf("lookup = %#v", hit)
	}
	if d, _ := strconv.ParseFloat(hit[7].(string), 64); math.Abs(d-0.05) > 1e-3 || hit[6] != "distance" {
		t.Errorf("distance = %v, want 0.05", hit[7])
	}
	r.Expect(nil, aiCmd("SCACHE.LOOKUP", "qa", aiVecAt(0.15, 2))...)
	if r.Do(aiCmd("SCACHE.LOOKUP", "qa", aiVecAt(0.15, 2), "THRESHOLD", "0.2")...) == nil {
		t.Error("THRESHOLD 0.2 missed a neighbour at 0.15")
	}
	// The exact prompt is tried first, whatever the vector.
	r.Do("HELLO", "3")
	m := r.Do(aiCmd("SCACHE.LOOKUP", "qa", aiVecAt(1, 3), "PROMPT", "What is the capital of France?")...).(harness.Map)
	if m[6] != "distance" || m[7] != float64(0) || m[9] != "exact" || m[11] != nil {
		t.Errorf("exact lookup = %#v", m)
	}
	r.Expect(nil, aiCmd("SCACHE.LOOKUP", "qa", aiVecAt(1, 3), "PROMPT", "what is the capital of france?")...)

	info := r.Do("SCACHE.INFO", "qa").(harness.Map)
	got := map[any]any{}
	for i := 0; i < len(info); i += 2 {
		got[info[i]] = info[i+1]
	}
	if got["hits"] != int64(3) || got["misses"] != int64(2) || got["exact_hits"] != int64(1) || got["hit_ratio"] != 0.6 || got["entries"] != int64(1) {
		t.Errorf("SCACHE.INFO = %v", got)
	}
	if d := got["avg_hit_distance"].(float64); math.Abs(d-(0.05+0.15)/3) > 1e-3 {
		t.Errorf("avg_hit_distance = %v", d)
	}

	// Bad input is refused and nothing is stored.
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{aiCmd("SCACHE.STORE", "qa", "p", "r", aiVecAt(0, 1)[:7]), "ERR vector dimension mismatch"},
		{aiCmd("SCACHE.STORE", "qa", "p", "r", make([]float32, 8)), "ERR zero vector cannot be compared with the COSINE metric"},
		{aiCmd("SCACHE.STORE", "qa", "p", "r", aiVecAt(0, 1), "ATTRS", "[1]"), "ERR attributes must be a JSON object"},
		{aiCmd("SCACHE.STORE", "qa", "p", "r", aiVecAt(0, 1), "ATTRS", "{"), "ERR attributes must be a JSON object"},
		{aiCmd("SCACHE.STORE", "qa", "p", "r", "VALUES", "8", "1"), "ERR syntax error"},
		{aiCmd("SCACHE.STORE", "qa", "p", "r", "FP32", "abc"), "ERR FP32 blob length must be a positive multiple of 4"},
		{aiCmd("SCACHE.STORE", "nope", "p", "r", aiVecAt(0, 1)), "ERR no such cache"},
		{aiCmd("SCACHE.LOOKUP", "qa", aiVecAt(0, 1), "THRESHOLD", "2.5"), "ERR distance threshold outside the metric's range (COSINE: 0..2, L2: >= 0)"},
		{aiCmd("SCACHE.LOOKUP", "qa", aiVecAt(0, 1), "FILTER", ".user =="), "ERR syntax error in FILTER expression near: .user =="},
		{aiCmd("SCACHE.LOOKUP", "qa", "VALUES", "3", "1", "0", "0"), "ERR vector dimension mismatch"},
		{aiCmd("SCACHE.CREATE", "l2", "DIM", "8", "METRIC", "L2", "THRESHOLD", "-1"), "ERR distance threshold outside the metric's range (COSINE: 0..2, L2: >= 0)"},
		{aiCmd("SCACHE.CREATE", "b", "DIM", "8", "METRIC", "L2", "TYPE", "BINARY"), "ERR TYPE BINARY works with METRIC COSINE only"},
		{aiCmd("SCACHE.CREATE", "b", "METRIC", "L2"), "ERR DIM is required"},
		{aiCmd("SCACHE.CREATE", "qa", "DIM", "8"), "ERR already exists"},
	} {
		r.Expect(harness.Err(tc.err), tc.args...)
	}
	r.Expect([]any{"qa"}, "SCACHE.LIST")
	if got := r.Do("SCACHE.INFO", "qa").(harness.Map)[15]; got != int64(1) {
		t.Errorf("entries after refused stores = %v", got)
	}
	s.NoPanics(t)
}

// A user never gets another user's cached answer.
func TestAISemanticCacheScoping(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		c := aiClient(t, s, func(o *redis.Options) { o.Protocol = proto })
		name := "scoped" + strconv.Itoa(proto)
		if err := c.CreateSemanticCache(ctx, name, hotkv.SemanticCacheOptions{IndexOptions: hotkv.IndexOptions{Dim: aiDim}, Threshold: 0.2}); err != nil {
			t.Fatal(err)
		}
		for i, u := range []string{"alice", "bob"} {
			if _, err := c.Store(ctx, name, hotkv.SemanticEntry{Prompt: "my balance?", Response: u + ": 42",
				Vector: aiVecAt(0.04-0.04*float64(i), 1), Attributes: `{"user":"` + u + `"}`}); err != nil {
				t.Fatal(err)
			}
		}
		// bob's entry is the nearest to this query, yet alice gets hers.
		q := aiVecAt(0, 1)
		for _, u := range []string{"alice", "bob"} {
			h, err := c.Lookup(ctx, name, q, hotkv.LookupOptions{Filter: `.user == "` + u + `"`})
			if err != nil || h == nil || h.Response != u+": 42" || h.Attributes != `{"user":"`+u+`"}` {
				t.Fatalf("RESP%d lookup for %s = %+v, %v", proto, u, h, err)
			}
			h, err = c.Lookup(ctx, name, q, hotkv.LookupOptions{Filter: `.user == "` + u + `"`, Prompt: "my balance?"})
			if err != nil || h == nil || h.Response != u+": 42" || !h.Exact {
				t.Fatalf("RESP%d exact lookup for %s = %+v, %v", proto, u, h, err)
			}
		}
		if h, err := c.Lookup(ctx, name, q, hotkv.LookupOptions{Filter: `.user == "carol"`, Prompt: "my balance?"}); h != nil || err != nil {
			t.Fatalf("carol got %+v, %v", h, err)
		}
		// Invalidation by filter and by id.
		if n, err := c.InvalidateWhere(ctx, name, `.user == "bob"`); n != 1 || err != nil {
			t.Fatalf("invalidate bob = %d, %v", n, err)
		}
		if h, _ := c.Lookup(ctx, name, q, hotkv.LookupOptions{Filter: `.user == "bob"`}); h != nil {
			t.Fatalf("bob's entry survived invalidation: %+v", h)
		}
		h, _ := c.Lookup(ctx, name, q, hotkv.LookupOptions{})
		if h == nil || h.Response != "alice: 42" {
			t.Fatalf("unfiltered lookup = %+v", h)
		}
		if n, err := c.Invalidate(ctx, name, h.ID, 999); n != 1 || err != nil {
			t.Fatalf("invalidate by id = %d, %v", n, err)
		}
		info, err := c.SemanticCacheInfo(ctx, name)
		if err != nil || info.Entries != 0 || info.Dim != aiDim || info.Metric != "COSINE" || info.Threshold != 0.2 {
			t.Fatalf("info = %+v, %v", info, err)
		}
	}
}

// TestAIVectorIndexClient drives every named-index method of the typed
// client through the real server, in RESP2 (distances and vector
// components are bulk strings, INFO a flat array) and RESP3.
func TestAIVectorIndexClient(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		c := aiClient(t, s, func(o *redis.Options) { o.Protocol = proto })
		fail := func(what string, got ...any) { t.Helper(); t.Fatalf("RESP%d %s: %v", proto, what, got) }
		// L2 over FLOAT32 stores vectors as given, so distances and VSIM.GET
		// are exact.
		o := hotkv.VectorIndexOptions{IndexOptions: hotkv.IndexOptions{Dim: aiDim, Metric: "L2", M: 8, EF: 50}}
		if err := c.CreateVectorIndex(ctx, "vi", o); err != nil {
			fail("create", err)
		}
		if err := c.CreateVectorIndex(ctx, "vi", o); err == nil || err.Error() != "ERR index already exists" {
			fail("create twice", err)
		}
		e0, e1 := aiVecAt(0, 1), aiVec(1, 2, 0)
		far := []float32{2, 0, 0, 0, 0, 0, 0, 0}
		if added, err := c.SetVector(ctx, "vi", "a", e1, `{"n":1}`); !added || err != nil {
			fail("set a", added, err)
		}
		if added, err := c.SetVector(ctx, "vi", "a", e0, `{"n":2}`); added || err != nil {
			fail("replace a", added, err)
		}
		if n, err := c.SetVectors(ctx, "vi", map[string][]float32{"a": e0, "b": e1, "c": far}); n != 2 || err != nil {
			fail("mset", n, err)
		}
		if n, err := c.SetVectors(ctx, "vi", nil); n != 0 || err != nil {
			fail("empty mset", n, err)
		}
		// MSET dropped a's attributes; give them back.
		if _, err := c.SetVector(ctx, "vi", "a", e0, `{"n":2}`); err != nil {
			fail("set a again", err)
		}
		hits, err := c.SearchVectors(ctx, "vi", e0, hotkv.SearchOptions{K: 3, EF: 20, WithAttribs: true})
		want := []hotkv.SearchHit{{ID: "a", Distance: 0, Attrs: `{"n":2}`}, {ID: "c", Distance: 1}, {ID: "b", Distance: 2}}
		if err != nil || !reflect.DeepEqual(hits, want) {
			fail("search", hits, err)
		}
		hits, err = c.SearchVectors(ctx, "vi", e1, hotkv.SearchOptions{K: 1})
		if err != nil || !reflect.DeepEqual(hits, []hotkv.SearchHit{{ID: "b", Distance: 0}}) {
			fail("search K 1", hits, err)
		}
		hits, err = c.SearchVectors(ctx, "vi", e1, hotkv.SearchOptions{Filter: ".n == 2", FilterEF: 10})
		if err != nil || !reflect.DeepEqual(hits, []hotkv.SearchHit{{ID: "a", Distance: 2}}) {
			fail("filtered search", hits, err)
		}
		if v, err := c.GetVector(ctx, "vi", "a"); err != nil || v == nil || !reflect.DeepEqual(*v, hotkv.StoredVector{Vector: e0, Attrs: `{"n":2}`}) {
			fail("get a", v, err)
		}
		if v, err := c.GetVector(ctx, "vi", "c"); err != nil || v == nil || !reflect.DeepEqual(*v, hotkv.StoredVector{Vector: far}) {
			fail("get c", v, err)
		}
		if v, err := c.GetVector(ctx, "vi", "nope"); v != nil || err != nil {
			fail("get missing", v, err)
		}
		info, err := c.VectorIndexInfo(ctx, "vi")
		if err != nil || info.Name != "vi" || info.Dim != aiDim || info.Metric != "L2" || info.Type != "FLOAT32" || info.Rerank ||
			info.M != 8 || info.EFConstruction != 50 || info.Size != 3 || info.Attributes != 1 || info.Bytes <= 0 || info.BytesPerVector <= 0 {
			fail("info", info, err)
		}
		if err := c.CreateVectorIndex(ctx, "q8", hotkv.VectorIndexOptions{IndexOptions: hotkv.IndexOptions{Dim: 4, Type: "INT8"}, Rerank: true}); err != nil {
			fail("create q8", err)
		}
		if info, err := c.VectorIndexInfo(ctx, "q8"); err != nil || !info.Rerank || info.Type != "INT8" || info.Metric != "COSINE" || info.Size != 0 {
			fail("q8 info", info, err)
		}
		if names, err := c.VectorIndexes(ctx); err != nil || !reflect.DeepEqual(names, []string{"q8", "vi"}) {
			fail("list", names, err)
		}
		// Errors: a wrong dimension leaves the index as it was, MSET all or nothing.
		const dimErr = "ERR vector dimension mismatch - got 2 but index has 8"
		if _, err := c.SetVector(ctx, "vi", "d", []float32{1, 2}, ""); err == nil || err.Error() != dimErr {
			fail("short vector", err)
		}
		if _, err := c.SetVectors(ctx, "vi", map[string][]float32{"d": e1, "e": {1, 2}}); err == nil || err.Error() != dimErr {
			fail("short vector in mset", err)
		}
		if _, err := c.SearchVectors(ctx, "vi", []float32{1, 2}, hotkv.SearchOptions{}); err == nil || err.Error() != dimErr {
			fail("short query", err)
		}
		if v, _ := c.GetVector(ctx, "vi", "d"); v != nil {
			fail("mset stored part of a bad batch", v)
		}
		for what, err := range map[string]error{
			"set":    func() error { _, err := c.SetVector(ctx, "none", "a", e0, ""); return err }(),
			"mset":   func() error { _, err := c.SetVectors(ctx, "none", map[string][]float32{"a": e0}); return err }(),
			"search": func() error { _, err := c.SearchVectors(ctx, "none", e0, hotkv.SearchOptions{}); return err }(),
			"get":    func() error { _, err := c.GetVector(ctx, "none", "a"); return err }(),
			"del":    func() error { _, err := c.DeleteVectors(ctx, "none", "a"); return err }(),
			"info":   func() error { _, err := c.VectorIndexInfo(ctx, "none"); return err }(),
			"drop":   c.DropVectorIndex(ctx, "none"),
		} {
			if err == nil || err.Error() != "ERR no such index" {
				fail(what+" on an unknown index", err)
			}
		}
		if n, err := c.DeleteVectors(ctx, "vi", "a", "b", "nope"); n != 2 || err != nil {
			fail("del", n, err)
		}
		if hits, err := c.SearchVectors(ctx, "vi", e0, hotkv.SearchOptions{}); err != nil || len(hits) != 1 || hits[0].ID != "c" {
			fail("search after del", hits, err)
		}
		for _, name := range []string{"vi", "q8"} {
			if err := c.DropVectorIndex(ctx, name); err != nil {
				fail("drop", err)
			}
		}
		if names, err := c.VectorIndexes(ctx); err != nil || len(names) != 0 {
			fail("list after drop", names, err)
		}
	}
}

func TestAISemanticCacheTTLAndEviction(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "SCACHE.CREATE", "c", "DIM", "8", "MAXENTRIES", "2")
	r.Expect(int64(1), aiCmd("SCACHE.STORE", "c", "short", "1", aiVec(1, 2, 0), "PX", "30")...)
	r.Expect(int64(2), aiCmd("SCACHE.STORE", "c", "long", "2", aiVec(2, 3, 0))...)
	time.Sleep(60 * time.Millisecond)
	r.Expect(nil, aiCmd("SCACHE.LOOKUP", "c", aiVec(1, 2, 0), "THRESHOLD", "0.01")...)
	// Storing the same prompt and attributes replaces; MAXENTRIES evicts the
	// least recently used.
	r.Expect(int64(3), aiCmd("SCACHE.STORE", "c", "long", "2b", aiVec(2, 3, 0))...)
	r.Expect(int64(4), aiCmd("SCACHE.STORE", "c", "other", "3", aiVec(3, 4, 0))...)
	if got := r.Do(aiCmd("SCACHE.LOOKUP", "c", aiVec(2, 3, 0))...).([]any)[3]; got != "2b" {
		t.Fatalf("replaced entry answers %v", got)
	}
	r.Expect(int64(5), aiCmd("SCACHE.STORE", "c", "third", "4", aiVec(4, 5, 0))...)
	r.Expect(nil, aiCmd("SCACHE.LOOKUP", "c", aiVec(3, 4, 0))...)
	info := r.Do("SCACHE.INFO", "c").([]any)
	if info[14] != "entries" || info[15] != int64(2) || info[26] != "evicted" || info[27] != int64(1) || info[28] != "expired" || info[29] != int64(1) {
		t.Fatalf("SCACHE.INFO = %#v", info)
	}
}

func TestAIMemory(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	c := aiClient(t, s)
	r := s.Raw(t)
	r.Expect(harness.Err("ERR no such namespace"), aiCmd("AMEM.ADD", "u1", "x", aiVecAt(0, 1))...)
	if err := c.CreateMemory(ctx, "u1", hotkv.MemoryOptions{IndexOptions: hotkv.IndexOptions{Dim: aiDim}, WorkingMax: 3}); err != nil {
		t.Fatal(err)
	}
	imp := 0.6
	id, created, err := c.AddMemory(ctx, "u1", hotkv.NewMemory{Text: "likes green tea", Vector: aiVecAt(0, 1), Kind: hotkv.Semantic, Importance: &imp,
		Attributes: `{"topic":"food"}`})
	if err != nil || !created {
		t.Fatal(id, created, err)
	}
	// A near-duplicate (distance 0.01, within the default 0.05) merges.
	id2, created, err := c.AddMemory(ctx, "u1", hotkv.NewMemory{Text: "likes green tea a lot", Vector: aiVecAt(0.01, 2), Kind: hotkv.Semantic})
	if err != nil || created || id2 != id {
		t.Fatalf("duplicate: id %d created %v err %v", id2, created, err)
	}
	m, err := c.GetMemory(ctx, "u1", id)
	if err != nil || m == nil || m.Text != "likes green tea" || math.Abs(m.Importance-0.7) > 1e-9 || m.Kind != "semantic" || m.Attributes != `{"topic":"food"}` {
		t.Fatalf("merged memory = %+v, %v", m, err)
	}
	// With DEDUP OFF, or further away than the dedup distance, it is new.
	r.Expect([]any{"id", int64(2), "created", int64(1)}, aiCmd("AMEM.ADD", "u1", "likes tea", aiVecAt(0.01, 2), "KIND", "semantic", "DEDUP", "OFF")...)

	// Recall ordering follows the weights: the old exact match wins on
	// similarity alone, the recent near one once recency weighs.
	day := 24 * time.Hour
	old, _, _ := c.AddMemory(ctx, "u1", hotkv.NewMemory{Text: "old exact", Vector: aiVec(5, 6, 0), At: time.Now().Add(-30 * day)})
	recent, _, _ := c.AddMemory(ctx, "u1", hotkv.NewMemory{Text: "recent near", Vector: aiVec(5, 6, 0.3)})
	order := func(w [3]float64, touch bool) []int64 {
		t.Helper()
		recs, err := c.Recall(ctx, "u1", aiVec(5, 6, 0), hotkv.RecallOptions{K: 2, Weights: &w, HalfLife: day,
			Kinds: []string{hotkv.Episodic}, NoTouch: !touch})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, m := range recs {
			ids = append(ids, m.ID)
		}
		return ids
	}
	if got := order([3]float64{1, 0, 0}, false); !reflect.DeepEqual(got, []int64{old, recent}) {
		t.Errorf("similarity only: %v, want %v", got, []int64{old, recent})
	}
	if got := order([3]float64{0.2, 0.8, 0}, false); !reflect.DeepEqual(got, []int64{recent, old}) {
		t.Errorf("recency weighted: %v, want %v", got, []int64{recent, old})
	}
	// A recall that touches makes the old memory recent again.
	order([3]float64{1, 0, 0}, true)
	if got := order([3]float64{0.2, 0.8, 0}, false); !reflect.DeepEqual(got, []int64{old, recent}) {
		t.Errorf("after the touch: %v, want %v", got, []int64{old, recent})
	}
	recs, _ := c.Recall(ctx, "u1", aiVecAt(0, 1), hotkv.RecallOptions{K: 5, Filter: `.topic == "food"`})
	if len(recs) != 1 || recs[0].ID != id || recs[0].Distance > 1e-6 {
		t.Errorf("filtered recall = %+v", recs)
	}

	// RESP2: an array of flat arrays, doubles as bulk strings.
	raw2 := r.Do(aiCmd("AMEM.RECALL", "u1", aiVec(5, 6, 0), "K", "1", "KIND", "episodic", "NOTOUCH")...).([]any)
	if rec := raw2[0].([]any); len(raw2) != 1 || len(rec) != 22 || rec[1] != old || rec[19] != "0" || rec[20] != "score" {
		t.Errorf("RESP2 recall = %#v", raw2)
	}

	// The working-memory buffer keeps the last WORKINGMAX of a session.
	for i := range 5 {
		r.Do(aiCmd("AMEM.ADD", "u1", "w"+strconv.Itoa(i), aiVec(1+i, 7, 0.5), "KIND", "working", "SESSION", "s1")...)
	}
	r.Do(aiCmd("AMEM.ADD", "u1", "other session", aiVec(1, 7, 0.5), "KIND", "working", "SESSION", "s2")...)
	wm, err := c.WorkingMemory(ctx, "u1", "s1")
	if err != nil || len(wm) != 3 || wm[0].Text != "w2" || wm[2].Text != "w4" || wm[0].Session != "s1" || wm[0].Expires.IsZero() {
		t.Fatalf("working memory = %+v, %v", wm, err)
	}

	// Time range, then forgetting by filter, id and creation time.
	all, _ := c.MemoryRange(ctx, "u1", time.Time{}, time.Time{}, 0)
	if len(all) != 8 || all[0].ID != old {
		t.Fatalf("range = %d memories, first %+v", len(all), all[0])
	}
	if recent, _ := c.MemoryRange(ctx, "u1", time.Now().Add(-day), time.Time{}, 0); len(recent) != 7 {
		t.Errorf("range since a day ago = %d memories", len(recent))
	}
	if n, _ := c.ForgetWhere(ctx, "u1", `.topic == "food"`); n != 1 {
		t.Errorf("forget by filter = %d", n)
	}
	if n, _ := c.Forget(ctx, "u1", 2, 2, 999); n != 1 {
		t.Errorf("forget by id = %d", n)
	}
	r.Expect(int64(1), "AMEM.FORGET", "u1", "BEFORE", strconv.FormatInt(time.Now().Add(-day).UnixMilli(), 10))
	if m, _ := c.GetMemory(ctx, "u1", old); m != nil {
		t.Errorf("forgotten memory still there: %+v", m)
	}

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{aiCmd("AMEM.ADD", "u1", "x", aiVecAt(0, 1), "KIND", "working"), "ERR WORKING memories need a SESSION"},
		{aiCmd("AMEM.ADD", "u1", "x", aiVecAt(0, 1), "KIND", "dream"), "ERR memory kind must be WORKING, EPISODIC or SEMANTIC"},
		{aiCmd("AMEM.ADD", "u1", "x", aiVecAt(0, 1), "IMPORTANCE", "1.5"), "ERR importance must be between 0 and 1"},
		{aiCmd("AMEM.ADD", "u1", "x", aiVecAt(0, 1)[:3]), "ERR vector dimension mismatch"},
		{aiCmd("AMEM.RECALL", "u1", aiVecAt(0, 1), "WEIGHTS", "1", "-1", "0"), "ERR weights must be finite and non-negative"},
		{aiCmd("AMEM.RECALL", "u1", aiVecAt(0, 1), "FILTER", "(("), "ERR syntax error in FILTER expression near: (("},
		{aiCmd("AMEM.RECALL", "nope", aiVecAt(0, 1)), "ERR no such namespace"},
		{aiCmd("AMEM.CREATE", "x", "DIM", "8", "DEDUP", "3"), "ERR distance threshold outside the metric's range (COSINE: 0..2, L2: >= 0)"},
		{aiCmd("AMEM.FORGET", "u1", "OLDEST", "1"), "ERR syntax error"},
	} {
		r.Expect(harness.Err(tc.err), tc.args...)
	}
	info := r.Do("AMEM.INFO", "u1").([]any)
	if info[14] != "memories" || info[15] != int64(5) || info[16] != "working" || info[17] != int64(4) {
		t.Errorf("AMEM.INFO = %#v", info)
	}
	s.NoPanics(t)
}

func TestAICommandDocs(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("HELLO", "3")
	docs := r.Do("COMMAND", "DOCS", "scache.lookup").(harness.Map)
	doc := docs[1].(harness.Map)
	if docs[0] != "scache.lookup" || doc[0] != "summary" || doc[1] == "" || !reflect.DeepEqual(doc[4:6], harness.Map{"group", "ai"}) {
		t.Fatalf("COMMAND DOCS = %#v", docs)
	}
}

// BenchmarkAIBigValues: SET and GET of KV-cache-chunk-sized values (1 MiB,
// 16 MiB) through the real server; b.SetBytes makes the output MB/s.
func BenchmarkAIBigValues(b *testing.B) {
	s := harness.Start(b)
	ctx := context.Background()
	c := s.Client(b)
	for _, size := range []int{1 << 20, 16 << 20} {
		val := strings.Repeat("x", size)
		name := strconv.Itoa(size>>20) + "MiB"
		b.Run("SET/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				if err := c.Set(ctx, "chunk:"+strconv.Itoa(i%8), val, 0).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("GET/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if v, err := c.Get(ctx, "chunk:0").Result(); err != nil || len(v) != size {
					b.Fatal(len(v), err)
				}
			}
		})
	}
}

// BenchmarkAISemanticLookup: SCACHE.LOOKUP through the server from parallel
// clients, on 5000 random 100-d entries (docs/bench/ai.md has the 100k
// GloVe figures from cmd/hotkv-aibench).
func BenchmarkAISemanticLookup(b *testing.B) {
	s := harness.Start(b)
	ctx := context.Background()
	c := aiClient(b, s)
	if err := c.CreateSemanticCache(ctx, "b", hotkv.SemanticCacheOptions{IndexOptions: hotkv.IndexOptions{Dim: 100}}); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, 100)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for i := range 5000 {
		if _, err := c.Store(ctx, "b", hotkv.SemanticEntry{Prompt: strconv.Itoa(i), Response: "r", Vector: vec()}); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([][]float32, 256)
	for i := range queries {
		queries[i] = vec()
	}
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Lookup(ctx, "b", queries[n.Add(1)%256], hotkv.LookupOptions{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
