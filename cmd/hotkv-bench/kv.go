package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/internal/bench/kv"
	"github.com/hotkv/hotkv/internal/bench/nullserver"
	"github.com/hotkv/hotkv/internal/bench/progress"
	"github.com/hotkv/hotkv/internal/bench/report"
	"github.com/hotkv/hotkv/internal/bench/respclient"
	"github.com/hotkv/hotkv/internal/bench/sysinfo"
	"github.com/hotkv/hotkv/internal/bench/target"
)

func runKV(args []string) error {
	fs := flag.NewFlagSet("kv", flag.ContinueOnError)
	var (
		servers     listFlag
		custom      listFlag
		o           outputFlags
		null        = fs.Bool("null-server", false, "also measure an in-process server that answers +OK to everything (the load generator's ceiling)")
		commands    = fs.String("commands", "set,get,mget,setnx,append,incr,lpush,rpush,sadd,hset,mset,ping", "commands to run, in order")
		connections = fs.Int("connections", 50, "connections (one goroutine each)")
		pipelines   = fs.String("pipeline", "1", "pipeline depths, e.g. 1,16")
		keyspace    = fs.Int("keyspace", 100000, "random keys are drawn from this many")
		valueSize   = fs.Int("value-size", 3, "value size in bytes")
		duration    = fs.Duration("duration", 2*time.Second, "counted window per run")
		requests    = fs.Int64("requests", 0, "count this many requests per run instead of a duration")
		warmup      = fs.Duration("warmup", 500*time.Millisecond, "warm-up before each counted window")
		runs        = fs.Int("runs", 3, "runs per point; the median is reported")
		threads     = fs.Int("threads", 0, "OS threads for the load generator (GOMAXPROCS; 0 = all usable cores)")
		timeout     = fs.Duration("timeout", 5*time.Second, "connect and stall timeout")
		skip        = fs.Bool("skip-unsupported", false, "report commands a server does not know as n/a instead of stopping")
	)
	fs.Var(&servers, "server", "server as NAME=HOST:PORT or HOST:PORT (repeatable)")
	fs.Var(&custom, "command", "a custom command line, e.g. \"LPUSH list:__rand_int__ __data__\" (repeatable)")
	o.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	pls, err := parseInts("pipeline", *pipelines)
	if err != nil {
		return err
	}
	if *connections < 1 || *runs < 1 || *keyspace < 1 || *valueSize < 0 {
		return fmt.Errorf("--connections, --runs and --keyspace must be at least 1")
	}
	if *threads > 0 {
		runtime.GOMAXPROCS(*threads)
	}
	var work []kv.Workload
	for _, c := range strings.Split(*commands, ",") {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		w, err := kv.Lookup(c)
		if err != nil {
			return err
		}
		work = append(work, w)
	}
	for _, c := range custom {
		w, err := kv.Lookup(c)
		if err != nil {
			return err
		}
		work = append(work, w)
	}
	if len(work) == 0 {
		return fmt.Errorf("no commands to run")
	}

	if *null {
		ns, err := nullserver.Listen("127.0.0.1:0")
		if err != nil {
			return err
		}
		defer ns.Close()
		servers = append(servers, "null="+ns.Addr())
	}
	if len(servers) == 0 {
		servers = append(servers, "127.0.0.1:6379")
	}
	var targets []*target.Server
	for _, spec := range servers {
		name, addr := target.Parse(spec)
		t, err := target.Probe(name, addr, *timeout)
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}

	r := newReport(&o)
	r.KV = &report.KV{Servers: targets, Settings: report.KVSettings{
		Connections: *connections, Pipelines: pls, KeySpace: *keyspace, ValueSize: *valueSize,
		Warmup: seconds(*warmup), Duration: seconds(*duration), Requests: *requests, Runs: *runs,
		Threads: runtime.GOMAXPROCS(0)}}
	if *requests > 0 {
		r.KV.Settings.Duration = 0
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	total := len(targets) * len(work) * len(pls) * *runs
	line := progress.Start("kv")
	step := 0
	for _, t := range targets {
		unsupported, err := unsupportedCommands(t, work, *timeout)
		if err != nil {
			return err
		}
		for _, w := range work {
			if unsupported[w.Name] {
				if !*skip {
					line.Done()
					return fmt.Errorf("server %s at %s does not support %s (use --skip-unsupported to go on without it)", t.Name, t.Addr, w.Name)
				}
				r.Notes = append(r.Notes, fmt.Sprintf("%s does not support %s: not measured", t.Name, w.Name))
				continue
			}
			for _, pl := range pls {
				ring := kv.Encode(w, *keyspace, *valueSize, 1<<16, pl, 1)
				pt := report.KVPoint{Server: t.Name, Command: w.Name, Line: w.Line, Pipeline: pl}
				for range *runs {
					select {
					case <-stop:
						line.Done()
						return fmt.Errorf("interrupted")
					default:
					}
					detail := fmt.Sprintf("%s %s pipeline %d", t.Name, w.Name, pl)
					res, err := kv.Run(ring, kv.Options{Addr: t.Addr, Connections: *connections, Pipeline: pl,
						Warmup: *warmup, Duration: *duration, Requests: *requests, DialTimeout: *timeout,
						ServerCPU: serverCPU(t), Progress: func(f float64) {
							line.Set((float64(step)+min(f, 1))/float64(total), detail)
						}})
					step++
					if err != nil {
						line.Done()
						return fmt.Errorf("%s %s: %v", t.Name, w.Name, err)
					}
					if res.ClientBound {
						line.Done()
						logf("warning: %s: the load generator used %.0f%% of a core (of %d usable): client-bound, the figure is a floor for the server",
							detail, 100*res.ClientCores, sysinfo.UsableCores())
					}
					pt.Runs = append(pt.Runs, res)
				}
				pt.Median = kv.Median(pt.Runs)
				r.KV.Points = append(r.KV.Points, pt)
			}
		}
	}
	line.Done()
	return emit(r, &o)
}

func serverCPU(t *target.Server) func() float64 {
	if t.PID == 0 {
		return nil
	}
	return t.CPU
}

// unsupportedCommands asks the server which of the workloads' commands it
// does not know.
func unsupportedCommands(t *target.Server, work []kv.Workload, timeout time.Duration) (map[string]bool, error) {
	c, err := respclient.Dial(t.Addr, timeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	out := map[string]bool{}
	for _, w := range work {
		name := strings.Fields(w.Line)[0]
		missing, err := c.Supports(name)
		if err != nil {
			return nil, err
		}
		out[w.Name] = missing != ""
	}
	return out, nil
}

func runNullServer(args []string) error {
	fs := flag.NewFlagSet("null-server", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	if err := parse(fs, args); err != nil {
		return err
	}
	s, err := nullserver.Listen(*addr)
	if err != nil {
		return err
	}
	fmt.Println("null server listening on", s.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	return s.Close()
}
