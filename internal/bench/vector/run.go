package vector

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/bench/dataset"
	"github.com/hotkv/hotkv/internal/bench/groundtruth"
	"github.com/hotkv/hotkv/internal/bench/kv"
	"github.com/hotkv/hotkv/internal/bench/respclient"
)

// Target is an engine on a server.
type Target struct {
	Addr    string
	Engine  Engine
	Index   Index
	Timeout time.Duration
}

// Check dials the server and checks it knows the engine's commands.
func (t Target) Check() error {
	c, err := respclient.Dial(t.Addr, t.Timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	missing, err := c.Supports(t.Engine.Commands()...)
	if err != nil {
		return err
	}
	if missing != "" {
		return fmt.Errorf("server at %s does not support %s", t.Addr, missing)
	}
	return nil
}

// LoadResult is the insertion phase.
type LoadResult struct {
	Vectors         int     `json:"vectors"`
	Seconds         float64 `json:"seconds"`
	PerSec          float64 `json:"vectors_per_sec"`
	Connections     int     `json:"connections"`
	UsedMemory      int64   `json:"used_memory"`
	UsedMemoryHuman string  `json:"used_memory_human,omitempty"`
	RSS             int64   `json:"rss,omitempty"`
}

// Load creates the index and inserts base (ids are positions) over conns
// connections, one request in flight on each.
func Load(t Target, base dataset.Vectors, conns int, progress func(float64)) (LoadResult, error) {
	c, err := respclient.Dial(t.Addr, t.Timeout)
	if err != nil {
		return LoadResult{}, err
	}
	defer c.Close()
	if err := t.Engine.Create(c, t.Index); err != nil {
		return LoadResult{}, fmt.Errorf("creating the index: %v", err)
	}
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		next.Store(int64(base.Len())) // stop the others
	}
	t0 := time.Now()
	for range conns {
		wg.Go(func() {
			c, err := respclient.Dial(t.Addr, t.Timeout)
			if err != nil {
				fail(err)
				return
			}
			defer c.Close()
			var buf []byte
			for {
				id := int(next.Add(1) - 1)
				if id >= base.Len() {
					return
				}
				buf = t.Engine.AppendInsert(buf[:0], t.Index, id, base.At(id))
				if _, err := c.DoBytes(buf); err != nil {
					fail(fmt.Errorf("inserting vector %d: %v", id, err))
					return
				}
				if d := done.Add(1); progress != nil && d%1024 == 0 {
					progress(float64(d) / float64(base.Len()))
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return LoadResult{}, firstErr
	}
	r := LoadResult{Vectors: base.Len(), Seconds: time.Since(t0).Seconds(), Connections: conns}
	r.PerSec = float64(r.Vectors) / r.Seconds
	if info, err := c.Info("memory"); err == nil {
		r.UsedMemory, _ = strconv.ParseInt(info["used_memory"], 10, 64)
		r.UsedMemoryHuman = info["used_memory_human"]
	}
	return r, nil
}

// CheckExisting verifies that an index loaded earlier matches the data.
func CheckExisting(t Target, base dataset.Vectors) error {
	c, err := respclient.Dial(t.Addr, t.Timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	size, dim, err := t.Engine.Describe(c, t.Index)
	if err != nil {
		return err
	}
	if size == 0 {
		return fmt.Errorf("no index %q at %s to reuse (drop --skip-load)", t.Index.Name, t.Addr)
	}
	if dim != base.Dim {
		return fmt.Errorf("dimension mismatch: index %q at %s has %d dimensions, the data set %d", t.Index.Name, t.Addr, dim, base.Dim)
	}
	if size != base.Len() {
		return fmt.Errorf("index %q at %s holds %d vectors, --base is %d", t.Index.Name, t.Addr, size, base.Len())
	}
	return nil
}

// RecallPoint is recall@k at one search depth.
type RecallPoint struct {
	EF     int     `json:"ef"`
	Recall float64 `json:"recall"`
}

// Recall measures recall@k per ef over one connection.
func Recall(t Target, queries dataset.Vectors, truth [][]int32, k int, efs []int, progress func(float64)) ([]RecallPoint, error) {
	c, err := respclient.Dial(t.Addr, t.Timeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var out []RecallPoint
	var buf []byte
	for ei, ef := range efs {
		got := make([][]int32, queries.Len())
		for i := range got {
			buf = t.Engine.AppendSearch(buf[:0], t.Index, queries.At(i), k, ef)
			reply, err := c.DoBytes(buf)
			if err != nil {
				return nil, fmt.Errorf("search: %v", err)
			}
			if got[i], err = t.Engine.IDs(reply); err != nil {
				return nil, err
			}
			if progress != nil && i%64 == 0 {
				progress((float64(ei) + float64(i)/float64(len(got))) / float64(len(efs)))
			}
		}
		out = append(out, RecallPoint{ef, groundtruth.Recall(truth, got, k)})
	}
	return out, nil
}

// GridPoint is the QPS and latency at one ef and client count.
type GridPoint struct {
	EF      int         `json:"ef"`
	Clients int         `json:"clients"`
	Runs    []kv.Result `json:"runs"`
	Median  kv.Result   `json:"median"`
}

// GridOptions say how each grid point is measured.
type GridOptions struct {
	K        int
	EFs      []int
	Clients  []int
	Warmup   time.Duration
	Duration time.Duration
	Runs     int
	// ServerCPU returns the server's CPU seconds, or nil when not local.
	ServerCPU func() float64
	Progress  func(done float64, what string)
}

// Grid measures every ef x clients point: requests are encoded before
// timing, each client keeps one request in flight, and each point is
// run o.Runs times after a warm-up, the median kept.
func Grid(t Target, queries dataset.Vectors, o GridOptions) ([]GridPoint, error) {
	var out []GridPoint
	total := len(o.EFs) * len(o.Clients) * o.Runs
	step := 0
	for _, ef := range o.EFs {
		reqs := make([][]byte, queries.Len())
		for i := range reqs {
			reqs[i] = t.Engine.AppendSearch(nil, t.Index, queries.At(i), o.K, ef)
		}
		ring := kv.NewRing(reqs, 1)
		for _, clients := range o.Clients {
			p := GridPoint{EF: ef, Clients: clients}
			for range o.Runs {
				if o.Progress != nil {
					o.Progress(float64(step)/float64(total), fmt.Sprintf("ef %d, %d clients", ef, clients))
				}
				step++
				r, err := kv.Run(ring, kv.Options{Addr: t.Addr, Connections: clients, Pipeline: 1,
					Warmup: o.Warmup, Duration: o.Duration, DialTimeout: t.Timeout, ServerCPU: o.ServerCPU})
				if err != nil {
					return out, err
				}
				if r.Errors > 0 {
					return out, errors.New("search: " + r.FirstError)
				}
				p.Runs = append(p.Runs, r)
			}
			p.Median = kv.Median(p.Runs)
			out = append(out, p)
		}
	}
	return out, nil
}
