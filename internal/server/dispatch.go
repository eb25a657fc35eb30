package server

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/tick"
)

// execute checks and runs (or queues, inside MULTI) one command, cmd =
// cmdtable.Lookup(args[0]), with the checks in the order Redis's
// processCommand makes them: HTTP (crossProtocol), existence, arity, protected commands,
// authentication, MULTI restrictions, subscribed context, ..., loading.
// Once its arity is known good, the command's key positions are found, once:
// the ACL check, the locks, the snapshot capture, the touches and the
// tracking all read them (c.keys, handed along as keys).
func (c *client) execute(cmd *cmdtable.Cmd, args [][]byte) {
	if cmd == nil {
		if crossProtocol(args[0]) {
			c.crossProtocolAttack()
			return
		}
		c.reject(nil, unknownCommand(args))
		return
	}
	if cmd.Subs != nil && len(args) > 1 {
		sub := cmd.Sub(args[1])
		if sub == nil {
			c.reject(nil, fmt.Sprintf("ERR unknown subcommand '%s'. Try %s HELP.", cstr(args[1], 128), strings.ToUpper(string(cstr(args[0], -1)))))
			return
		}
		cmd = sub
	}
	if !cmd.CheckArity(len(args)) || cmd.Run == nil {
		c.reject(cmd, cmdtable.WrongArgs(cmd.Name))
		return
	}
	keys := cmd.KeyPositions(args, c.keys[:0])
	c.keys = keys
	if cmd.Flags&cmdtable.Protected != 0 && !c.protectedAllowed(cmd) {
		c.reject(cmd, protectedCommandError(cmd))
		return
	}
	if c.authRequired() && cmd.Flags&cmdtable.NoAuth == 0 {
		c.reject(cmd, cmdtable.ErrNoAuth)
		return
	}
	if c.tx.multi != nil && cmd.Flags&cmdtable.NoMulti != 0 {
		c.reject(cmd, "ERR Command not allowed inside a transaction")
		return
	}
	if !c.auth.user.Load().Profile().Unrestricted { // the default user, as a rule
		c.info.lastCmd.Store(cmd) // the log's client-info names it, as Redis's does
		context := "toplevel"
		if c.tx.multi != nil && cmd.Name != "exec" {
			context = "multi"
		}
		if d, ok := c.aclCheck(cmd, args, keys, context); !ok {
			c.reject(cmd, "NOPERM "+noPermText(c.auth.user.Load().Name, cmd, args, d, false))
			return
		}
	}
	if c.s.ev.over.Load() && c.deniedOnOOM(cmd, args) && !c.s.makeRoom() {
		c.reject(cmd, errOOM)
		return
	}
	if cmd.Flags&(cmdtable.Write|cmdtable.ReadOnly) != 0 && c.pubsub.monitoring.Load() {
		c.reject(cmd, errReplicaKeyspace) // Redis flags a monitor as a replica
		return
	}
	if c.io.out.Proto == 2 && c.subscribed() && !allowedWhileSubscribed[cmd.Name] {
		c.reject(cmd, fmt.Sprintf("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context", cmd.Name))
		return
	}
	// A write as Redis's processCommand counts one: by a script's declared
	// flags, and EXEC of a transaction with a write queued.
	flags, _ := c.s.scriptFlags(cmd, args)
	if flags&cmdtable.Write != 0 || cmd.Name == "exec" && c.tx.multi != nil && c.tx.multi.write {
		if msg := c.s.diskError(); msg != "" {
			c.reject(cmd, msg)
			return
		}
		if c.s.repl.TooFew() {
			c.reject(cmd, errNoReplicas)
			return
		}
	}
	if c.s.replicaFlag.Load() {
		if flags&cmdtable.Write != 0 && c.s.Config().ReplicaReadOnly() { // a script's declared flags count, as in Redis
			c.reject(cmd, errReadOnlyReplica)
			return
		}
		// While the link is down, replica-serve-stale-data no leaves only
		// the commands flagged stale (EXEC: all it queued).
		if (flags&cmdtable.Stale == 0 || cmd.Name == "exec" && c.tx.multi != nil && c.tx.multi.denyStale) &&
			!c.s.upstream.LinkUp() && !c.s.Config().ReplicaServeStale() {
			c.reject(cmd, errMasterDown)
			return
		}
	}
	if c.s.loading.Load() && c.deniedWhileLoading(cmd) {
		c.reject(cmd, errLoading)
		return
	}
	if c.s.scripts.Started() != 0 && cmd.Flags&cmdtable.AllowBusy == 0 {
		if msg := c.s.scripts.Busy(c.s.Config().BusyReplyThreshold()); msg != "" {
			c.reject(cmd, msg)
			return
		}
	}
	if c.s.pause.end.Load() != 0 {
		if !c.waitPause(cmd, args) {
			c.io.closing = true
			return
		}
		if msg := c.aclRecheck(cmd, args, keys); msg != "" {
			c.reject(cmd, msg)
			return
		}
		// A write FAILOVER held finds this server a replica now, as
		// Redis's re-run of the held command does.
		if flags&cmdtable.Write != 0 && c.s.replicaFlag.Load() && c.s.Config().ReplicaReadOnly() {
			c.reject(cmd, errReadOnlyReplica)
			return
		}
	}
	if c.tx.multi != nil && !txControl[cmd.Name] {
		c.tx.multi.queue(cmd, args, keys, flags)
		c.tx.queued.Store(int32(len(c.tx.multi.cmds)))
		c.io.out.Simple("QUEUED")
		return
	}
	c.call(cmd, args, keys)
}

