package server

import (
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/hotkv/hotkv/internal/aof"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/pubsub"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/tick"
)

// Blocking commands. A handler that finds no data calls Block with its keys'
// shards still locked, so no write can slip in between the check and the
// registration.
//
// As in Redis, the write that gives a blocked client something to take also
// serves it before anything else runs: the write readies the oldest waiter
// for each key it touches (keyspace.Waiter), and the writing client, still
// holding its locks, runs the waiter's command on the waiter's behalf
// (serveReady). No other client can observe the data in between or take it
// first, a chain (BLMOVE into a key another client waits on) completes within
// the first write, and MULTI/EXEC serves waiters only after the whole
// transaction. Shards the waiter needs beyond the writer's are taken with
// TryLock; if one is busy, that waiter is served right after the writer
// unlocks (the only case where another command may run in between).
//
// The blocked client's goroutine waits by reading its socket, which also
// notices a disconnect; it handles its own timeout, and picks up the reply a
// writer left for it when a past read deadline wakes it.

// States of a blocked command; changes are under blocked.mu.
const (
	waiting = iota
	serving // a writer is running the command for the client
	served  // the reply is in out
	leaving // timed out or disconnected
)

type blocked struct {
	c        *client
	cmd      *cmdtable.Cmd
	args     [][]byte
	pos      []int    // cmd's key positions in args
	keys     [][]byte // the keys it waits on
	shards   []int    // shard indexes of the command's keys in db, ascending
	db       *keyspace.DB
	dbID     int
	deadline time.Time // zero: wait forever
	nullBulk bool
	// timeoutReply, if set, is the reply at the timeout (WAITAOF) in place
	// of a null; timeoutFn, if set, writes it then (WAIT's count).
	timeoutReply []byte
	timeoutFn    func(w *resp.Writer)
	waiter       keyspace.Waiter
	out          resp.Writer // the reply, written by whoever serves the command
	aofEnd       int64       // the log offset the reply waits for, set by whoever serves it
	track        bool        // a read whose keys the client tracks (trackAfter): served, it reads them again
	held         bool        // served, with the client's pushes held until it queues out (waitBlocked)
	ran          int64       // ticks the command has run, when it blocked and when served (SLOWLOG)

	mu      sync.Mutex
	state   int
	unblock int // set by CLIENT UNBLOCK or REPLICAOF: unblockTimeout, unblockError or unblockRole
}

// Why a wait ends early: CLIENT UNBLOCK's reasons, answer as at the
// timeout or with an error; or the server turned into a replica.
const (
	unblockTimeout = 1 + iota
	unblockError
	unblockRole
)

// errUnblocked is the reply of a command CLIENT UNBLOCK ... ERROR ends;
// errUnblockedRole, Redis's, of one ended by REPLICAOF.
const (
	errUnblocked     = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
	errUnblockedRole = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"
)

// awaited is the kind of value a blocking command of each group waits for:
// writes that leave another kind do not wake it, as in Redis.
var awaited = map[string]keyspace.Kind{"list": keyspace.KindList, "sorted-set": keyspace.KindZSet,
	"stream": keyspace.KindStream}

// Block implements cmdtable.Blocker. Only a command execute runs blocks
// (EXEC and scripts leave Ctx.Blocker nil), so c.keys are its key positions.
func (c *client) Block(keys [][]byte, timeout time.Duration, nullBulk bool) {
	b := &blocked{c: c, cmd: c.running, args: copyArgs(c.ctx.Args), pos: slices.Clone(c.keys), keys: copyArgs(keys),
		db: c.ctx.DB, dbID: c.ctx.DBID, nullBulk: nullBulk}
	b.out.Proto = c.io.out.Proto
	b.waiter.Seq = c.s.clients.blockSeq.Add(1)
	b.waiter.Kind = awaited[b.cmd.Group]
	if b.cmd.Name == "xreadgroup" {
		// Any write can end its wait: deleting the key or the group
		// answers its NOGROUP error, as Redis re-runs it then.
		b.waiter.Kind = 0
	}
	b.waiter.Owner = b
	if timeout > 0 {
		b.deadline = time.Now().Add(timeout)
	}
	for _, i := range b.pos {
		b.shards = append(b.shards, keyspace.ShardIndex(b.args[i]))
	}
	slices.Sort(b.shards)
	b.shards = slices.Compact(b.shards)
	for _, k := range b.keys {
		b.db.ShardFor(k).AddWaiter(k, &b.waiter)
	}
	c.blocked = b
	c.waiting.Store(b)
	c.s.clients.blocked.Add(1)
}

func copyArgs(args [][]byte) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = append([]byte(nil), a...)
	}
	return out
}

