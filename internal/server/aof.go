package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/persist"
)

// The append-only log: appenddirname holds a manifest naming one base
// snapshot and the incremental logs written since, in order. Write commands
// append a record while they still hold their shard locks, so records of
// commands on the same keys are in execution order (commands on disjoint
// shards commute). A client's replies wait in flush until its last record
// is written to the file (fsynced too under appendfsync always): the first
// client to wait writes, and fsyncs, everything appended so far, so one
// write serves every client that appended meanwhile (group commit).
type aofLog struct {
	s   *Server
	dir string

	mu       sync.Mutex // guards buf and appended; held only to copy a record in
	buf      []byte
	appended int64 // logical offset (bytes ever appended) at the end of buf

	wmu     sync.Mutex // one writer at a time; guards f, spare and the file names
	f       *os.File
	fsize   int64 // bytes in f
	spare   []byte
	base    string   // base snapshot file, "" if none yet
	incrs   []string // incremental logs, the last one being written
	seq     int
	written atomic.Int64 // logical offset handed to the OS
	synced  atomic.Int64 // logical offset known durable

	size     atomic.Int64 // bytes in the incremental logs
	baseSize atomic.Int64 // bytes in the base snapshot
	rwBase   atomic.Int64 // base plus logs after the last rewrite (or load): the growth reference
	writeErr atomic.Pointer[error]

	// Turned on at run time (aofswitch.go): pending until its first base is
	// written, the manifest naming it; old are the files of the log it
	// replaces, deleted then. cancel stops its rewrite (turned off); closed,
	// under wmu, once turned off and closed.
	pending atomic.Bool
	cancel  atomic.Bool
	closed  bool
	old     []string
}

func (s *Server) aofDir() string {
	cfg := s.Config()
	return filepath.Join(cfg.Dir, cfg.AppendDirname)
}

func (a *aofLog) manifestPath() string {
	return filepath.Join(a.dir, a.s.Config().AppendFilename+".manifest")
}

// logWrite appends the command just run, or the effects it propagated
// (cmdtable.Ctx.Propagate) when rewritten; inside EXEC, to the transaction's
// record. The caller holds the command's locks and has checked that it
// changed something (unchanged).
func (c *client) logWrite(cmd *cmdtable.Cmd, args [][]byte, effects [][][]byte, rewritten bool) {
	if !rewritten {
		effects = [][][]byte{c.s.ownName(cmd, args)}
	}
	if len(effects) == 0 {
		return
	}
	if c.inExec {
		if c.tx == nil {
			c.tx, _ = persist.BeginRecord(nil) // the record starts at 0
		}
		for _, e := range effects {
			c.tx = persist.AppendCommand(c.tx, c.ctx.DBID, c.ctx.Now, e)
		}
		return
	}
	if c.s.feeding() {
		c.replOff = c.s.repl.feed(c.ctx.DBID, c.ctx.Now, effects)
	}
	if a := c.s.aof.Load(); a != nil {
		c.aofEnd = a.appendCmds(c.ctx.DBID, c.ctx.Now, effects)
		c.woff = c.aofEnd
	}
}

// logTx appends the transaction's record, all of its commands or none.
func (c *client) logTx() {
	a := c.s.aof.Load()
	if c.tx == nil || a == nil && !c.s.feeding() { // turned off during a keyless transaction
		c.tx = nil
		return
	}
	rec := persist.SealRecord(c.tx, 0)
	if c.s.feeding() {
		c.replOff = c.s.repl.feedRecord(rec)
	}
	if a != nil {
		c.aofEnd = a.appendRecord(rec)
		c.woff = c.aofEnd
	}
	c.tx = nil
}

// unchanged reports whether the write command just run changed nothing,
// as Redis's dirty counter would say: it blocked, was refused, said so
// (Ctx.NoEffects), or propagated nothing while logged (Ctx.Rewrite). Such a
// write is neither logged nor counted in rdb_changes_since_last_save. Not
// logged, a command that propagates only what it changed may have skipped
// building that: it counts.
func (c *client) unchanged(effects [][][]byte, rewritten, noChange bool, mark int) bool {
	if rewritten {
		return len(effects) == 0 && (noChange || c.ctx.Logged)
	}
	return c.blocked != nil || len(c.out.B) > mark && c.out.B[mark] == '-'
}

