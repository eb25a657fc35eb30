package server

import (
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/lazyfree"
	"github.com/hotkv/hotkv/internal/script"
)

// Lua scripting: EVAL, EVALSHA, their _RO forms and SCRIPT. A script is
// atomic as in Redis: it holds every shard it touches until it ends, and the
// gate (gate.go) keeps every multi-key command out meanwhile, so nothing can
// see it half done. The commands it calls run as EXEC runs a transaction's:
// under those locks, their writes
// collected into one append-only-log record (the effects, as Redis 7
// replicates them), keyspace events and WATCH signals as they happen, and
// clients blocked on keys it wrote served when it ends.

// evalKeys locates EVAL's keys: numkeys at args[2], then that many keys.
func evalKeys(args [][]byte, out []int) []int {
	if len(args) < 3 {
		return out
	}
	n, ok := cmdtable.ParseInt(args[2])
	if !ok || n < 1 {
		return out
	}
	for i := 3; i < len(args) && int64(i-2) <= n; i++ {
		out = append(out, i)
	}
	return out
}

// evalArgs splits EVAL's (and FCALL's) "numkeys key... arg..." (from
// args[2]); notInt is the error for a numkeys that is not a number.
func evalArgs(x *cmdtable.Ctx, notInt string) (keys, argv [][]byte, ok bool) {
	n, ok := cmdtable.ParseInt(x.Args[2])
	switch {
	case !ok:
		x.Error(notInt)
		return nil, nil, false
	case n < 0:
		x.Error("ERR Number of keys can't be negative")
		return nil, nil, false
	case n > int64(len(x.Args)-3):
		x.Error(cmdtable.ErrNumKeysArgs)
		return nil, nil, false
	}
	return x.Args[3 : 3+n], x.Args[3+n:], true
}

func evalCmd(readOnly bool) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		cl(x).showScriptCall(x)
		keys, argv, ok := evalArgs(x, cmdtable.ErrNotInt)
		if !ok {
			return
		}
		c := cl(x)
		sc, err := c.s.scripts.Load(x.Args[1])
		if err != nil {
			x.Error(err.Error())
			return
		}
		c.runScript(sc, keys, argv, readOnly)
	}
}

func evalshaCmd(readOnly bool) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		cl(x).showScriptCall(x)
		keys, argv, ok := evalArgs(x, cmdtable.ErrNotInt)
		if !ok {
			return
		}
		c := cl(x)
		sc := c.s.scripts.Lookup(x.Args[1])
		if sc == nil {
			x.Error(script.ErrNoScript)
			return
		}
		c.runScript(sc, keys, argv, readOnly)
	}
}

// scriptFlags are EVAL's (FCALL's) command flags adjusted to what its
// script (function) declares, as Redis's evalGetCommandFlags: a script with
// a shebang, or a function, may write (and is refused while memory is
// short) unless it says otherwise. declared is false for other commands,
// scripts without a shebang and unknown functions, which keep cmd's flags.
func (s *Server) scriptFlags(cmd *cmdtable.Cmd, args [][]byte) (f cmdtable.Flags, declared bool) {
	if cmd.Flags&cmdtable.SelfLock == 0 || len(args) < 2 { // only the EVAL and FCALL families lock for themselves
		return cmd.Flags, false
	}
	var m script.Mode
	if strings.HasPrefix(cmd.Name, "fcall") {
		if fn := s.scripts.Function(args[1]); fn != nil {
			m = fn.Mode
		}
	} else {
		m = s.scripts.ModeOf(args[1], strings.HasPrefix(cmd.Name, "evalsha"))
	}
	if m&script.Declared == 0 {
		return cmd.Flags, false
	}
	f = cmd.Flags &^ (cmdtable.DenyOOM | cmdtable.Write)
	if m&(script.NoWrites|script.AllowOOM) == 0 {
		f |= cmdtable.DenyOOM
	}
	if m&script.NoWrites == 0 {
		f |= cmdtable.Write
	}
	return f, true
}

// scriptRun is what redis.call needs to know of the script running on a
// client (the client itself is the script.Caller). It lives in the client,
// so that a script costs no allocation for it.
type scriptRun struct {
	nested   bool // inside MULTI/EXEC: EXEC holds the locks, its record takes the writes
	readOnly bool // EVAL_RO, or flags=no-writes
	oom      bool // over maxmemory when the script started
	wrote    bool
	locks    scriptLocks
	keys     []int  // the key positions of the call running
	reply    []byte // the last call's reply, read by the engine before the next call
}

