package server

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/resp"
)

const (
	initialReadBuf = 16 << 10
	maxIdleReadBuf = 1 << 20 // a larger buffer is dropped once drained
	maxIdleOutBuf  = 1 << 20
)

// client is one connection: its buffers, its protocol and database, and the
// state of transactions and subscriptions. Only its own goroutine touches the
// unexported fields without a lock; what other goroutines read (CLIENT LIST,
// INFO) is atomic or under infoMu.
type client struct {
	s      *Server
	conn   net.Conn
	id     int64
	parser *resp.Parser
	in     []byte
	r, w   int // unread input is in[r:w]
	out    resp.Writer
	ctx    command.Ctx
	locks  []int // shard indexes locked for the running command
	keys   []int // scratch for key positions

	authed     bool
	closing    bool // close after flushing replies (QUIT, protocol error)
	multi      *multiState
	watch      keyspace.Watch
	watched    []watchedKey
	watchCount atomic.Int32
	pubsub     *subscriber // non-nil once the client has subscribed
	lastCmd    atomic.Pointer[command.Cmd]
	dbNum      atomic.Int32
	proto      atomic.Int32
	created    time.Time
	lastSeen   atomic.Int64 // unix ms of the last command
	calls      []atomic.Uint64
	usec       []atomic.Uint64
	hits       atomic.Int64
	misses     atomic.Int64
	netIn      atomic.Int64
	netOut     atomic.Int64

	infoMu  sync.Mutex
	name    string
	libName string
	libVer  string
	killed  atomic.Bool
}

func newClient(s *Server, conn net.Conn) *client {
	c := &client{
		s:       s,
		conn:    conn,
		id:      s.nextID.Add(1),
		parser:  resp.NewParser(limits(s.Config())),
		in:      make([]byte, initialReadBuf),
		created: time.Now(),
		calls:   make([]atomic.Uint64, command.Count()),
		usec:    make([]atomic.Uint64, command.Count()),
	}
	c.out.Proto = 2
	c.proto.Store(2)
	c.authed = s.Config().RequirePass == ""
	c.ctx = command.Ctx{W: &c.out, KS: s.ks, DB: s.ks.DBs[0], Conn: c, Hits: &c.hits, Misses: &c.misses}
	c.lastSeen.Store(time.Now().UnixMilli())
	return c
}

func (c *client) serve() {
	defer c.s.removeClient(c)
	defer c.cleanup()
	defer func() {
		if r := recover(); r != nil {
			c.s.logf("warning", "BUG: panic serving client id=%d: %v", c.id, r)
			c.s.stats.panics.Add(1)
		}
	}()
	for !c.closing {
		cfg := c.s.Config()
		c.parser.Limits = limits(cfg)
		if t := cfg.Timeout; t > 0 && c.pubsub == nil {
			c.conn.SetReadDeadline(time.Now().Add(time.Duration(t) * time.Second))
		}
		if c.w == len(c.in) && !c.grow() {
			return
		}
		n, err := c.conn.Read(c.in[c.w:])
		if n > 0 {
			c.netIn.Add(int64(n))
			c.w += n
			c.process()
			if !c.flush() {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// process runs every complete command in the input buffer.
func (c *client) process() {
	c.ctx.Now = time.Now().UnixMilli()
	for !c.closing {
		args, end, err := c.parser.Next(c.in[:c.w], c.r)
		if err == resp.ErrIncomplete {
			break
		}
		if err != nil {
			c.out.Error(err.Error())
			c.s.logf("verbose", "protocol error from client id=%d: %v", c.id, err)
			c.closing = true
			return
		}
		c.r = end
		if args != nil {
			c.execute(args)
		}
	}
	if c.r == c.w {
		c.r, c.w = 0, 0
		if len(c.in) > maxIdleReadBuf {
			c.in = make([]byte, initialReadBuf)
		}
	}
}

// grow makes room to read: compact a partial command to the front, or enlarge
// the buffer when it is full of one command. It reports false when the query
// buffer limit is exceeded.
func (c *client) grow() bool {
	if c.r > 0 {
		copy(c.in, c.in[c.r:c.w])
		c.parser.Shift(c.r)
		c.w -= c.r
		c.r = 0
		return true
	}
	size := 2 * len(c.in)
	if need := c.parser.Need(0); need > size {
		size = need
	}
	if int64(size) > c.s.Config().ClientQueryBufferLimit {
		if int64(len(c.in)) >= c.s.Config().ClientQueryBufferLimit {
			c.s.logf("warning", "closing client id=%d: query buffer limit reached", c.id)
			return false
		}
		size = int(c.s.Config().ClientQueryBufferLimit)
	}
	nb := make([]byte, size)
	copy(nb, c.in[:c.w])
	c.in = nb
	return true
}

// flush writes pending replies. A subscribed client's replies go through its
// push queue so they stay ordered with published messages.
func (c *client) flush() bool {
	if len(c.out.B) == 0 {
		return true
	}
	c.netOut.Add(int64(len(c.out.B)))
	if c.pubsub != nil {
		ok := c.pubsub.enqueue(c.out.B)
		c.resetOut()
		return ok
	}
	_, err := c.conn.Write(c.out.B)
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
	c.flush()
	if c.pubsub != nil {
		c.s.hub.unsubscribeAll(c)
		c.pubsub.stop()
	}
	c.unwatchAll()
	c.conn.Close()
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