func (a *aofLog) appendCmd(db int, now int64, args [][]byte) int64 {
	a.mu.Lock()
	var start int
	a.buf, start = persist.BeginRecord(a.buf)
	a.buf = persist.AppendCommand(a.buf, db, now, args)
	a.buf = persist.SealRecord(a.buf, start)
	a.appended += int64(len(a.buf) - start)
	end := a.appended
	a.mu.Unlock()
	return end
}

// appendCmds appends commands as one record: replayed all or none.
func (a *aofLog) appendCmds(db int, now int64, cmds [][][]byte) int64 {
	if len(cmds) == 1 {
		return a.appendCmd(db, now, cmds[0])
	}
	rec, _ := persist.BeginRecord(nil)
	for _, args := range cmds {
		rec = persist.AppendCommand(rec, db, now, args)
	}
	return a.appendRecord(persist.SealRecord(rec, 0))
}

func (a *aofLog) appendRecord(rec []byte) int64 {
	a.mu.Lock()
	a.buf = append(a.buf, rec...)
	a.appended += int64(len(rec))
	end := a.appended
	a.mu.Unlock()
	return end
}

// await returns once the log up to end is written, and fsynced under
// appendfsync always.
func (a *aofLog) await(end int64) {
	always := a.s.Config().AppendFsync == "always"
	target := &a.written
	if always {
		target = &a.synced
	}
	if target.Load() >= end {
		return
	}
	a.wmu.Lock()
	closed := a.closed // turned off: what it held was written out then
	if target.Load() < end && !closed {
		a.writeOut(always)
	}
	a.wmu.Unlock()
	if always && target.Load() < end && !closed {
		// The reply would acknowledge a write that is not durable (Redis
		// exits here too).
		a.s.logf("warning", "Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...")
		os.Exit(1)
	}
}

// sync makes the log durable up to end now (WAITAOF), reporting whether it
// is. A log turned on at run time is not until its base is written.
func (a *aofLog) sync(end int64) bool {
	if a.pending.Load() {
		return false
	}
	if a.synced.Load() >= end {
		return true
	}
	a.wmu.Lock()
	if a.synced.Load() < end && !a.closed {
		a.writeOut(true)
	}
	a.wmu.Unlock()
	return a.synced.Load() >= end
}

// writeOut writes everything appended so far, and fsyncs if asked. The
// caller holds wmu. On a failed write the data stays queued (the file is cut
// back to its last whole record) and writes are refused until one succeeds.
func (a *aofLog) writeOut(sync bool) {
	a.mu.Lock()
	data, end := a.buf, a.appended
	a.buf = a.spare[:0]
	a.mu.Unlock()
	if len(data) > 0 {
		start := time.Now()
		n, err := a.f.Write(data)
		a.s.latencySample("aof-write-alone", time.Since(start)) // Redis's name for a write with no fsync or child pending
		if err != nil {
			if n > 0 {
				a.f.Truncate(a.fsize)
			}
			a.fail(err)
			a.mu.Lock()
			a.buf = append(data, a.buf...)
			a.mu.Unlock()
			return
		}
		a.size.Add(int64(n))
		a.fsize += int64(n)
	}
	a.spare = data
	a.written.Store(end)
	if sync {
		start := time.Now()
		err := a.f.Sync()
		if a.s.Config().AppendFsync == "always" {
			a.s.latencySample("aof-fsync-always", time.Since(start))
		}
		if err != nil {
			a.fail(err)
			return
		}
		a.synced.Store(end)
	}
	if a.writeErr.Load() != nil {
		a.writeErr.Store(nil)
		a.s.logf("warning", "AOF write error looks solved, HotKV can write again.")
	}
}

