package server

import (
	"slices"

	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH. EXEC locks every shard
// its queued commands touch (every shard of every database if one of them
// needs that, or selects another database) for the whole block, so a
// transaction is atomic across shards.

type multiState struct {
	cmds    []queued
	aborted bool // a command was refused while queueing: EXEC answers EXECABORT
}

type queued struct {
	cmd  *command.Cmd
	args [][]byte
}

// queue keeps a copy of args: the read buffer they point into is reused.
func (m *multiState) queue(cmd *command.Cmd, args [][]byte) {
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
	m.cmds = append(m.cmds, queued{cmd, cp})
}

// execLocks is what a running EXEC holds, so that handlers which lock shards
// themselves (INFO keyspace) skip those and do not deadlock on their own
// client's locks.
type execLocks struct {
	active bool
	all    bool // every shard of every database
	whole  bool // every shard of db
	db     int  // the database of whole or of the shards in client.locks
}

type watchedKey struct {
	db     int
	key    string
	expire int64 // the key's expiry when watched: passing it counts as a change
}

func multi(x *command.Ctx) {
	c := cl(x)
	if c.multi != nil {
		x.Error("ERR MULTI calls can not be nested")
		return
	}
	c.multi = &multiState{}
	c.queued.Store(0)
	x.W.OK()
}

// endMulti leaves MULTI state and drops every WATCH (Redis's
// discardTransaction).
func (c *client) endMulti() {
	c.multi = nil
	c.queued.Store(-1)
	c.unwatchAll()
}

func discard(x *command.Ctx) {
	c := cl(x)
	if c.multi == nil {
		x.Error("ERR DISCARD without MULTI")
		return
	}
	c.endMulti()
	x.W.OK()
}

func exec(x *command.Ctx) {
	c := cl(x)
	m := c.multi
	if m == nil {
		x.Error("ERR EXEC without MULTI")
		return
	}
	c.multi = nil
	defer c.queued.Store(-1) // CLIENT LIST shows the transaction until EXEC ends
	if m.aborted {
		c.unwatchAll()
		x.Error("EXECABORT Transaction discarded because of previous errors.")
		return
	}
	c.execLocked(m.cmds)
}

// execLocked runs the transaction under its locks. The deferred release
// keeps the shards usable even if the transaction's own code fails.
func (c *client) execLocked(cmds []queued) {
	e := execLocks{active: true, db: c.ctx.DBID}
	c.locks = c.locks[:0]
	for _, q := range cmds {
		switch {
		case q.cmd.Flags&command.LockAll != 0 || q.cmd.Name == "select":
			e.all = true
		case q.cmd.Flags&command.LockDB != 0:
			e.whole = true
		default:
			c.keys = q.cmd.KeyPositions(q.args, c.keys[:0])
			for _, i := range c.keys {
				c.locks = append(c.locks, keyspace.ShardIndex(q.args[i]))
			}
		}
	}
	db := c.ctx.DB
	switch {
	case e.all:
		c.s.ks.LockAll()
	case e.whole:
		db.LockAll()
	default:
		c.lockShards()
	}
	c.exec = e
	defer func() {
		c.exec = execLocks{}
		switch {
		case e.all:
			c.s.ks.UnlockAll()
		case e.whole:
			db.UnlockAll()
		default:
			c.unlockShards(db)
		}
		c.locks = c.locks[:0] // also when all/whole made them moot: call() must not unlock them
		c.releaseHeld()
	}()
	dirty := c.watchDirty()
	c.unwatchAll() // as soon as it is decided, as Redis does
	if dirty {
		c.out.NullArray()
		return
	}
	c.out.Array(len(cmds))
	for _, q := range cmds {
		c.runLocked(q.cmd, q.args)
	}
}

// holdsShard reports whether the running EXEC already holds shard i of
// database db.
func (c *client) holdsShard(db, i int) bool {
	e := &c.exec
	switch {
	case !e.active:
		return false
	case e.all:
		return true
	case db != e.db:
		return false
	case e.whole:
		return true
	}
	_, ok := slices.BinarySearch(c.locks, i)
	return ok
}

// watchDirty reports whether a watched key changed or expired since WATCH.
func (c *client) watchDirty() bool {
	if c.watch.Dirty() {
		return true
	}
	for _, w := range c.watched {
		if w.expire != 0 && w.expire <= c.ctx.Now {
			return true
		}
	}
	return false
}

func watch(x *command.Ctx) {
	c := cl(x)
	if c.multi != nil {
		x.Error("ERR WATCH inside MULTI is not allowed")
		return
	}
outer:
	for _, k := range x.Args[1:] {
		for _, w := range c.watched {
			if w.db == x.DBID && w.key == string(k) {
				continue outer
			}
		}
		sh := x.Shard(k)
		var exp int64
		if e := sh.Peek(k, x.Now); e != nil {
			exp = e.Expire
		}
		sh.AddWatch(k, &c.watch)
		c.watched = append(c.watched, watchedKey{db: x.DBID, key: string(k), expire: exp})
	}
	c.watchCount.Store(int32(len(c.watched)))
	x.W.OK()
}

func unwatch(x *command.Ctx) {
	cl(x).unwatchAll()
	x.W.OK()
}

// unwatchAll drops every WATCH, locking each key's shard in turn unless the
// running EXEC already holds it.
func (c *client) unwatchAll() {
	for _, w := range c.watched {
		key := []byte(w.key)
		i := keyspace.ShardIndex(key)
		sh := c.s.ks.DBs[w.db].Shard(i)
		held := c.holdsShard(w.db, i)
		if !held {
			sh.Lock()
		}
		sh.RemoveWatch(key, &c.watch)
		if !held {
			sh.Unlock()
		}
	}
	c.watched = c.watched[:0]
	c.watchCount.Store(0)
	c.watch.Reset() // no writer can reach it any more: the next WATCH starts clean
}

func init() {
	const g = "transactions"
	f := command.NoScript | command.Loading | command.Stale | command.Fast | command.AllowBusy
	command.Register(
		&command.Cmd{Name: "multi", Arity: 1, Flags: f, Run: multi, Group: g, Since: "1.2.0", Summary: "Starts a transaction."},
		&command.Cmd{Name: "exec", Arity: 1, Flags: command.NoScript | command.Loading | command.Stale, Run: exec, Group: g, Since: "1.2.0",
			Summary: "Executes all commands in a transaction."},
		&command.Cmd{Name: "discard", Arity: 1, Flags: f, Run: discard, Group: g, Since: "2.0.0", Summary: "Discards a transaction."},
		&command.Cmd{Name: "watch", Arity: -2, Flags: f, First: 1, Last: -1, Step: 1, Run: watch, Group: g, Since: "2.2.0",
			Summary: "Monitors changes to keys to determine the execution of a transaction.", Args: "key [key ...]"},
		&command.Cmd{Name: "unwatch", Arity: 1, Flags: f, Run: unwatch, Group: g, Since: "2.2.0",
			Summary: "Forgets about watched keys of a transaction."},
	)
}
