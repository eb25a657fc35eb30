package server

import (
	"crypto/tls"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/hotkv/hotkv/internal/acl"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/pubsub"
	"github.com/hotkv/hotkv/internal/repl"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/stats"
)

const (
	initialReadBuf = 16 << 10
	maxIdleReadBuf = 1 << 20 // a larger buffer is dropped once drained
	maxIdleKeys    = 1024    // key position lists grown past this are dropped too
	reportReleased = 1 << 20 // released lists of this many bytes are reported to the lazy free
	maxIdleOutBuf  = 1 << 20
	// flushAt bounds the replies a pipeline accumulates before they are
	// written: small replies still go out in one write per read, while a
	// pipeline of large replies does not hold them all in memory.
	flushAt = 64 << 10
)

// mode is a set of connection modes that change how commands run.
type mode uint8

const (
	tracking mode = 1 << iota // CLIENT TRACKING is on (pubsub.track has a mode)
	caching                   // CLIENT CACHING applies to the next command (or transaction)
	replyOff                  // CLIENT REPLY OFF
	skipNext                  // CLIENT REPLY SKIP: the next command's reply is dropped
	skipThis                  // ... this command's
)

// client is one connection: its buffers, its protocol and database, and the
// state of transactions and subscriptions. Only its own goroutine touches the
// unexported fields without a lock; what other goroutines read (CLIENT LIST,
// INFO) is atomic or under info.mu.
//
// Its fields are grouped by concern into value sub-structs (no pointer in
// between): the command running and what it holds come first, then io and
// batch, which every command touches, then stats, which it counts into, and
// the groups holding a flag each command checks (auth, tx, pubsub, info);
// replication's and the log's state and the rest are read when in use.
type client struct {
	s  *Server
	id int64

	// The command running (dispatch.go) and what it holds.
	ctx     cmdtable.Ctx
	locks   []int        // shard indexes locked for the running command, sorted
	keys    []int        // the key positions of the command call runs (Block keeps them)
	other   *keyspace.DB // a second database where those shards are locked too (MOVE), or nil
	otherID int
	running *cmdtable.Cmd
	blocked *blocked      // set while waiting in a blocking command
	gated   *sync.RWMutex // the gate part held shared by the running command, if any
	modes   mode          // the connection modes above; zero on the hot path
	// errCounted: the script that just ran ends with an error its command
	// met, counted then (script.Caller's ErrorCounted).
	errCounted bool

	io     clientIO
	batch  clientBatch
	stats  clientStats
	auth   clientAuth
	tx     clientTx
	pubsub clientPubsub
	info   clientInfo
	repl   clientRepl
	aof    clientAOF

	script scriptRun // the script it runs (scripting.go)
	// waiting is the blocking command waiting, if any (CLIENT UNBLOCK);
	// shared with other goroutines.
	waiting atomic.Pointer[blocked]
	// saveAccess's scratch space (notouch.go).
	noTouchSaved []savedAccess
}

// clientIO is the connection's socket and its input and output buffers.
type clientIO struct {
	in     []byte
	r, w   int // unread input is in[r:w]
	parser *resp.Parser
	out    resp.Writer

	closing  bool // close after flushing replies (QUIT, protocol error)
	shutdown bool // SHUTDOWN: stop the server once the replies before it are out
	deadline bool // a read deadline (timeout) is set on conn

	conn net.Conn
	// rc is the socket for serveRaw, set before it runs; shortRead is set
	// when serveRaw waits after a read that may have left the peer's
	// close unread (see closeHalfClosed).
	rc        syscall.RawConn
	shortRead atomic.Bool
	rawFD     int         // the socket while serveRaw's callback runs, else -1
	fd        int         // for CLIENT LIST
	local     bool        // a Unix socket or loopback client (enable-debug-command local...)
	killed    atomic.Bool // closeConn was called, or QUIT

	// The normal class's output buffer limits as of the last read, and
	// when the soft one was reached (obuf.go).
	obufHard  int64
	obufSoft  config.SoftLimit
	obufSince int64
	// Buffer figures for other goroutines (clientbufs.go): pending<<32 |
	// read buffer size, reply buffer capacity; bufsSeen is the last stored.
	bufs     atomic.Uint64
	outCap   atomic.Int64
	bufsSeen bufState
}

