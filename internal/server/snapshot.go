package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/aof"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/script"
)

// Point-in-time snapshots without fork (docs/persistence.md has the
// argument). Taking every shard lock at once fixes the instant: a snapshot
// job is published while no command runs. From then on, a write command
// first captures (encodes) each shard it is about to modify, unless that
// shard was already captured; the saver walks the shards and captures the
// rest. Every shard is therefore encoded exactly once, as it was at the
// instant. Blocks are independent, so captured ones are written in whatever
// order they come.

// snapJob is one snapshot in progress.
type snapJob struct {
	now  int64    // the instant, unix ms: keys expired by then are left out
	done [][]bool // [db][shard] captured; each read and written under its shard's lock
	// enc encodes one shard's live keys into a block (HotKV's snapshot
	// format, or an RDB file's, rdbsave.go), returning how many it holds.
	enc func(dst []byte, db int, sh *keyspace.Shard, now int64) ([]byte, int, error)

	mu       sync.Mutex
	captured []capturedBlock // blocks captured by writers, waiting for the saver
	err      error
}

// capturedBlock is a shard's block and the number of keys in it.
type capturedBlock struct {
	b []byte
	n int
}

func newSnapJob(s *Server, enc func(dst []byte, db int, sh *keyspace.Shard, now int64) ([]byte, int, error)) *snapJob {
	j := &snapJob{now: time.Now().UnixMilli(), done: make([][]bool, len(s.ks.DBs)), enc: enc}
	for i := range j.done {
		j.done[i] = make([]bool, keyspace.ShardCount)
	}
	return j
}

// capture encodes shard i of database db unless it was already. The caller
// holds the shard's lock.
func (j *snapJob) capture(db, i int, sh *keyspace.Shard) {
	if j.done[db][i] {
		return
	}
	j.done[db][i] = true
	if sh.Len() == 0 {
		return
	}
	b, n, err := j.enc(nil, db, sh, j.now)
	j.mu.Lock()
	if err != nil && j.err == nil {
		j.err = err
	}
	if n > 0 {
		j.captured = append(j.captured, capturedBlock{b, n})
	}
	j.mu.Unlock()
}

func encodeShard(dst []byte, db int, sh *keyspace.Shard, now int64) ([]byte, int, error) {
	blk := persist.BeginKeys(dst, db)
	for k, e := range sh.All() {
		if e.Expired(now) {
			continue
		}
		if err := blk.Add(k, e); err != nil {
			return dst, 0, fmt.Errorf("key %q: %w", k, err)
		}
	}
	if blk.Keys == 0 {
		return dst, 0, nil
	}
	return blk.Finish(), blk.Keys, nil
}

// captureFor captures, before cmd runs, every shard it may modify (keys are
// its key positions in args). Its locks are held (by call, EXEC or a
// script).
func (c *client) captureFor(j *snapJob, cmd *cmdtable.Cmd, args [][]byte, keys []int) {
	switch {
	case cmd.Flags&cmdtable.LockAll != 0:
		for d, db := range c.s.ks.DBs {
			captureDB(j, d, db)
		}
	case cmd.Flags&cmdtable.LockDB != 0:
		captureDB(j, c.ctx.DBID, c.ctx.DB)
	default:
		other := -1
		if cmd.OtherDB != nil {
			if n := cmd.OtherDB(args, c.ctx.DBID); n >= 0 && n < len(c.s.ks.DBs) {
				other = n
			}
		}
		captureKeys(j, c.s.ks, c.ctx.DBID, other, keys, args)
	}
}

func captureDB(j *snapJob, d int, db *keyspace.DB) {
	for i := range keyspace.ShardCount {
		j.capture(d, i, db.Shard(i))
	}
}

func captureKeys(j *snapJob, ks *keyspace.Keyspace, d, other int, pos []int, args [][]byte) {
	for _, p := range pos {
		i := keyspace.ShardIndex(args[p])
		j.capture(d, i, ks.DBs[d].Shard(i))
		if other >= 0 {
			j.capture(other, i, ks.DBs[other].Shard(i))
		}
	}
}

