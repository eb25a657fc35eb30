package server

import (
	"strings"

	"github.com/hotkv/hotkv/internal/ai"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/vector/vindex"
)

// registries are the named objects that live beside the keyspace, not in
// it: the named vector indexes and the AI layer's caches and memories.
// They are server-wide, not keys: FLUSHALL and SWAPDB leave them be, and
// they lock themselves (never by shards). The server keeps one set for its
// life, its clients' handler contexts point at it, and a full sync from a
// master Replaces their contents in place; a load into a staging keyspace
// (DEBUG RELOAD, LOADAOF) leaves them as they are.
type registries struct {
	indexes *vindex.Registry
	ai      *ai.Registry
}

func newRegistries() registries {
	return registries{indexes: vindex.NewRegistry(), ai: ai.NewRegistry()}
}

// startupRegistries is where a load puts the registries of the file: the
// server's at start-up, nowhere otherwise (DEBUG RELOAD and LOADAOF keep
// the server's as they are).
func (s *Server) startupRegistries(startup bool) *registries {
	if startup {
		return &s.reg
	}
	return nil
}

// replace makes r hold what src holds (a full sync's), in place.
func (r *registries) replace(src *registries) {
	r.indexes.Replace(src.indexes)
	r.ai.Replace(src.ai)
}

// Keyless writes change state that lives beside the keyspace (the named
// vector indexes, the AI layer's caches and memories) and so take no shard
// lock. They hold regMu shared while they run and append their log record,
// which the snapshot instant takes exclusively: each is then wholly before
// or after the instant, in the saved registries and the log alike.

// keyless reports whether cmd, a write whose key positions are keys, names
// no key and locks no database.
func keyless(cmd *cmdtable.Cmd, keys []int) bool {
	return cmd.Flags&(cmdtable.LockDB|cmdtable.LockAll) == 0 && len(keys) == 0
}

// runKeyless runs and logs a keyless write. AI writes assign ids, LRU
// order and dedup merges under their own objects' locks, and FUNCTION's
// writes replace libraries by name, so with the log on they run one at a
// time: the log's order is then the order they took effect in, and replay
// assigns the same ids and keeps the same libraries. Index writes stay parallel
// (two clients setting the same element at once are the one case whose
// log order may differ from the order they took effect in).
func (c *client) runKeyless(cmd *cmdtable.Cmd, args [][]byte, mark int) {
	serial := isAIWrite(cmd.Name) || strings.HasPrefix(cmd.Name, "function|")
	if serial && c.s.logging() {
		c.s.regMu.Lock()
		defer c.s.regMu.Unlock()
	} else {
		c.s.regMu.RLock()
		if serial && c.s.logging() { // turned on meanwhile
			c.s.regMu.RUnlock()
			c.s.regMu.Lock()
			defer c.s.regMu.Unlock()
		} else {
			defer c.s.regMu.RUnlock()
		}
	}
	if c.stopping() { // the final save is made (shutdown.go)
		return
	}
	// regMu held: the log is not switched until this returns (internal/aof: Switch).
	logged := c.s.logging()
	c.ctx.Logged = logged
	c.run(cmd)
	effects, rewritten, noChange := c.ctx.TakeEffects() // MIGRATE of no key logs nothing
	if !c.unchanged(effects, rewritten, noChange, mark) {
		c.stats.dirtyRun++
		if logged {
			c.logWrite(cmd, args, effects, rewritten)
		}
	}
}

func isAIWrite(name string) bool {
	return strings.HasPrefix(name, "pcache.") || strings.HasPrefix(name, "scache.") || strings.HasPrefix(name, "amem.")
}