// holding is the set of shard locks a client holds while it serves waiters.
type holding struct {
	all   bool         // every shard of every database (LockAll)
	db    *keyspace.DB // the database of locks and whole
	whole bool         // every shard of db (LockDB)
	locks []int        // otherwise these shards of db
	held  []shardRef   // and these, of any database (a script's)
	extra []shardRef   // taken with TryLock for waiters' other keys
	later []*blocked   // waiters whose shards were busy: served after unlocking
}

type shardRef struct {
	db *keyspace.DB
	i  int
}

func (h *holding) has(db *keyspace.DB, i int) bool {
	if h.all || (db == h.db && (h.whole || slices.Contains(h.locks, i))) {
		return true
	}
	return slices.Contains(h.held, shardRef{db, i}) || slices.Contains(h.extra, shardRef{db, i})
}

// acquire makes sure every shard b needs is held, without ever waiting.
func (h *holding) acquire(b *blocked) bool {
	for _, i := range b.shards {
		if h.has(b.db, i) {
			continue
		}
		if !b.db.Shard(i).TryLock() {
			return false
		}
		h.extra = append(h.extra, shardRef{b.db, i})
	}
	return true
}

// each calls fn for every held shard, including ones added meanwhile.
func (h *holding) each(ks *keyspace.Keyspace, fn func(*keyspace.Shard)) {
	switch {
	case h.all:
		for _, db := range ks.DBs {
			for i := range keyspace.ShardCount {
				fn(db.Shard(i))
			}
		}
	case h.whole:
		for i := range keyspace.ShardCount {
			fn(h.db.Shard(i))
		}
	default:
		for _, i := range h.locks {
			fn(h.db.Shard(i))
		}
		for _, r := range h.held {
			fn(r.db.Shard(r.i))
		}
	}
	for j := 0; j < len(h.extra); j++ {
		fn(h.extra[j].db.Shard(h.extra[j].i))
	}
}

func (h *holding) releaseExtra() {
	for _, r := range h.extra {
		r.db.Shard(r.i).Unlock()
	}
	h.extra = h.extra[:0]
}

// serveReady serves the waiters readied in the shards h holds, and those
// their own commands ready, until none is left. Waiters whose other shards
// are busy go to h.later.
func (s *Server) serveReady(h *holding) {
	for more := true; more; {
		more = false
		h.each(s.ks, func(sh *keyspace.Shard) {
			for _, w := range sh.TakeReady() {
				more = true
				b := w.Owner.(*blocked)
				if h.acquire(b) {
					s.runWaiter(b)
				} else {
					h.later = append(h.later, b)
				}
			}
		})
	}
}

// serveLater serves, after the writer unlocked, the waiters it could not lock
// for: now it can wait for their shards like any command.
func (s *Server) serveLater(h *holding) {
	for len(h.later) > 0 {
		b := h.later[0]
		h.later = h.later[1:]
		var gated *sync.RWMutex
		if len(b.shards) > 1 {
			gated = s.gate.shared(b.c.id)
		}
		for _, i := range b.shards {
			b.db.Shard(i).Lock()
		}
		hb := holding{db: b.db, locks: b.shards}
		s.runWaiter(b)
		s.serveReady(&hb)
		hb.releaseExtra()
		for _, i := range b.shards {
			b.db.Shard(i).Unlock()
		}
		if gated != nil {
			gated.RUnlock()
		}
		h.later = append(h.later, hb.later...)
	}
}