// errSaveInProgress is refused SAVE/BGSAVE/BGREWRITEAOF while one runs.
var errSaveInProgress = aof.ErrBusy

// writeFile makes path's contents what fill writes, through a temporary
// file, fsynced, then renamed.
func writeFile(path string, fill func(w *bufio.Writer) error) (err error) {
	tmp := tempSnapshot(path)
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fill(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return persist.SyncDir(filepath.Dir(path))
}

// tempSnapshot is the temporary file writeFile fills for path.
func tempSnapshot(path string) string { return fmt.Sprintf("%s.tmp-%d", path, os.Getpid()) }

// writeSnapshot writes a point-in-time snapshot of the whole keyspace to
// path. atInstant, if not nil, runs while every shard is locked, at the
// snapshot's instant.
func (s *Server) writeSnapshot(path string, atInstant func() error) (keys int, err error) {
	s.keepRedisFile(path)
	return s.writeSnapshotAbort(path, atInstant, nil)
}

// writeSnapshotAbort is writeSnapshot, given up with aof.ErrRewriteStopped
// once abort is set (a log rewrite, when the log is turned off).
func (s *Server) writeSnapshotAbort(path string, atInstant func() error, abort *atomic.Bool) (keys int, err error) {
	err = writeFile(path, func(w *bufio.Writer) error {
		var err error
		keys, err = s.encodeSnapshot(w, atInstant, abort)
		return err
	})
	return keys, err
}

// encodeSnapshot writes the snapshot for writeSnapshot.
func (s *Server) encodeSnapshot(w *bufio.Writer, atInstant func() error, abort *atomic.Bool) (keys int, err error) {
	blocks := 0
	err = s.captureInstant(newSnapJob(s, encodeShard), atInstant, func(now int64) error {
		aux, n, err := s.encodeRegistries(now, true)
		if err != nil {
			return err
		}
		blocks += n
		w.Write(persist.AppendHeader(nil, persist.SnapshotMagic))
		w.Write(aux)
		return nil
	}, func(b []byte, n int) error {
		w.Write(b)
		blocks++
		keys += n
		return nil
	}, abort)
	if err != nil {
		return 0, err
	}
	w.Write(persist.AppendEnd(nil, blocks, keys))
	return keys, nil
}

// captureInstant fixes the instant of job j while no command runs (every
// shard locked and regMu held): atInstant, if not nil, runs then; j is
// published so that writers capture the shards they touch first. Then
// registries runs with regMu still held (what keyless writes change is
// encoded as of the instant), and emit gets every shard's block with the
// number of keys in it, each shard once, in whatever order they come. Once
// abort (if not nil) is set, it gives up with aof.ErrRewriteStopped.
func (s *Server) captureInstant(j *snapJob, atInstant func() error, registries func(now int64) error, emit func(b []byte, n int) error, abort *atomic.Bool) (err error) {
	s.persist.captureMu.Lock()
	defer s.persist.captureMu.Unlock()
	j.now = time.Now().UnixMilli()
	gated := s.gate.shared(0)
	s.ks.LockAll()
	// Keyless writes (named indexes, AI layer) hold regMu shared: taking it
	// here puts each of them wholly before or after the instant, and the
	// registries are encoded as of the instant while it is held.
	s.regMu.Lock()
	if atInstant != nil {
		if err := atInstant(); err != nil {
			s.regMu.Unlock()
			s.ks.UnlockAll()
			gated.RUnlock()
			return err
		}
	}
	s.persist.snap.Store(j)
	s.ks.UnlockAll()
	gated.RUnlock()
	// Every shard is captured once the loop below ends; clearing the job
	// earlier (on an error) only lets writers stop capturing for it.
	defer s.persist.snap.Store(nil)
	err = registries(j.now)
	s.regMu.Unlock()
	if err != nil {
		return err
	}
	var buf []byte
	drain := func() error {
		j.mu.Lock()
		got := j.captured
		j.captured = nil
		j.mu.Unlock()
		for _, c := range got {
			if err := emit(c.b, c.n); err != nil {
				return err
			}
		}
		return nil
	}
	for d, db := range s.ks.DBs {
		for i := range keyspace.ShardCount {
			if abort != nil && abort.Load() {
				return aof.ErrRewriteStopped
			}
			sh := db.Shard(i)
			sh.Lock()
			n := 0
			if !j.done[d][i] {
				j.done[d][i] = true
				buf, n, err = j.enc(buf[:0], d, sh, j.now)
			}
			sh.Unlock()
			if err != nil {
				return err
			}
			if n > 0 {
				if err := emit(buf, n); err != nil {
					return err
				}
			}
			if i%64 == 0 {
				if err := drain(); err != nil {
					return err
				}
			}
		}
	}
	if err := drain(); err != nil {
		return err
	}
	j.mu.Lock()
	err = j.err
	j.mu.Unlock()
	return err
}

// writeSnapshotHeld writes a snapshot of the keyspace as it is while the
// caller holds every shard lock and regMu (DEBUG RELOAD), so nothing needs
// capturing.
func (s *Server) writeSnapshotHeld(path string) (keys int, err error) {
	s.keepRedisFile(path)
	err = writeFile(path, func(w *bufio.Writer) error {
		now := time.Now().UnixMilli()
		aux, blocks, err := s.encodeRegistries(now, true)
		if err != nil {
			return err
		}
		w.Write(persist.AppendHeader(nil, persist.SnapshotMagic))
		w.Write(aux)
		var buf []byte
		for d, db := range s.ks.DBs {
			for i := range keyspace.ShardCount {
				var n int
				if buf, n, err = encodeShard(buf[:0], d, db.Shard(i), now); err != nil {
					return err
				}
				if n > 0 {
					w.Write(buf)
					blocks++
					keys += n
				}
			}
		}
		w.Write(persist.AppendEnd(nil, blocks, keys))
		return nil
	})
	return keys, err
}

// encodeRegistries encodes the named vector indexes, the AI registry and
// the function libraries into aux blocks (none for an empty registry).
// regMu is held. funcs false leaves the libraries out (an RDB file has
// them in its own form).
func (s *Server) encodeRegistries(now int64, funcs bool) (aux []byte, blocks int, err error) {
	if len(s.reg.indexes.Names()) > 0 {
		var e persist.Enc
		persist.EncodeIndexes(&e, s.reg.indexes)
		aux = persist.AppendAux(aux, persist.AuxIndexes, e.B)
		blocks++
	}
	r := s.reg.ai
	if len(r.PromptNames())+len(r.SemNames())+len(r.MemoryNames()) > 0 {
		var b bytes.Buffer
		if err := r.Save(&b, now); err != nil {
			return nil, 0, err
		}
		aux = persist.AppendAux(aux, persist.AuxAI, b.Bytes())
		blocks++
	}
	if _, libs, _, _ := s.scripts.Counts(); libs > 0 && funcs {
		aux = persist.AppendAux(aux, persist.AuxFuncs, s.scripts.DumpFunctions())
		blocks++
	}
	return aux, blocks, nil
}

// loadRegistry loads an aux block into reg (empty).
func (s *Server) loadRegistry(reg *registries, kind byte, body []byte, now int64) (err error) {
	switch kind {
	case persist.AuxIndexes:
		return persist.DecodeIndexes(&persist.Dec{B: body}, reg.indexes)
	case persist.AuxFuncs:
		if err := s.scripts.RestoreFunctions(body, script.RestoreFlush); err != nil {
			return fmt.Errorf("%w: functions: %v", persist.ErrCorrupt, err)
		}
		return nil
	}
	// encoding/gob is not hardened against crafted input (the block's
	// checksum catches damage): a panic is a refused file, not a crash.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: AI registry: %v", persist.ErrCorrupt, p)
		}
	}()
	if err := reg.ai.Load(bytes.NewReader(body), now); err != nil {
		return fmt.Errorf("%w: AI registry: %v", persist.ErrCorrupt, err)
	}
	return nil
}

