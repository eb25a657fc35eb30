package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/persist"
)

// The server's side of the append-only log (internal/aof): what a write
// command appends, the replay of a log through the command table, and the
// snapshot instant a rewrite and the switch take.

// aofHost is the server as internal/aof sees it.
type aofHost Server

func (h *aofHost) Logf(level, format string, args ...any) {
	(*Server)(h).logf(level, format, args...)
}

func (h *aofHost) Snapshot(path string, atInstant func() error, abort *atomic.Bool) error {
	_, err := (*Server)(h).writeSnapshotAbort(path, atInstant, abort)
	return err
}

// Quiesce runs f at an instant as a snapshot's: no write command runs.
func (h *aofHost) Quiesce(f func()) {
	s := (*Server)(h)
	g := s.gate.shared(0)
	s.ks.LockAll()
	s.regMu.Lock()
	f()
	s.regMu.Unlock()
	s.ks.UnlockAll()
	g.RUnlock()
}

func (s *Server) aofDir() string {
	cfg := s.Config()
	return filepath.Join(cfg.Dir, cfg.AppendDirname)
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
	if c.tx.inExec {
		if c.aof.rec == nil {
			c.aof.rec, _ = persist.BeginRecord(nil) // the record starts at 0
		}
		for _, e := range effects {
			c.aof.rec = persist.AppendCommand(c.aof.rec, c.ctx.DBID, c.ctx.Now, e)
		}
		return
	}
	if c.s.feeding() {
		c.repl.off = c.s.repl.Feed(c.ctx.DBID, c.ctx.Now, effects)
	}
	if a := c.s.aof.Load(); a != nil {
		c.aof.end = a.AppendCmds(c.ctx.DBID, c.ctx.Now, effects)
		c.aof.woff = c.aof.end
	}
}

// logTx appends the transaction's record, all of its commands or none.
func (c *client) logTx() {
	a := c.s.aof.Load()
	if c.aof.rec == nil || a == nil && !c.s.feeding() { // turned off during a keyless transaction
		c.aof.rec = nil
		return
	}
	rec := persist.SealRecord(c.aof.rec, 0)
	if c.s.feeding() {
		c.repl.off = c.s.repl.FeedRecord(rec)
	}
	if a != nil {
		c.aof.end = a.AppendRecord(rec)
		c.aof.woff = c.aof.end
	}
	c.aof.rec = nil
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
	return c.blocked != nil || len(c.io.out.B) > mark && c.io.out.B[mark] == '-'
}

// aofLoop ticks the log once a second (aof.Switch.Tick: writes clients
// have not made, everysec's fsync, automatic and retried rewrites), for the
// server's life, on whichever log is on.
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
		s.aof.Tick()
	}
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

// openAOF sets up the log at start-up, after any snapshot was loaded: an
// existing log is loaded and replayed; without one, the current data becomes
// its base.
func (s *Server) openAOF() error {
	return s.aof.Open(func(dir, base string, incrs []string) (int64, int64, int64, error) {
		if base != "" {
			s.toLoad(filepath.Join(dir, base))
		}
		for _, f := range incrs {
			s.toLoad(filepath.Join(dir, f))
		}
		return s.readAOF(dir, base, incrs, s.ks, true)
	})
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
		if len(c.io.out.B) > 0 && c.io.out.B[0] == '-' {
			r.s.propagationError(false, cmd.Name, c.io.out.B)
		}
		c.io.out.B = c.io.out.B[:0]
		r.commands++
	}
	return nil
}

func bgrewriteaofCmd(x *cmdtable.Ctx) {
	reply, err := cl(x).s.aof.BGRewrite()
	if err != nil {
		x.Error(err.Error())
		return
	}
	x.W.Simple(reply)
}

// setAppendOnly makes the log on or off as CONFIG SET appendonly asks (the
// caller holds cfgMu). Turning it off inside EXEC waits for the end of the
// transaction (c.aofOff), which holds shards the instant needs.
func (s *Server) setAppendOnly(on bool, cfg *config.Config, c *client) error {
	switch {
	case on && !s.aof.On():
		return s.aof.Start(cfg)
	case !on && s.aof.On() && c.tx.inExec:
		c.tx.aofOff = true
	case !on && s.aof.On():
		s.aof.Stop()
	}
	return nil
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
	in := s.aof.Info()
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
	kv(b, "rdb_last_save_time", s.persist.lastSave.Load())
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
	kv(b, "aof_enabled", b2i(in.Enabled))
	kv(b, "aof_rewrite_in_progress", b2i(in.Rewriting))
	kv(b, "aof_rewrite_scheduled", b2i(in.Scheduled && !in.Rewriting))
	kv(b, "aof_last_rewrite_time_sec", in.LastRewriteSecs)
	kv(b, "aof_current_rewrite_time_sec", since(in.RewriteStart))
	kv(b, "aof_last_bgrewrite_status", status(in.RewriteOK))
	kv(b, "aof_rewrites", in.Rewrites)
	kv(b, "aof_rewrites_consecutive_failures", in.Failures)
	kv(b, "aof_last_write_status", status(in.WriteOK))
	kv(b, "aof_last_cow_size", 0)
	kv(b, "module_fork_in_progress", 0)
	kv(b, "module_fork_last_cow_size", 0)
	if in.Enabled {
		kv(b, "aof_current_size", in.Size)
		kv(b, "aof_base_size", in.BaseSize)
		kv(b, "aof_pending_rewrite", 0)
		kv(b, "aof_buffer_length", in.Buffered)
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
