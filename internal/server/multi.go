package server

import (
	"slices"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH. EXEC locks every shard
// its queued commands touch (every shard of every database if one of them
// needs that, or selects another database) for the whole block, so a
// transaction is atomic across shards.

type multiState struct {
	cmds      []queued
	aborted   bool // a command was refused while queueing: EXEC answers EXECABORT
	denyOOM   bool // a queued command may add data: EXEC is refused while out of memory
	write     bool // a queued command may write: EXEC is refused as a write is
	denyStale bool // a queued command is refused on a stale replica: EXEC is too
}

type queued struct {
	cmd  *cmdtable.Cmd
	args [][]byte
	keys []int // cmd's key positions in args
}

// queue keeps a copy of args, the read buffer they point into being reused,
// and of keys, cmd's key positions in them. flags are cmd's as its script
// declares them (scriptFlags).
func (m *multiState) queue(cmd *cmdtable.Cmd, args [][]byte, keys []int, flags cmdtable.Flags) {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	cp := make([][]byte, len(args))
	for i, a := range args {
		buf = append(buf, a...)
		cp[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	m.cmds = append(m.cmds, queued{cmd, cp, slices.Clone(keys)})
	m.denyOOM = m.denyOOM || flags&cmdtable.DenyOOM != 0
	m.write = m.write || flags&cmdtable.Write != 0
	m.denyStale = m.denyStale || flags&cmdtable.Stale == 0
}

type watchedKey struct {
	db     int
	key    string
	expire int64 // the key's expiry when watched: passing it counts as a change
}

func multi(x *cmdtable.Ctx) {
	c := cl(x)
	if c.tx.multi != nil {
		x.Error("ERR MULTI calls can not be nested")
		return
	}
	c.tx.multi = &multiState{}
	c.tx.queued.Store(0)
	x.W.OK()
}

// endMulti leaves MULTI state and drops every WATCH (Redis's
// discardTransaction).
func (c *client) endMulti() {
	c.tx.multi = nil
	c.tx.queued.Store(-1)
	c.unwatchAll()
}

func discard(x *cmdtable.Ctx) {
	c := cl(x)
	if c.tx.multi == nil {
		x.Error("ERR DISCARD without MULTI")
		return
	}
	c.endMulti()
	x.W.OK()
}

func exec(x *cmdtable.Ctx) {
	c := cl(x)
	m := c.tx.multi
	if m == nil {
		x.Error("ERR EXEC without MULTI")
		return
	}
	c.tx.multi = nil
	defer c.tx.queued.Store(-1) // CLIENT LIST shows the transaction until EXEC ends
	if !m.aborted {
		c.execLocked(m.cmds)
	} else {
		x.Error("EXECABORT Transaction discarded because of previous errors.")
	}
	// Only now, with no shard held: taking a watched key's shard while
	// holding others could invert the lock order and deadlock.
	c.unwatchAll()
	if c.tx.memGen != 0 { // a CONFIG SET in it lowered maxmemory
		c.s.awaitMeasurement(c.tx.memGen)
		c.tx.memGen = 0
	}
	if c.tx.aofOff { // a CONFIG SET appendonly no in it: the log stops now
		c.tx.aofOff = false
		c.s.cfgMu.Lock()
		if !c.s.Config().AppendOnly && c.s.aof.On() {
			c.s.aof.Stop()
		}
		c.s.cfgMu.Unlock()
	}
}

// execLocked runs the transaction under its locks: its keys' shards, every
// shard of its database for a LockDB command, every shard of every
// database for a LockAll command, SELECT, or INFO (which counts keys shard
// by shard: inside EXEC it could only take them out of order). The deferred
// release keeps the shards usable even if the transaction's own code fails.
func (c *client) execLocked(cmds []queued) {
	var all, whole bool
	c.locks = c.locks[:0]
	for _, q := range cmds {
		switch {
		case q.cmd.Flags&(cmdtable.LockAll|cmdtable.SelfLock) != 0 || q.cmd.Name == "select" || countsShards(q.cmd) ||
			q.cmd.OtherDB != nil && q.cmd.OtherDB(q.args, c.ctx.DBID) >= 0:
			all = true
		case q.cmd.Flags&cmdtable.LockDB != 0:
			whole = true
		default:
			for _, i := range q.keys {
				c.locks = append(c.locks, keyspace.ShardIndex(q.args[i]))
			}
		}
	}
	db := c.ctx.DB
	c.gated = c.s.gate.shared(c.id)
	switch {
	case all:
		c.s.ks.LockAllBy(c.id)
	case whole:
		db.LockAllBy(c.id)
	default:
		c.lockShards()
	}
	c.tx.inExec = true
	c.tx.execTime = 0
	var h *holding
	stop := c.stopping() // the final save is made (shutdown.go)
	defer func() {
		c.tx.inExec = false
		switch {
		case all:
			c.s.ks.UnlockAll()
		case whole:
			db.UnlockAll()
		default:
			c.unlockShards(db)
		}
		c.locks = c.locks[:0] // also when all/whole made them moot: call() must not unlock them
		c.ungate()
		if c.modes&tracking == 0 { // a tracking client's hold ends with its batch (flush)
			c.releaseHeld()
		}
		if h != nil {
			c.s.serveLater(h)
		}
	}()
	if stop {
		return
	}
	if c.watchDirty() {
		c.io.out.NullArray()
		return
	}
	// The watches no longer matter (Redis drops them here); their
	// registrations go once the locks are released.
	c.tx.watchCount.Store(0)
	c.io.out.Array(len(cmds))
	c.ctx.Blocker = nil // blocking commands answer at once inside a transaction
	for _, q := range cmds {
		// The rules may have changed since the command was queued.
		if d, ok := c.aclCheck(q.cmd, q.args, q.keys, "multi"); !ok {
			c.io.out.Error(execNoPerm(d.Reason))
			continue
		}
		c.runLocked(q.cmd, q.args, q.keys)
		c.runAfter(q.cmd)
	}
	c.ctx.Blocker = c
	c.logTx()
	// Clients blocked on keys the transaction wrote are served after all of
	// it, before anything else can run.
	if keyspace.ReadyPending.Load() > 0 {
		h = &holding{all: all, db: db, whole: whole, locks: c.locks}
		c.s.serveReady(h)
		h.releaseExtra()
	}
}

// watchDirty reports whether a watched key changed or expired since WATCH.
func (c *client) watchDirty() bool {
	if c.tx.watch.Dirty() {
		return true
	}
	for _, w := range c.tx.watched {
		if w.expire != 0 && w.expire <= c.ctx.Now {
			return true
		}
	}
	return false
}

func watch(x *cmdtable.Ctx) {
	c := cl(x)
	if c.tx.multi != nil {
		x.Error("ERR WATCH inside MULTI is not allowed")
		return
	}
outer:
	for _, k := range x.Args[1:] {
		for _, w := range c.tx.watched {
			if w.db == x.DBID && w.key == string(k) {
				continue outer
			}
		}
		sh := x.Shard(k)
		var exp int64
		if e := sh.Peek(k, x.Now); e != nil {
			exp = e.Expire
		}
		sh.AddWatch(k, &c.tx.watch)
		c.tx.watched = append(c.tx.watched, watchedKey{db: x.DBID, key: string(k), expire: exp})
	}
	c.tx.watchCount.Store(int32(len(c.tx.watched)))
	x.W.OK()
}

func unwatch(x *cmdtable.Ctx) {
	// Inside EXEC this transaction holds shards; EXEC drops every WATCH
	// when it ends.
	if c := cl(x); !c.tx.inExec {
		c.unwatchAll()
	}
	x.W.OK()
}

// unwatchAll drops every WATCH, locking each key's shard in turn. The caller
// holds no shard lock.
func (c *client) unwatchAll() {
	for _, w := range c.tx.watched {
		sh := c.s.ks.DBs[w.db].ShardFor([]byte(w.key))
		sh.Lock()
		sh.RemoveWatch([]byte(w.key), &c.tx.watch)
		sh.Unlock()
	}
	c.tx.watched = c.tx.watched[:0]
	c.tx.watchCount.Store(0)
	c.tx.watch.Reset() // no writer can reach it any more: the next WATCH starts clean
}

func init() {
	const g = "transactions"
	f := cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale | cmdtable.Fast | cmdtable.AllowBusy
	cmdtable.Register(
		&cmdtable.Cmd{Name: "multi", Arity: 1, Flags: f, Run: multi, Group: g, Since: "1.2.0", Summary: "Starts a transaction."},
		&cmdtable.Cmd{Name: "exec", Arity: 1, Flags: cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale | cmdtable.SkipSlowlog, Run: exec, Group: g, Since: "1.2.0",
			Summary: "Executes all commands in a transaction."},
		&cmdtable.Cmd{Name: "discard", Arity: 1, Flags: f, Run: discard, Group: g, Since: "2.0.0", Summary: "Discards a transaction."},
		&cmdtable.Cmd{Name: "watch", Arity: -2, Flags: f, First: 1, Last: -1, Step: 1, Run: watch, Group: g, Since: "2.2.0",
			Summary: "Monitors changes to keys to determine the execution of a transaction.", Args: "key [key ...]"},
		&cmdtable.Cmd{Name: "unwatch", Arity: 1, Flags: f, Run: unwatch, Group: g, Since: "2.2.0",
			Summary: "Forgets about watched keys of a transaction."},
	)
}