func (a *aofLog) fail(err error) {
	if a.writeErr.Load() == nil {
		a.s.logf("warning", "Error writing to the AOF file: %v", err)
	}
	a.writeErr.Store(&err)
}

// loop writes what clients have not (blocked clients' pops, appendfsync no)
// and fsyncs every second under everysec, outside wmu so clients keep
// writing meanwhile; it also starts automatic and retried rewrites. It runs
// for the server's life, on whichever log is on.
func (s *Server) aofLoop() {
	defer s.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.closed:
			return
		case <-t.C:
		}
		if a := s.aof.Load(); a != nil {
			a.tick()
		}
		s.checkRewrite()
	}
}

func (a *aofLog) tick() {
	a.wmu.Lock()
	if a.closed {
		a.wmu.Unlock()
		return
	}
	a.writeOut(false)
	f, end := a.f, a.written.Load()
	a.wmu.Unlock()
	if a.s.Config().AppendFsync == "everysec" && a.synced.Load() < end {
		if err := f.Sync(); err == nil { // a file rotated meanwhile was synced by rotate
			a.synced.Store(max(a.synced.Load(), end))
		}
	}
}

// close writes and fsyncs everything (at shutdown).
func (a *aofLog) close() {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if a.closed {
		return
	}
	a.writeOut(true)
	a.f.Close()
	a.closed = true
}

func (a *aofLog) name(seq int, kind string) string {
	return fmt.Sprintf("%s.%d.%s", a.s.Config().AppendFilename, seq, kind)
}

// writeManifest replaces the manifest (temporary file, fsync, rename).
func (a *aofLog) writeManifest(base string, incrs []string) error {
	var b strings.Builder
	if base != "" {
		fmt.Fprintf(&b, "file %s seq %d type b\n", base, seqOf(base))
	}
	for _, f := range incrs {
		fmt.Fprintf(&b, "file %s seq %d type i\n", f, seqOf(f))
	}
	p := a.manifestPath()
	tmp := p + ".tmp"
	if err := writeSynced(tmp, []byte(b.String())); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	return syncDir(a.dir)
}

