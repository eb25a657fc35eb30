package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/bench/kv"
	"github.com/hotkv/hotkv/internal/bench/report"
	"github.com/hotkv/hotkv/internal/bench/sysinfo"
	"github.com/hotkv/hotkv/internal/bench/target"
)

// peersLabels are the summary page's words for scripts/bench-peers.sh's settings.
var peersLabels = map[string]string{
	"pinned": "pinned (server on core 0, HotKV GOMAXPROCS=1; valkey-benchmark on core 1)",
	"free":   "free (nothing pinned; Valkey --io-threads 2, HotKV on both cores)",
}

// peersCSVHeader is the first line of the per-run CSV bench-peers.sh writes.
const peersCSVHeader = "setting,server,pipeline,command,run,requests,ops_per_sec,server_us_per_op,client_cpu_pct"

// runImportPeers turns one setting of scripts/bench-peers.sh's per-run CSV
// into a JSON report, so its figures reach the summary page like
// hotkv-bench's own.
func runImportPeers(args []string) error {
	fs := flag.NewFlagSet("import-peers", flag.ContinueOnError)
	var o struct {
		out, setting, commit, cmdline, source string
		conns, keys, size, runs, threads      int
		versions, notes                       listFlag
	}
	fs.StringVar(&o.out, "o", "", "the JSON report to write")
	fs.StringVar(&o.setting, "setting", "pinned", "the setting to import: pinned or free")
	fs.StringVar(&o.commit, "commit", "", "the HotKV commit measured")
	fs.StringVar(&o.cmdline, "command-line", "", "the bench-peers.sh command line")
	fs.StringVar(&o.source, "source", "", "bench-peers.sh's Markdown report, from the repository root")
	fs.IntVar(&o.conns, "clients", 50, "valkey-benchmark connections")
	fs.IntVar(&o.keys, "keyspace", 100000, "random key range")
	fs.IntVar(&o.size, "datasize", 3, "value size in bytes")
	fs.IntVar(&o.runs, "runs", 3, "runs per point")
	fs.IntVar(&o.threads, "threads", 1, "valkey-benchmark threads")
	fs.Var(&o.versions, "version", "SOFTWARE=VERSION of a peer, e.g. valkey=8.1.1 (repeatable)")
	fs.Var(&o.notes, "note", "a line for the report, e.g. what hotkv-base is (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: hotkv-bench import-peers -o RUN.json [flags] RAW.csv")
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || o.out == "" {
		fs.Usage()
		return errUsage
	}
	label, ok := peersLabels[o.setting]
	if !ok {
		return fmt.Errorf("-setting %q: want pinned or free", o.setting)
	}
	versions := map[string]string{}
	for _, v := range o.versions {
		sw, ver, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("-version %q: want SOFTWARE=VERSION", v)
		}
		versions[sw] = ver
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	kvr, err := readPeersCSV(f, o.setting)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	if len(kvr.Points) == 0 {
		return fmt.Errorf("%s: no runs for setting %q", fs.Arg(0), o.setting)
	}
	for _, s := range kvr.Servers {
		s.Version = versions[s.Software]
	}
	kvr.Settings = report.KVSettings{Connections: o.conns, KeySpace: o.keys, ValueSize: o.size,
		Runs: o.runs, Threads: o.threads, Pipelines: kvr.Settings.Pipelines}
	r := &report.Report{Tool: "scripts/bench-peers.sh (valkey-benchmark)", Created: time.Now().UTC(),
		CommandLine: o.cmdline, Notes: o.notes, Machine: sysinfo.Describe(), KV: kvr, Commit: o.commit, Label: label, Source: o.source}
	if o.setting == "pinned" {
		r.Machine.Usable = 1 // each side of the run had one core
	}
	return r.Write(o.out)
}

// readPeersCSV gathers one setting's runs into points, in the order the CSV
// first names each server, command and pipeline depth.
func readPeersCSV(in io.Reader, setting string) (*report.KV, error) {
	rd := csv.NewReader(in) // every record as long as the header
	head, err := rd.Read()
	if err != nil {
		return nil, err
	}
	if strings.Join(head, ",") != peersCSVHeader {
		return nil, fmt.Errorf("header %q, want %q", strings.Join(head, ","), peersCSVHeader)
	}
	k := &report.KV{}
	index := map[string]int{}
	for line := 2; ; line++ {
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if rec[0] != setting {
			continue
		}
		var n [5]float64
		for i, col := range []int{2, 5, 6, 7, 8} {
			if n[i], err = strconv.ParseFloat(rec[col], 64); err != nil || n[i] < 0 {
				return nil, fmt.Errorf("line %d: %s %q is not a number", line, strings.Split(peersCSVHeader, ",")[col], rec[col])
			}
		}
		server, cmd, pl := rec[1], strings.ToUpper(rec[3]), int(n[0])
		key := fmt.Sprintf("%s/%s/%d", server, cmd, pl)
		i, ok := index[key]
		if !ok {
			i = len(k.Points)
			index[key] = i
			k.Points = append(k.Points, report.KVPoint{Server: server, Command: cmd, Pipeline: pl})
			if !slices.ContainsFunc(k.Servers, func(s *target.Server) bool { return s.Name == server }) {
				sw, _, _ := strings.Cut(server, "-") // hotkv-base is HotKV too
				k.Servers = append(k.Servers, &target.Server{Name: server, Software: sw})
			}
			if !slices.Contains(k.Settings.Pipelines, pl) {
				k.Settings.Pipelines = append(k.Settings.Pipelines, pl)
			}
		}
		cores := n[4] / 100
		k.Points[i].Runs = append(k.Points[i].Runs, kv.Result{Ops: int64(n[1]), OpsPerSec: n[2], ServerUsOp: n[3],
			ClientCores: cores, ClientBound: cores > kv.ClientBoundAt})
	}
	for i := range k.Points {
		k.Points[i].Median = kv.Median(k.Points[i].Runs)
	}
	// HotKV first: the summary compares the first server with the others.
	// The CSV's own order rotates from run to run.
	order := map[string]int{"hotkv": -1}
	for i, s := range k.Servers {
		if s.Name != "hotkv" {
			order[s.Name] = i
		}
	}
	slices.SortStableFunc(k.Servers, func(a, b *target.Server) int { return order[a.Name] - order[b.Name] })
	slices.SortStableFunc(k.Points, func(a, b report.KVPoint) int { return order[a.Server] - order[b.Server] })
	return k, nil
}
