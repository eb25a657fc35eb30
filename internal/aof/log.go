package aof

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/persist"
)

// Log is one append-only log: appenddirname holds a manifest naming one
// base snapshot and the incremental logs written since, in order. Write
// commands append a record while they still hold their shard locks, so
// records of commands on the same keys are in execution order (commands on
// disjoint shards commute). A client's replies wait (Await) until its last
// record is written to the file (fsynced too under appendfsync always): the
// first client to wait writes, and fsyncs, everything appended so far, so
// one write serves every client that appended meanwhile (group commit).
type Log struct {
	env      *Env
	dir      string
	filename string // appendfilename, which cannot change at run time

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

	// Turned on at run time (switch.go): pending until its first base is
	// written, the manifest naming it; old are the files of the log it
	// replaces, deleted then. cancel stops its rewrite (turned off); closed,
	// under wmu, once turned off and closed.
	pending atomic.Bool
	cancel  atomic.Bool
	closed  bool
	old     []string
}

func newLog(env *Env, dir, filename string) *Log {
	return &Log{env: env, dir: dir, filename: filename}
}

// ManifestPath is the manifest of the log named filename in dir.
func ManifestPath(dir, filename string) string {
	return filepath.Join(dir, filename+".manifest")
}

func (a *Log) manifestPath() string { return ManifestPath(a.dir, a.filename) }

// AppendCmd appends one command as a record and returns the log's offset
// at its end, which a reply waits for (Await).
func (a *Log) AppendCmd(db int, now int64, args [][]byte) int64 {
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

// AppendCmds appends commands as one record: replayed all or none.
func (a *Log) AppendCmds(db int, now int64, cmds [][][]byte) int64 {
	if len(cmds) == 1 {
		return a.AppendCmd(db, now, cmds[0])
	}
	rec, _ := persist.BeginRecord(nil)
	for _, args := range cmds {
		rec = persist.AppendCommand(rec, db, now, args)
	}
	return a.AppendRecord(persist.SealRecord(rec, 0))
}

// AppendRecord appends a sealed record (a transaction's).
func (a *Log) AppendRecord(rec []byte) int64 {
	a.mu.Lock()
	a.buf = append(a.buf, rec...)
	a.appended += int64(len(rec))
	end := a.appended
	a.mu.Unlock()
	return end
}

// Await returns once the log up to end is written, and fsynced under
// appendfsync always.
func (a *Log) Await(end int64) {
	always := a.env.Config.Load().AppendFsync == "always"
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
		a.env.Host.Logf("warning", "Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...")
		os.Exit(1)
	}
}

// Sync makes the log durable up to end now (WAITAOF), reporting whether it
// is. A log turned on at run time is not until its base is written.
func (a *Log) Sync(end int64) bool {
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
func (a *Log) writeOut(sync bool) {
	a.mu.Lock()
	data, end := a.buf, a.appended
	a.buf = a.spare[:0]
	a.mu.Unlock()
	if len(data) > 0 {
		start := time.Now()
		n, err := a.f.Write(data)
		a.latency("aof-write-alone", time.Since(start)) // Redis's name for a write with no fsync or child pending
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
		if a.env.Config.Load().AppendFsync == "always" {
			a.latency("aof-fsync-always", time.Since(start))
		}
		if err != nil {
			a.fail(err)
			return
		}
		a.synced.Store(end)
	}
	if a.writeErr.Load() != nil {
		a.writeErr.Store(nil)
		a.env.Host.Logf("warning", "AOF write error looks solved, HotKV can write again.")
	}
}

// latency feeds the latency monitor with one of the log's events.
func (a *Log) latency(event string, d time.Duration) {
	if limit := a.env.Config.Load().LatencyMonitorMs; limit > 0 && d.Milliseconds() >= limit {
		a.env.Latency.Add(event, d.Milliseconds())
	}
}

func (a *Log) fail(err error) {
	if a.writeErr.Load() == nil {
		a.env.Host.Logf("warning", "Error writing to the AOF file: %v", err)
	}
	a.writeErr.Store(&err)
}

// WriteErr is the error of the last write, nil once a write succeeded.
func (a *Log) WriteErr() error {
	if p := a.writeErr.Load(); p != nil {
		return *p
	}
	return nil
}

// Pending reports whether the log, turned on at run time, has no base yet.
func (a *Log) Pending() bool { return a.pending.Load() }

// BufferLen and BufferCap are the bytes appended and not yet written, and
// the room of the buffer holding them (INFO, MEMORY STATS).
func (a *Log) BufferLen() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.buf)
}