// runScript runs a cached script. Outside a transaction it takes the gate
// exclusively and then each shard as its commands need it (scriptLocks);
// inside EXEC, which took every shard for it, it takes nothing.
func (c *client) runScript(sc *script.Script, keys, argv [][]byte, readOnly bool) {
	if readOnly && sc.Mode&script.Declared != 0 && sc.Mode&script.NoWrites == 0 {
		c.ctx.Error("ERR Can not execute a script with write flag using *_ro command.")
		return
	}
	if sc.Mode&script.Declared != 0 && sc.Mode&script.NoWrites == 0 && !c.repl.master && c.s.readOnlyReplica() {
		c.ctx.Error("READONLY Can not run script with write flag on readonly replica")
		return
	}
	x := &c.ctx
	db, dbID, args, blocker := x.DB, x.DBID, x.Args, x.Blocker
	r := &c.script
	r.nested, r.wrote = c.tx.inExec, false
	r.readOnly = readOnly || sc.Mode&script.NoWrites != 0
	// As in Redis, memory is made room for (or found short) once, before the
	// script: evicting takes shard locks, which a running script may hold.
	// A script declaring allow-oom (or no-writes) is never refused.
	r.oom = c.s.ev.over.Load() && sc.Mode&(script.AllowOOM|script.NoWrites) == 0 && (r.nested || !c.s.makeRoom())
	if !r.nested {
		c.s.gate.exclusive()
		if c.stopping() { // the final save is made (shutdown.go)
			c.s.gate.release()
			return
		}
		defer func() { // a bug must not leave every multi-key command waiting
			if p := recover(); p != nil {
				c.tx.inExec = false
				r.locks.release()
				c.s.gate.release()
				panic(p)
			}
		}()
	}
	c.tx.inExec = true
	c.tx.execTime = 0
	x.Blocker = nil // blocking commands answer at once, as inside a transaction
	c.s.scripts.Run(sc, args, keys, argv, c, &c.io.out)
	x.DB, x.DBID, x.Args, x.Blocker = db, dbID, args, blocker // SELECT inside a script ends with it
	if r.nested {
		return
	}
	c.tx.inExec = false
	c.logTx()
	// Clients blocked on keys it wrote, in any database, are served before
	// anything else runs; those whose shards it did not hold, once it has
	// unlocked.
	var h *holding
	if keyspace.ReadyPending.Load() > 0 {
		h = &holding{all: r.locks.all, held: r.locks.held} // used before release only
		c.s.serveReady(h)
		h.releaseExtra()
	}
	r.locks.release()
	c.s.gate.release()
	if h != nil {
		c.s.serveLater(h)
	}
}

// Call runs one redis.call or redis.pcall of the script running on c and
// returns its reply in protocol proto (script.Caller).
func (c *client) Call(args [][]byte, proto int) []byte {
	r := &c.script
	cmd := c.s.lookup(args[0])
	if cmd != nil && cmd.Subs != nil && len(args) > 1 {
		cmd = cmd.Sub(args[1])
	}
	valid := cmd != nil && cmd.Run != nil && cmd.CheckArity(len(args))
	if valid {
		r.keys = cmd.KeyPositions(args, r.keys[:0])
	}
	var refusal string
	switch {
	case cmd == nil || cmd.Run == nil:
		refusal = "ERR Unknown Redis command called from script"
	case !valid:
		refusal = "ERR Wrong number of args calling Redis command from script"
	case cmd.Flags&cmdtable.NoScript != 0 && !(c.s.debug.denyScriptsOff.Load() && undeniable(cmd)):
		refusal = "ERR This Redis command is not allowed from script"
	case !c.scriptACL(cmd, args, r.keys, &refusal):
	case r.readOnly && (cmd.Flags&cmdtable.Write != 0 || mayReplicate[cmd.Name]):
		refusal = "ERR Write commands are not allowed from read-only scripts."
	case cmd.Flags&cmdtable.Write != 0 && !c.repl.master && c.s.readOnlyReplica():
		refusal = errReadOnlyReplica
	case cmd.Flags&cmdtable.Write != 0 && !r.wrote && c.s.repl.TooFew(): // a script without flags, as in Redis
		refusal = errNoReplicas
	case !r.wrote && r.oom && cmd.Flags&cmdtable.DenyOOM != 0:
		refusal = errOOM
	}
	if refusal != "" { // counted as Redis counts a refused call: in errorstats and the command's rejected_calls
		c.s.stats.CountError(refusal)
		if cmd != nil && cmd.Run != nil {
			c.s.stats.Rejected(cmd)
		}
		return []byte("-" + refusal + "\r\n")
	}
	if !r.nested {
		r.locks.take(c, cmd, args, r.keys)
	}
	mark, clientProto := len(c.io.out.B), c.io.out.Proto
	c.io.out.Proto = proto
	c.ctx.InScript = true
	c.runLocked(cmd, args, r.keys)
	c.runAfter(cmd) // VSIM's search, still under the script's locks
	c.ctx.InScript = false
	c.io.out.Proto = clientProto
	r.reply = append(r.reply[:0], c.io.out.B[mark:]...)
	c.io.out.B = c.io.out.B[:mark]
	if cmd.Flags&cmdtable.Write != 0 && !isErrorReply(r.reply) && !r.wrote {
		r.wrote = true
		c.s.scripts.Wrote()
	}
	return r.reply
}

