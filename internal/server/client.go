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
	tracking mode = 1 << iota // CLIENT TRACKING is on (track has a mode)
	caching                   // CLIENT CACHING applies to the next command (or transaction)
	replyOff                  // CLIENT REPLY OFF
	skipNext                  // CLIENT REPLY SKIP: the next command's reply is dropped
	skipThis                  // ... this command's
)

// client is one connection: its buffers, its protocol and database, and the
// state of transactions and subscriptions. Only its own goroutine touches the
// unexported fields without a lock; what other goroutines read (CLIENT LIST,
// INFO) is atomic or under infoMu.
type client struct {
	s     *Server
	conn  net.Conn
	id    int64
	fd    int  // for CLIENT LIST
	local bool // a Unix socket or loopback client (enable-debug-command local...)
	rawFD int  // the socket while serveRaw's callback runs, else -1
	// rc is the socket for serveRaw, set before it runs; shortRead is set
	// when serveRaw waits after a read that may have left the peer's
	// close unread (see closeHalfClosed).
	rc        syscall.RawConn
	shortRead atomic.Bool
	parser    *resp.Parser
	// The commands parsed from in and not yet run (batch[next:]), and the
	// arguments they keep (see parseBatch).
	batch     []parsed
	next      int
	cur       *parsed // the batch's command running
	batchArgs [][]byte
	in        []byte
	r, w      int // unread input is in[r:w]
	out       resp.Writer
	ctx       cmdtable.Ctx
	locks     []int        // shard indexes locked for the running command, sorted
	keys      []int        // the key positions of the command call runs (Block keeps them)
	other     *keyspace.DB // a second database where those shards are locked too (MOVE), or nil
	otherID   int

	authed   bool // logged in (as user), or needed not to be
	master   bool // the replica's link to its master (replica.go): its writes are never refused
	closing  bool // close after flushing replies (QUIT, protocol error)
	shutdown bool // SHUTDOWN: stop the server once the replies before it are out
	deadline bool // a read deadline (timeout) is set on conn
	multi    *multiState
	inExec   bool // an EXEC is running: it holds its shards (see execLocked)
	// execTime is TIME's answer (unix µs) for the rest of the running EXEC
	// or script, 0 until its first TIME: Redis freezes its clock there.
	execTime int64
	// errCounted: the script that just ran ends with an error its command
	// met, counted then (script.Caller's ErrorCounted).
	errCounted bool
	watch      keyspace.Watch
	watched    []watchedKey
	// pubsub: its queue once it has subscribed, monitors or tracks keys.
	pubsub  pubsub.Endpoint
	holding bool // its Subscriber holds pushes (holdPushes, an EXEC that subscribed, a served waiter)
	modes   mode // the connection modes below; zero on the hot path
	// monitoring: MONITOR streams commands to it (monitor.go); read by
	// the goroutines feeding it.
	monitoring atomic.Bool
	running    *cmdtable.Cmd
	blocked    *blocked      // set while waiting in a blocking command
	gated      *sync.RWMutex // the gate part held shared by the running command, if any
	script     scriptRun     // the script it runs (scripting.go)
	aofEnd     int64         // log offset the replies in out wait for (aof.go)
	aofOff     bool          // CONFIG SET appendonly no ran in this EXEC: exec turns the log off after it
	woff       int64         // log offset of the client's last write (WAITAOF)
	tx         []byte        // the running transaction's log record
	replOff    int64         // replication offset after the client's last write (WAIT)
	replConf   *repl.Conf    // what REPLCONF announced (repl.go)
	replica    *repl.Replica // set once SYNC or PSYNC made the connection a replica's
	// The normal class's output buffer limits as of the last read, and
	// when the soft one was reached (obuf.go).
	obufHard  int64
	obufSoft  config.SoftLimit
	obufSince int64
	// confirmed: the command wrote (un)subscribe confirmations into out,
	// which CLIENT REPLY OFF|SKIP does not silence (afterCommand).
	confirmed bool
	// memGen: a CONFIG SET inside EXEC lowered maxmemory; EXEC awaits
	// that measurement once it has released its shards.
	memGen uint64

	// Shared with other goroutines (CLIENT LIST, INFO, CLIENT KILL).
	waiting atomic.Pointer[blocked] // the blocking command waiting, if any (CLIENT UNBLOCK)
	// track: CLIENT TRACKING's mode, read by the writers of invalidations.
	track      pubsub.Tracking
	queued     atomic.Int32 // commands queued in MULTI, -1 outside
	watchCount atomic.Int32
	noEvict    atomic.Bool
	noTouch    atomic.Bool
	// Buffer figures for other goroutines (clientbufs.go): pending<<32 |
	// read buffer size, reply buffer capacity; bufsSeen is the last stored.
	bufs        atomic.Uint64
	outCap      atomic.Int64
	bufsSeen    bufState
	replicaFlag atomic.Bool // replica is set
	// saveAccess's scratch space (notouch.go).
	noTouchSaved []savedAccess
	killed       atomic.Bool // closeConn was called, or QUIT
	lastCmd      atomic.Pointer[cmdtable.Cmd]
	user         atomic.Pointer[acl.User] // the ACL user it runs commands as
	dbNum        atomic.Int32
	proto        atomic.Int32
	created      time.Time
	lastSeen     atomic.Int64    // unix ms of the last command
	calls        []atomic.Uint64 // per command ID, published by flushStats
	nanos        []atomic.Uint64
	// The command being repeated and its calls and time since the last
	// publish: a pipeline of one command costs two atomic adds per batch
	// instead of two per command.
	runCmd   *cmdtable.Cmd
	runCalls uint64
	runTicks int64
	lat      stats.ConnLatency // latency histograms (lathist.go)
	hits     atomic.Int64
	misses   atomic.Int64
	// Write commands that changed something (Redis's dirty): counted
	// unpublished as runCalls is, published to dirty once a batch.
	dirtyRun uint64
	dirty    atomic.Uint64
	netIn    atomic.Int64
	netOut   atomic.Int64
	reads    atomic.Int64 // socket reads and writes, INFO total_*_processed
	writes   atomic.Int64

	infoMu  sync.Mutex
	name    string
	libName string
	libVer  string
}

