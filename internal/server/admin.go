package server

import (
	"slices"

	"github.com/hotkv/hotkv/internal/admin"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/hll"
	"github.com/hotkv/hotkv/internal/value/list"
	"github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// Server commands: LASTSAVE, SHUTDOWN (DEBUG is in debug.go); the
// mechanism of CONFIG SET and REWRITE (the commands are internal/admin's).

// setConfig is CONFIG SET's mechanism (internal/admin checks the names):
// under cfgMu, so concurrent CONFIG SETs do not undo each other, build sets
// the values on a copy of the settings, which then take effect, or none of
// them does. A change the server cannot make is an *admin.ApplyError.
func (s *Server) setConfig(c *client, build func(next *config.Config) error) error {
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	next := s.Config().Clone()
	if err := build(next); err != nil {
		return err
	}
	prev := s.Config()
	moved := next.Port != prev.Port || !slices.Equal(next.Bind, prev.Bind)
	if moved {
		if err := s.rebind(prev, next); err != nil {
			name := "port"
			if next.Port == prev.Port {
				name = "bind"
			}
			return &admin.ApplyError{Param: name, Err: err}
		}
	}
	undoMove := func() {
		if moved {
			s.rebind(next, prev)
		}
	}
	if t := next.TLS(); t != prev.TLS() {
		if err := s.reloadTLS(t); err != nil {
			undoMove()
			return &admin.ApplyError{Param: "tls-*", Err: err}
		}
	}
	if next.AppendOnly {
		if err := s.setAppendOnly(true, next, c); err != nil {
			undoMove()
			return &admin.ApplyError{Param: "appendonly", Err: err}
		}
	}
	s.cfg.Store(next)
	if !next.AppendOnly {
		s.setAppendOnly(false, next, c)
	}
	if next.RequirePass != prev.RequirePass {
		s.setRequirePass(next.RequirePass)
	}
	s.users.SetPubsubDefault(next.ACLPubsubAll)
	tighter := s.applyMemoryConfig(next)
	s.ks.Events.Set(next.NotifyKeyspaceEvents)
	s.stats.slow.Configure(next.SlowlogSlowerThan, next.SlowlogMaxLen, next.LatencyMonitorMs)
	s.applyRedisParams(next)
	s.repl.Configure(next)
	if tighter != 0 && c.tx.inExec {
		c.tx.memGen = tighter // EXEC holds the shards the measurement counts: exec waits
	} else if tighter != 0 {
		s.awaitMeasurement(tighter)
	}
	return nil
}

// applyRedisParams makes the Redis parameters of cfg take effect
// (hll-sparse-max-bytes, the encoding thresholds, lazyfree-lazy-user-*,
// lazyfree-lazy-server-del), at start-up and after CONFIG SET.
func (s *Server) applyRedisParams(cfg *config.Config) {
	s.ks.Lazy.UserDel.Store(cfg.LazyFree("user-del"))
	s.ks.Lazy.UserFlush.Store(cfg.LazyFree("user-flush"))
	s.ks.Lazy.ServerDel.Store(cfg.LazyFree("server-del"))
	hll.SetSparseMaxBytes(cfg.HLLSparseMaxBytes())
	e := cfg.Encodings()
	hash.SetThresholds(e.HashListpackEntries, e.HashListpackValue)
	set.SetThresholds(e.SetIntsetEntries, e.SetListpackEntries, e.SetListpackValue)
	zset.SetThresholds(e.ZSetListpackEntries, e.ZSetListpackValue)
	list.SetFill(e.ListListpackSize)
	stream.SetNodeLimits(e.StreamNodeMaxEntries, e.StreamNodeMaxBytes)
	s.load.delay.Store(cfg.KeyLoadDelay())
}

// rewriteConfig is CONFIG REWRITE's mechanism: the configuration file the
// server was started with is rewritten to the current settings and users
// (see config.Rewrite). cfgMu keeps CONFIG SETs out until the file is
// written.
func (s *Server) rewriteConfig() error {
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	cfg := s.Config()
	if cfg.File == "" {
		return admin.ErrNoConfigFile
	}
	return config.RewriteFile(cfg.File, cfg, s.aclLines())
}

func init() {
	const g = "server"
	adm := cmdtable.Admin | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale
	cmdtable.Register(
		&cmdtable.Cmd{Name: "role", Arity: 1, Flags: cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale | cmdtable.Fast, Group: g, Since: "2.8.12", ACL: []string{"admin", "dangerous"},
			Summary: "Returns the replication role.", Run: roleCmd},
		&cmdtable.Cmd{Name: "lastsave", Arity: 1, Flags: cmdtable.Loading | cmdtable.Stale | cmdtable.Fast, Group: g, Since: "1.0.0", ACL: []string{"admin", "dangerous"},
			Summary: "Returns the Unix timestamp of the last successful save to disk.",
			Run:     func(x *cmdtable.Ctx) { x.W.Int(cl(x).s.persist.lastSave.Load()) }},
		&cmdtable.Cmd{Name: "shutdown", Arity: -1, Flags: adm | cmdtable.AllowBusy | cmdtable.NoMulti, Run: shutdown, Group: g, Since: "1.0.0",
			Summary: "Synchronously saves the database(s) to disk and shuts down the Redis server.", Args: "[NOSAVE | SAVE] [NOW] [FORCE] [ABORT]"},
	)
}