// clientBatch is the commands parsed from io.in and not yet run (cmds[next:]),
// and the arguments they keep (see parseBatch).
type clientBatch struct {
	cmds []parsed
	next int
	cur  *parsed // the batch's command running
	args [][]byte
}

// clientStats is what the connection counts for INFO and its commandstats.
type clientStats struct {
	// The command being repeated and its calls and time since the last
	// publish: a pipeline of one command costs two atomic adds per batch
	// instead of two per command.
	runCmd   *cmdtable.Cmd
	runCalls uint64
	runTicks int64
	// Write commands that changed something (Redis's dirty): counted
	// unpublished as runCalls is, published to dirty once a batch.
	dirtyRun uint64
	calls    []atomic.Uint64 // per command ID, published by flushStats
	nanos    []atomic.Uint64
	lat      stats.ConnLatency // latency histograms (lathist.go)

	// Shared with other goroutines (INFO).
	hits   atomic.Int64
	misses atomic.Int64
	dirty  atomic.Uint64
	netIn  atomic.Int64
	netOut atomic.Int64
	reads  atomic.Int64 // socket reads and writes, INFO total_*_processed
	writes atomic.Int64
}

// clientAuth is who the connection runs commands as.
type clientAuth struct {
	user atomic.Pointer[acl.User] // the ACL user it runs commands as
	ok   bool                     // logged in (as user), or needed not to be
}

// clientTx is MULTI's and EXEC's state (multi.go).
type clientTx struct {
	multi  *multiState
	inExec bool // an EXEC is running: it holds its shards (see execLocked)
	// execTime is TIME's answer (unix µs) for the rest of the running EXEC
	// or script, 0 until its first TIME: Redis freezes its clock there.
	execTime int64
	aofOff   bool // CONFIG SET appendonly no ran in this EXEC: exec turns the log off after it
	// memGen: a CONFIG SET inside EXEC lowered maxmemory; EXEC awaits
	// that measurement once it has released its shards.
	memGen  uint64
	watch   keyspace.Watch
	watched []watchedKey

	// Shared with other goroutines (CLIENT LIST, INFO).
	queued     atomic.Int32 // commands queued in MULTI, -1 outside
	watchCount atomic.Int32
}

// clientPubsub is the connection's pushes: subscriptions, MONITOR and
// CLIENT TRACKING (pubsub.go, monitor.go, tracking.go).
type clientPubsub struct {
	// ep: its queue once it has subscribed, monitors or tracks keys.
	ep      pubsub.Endpoint
	holding bool // its Subscriber holds pushes (holdPushes, an EXEC that subscribed, a served waiter)
	// confirmed: the command wrote (un)subscribe confirmations into out,
	// which CLIENT REPLY OFF|SKIP does not silence (afterCommand).
	confirmed bool
	// monitoring: MONITOR streams commands to it (monitor.go); read by
	// the goroutines feeding it.
	monitoring atomic.Bool
	// track: CLIENT TRACKING's mode, read by the writers of invalidations.
	track pubsub.Tracking
}

// clientRepl is the connection's part in replication: a replica's link on
// either side, and the offset WAIT waits for.
type clientRepl struct {
	master   bool          // the replica's link to its master (replica.go): its writes are never refused
	off      int64         // replication offset after the client's last write (WAIT)
	conf     *repl.Conf    // what REPLCONF announced (repl.go)
	replica  *repl.Replica // set once SYNC or PSYNC made the connection a replica's
	attached atomic.Bool   // replica is set, for other goroutines
}

// clientAOF is the connection's place in the append-only log (aof.go).
type clientAOF struct {
	end  int64  // log offset the replies in io.out wait for
	woff int64  // log offset of the client's last write (WAITAOF)
	rec  []byte // the running transaction's log record
}