func (a *Log) BufferCap() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return cap(a.buf)
}

// Files writes out and fsyncs what was appended, and returns the log's
// directory and files as of then (DEBUG LOADAOF reads them back), or the
// write's error.
func (a *Log) Files() (dir, base string, incrs []string, err error) {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	a.writeOut(true)
	return a.dir, a.base, slices.Clone(a.incrs), a.WriteErr()
}

// tick writes what clients have not (blocked clients' pops, appendfsync
// no) and fsyncs under everysec, outside wmu so clients keep writing
// meanwhile.
func (a *Log) tick() {
	a.wmu.Lock()
	if a.closed {
		a.wmu.Unlock()
		return
	}
	a.writeOut(false)
	f, end := a.f, a.written.Load()
	a.wmu.Unlock()
	if a.env.Config.Load().AppendFsync == "everysec" && a.synced.Load() < end {
		if err := f.Sync(); err == nil { // a file rotated meanwhile was synced by rotate
			a.synced.Store(max(a.synced.Load(), end))
		}
	}
}

// Close writes and fsyncs everything (at shutdown).
func (a *Log) Close() {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if a.closed {
		return
	}
	a.writeOut(true)
	a.f.Close()
	a.closed = true
}

// FlushAtExit writes out and fsyncs what was appended and reports a failed
// write; the log stays open (writes are refused until a write succeeds).
func (a *Log) FlushAtExit() error {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if a.closed {
		return nil
	}
	a.writeOut(true)
	return a.WriteErr()
}

func (a *Log) name(seq int, kind string) string {
	return fmt.Sprintf("%s.%d.%s", a.filename, seq, kind)
}

// writeManifest replaces the manifest (temporary file, fsync, rename).
func (a *Log) writeManifest(base string, incrs []string) error {
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
	return persist.SyncDir(a.dir)
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

// openIncr starts a new incremental log with sequence seq. Caller holds wmu
// (or nothing else runs yet).
func (a *Log) openIncr(seq int) error {
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

// Replay loads the files of a log, base then incrs, from dir into the
// keyspace, returning the base's size, the incremental logs' and the last
// one's (the server runs the commands: see Switch.Open).
type Replay func(dir, base string, incrs []string) (baseSize, size, last int64, err error)

// load loads the log named by the manifest through replay and opens it for
// appending.
func (a *Log) load(replay Replay) error {
	base, incrs, err := persist.ReadManifest(a.manifestPath())
	if err != nil {
		return err
	}
	a.base, a.incrs = base, incrs
	a.removeStale()
	baseSize, size, last, err := replay(a.dir, base, incrs)
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

// removeStale deletes what a rewrite interrupted by a crash left behind:
// its temporary base (also as the killed process's half-written
// tempBase.tmp-PID) and log files the manifest no longer names. It runs at
// load, before this process starts a rewrite of its own.
func (a *Log) removeStale() {
	keep := map[string]bool{a.base: true, filepath.Base(a.manifestPath()): true}
	for _, f := range a.incrs {
		keep[f] = true
	}
	entries, _ := os.ReadDir(a.dir)
	prefix := a.filename + "."
	for _, e := range entries {
		n := e.Name()
		if !keep[n] && (n == tempBase || strings.HasPrefix(n, tempBase+".tmp-") || strings.HasPrefix(n, prefix) && (strings.HasSuffix(n, ".base.hkv") || strings.HasSuffix(n, ".incr.aof"))) {
			os.Remove(filepath.Join(a.dir, n))
		}
	}
}
