package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/bench/dataset"
	"github.com/hotkv/hotkv/internal/bench/nullserver"
)

// quiet sends stdout to /dev/null while f runs.
func quiet(t *testing.T, f func() error) error {
	t.Helper()
	null, _ := os.Open(os.DevNull)
	old := os.Stdout
	os.Stdout = null
	defer func() { os.Stdout = old; null.Close() }()
	return f()
}

func TestKVNullServerWritesEverything(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	err := quiet(t, func() error {
		return runKV([]string{"--null-server", "--commands", "set,ping", "--pipeline", "1,4", "--connections", "2",
			"--requests", "200", "--warmup", "0", "--runs", "1", "--out", out})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{".json", ".md", "-ops-p1.png", "-ops-p1.svg", "-ops-p4.png", "-ops-p4.svg"} {
		if st, err := os.Stat(out + suffix); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", suffix, err)
		}
	}
	md, _ := os.ReadFile(out + ".md")
	if !strings.Contains(string(md), "| SET |") || !strings.Contains(string(md), "| null | PING |") {
		t.Errorf("markdown:\n%s", md)
	}
	if err := quiet(t, func() error { return runCompare([]string{out + ".json", out + ".json"}) }); err != nil {
		t.Fatal(err)
	}
}

func TestBadInput(t *testing.T) {
	ns, _ := nullserver.Listen("127.0.0.1:0")
	dead := ns.Addr()
	ns.Close()
	live, _ := nullserver.Listen("127.0.0.1:0")
	defer live.Close()
	dir := t.TempDir()
	fv := filepath.Join(dir, "d.fvecs")
	dataset.WriteFvecs(fv, dataset.Uniform(20, 4, 1))
	q := filepath.Join(dir, "q.fvecs")
	dataset.WriteFvecs(q, dataset.Uniform(5, 3, 1))
	cases := []struct {
		run  func([]string) error
		args []string
		want string
	}{
		{runKV, []string{"--server", dead}, "cannot connect to " + dead},
		{runKV, []string{"--commands", "bogus", "--server", live.Addr()}, "unknown command"},
		{runVector, []string{"--data", fv, "--server", "redis=" + dead}, "cannot connect"},
		{runVector, []string{"--data", fv, "--server", "milvus=" + live.Addr()}, "unknown engine"},
		{runVector, []string{"--data", filepath.Join(dir, "none.npy"), "--server", "redis=" + live.Addr()}, "no such file"},
		{runVector, []string{"--data", fv, "--query-data", q, "--server", "redis=" + live.Addr()}, "dimension mismatch"},
		{runVector, []string{"--data", fv, "--queries", "20", "--server", "redis=" + live.Addr()}, "not more than --queries"},
		{runCompare, []string{fv, fv}, "not a hotkv-bench report"},
	}
	for _, c := range cases {
		err := quiet(t, func() error { return c.run(c.args) })
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line with %q", c.args, err, c.want)
		}
	}
}