// undeniable reports whether DEBUG SET-DISABLE-DENY-SCRIPTS 1 lets scripts
// call cmd, a noscript command: only DEBUG and CLIENT, which Redis's test
// suite calls so. Others (EXEC, SAVE, SCRIPT, FUNCTION, ...) would wait for
// the gate, the shards or the script engine the running script holds.
func undeniable(cmd *cmdtable.Cmd) bool {
	if cmd.Parent != nil {
		cmd = cmd.Parent
	}
	return cmd.Name == "debug" || cmd.Name == "client"
}

// scriptLocks are the shards a running script holds: taken as its commands
// need them, in any order (the exclusive gate makes that safe), released
// when it ends. A bit per shard of every database says which are held;
// both are kept for the client's next script.
type scriptLocks struct {
	held []shardRef
	bits []uint64 // bit db*ShardCount+shard
	all  bool     // every shard of every database
}

// take locks what cmd needs before it runs: the shards of its keys (at
// positions keys of args, and the same shards of another database for MOVE
// and COPY ... DB), its database's, or every database's (INFO counts keys
// shard by shard, as in EXEC).
func (l *scriptLocks) take(c *client, cmd *cmdtable.Cmd, args [][]byte, keys []int) {
	if l.all {
		return
	}
	if l.bits == nil {
		l.bits = make([]uint64, (len(c.s.ks.DBs)*keyspace.ShardCount+63)/64)
	}
	switch {
	case cmd.Flags&cmdtable.LockAll != 0 || countsShards(cmd):
		for _, db := range c.s.ks.DBs {
			l.whole(c.id, db)
		}
		l.all = true
	case cmd.Flags&cmdtable.LockDB != 0:
		l.whole(c.id, c.ctx.DB)
	default:
		other := (*keyspace.DB)(nil)
		if cmd.OtherDB != nil {
			if n := cmd.OtherDB(args, c.ctx.DBID); n >= 0 && n < len(c.s.ks.DBs) {
				other = c.s.ks.DBs[n]
			}
		}
		for _, i := range keys {
			idx := keyspace.ShardIndex(args[i])
			l.one(c.id, c.ctx.DB, idx)
			if other != nil {
				l.one(c.id, other, idx)
			}
		}
	}
}

func (l *scriptLocks) one(id int64, db *keyspace.DB, i int) {
	bit := db.ID()*keyspace.ShardCount + i
	if l.bits[bit/64]&(1<<(bit%64)) == 0 {
		db.Shard(i).LockBy(id)
		l.bits[bit/64] |= 1 << (bit % 64)
		l.held = append(l.held, shardRef{db, i})
	}
}

func (l *scriptLocks) whole(id int64, db *keyspace.DB) {
	for i := range keyspace.ShardCount {
		l.one(id, db, i)
	}
}

// release unlocks them all.
func (l *scriptLocks) release() {
	for _, r := range l.held {
		r.db.Shard(r.i).Unlock()
		bit := r.db.ID()*keyspace.ShardCount + r.i
		l.bits[bit/64] &^= 1 << (bit % 64)
	}
	l.held = l.held[:0]
	l.all = false
}

func isErrorReply(b []byte) bool { return len(b) > 0 && b[0] == '-' }

func scriptLoad(x *cmdtable.Ctx) {
	sc, err := cl(x).s.scripts.Load(x.Args[2])
	if err != nil {
		x.Error(err.Error())
		return
	}
	x.W.BulkString(sc.SHA)
}

