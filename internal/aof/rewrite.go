package aof

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hotkv/hotkv/internal/persist"
)

// Rewrite compacts the log on now: at a snapshot's instant (every shard
// locked) the log moves on to a new incremental file; the snapshot becomes
// the new base; then the manifest names only those two and the old files
// go. It fails with ErrBusy while a save or rewrite runs.
func (w *Switch) Rewrite() error {
	a := w.cur.Load()
	if a == nil {
		return errOff
	}
	if !w.startRewrite() {
		return ErrBusy
	}
	return w.runRewrite(a)
}

// BGRewrite is BGREWRITEAOF: it starts a rewrite, or schedules one after
// the save running, and returns the status reply, or the error refusing it.
func (w *Switch) BGRewrite() (string, error) {
	if w.rewriting.Load() {
		return "", errRewriting
	}
	if w.want.Load() != nil || w.scheduled.Load() { // being turned on: that rewrite is to come
		return "Background append only file rewriting scheduled", nil
	}
	if w.startRewrite() {
		go w.runClaimed()
		return "Background append only file rewriting started", nil
	}
	w.scheduled.Store(true)
	go func() { // after the BGSAVE running, as Redis schedules
		defer w.scheduled.Store(false)
		for !w.rewriting.Load() {
			if w.startRewrite() {
				w.runClaimed()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return "Background append only file rewriting scheduled", nil
}

// runClaimed rewrites the log on, or with the log off writes a base alone.
func (w *Switch) runClaimed() {
	if a := w.cur.Load(); a != nil {
		w.runRewrite(a)
	} else {
		w.runRewriteOff()
	}
}

// startRewrite claims persistence for a rewrite and marks it in progress,
// so that from the moment BGREWRITEAOF answers, INFO reports it and SAVE
// waits its turn; false when a save or rewrite holds it.
func (w *Switch) startRewrite() bool {
	if !w.env.Busy.CompareAndSwap(false, true) {
		return false
	}
	w.rewriting.Store(true)
	return true
}

// runRewrite does the rewrite of log a that startRewrite claimed, and
// releases it. a is the log on, or one being turned on (switch.go): then
// the snapshot's instant is where a goes live, and the manifest names it
// only once its base is written.
func (w *Switch) runRewrite(a *Log) error {
	defer w.rewriting.Store(false) // after persistence is free (Stop waits for it)
	defer w.env.Busy.Store(false)
	start := time.Now()
	w.rwStart.Store(start.Unix())
	defer w.rwStart.Store(0)

	var oldBase string
	var oldIncrs []string
	seq := 0
	if w.cur.Load() != a {
		// Being turned on: the log a manifest names now (an earlier one's,
		// or BGREWRITEAOF's with the log off) is replaced by this one.
		if base, incrs, err := persist.ReadManifest(a.manifestPath()); err == nil {
			a.old = append(incrs, base)
		}
	}
	rotate := func() error { // every shard is locked: no record is being appended
		if a.cancel.Load() {
			return ErrRewriteStopped
		}
		a.wmu.Lock()
		defer a.wmu.Unlock()
		if w.cur.Load() != a { // being turned on: from now on writes are logged in a
			seq = a.seq
			w.cur.Store(a)
			return nil
		}
		a.writeOut(true)
		if err := a.writeErr.Load(); err != nil {
			return *err
		}
		oldBase, oldIncrs, seq = a.base, append([]string(nil), a.incrs...), a.seq+1
		if err := a.openIncr(seq); err != nil {
			a.incrs = oldIncrs
			return err
		}
		a.size.Store(int64(len(persist.AppendHeader(nil, persist.LogMagic))))
		if a.pending.Load() {
			return nil // no manifest names it before its first base
		}
		// Until the new base exists, the old files plus the new one are the log.
		return a.writeManifest(oldBase, a.incrs)
	}
	var baseName string
	tmpBase := filepath.Join(a.dir, tempBase)
	err := w.env.Host.Snapshot(tmpBase, rotate, &a.cancel)
	if err == nil { // seq is known once rotate ran
		baseName = a.name(seq, "base.hkv")
		err = os.Rename(tmpBase, filepath.Join(a.dir, baseName))
	}
	if err == nil {
		a.wmu.Lock()
		if a.cancel.Load() {
			err = ErrRewriteStopped
			os.Remove(filepath.Join(a.dir, baseName))
		} else {
			cur := a.incrs[len(a.incrs)-1]
			if err = a.writeManifest(baseName, []string{cur}); err == nil {
				a.base, a.incrs = baseName, []string{cur}
				a.pending.Store(false)
			}
		}
		a.wmu.Unlock()
	}
	if err != nil {
		os.Remove(tmpBase)
		if baseName != "" { // written, but no manifest names it
			os.Remove(filepath.Join(a.dir, baseName))
		}
	}
	if err == ErrRewriteStopped { // turned off: as a killed child, not a failure
		w.logf("notice", "AOF rewrite stopped: appendonly was turned off")
		return err
	}
	w.lastRwSec.Store(int64(time.Since(start).Seconds()))
	if err != nil {
		w.rwFailed.Store(true)
		w.failures.Add(1)
		w.logf("warning", "Background AOF rewrite failed: %v", err)
		return err
	}
	for _, f := range append(append(oldIncrs, oldBase), a.old...) {
		if f != "" && f != baseName && !slices.Contains(a.incrs, f) {
			os.Remove(filepath.Join(a.dir, f))
		}
	}
	a.old = nil
	if fi, err := os.Stat(filepath.Join(a.dir, baseName)); err == nil {
		a.baseSize.Store(fi.Size())
		a.rwBase.Store(fi.Size() + a.size.Load())
	}
	w.rewrites.Add(1)
	w.rwFailed.Store(false)
	w.failures.Store(0)
	if w.want.CompareAndSwap(a, nil) {
		w.logf("notice", "Background AOF rewrite finished successfully: the append only file is on (%.3f s)", time.Since(start).Seconds())
		return nil
	}
	w.logf("notice", "Background AOF rewrite finished successfully (%.3f s)", time.Since(start).Seconds())
	return nil
}

// runRewriteOff is BGREWRITEAOF with the log off, as Redis's: the data
// becomes the base of a log of that base alone in appenddirname, which a
// start with appendonly yes or DEBUG LOADAOF loads; the files of the log
// there before go. startRewrite claimed persistence.
func (w *Switch) runRewriteOff() error {
	defer w.rewriting.Store(false)
	defer w.env.Busy.Store(false)
	start := time.Now()
	w.rwStart.Store(start.Unix())
	defer w.rwStart.Store(0)
	cfg := w.env.Config.Load()
	a := newLog(&w.env, w.dir(cfg), cfg.AppendFilename)
	var baseName string
	var old []string
	err := os.MkdirAll(a.dir, 0o755)
	if err == nil {
		if base, incrs, err := persist.ReadManifest(a.manifestPath()); err == nil {
			old = append(incrs, base)
		}
		var seq int
		seq, err = lastSeq(a.dir, a.filename)
		baseName = a.name(seq+1, "base.hkv")
	}
	tmpBase := filepath.Join(a.dir, tempBase)
	if err == nil {
		err = w.env.Host.Snapshot(tmpBase, nil, nil)
	}
	if err == nil {
		err = os.Rename(tmpBase, filepath.Join(a.dir, baseName))
	}
	if err == nil {
		err = a.writeManifest(baseName, nil)
	}
	w.lastRwSec.Store(int64(time.Since(start).Seconds()))
	if err != nil {
		os.Remove(tmpBase)
		w.rwFailed.Store(true)
		w.failures.Add(1)
		w.logf("warning", "Background AOF rewrite failed: %v", err)
		return err
	}
	for _, f := range old {
		if f != "" && f != baseName {
			os.Remove(filepath.Join(a.dir, f))
		}
	}
	w.rewrites.Add(1)
	w.rwFailed.Store(false)
	w.failures.Store(0)
	w.logf("notice", "Background AOF rewrite finished successfully (%.3f s)", time.Since(start).Seconds())
	return nil
}

// checkRewrite runs once a second (Tick): it retries the first rewrite of
// a log being turned on that failed, and starts a rewrite when the log has
// grown by auto-aof-rewrite-percentage over its size after the last
// rewrite; after repeated failures, not before rewriteLimited allows.
func (w *Switch) checkRewrite() {
	if w.env.Busy.Load() || w.scheduled.Load() {
		return
	}
	if a := w.want.Load(); a != nil { // its first rewrite failed
		if !w.rewriteLimited() && w.startRewrite() {
			go w.runRewrite(a)
		}
		return
	}
	cfg := w.env.Config.Load()
	a := w.cur.Load()
	if a == nil || cfg.AutoAOFRewritePercent == 0 {
		return
	}
	size, base := a.size.Load()+a.baseSize.Load(), max(a.rwBase.Load(), 1)
	if size >= cfg.AutoAOFRewriteMinSize && (size-base)*100/base >= cfg.AutoAOFRewritePercent && !w.rewriteLimited() {
		w.logf("notice", "Starting automatic rewriting of AOF on %d%% growth", (size-base)*100/base)
		go w.Rewrite()
	}
}

// rewriteLimited is Redis's aofRewriteLimited: after 3 rewrites in a row
// failed, the next waits 1 minute, then 2, 4... up to an hour.
func (w *Switch) rewriteLimited() bool {
	if w.failures.Load() < 3 {
		w.delayMin, w.retryAt = 0, 0
		return false
	}
	now := time.Now().Unix()
	if w.retryAt != 0 {
		if now < w.retryAt {
			return true
		}
		w.retryAt = 0
		return false
	}
	w.delayMin = min(max(w.delayMin*2, 1), 60)
	w.retryAt = now + w.delayMin*60
	w.logf("warning", "Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes", w.delayMin)
	return true
}

// Info is what INFO persistence reports of the log.
type Info struct {
	Enabled   bool // on, or being turned on (as Redis shows it)
	Rewriting bool
	Scheduled bool
	// LastRewriteSecs is -1 before the first rewrite ended;
	// RewriteStart the unix time the running one began, 0 if none.
	LastRewriteSecs, RewriteStart int64
	RewriteOK, WriteOK            bool
	Rewrites, Failures            int64
	// With the log enabled: its size, its size after the last rewrite, and
	// the bytes appended not yet written.
	Size, BaseSize int64
	Buffered       int
}

// Info reports the log's state for INFO persistence.
func (w *Switch) Info() Info {
	a := w.cur.Load()
	if a == nil {
		a = w.want.Load() // being turned on: INFO shows it as Redis does
	}
	in := Info{
		Enabled:         a != nil,
		Rewriting:       w.rewriting.Load(),
		Scheduled:       w.scheduled.Load(),
		LastRewriteSecs: -1,
		RewriteStart:    w.rwStart.Load(),
		RewriteOK:       !w.rwFailed.Load(),
		WriteOK:         true,
		Rewrites:        w.rewrites.Load(),
		Failures:        w.failures.Load(),
	}
	if in.Rewrites > 0 || !in.RewriteOK {
		in.LastRewriteSecs = w.lastRwSec.Load()
	}
	if a != nil {
		in.WriteOK = a.writeErr.Load() == nil
		in.Buffered = a.BufferLen()
		in.Size = a.size.Load() + a.baseSize.Load()
		in.BaseSize = a.rwBase.Load()
	}
	return in
}