// loadSnapshot fills the empty keyspace ks from path; keys expired by now
// are skipped. Blocks are decoded by one worker per CPU while the file is
// read. At start-up (startup), ks is the server's, not yet serving: the
// registries are loaded too, and as nearly everything a load allocates is
// kept, the collector, which would only re-mark a growing heap, is held off
// until the heap reaches a generous multiple of the file size (memory is
// about six times the file for small keys). Otherwise (DEBUG RELOAD,
// LOADAOF) the registries stay as they are.
func (s *Server) loadSnapshot(path string, ks *keyspace.Keyspace, startup bool) (persist.LoadStats, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return persist.LoadStats{}, 0, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && startup {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(ms.HeapAlloc) + 16*fi.Size() + 64<<20))
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	var magic [9]byte
	n, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return persist.LoadStats{}, 0, err
	}
	r := s.progress(f, startup)
	if rdb.IsFile(magic[:n]) {
		return s.loadRDBFile(r, ks, time.Now().UnixMilli(), startup)
	}
	return s.readSnapshot(r, ks, s.startupRegistries(startup))
}

// readSnapshot is loadSnapshot from r (a file, or the hotkv-snapshot AUX
// field of an RDB file, rdbsave.go); reg, when set, receives the named
// indexes and the AI layer, and must be empty.
func (s *Server) readSnapshot(f io.Reader, ks *keyspace.Keyspace, reg *registries) (persist.LoadStats, int, error) {
	now := time.Now().UnixMilli()
	var keys, expired atomic.Int64
	type block struct {
		off     int64
		payload []byte
	}
	work := make(chan block, 64)
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var firstErr error
	// A block is one shard's keys: they are decoded first, then put under
	// one lock into a table sized for them.
	type kv struct {
		key []byte
		e   *keyspace.Entry
	}
	load := func(b block) (int, error) {
		var db int
		var got []kv
		n, err := persist.DecodeBlock(b.off, b.payload, func(d int, key []byte, e *keyspace.Entry) error {
			if d >= len(ks.DBs) {
				return fmt.Errorf("database %d out of range (databases is %d)", d, len(ks.DBs))
			}
			if e.Expired(now) {
				expired.Add(1)
				return nil
			}
			db = d
			got = append(got, kv{key, e})
			s.keyLoaded()
			return nil
		})
		if err != nil || len(got) == 0 {
			return n, err
		}
		kdb := ks.DBs[db]
		sh := kdb.ShardFor(got[0].key)
		sh.Lock()
		sh.Reserve(len(got))
		for _, x := range got {
			if o := kdb.ShardFor(x.key); o != sh { // not a file HotKV wrote, but valid
				o.Lock()
				o.Put(x.key, x.e)
				o.Unlock()
				continue
			}
			sh.Put(x.key, x.e)
		}
		sh.Unlock()
		return n, nil
	}
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				n, err := load(b)
				keys.Add(int64(n))
				if err != nil {
					errMu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					errMu.Unlock()
				}
			}
		}()
	}
	st, err := persist.ReadBlocks(f, func(off int64, payload []byte) error {
		work <- block{off, payload}
		return nil
	}, func(off int64, kind byte, body []byte) error {
		if reg == nil {
			return nil
		}
		if err := s.loadRegistry(reg, kind, body, now); err != nil {
			return &persist.FormatError{Offset: off, Err: err}
		}
		return nil
	})
	close(work)
	wg.Wait()
	if err == nil {
		err = firstErr
	}
	if err == nil && keys.Load() != int64(st.Keys) {
		err = &persist.FormatError{Offset: st.Bytes, Err: fmt.Errorf("%w: end block counts %d keys, blocks hold %d", persist.ErrCorrupt, st.Keys, keys.Load())}
	}
	return st, int(expired.Load()), err
}

