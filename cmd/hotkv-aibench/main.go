// Command hotkv-aibench measures the AI layer through a real server:
//
//	hotkv-aibench -mode scache -addr 127.0.0.1:7000 -fvecs /tmp/glove.fvecs -n 100000 -clients 1,50
//	hotkv-aibench -mode big -addr 127.0.0.1:7000 -size 1048576 -clients 1
//
// scache loads n vectors (an .fvecs file, as hotkv-vecbench -save writes
// it) into a semantic cache, then runs SCACHE.LOOKUP with the q vectors that
// follow them from each number of clients and reports queries per second,
// p50/p99 latency and the hit ratio. big SETs then GETs values of -size
// bytes and reports MB/s; it works against any Redis-compatible server.
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	var (
		mode      = flag.String("mode", "scache", "scache or big")
		addr      = flag.String("addr", "127.0.0.1:6379", "server address")
		fvecs     = flag.String("fvecs", "", "vectors (.fvecs), for scache")
		n         = flag.Int("n", 100000, "entries to load")
		nq        = flag.Int("q", 1000, "query vectors (after the n entries)")
		clients   = flag.String("clients", "1,50", "client counts")
		dur       = flag.Duration("time", 5*time.Second, "measuring time per client count")
		threshold = flag.Float64("threshold", 0.1, "cosine distance threshold")
		typ       = flag.String("type", "FLOAT32", "storage type")
		ef        = flag.Int("ef", 0, "lookup EF (0: the cache's default)")
		loaders   = flag.Int("loaders", 2, "connections loading in parallel")
		noload    = flag.Bool("noload", false, "reuse the cache a previous run loaded")
		para      = flag.Float64("paraphrase", 0, "instead of held-out vectors, query stored ones moved to this cosine distance (a paraphrase)")
		pid       = flag.Int("pid", 0, "server process id: report lookups per server CPU-second (robust to a busy machine)")
		size      = flag.Int("size", 1<<20, "value size, for big")
		ops       = flag.Int("ops", 200, "SETs and GETs per client, for big")
	)
	flag.Parse()
	var counts []int
	for _, c := range strings.Split(*clients, ",") {
		v, err := strconv.Atoi(c)
		if err != nil || v < 1 {
			fail(fmt.Errorf("bad -clients %q", *clients))
		}
		counts = append(counts, v)
	}
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: *addr, PoolSize: slices.Max(counts) + 2})
	defer rdb.Close()
	switch *mode {
	case "scache":
		blobs, dim, err := readFvecs(*fvecs, *n+*nq)
		if err != nil {
			fail(err)
		}
		if len(blobs) < *n+*nq {
			fail(fmt.Errorf("%s has %d vectors, need %d", *fvecs, len(blobs), *n+*nq))
		}
		if !*noload {
			load(ctx, rdb, blobs[:*n], dim, *threshold, *typ, *loaders)
		}
		queries := blobs[*n:]
		if *para > 0 {
			queries = paraphrases(blobs[:*n], *nq, *para)
		}
		extra := []any{}
		if *ef > 0 {
			extra = append(extra, "EF", *ef)
		}
		recallAt1(ctx, rdb, blobs[:*n], queries, 100, extra)
		for _, c := range counts {
			lookups(ctx, rdb, queries, c, *dur, extra, *pid)
		}
	case "big":
		for _, c := range counts {
			big(ctx, rdb, *size, c, *ops)
		}
	default:
		fail(fmt.Errorf("unknown -mode %q", *mode))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// readFvecs returns up to max vectors as FP32 blobs: in .fvecs each vector
// is a little-endian int32 dimension followed by the float32s FP32 wants.
func readFvecs(path string, max int) (blobs [][]byte, dim int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	for len(data) >= 4 && len(blobs) < max {
		d := int(binary.LittleEndian.Uint32(data))
		if d <= 0 || len(data) < 4+4*d || (dim != 0 && d != dim) {
			return nil, 0, fmt.Errorf("%s: bad vector %d", path, len(blobs))
		}
		dim = d
		blobs = append(blobs, data[4:4+4*d])
		data = data[4+4*d:]
	}
	return blobs, dim, nil
}

func load(ctx context.Context, rdb *redis.Client, blobs [][]byte, dim int, threshold float64, typ string, loaders int) {
	rdb.Do(ctx, "SCACHE.DROP", "bench")
	if err := rdb.Do(ctx, "SCACHE.CREATE", "bench", "DIM", dim, "TYPE", typ, "THRESHOLD", threshold).Err(); err != nil {
		fail(err)
	}
	t0 := time.Now()
	const batch = 500
	var next atomic.Int64
	var wg sync.WaitGroup
	for range loaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(batch)) - batch
				if i >= len(blobs) {
					return
				}
				p := rdb.Pipeline()
				for j := i; j < min(i+batch, len(blobs)); j++ {
					p.Do(ctx, "SCACHE.STORE", "bench", "prompt "+strconv.Itoa(j), "response "+strconv.Itoa(j), "FP32", blobs[j],
						"ATTRS", `{"user":`+strconv.Itoa(j%100)+`}`)
				}
				if _, err := p.Exec(ctx); err != nil {
					fail(err)
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	fmt.Printf("loaded %d entries of dim %d (%s) in %.1fs (%.0f stores/s)\n", len(blobs), dim, typ, el.Seconds(), float64(len(blobs))/el.Seconds())
}

// paraphrases makes m queries at cosine distance d from stored vectors
// (spread over the base): v/|v| + e·g, g a random unit vector orthogonal
// to v, e = tan(acos(1-d)).
func paraphrases(base [][]byte, m int, d float64) [][]byte {
	rng := rand.New(rand.NewPCG(7, 11))
	e := math.Tan(math.Acos(1 - d))
	out := make([][]byte, m)
	for i := range out {
		src := base[(i*7919)%len(base)]
		v := make([]float64, len(src)/4)
		var n float64
		for j := range v {
			v[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(src[4*j:])))
			n += v[j] * v[j]
		}
		g := make([]float64, len(v))
		var dot, gn float64
		for j := range v {
			v[j] /= math.Sqrt(n)
			g[j] = rng.NormFloat64()
			dot += g[j] * v[j]
		}
		for j := range g {
			g[j] -= dot * v[j]
			gn += g[j] * g[j]
		}
		b := make([]byte, len(src))
		for j := range v {
			binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(float32(v[j]+e*g[j]/math.Sqrt(gn))))
		}
		out[i] = b
	}
	return out
}

