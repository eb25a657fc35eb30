package aof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/stats"
)

// host stands in for the server: its snapshot is a fixed base file, and
// nothing runs beside the test, so every instant is quiet.
type host struct {
	mu      sync.Mutex
	logs    []string
	snapErr error
}

func (h *host) Logf(level, format string, args ...any) {
	h.mu.Lock()
	h.logs = append(h.logs, level+": "+fmt.Sprintf(format, args...))
	h.mu.Unlock()
}

func (h *host) Snapshot(path string, atInstant func() error, abort *atomic.Bool) error {
	if atInstant != nil {
		if err := atInstant(); err != nil {
			return err
		}
	}
	if abort != nil && abort.Load() {
		return ErrRewriteStopped
	}
	if h.snapErr != nil {
		return h.snapErr
	}
	return os.WriteFile(path, []byte("base"), 0o644)
}

func (h *host) Quiesce(f func()) { f() }

func newSwitch(t *testing.T, fsync string) (*Switch, *host, string) {
	t.Helper()
	cfg := config.Default()
	cfg.Dir = t.TempDir()
	cfg.AppendFsync = fsync
	var p atomic.Pointer[config.Config]
	p.Store(cfg)
	h := &host{}
	w := &Switch{}
	w.Init(Env{Host: h, Config: &p, Latency: &stats.Monitor{}, Busy: new(atomic.Bool), Stopped: make(chan struct{})})
	return w, h, filepath.Join(cfg.Dir, cfg.AppendDirname)
}

func manifest(t *testing.T, dir string) (string, []string) {
	t.Helper()
	base, incrs, err := persist.ReadManifest(ManifestPath(dir, "appendonly.aof"))
	if err != nil {
		t.Fatal(err)
	}
	return base, incrs
}

