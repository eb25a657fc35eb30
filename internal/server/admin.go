package server

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/hll"
	"github.com/hotkv/hotkv/internal/value/list"
	"github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// Server commands: CONFIG, LASTSAVE, SHUTDOWN (DEBUG is in debug.go).

// configGet is CONFIG GET: a name without glob characters is looked up
// case-insensitively and answered under the spelling asked for (as Redis
// does); a pattern matches case-insensitively. Each setting appears once.
func configGet(x *cmdtable.Ctx) {
	cfg := cl(x).s.Config()
	seen := map[*config.Param]bool{}
	var pairs [][2]string
	for _, pat := range x.Args[2:] {
		if !bytes.ContainsAny(pat, "[*?") {
			if p := config.Lookup(string(pat)); p != nil && !seen[p] {
				seen[p] = true
				pairs = append(pairs, [2]string{string(pat), p.Get(cfg)})
			}
			continue
		}
		for _, p := range config.Visible() {
			if !seen[p] && glob.Match(pat, []byte(p.Name), true) {
				seen[p] = true
				pairs = append(pairs, [2]string{p.Name, p.Get(cfg)})
			}
		}
	}
	x.W.Map(len(pairs))
	for _, kv := range pairs {
		x.W.BulkString(kv[0])
		x.W.BulkString(kv[1])
	}
}