func newClient(s *Server, conn net.Conn) *client {
	c := &client{
		s:       s,
		conn:    conn,
		id:      s.nextID.Add(1),
		fd:      connFD(conn),
		local:   isLocal(conn),
		rawFD:   -1,
		parser:  resp.NewParser(limits(s.Config())),
		batch:   make([]parsed, 0, batchAhead),
		in:      make([]byte, initialReadBuf),
		created: time.Now(),
		calls:   make([]atomic.Uint64, cmdtable.Count()),
		nanos:   make([]atomic.Uint64, cmdtable.Count()),
	}
	c.out.Proto = 2
	c.proto.Store(2)
	c.queued.Store(-1)
	c.user.Store(s.defaultUser)
	c.authed = !s.defaultNeedsAuth()
	c.ctx = cmdtable.Ctx{W: &c.out, KS: s.ks, Indexes: s.reg.indexes, AI: s.reg.ai, DB: s.ks.DBs[0], Conn: c, Blocker: c, Logged: s.logging()}
	c.lastSeen.Store(time.Now().UnixMilli())
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
	if sc, ok := c.conn.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			c.rc = rc
			c.serveRaw(rc)
			return
		}
	}
	for c.beforeRead() {
		n, err := c.conn.Read(c.in[c.w:])
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
			c.rawFD = int(fd)
			for c.beforeRead() {
				n, errno := sysRead(c.rawFD, c.in[c.w:])
				switch {
				case errno == syscall.EINTR:
					continue
				case errno == syscall.EAGAIN:
					return false
				case errno != 0 || n == 0:
					return true // error or EOF: done
				}
				c.shortRead.Store(false) // reading: closeHalfClosed leaves it be
				full := c.w+n == len(c.in)
				if !c.afterRead(n) {
					return true
				}
				if c.blocked != nil {
					done = false
					return true
				}
				if !full {
					c.shortRead.Store(true)
					return false
				}
			}
			return true
		})
		c.rawFD = -1
		if done || err != nil || !c.serveBlocked() {
			return
		}
	}
}