// clientInfo is what CLIENT LIST and INFO read from other goroutines, and
// the CLIENT settings they show.
type clientInfo struct {
	noTouch  atomic.Bool
	noEvict  atomic.Bool
	lastCmd  atomic.Pointer[cmdtable.Cmd]
	lastSeen atomic.Int64 // unix ms of the last command
	dbNum    atomic.Int32
	proto    atomic.Int32
	created  time.Time

	mu      sync.Mutex // guards the names below
	name    string
	libName string
	libVer  string
}

func newClient(s *Server, conn net.Conn) *client {
	c := &client{
		s:  s,
		id: s.clients.nextID.Add(1),
		io: clientIO{
			conn:   conn,
			fd:     connFD(conn),
			local:  isLocal(conn),
			rawFD:  -1,
			parser: resp.NewParser(limits(s.Config())),
			in:     make([]byte, initialReadBuf),
		},
		batch: clientBatch{cmds: make([]parsed, 0, batchAhead)},
		stats: clientStats{
			calls: make([]atomic.Uint64, cmdtable.Count()),
			nanos: make([]atomic.Uint64, cmdtable.Count()),
		},
		info: clientInfo{created: time.Now()},
	}
	c.io.out.Proto = 2
	c.info.proto.Store(2)
	c.tx.queued.Store(-1)
	c.auth.user.Store(s.defaultUser)
	c.auth.ok = !s.defaultNeedsAuth()
	c.ctx = cmdtable.Ctx{W: &c.io.out, KS: s.ks, Indexes: s.reg.indexes, AI: s.reg.ai, DB: s.ks.DBs[0], Conn: c, Blocker: c, Logged: s.logging()}
	c.info.lastSeen.Store(time.Now().UnixMilli())
	return c
}

// connFD is the socket's descriptor, for CLIENT LIST's fd field.
func connFD(conn net.Conn) int {
	if tc, ok := conn.(*tls.Conn); ok {
		conn = tc.NetConn()
	}
	sc, ok := conn.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return -1
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	rc.Control(func(f uintptr) { fd = int(f) })
	return fd
}

func (c *client) serve() {
	defer c.s.removeClient(c)
	defer c.cleanup()
	defer func() {
		if r := recover(); r != nil {
			c.s.stats.panics.Add(1)
			c.s.logf("warning", "BUG: panic serving client id=%d: %v\n%s", c.id, r, debug.Stack())
		}
	}()
	if sc, ok := c.io.conn.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			c.io.rc = rc
			c.serveRaw(rc)
			return
		}
	}
	for c.beforeRead() {
		n, err := c.io.conn.Read(c.io.in[c.io.w:])
		if n > 0 && !(c.afterRead(n) && c.serveBlocked()) {
			return
		}
		if err != nil {
			return
		}
	}
}

// serveRaw is the connection loop for a socket. It reads the descriptor
// itself inside one RawConn.Read callback so that, once a batch is answered
// and the read did not fill the buffer (the socket is drained), it goes
// straight back to the poller: net.Conn.Read would first try a read that
// fails with EAGAIN, one wasted system call per request at pipeline depth 1
// (a third of them). Returning false from the callback waits for readability;
// the poller is edge-triggered, so data that arrived after the last read has
// raised an event that ends the wait at once. (Calling RawConn.Read anew for
// each wait would not do: it clears a pending readiness before the callback
// runs.) Replies are written on the descriptor too while it is ours (see
// flush). A blocked command leaves the callback to wait (waitBlocked reads
// through conn); closeConn is how other goroutines close this connection,
// since Close waits for the callback to return.
func (c *client) serveRaw(rc syscall.RawConn) {
	for {
		done := true
		err := rc.Read(func(fd uintptr) bool {
			c.io.rawFD = int(fd)
			for c.beforeRead() {
				n, errno := sysRead(c.io.rawFD, c.io.in[c.io.w:])
				switch {
				case errno == syscall.EINTR:
					continue
				case errno == syscall.EAGAIN:
					return false
				case errno != 0 || n == 0:
					return true // error or EOF: done
				}
				c.io.shortRead.Store(false) // reading: closeHalfClosed leaves it be
				full := c.io.w+n == len(c.io.in)
				if !c.afterRead(n) {
					return true
				}
				if c.blocked != nil {
					done = false
					return true
				}
				if !full {
					c.io.shortRead.Store(true)
					return false
				}
			}
			return true
		})
		c.io.rawFD = -1
		if done || err != nil || !c.serveBlocked() {
			return
		}
	}
}