// recallAt1 checks that lookups find the true nearest entry: for the first
// m queries, the entry LOOKUP returns with THRESHOLD 2 (any distance hits)
// against a brute-force cosine scan (entry j has the prompt "prompt j").
func recallAt1(ctx context.Context, rdb *redis.Client, base, queries [][]byte, m int, extra []any) {
	vec := func(b []byte) []float64 {
		v := make([]float64, len(b)/4)
		var n float64
		for i := range v {
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
			n += v[i] * v[i]
		}
		for i := range v {
			v[i] /= math.Sqrt(n)
		}
		return v
	}
	vs := make([][]float64, len(base))
	for i, b := range base {
		vs[i] = vec(b)
	}
	found := 0
	m = min(m, len(queries))
	for _, qb := range queries[:m] {
		q := vec(qb)
		best, bestDot := 0, math.Inf(-1)
		for i, v := range vs {
			var d float64
			for j := range v {
				d += v[j] * q[j]
			}
			if d > bestDot {
				best, bestDot = i, d
			}
		}
		r, err := rdb.Do(ctx, append([]any{"SCACHE.LOOKUP", "bench", "FP32", qb, "THRESHOLD", 2, "NOREFRESH"}, extra...)...).Result()
		if err != nil {
			fail(err)
		}
		var prompt any
		switch v := r.(type) {
		case map[any]any:
			prompt = v["prompt"]
		case []any:
			prompt = v[5]
		}
		if prompt == "prompt "+strconv.Itoa(best) {
			found++
		}
	}
	fmt.Printf("recall@1 against brute force: %.2f (%d queries)\n", float64(found)/float64(m), m)
}

// cpuSeconds is the user+system CPU time of process pid (0: not measured).
func cpuSeconds(pid int) float64 {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		fail(err)
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th of the whole line, in clock ticks (100 per second).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / 100
}

func lookups(ctx context.Context, rdb *redis.Client, queries [][]byte, clients int, dur time.Duration, extra []any, pid int) {
	cpu0 := cpuSeconds(pid)
	var hits, total atomic.Int64
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	stop := time.Now().Add(dur)
	t0 := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; time.Now().Before(stop); i += clients {
				s := time.Now()
				v, err := rdb.Do(ctx, append([]any{"SCACHE.LOOKUP", "bench", "FP32", queries[i%len(queries)]}, extra...)...).Result()
				lat[c] = append(lat[c], time.Since(s))
				if err != nil && err != redis.Nil {
					fail(err)
				}
				if v != nil {
					hits.Add(1)
				}
				total.Add(1)
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	all := slices.Concat(lat...)
	slices.Sort(all)
	q := func(p float64) time.Duration { return all[min(int(p*float64(len(all))), len(all)-1)] }
	perCPU := ""
	if pid != 0 {
		perCPU = fmt.Sprintf(" lookups_per_server_cpu_s=%.0f", float64(total.Load())/(cpuSeconds(pid)-cpu0))
	}
	fmt.Printf("lookup clients=%d qps=%.0f p50=%v p99=%v hit_ratio=%.3f (%d lookups)%s\n", clients,
		float64(total.Load())/el.Seconds(), q(0.5).Round(time.Microsecond), q(0.99).Round(time.Microsecond),
		float64(hits.Load())/float64(total.Load()), total.Load(), perCPU)
}

func big(ctx context.Context, rdb *redis.Client, size, clients, ops int) {
	val := strings.Repeat("x", size)
	run := func(name string, op func(c, i int) error) {
		var wg sync.WaitGroup
		t0 := time.Now()
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range ops {
					if err := op(c, i); err != nil {
						fail(err)
					}
				}
			}()
		}
		wg.Wait()
		el := time.Since(t0)
		total := float64(clients * ops)
		fmt.Printf("%s size=%d clients=%d ops/s=%.0f MB/s=%.0f\n", name, size, clients, total/el.Seconds(), total*float64(size)/el.Seconds()/1e6)
	}
	key := func(c, i int) string { return "big:" + strconv.Itoa(c) + ":" + strconv.Itoa(i%8) }
	run("SET", func(c, i int) error { return rdb.Set(ctx, key(c, i), val, 0).Err() })
	run("GET", func(c, i int) error {
		v, err := rdb.Get(ctx, key(c, i)).Result()
		if err == nil && len(v) != size {
			err = fmt.Errorf("GET returned %d bytes", len(v))
		}
		return err
	})
}
