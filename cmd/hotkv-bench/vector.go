package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/bench/dataset"
	"github.com/hotkv/hotkv/internal/bench/groundtruth"
	"github.com/hotkv/hotkv/internal/bench/progress"
	"github.com/hotkv/hotkv/internal/bench/report"
	"github.com/hotkv/hotkv/internal/bench/target"
	"github.com/hotkv/hotkv/internal/bench/vector"
)

func runVector(args []string) error {
	fs := flag.NewFlagSet("vector", flag.ContinueOnError)
	var (
		servers   listFlag
		o         outputFlags
		data      = fs.String("data", "", "data set: .fvecs, .npy, .parquet, wink-embeddings .tgz/.json, uniform:DIM or clustered:DIM")
		queryData = fs.String("query-data", "", "read the queries from this file (its first --queries vectors) instead of the end of --data")
		column    = fs.String("column", "", "Parquet list column holding the vectors (default: the first list column)")
		base      = fs.Int("base", 0, "base vectors: the first N (0 = all but the queries; synthetic data needs it)")
		nq        = fs.Int("queries", 1000, "queries, taken from the end of the data, never overlapping the base")
		k         = fs.Int("k", 10, "neighbours per query (recall@k)")
		metricS   = fs.String("metric", "cosine", "cosine, l2 or ip")
		m         = fs.Int("m", 16, "HNSW M")
		efc       = fs.Int("ef-construction", 200, "HNSW ef_construction")
		efsS      = fs.String("ef", "40,80,150,300,500", "search depths")
		clientsS  = fs.String("clients", "1,2,4,8,16,32,50,100", "client counts (one connection each, one request in flight)")
		warmup    = fs.Duration("warmup", time.Second, "warm-up before each counted window")
		duration  = fs.Duration("duration", 4*time.Second, "counted window per run")
		runs      = fs.Int("runs", 3, "runs per grid point; the median is reported")
		loadConns = fs.Int("load-connections", 32, "connections inserting the base")
		skipLoad  = fs.Bool("skip-load", false, "reuse the index loaded by an earlier run")
		index     = fs.String("index", "hotkv-bench", "index (or key) name")
		seed      = fs.Uint64("seed", 1, "seed for synthetic data")
		gtPath    = fs.String("ground-truth", "", "ground-truth cache file (default: next to the data set)")
		timeout   = fs.Duration("timeout", 10*time.Second, "connect and stall timeout")
	)
	fs.Var(&servers, "server", "ENGINE=HOST:PORT or NAME/ENGINE=HOST:PORT, ENGINE one of "+strings.Join(vector.Names(), ", ")+" (repeatable)")
	o.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *data == "" || len(servers) == 0 {
		return fmt.Errorf("vector needs --data and at least one --server (see hotkv-bench vector -h)")
	}
	metric, err := groundtruth.ParseMetric(*metricS)
	if err != nil {
		return err
	}
	efs, err := parseInts("ef", *efsS)
	if err != nil {
		return err
	}
	clients, err := parseInts("clients", *clientsS)
	if err != nil {
		return err
	}
	if *nq < 1 || *k < 1 || *runs < 1 || *loadConns < 1 {
		return fmt.Errorf("--queries, --k, --runs and --load-connections must be at least 1")
	}

	// Servers first: a typo in an address should not cost a data set load.
	type engineTarget struct {
		res *report.EngineResult
		t   vector.Target
		srv *target.Server
	}
	var ets []engineTarget
	for _, spec := range servers {
		name, addr, ok := strings.Cut(spec, "=")
		if !ok {
			return fmt.Errorf("--server %q: want ENGINE=HOST:PORT", spec)
		}
		label, engName := name, name
		if l, e, ok := strings.Cut(name, "/"); ok {
			label, engName = l, e
		}
		eng, err := vector.Lookup(engName)
		if err != nil {
			return err
		}
		srv, err := target.Probe(label, addr, *timeout)
		if err != nil {
			return err
		}
		srv.Engine = engName
		t := vector.Target{Addr: addr, Engine: eng, Timeout: *timeout,
			Index: vector.Index{Name: *index, Metric: metric, M: *m, EFConstruction: *efc}}
		if err := t.Check(); err != nil {
			return fmt.Errorf("%s (engine %s): %v", label, engName, err)
		}
		ets = append(ets, engineTarget{&report.EngineResult{Name: label, Engine: engName, Server: srv}, t, srv})
	}

	t0 := time.Now()
	count := 0
	if *base > 0 {
		count = *base + *nq
		if *queryData != "" {
			count = *base
		}
	}
	all, err := dataset.Load(*data, dataset.Options{Column: *column, Seed: *seed, Count: count})
	if err != nil {
		return err
	}
	var baseV, queries dataset.Vectors
	if *queryData != "" {
		q, err := dataset.Load(*queryData, dataset.Options{Column: *column})
		if err != nil {
			return err
		}
		if q.Dim != all.Dim {
			return fmt.Errorf("dimension mismatch: %s has %d dimensions, %s %d", *queryData, q.Dim, *data, all.Dim)
		}
		queries = q.Slice(0, min(*nq, q.Len()))
		baseV = all
		if *base > 0 {
			baseV = all.Slice(0, min(*base, all.Len()))
		}
	} else {
		if all.Len() <= *nq {
			return fmt.Errorf("%s holds %d vectors, not more than --queries %d", *data, all.Len(), *nq)
		}
		queries = all.Slice(all.Len()-*nq, all.Len())
		n := all.Len() - *nq
		if *base > 0 {
			n = min(*base, n)
		}
		baseV = all.Slice(0, n)
	}
	logf("data: %d base vectors, %d queries, dim %d (read in %v)", baseV.Len(), queries.Len(), baseV.Dim, time.Since(t0).Round(time.Millisecond))

	if *gtPath == "" {
		file := *data
		if strings.HasPrefix(*data, "uniform:") || strings.HasPrefix(*data, "clustered:") {
			file = ""
		}
		*gtPath = groundtruth.CachePath(file, dataKey(*data), *queryData, *column, *seed, baseV.Len(), baseV.Dim, queries.Len(), *k, metric)
	}
	t0 = time.Now()
	line := progress.Start("ground truth")
	truth, cached := groundtruth.Load(*gtPath, metric, baseV, queries, *k, line.Fraction)
	line.Done()
	gtSecs := time.Since(t0).Seconds()
	if cached {
		logf("ground truth: cached in %s", *gtPath)
		gtSecs = 0
	} else {
		logf("ground truth: computed in %.1f s, cached in %s", gtSecs, *gtPath)
	}

	r := newReport(&o)
	r.Vector = &report.Vector{
		Dataset: report.Dataset{Source: *data, QuerySource: *queryData, Dim: baseV.Dim, Base: baseV.Len(), Queries: queries.Len(),
			K: *k, Metric: string(metric), GroundTruth: *gtPath, GTSeconds: gtSecs},
		Settings: report.VectorSettings{M: *m, EFConstruction: *efc, EFs: efs, Clients: clients, Warmup: seconds(*warmup),
			Duration: seconds(*duration), Runs: *runs, LoadConnections: *loadConns, SkipLoad: *skipLoad},
	}
	for _, et := range ets {
		et.t.Index.Dim = baseV.Dim
		name := et.res.Name
		if *skipLoad {
			if err := vector.CheckExisting(et.t, baseV); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
		} else {
			line := progress.Start("load " + name)
			l, err := vector.Load(et.t, baseV, *loadConns, line.Fraction)
			line.Done()
			if err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			l.RSS = et.srv.RSS()
			et.res.Load = &l
			logf("%s: loaded %d vectors in %.1f s (%.0f/s), used_memory %s", name, l.Vectors, l.Seconds, l.PerSec, l.UsedMemoryHuman)
		}
		line := progress.Start("recall " + name)
		rec, err := vector.Recall(et.t, queries, truth, *k, efs, line.Fraction)
		line.Done()
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		et.res.Recall = rec
		for _, p := range rec {
			logf("%s: ef %d recall@%d %.4f", name, p.EF, *k, p.Recall)
		}
		line = progress.Start("QPS " + name)
		grid, err := vector.Grid(et.t, queries, vector.GridOptions{K: *k, EFs: efs, Clients: clients, Warmup: *warmup,
			Duration: *duration, Runs: *runs, ServerCPU: serverCPU(et.srv), Progress: line.Set})
		line.Done()
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		et.res.Grid = grid
		r.Vector.Engines = append(r.Vector.Engines, et.res)
	}
	return emit(r, &o)
}

// dataKey identifies a data set file by path, size and modification time
// (a synthetic source by its name), for the ground-truth cache.
func dataKey(source string) string {
	if st, err := os.Stat(source); err == nil {
		return fmt.Sprintf("%s|%d|%d", source, st.Size(), st.ModTime().UnixNano())
	}
	return source
}
