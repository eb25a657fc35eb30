package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hotkv/hotkv/internal/bench/report"
)

// The documents docs/benchmarks.md points to, from the repository root.
var (
	summaryMethod = []report.Link{
		{Text: "hotkv-bench", Path: "docs/hotkv-bench.md"},
		{Text: "scripts/bench-peers.sh (valkey-benchmark)", Path: "scripts/bench-peers.sh"},
	}
	summaryMore = []report.Link{
		{Text: "the benchmark log until 2026-12-01", Path: "docs/bench/history-2026-12-01.md"},
		{Text: "docs/bench/", Path: "docs/bench"},
	}
)

// summaryPage reads the JSON reports (paths from the repository root, which
// must be the working directory) into the page written to out.
func summaryPage(out string, files []string) (report.Page, error) {
	p := report.Page{Path: out, Method: summaryMethod, More: summaryMore,
		Command: "go run ./cmd/hotkv-bench summary -o " + out + " " + strings.Join(files, " ")}
	for _, f := range files {
		r, err := report.Read(f)
		if err != nil {
			return p, err
		}
		in := report.Input{Path: f, Full: r.Source, Report: r}
		if md := strings.TrimSuffix(f, ".json") + ".md"; in.Full == "" && md != f {
			if _, err := os.Stat(md); err == nil {
				in.Full = md
			}
		}
		p.Inputs = append(p.Inputs, in)
	}
	return p, nil
}

func runSummary(args []string) error {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	out := fs.String("o", "docs/benchmarks.md", "the page to write, from the repository root (the working directory)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: hotkv-bench summary [-o docs/benchmarks.md] RUN.json...  (run from the repository root)")
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	files := make([]string, fs.NArg())
	for i, f := range fs.Args() {
		files[i] = filepath.ToSlash(filepath.Clean(f))
	}
	p, err := summaryPage(filepath.ToSlash(filepath.Clean(*out)), files)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	report.Summary(&b, p)
	return os.WriteFile(*out, b.Bytes(), 0o644)
}