// saveState is the snapshot being written, what INFO persistence reports
// about snapshots, and the lock that runs one snapshot (or log rewrite) at a
// time.
type saveState struct {
	snap atomic.Pointer[snapJob] // the snapshot being written, if any
	// captureMu runs one capture at a time (snap holds one job): a
	// replica's sync and a BGSAVE wait for each other.
	captureMu  sync.Mutex
	lastSave   atomic.Int64 // unix seconds of the last save (start-up until persistence exists)
	running    atomic.Bool
	bgStart    atomic.Int64 // unix seconds the running BGSAVE started, 0 if none
	lastOK     atomic.Bool
	lastSecs   atomic.Int64
	saves      atomic.Int64
	dirtyBase  atomic.Uint64 // dirty at the last save
	lastLoaded atomic.Int64
	lastExpire atomic.Int64
	redisFile  atomic.Bool // a Redis RDB file was loaded at start-up: keepRedisFile
}

// dirty counts the write commands since start that changed something,
// the measure of "changes" the save points and rdb_changes_since_last_save
// use, as Redis's dirty counter (which CONFIG RESETSTAT leaves alone too).
// Redis counts some commands by the keys or elements they changed; HotKV
// counts each once.
func (s *Server) dirty() uint64 {
	s.clients.mu.Lock()
	defer s.clients.mu.Unlock()
	n := s.stats.dirty
	for c := range s.liveClients() {
		n += c.stats.dirty.Load()
	}
	return n
}

