package server

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// CLIENT PAUSE: commands from every client (ALL), or those that write or
// may propagate (WRITE), wait until the pause ends or CLIENT UNPAUSE, in
// the order they arrived; nothing is refused. As in Redis, a later PAUSE
// sets the mode and can only lengthen the pause.
type pauseState struct {
	end atomic.Int64 // unix nanoseconds the pause lasts until; 0: none (the fast path)

	mu       sync.Mutex
	userEnd  int64         // CLIENT PAUSE's end, unix nanoseconds (0: none)
	all      bool          // CLIENT PAUSE's mode
	failover bool          // FAILOVER holds writes until it ends, whatever CLIENT UNPAUSE does
	changed  chan struct{} // closed and replaced on every change, waking waiters
}

// mayReplicate lists the commands Redis flags may_replicate: paused by
// CLIENT PAUSE WRITE, and refused by read-only scripts, although they are
// not writes.
var mayReplicate = map[string]bool{"publish": true, "spublish": true, "pfcount": true, "eval": true, "evalsha": true, "fcall": true}

// pausedBy reports whether a pause in WRITE mode holds cmd (EXEC: when its
// transaction holds such a command; a script: unless it declares no-writes).
func (c *client) pausedBy(cmd *cmdtable.Cmd, args [][]byte) bool {
	if f, declared := c.s.scriptFlags(cmd, args); declared {
		return f&cmdtable.Write != 0
	}
	if cmd.Name == "exec" && c.tx.multi != nil {
		for _, q := range c.tx.multi.cmds {
			if q.cmd.Flags&cmdtable.Write != 0 || mayReplicate[q.cmd.Name] {
				return true
			}
		}
		return false
	}
	return cmd.Flags&cmdtable.Write != 0 || mayReplicate[cmd.Name]
}

// waitPause holds cmd while a pause applies to it. It reports false if the
// command is to be dropped instead: its client left meanwhile (Redis frees
// a paused client's pending command with it) or the server is stopping.
func (c *client) waitPause(cmd *cmdtable.Cmd, args [][]byte) bool {
	p := &c.s.pause
	waited := false
	defer func() {
		if waited {
			c.s.clients.blocked.Add(-1)
		}
	}()
	for {
		end := p.end.Load()
		if end == 0 {
			return true
		}
		p.mu.Lock()
		all, changed := p.all && time.Now().UnixNano() < p.userEnd, p.changed
		p.mu.Unlock()
		left := time.Until(time.Unix(0, end))
		if left <= 0 || !all && !c.pausedBy(cmd, args) {
			return true
		}
		c.flush()    // the replies before this command are not held back
		if !waited { // a paused client counts as blocked (INFO blocked_clients), as in Redis
			waited = true
			c.s.clients.blocked.Add(1)
		}
		t := time.NewTimer(min(left, pauseCheck))
		select {
		case <-changed:
		case <-t.C:
		case <-c.s.closed:
		}
		t.Stop()
		if isClosed(c.s.closed) || c.io.killed.Load() || c.peerClosed() {
			return false
		}
	}
}

// pauseCheck is how often a held command looks whether its client left.
const pauseCheck = 100 * time.Millisecond

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// set starts or changes a client pause (end 0: unpause) and wakes the
// waiters.
func (p *pauseState) set(end int64, all bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if end != 0 && p.userEnd > end && time.Now().UnixNano() < p.userEnd {
		end = p.userEnd
	}
	p.userEnd, p.all = end, all
	p.apply()
}

// holdWrites starts or ends FAILOVER's pause, of writes, with no end of
// its own.
func (p *pauseState) holdWrites(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failover = on
	p.apply()
}

// apply publishes the pause in force and wakes the waiters. mu is held.
func (p *pauseState) apply() {
	end := p.userEnd
	if p.failover {
		end = math.MaxInt64
	}
	p.end.Store(end)
	keyspace.PauseExpiry(end / int64(time.Millisecond)) // both modes pause expiry, as in Redis
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
}

// clientPause is CLIENT PAUSE timeout [WRITE | ALL].
func clientPause(x *cmdtable.Ctx) {
	if len(x.Args) > 4 {
		x.Error(cmdtable.UnknownSubcommand(cstr(x.Args[1], 128), "CLIENT"))
		return
	}
	ms, ok := cmdtable.ParseInt(x.Args[2])
	switch {
	case !ok:
		x.Error(cmdtable.ErrTimeoutNotInt)
		return
	case ms < 0:
		x.Error(cmdtable.ErrTimeoutNeg)
		return
	}
	all := true
	if len(x.Args) == 4 {
		switch strings.ToLower(string(x.Args[3])) {
		case "write":
			all = false
		case "all":
		default:
			x.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	end := time.Now().Add(time.Duration(min(ms, int64(time.Duration(1<<62)/time.Millisecond))) * time.Millisecond)
	cl(x).s.pause.set(end.UnixNano(), all)
	x.W.OK()
}

// clientUnpause is CLIENT UNPAUSE.
func clientUnpause(x *cmdtable.Ctx) {
	cl(x).s.pause.set(0, false)
	x.W.OK()
}
