package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/bench/report"
)

// TestBenchmarksPageUpToDate regenerates docs/benchmarks.md from the JSON
// files its own regenerate command names, and fails if the page differs:
// edited by hand, or not regenerated after its JSON changed.
func TestBenchmarksPageUpToDate(t *testing.T) {
	t.Chdir("../..")
	const page = "docs/benchmarks.md"
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "go run ./cmd/hotkv-bench summary "); ok {
			args = strings.Fields(rest)
			break
		}
	}
	if len(args) < 3 || args[0] != "-o" || args[1] != page {
		t.Fatalf("%s does not name its inputs in a line \"go run ./cmd/hotkv-bench summary -o %s FILE.json...\"", page, page)
	}
	p, err := summaryPage(page, args[2:])
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	report.Summary(&want, p)
	if !bytes.Equal(b, want.Bytes()) {
		t.Errorf("%s is out of date with its JSON; regenerate it from the repository root with\n\tgo run ./cmd/hotkv-bench summary -o %s %s",
			page, page, strings.Join(args[2:], " "))
	}
	for _, in := range p.Inputs {
		for _, f := range []string{in.Path, in.Full} {
			if _, err := os.Stat(f); f != "" && err != nil {
				t.Errorf("the page links %s: %v", f, err)
			}
		}
	}
}

func TestSummaryCommand(t *testing.T) {
	dir := t.TempDir()
	run := dir + "/run"
	if err := quiet(t, func() error {
		return runKV([]string{"--null-server", "--commands", "ping", "--connections", "1", "--requests", "50",
			"--warmup", "0", "--runs", "1", "--commit", "abc1234", "--label", "null", "--out", run})
	}); err != nil {
		t.Fatal(err)
	}
	out := dir + "/page.md"
	if err := runSummary([]string{"-o", out, run + ".json"}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(out)
	for _, want := range []string{"## Key-value: null\n", "HotKV `abc1234`", "| PING |", "full report: [run.md](run.md)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("want %q in\n%s", want, md)
		}
	}
}