// peerClosed reports whether the peer has closed its side and nothing is
// left to read: a peek at the socket answers end of file.
func (c *client) peerClosed() bool {
	closed := false
	c.io.rc.Control(func(fd uintptr) {
		var b [1]byte
		n, _, errno := syscall.Syscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1,
			syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
		closed = errno == 0 && n == 0
	})
	return closed
}

// beforeRead applies the settings CONFIG SET may have changed and makes room
// to read; false ends the connection.
func (c *client) beforeRead() bool {
	if c.io.closing || c.io.killed.Load() {
		return false
	}
	cfg := c.s.Config()
	c.io.parser.Limits = limits(cfg)
	c.setDeadline(cfg)
	c.io.obufHard, c.io.obufSoft = cfg.NormalOutputHard, cfg.NormalOutputSoft
	return c.io.w < len(c.io.in) || c.grow(cfg)
}

// afterRead runs the commands completed by n new bytes and writes the
// replies; false ends the connection (QUIT, protocol error, write failure).
func (c *client) afterRead(n int) bool {
	c.stats.reads.Add(1)
	c.stats.netIn.Add(int64(n))
	c.io.w += n
	c.process()
	ok := c.flush()
	c.publishBufs()
	if c.io.shutdown {
		c.s.stopSoon()
	}
	return ok && !c.io.closing
}

// serveBlocked waits while a blocking command is blocked, then runs the
// commands pipelined behind it; false ends the connection.
func (c *client) serveBlocked() bool {
	for c.blocked != nil && !c.io.closing {
		if !c.waitBlocked() {
			return false
		}
		c.process() // commands pipelined behind the blocking one
		if !c.flush() {
			return false
		}
	}
	return true
}

// closeConn closes the connection from another goroutine (CLIENT KILL,
// shutdown, pub/sub limits) without waiting: while serveRaw is inside its
// callback, Close waits for it to return, and the batch it is running may
// need locks the closer holds.
func (c *client) closeConn() {
	c.io.killed.Store(true)
	go c.io.conn.Close()
}

// setDeadline arms the idle timeout; subscribed clients are exempt, as in
// Redis, and a deadline left from before is cleared when it no longer applies.
func (c *client) setDeadline(cfg *config.Config) {
	if t := cfg.Timeout; t > 0 && !c.subscribed() && c.repl.replica == nil {
		c.io.conn.SetReadDeadline(time.Now().Add(time.Duration(t) * time.Second))
		c.io.deadline = true
	} else if c.io.deadline {
		c.io.conn.SetReadDeadline(time.Time{})
		c.io.deadline = false
	}
}

// authRequired is Redis's authRequired: the default user has a password and
// this connection has not authenticated. Clearing requirepass frees waiting
// connections too.
func (c *client) authRequired() bool {
	return !c.auth.ok && c.s.defaultNeedsAuth()
}

