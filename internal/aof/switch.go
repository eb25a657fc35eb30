package aof

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/stats"
)

// Host is what the log needs of the server it runs in: mechanism that
// holds the whole keyspace.
type Host interface {
	Logf(level, format string, args ...any)
	// Snapshot writes a point-in-time snapshot of the keyspace to path.
	// atInstant, if not nil, runs at its instant, while no write command
	// runs; once abort (if not nil) is set, it gives up with
	// ErrRewriteStopped.
	Snapshot(path string, atInstant func() error, abort *atomic.Bool) error
	// Quiesce runs f at an instant of the same kind.
	Quiesce(f func())
}

// Env is what the log shares with the server: read on the write path,
// so kept concrete.
type Env struct {
	Host    Host
	Config  *atomic.Pointer[config.Config]
	Latency *stats.Monitor
	// Busy is claimed by whoever persists: one snapshot or rewrite at a time.
	Busy *atomic.Bool
	// Stopped is closed when the server stops.
	Stopped <-chan struct{}
}

// Switch is the log on, the one being turned on (doc.go), and what
// outlives one log: INFO persistence's rewrite fields.
type Switch struct {
	env       Env
	cur       atomic.Pointer[Log] // the log writes go to; nil while appendonly is off
	want      atomic.Pointer[Log] // turned on, until its first base is written
	off       atomic.Int64        // the offset the next log starts at
	rewriting atomic.Bool         // aof_rewrite_in_progress
	scheduled atomic.Bool         // aof_rewrite_scheduled
	rewrites  atomic.Int64
	rwFailed  atomic.Bool // the last rewrite failed
	failures  atomic.Int64
	lastRwSec atomic.Int64
	rwStart   atomic.Int64

	// rewriteLimited's state, used by Tick only.
	delayMin, retryAt int64
}

var (
	// ErrBusy refuses a rewrite while a save or rewrite runs.
	ErrBusy           = errors.New("ERR Background save already in progress")
	errOff            = errors.New("appendonly is off")
	ErrRewriteStopped = errors.New("the rewrite was stopped: appendonly was turned off")
	errRewriting      = errors.New("ERR Background append only file rewriting already in progress")
)

// tempBase is the base a rewrite writes before it is named.
const tempBase = "temp-rewrite.base.hkv"

// Init sets up the switch, off, for a server's env.
func (w *Switch) Init(env Env) { w.env = env }

// Load returns the log writes go to, nil while appendonly is off. A write
// command loads it once it holds its locks, so it sees one value for all
// it does.
func (w *Switch) Load() *Log { return w.cur.Load() }

// On reports whether the log is on or being turned on.
func (w *Switch) On() bool { return w.cur.Load() != nil || w.want.Load() != nil }

// TurningOn reports whether a log turned on has no base yet.
func (w *Switch) TurningOn() bool { return w.want.Load() != nil }

// Rewriting reports whether a rewrite runs.
func (w *Switch) Rewriting() bool { return w.rewriting.Load() }

func (w *Switch) logf(level, format string, args ...any) { w.env.Host.Logf(level, format, args...) }

func (w *Switch) dir(cfg *config.Config) string {
	return filepath.Join(cfg.Dir, cfg.AppendDirname)
}

// Open sets up the log at start-up, after any snapshot was loaded: an
// existing log is loaded through replay; without one, the current data
// becomes its base.
func (w *Switch) Open(replay Replay) error {
	cfg := w.env.Config.Load()
	a := newLog(&w.env, w.dir(cfg), cfg.AppendFilename)
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(a.manifestPath()); err == nil {
		if err := a.load(replay); err != nil {
			return err
		}
		w.cur.Store(a)
		return nil
	}
	if err := a.openIncr(1); err != nil {
		return err
	}
	if err := a.writeManifest("", a.incrs); err != nil {
		return err
	}
	w.cur.Store(a)
	return w.Rewrite() // the data loaded from a snapshot becomes the base
}

// Start turns the log on (CONFIG SET appendonly yes), for settings cfg.
// The caller serializes Start and Stop. It fails, leaving the log off,
// when the directory or the first file cannot be made, as Redis's
// startAppendOnly does.
func (w *Switch) Start(cfg *config.Config) error {
	a := newLog(&w.env, w.dir(cfg), cfg.AppendFilename)
	a.pending.Store(true)
	fail := func(err error) error {
		w.rwFailed.Store(true)
		w.logf("warning", "Can't open or create the append-only file in %s: %v", a.dir, err)
		w.logf("warning", "HotKV needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.")
		return err
	}
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return fail(err)
	}
	seq, err := lastSeq(a.dir, cfg.AppendFilename)
	if err != nil {
		return fail(err)
	}
	off := w.off.Load()
	a.appended = off
	a.written.Store(off)
	a.synced.Store(off)
	if err := a.openIncr(seq + 1); err != nil {
		return fail(err)
	}
	w.want.Store(a)
	if w.startRewrite() {
		w.logf("notice", "Background append only file rewriting started: turning the append only file on")
		go w.runRewrite(a)
		return nil
	}
	w.scheduled.Store(true)
	w.logf("notice", "AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.")
	go func() {
		defer w.scheduled.Store(false)
		for w.want.Load() == a {
			select {
			case <-w.env.Stopped:
				return
			default:
			}
			if w.startRewrite() {
				w.scheduled.Store(false)
				w.runRewrite(a)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return nil
}

// Stop turns the log off (CONFIG SET appendonly no), as Redis's
// stopAppendOnly. The caller serializes Start and Stop and holds no shard
// (inside EXEC, exec calls it once the transaction has released its locks).
func (w *Switch) Stop() {
	wanted := w.want.Swap(nil)
	if wanted != nil {
		wanted.cancel.Store(true)
	}
	cur := w.cur.Load()
	if cur != nil {
		cur.cancel.Store(true)
	}
	if w.rewriting.Load() {
		w.logf("notice", "Killing running AOF rewrite: appendonly was turned off")
	}
	w.scheduled.Store(false)
	// The instant, taken as a snapshot takes it: no write command runs, so
	// every record is whole in the log and none follows.
	var a *Log
	w.env.Host.Quiesce(func() {
		a = w.cur.Swap(nil)
		if a != nil {
			a.wmu.Lock()
			// Clients that see the log off send their replies at once: what
			// they wait for is written now (and fsynced under always).
			a.writeOut(w.env.Config.Load().AppendFsync == "always")
			a.mu.Lock()
			w.off.Store(a.appended)
			a.mu.Unlock()
			a.wmu.Unlock()
		}
	})
	if a != nil {
		a.Close()
		w.logf("notice", "Append only file turned off: written, fsynced and closed")
	}
	if wanted != nil {
		// Its files are in no manifest: the log it was to replace stays.
		wanted.Close()
		wanted.wmu.Lock()
		for _, f := range wanted.incrs {
			os.Remove(filepath.Join(wanted.dir, f))
		}
		wanted.wmu.Unlock()
	}
	// A rewrite stops within a shard's encoding: wait, so that a BGSAVE
	// right after does not find persistence busy.
	for i := 0; i < 500 && w.rewriting.Load(); i++ {
		time.Sleep(time.Millisecond)
	}
}

// Tick runs once a second: the log on writes what clients have not and
// fsyncs under everysec, and automatic and retried rewrites start.
func (w *Switch) Tick() {
	if a := w.cur.Load(); a != nil {
		a.tick()
	}
	w.checkRewrite()
}