func writeSynced(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func seqOf(name string) int {
	parts := strings.Split(name, ".")
	if len(parts) >= 3 {
		n, _ := strconv.Atoi(parts[len(parts)-3])
		return n
	}
	return 0
}

// openIncr starts a new incremental log with sequence seq. Caller holds wmu
// (or nothing else runs yet).
func (a *aofLog) openIncr(seq int) error {
	name := a.name(seq, "incr.aof")
	f, err := os.OpenFile(filepath.Join(a.dir, name), os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	h := persist.AppendHeader(nil, persist.LogMagic)
	if _, err := f.Write(h); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if a.f != nil {
		a.f.Close()
	}
	a.f, a.seq, a.fsize = f, seq, int64(len(h))
	a.incrs = append(a.incrs, name)
	a.size.Add(int64(len(h)))
	return nil
}

// rewrite compacts the log: at a snapshot's instant (every shard locked) the
// log moves on to a new incremental file; the snapshot becomes the new base;
// then the manifest names only those two and the old files go.
func (s *Server) rewriteAOF() error {
	a := s.aof.Load()
	if a == nil {
		return errAOFOff
	}
	if !s.startRewrite() {
		return errSaveInProgress
	}
	return s.runRewrite(a)
}

// startRewrite claims persistence for a rewrite and marks it in progress,
// so that from the moment BGREWRITEAOF answers, INFO reports it and SAVE
// waits its turn; false when a save or rewrite holds it.
func (s *Server) startRewrite() bool {
	if !s.persist.running.CompareAndSwap(false, true) {
		return false
	}
	s.aofst.rewriting.Store(true)
	return true
}

// runRewrite does the rewrite of log a that startRewrite claimed, and
// releases it. a is the log on, or one being turned on (aofswitch.go):
// then the snapshot's instant is where a goes live, and the manifest names
// it only once its base is written.
func (s *Server) runRewrite(a *aofLog) error {
	st := &s.aofst
	defer st.rewriting.Store(false) // after persistence is free (stopAOF waits for it)
	defer s.persist.running.Store(false)
	start := time.Now()
	st.rwStart.Store(start.Unix())
	defer st.rwStart.Store(0)

	var oldBase string
	var oldIncrs []string
	seq := 0
	if s.aof.Load() != a {
		// Being turned on: the log a manifest names now (an earlier one's,
		// or BGREWRITEAOF's with the log off) is replaced by this one.
		if base, incrs, err := persist.ReadManifest(a.manifestPath()); err == nil {
			a.old = append(incrs, base)
		}
	}
	rotate := func() error { // every shard is locked: no record is being appended
		if a.cancel.Load() {
			return errRewriteStopped
		}
		a.wmu.Lock()
		defer a.wmu.Unlock()
		if s.aof.Load() != a { // being turned on: from now on writes are logged in a
			seq = a.seq
			s.aof.Store(a)
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
	tmpBase := filepath.Join(a.dir, "temp-rewrite.base.hkv")
	_, err := s.writeSnapshotAbort(tmpBase, rotate, &a.cancel)
	if err == nil { // seq is known once rotate ran
		baseName = a.name(seq, "base.hkv")
		err = os.Rename(tmpBase, filepath.Join(a.dir, baseName))
	}
	if err == nil {
		a.wmu.Lock()
		if a.cancel.Load() {
			err = errRewriteStopped
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
	if err == errRewriteStopped { // turned off: as a killed child, not a failure
		s.logf("notice", "AOF rewrite stopped: appendonly was turned off")
		return err
	}
	st.lastRwSec.Store(int64(time.Since(start).Seconds()))
	if err != nil {
		st.rwFailed.Store(true)
		st.failures.Add(1)
		s.logf("warning", "Background AOF rewrite failed: %v", err)
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
	st.rewrites.Add(1)
	st.rwFailed.Store(false)
	st.failures.Store(0)
	if st.want.CompareAndSwap(a, nil) {
		s.logf("notice", "Background AOF rewrite finished successfully: the append only file is on (%.3f s)", time.Since(start).Seconds())
		return nil
	}
	s.logf("notice", "Background AOF rewrite finished successfully (%.3f s)", time.Since(start).Seconds())
	return nil
}

// checkRewrite runs once a second (aofLoop): it retries the first rewrite
// of a log being turned on that failed, and starts a rewrite when the log
// has grown by auto-aof-rewrite-percentage over its size after the last
// rewrite; after repeated failures, not before rewriteLimited allows.
func (s *Server) checkRewrite() {
	st := &s.aofst
	if s.persist.running.Load() || st.scheduled.Load() {
		return
	}
	if w := st.want.Load(); w != nil { // its first rewrite failed
		if !s.rewriteLimited() && s.startRewrite() {
			go s.runRewrite(w)
		}
		return
	}
	cfg := s.Config()
	a := s.aof.Load()
	if a == nil || cfg.AutoAOFRewritePercent == 0 {
		return
	}
	size, base := a.size.Load()+a.baseSize.Load(), max(a.rwBase.Load(), 1)
	if size >= cfg.AutoAOFRewriteMinSize && (size-base)*100/base >= cfg.AutoAOFRewritePercent && !s.rewriteLimited() {
		s.logf("notice", "Starting automatic rewriting of AOF on %d%% growth", (size-base)*100/base)
		go s.rewriteAOF()
	}
}

// loadAOF loads the log named by the manifest (base snapshot, then every
// incremental log) into the empty keyspace and opens it for appending. A
// torn last record is cut off with a warning when aof-load-truncated is on.
func (s *Server) loadAOF(a *aofLog) error {
	base, incrs, err := persist.ReadManifest(a.manifestPath())
	if err != nil {
		return err
	}
	a.base, a.incrs = base, incrs
	a.removeStale()
	if base != "" {
		s.toLoad(filepath.Join(a.dir, base))
	}
	for _, f := range incrs {
		s.toLoad(filepath.Join(a.dir, f))
	}
	baseSize, size, last, err := s.readAOF(a.dir, base, incrs, s.ks, true)
	if err != nil {
		return err
	}
	a.baseSize.Store(baseSize)
	a.size.Add(size)
	a.fsize = last
	a.rwBase.Store(a.baseSize.Load() + a.size.Load())
	if len(incrs) == 0 { // a base alone (BGREWRITEAOF with the log off)
		if err := a.openIncr(seqOf(base) + 1); err != nil {
			return err
		}
		return a.writeManifest(base, a.incrs)
	}
	cur := incrs[len(incrs)-1]
	f, err := os.OpenFile(filepath.Join(a.dir, cur), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	a.f, a.seq = f, seqOf(cur)
	return nil
}

// readAOF loads base, then replays incrs, the files of the log in dir,
// into the empty keyspace ks (the server's at start-up: see loadSnapshot).
// It returns the base's size, the incremental logs' and the last one's.
func (s *Server) readAOF(dir, base string, incrs []string, ks *keyspace.Keyspace, startup bool) (baseSize, size, last int64, err error) {
	if base != "" {
		p := filepath.Join(dir, base)
		st, _, err := s.loadSnapshot(p, ks, startup)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("bad base file %s: %w", p, err)
		}
		baseSize = st.Bytes
	}
	r := newReplayer(s, ks)
	for i, name := range incrs {
		p := filepath.Join(dir, name)
		f, err := os.Open(p)
		if err != nil {
			return 0, 0, 0, err
		}
		end, err := persist.ReadLog(s.progress(f, startup), r.replay)
		f.Close()
		if errors.Is(err, persist.ErrTruncated) && i == len(incrs)-1 {
			if !s.Config().AOFLoadTruncated {
				return 0, 0, 0, fmt.Errorf("bad file format reading the append only file %s: %w (set aof-load-truncated yes to load up to offset %d)", p, err, end)
			}
			s.logf("warning", "!!! Warning: short read while loading the AOF file %s!!! AOF loaded anyway because aof-load-truncated is enabled; truncating it at offset %d", p, end)
			if err := os.Truncate(p, end); err != nil {
				return 0, 0, 0, err
			}
			err = nil
		}
		if fe := (*persist.FormatError)(nil); errors.As(err, &fe) && fe.Offset > 0 && errors.Is(err, persist.ErrCorrupt) && i == len(incrs)-1 {
			// Only the last log can be cut: a later one would replay over the gap.
			return 0, 0, 0, fmt.Errorf("bad file format reading the append only file %s: %w; run `hotkv --check --fix %s` to truncate the log there, losing what follows", p, err, p)
		}
		if err != nil {
			return 0, 0, 0, fmt.Errorf("bad file format reading the append only file %s: %w", p, err)
		}
		size += end
		last = end
	}
	return baseSize, size, last, nil
}

// removeStale deletes what a rewrite interrupted by a crash left behind:
// its temporary base and log files the manifest no longer names.
func (a *aofLog) removeStale() {
	keep := map[string]bool{a.base: true, filepath.Base(a.manifestPath()): true}
	for _, f := range a.incrs {
		keep[f] = true
	}
	entries, _ := os.ReadDir(a.dir)
	prefix := a.s.Config().AppendFilename + "."
	for _, e := range entries {
		n := e.Name()
		if !keep[n] && (n == "temp-rewrite.base.hkv" || strings.HasPrefix(n, prefix) && (strings.HasSuffix(n, ".base.hkv") || strings.HasSuffix(n, ".incr.aof"))) {
			os.Remove(filepath.Join(a.dir, n))
		}
	}
}

// replayer runs logged commands through the command table as a client
// with no connection would, at their recorded time, on keyspace ks. Into
// a staging keyspace (DEBUG LOADAOF) the log's writes to the registries go
// to empty ones dropped with the replayer: the server's stay as they are.
type replayer struct {
	s        *Server
	ks       *keyspace.Keyspace
	c        *client
	commands int
}

func newReplayer(s *Server, ks *keyspace.Keyspace) *replayer {
	c := newClient(s, nil)
	c.ctx.Blocker = nil
	c.ctx.KS = ks
	if ks != s.ks {
		reg := newRegistries()
		c.ctx.Indexes, c.ctx.AI = reg.indexes, reg.ai
	}
	return &replayer{s: s, ks: ks, c: c}
}

func (r *replayer) replay(cmds []persist.LogCommand) error {
	c := r.c
	for _, lc := range cmds {
		if lc.DB >= len(r.ks.DBs) {
			return fmt.Errorf("database %d out of range", lc.DB)
		}
		// The log names commands by their own names (ownName), whatever
		// rename-command says now; a log an older HotKV wrote may hold the
		// names clients used.
		cmd := cmdtable.Lookup(lc.Args[0])
		if cmd == nil {
			cmd = r.s.lookup(lc.Args[0])
		}
		if cmd != nil && cmd.Subs != nil && len(lc.Args) > 1 {
			cmd = cmd.Sub(lc.Args[1])
		}
		if cmd == nil || cmd.Run == nil || !cmd.CheckArity(len(lc.Args)) {
			return fmt.Errorf("unknown command %q in the log", lc.Args[0])
		}
		if r.ks != r.s.ks && cmd.Parent != nil && cmd.Parent.Name == "function" {
			continue // DEBUG LOADAOF reloads the keyspace: the libraries stay as they are
		}
		c.ctx.DB, c.ctx.DBID = r.ks.DBs[lc.DB], lc.DB
		c.ctx.Now = lc.Now
		c.ctx.Args = lc.Args
		if r.ks == r.s.ks { // at start-up, beside the clients answered while loading
			r.s.keyLoaded()
			c.keys = cmd.KeyPositions(lc.Args, c.keys[:0])
			c.lock(cmd, lc.Args, c.keys)
			c.run(cmd)
			c.unlock(cmd, c.ctx.DB)
			c.ctx.SetKeyShard(nil, nil)
		} else {
			c.run(cmd)
		}
		c.ctx.TakeEffects() // what it would log is what is being replayed
		// An error here is one Redis counts as unexpected, from its AOF client.
		if len(c.out.B) > 0 && c.out.B[0] == '-' {
			r.s.propagationError(false, cmd.Name, c.out.B)
		}
		c.out.B = c.out.B[:0]
		r.commands++
	}
	return nil
}

// openAOF sets up the log at start-up, after any snapshot was loaded: an
// existing log is loaded; without one, the current data becomes its base.
func (s *Server) openAOF() error {
	a := &aofLog{s: s, dir: s.aofDir()}
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(a.manifestPath()); err == nil {
		if err := s.loadAOF(a); err != nil {
			return err
		}
		s.aof.Store(a)
		return nil
	}
	if err := a.openIncr(1); err != nil {
		return err
	}
	if err := a.writeManifest("", a.incrs); err != nil {
		return err
	}
	s.aof.Store(a)
	return s.rewriteAOF() // the data loaded from a snapshot becomes the base
}

func bgrewriteaofCmd(x *cmdtable.Ctx) {
	s := cl(x).s
	st := &s.aofst
	if st.rewriting.Load() {
		x.Error("ERR Background append only file rewriting already in progress")
		return
	}
	if st.want.Load() != nil || st.scheduled.Load() { // being turned on: that rewrite is to come
		x.W.Simple("Background append only file rewriting scheduled")
		return
	}
	if s.startRewrite() {
		if a := s.aof.Load(); a != nil {
			go s.runRewrite(a)
		} else {
			go s.runRewriteOff()
		}
		x.W.Simple("Background append only file rewriting started")
		return
	}
	st.scheduled.Store(true)
	go func() { // after the BGSAVE running, as Redis schedules
		defer st.scheduled.Store(false)
		for !st.rewriting.Load() {
			if s.startRewrite() {
				if a := s.aof.Load(); a != nil {
					s.runRewrite(a)
				} else {
					s.runRewriteOff()
				}
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	x.W.Simple("Background append only file rewriting scheduled")
}

func init() {
	cmdtable.Register(&cmdtable.Cmd{Name: "bgrewriteaof", Arity: 1, Flags: cmdtable.Admin | cmdtable.NoScript | cmdtable.NoAsyncLoading, Run: bgrewriteaofCmd,
		Group: "server", Since: "1.0.0", Summary: "Asynchronously rewrites the append-only file to disk."})
}

// infoPersistence is INFO's persistence section, with Redis's field names;
// the fork and copy-on-write fields are 0, as there is no child process.
func (s *Server) infoPersistence(b *strings.Builder) {
	st := &s.persist
	now := time.Now().Unix()
	status := func(ok bool) string {
		if ok {
			return "ok"
		}
		return "err"
	}
	since := func(t int64) int64 {
		if t == 0 {
			return -1
		}
		return now - t
	}
	as := &s.aofst
	a := s.aof.Load()
	if a == nil {
		a = as.want.Load() // being turned on: INFO shows it as Redis does
	}
	rw := as.rewriting.Load()
	bg := st.bgStart.Load()
	kv(b, "loading", b2i(s.loading.Load()))
	kv(b, "async_loading", 0)
	kv(b, "current_cow_peak", 0)
	kv(b, "current_cow_size", 0)
	kv(b, "current_cow_size_age", 0)
	kv(b, "current_fork_perc", "0.00")
	kv(b, "current_save_keys_processed", 0)
	kv(b, "current_save_keys_total", 0)
	kv(b, "rdb_changes_since_last_save", s.changes())
	kv(b, "rdb_bgsave_in_progress", b2i(bg != 0))
	kv(b, "rdb_last_save_time", s.lastSave.Load())
	kv(b, "rdb_last_bgsave_status", status(st.lastOK.Load()))
	lastSecs := int64(-1)
	if st.saves.Load() > 0 || !st.lastOK.Load() {
		lastSecs = st.lastSecs.Load()
	}
	kv(b, "rdb_last_bgsave_time_sec", lastSecs)
	kv(b, "rdb_current_bgsave_time_sec", since(bg))
	kv(b, "rdb_saves", st.saves.Load())
	kv(b, "rdb_last_cow_size", 0)
	kv(b, "rdb_last_load_keys_expired", st.lastExpire.Load())
	kv(b, "rdb_last_load_keys_loaded", st.lastLoaded.Load())
	kv(b, "aof_enabled", b2i(a != nil))
	kv(b, "aof_rewrite_in_progress", b2i(rw))
	kv(b, "aof_rewrite_scheduled", b2i(as.scheduled.Load() && !rw))
	rwSecs, rwOK, writeOK := int64(-1), !as.rwFailed.Load(), true
	if as.rewrites.Load() > 0 || !rwOK {
		rwSecs = as.lastRwSec.Load()
	}
	if a != nil {
		writeOK = a.writeErr.Load() == nil
	}
	kv(b, "aof_last_rewrite_time_sec", rwSecs)
	kv(b, "aof_current_rewrite_time_sec", since(as.rwStart.Load()))
	kv(b, "aof_last_bgrewrite_status", status(rwOK))
	kv(b, "aof_rewrites", as.rewrites.Load())
	kv(b, "aof_rewrites_consecutive_failures", as.failures.Load())
	kv(b, "aof_last_write_status", status(writeOK))
	kv(b, "aof_last_cow_size", 0)
	kv(b, "module_fork_in_progress", 0)
	kv(b, "module_fork_last_cow_size", 0)
	if a != nil {
		a.mu.Lock()
		pending := len(a.buf)
		a.mu.Unlock()
		kv(b, "aof_current_size", a.size.Load()+a.baseSize.Load())
		kv(b, "aof_base_size", a.rwBase.Load())
		kv(b, "aof_pending_rewrite", 0)
		kv(b, "aof_buffer_length", pending)
		kv(b, "aof_pending_bio_fsync", 0)
		kv(b, "aof_delayed_fsync", 0)
	}
	if s.loading.Load() {
		s.infoLoading(b)
	}
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}
