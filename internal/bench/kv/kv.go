// Package kv is the key-value load generator: commands with random keys
// are encoded once into a ring of requests, and each connection writes
// pipelined batches straight from the ring and skips the replies, so the
// measuring loop does not allocate.
package kv

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hotkv/hotkv/internal/bench/respclient"
	"github.com/hotkv/hotkv/internal/bench/sysinfo"
	"github.com/hotkv/hotkv/internal/resp"
)

// Workload is a named command line; "__rand_int__" becomes a random
// 12-digit number below the key space (a fresh one per occurrence) and
// "__data__" the value, as in redis-benchmark.
type Workload struct {
	Name string
	Line string
}

// Standard is the published table's twelve commands, with the keys
// redis-benchmark uses, so results compare with its figures.
var Standard = []Workload{
	{"SET", "SET key:__rand_int__ __data__"},
	{"GET", "GET key:__rand_int__"},
	{"MGET", "MGET" + strings.Repeat(" key:__rand_int__", 10)},
	{"SETNX", "SETNX key:__rand_int__ __data__"},
	{"APPEND", "APPEND key:__rand_int__ __data__"},
	{"INCR", "INCR counter:__rand_int__"},
	{"LPUSH", "LPUSH mylist __data__"},
	{"RPUSH", "RPUSH mylist __data__"},
	{"SADD", "SADD myset element:__rand_int__"},
	{"HSET", "HSET myhash element:__rand_int__ __data__"},
	{"MSET", "MSET" + strings.Repeat(" key:__rand_int__ __data__", 10)},
	{"PING", "PING"},
}

// Lookup returns the standard workload named (any case) or, for a
// command line with spaces, a custom one named after its first word.
func Lookup(s string) (Workload, error) {
	for _, w := range Standard {
		if strings.EqualFold(w.Name, s) {
			return w, nil
		}
	}
	if strings.Contains(strings.TrimSpace(s), " ") {
		f := strings.Fields(s)
		return Workload{Name: strings.ToUpper(f[0]), Line: strings.Join(f, " ")}, nil
	}
	names := make([]string, len(Standard))
	for i, w := range Standard {
		names[i] = w.Name
	}
	return Workload{}, fmt.Errorf("unknown command %q (known: %s; or give a full command line in quotes)", s, strings.Join(names, ", "))
}

// Ring is a workload encoded n times over, followed by its first
// batch-size requests again, so every batch is one contiguous slice.
type Ring struct {
	buf  []byte
	offs []int // offs[i] is where request i starts; offs[n] the end
	n    int
}

// maxRingBytes bounds one ring; with large values it holds fewer requests.
const maxRingBytes = 64 << 20

// Encode builds a ring of up to n requests of w (fewer if they would not
// fit in 64 MiB) that can serve batches of up to pipeline requests.
func Encode(w Workload, keyspace, valueSize, n, pipeline int, seed uint64) *Ring {
	words := strings.Fields(w.Line)
	if !strings.Contains(w.Line, "__rand_int__") {
		n = 1 // identical requests: one copy is enough
	}
	value := bytes.Repeat([]byte{'x'}, valueSize)
	r := rand.New(rand.NewPCG(seed, uint64(keyspace)))
	args := make([][]byte, len(words))
	var reqs [][]byte
	size := 0
	for len(reqs) < n && size < maxRingBytes {
		for i, word := range words {
			switch {
			case word == "__data__":
				args[i] = value
			case strings.Contains(word, "__rand_int__"):
				num := fmt.Sprintf("%012d", r.IntN(max(keyspace, 1)))
				args[i] = []byte(strings.ReplaceAll(word, "__rand_int__", num))
			default:
				args[i] = []byte(word)
			}
		}
		req := resp.AppendCommand(nil, args...)
		size += len(req)
		reqs = append(reqs, req)
	}
	return NewRing(reqs, pipeline)
}

// NewRing lays out requests (at least one) for batches of up to pipeline
// requests: the head is repeated after the end so that a batch starting
// anywhere in the ring is one contiguous slice.
func NewRing(reqs [][]byte, pipeline int) *Ring {
	ring := &Ring{n: len(reqs)}
	for i := range len(reqs) + pipeline {
		ring.offs = append(ring.offs, len(ring.buf))
		ring.buf = append(ring.buf, reqs[i%len(reqs)]...)
	}
	ring.offs = append(ring.offs, len(ring.buf))
	return ring
}