// logged reads the commands of the incremental log name in dir.
func logged(t *testing.T, dir, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	if _, err := persist.ReadLog(f, func(cmds []persist.LogCommand) error {
		var rec []string
		for _, c := range cmds {
			rec = append(rec, fmt.Sprintf("%d %q", c.DB, c.Args))
		}
		got = append(got, strings.Join(rec, "; "))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func args(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}

// A new log gets its first base from a rewrite; appended records are in the
// file once a client's await returns, a transaction's as one record.
func TestOpenAppendAwait(t *testing.T) {
	for _, fsync := range []string{"always", "everysec", "no"} {
		t.Run(fsync, func(t *testing.T) {
			w, _, dir := newSwitch(t, fsync)
			if err := w.Open(nil); err != nil {
				t.Fatal(err)
			}
			base, incrs := manifest(t, dir)
			if base != "appendonly.aof.2.base.hkv" || !slices.Equal(incrs, []string{"appendonly.aof.2.incr.aof"}) {
				t.Fatalf("manifest = %q %q", base, incrs)
			}
			if _, err := os.Stat(filepath.Join(dir, "appendonly.aof.1.incr.aof")); !os.IsNotExist(err) {
				t.Fatalf("the first log outlived the rewrite: %v", err)
			}
			a := w.Load()
			e1 := a.AppendCmd(0, 1, args("SET", "k", "v"))
			e2 := a.AppendCmds(3, 2, [][][]byte{args("SREM", "s", "a"), args("SREM", "s", "b")})
			if e2 <= e1 {
				t.Fatalf("offsets %d then %d", e1, e2)
			}
			a.Await(e2)
			if a.written.Load() < e2 || fsync == "always" && a.synced.Load() < e2 {
				t.Fatalf("await returned at written %d synced %d, want %d", a.written.Load(), a.synced.Load(), e2)
			}
			if !a.Sync(e2) {
				t.Fatal("Sync reported the log not durable")
			}
			got := logged(t, dir, incrs[0])
			want := []string{`0 ["SET" "k" "v"]`, `3 ["SREM" "s" "a"]; 3 ["SREM" "s" "b"]`}
			if !slices.Equal(got, want) {
				t.Fatalf("log holds %q, want %q", got, want)
			}
			if in := w.Info(); !in.Enabled || in.Rewrites != 1 || !in.RewriteOK || !in.WriteOK || in.Buffered != 0 {
				t.Fatalf("Info = %+v", in)
			}
		})
	}
}

// Loading keeps the files the manifest names, removes what an interrupted
// rewrite left, and appends to the last log.
func TestLoadRemovesStale(t *testing.T) {
	w, _, dir := newSwitch(t, "everysec")
	if err := w.Open(nil); err != nil {
		t.Fatal(err)
	}
	end := w.Load().AppendCmd(0, 1, args("SET", "a", "1"))
	w.Load().Await(end)
	w.Load().Close()
	stale := []string{tempBase, tempBase + ".tmp-12345", "appendonly.aof.7.incr.aof", "appendonly.aof.7.base.hkv"}
	for _, f := range append(stale, "other.file") {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	w2, _, _ := newSwitch(t, "everysec")
	w2.env.Config.Load().Dir = filepath.Dir(dir)
	var replayed []string
	err := w2.Open(func(d, base string, incrs []string) (int64, int64, int64, error) {
		replayed = append([]string{base}, incrs...)
		return 4, 100, 60, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"appendonly.aof.2.base.hkv", "appendonly.aof.2.incr.aof"}; !slices.Equal(replayed, want) {
		t.Fatalf("replayed %q, want %q", replayed, want)
	}
	for _, f := range stale {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s left behind", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "other.file")); err != nil {
		t.Errorf("a file not the log's was removed: %v", err)
	}
	a := w2.Load()
	if a.seq != 2 || a.fsize != 60 || w2.Info().Size != 104 || w2.Info().BaseSize != 104 {
		t.Fatalf("seq %d fsize %d info %+v", a.seq, a.fsize, w2.Info())
	}
	a.Await(a.AppendCmd(0, 2, args("SET", "b", "2")))
	if got := logged(t, dir, "appendonly.aof.2.incr.aof"); len(got) != 2 || got[1] != `0 ["SET" "b" "2"]` {
		t.Fatalf("log holds %q", got)
	}
}

// Turned on, the log goes live at its rewrite's instant and the manifest
// names it once its base is written; turned off, it is written out, closed,
// and the next log's offsets carry on from it.
func TestStartStop(t *testing.T) {
	w, h, dir := newSwitch(t, "always")
	if err := w.Start(w.env.Config.Load()); err != nil {
		t.Fatal(err)
	}
	if !w.On() {
		t.Fatal("not on after Start")
	}
	waitFor(t, func() bool { return !w.TurningOn() && !w.Rewriting() })
	a := w.Load()
	if a == nil || a.Pending() {
		t.Fatalf("log %v after its rewrite", a)
	}
	if base, incrs := manifest(t, dir); base != "appendonly.aof.1.base.hkv" || !slices.Equal(incrs, []string{"appendonly.aof.1.incr.aof"}) {
		t.Fatalf("manifest = %q %q", base, incrs)
	}
	end := a.AppendCmd(0, 1, args("DEL", "x"))
	w.Stop()
	if w.On() || w.Load() != nil {
		t.Fatal("on after Stop")
	}
	if a.synced.Load() != end {
		t.Fatalf("synced %d at stop, want %d", a.synced.Load(), end)
	}
	a.Await(end + 1) // closed: returns without writing
	if err := w.Start(w.env.Config.Load()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return !w.TurningOn() && !w.Rewriting() })
	if e := w.Load().AppendCmd(0, 2, args("DEL", "y")); e <= end {
		t.Fatalf("the next log's offset %d is not after %d", e, end)
	}
	if base, _ := manifest(t, dir); base != "appendonly.aof.2.base.hkv" {
		t.Fatalf("second base %q", base)
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonly.aof.1.base.hkv")); !os.IsNotExist(err) {
		t.Fatalf("the first log's base outlived the second's rewrite: %v", err)
	}
	if !slices.ContainsFunc(h.logs, func(l string) bool { return strings.Contains(l, "the append only file is on") }) {
		t.Fatalf("logs %q", h.logs)
	}
}

// A failed rewrite is counted and reported; the log keeps its files.
func TestRewriteFails(t *testing.T) {
	w, h, dir := newSwitch(t, "everysec")
	if err := w.Open(nil); err != nil {
		t.Fatal(err)
	}
	h.snapErr = errors.New("disk full")
	if err := w.Rewrite(); err != h.snapErr {
		t.Fatalf("Rewrite = %v", err)
	}
	in := w.Info()
	if in.RewriteOK || in.Failures != 1 || in.Rewrites != 1 {
		t.Fatalf("Info = %+v", in)
	}
	if _, err := os.Stat(filepath.Join(dir, tempBase)); !os.IsNotExist(err) {
		t.Fatal("the temporary base was left")
	}
	// The log moved on to a new file; the manifest names the old ones too.
	if base, incrs := manifest(t, dir); base != "appendonly.aof.2.base.hkv" || len(incrs) != 2 {
		t.Fatalf("manifest = %q %q", base, incrs)
	}
	w.env.Busy.Store(true)
	if err := w.Rewrite(); err != ErrBusy {
		t.Fatalf("Rewrite while busy = %v", err)
	}
}

// After 3 failed rewrites in a row, automatic ones wait 1 minute, then 2,
// 4... up to an hour.
func TestRewriteLimited(t *testing.T) {
	w, _, _ := newSwitch(t, "everysec")
	if w.rewriteLimited() {
		t.Fatal("limited with no failure")
	}
	w.failures.Store(3)
	for _, want := range []int64{1, 2, 4, 8, 16, 32, 60, 60} {
		if !w.rewriteLimited() || w.delayMin != want {
			t.Fatalf("delay %d minutes, want %d", w.delayMin, want)
		}
		if !w.rewriteLimited() {
			t.Fatal("not limited before the retry time")
		}
		w.retryAt = time.Now().Unix() - 1
		if w.rewriteLimited() {
			t.Fatal("limited after the retry time")
		}
	}
	w.failures.Store(0)
	if w.rewriteLimited() || w.delayMin != 0 {
		t.Fatal("a success does not reset the limit")
	}
}

func TestSeqOf(t *testing.T) {
	for name, want := range map[string]int{
		"appendonly.aof.12.incr.aof": 12,
		"appendonly.aof.3.base.hkv":  3,
		"a.b.7.incr.aof":             7,
		"short.aof":                  0,
	} {
		if got := seqOf(name); got != want {
			t.Errorf("seqOf(%q) = %d, want %d", name, got, want)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("timed out")
}