// process runs every complete command in the input buffer, a batch at a
// time (parseBatch).
func (c *client) process() {
	c.ctx.Now = time.Now().UnixMilli() // one clock reading per batch, as the hot path wants
	c.info.lastSeen.Store(c.ctx.Now)
	defer c.flushStats()
	defer c.dropBatch()
	for !c.io.closing && c.blocked == nil {
		if c.batch.next == len(c.batch.cmds) {
			if err := c.parseBatch(); err == resp.ErrIncomplete {
				break
			} else if err != nil {
				c.io.out.Error(err.Error())
				c.s.stats.CountError(err.Error())
				c.s.logf("verbose", "protocol error from client id=%d addr=%v: %v", c.id, c.addr(), err)
				c.io.closing = true
				return
			}
		}
		p := &c.batch.cmds[c.batch.next]
		c.batch.next++
		c.io.r = p.end
		if len(p.args) > 0 { // an empty line has none
			// Pushes to a client with a queue (subscribed, tracking,
			// monitoring) wait for the batch's replies: as in Redis, a
			// command's reply comes before the messages it sends its own
			// client (PUBLISH to itself, in EXEC or a script too).
			if c.pubsub.ep.Subscriber() != nil && !c.pubsub.holding {
				c.holdPushes()
			}
			c.trimTracking()
			mark := len(c.io.out.B)
			c.batch.cur = p
			c.execute(p.cmd, p.args)
			c.batch.cur = nil
			if c.modes != 0 {
				c.afterCommand(p.cmd, mark)
			}
			if c.io.obufHard|c.io.obufSoft.Bytes != 0 && !c.checkNormalOutput() {
				return
			}
			if c.batch.next < len(c.batch.cmds) && c.authRequired() {
				c.dropBatch() // parsed as an authenticated client's (parseBatch)
			}
		}
		// A monitor's replies join the lines other connections feed it in
		// the order things happen. Under a normal-class hard limit the
		// batch's replies wait whole, as Redis's do, for the limit to see.
		if (len(c.io.out.B) >= flushAt && c.io.obufHard == 0 || c.pubsub.monitoring.Load()) && !c.flush() {
			c.io.closing = true
			return
		}
	}
	if c.io.r == c.io.w && c.blocked == nil {
		c.io.r, c.io.w = 0, 0
		if len(c.io.in) > maxIdleReadBuf || c.io.parser.Oversized() {
			// A large command's buffers go once it has run, as Redis frees
			// a client's arguments after each command and shrinks its query
			// buffer: a connection that once sent 100,000 arguments kept
			// 6 MB for good.
			if len(c.io.in) > maxIdleReadBuf {
				c.io.in = make([]byte, initialReadBuf)
			}
			c.clearBatch()
			c.ctx.Args = nil
			dropped := c.io.parser.Release()
			if cap(c.keys) > maxIdleKeys {
				dropped += 8 * (cap(c.keys) + cap(c.locks)) // key positions and shards: 1.6 MB after 100,000 keys
				c.keys, c.locks = nil, nil
			}
			// Lists of 1 MiB or more (about 20,000 arguments) are garbage
			// to reclaim as a large value deleted is: the lazy free's
			// collection for that command's deletions may have run before
			// this, seeing them still in use. Smaller ones, and a large
			// value's input buffer, are left to the collector's pace.
			if dropped >= reportReleased {
				c.s.ks.Lazy.Drop(0, int64(dropped))
			}
		}
	}
}

// grow makes room to read: compact a partial command to the front, or enlarge
// the buffer when it is full of one command: straight to the size a pending
// bulk needs (as Redis preallocates big arguments; unauthenticated clients
// cannot announce more than 16 KiB), else doubling. Growing a 16 MiB value
// by doubling cost ten allocations and copies per command. It reports false
// when one command would exceed client-query-buffer-limit: Redis closes such
// a client without a reply.
func (c *client) grow(cfg *config.Config) bool {
	if c.io.r > 0 {
		c.io.w = copy(c.io.in, c.io.in[c.io.r:c.io.w])
		c.io.parser.Shift(c.io.r)
		c.io.r = 0
		return true
	}
	limit := cfg.ClientQueryBufferLimit
	if int64(len(c.io.in)) >= limit {
		c.s.stats.qbufLimitDisconnections.Add(1)
		c.s.logf("warning", "Closing client that reached max query buffer length: id=%d addr=%v (qbuf %d bytes)", c.id, c.addr(), len(c.io.in))
		return false
	}
	size := 2 * len(c.io.in)
	if need := c.io.parser.Need(0); need > len(c.io.in) {
		size = need
	}
	if int64(size) > limit {
		size = int(limit)
	}
	nb := make([]byte, size)
	copy(nb, c.io.in[:c.io.w])
	c.io.in = nb
	return true
}

