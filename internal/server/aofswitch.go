package server

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/config"
)

// Turning the append-only log on and off at run time (CONFIG SET
// appendonly), as Redis does.
//
// On: a new log is made ready (its directory, a first incremental file at
// a sequence number above every file there) but not yet used, and a rewrite
// of it starts (or is scheduled behind a save running). At that rewrite's
// snapshot instant, every shard and regMu held so that no write is half
// run, s.aof becomes the new log: each write is either before the instant,
// and in the base the snapshot writes, or after it, and in the incremental
// file. The manifest names the new log only once the base is written (the
// log is pending until then; a manifest left by an earlier log keeps naming
// that one, as Redis keeps its old manifest until the rewrite is done), then
// the earlier log's files go. A failed rewrite is retried, as Redis retries
// it (rewriteLimited).
//
// Off: as Redis's stopAppendOnly, at an instant of the same kind: s.aof
// becomes nil, what was appended is written out, and fsynced before the
// files are closed; a rewrite running stops and leaves no file behind.
//
// Write commands load s.aof once they hold their locks, so each sees one
// value for all it does (an atomic load per write command, nothing on
// reads). The log's offsets (a client's aofEnd and WAITAOF's woff) carry on
// from one log to the next, so an offset from a log turned off is behind
// every offset of the next one.

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
	// A manifest an earlier log left names the files this one replaces.
	if base, incrs, err := readManifest(a.manifestPath()); err == nil {
		a.old = append(incrs, base)
	}
	seq := 0
	entries, err := os.ReadDir(a.dir)
	if err != nil {
		return fail(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), cfg.AppendFilename+".") {
			seq = max(seq, seqOf(e.Name()))
		}
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