// changes is the number of writes since the last save.
func (s *Server) changes() uint64 {
	d, base := s.dirty(), s.persist.dirtyBase.Load()
	if d < base { // cannot happen: dirty only grows
		return 0
	}
	return d - base
}

func (s *Server) snapshotPath() string {
	cfg := s.Config()
	return filepath.Join(cfg.Dir, cfg.DBFilename)
}

// save runs one snapshot now; only one snapshot or rewrite runs at a time.
func (s *Server) save(background bool) error {
	if !s.persist.running.CompareAndSwap(false, true) {
		return errSaveInProgress
	}
	return s.runSave(background)
}

// runSave saves once the caller has set persist.running, and clears it.
func (s *Server) runSave(background bool) error {
	defer s.persist.running.Store(false)
	start := time.Now()
	if background {
		s.persist.bgStart.CompareAndSwap(0, start.Unix()) // set already by a BGSAVE that started it
		defer s.persist.bgStart.Store(0)
	}
	base := s.dirty()
	keys, err := s.writeSnapshot(s.snapshotPath(), nil)
	s.persist.lastSecs.Store(int64(time.Since(start).Seconds()))
	if err != nil {
		if background { // as Redis: a failed SAVE reports its error and leaves the status
			s.persist.lastOK.Store(false)
		}
		s.logf("warning", "Error saving DB on disk: %v", err)
		return err
	}
	s.saved(base, keys, start)
	return nil
}

// saved records a successful save begun at start, with base write calls
// counted then.
func (s *Server) saved(base uint64, keys int, start time.Time) {
	s.persist.lastOK.Store(true)
	s.persist.saves.Add(1)
	s.persist.dirtyBase.Store(base)
	s.persist.lastSave.Store(time.Now().Unix())
	s.logf("notice", "DB saved on disk (%d keys, %.3f s)", keys, time.Since(start).Seconds())
}

// errMisconf is Redis's reply to writes while snapshots fail.
const errMisconf = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."

// diskError is the reason writes are refused, or "" (Redis's
// writeCommandsDeniedByDiskError).
func (s *Server) diskError() string {
	if !s.persist.lastOK.Load() {
		if cfg := s.Config(); cfg.StopWritesOnBgsaveErr && len(cfg.Save) > 0 {
			return errMisconf
		}
	}
	if a := s.aof.Load(); a != nil {
		if err := a.WriteErr(); err != nil {
			return "MISCONF Errors writing to the AOF file: " + err.Error()
		}
	}
	return ""
}

