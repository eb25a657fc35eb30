package server

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/persist"
)

// aofState is what outlives one log: INFO persistence's rewrite fields, and
// the log being turned on.
type aofState struct {
	want      atomic.Pointer[aofLog] // turned on, until its first base is written
	off       atomic.Int64           // the offset the next log starts at
	rewriting atomic.Bool            // aof_rewrite_in_progress
	scheduled atomic.Bool            // aof_rewrite_scheduled
	rewrites  atomic.Int64
	rwFailed  atomic.Bool // the last rewrite failed
	failures  atomic.Int64
	lastRwSec atomic.Int64
	rwStart   atomic.Int64

	// rewriteLimited's state, used by aofLoop only.
	delayMin, retryAt int64
}

var (
	errAOFOff         = errors.New("appendonly is off")
	errRewriteStopped = errors.New("the rewrite was stopped: appendonly was turned off")
)

// aofOn reports whether the log is on or being turned on.
func (s *Server) aofOn() bool {
	return s.aof.Load() != nil || s.aofst.want.Load() != nil
}

// startAOF turns the log on (CONFIG SET appendonly yes), for settings cfg.
// The caller holds cfgMu. It fails, leaving the log off, when the directory
// or the first file cannot be made, as Redis's startAppendOnly does.
func (s *Server) startAOF(cfg *config.Config) error {
	st := &s.aofst
	a := &aofLog{s: s, dir: filepath.Join(cfg.Dir, cfg.AppendDirname)}
	a.pending.Store(true)
	fail := func(err error) error {
		st.rwFailed.Store(true)
		s.logf("warning", "Can't open or create the append-only file in %s: %v", a.dir, err)
		s.logf("warning", "HotKV needs to enable the AOF but can't trigger a background AOF rewrite operation. Check the above logs for more info about the error.")
		return err
	}
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return fail(err)
	}
	seq, err := lastSeq(a.dir, cfg.AppendFilename)
	if err != nil {
		return fail(err)
	}
	off := st.off.Load()
	a.appended = off
	a.written.Store(off)
	a.synced.Store(off)
	if err := a.openIncr(seq + 1); err != nil {
		return fail(err)
	}
	st.want.Store(a)
	if s.startRewrite() {
		s.logf("notice", "Background append only file rewriting started: turning the append only file on")
		go s.runRewrite(a)
		return nil
	}
	st.scheduled.Store(true)
	s.logf("notice", "AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.")
	go func() {
		defer st.scheduled.Store(false)
		for st.want.Load() == a {
			select {
			case <-s.closed:
				return
			default:
			}
			if s.startRewrite() {
				st.scheduled.Store(false)
				s.runRewrite(a)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return nil
}

// stopAOF turns the log off (CONFIG SET appendonly no), as Redis's
// stopAppendOnly. The caller holds cfgMu and no shard (inside EXEC, exec
// calls it once the transaction has released its locks).
func (s *Server) stopAOF() {
	st := &s.aofst
	w := st.want.Swap(nil)
	if w != nil {
		w.cancel.Store(true)
	}
	cur := s.aof.Load()
	if cur != nil {
		cur.cancel.Store(true)
	}
	if st.rewriting.Load() {
		s.logf("notice", "Killing running AOF rewrite: appendonly was turned off")
	}
	st.scheduled.Store(false)
	// The instant, taken as a snapshot takes it: no write command runs, so
	// every record is whole in the log and none follows.
	g := s.gate.shared(0)
	s.ks.LockAll()
	s.regMu.Lock()
	a := s.aof.Swap(nil)
	if a != nil {
		a.wmu.Lock()
		// Clients that see the log off send their replies at once: what
		// they wait for is written now (and fsynced under always).
		a.writeOut(s.Config().AppendFsync == "always")
		a.mu.Lock()
		st.off.Store(a.appended)
		a.mu.Unlock()
		a.wmu.Unlock()
	}
	s.regMu.Unlock()
	s.ks.UnlockAll()
	g.RUnlock()
	if a != nil {
		a.close()
		s.logf("notice", "Append only file turned off: written, fsynced and closed")
	}
	if w != nil {
		// Its files are in no manifest: the log it was to replace stays.
		w.close()
		w.wmu.Lock()
		for _, f := range w.incrs {
			os.Remove(filepath.Join(w.dir, f))
		}
		w.wmu.Unlock()
	}
	// A rewrite stops within a shard's encoding: wait, so that a BGSAVE
	// right after does not find persistence busy.
	for i := 0; i < 500 && st.rewriting.Load(); i++ {
		time.Sleep(time.Millisecond)
	}
}

// setAppendOnly makes the log on or off as CONFIG SET appendonly asks (the
// caller holds cfgMu). Turning it off inside EXEC waits for the end of the
// transaction (c.aofOff), which holds shards the instant needs.
func (s *Server) setAppendOnly(on bool, cfg *config.Config, c *client) error {
	switch {
	case on && !s.aofOn():
		return s.startAOF(cfg)
	case !on && s.aofOn() && c.inExec:
		c.aofOff = true
	case !on && s.aofOn():
		s.stopAOF()
	}
	return nil
}

// lastSeq is the highest sequence number of the log files in dir.
func lastSeq(dir, filename string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	seq := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), filename+".") {
			seq = max(seq, seqOf(e.Name()))
		}
	}
	return seq, nil
}