// configSet is CONFIG SET, atomic over all its pairs as in Redis 7+: every
// name is checked first (unknown, immutable, duplicate), then the values are
// applied to a copy that replaces the settings only if all of them are valid.
// Errors name the parameter as the client spelled it.
func configSet(x *cmdtable.Ctx) {
	s := cl(x).s
	args := x.Args[2:]
	if len(args)%2 != 0 {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	fail := func(name []byte, why string) {
		x.Error(fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", cstr(name, -1), why))
	}
	params := make([]*config.Param, 0, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		p := config.Lookup(string(args[i]))
		if p == nil {
			x.Error(fmt.Sprintf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", cstr(args[i], -1)))
			return
		}
		if p.Immutable {
			fail(args[i], "can't set immutable config")
			return
		}
		if p.Protected && !cl(x).mayDo(s.Config().EnableProtectedConfigs) {
			fail(args[i], "can't set protected config")
			return
		}
		if slices.Contains(params, p) {
			fail(args[i], "duplicate parameter")
			return
		}
		params = append(params, p)
	}
	s.cfgMu.Lock() // concurrent CONFIG SETs must not undo each other
	defer s.cfgMu.Unlock()
	next := s.Config().Clone()
	for i, p := range params {
		vals := []string{string(args[2*i+1])}
		if p.Multi {
			vals = strings.Fields(vals[0])
		}
		if err := p.Set(next, vals); err != nil {
			fail(args[2*i], err.Error())
			return
		}
	}
	prev := s.Config()
	moved := next.Port != prev.Port || !slices.Equal(next.Bind, prev.Bind)
	if moved {
		if err := s.rebind(prev, next); err != nil {
			name := "port"
			if next.Port == prev.Port {
				name = "bind"
			}
			fail(args[paramArg(params, name)], err.Error())
			return
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
			fail(args[tlsArg(params)], "Unable to update TLS configuration: "+err.Error())
			return
		}
	}
	if next.AppendOnly {
		if err := s.setAppendOnly(true, next, cl(x)); err != nil {
			undoMove()
			fail(args[paramArg(params, "appendonly")], "Unable to turn on AOF. Check server logs.")
			return
		}
	}
	s.cfg.Store(next)
	if !next.AppendOnly {
		s.setAppendOnly(false, next, cl(x))
	}
	if next.RequirePass != prev.RequirePass {
		s.setRequirePass(next.RequirePass)
	}
	s.users.SetPubsubDefault(next.ACLPubsubAll)
	tighter := s.applyMemoryConfig(next)
	s.ks.Events.Set(next.NotifyKeyspaceEvents)
	s.slow.Configure(next.SlowlogSlowerThan, next.SlowlogMaxLen, next.LatencyMonitorMs)
	s.applyRedisParams(next)
	s.repl.configure(next)
	if c := cl(x); tighter != 0 && c.inExec {
		c.memGen = tighter // EXEC holds the shards the measurement counts: exec waits
	} else if tighter != 0 {
		s.awaitMeasurement(tighter)
	}
	x.W.OK()
}

// paramArg is the index in CONFIG SET's arguments of parameter name.
func paramArg(params []*config.Param, name string) int {
	for i, p := range params {
		if p.Name == name {
			return 2 * i
		}
	}
	return 0
}

// tlsArg is the index in CONFIG SET's arguments of the first tls-*
// parameter set, which a refused TLS change is reported against.
func tlsArg(params []*config.Param) int {
	for i, p := range params {
		if strings.HasPrefix(p.Name, "tls-") {
			return 2 * i
		}
	}
	return 0
}

// applyRedisParams makes the Redis parameters of cfg take effect
// (hll-sparse-max-bytes, the encoding thresholds, lazyfree-lazy-user-*),
// at start-up and after CONFIG SET.
func (s *Server) applyRedisParams(cfg *config.Config) {
	s.ks.Lazy.UserDel.Store(cfg.LazyFree("user-del"))
	s.ks.Lazy.UserFlush.Store(cfg.LazyFree("user-flush"))
	hll.SetSparseMaxBytes(cfg.HLLSparseMaxBytes())
	e := cfg.Encodings()
	hash.SetThresholds(e.HashListpackEntries, e.HashListpackValue)
	set.SetThresholds(e.SetIntsetEntries, e.SetListpackEntries, e.SetListpackValue)
	zset.SetThresholds(e.ZSetListpackEntries, e.ZSetListpackValue)
	list.SetFill(e.ListListpackSize)
	stream.SetNodeLimits(e.StreamNodeMaxEntries, e.StreamNodeMaxBytes)
	s.load.delay.Store(cfg.KeyLoadDelay())
}

// configRewrite is CONFIG REWRITE: the configuration file the server was
// started with is rewritten to the current settings and users (see
// config.Rewrite). cfgMu keeps CONFIG SETs out until the file is written.
func configRewrite(x *cmdtable.Ctx) {
	s := cl(x).s
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	cfg := s.Config()
	if cfg.File == "" {
		x.Error("ERR The server is running without a config file")
		return
	}
	if err := config.RewriteFile(cfg.File, cfg, s.aclLines()); err != nil {
		msg := err.Error()
		var errno syscall.Errno
		if errors.As(err, &errno) { // strerror's wording, as Redis prints it
			msg = errno.Error()
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		s.logf("warning", "CONFIG-REWRITE failed: %s", msg)
		x.Error("ERR Rewriting config file: " + msg)
		return
	}
	s.logf("notice", "CONFIG REWRITE executed with success.")
	x.W.OK()
}

func init() {
	const g = "server"
	adm := cmdtable.Admin | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale
	cmdtable.Register(
		&cmdtable.Cmd{Name: "config", Arity: -2, Group: g, Since: "2.0.0", Summary: "A container for server configuration commands.",
			Subs: []*cmdtable.Cmd{
				{Name: "config|get", Arity: -3, Flags: adm, Run: configGet, Group: g, Since: "2.0.0",
					Summary: "Returns the effective values of configuration parameters.", Args: "parameter [parameter ...]"},
				{Name: "config|set", Arity: -4, Flags: adm, Run: configSet, Group: g, Since: "2.0.0",
					Summary: "Sets configuration parameters in-flight.", Args: "parameter value [parameter value ...]"},
				{Name: "config|resetstat", Arity: 2, Flags: adm, Group: g, Since: "2.0.0",
					Summary: "Resets the server's statistics.",
					Run:     func(x *cmdtable.Ctx) { c := cl(x); c.flushStats(); c.s.resetStats(); x.W.OK() }},
				{Name: "config|rewrite", Arity: 2, Flags: adm, Group: g, Since: "2.8.0",
					Summary: "Persists the effective configuration to file.",
					Run:     configRewrite},
				helpCmd("config", []string{
					"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
					"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
					"RESETSTAT", "    Reset statistics reported by the INFO command.",
					"REWRITE", "    Rewrite the configuration file.",
				}),
			}},
		&cmdtable.Cmd{Name: "role", Arity: 1, Flags: cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale | cmdtable.Fast, Group: g, Since: "2.8.12", ACL: []string{"admin", "dangerous"},
			Summary: "Returns the replication role.", Run: roleCmd},
		&cmdtable.Cmd{Name: "lastsave", Arity: 1, Flags: cmdtable.Loading | cmdtable.Stale | cmdtable.Fast, Group: g, Since: "1.0.0", ACL: []string{"admin", "dangerous"},
			Summary: "Returns the Unix timestamp of the last successful save to disk.",
			Run:     func(x *cmdtable.Ctx) { x.W.Int(cl(x).s.lastSave.Load()) }},
		&cmdtable.Cmd{Name: "shutdown", Arity: -1, Flags: adm | cmdtable.AllowBusy | cmdtable.NoMulti, Run: shutdown, Group: g, Since: "1.0.0",
			Summary: "Synchronously saves the database(s) to disk and shuts down the Redis server.", Args: "[NOSAVE | SAVE] [NOW] [FORCE] [ABORT]"},
	)
}