var allowedWhileSubscribed = map[string]bool{
	"subscribe": true, "psubscribe": true, "ssubscribe": true, "unsubscribe": true,
	"punsubscribe": true, "sunsubscribe": true, "ping": true, "quit": true, "reset": true,
}

// txControl commands run at once even inside MULTI.
var txControl = map[string]bool{
	"exec": true, "discard": true, "multi": true, "watch": true, "quit": true, "reset": true,
}

// reject answers an error for a command that did not run. Inside MULTI it
// dooms the transaction (EXECABORT); a refused EXEC discards it at once and
// says why, as Redis's execCommandAbort does.
func (c *client) reject(cmd *cmdtable.Cmd, msg string) {
	if cmd != nil && cmd.Name == "exec" {
		c.endMulti()
		msg = "EXECABORT Transaction discarded because of: " + strings.TrimPrefix(msg, "ERR ")
	} else if c.tx.multi != nil {
		c.tx.multi.aborted = true
	}
	c.io.out.Error(msg)
	c.s.stats.CountError(msg)
	if cmd != nil {
		c.s.stats.Rejected(cmd)
		c.info.lastCmd.Store(cmd) // CLIENT LIST's cmd=, as in Redis
	}
}

// cstr is how Redis prints an argument with "%.*s": up to the first NUL, at
// most n bytes (n < 0: no limit).
func cstr(b []byte, n int) []byte {
	b = cmdtable.CString(b)
	if n >= 0 && len(b) > n {
		b = b[:n]
	}
	return b
}

// unknownCommand is Redis's message: the name (128 bytes at most), then
// quoted arguments while the list is under 128 bytes, each cut to what is
// left of those 128.
func unknownCommand(args [][]byte) string {
	var list []byte
	for _, a := range args[1:] {
		if len(list) >= 128 {
			break
		}
		list = append(list, '\'')
		list = append(list, cstr(a, 128-len(list)+1)...)
		list = append(list, '\'', ' ')
	}
	return fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", cstr(args[0], 128), list)
}

// call locks what cmd needs, runs it and records its statistics. keys are
// cmd's key positions in args.
func (c *client) call(cmd *cmdtable.Cmd, args [][]byte, keys []int) {
	db := c.ctx.DB
	if cmd != c.stats.runCmd {
		c.flushStats()
		c.stats.runCmd = cmd
		c.info.lastCmd.Store(cmd)
	}
	c.running = cmd
	c.lock(cmd, args, keys)
	if c.stopping() { // the final save is made: nothing runs after it (shutdown.go)
		c.unlock(cmd, db)
		return
	}
	c.runLocked(cmd, args, keys)
	c.ctx.SetKeyShard(nil, nil)
	var h *holding
	if c.blocked == nil && keyspace.ReadyPending.Load() > 0 {
		// It may have readied blocked clients (a write, or a read that
		// expired a stream): serve them before unlocking.
		h = &holding{all: cmd.Flags&cmdtable.LockAll != 0, db: db, whole: cmd.Flags&cmdtable.LockDB != 0, locks: c.locks}
		c.s.serveReady(h)
		h.releaseExtra()
	}
	c.unlock(cmd, db)
	if h != nil {
		c.s.serveLater(h)
	}
	c.runAfter(cmd)
}

// runAfter runs the unlocked part of a command (Ctx.After), if any, and
// counts its time with the command's.
func (c *client) runAfter(cmd *cmdtable.Cmd) {
	f := c.ctx.After
	if f == nil {
		return
	}
	c.ctx.After = nil
	start := tick.Now()
	c.runPart(cmd, f)
	d := tick.Now() - start
	c.stats.nanos[cmd.ID].Add(uint64(tick.Nanos(d)))
	c.latRecord(cmd, c.stats.lat.Held()+d)
}