// runWaiter runs b's command for its client; every shard b needs is held. If
// it still finds nothing, b goes on waiting; otherwise the reply is handed to
// b's goroutine.
func (s *Server) runWaiter(b *blocked) {
	b.mu.Lock()
	if b.state != waiting { // it left meanwhile, and passed its wake-up on
		b.mu.Unlock()
		return
	}
	b.state = serving
	b.mu.Unlock()

	// The command is the blocked client's: what it changes is its own
	// (NOLOOP), and, as after any command of a tracking client, the
	// invalidations it or later writes send that client wait for its reply.
	// Only tracking needs to know, so a queue's pops pay nothing otherwise.
	if s.track.Active() {
		prev := make([]int64, len(b.shards))
		for j, i := range b.shards {
			prev[j] = b.db.Shard(i).ActFor(b.c.id)
		}
		defer func() {
			for j, i := range b.shards {
				b.db.Shard(i).ActFor(prev[j])
			}
		}()
	}
	var p *pubsub.Subscriber
	if b.c.pubsub.track.Mode() != nil {
		p = s.hub.Load(&b.c.pubsub.ep)
	}
	if p != nil {
		p.Hold()
	}

	now := time.Now().UnixMilli()
	var again reblock
	refused := false
	switch {
	case !b.hasData(now):
		again = true
	case b.refused():
		refused = true
	default:
		a := s.aof.Load() // the shards are held: on or off for all of it
		logged := a != nil || s.feeding()
		x := cmdtable.Ctx{Args: b.args, W: &b.out, KS: s.ks, Indexes: s.reg.indexes, AI: s.reg.ai, DB: b.db, DBID: b.dbID, Now: now,
			Conn: b.c, Blocker: &again, Logged: logged}
		if j := s.persist.snap.Load(); j != nil {
			captureKeys(j, s.ks, b.dbID, -1, b.pos, b.args)
		}
		start := tick.Now()
		b.cmd.Run(&x)
		b.ran += tick.Now() - start
		if b.track {
			for _, i := range b.pos {
				s.track.Remember(b.c.id, b.args[i])
			}
		}
		b.c.stats.hits.Add(x.Hits)
		b.c.stats.misses.Add(x.Misses)
		effects, rewritten, noChange := x.TakeEffects()
		if !bool(again) && b.cmd.Flags&cmdtable.Write != 0 && !(noChange || rewritten && logged && len(effects) == 0) {
			b.c.stats.dirty.Add(1) // served: the call that blocked changed nothing
		}
		switch {
		case !logged || bool(again) || b.cmd.Flags&cmdtable.Write == 0:
		case rewritten:
			if len(effects) > 0 {
				s.logServed(b, a, now, effects)
			}
		default: // replayed, it finds the data it found now
			s.logServed(b, a, now, [][][]byte{s.ownName(b.cmd, b.args)})
		}
	}
	if again {
		if p != nil {
			p.Release(nil)
		}
		b.waiter.Rearm()
		b.mu.Lock()
		b.state = waiting
		b.mu.Unlock()
		return
	}
	for _, k := range b.keys {
		b.db.ShardFor(k).RemoveWaiter(k, &b.waiter)
	}
	if b.cmd.Flags&cmdtable.Write != 0 {
		for _, i := range b.pos {
			sh := b.db.ShardFor(b.args[i])
			if b.cmd.Flags&cmdtable.SelfTouch == 0 && !refused { // as the dispatcher touches
				sh.Touch(b.args[i]) // it wrote: WATCH and the next waiters
			} else {
				// A SelfTouch command touched what it changed. What it
				// left (all of it, after an error such as a BLMOVE's
				// WRONGTYPE destination) is the next waiter's, as Redis
				// goes on down the key's blocked clients.
				sh.WakeWaiters(b.args[i])
			}
		}
	}
	s.clients.blocked.Add(-1)
	b.mu.Lock()
	b.held = p != nil
	b.state = served
	b.c.io.conn.SetReadDeadline(time.Unix(1, 0)) // under mu: see waitBlocked
	b.mu.Unlock()
}

// logServed records what a served blocking command did: in the
// append-only log (the reply waits for it) and the replication stream.
func (s *Server) logServed(b *blocked, a *aof.Log, now int64, effects [][][]byte) {
	if s.feeding() {
		s.repl.Feed(b.dbID, now, effects)
	}
	if a != nil {
		b.aofEnd = a.AppendCmds(b.dbID, now, effects)
	}
}

// hasData reports whether one of b's keys holds the kind of value it waits
// for. A transaction can ready a waiter and then delete the key or give it
// another type; Redis then leaves the client blocked rather than re-running
// its command into a WRONGTYPE error.
func (b *blocked) hasData(now int64) bool {
	if b.waiter.Kind == 0 {
		return true
	}
	for _, k := range b.keys { // an expired key is left for its next lookup, as Redis's LOOKUP_NOEXPIRE
		if e := b.db.ShardFor(k).Get(k); e != nil && (e.Expire == 0 || e.Expire > now) && e.Kind == b.waiter.Kind {
			return true
		}
	}
	return false
}

// serveStranded serves waiters readied where no command is left to serve
// them: a stream deleted by the expiry cycle or by eviction readies its
// blocked XREADGROUP clients under a lock no command passes to serveReady.
// The cron calls it while any waiter is pending.
func (s *Server) serveStranded() {
	for _, db := range s.ks.DBs {
		for i := range keyspace.ShardCount {
			if keyspace.ReadyPending.Load() == 0 {
				return
			}
			sh := db.Shard(i)
			sh.Lock()
			h := holding{db: db, locks: []int{i}}
			s.serveReady(&h)
			h.releaseExtra()
			sh.Unlock()
			s.serveLater(&h)
		}
	}
}

// reblock is the Blocker of a command run for a waiting client: a command
// that still finds nothing calls it and the client keeps waiting on the same
// keys.
type reblock bool

func (r *reblock) Block([][]byte, time.Duration, bool) { *r = true }

