package server

import (
	"fmt"
	rtdebug "runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// execute checks and runs (or queues, inside MULTI) one command.
func (c *client) execute(args [][]byte) {
	c.lastSeen.Store(c.ctx.Now)
	cmd := command.Lookup(args[0])
	if cmd == nil {
		c.reject(nil, unknownCommand(args))
		return
	}
	if !c.authed && cmd.Flags&command.NoAuth == 0 {
		c.reject(cmd, command.ErrNoAuth)
		return
	}
	if !cmd.CheckArity(len(args)) {
		c.reject(cmd, command.WrongArgs(cmd.Name))
		return
	}
	if cmd.Subs != nil && (len(args) > 1 || cmd.Run == nil) {
		sub := cmd.Sub(args[1])
		if sub == nil {
			c.reject(cmd, fmt.Sprintf("ERR unknown subcommand '%.128s'. Try %s HELP.", args[1], strings.ToUpper(cmd.Name)))
			return
		}
		if !sub.CheckArity(len(args)) {
			c.reject(sub, command.WrongArgs(sub.Name))
			return
		}
		cmd = sub
	}
	if c.pubsub != nil && c.out.Proto == 2 && c.pubsub.count() > 0 && !allowedWhileSubscribed[cmd.Name] {
		c.reject(cmd, fmt.Sprintf("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context", cmd.Name))
		return
	}
	if c.multi != nil && !txControl[cmd.Name] {
		if cmd.Flags&command.NoMulti != 0 {
			c.reject(cmd, "ERR Command not allowed inside a transaction")
			return
		}
		c.multi.queue(cmd, args)
		c.out.Simple("QUEUED")
		return
	}
	c.call(cmd, args)
}

var allowedWhileSubscribed = map[string]bool{
	"subscribe": true, "psubscribe": true, "ssubscribe": true, "unsubscribe": true,
	"punsubscribe": true, "sunsubscribe": true, "ping": true, "quit": true, "reset": true,
}

// txControl commands run at once even inside MULTI.
var txControl = map[string]bool{
	"exec": true, "discard": true, "multi": true, "watch": true, "quit": true, "reset": true,
}

// reject answers an error for a command that did not run; inside MULTI it
// dooms the transaction, as Redis's EXECABORT requires.
func (c *client) reject(cmd *command.Cmd, msg string) {
	c.out.Error(msg)
	c.s.stats.countError(msg)
	if cmd != nil {
		c.s.stats.rejected(cmd)
	}
	if c.multi != nil {
		c.multi.aborted = true
	}
}

func unknownCommand(args [][]byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ERR unknown command '%.128s', with args beginning with: ", args[0])
	for _, a := range args[1:] {
		if b.Len() >= 128+len("ERR unknown command '', with args beginning with: ")+len(args[0]) {
			break
		}
		fmt.Fprintf(&b, "'%.*s' ", 128, a)
	}
	return b.String()
}

// call locks what cmd needs, runs it and records its statistics.
func (c *client) call(cmd *command.Cmd, args [][]byte) {
	c.ctx.Args = args
	start := time.Now()
	mark := len(c.out.B)
	db := c.ctx.DB
	c.lastCmd.Store(cmd)
	c.running = cmd
	c.lock(cmd, args)
	c.run(cmd)
	var h *holding
	if cmd.Flags&command.Write != 0 && c.blocked == nil { // a command that blocked changed nothing
		if cmd.Flags&command.SelfTouch == 0 {
			c.touchKeys(cmd, args)
		}
		if keyspace.ReadyPending.Load() > 0 { // it may have readied blocked clients: serve them now
			h = &holding{all: cmd.Flags&command.LockAll != 0, db: db, whole: cmd.Flags&command.LockDB != 0, locks: c.locks}
			c.s.serveReady(h)
			h.releaseExtra()
		}
	}
	c.unlock(cmd, db)
	if h != nil {
		c.s.serveLater(h)
	}
	c.calls[cmd.ID].Add(1)
	c.usec[cmd.ID].Add(uint64(time.Since(start).Microseconds()))
	if len(c.out.B) > mark && c.out.B[mark] == '-' {
		c.s.stats.failed(cmd, c.out.B[mark+1:])
	}
}

// runLocked runs cmd when the caller (EXEC) already holds its locks.
func (c *client) runLocked(cmd *command.Cmd, args [][]byte) {
	c.ctx.Args = args
	start := time.Now()
	mark := len(c.out.B)
	c.run(cmd)
	if cmd.Flags&(command.Write|command.SelfTouch) == command.Write {
		c.touchKeys(cmd, args)
	}
	c.calls[cmd.ID].Add(1)
	c.usec[cmd.ID].Add(uint64(time.Since(start).Microseconds()))
	if len(c.out.B) > mark && c.out.B[mark] == '-' {
		c.s.stats.failed(cmd, c.out.B[mark+1:])
	}
}

func (c *client) touchKeys(cmd *command.Cmd, args [][]byte) {
	c.keys = cmd.KeyPositions(args, c.keys[:0])
	for _, i := range c.keys {
		c.ctx.DB.ShardFor(args[i]).Touch(args[i])
	}
}

// lock takes the shard locks cmd needs: none, its keys' shards in ascending
// order (so that two multi-key commands never deadlock), its database's, or
// every database's. A command that also writes its keys in another database
// (OtherDB) gets the same shards there too; locks are always taken in
// (database, shard) order, which LockAll follows as well.
func (c *client) lock(cmd *command.Cmd, args [][]byte) {
	switch {
	case cmd.Flags&command.LockAll != 0:
		c.s.ks.LockAll()
	case cmd.Flags&command.LockDB != 0:
		c.ctx.DB.LockAll()
	default:
		c.keys = cmd.KeyPositions(args, c.keys[:0])
		c.locks = c.locks[:0]
		for _, i := range c.keys {
			c.locks = append(c.locks, keyspace.ShardIndex(args[i]))
		}
		if cmd.OtherDB != nil {
			if n := cmd.OtherDB(args, c.ctx.DBID); n >= 0 && n < len(c.s.ks.DBs) { // else Run only answers an error
				c.other, c.otherID = c.s.ks.DBs[n], n
			}
		}
		c.lockShards()
	}
}

func (c *client) lockShards() {
	if len(c.locks) > 1 {
		slices.Sort(c.locks)
		c.locks = slices.Compact(c.locks)
	}
	if c.other != nil && c.otherID < c.ctx.DBID {
		lockShards(c.other, c.locks)
		lockShards(c.ctx.DB, c.locks)
		return
	}
	lockShards(c.ctx.DB, c.locks)
	if c.other != nil {
		lockShards(c.other, c.locks)
	}
}

func lockShards(db *keyspace.DB, shards []int) {
	for _, i := range shards {
		db.Shard(i).Lock()
	}
}

func (c *client) unlock(cmd *command.Cmd, db *keyspace.DB) {
	switch {
	case cmd.Flags&command.LockAll != 0:
		c.s.ks.UnlockAll()
	case cmd.Flags&command.LockDB != 0:
		db.UnlockAll()
	default:
		c.unlockShards(db)
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

// run runs a handler. A panic is a bug, but it must not leave the command's
// shard locks held (every other client would hang on them): it is recovered
// here, where the caller still unlocks, counted in INFO, and the connection
// is closed after an error reply.
func (c *client) run(cmd *command.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			c.s.logf("warning", "BUG: panic in %s for client id=%d: %v\n%s", cmd.Name, c.id, r, rtdebug.Stack())
			c.s.stats.panics.Add(1)
			c.out.Error("ERR internal error")
			c.closing = true
		}
	}()
	cmd.Run(&c.ctx)
}
