package server

import (
	"net"
	"time"

	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// Blocking commands. A handler that finds no data calls Block (with its keys'
// shards still locked, so no write can slip in between the check and the
// registration). The client then stops processing its input and waits by
// reading the socket: a wake-up sets a read deadline in the past, which both
// interrupts the read and keeps noticing a client that disconnects. Woken, it
// re-runs the command; a waiter keeps its arrival number across retries, so
// clients are served in the order they blocked.

type blocked struct {
	cmd      *command.Cmd
	args     [][]byte
	keys     [][]byte
	db       *keyspace.DB
	deadline time.Time // zero: wait forever
	nullBulk bool
	waiter   keyspace.Waiter
}

// Block implements command.Blocker.
func (c *client) Block(keys [][]byte, timeout time.Duration, nullBulk bool) {
	b := c.retrying
	if b == nil {
		b = &blocked{db: c.ctx.DB, nullBulk: nullBulk}
		b.cmd = c.running
		b.args = copyArgs(c.ctx.Args)
		b.waiter.Seq = c.s.blockSeq.Add(1)
		conn := c.conn
		b.waiter.Wake = func() { conn.SetReadDeadline(time.Unix(1, 0)) }
		if timeout > 0 {
			b.deadline = time.Now().Add(timeout)
		}
	}
	b.keys = copyArgs(keys)
	b.waiter.Rearm()
	for _, k := range b.keys {
		b.db.ShardFor(k).AddWaiter(k, &b.waiter)
	}
	c.blocked = b
	c.s.blockedClients.Add(1)
}

func copyArgs(args [][]byte) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = append([]byte(nil), a...)
	}
	return out
}

// unregister removes the waiter from its keys. A waiter that leaves for good
// (timeout, disconnect) after being woken passes the wake-up on to the next in
// line (pass); one that is about to retry does not: if its retry consumes, that
// write wakes the next, and if it finds nothing there is nothing to pass on.
func (c *client) unregister(b *blocked, pass bool) {
	for _, k := range b.keys {
		sh := b.db.ShardFor(k)
		sh.Lock()
		sh.RemoveWaiter(k, &b.waiter)
		if pass && b.waiter.Woken() {
			sh.WakeWaiters(k)
		}
		sh.Unlock()
	}
	c.s.blockedClients.Add(-1)
}

// waitBlocked parks the client until its command is served, times out or the
// connection closes; it reports false when the client is gone.
func (c *client) waitBlocked() bool {
	for c.blocked != nil {
		b := c.blocked
		c.conn.SetReadDeadline(b.deadline)
		if !b.waiter.Woken() {
			if c.w == len(c.in) && !c.grow() {
				c.unregister(b, true)
				return false
			}
			n, err := c.conn.Read(c.in[c.w:])
			c.w += n
			c.netIn.Add(int64(n))
			if err != nil {
				if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
					c.unregister(b, true)
					c.blocked = nil
					return false
				}
			}
		}
		switch {
		case b.waiter.Woken():
			c.unregister(b, false)
			c.blocked, c.retrying = nil, b
			c.ctx.Now = time.Now().UnixMilli()
			c.ctx.Retry = true
			c.call(b.cmd, b.args)
			c.ctx.Retry = false
			c.retrying = nil
		case !b.deadline.IsZero() && !time.Now().Before(b.deadline):
			c.unregister(b, true)
			c.blocked = nil
			if b.nullBulk {
				c.out.Null()
			} else {
				c.out.NullArray()
			}
		}
	}
	c.conn.SetReadDeadline(time.Time{})
	return true
}