// flush writes pending replies. A subscribed client's replies go through its
// push queue so they stay ordered with published messages.
func (c *client) flush() bool {
	if c.repl.replica != nil { // its writer goroutine owns the output; a master does not answer its replica
		c.resetOut()
		return true
	}
	if c.s.track.Pending() {
		c.s.track.SendBroadcast(c.id)
	}
	if len(c.io.out.B) != 0 && c.aof.end != 0 {
		if a := c.s.aof.Load(); a != nil { // off: what it waits for was written then
			a.Await(c.aof.end)
		}
		c.aof.end = 0
	}
	// Held messages are queued before the client can leave its queue (a
	// batch that turned tracking off), so no hold outlives it.
	if c.pubsub.holding && !c.releaseHeld() {
		return false
	}
	if c.pubsub.ep.Subscriber() != nil && !c.subscribed() && !c.pubsub.monitoring.Load() && c.modes&tracking == 0 {
		c.leavePubSub()
	}
	if p := c.pubsub.ep.Subscriber(); p != nil {
		if len(c.io.out.B) > 0 {
			ok := p.Enqueue(c.io.out.B)
			c.resetOut()
			if !ok {
				return false
			}
		}
		if !c.subscribed() && !c.pubsub.monitoring.Load() {
			p.WaitRoom()
		}
		return true
	}
	if len(c.io.out.B) == 0 {
		return true
	}
	c.stats.writes.Add(1) // before the bytes can reach the client: a test may read INFO next
	b := c.io.out.B
	for c.io.rawFD >= 0 && len(b) > 0 {
		n, errno := sysWrite(c.io.rawFD, b)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			break // EAGAIN: the socket is full, let conn.Write wait; it reports errors
		}
		c.stats.netOut.Add(int64(n))
		b = b[n:]
	}
	var err error
	if len(b) > 0 {
		d, limited := c.writeDeadline(len(b))
		if limited {
			c.io.conn.SetWriteDeadline(d)
		}
		var n int
		n, err = c.io.conn.Write(b)
		c.stats.netOut.Add(int64(n))
		if limited {
			if writeTimedOut(err) {
				c.outputLimitReached("normal", int64(len(b)-n))
			}
			c.io.conn.SetWriteDeadline(time.Time{})
		}
	}
	c.resetOut()
	return err == nil
}

func (c *client) resetOut() {
	if cap(c.io.out.B) > maxIdleOutBuf {
		c.io.out.B = nil
	} else {
		c.io.out.B = c.io.out.B[:0]
	}
}

func (c *client) cleanup() {
	if c.blocked != nil { // closed while blocked, before waiting (a dead pub/sub queue)
		c.abandon(c.blocked)
	}
	c.flushStats()
	c.flush()
	c.stopMonitoring()
	if c.modes&tracking != 0 {
		c.setTracking(nil)
	}
	if p := c.pubsub.ep.Subscriber(); p != nil {
		c.s.hub.UnsubscribeAll(&c.pubsub.ep)
		p.Stop()
	}
	c.unwatchAll()
	c.replicaGone()
	c.io.conn.Close()
}

// subscribed reports whether the client has any subscription (Redis's
// CLIENT_PUBSUB flag). Safe from any goroutine.
func (c *client) subscribed() bool {
	return c.pubsub.ep.Subscribed()
}

func (c *client) setProto(p int) {
	c.io.out.Proto = p
	c.info.proto.Store(int32(p))
}

func (c *client) selectDB(n int) {
	c.ctx.DB = c.s.ks.DBs[n]
	c.ctx.DBID = n
	c.info.dbNum.Store(int32(n))
}

func limits(cfg *config.Config) resp.Limits {
	return resp.Limits{
		MaxBulk:      cfg.ProtoMaxBulkLen,
		MaxMultibulk: cfg.ProtoMaxMultibulkLen,
		MaxInline:    int(cfg.ProtoMaxInlineLen),
	}
}