// peerClosed reports whether the peer has closed its side and nothing is
// left to read: a peek at the socket answers end of file.
func (c *client) peerClosed() bool {
	closed := false
	c.rc.Control(func(fd uintptr) {
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
	if c.closing || c.killed.Load() {
		return false
	}
	cfg := c.s.Config()
	c.parser.Limits = limits(cfg)
	c.setDeadline(cfg)
	c.obufHard, c.obufSoft = cfg.NormalOutputHard, cfg.NormalOutputSoft
	return c.w < len(c.in) || c.grow(cfg)
}

// afterRead runs the commands completed by n new bytes and writes the
// replies; false ends the connection (QUIT, protocol error, write failure).
func (c *client) afterRead(n int) bool {
	c.reads.Add(1)
	c.netIn.Add(int64(n))
	c.w += n
	c.process()
	ok := c.flush()
	c.publishBufs()
	if c.shutdown {
		c.s.stopSoon()
	}
	return ok && !c.closing
}

// serveBlocked waits while a blocking command is blocked, then runs the
// commands pipelined behind it; false ends the connection.
func (c *client) serveBlocked() bool {
	for c.blocked != nil && !c.closing {
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
	c.killed.Store(true)
	go c.conn.Close()
}

// setDeadline arms the idle timeout; subscribed clients are exempt, as in
// Redis, and a deadline left from before is cleared when it no longer applies.
func (c *client) setDeadline(cfg *config.Config) {
	if t := cfg.Timeout; t > 0 && !c.subscribed() && c.replica == nil {
		c.conn.SetReadDeadline(time.Now().Add(time.Duration(t) * time.Second))
		c.deadline = true
	} else if c.deadline {
		c.conn.SetReadDeadline(time.Time{})
		c.deadline = false
	}
}

// authRequired is Redis's authRequired: the default user has a password and
// this connection has not authenticated. Clearing requirepass frees waiting
// connections too.
func (c *client) authRequired() bool {
	return !c.authed && c.s.defaultNeedsAuth()
}

// process runs every complete command in the input buffer, a batch at a
// time (parseBatch).
func (c *client) process() {
	c.ctx.Now = time.Now().UnixMilli() // one clock reading per batch, as the hot path wants
	c.lastSeen.Store(c.ctx.Now)
	defer c.flushStats()
	defer c.dropBatch()
	for !c.closing && c.blocked == nil {
		if c.next == len(c.batch) {
			if err := c.parseBatch(); err == resp.ErrIncomplete {
				break
			} else if err != nil {
				c.out.Error(err.Error())
				c.s.stats.CountError(err.Error())
				c.s.logf("verbose", "protocol error from client id=%d addr=%v: %v", c.id, c.addr(), err)
				c.closing = true
				return
			}
		}
		p := &c.batch[c.next]
		c.next++
		c.r = p.end
		if len(p.args) > 0 { // an empty line has none
			// Pushes to a client with a queue (subscribed, tracking,
			// monitoring) wait for the batch's replies: as in Redis, a
			// command's reply comes before the messages it sends its own
			// client (PUBLISH to itself, in EXEC or a script too).
			if c.pubsub.Subscriber() != nil && !c.holding {
				c.holdPushes()
			}
			c.trimTracking()
			mark := len(c.out.B)
			c.cur = p
			c.execute(p.cmd, p.args)
			c.cur = nil
			if c.modes != 0 {
				c.afterCommand(p.cmd, mark)
			}
			if c.obufHard|c.obufSoft.Bytes != 0 && !c.checkNormalOutput() {
				return
			}
			if c.next < len(c.batch) && c.authRequired() {
				c.dropBatch() // parsed as an authenticated client's (parseBatch)
			}
		}
		// A monitor's replies join the lines other connections feed it in
		// the order things happen. Under a normal-class hard limit the
		// batch's replies wait whole, as Redis's do, for the limit to see.
		if (len(c.out.B) >= flushAt && c.obufHard == 0 || c.monitoring.Load()) && !c.flush() {
			c.closing = true
			return
		}
	}
	if c.r == c.w && c.blocked == nil {
		c.r, c.w = 0, 0
		if len(c.in) > maxIdleReadBuf || c.parser.Oversized() {
			// A large command's buffers go once it has run, as Redis frees
			// a client's arguments after each command and shrinks its query
			// buffer: a connection that once sent 100,000 arguments kept
			// 6 MB for good.
			if len(c.in) > maxIdleReadBuf {
				c.in = make([]byte, initialReadBuf)
			}
			c.clearBatch()
			c.ctx.Args = nil
			dropped := c.parser.Release()
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
	if c.r > 0 {
		c.w = copy(c.in, c.in[c.r:c.w])
		c.parser.Shift(c.r)
		c.r = 0
		return true
	}
	limit := cfg.ClientQueryBufferLimit
	if int64(len(c.in)) >= limit {
		c.s.stats.qbufLimitDisconnections.Add(1)
		c.s.logf("warning", "Closing client that reached max query buffer length: id=%d addr=%v (qbuf %d bytes)", c.id, c.addr(), len(c.in))
		return false
	}
	size := 2 * len(c.in)
	if need := c.parser.Need(0); need > len(c.in) {
		size = need
	}
	if int64(size) > limit {
		size = int(limit)
	}
	nb := make([]byte, size)
	copy(nb, c.in[:c.w])
	c.in = nb
	return true
}

// flush writes pending replies. A subscribed client's replies go through its
// push queue so they stay ordered with published messages.
func (c *client) flush() bool {
	if c.replica != nil { // its writer goroutine owns the output; a master does not answer its replica
		c.resetOut()
		return true
	}
	if c.s.track.Pending() {
		c.s.track.SendBroadcast(c.id)
	}
	if len(c.out.B) != 0 && c.aofEnd != 0 {
		if a := c.s.aof.Load(); a != nil { // off: what it waits for was written then
			a.Await(c.aofEnd)
		}
		c.aofEnd = 0
	}
	// Held messages are queued before the client can leave its queue (a
	// batch that turned tracking off), so no hold outlives it.
	if c.holding && !c.releaseHeld() {
		return false
	}
	if c.pubsub.Subscriber() != nil && !c.subscribed() && !c.monitoring.Load() && c.modes&tracking == 0 {
		c.leavePubSub()
	}
	if p := c.pubsub.Subscriber(); p != nil {
		if len(c.out.B) > 0 {
			ok := p.Enqueue(c.out.B)
			c.resetOut()
			if !ok {
				return false
			}
		}
		if !c.subscribed() && !c.monitoring.Load() {
			p.WaitRoom()
		}
		return true
	}
	if len(c.out.B) == 0 {
		return true
	}
	c.writes.Add(1) // before the bytes can reach the client: a test may read INFO next
	b := c.out.B
	for c.rawFD >= 0 && len(b) > 0 {
		n, errno := sysWrite(c.rawFD, b)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			break // EAGAIN: the socket is full, let conn.Write wait; it reports errors
		}
		c.netOut.Add(int64(n))
		b = b[n:]
	}
	var err error
	if len(b) > 0 {
		d, limited := c.writeDeadline(len(b))
		if limited {
			c.conn.SetWriteDeadline(d)
		}
		var n int
		n, err = c.conn.Write(b)
		c.netOut.Add(int64(n))
		if limited {
			if writeTimedOut(err) {
				c.outputLimitReached("normal", int64(len(b)-n))
			}
			c.conn.SetWriteDeadline(time.Time{})
		}
	}
	c.resetOut()
	return err == nil
}

func (c *client) resetOut() {
	if cap(c.out.B) > maxIdleOutBuf {
		c.out.B = nil
	} else {
		c.out.B = c.out.B[:0]
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
	if p := c.pubsub.Subscriber(); p != nil {
		c.s.hub.UnsubscribeAll(&c.pubsub)
		p.Stop()
	}
	c.unwatchAll()
	c.replicaGone()
	c.conn.Close()
}

// subscribed reports whether the client has any subscription (Redis's
// CLIENT_PUBSUB flag). Safe from any goroutine.
func (c *client) subscribed() bool {
	return c.pubsub.Subscribed()
}

func (c *client) setProto(p int) {
	c.out.Proto = p
	c.proto.Store(int32(p))
}

func (c *client) selectDB(n int) {
	c.ctx.DB = c.s.ks.DBs[n]
	c.ctx.DBID = n
	c.dbNum.Store(int32(n))
}

func limits(cfg *config.Config) resp.Limits {
	return resp.Limits{
		MaxBulk:      cfg.ProtoMaxBulkLen,
		MaxMultibulk: cfg.ProtoMaxMultibulkLen,
		MaxInline:    int(cfg.ProtoMaxInlineLen),
	}
}