// runRewriteOff is BGREWRITEAOF with the log off, as Redis's: the data
// becomes the base of a log of that base alone in appenddirname, which a
// start with appendonly yes or DEBUG LOADAOF loads; the files of the log
// there before go. startRewrite claimed persistence.
func (s *Server) runRewriteOff() error {
	st := &s.aofst
	defer st.rewriting.Store(false)
	defer s.persist.running.Store(false)
	start := time.Now()
	st.rwStart.Store(start.Unix())
	defer st.rwStart.Store(0)
	a := &aofLog{s: s, dir: s.aofDir()}
	var baseName string
	var old []string
	err := os.MkdirAll(a.dir, 0o755)
	if err == nil {
		if base, incrs, err := persist.ReadManifest(a.manifestPath()); err == nil {
			old = append(incrs, base)
		}
		var seq int
		seq, err = lastSeq(a.dir, s.Config().AppendFilename)
		baseName = a.name(seq+1, "base.hkv")
	}
	tmpBase := filepath.Join(a.dir, "temp-rewrite.base.hkv")
	if err == nil {
		_, err = s.writeSnapshot(tmpBase, nil)
	}
	if err == nil {
		err = os.Rename(tmpBase, filepath.Join(a.dir, baseName))
	}
	if err == nil {
		err = a.writeManifest(baseName, nil)
	}
	st.lastRwSec.Store(int64(time.Since(start).Seconds()))
	if err != nil {
		os.Remove(tmpBase)
		st.rwFailed.Store(true)
		st.failures.Add(1)
		s.logf("warning", "Background AOF rewrite failed: %v", err)
		return err
	}
	for _, f := range old {
		if f != "" && f != baseName {
			os.Remove(filepath.Join(a.dir, f))
		}
	}
	st.rewrites.Add(1)
	st.rwFailed.Store(false)
	st.failures.Store(0)
	s.logf("notice", "Background AOF rewrite finished successfully (%.3f s)", time.Since(start).Seconds())
	return nil
}

// rewriteLimited is Redis's aofRewriteLimited: after 3 rewrites in a row
// failed, the next waits 1 minute, then 2, 4... up to an hour.
func (s *Server) rewriteLimited() bool {
	st := &s.aofst
	if st.failures.Load() < 3 {
		st.delayMin, st.retryAt = 0, 0
		return false
	}
	now := time.Now().Unix()
	if st.retryAt != 0 {
		if now < st.retryAt {
			return true
		}
		st.retryAt = 0
		return false
	}
	st.delayMin = min(max(st.delayMin*2, 1), 60)
	st.retryAt = now + st.delayMin*60
	s.logf("warning", "Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes", st.delayMin)
	return true
}