// runLocked runs cmd, whose key positions in args are keys, once its locks
// are held (by call, by EXEC for the whole transaction, or by a script).
func (c *client) runLocked(cmd *cmdtable.Cmd, args [][]byte, keys []int) {
	c.ctx.Args = args
	mark := len(c.io.out.B)
	start := tick.Now()
	write := cmd.Flags&cmdtable.Write != 0
	if write {
		if j := c.s.persist.snap.Load(); j != nil {
			c.captureFor(j, cmd, args, keys)
		}
	}
	if write && keyless(cmd, keys) {
		c.runKeyless(cmd, args, mark)
	} else {
		// With its locks held, a write sees the log on or off for all it
		// does (aofswitch.go).
		logged := write && c.s.logging()
		if write {
			c.ctx.Logged = logged
		}
		if c.info.noTouch.Load() {
			saved := c.saveAccess(cmd, args, keys)
			c.run(cmd)
			restoreAccess(saved)
		} else {
			c.run(cmd)
		}
		if write {
			// A command that blocked changed nothing, unless it says so
			// (XREADGROUP creating its consumer).
			effects, rewritten, noChange := c.ctx.TakeEffects()
			if !c.unchanged(effects, rewritten, noChange, mark) {
				c.stats.dirtyRun++
				if logged {
					c.logWrite(cmd, args, effects, rewritten)
				}
			}
		}
	}
	// A command that blocked changed nothing; SelfTouch ones touch what they change.
	if cmd.Flags&(cmdtable.Write|cmdtable.SelfTouch) == cmdtable.Write && c.blocked == nil {
		c.touchKeys(args, keys)
	}
	if c.modes&tracking != 0 || cmd.Flags&(cmdtable.LockDB|cmdtable.LockAll) != 0 && c.s.track.InUse() {
		c.trackAfter(cmd, args, keys, mark)
	}
	d := tick.Now() - start
	if c.blocked != nil {
		c.blocked.ran = d // logged when it ends (waitBlocked), as Redis logs a blocked command
	} else if d >= c.s.stats.slow.MinTicks() {
		c.recordSlow(cmd, args, d)
	}
	if cmd == c.stats.runCmd {
		c.stats.runCalls++
		c.stats.runTicks += d
		if !c.latPending(d) {
			c.latRecord(cmd, d)
		}
	} else { // a command EXEC runs
		c.stats.calls[cmd.ID].Add(1)
		c.stats.nanos[cmd.ID].Add(uint64(tick.Nanos(d)))
		c.latRecord(cmd, d)
	}
	if len(c.io.out.B) > mark && c.io.out.B[mark] == '-' {
		if c.errCounted { // a script's error its command met and counted
			c.errCounted = false
			c.s.stats.Failed(cmd, nil)
		} else {
			c.s.stats.Failed(cmd, c.io.out.B[mark+1:])
		}
		if c.repl.master { // each of a transaction's too
			c.s.propagationError(true, cmd.Name, c.io.out.B[mark:])
		}
	}
	if c.s.mon.n.Load() > 0 { // after it ran, as Redis: SELECT shows its new database, EXEC follows what it ran
		c.feedMonitors(cmd, args)
	}
}

// flushStats publishes the counters the connection keeps without atomics: the
// current command run's calls and time, and keyspace hits and misses. It runs
// when the command changes, at the end of each batch, and before INFO reads
// them, so a connection always sees its own counts.
func (c *client) flushStats() {
	if c.stats.runCalls > 0 {
		c.stats.calls[c.stats.runCmd.ID].Add(c.stats.runCalls)
		c.stats.nanos[c.stats.runCmd.ID].Add(uint64(tick.Nanos(c.stats.runTicks)))
		if c.latDue() {
			c.latFlush(c.stats.runCalls)
		}
		c.stats.runCalls, c.stats.runTicks = 0, 0
	}
	if c.stats.dirtyRun > 0 {
		c.stats.dirty.Add(c.stats.dirtyRun)
		c.stats.dirtyRun = 0
	}
	if c.ctx.Hits != 0 {
		c.stats.hits.Add(c.ctx.Hits)
		c.ctx.Hits = 0
	}
	if c.ctx.Misses != 0 {
		c.stats.misses.Add(c.ctx.Misses)
		c.ctx.Misses = 0
	}
}

// run calls the handler. A panic is a bug, but one command's bug must not
// take the server down nor leave shard locks held: it is logged with its
// stack, counted in INFO's recovered_panics, and answered with an error in
// place of the partial reply, so the connection stays in sync.
func (c *client) run(cmd *cmdtable.Cmd) {
	defer c.recoverRun(cmd, len(c.io.out.B))
	cmd.Run(&c.ctx)
}