// leave unregisters a client that stops waiting (timeout, disconnect). If a
// write had readied it, the wake-up passes to the next waiter of its keys,
// who is served here.
func (c *client) leave(b *blocked) {
	for _, k := range b.keys {
		i := keyspace.ShardIndex(k)
		sh := b.db.Shard(i)
		sh.Lock()
		sh.RemoveWaiter(k, &b.waiter)
		if b.waiter.Woken() {
			sh.WakeWaiters(k)
		}
		h := holding{db: b.db, locks: []int{i}}
		c.s.serveReady(&h)
		h.releaseExtra()
		sh.Unlock()
		c.s.serveLater(&h)
	}
	c.s.clients.blocked.Add(-1)
}

// waitBlocked parks the client until its command is served or times out, or
// the connection closes; it reports false when the client is gone.
func (c *client) waitBlocked() bool {
	b := c.blocked
	for {
		b.mu.Lock()
		state := b.state
		if state == waiting && !b.deadline.IsZero() && !time.Now().Before(b.deadline) {
			b.state = leaving
			b.mu.Unlock()
			c.leave(b)
			switch {
			case b.unblock == unblockError || b.unblock == unblockRole:
				msg := errUnblocked
				if b.unblock == unblockRole {
					msg = errUnblockedRole
					c.io.closing = true // as Redis: closed after the reply
				}
				c.io.out.Error(msg)
				c.s.stats.Failed(b.cmd, []byte(msg))
			case b.timeoutFn != nil:
				b.timeoutFn(&c.io.out)
			case b.timeoutReply != nil:
				c.io.out.B = append(c.io.out.B, b.timeoutReply...)
			case b.nullBulk:
				c.io.out.Null()
			default:
				c.io.out.NullArray()
			}
			break
		}
		if state == served {
			b.mu.Unlock()
			if len(b.out.B) > 0 && b.out.B[0] == '-' { // served into an error (NOGROUP after XGROUP DESTROY)
				c.s.stats.Failed(b.cmd, b.out.B[1:])
			}
			c.io.out.B = append(c.io.out.B, b.out.B...)
			c.aof.end = max(c.aof.end, b.aofEnd)
			c.pubsub.holding = c.pubsub.holding || b.held // flush queues what was held after this reply
			c.aof.woff = max(c.aof.woff, b.aofEnd)
			break
		}
		// Set under mu, so a writer serving b either already stored served
		// (seen above) or sets its past deadline after this one.
		c.io.conn.SetReadDeadline(b.deadline)
		b.mu.Unlock()
		if state == serving {
			runtime.Gosched() // a writer is running the command: its outcome comes soon
			continue
		}
		if c.io.w == len(c.io.in) && !c.grow(c.s.Config()) {
			c.abandon(b)
			return false
		}
		n, err := c.io.conn.Read(c.io.in[c.io.w:])
		c.io.w += n
		c.stats.netIn.Add(int64(n))
		if err != nil && !isTimeout(err) {
			c.abandon(b)
			return false
		}
	}
	c.blocked = nil
	c.waiting.Store(nil)
	c.io.conn.SetReadDeadline(time.Time{})
	if b.ran >= c.s.stats.slow.MinTicks() { // served, timed out or unblocked: logged now, once
		c.recordSlow(b.cmd, b.args, b.ran)
	}
	return true
}

// unblock ends c's wait in a blocking command as CLIENT UNBLOCK asks (reason
// unblockTimeout or unblockError) or REPLICAOF (unblockRole), reporting
// whether c was waiting. The
// client's own goroutine answers: its deadline is moved to now.
func (c *client) unblock(reason int) bool {
	b := c.waiting.Load()
	if b == nil {
		return false
	}
	b.mu.Lock()
	if b.state != waiting || b.unblock != 0 {
		b.mu.Unlock()
		return false
	}
	b.unblock, b.deadline = reason, time.Now()
	// Under mu, as a writer serving b does: once the client sees its wait
	// over and clears its deadline, this one can no longer land after that
	// and cut its next idle read short.
	c.io.conn.SetReadDeadline(b.deadline)
	b.mu.Unlock()
	return true
}

// finish ends b's wait with reply, as its timeout would (WAITAOF once the
// log is on); false if it is no longer waiting.
func (b *blocked) finish(reply []byte) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != waiting || b.unblock != 0 {
		return false
	}
	b.timeoutReply, b.deadline = reply, time.Now()
	b.c.io.conn.SetReadDeadline(b.deadline) // under mu, as unblock does
	return true
}

// abandon stops waiting for a client that disconnected. If a writer is
// serving it right now, the outcome is awaited: served, the element goes
// with the client, as in Redis; otherwise the client leaves.
func (c *client) abandon(b *blocked) {
	c.blocked = nil
	c.waiting.Store(nil)
	for {
		b.mu.Lock()
		switch b.state {
		case waiting:
			b.state = leaving
			b.mu.Unlock()
			c.leave(b)
			return
		case served:
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		runtime.Gosched()
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(interface{ Timeout() bool })
	return ok && ne.Timeout()
}