// checkSavePoints runs from cron: a BGSAVE when a save point is due (after a
// failed save, Redis waits 5 seconds before trying again).
func (s *Server) checkSavePoints(now time.Time) {
	cfg := s.Config()
	if len(cfg.Save) == 0 || s.persist.running.Load() {
		return
	}
	changes := s.changes()
	since := now.Unix() - s.persist.lastSave.Load()
	for _, r := range cfg.Save {
		if changes >= uint64(r.Changes) && since >= r.Seconds && (s.persist.lastOK.Load() || since > 5) {
			s.logf("notice", "%d changes in %d seconds. Saving...", r.Changes, r.Seconds)
			if s.persist.running.CompareAndSwap(false, true) {
				go s.runSave(true)
			}
			return
		}
	}
}

func saveCmd(x *cmdtable.Ctx) {
	if err := cl(x).s.save(false); err != nil {
		if err == errSaveInProgress {
			x.Error(err.Error())
			return
		}
		x.Error("ERR")
		return
	}
	x.W.OK()
}

func bgsaveCmd(x *cmdtable.Ctx) {
	s := cl(x).s
	schedule := len(x.Args) == 2 && cmdtable.Is(x.Args[1], "schedule")
	if len(x.Args) == 2 && !schedule {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	if !s.persist.running.CompareAndSwap(false, true) {
		if !schedule && s.aof.Rewriting() {
			x.Error("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")
			return
		}
		if schedule {
			x.W.Simple("Background saving scheduled")
			go func() { // after the one running
				for s.persist.running.Load() {
					time.Sleep(10 * time.Millisecond)
				}
				s.save(true)
			}()
			return
		}
		x.Error(errSaveInProgress.Error())
		return
	}
	s.persist.bgStart.Store(time.Now().Unix()) // in progress as soon as it is acknowledged
	go s.runSave(true)
	x.W.Simple("Background saving started")
}

func init() {
	const g = "server"
	f := cmdtable.Admin | cmdtable.NoScript
	cmdtable.Register(
		&cmdtable.Cmd{Name: "save", Arity: 1, Flags: f | cmdtable.NoMulti | cmdtable.NoAsyncLoading, Run: saveCmd, Group: g, Since: "1.0.0",
			Summary: "Synchronously saves the database(s) to disk."},
		&cmdtable.Cmd{Name: "bgsave", Arity: -1, Flags: f | cmdtable.NoAsyncLoading, Run: bgsaveCmd, Group: g, Since: "1.0.0",
			Summary: "Asynchronously saves the database(s) to disk.", Args: "[SCHEDULE]"},
	)
}

// loadData loads what is on disk at start-up: the append-only log when
// appendonly is on and one exists, else the snapshot.
func (s *Server) loadData() error {
	cfg := s.Config()
	start := time.Now()
	s.load.start.Store(start.Unix())
	if cfg.AppendOnly {
		if _, err := os.Stat(aof.ManifestPath(s.aofDir(), cfg.AppendFilename)); err == nil {
			if err := s.openAOF(); err != nil {
				return err
			}
			s.logf("notice", "DB loaded from append only file: %.3f seconds", time.Since(start).Seconds())
			return nil
		}
	}
	path := s.snapshotPath()
	if _, err := os.Stat(path); err == nil {
		s.toLoad(path)
		st, expired, err := s.loadSnapshot(path, s.ks, true)
		if err != nil {
			if isRDBFile(path) {
				return rdbLoadError(path, err)
			}
			return fmt.Errorf("bad snapshot file %s: %w", path, err)
		}
		s.persist.lastLoaded.Store(int64(st.Keys - expired))
		s.persist.lastExpire.Store(int64(expired))
		s.logf("notice", "DB loaded from disk: %d keys, %.3f seconds", st.Keys-expired, time.Since(start).Seconds())
	}
	if cfg.AppendOnly {
		// A new log made of the data loaded names no base until its rewrite
		// is done: a shutdown during the load does not cut that short, nor
		// lets it begin.
		s.shut.mu.Lock()
		defer s.shut.mu.Unlock()
		if s.shut.done.Load() {
			return ErrStopped
		}
		return s.openAOF()
	}
	return nil
}

// ErrStopped is Load's answer when the server was shut down during the
// load: it neither serves nor replicates.
var ErrStopped = errors.New("the server stopped during the load")