func scriptExists(x *cmdtable.Ctx) {
	e := cl(x).s.scripts
	x.W.Array(len(x.Args) - 2)
	for _, sha := range x.Args[2:] {
		if e.Lookup(sha) != nil {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
	}
}

func scriptFlush(x *cmdtable.Ctx) {
	if len(x.Args) > 3 || len(x.Args) == 3 && !cmdtable.Is(x.Args[2], "async") && !cmdtable.Is(x.Args[2], "sync") {
		x.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	s := cl(x).s
	n, bytes := s.scripts.Flush()
	s.scriptsFlushed(x, n, 0, bytes)
	x.W.OK()
}

// scriptsFlushed hands what SCRIPT FLUSH or FUNCTION FLUSH dropped to the
// lazy free: n scripts or functions (and engines more, Lua's state for
// functions), counted as freed lazily when the flush is asynchronous (ASYNC,
// or no mode with lazyfree-lazy-user-flush) and n is above Redis's
// threshold, as its freeLuaScriptsAsync and freeFunctionsAsync count them.
func (s *Server) scriptsFlushed(x *cmdtable.Ctx, n, engines, bytes int) {
	lazy := s.ks.Lazy
	async := lazy.UserFlush.Load()
	if len(x.Args) == 3 {
		async = cmdtable.Is(x.Args[2], "async")
	}
	var objects int64
	if async && n > lazyfree.Threshold {
		objects = int64(n + engines)
	}
	lazy.Drop(objects, int64(bytes))
}

// scriptKill stops a running script that has not written yet. It takes no
// shard lock, so it runs beside the script (which holds them all); the
// other clients' commands wait for the script instead of answering BUSY.
func scriptKill(x *cmdtable.Ctx) {
	if msg := cl(x).s.scripts.Kill(false); msg != "" {
		x.Error(msg)
		return
	}
	x.W.OK()
}

func init() {
	const g = "scripting"
	evalFlags := cmdtable.NoScript | cmdtable.Stale | cmdtable.SelfLock | cmdtable.NoMandatoryKeys | cmdtable.SkipMonitor
	cmdtable.Register(
		&cmdtable.Cmd{Name: "eval", Arity: -3, Flags: evalFlags, Keys: evalKeys, Run: evalCmd(false), Group: g, Since: "2.6.0",
			Summary: "Executes a server-side Lua script.", Args: "script numkeys [key [key ...]] [arg [arg ...]]"},
		&cmdtable.Cmd{Name: "evalsha", Arity: -3, Flags: evalFlags, Keys: evalKeys, Run: evalshaCmd(false), Group: g, Since: "2.6.0",
			Summary: "Executes a server-side Lua script by SHA1 digest.", Args: "sha1 numkeys [key [key ...]] [arg [arg ...]]"},
		&cmdtable.Cmd{Name: "eval_ro", Arity: -3, Flags: evalFlags | cmdtable.ReadOnly, Keys: evalKeys, Run: evalCmd(true), Group: g, Since: "7.0.0",
			Summary: "Executes a read-only server-side Lua script.", Args: "script numkeys [key [key ...]] [arg [arg ...]]"},
		&cmdtable.Cmd{Name: "evalsha_ro", Arity: -3, Flags: evalFlags | cmdtable.ReadOnly, Keys: evalKeys, Run: evalshaCmd(true), Group: g, Since: "7.0.0",
			Summary: "Executes a read-only server-side Lua script by SHA1 digest.", Args: "sha1 numkeys [key [key ...]] [arg [arg ...]]"},
	)
	f := cmdtable.NoScript
	cmdtable.Register(&cmdtable.Cmd{Name: "script", Arity: -2, Group: g, Since: "2.6.0", Summary: "A container for Lua scripts management commands.",
		Subs: []*cmdtable.Cmd{
			{Name: "script|load", Arity: 3, Flags: f | cmdtable.Stale, Run: scriptLoad, Group: g, Since: "2.6.0",
				Summary: "Loads a server-side Lua script to the script cache.", Args: "script"},
			{Name: "script|exists", Arity: -3, Flags: f, Run: scriptExists, Group: g, Since: "2.6.0",
				Summary: "Determines whether server-side Lua scripts exist in the script cache.", Args: "sha1 [sha1 ...]"},
			{Name: "script|flush", Arity: -2, Flags: f, Run: scriptFlush, Group: g, Since: "2.6.0",
				Summary: "Removes all server-side Lua scripts from the script cache.", Args: "[ASYNC | SYNC]"},
			{Name: "script|kill", Arity: 2, Flags: f | cmdtable.AllowBusy, Run: scriptKill, Group: g, Since: "2.6.0",
				Summary: "Terminates a server-side Lua script during execution."},
			cmdtable.HelpCmd("script", "scripting", "5.0.0", []string{
				"EXISTS <sha1> [<sha1> ...]", "    Return information about the existence of the scripts in the script cache.",
				"FLUSH [ASYNC|SYNC]", "    Flush the Lua scripts cache. Very dangerous on replicas.",
				"    When called without the optional mode argument, the behavior is determined by the",
				"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
				"    * ASYNC: Asynchronously flush the scripts cache.",
				"    * SYNC: Synchronously flush the scripts cache.",
				"KILL", "    Kill the currently executing Lua script.",
				"LOAD <script>", "    Load a script into the scripts cache without executing it.",
			}),
		}})
}
