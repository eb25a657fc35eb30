package main

import (
	"os"
	"strings"
	"testing"
)

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