// runPart runs f, the part of cmd that runs unlocked, as run runs cmd.
func (c *client) runPart(cmd *cmdtable.Cmd, f func()) {
	defer c.recoverRun(cmd, len(c.io.out.B))
	f()
}

// recoverRun, deferred, turns a panic in cmd into an error reply in place of
// what it wrote from mark on.
func (c *client) recoverRun(cmd *cmdtable.Cmd, mark int) {
	if r := recover(); r != nil {
		c.s.stats.panics.Add(1)
		c.s.logf("warning", "BUG: panic in '%s' from client id=%d: %v\n%s", cmd.Name, c.id, r, debug.Stack())
		if mark <= len(c.io.out.B) {
			c.io.out.B = c.io.out.B[:mark]
		}
		c.io.out.Error("ERR internal error running '" + cmd.Name + "'")
		c.ctx.After = nil
	}
}

// touchKeys signals a write to the keys at positions keys of args (WATCH,
// blocked clients).
func (c *client) touchKeys(args [][]byte, keys []int) {
	if !keyspace.Observed() {
		return // nothing is watched or waited on: Touch would do nothing
	}
	for _, i := range keys {
		c.ctx.DB.ShardFor(args[i]).Touch(args[i])
	}
}

// lock takes the shard locks cmd needs: none, the shards of its keys (at
// positions keys of args) in ascending order (so that two multi-key commands
// never deadlock), its database's, or every database's. A command that also
// writes its keys in another database (OtherDB) gets the same shards there
// too; locks are always taken in (database, shard) order, which LockAll
// follows as well.
func (c *client) lock(cmd *cmdtable.Cmd, args [][]byte, keys []int) {
	switch {
	case cmd.Flags&cmdtable.SelfLock != 0:
	case cmd.Flags&cmdtable.LockAll != 0:
		c.gated = c.s.gate.shared(c.id)
		c.s.ks.LockAllBy(c.id)
	case cmd.Flags&cmdtable.LockDB != 0:
		c.gated = c.s.gate.shared(c.id)
		c.ctx.DB.LockAllBy(c.id)
	case len(keys) == 0: // no shard: c.locks stays empty, for unlock
	default:
		c.locks = c.locks[:0]
		for _, i := range keys {
			c.locks = append(c.locks, c.shardIndex(args[i]))
		}
		if cmd.OtherDB != nil {
			if n := cmd.OtherDB(args, c.ctx.DBID); n >= 0 && n < len(c.s.ks.DBs) { // else Run only answers an error
				c.other, c.otherID = c.s.ks.DBs[n], n
			}
		}
		c.lockShards()
		if len(keys) == 1 {
			c.ctx.SetKeyShard(args[keys[0]], c.ctx.DB.Shard(c.locks[0]))
			c.keyHash(args[keys[0]])
		}
	}
}

func (c *client) lockShards() {
	if len(c.locks) > 1 {
		slices.Sort(c.locks)
		c.locks = slices.Compact(c.locks)
	}
	if c.gated == nil && (len(c.locks) > 1 || c.other != nil && len(c.locks) > 0) { // EXEC holds it already
		c.gated = c.s.gate.shared(c.id)
	}
	if c.other != nil && c.otherID < c.ctx.DBID {
		c.lockIn(c.other)
		c.lockIn(c.ctx.DB)
		return
	}
	c.lockIn(c.ctx.DB)
	if c.other != nil {
		c.lockIn(c.other)
	}
}

func (c *client) lockIn(db *keyspace.DB) {
	for _, i := range c.locks {
		db.Shard(i).LockBy(c.id)
	}
}

func (c *client) unlock(cmd *cmdtable.Cmd, db *keyspace.DB) {
	switch {
	case cmd.Flags&cmdtable.SelfLock != 0:
	case cmd.Flags&cmdtable.LockAll != 0:
		c.s.ks.UnlockAll()
	case cmd.Flags&cmdtable.LockDB != 0:
		db.UnlockAll()
	default:
		c.unlockShards(db)
	}
	c.ungate()
}

// ungate releases the gate a multi-lock section took, once its shards are
// unlocked.
func (c *client) ungate() {
	if c.gated != nil {
		c.gated.RUnlock()
		c.gated = nil
	}
}

func (c *client) unlockShards(db *keyspace.DB) {
	for _, i := range c.locks {
		db.Shard(i).Unlock()
		if c.other != nil {
			c.other.Shard(i).Unlock()
		}
	}
	c.locks, c.other = c.locks[:0], nil
}
