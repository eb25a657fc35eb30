package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hotkv/hotkv/internal/bench/chart"
	"github.com/hotkv/hotkv/internal/bench/report"
	"github.com/hotkv/hotkv/internal/bench/sysinfo"
)

// outputFlags say where results go.
type outputFlags struct {
	out    string
	charts string
	notes  listFlag
	commit string
	label  string
}

func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "out", "", "write PREFIX.json, PREFIX.md and charts PREFIX-*.png/.svg")
	fs.StringVar(&o.charts, "charts", "", "put the charts in this directory instead (linked relative to the Markdown)")
	fs.Var(&o.notes, "note", "a line for the report, e.g. \"server pinned to core 0 with taskset\" (repeatable)")
	fs.StringVar(&o.commit, "commit", "", "the HotKV commit measured, for the summary page")
	fs.StringVar(&o.label, "label", "", "what the run compares, e.g. \"pinned\", for the summary page")
}

func newReport(o *outputFlags) *report.Report {
	return &report.Report{Tool: "hotkv-bench", Created: time.Now().UTC(), CommandLine: commandLine(),
		Machine: sysinfo.Describe(), Notes: o.notes, Commit: o.commit, Label: o.label}
}

// emit writes the JSON, the charts and the Markdown (also to stdout).
func emit(r *report.Report, o *outputFlags) error {
	var charts []report.Chart
	if o.out != "" {
		if dir := filepath.Dir(o.out); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := r.Write(o.out + ".json"); err != nil {
			return err
		}
		cdir, prefix := filepath.Dir(o.out), filepath.Base(o.out)
		if o.charts != "" {
			cdir = o.charts
			if err := os.MkdirAll(cdir, 0o755); err != nil {
				return err
			}
		}
		var written []chart.Written
		if r.KV != nil {
			w, err := chart.KV(r.KV, cdir, prefix)
			if err != nil {
				return err
			}
			written = append(written, w...)
		}
		if r.Vector != nil {
			w, err := chart.Vector(r.Vector, cdir, prefix)
			if err != nil {
				return err
			}
			written = append(written, w...)
		}
		for _, w := range written {
			rel, err := filepath.Rel(filepath.Dir(o.out), w.Base+".svg")
			if err != nil {
				rel = w.Base + ".svg"
			}
			charts = append(charts, report.Chart{Title: w.Title, File: rel})
		}
	}
	var md bytes.Buffer
	report.Markdown(&md, r, charts)
	os.Stdout.Write(md.Bytes())
	if o.out != "" {
		if err := os.WriteFile(o.out+".md", md.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s.json, %s.md and %d charts\n", o.out, o.out, 2*len(charts))
	}
	return nil
}

func runReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var o outputFlags
	o.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: hotkv-bench report RUN.json [--out PREFIX] [--charts DIR]")
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	r, err := report.Read(fs.Arg(0))
	if err != nil {
		return err
	}
	r.Notes = append(r.Notes, o.notes...)
	if o.commit != "" {
		r.Commit = o.commit
	}
	if o.label != "" {
		r.Label = o.label
	}
	return emit(r, &o)
}

func runCompare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(os.Stderr, "usage: hotkv-bench compare A.json B.json  (prints B/A)") }
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	a, err := report.Read(fs.Arg(0))
	if err != nil {
		return err
	}
	b, err := report.Read(fs.Arg(1))
	if err != nil {
		return err
	}
	return report.Compare(os.Stdout, a, b, fs.Arg(0), fs.Arg(1))
}