// Len is the number of distinct requests in the ring.
func (r *Ring) Len() int { return r.n }

// batch returns requests i..i+p (i < Len) as one slice.
func (r *Ring) batch(i, p int) []byte { return r.buf[r.offs[i]:r.offs[i+p]] }

// Options are the settings of one measured run.
type Options struct {
	Addr        string
	Connections int
	Pipeline    int
	Warmup      time.Duration
	Duration    time.Duration // counted window (ignored when Requests > 0)
	Requests    int64         // counted requests in total, instead of Duration
	DialTimeout time.Duration
	ServerCPU   func() float64 // server process CPU seconds, or nil
	Progress    func(done float64)
}

// Result is one measured run.
type Result struct {
	Ops         int64   `json:"ops"`
	Seconds     float64 `json:"seconds"`
	OpsPerSec   float64 `json:"ops_per_sec"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	P999us      float64 `json:"p999_us"`
	MaxUs       float64 `json:"max_us"`
	Errors      int64   `json:"errors"`
	FirstError  string  `json:"first_error,omitempty"`
	ClientCores float64 `json:"client_cores"`           // CPU used by the load generator, in cores
	ClientBound bool    `json:"client_bound,omitempty"` // the generator used > 85% of the cores it may use
	ServerCores float64 `json:"server_cores,omitempty"` // CPU used by a local server, in cores
	ServerUsOp  float64 `json:"server_us_per_op,omitempty"`
}

// ClientBoundAt is the share of its usable cores above which the load
// generator, not the server, is taken to be the limit.
const ClientBoundAt = 0.85

type worker struct {
	c          *respclient.Conn
	hist       *hdrhistogram.Histogram
	ops        int64
	errs       int64
	firstError string
	err        error
}

// Run dials the connections, runs ring against opts.Addr and returns the
// counted window's figures.
func Run(ring *Ring, opts Options) (Result, error) {
	if opts.Connections < 1 || opts.Pipeline < 1 {
		return Result{}, errors.New("connections and pipeline must be at least 1")
	}
	ws := make([]*worker, opts.Connections)
	defer func() {
		for _, w := range ws {
			if w != nil && w.c != nil {
				w.c.Close()
			}
		}
	}()
	for i := range ws {
		c, err := respclient.Dial(opts.Addr, opts.DialTimeout)
		if err != nil {
			return Result{}, err
		}
		ws[i] = &worker{c: c, hist: hdrhistogram.New(1, int64(100*time.Second), 3)}
	}
	var counting, stop atomic.Bool
	quota := int64(-1)
	if opts.Requests > 0 {
		quota = (opts.Requests + int64(opts.Connections*opts.Pipeline) - 1) / int64(opts.Connections*opts.Pipeline)
	}
	var wg sync.WaitGroup
	for i, w := range ws {
		start := (i * 7919) % ring.Len() // spread the connections over the ring
		wg.Go(func() { w.loop(ring, start, opts.Pipeline, quota, &counting, &stop) })
	}
	sleep(opts.Warmup, &stop)
	cpu0, srv0 := sysinfo.SelfCPU(), serverCPU(opts.ServerCPU)
	t0 := time.Now()
	counting.Store(true)
	if opts.Requests > 0 {
		waitTicks(&wg, opts.Progress, func() float64 {
			var n int64
			for _, w := range ws {
				n += atomic.LoadInt64(&w.ops)
			}
			return float64(n) / float64(opts.Requests)
		})
	} else {
		end := t0.Add(opts.Duration)
		for now := time.Now(); now.Before(end) && !stop.Load(); now = time.Now() {
			time.Sleep(min(end.Sub(now), 200*time.Millisecond))
			if opts.Progress != nil {
				opts.Progress(float64(time.Since(t0)) / float64(opts.Duration))
			}
		}
	}
	counting.Store(false)
	t1 := time.Now()
	cpu1, srv1 := sysinfo.SelfCPU(), serverCPU(opts.ServerCPU)
	stop.Store(true)
	for _, w := range ws {
		w.c.SetDeadline(time.Now().Add(opts.DialTimeout)) // unblock readers of a stalled server
	}
	wg.Wait()
	for _, w := range ws {
		if w.err != nil && !errors.Is(w.err, errStopped) {
			return Result{}, w.err
		}
	}
	res := Result{Seconds: t1.Sub(t0).Seconds()}
	h := hdrhistogram.New(1, int64(100*time.Second), 3)
	for _, w := range ws {
		res.Ops += w.ops
		res.Errors += w.errs
		if res.FirstError == "" {
			res.FirstError = w.firstError
		}
		h.Merge(w.hist)
	}
	res.OpsPerSec = float64(res.Ops) / res.Seconds
	us := func(q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1e3 }
	res.P50us, res.P99us, res.P999us, res.MaxUs = us(50), us(99), us(99.9), float64(h.Max())/1e3
	res.ClientCores = (cpu1 - cpu0) / res.Seconds
	res.ClientBound = res.ClientCores > ClientBoundAt*float64(sysinfo.UsableCores())
	if srv0 >= 0 && srv1 >= 0 {
		res.ServerCores = (srv1 - srv0) / res.Seconds
		if res.Ops > 0 {
			res.ServerUsOp = (srv1 - srv0) * 1e6 / float64(res.Ops)
		}
	}
	return res, nil
}

func serverCPU(f func() float64) float64 {
	if f == nil {
		return -1
	}
	return f()
}

// sleep waits d, or less if stop is set.
func sleep(d time.Duration, stop *atomic.Bool) {
	end := time.Now().Add(d)
	for now := time.Now(); now.Before(end) && !stop.Load(); now = time.Now() {
		time.Sleep(min(end.Sub(now), 50*time.Millisecond))
	}
}

func waitTicks(wg *sync.WaitGroup, progress func(float64), done func() float64) {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ch:
			return
		case <-t.C:
			if progress != nil {
				progress(done())
			}
		}
	}
}

var errStopped = errors.New("stopped")

func (w *worker) loop(ring *Ring, i, p int, quota int64, counting, stop *atomic.Bool) {
	var batches int64
	for !stop.Load() {
		t := time.Now()
		if _, err := w.c.Write(ring.batch(i, p)); err != nil {
			w.fail(err, stop)
			return
		}
		count := counting.Load()
		for range p {
			e, err := w.c.R.Skip()
			if err != nil {
				w.fail(err, stop)
				return
			}
			if e != nil {
				w.errs++
				if w.firstError == "" {
					w.firstError = string(e)
				}
			}
			if count {
				w.hist.RecordValue(int64(w.c.R.LastRead().Sub(t)))
			}
		}
		if count {
			atomic.AddInt64(&w.ops, int64(p))
			batches++
			if batches == quota {
				return
			}
		}
		i = (i + p) % ring.Len()
	}
}

func (w *worker) fail(err error, stop *atomic.Bool) {
	if stop.Load() {
		w.err = errStopped
		return
	}
	w.err = fmt.Errorf("%s: %v", w.c.Addr, err)
	stop.Store(true)
}

// Median returns the run whose ops/s is the median, with latency and CPU
// figures replaced by their medians over the runs.
func Median(runs []Result) Result {
	if len(runs) == 0 {
		return Result{}
	}
	med := func(get func(Result) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = get(r)
		}
		sort.Float64s(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	sorted := append([]Result(nil), runs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].OpsPerSec < sorted[j].OpsPerSec })
	m := sorted[(len(sorted)-1)/2]
	m.OpsPerSec = med(func(r Result) float64 { return r.OpsPerSec })
	m.P50us = med(func(r Result) float64 { return r.P50us })
	m.P99us = med(func(r Result) float64 { return r.P99us })
	m.P999us = med(func(r Result) float64 { return r.P999us })
	m.ClientCores = med(func(r Result) float64 { return r.ClientCores })
	m.ServerCores = med(func(r Result) float64 { return r.ServerCores })
	m.ServerUsOp = med(func(r Result) float64 { return r.ServerUsOp })
	m.ClientBound = false
	for _, r := range runs {
		m.ClientBound = m.ClientBound || r.ClientBound
	}
	return m
}
