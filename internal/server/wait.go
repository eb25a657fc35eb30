package server

import (
	"math"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/resp"
)

// WAITAOF: its local part is this server's append-only log; no replica
// acknowledges its own log (WAIT is in replwait.go).

// msTimeout parses WAIT's millisecond timeout as getTimeoutFromObjectOrReply
// does; 0 is "no timeout".
func msTimeout(x *cmdtable.Ctx, arg []byte) (time.Duration, bool) {
	ms, ok := cmdtable.ParseInt(arg)
	switch {
	case !ok:
		x.Error(cmdtable.ErrTimeoutNotInt)
	case ms < 0:
		x.Error(cmdtable.ErrTimeoutNeg)
	case ms > 0 && ms > math.MaxInt64-x.Now:
		x.Error(cmdtable.ErrTimeoutRange)
	default:
		return time.Duration(min(ms, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond, true
	}
	return 0, false
}

func waitAOFCmd(x *cmdtable.Ctx) {
	local, ok := cmdtable.ParseInt(x.Args[1])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if local < 0 || local > 1 {
		x.Error("ERR value is out of range, value must between 0 and 1") // sic
		return
	}
	replicas, ok := cmdtable.ParseInt(x.Args[2])
	if !ok || replicas < 0 { // getPositiveLongFromObjectOrReply: one message for both
		x.Error(cmdtable.ErrNotPositive)
		return
	}
	timeout, ok := msTimeout(x, x.Args[3])
	if !ok {
		return
	}
	c := cl(x)
	if !c.s.aof.On() && local > 0 {
		x.Error("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.")
		return
	}
	// The local acknowledgement: everything this client wrote is fsynced,
	// which the log is asked for now rather than at its next fsync.
	var fsynced int64
	if a := c.s.aof.Load(); a != nil && a.Sync(c.aof.woff) {
		fsynced = 1
	}
	reply := func(w *resp.Writer) {
		w.Array(2)
		w.Int(fsynced)
		w.Int(0)
	}
	if fsynced >= local && replicas == 0 || x.Blocker == nil {
		reply(x.W)
		return
	}
	c.blockUntil(timeout, reply)
	if fsynced < local && replicas == 0 && c.s.aof.TurningOn() {
		// The log is being turned on: fsynced once its base is written,
		// as Redis answers when that rewrite ends.
		go c.s.awaitAOFOn(c.blocked, c.aof.woff)
	}
}

// awaitAOFOn answers WAITAOF's b once the log being turned on has its base
// and holds the client's writes up to woff.
func (s *Server) awaitAOFOn(b *blocked, woff int64) {
	for {
		time.Sleep(10 * time.Millisecond)
		b.mu.Lock()
		done := b.state != waiting || b.unblock != 0
		b.mu.Unlock()
		if done {
			return
		}
		if s.aof.TurningOn() {
			continue
		}
		if a := s.aof.Load(); a != nil && a.Sync(woff) {
			w := resp.Writer{Proto: b.out.Proto}
			w.Array(2)
			w.Int(1)
			w.Int(0)
			b.finish(w.B)
		}
		return
	}
}

// blockUntil blocks c, on no key, until timeout (0: until CLIENT UNBLOCK or
// a disconnect), then answers with reply.
func (c *client) blockUntil(timeout time.Duration, reply func(*resp.Writer)) {
	c.Block(nil, timeout, false)
	w := resp.Writer{Proto: c.io.out.Proto}
	reply(&w)
	c.blocked.timeoutReply = w.B
}

func init() {
	const g = "generic"
	f := cmdtable.Blocking
	acl := []string{"connection"}
	cmdtable.Register(
		&cmdtable.Cmd{Name: "wait", Arity: 3, Flags: f, Run: waitCmd, Group: g, Since: "3.0.0", ACL: acl,
			Summary: "Blocks until the asynchronous replication of all preceding write commands sent by the connection is completed.",
			Args:    "numreplicas timeout"},
		&cmdtable.Cmd{Name: "waitaof", Arity: 4, Flags: f, Run: waitAOFCmd, Group: g, Since: "7.2.0", ACL: acl,
			Summary: "Blocks until all of the preceding write commands sent by the connection are written to the append-only file of the master and/or replicas.",
			Args:    "numlocal numreplicas timeout"},
	)
}
