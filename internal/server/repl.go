package server

import (
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/repl"
	"github.com/hotkv/hotkv/internal/resp"
)

// The server's side of the master's replication (internal/repl): what it
// implements for repl.Master, and the commands that need a client's state
// (SYNC, PSYNC, REPLCONF, WAIT, ROLE).

// feeding reports whether writes go to the replication stream.
func (s *Server) feeding() bool { return s.repl.Feeding() }

// logging reports whether writes are recorded (append-only log or
// replication): handlers then propagate their effects.
func (s *Server) logging() bool { return s.aof.Load() != nil || s.repl.Feeding() }

// errNoReplicas refuses writes while min-replicas-to-write is not met.
const errNoReplicas = "NOREPLICAS Not enough good replicas to write."

var bDel = repl.Del

// delOrUnlink is the command Redis sends for a deletion, lazy or not.
func delOrUnlink(lazy bool) []byte { return repl.DelOrUnlink(lazy) }

// replHost is the server as repl.Master sees it.
type replHost struct{ s *Server }

func (h replHost) Config() *config.Config                 { return h.s.Config() }
func (h replHost) Logf(level, format string, args ...any) { h.s.logf(level, format, args...) }
func (h replHost) ReplID() string                         { return *h.s.replID.Load() }
func (h replHost) IsReplica() bool                        { return h.s.replicaFlag.Load() }

// The replica side's (repl.ReplicaHost; replica.go).
func (h replHost) SetReplID(id string)                        { h.s.replID.Store(&id) }
func (h replHost) Port() int                                  { return h.s.port() }
func (h replHost) Closed() <-chan struct{}                    { return h.s.closed }
func (h replHost) SetReplica(on bool)                         { h.s.setReplica(on) }
func (h replHost) LoadRDB(src io.Reader) (repl.Staged, error) { return h.s.loadStaged(src) }

func (h replHost) MasterClient(conn net.Conn, db int) repl.MasterClient {
	mc := newMasterClient(h.s, conn)
	mc.selectDB(db)
	return masterClient{mc}
}

func (h replHost) WriteRDB(w io.Writer, atInstant func() (rdb.FileInfo, error), before func() error, fnOnly, noFns bool) (int, error) {
	return h.s.writeRDB(w, atInstant, before, fnOnly, noFns)
}

// replicaConn is a replica's client as repl.Replica sees it.
type replicaConn struct{ c *client }

func (r replicaConn) Write(b []byte) (int, error) { return r.c.io.conn.Write(b) }
func (r replicaConn) Close()                      { r.c.closeConn() }
func (r replicaConn) Sent(n int64)                { r.c.stats.netOut.Add(n) }

// ReadFrom copies a full sync's file to the socket as io.Copy would to
// the connection itself (sendfile where the kernel can).
func (r replicaConn) ReadFrom(src io.Reader) (int64, error) { return io.Copy(r.c.io.conn, src) }

func (r replicaConn) OutputOver(size int64, st *config.ReplMaster, softSince *int64) bool {
	if !outputOver(size, st.OutputHard, st.OutputSoft, softSince) {
		return false
	}
	r.c.outputLimitReached("replica", size)
	return true
}

// waitBlocked is a client blocked in WAIT, as repl.Master answers it.
type waitBlocked struct{ b *blocked }

func (w waitBlocked) Answer(acked int64, enough bool) bool {
	b := w.b
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.state != waiting:
		return false
	case enough:
		b.out.Int(acked)
		b.c.s.clients.blocked.Add(-1)
		b.state = served
		b.c.io.conn.SetReadDeadline(time.Unix(1, 0))
		return false
	}
	return true
}

func replconfCmd(x *cmdtable.Ctx) {
	c := cl(x)
	if len(x.Args)%2 == 0 {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	if c.repl.conf == nil {
		c.repl.conf = &repl.Conf{}
	}
	rc := c.repl.conf
	for i := 1; i < len(x.Args); i += 2 {
		opt, v := strings.ToLower(string(x.Args[i])), x.Args[i+1]
		switch opt {
		case "listening-port":
			p, ok := cmdtable.ParseInt(v)
			if !ok {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			rc.Port = int(p)
		case "ip-address":
			rc.IP = string(v)
		case "capa":
			if cmdtable.Is(v, "eof") {
				rc.CapaEOF = true
			}
		case "rdb-only":
			rc.RDBOnly = string(v) == "1"
		case "rdb-filter-only":
			// Include filters: "functions", or none ("": an empty file).
			rc.FnOnly = true
			rc.NoFns = true
			for _, f := range strings.Fields(strings.ToLower(string(v))) {
				if f != "functions" {
					x.Error(fmt.Sprintf("ERR Unsupported rdb-filter-only option: %s", f))
					return
				}
				rc.NoFns = false
			}
		case "ack", "fack":
			if r := c.repl.replica; r != nil && opt == "ack" {
				if off, ok := cmdtable.ParseInt(v); ok {
					c.s.repl.Ack(r, off)
				}
			}
			return // no reply, as in Redis
		case "getack":
			return // what a master asks its replicas: nothing for a master to answer
		case "rdb-channel", "main-ch-client-id":
		default:
			x.Error(fmt.Sprintf("ERR Unrecognized REPLCONF option: %s", cstr(x.Args[i], -1)))
			return
		}
	}
	x.W.OK()
}

// syncCmd is SYNC and PSYNC.
func syncCmd(x *cmdtable.Ctx) {
	c := cl(x)
	if c.repl.replica != nil {
		return // already a replica: Redis ignores it
	}
	if c.tx.inExec || c.tx.multi != nil {
		x.Error(errReplicaKeyspace)
		return
	}
	psync := cmdtable.Is(x.Args[0], "psync")
	if psync && len(x.Args) > 3 && cmdtable.Is(x.Args[3], "failover") && !c.s.takeOver(c, x) {
		return
	}
	if c.s.failingOver() { // replicas wait until this master has handed over, or not
		x.Error("NOMASTERLINK Can't SYNC while failing over")
		return
	}
	var rc repl.Conf
	if c.repl.conf != nil {
		rc = *c.repl.conf
	}
	r := repl.NewReplica(replicaConn{c}, hostOf(c.io.conn.RemoteAddr()), rc, psync)
	// Replies already made in this batch go out first; from now on the
	// writer goroutine owns the connection's output (flush drops replies).
	if len(c.io.out.B) > 0 {
		c.io.conn.Write(c.io.out.B)
		c.io.out.B = c.io.out.B[:0]
	}
	c.repl.replica = r
	c.repl.attached.Store(true)
	var id string
	var off []byte
	if psync {
		id, off = string(x.Args[1]), x.Args[2]
	}
	c.s.repl.Sync(r, psync, id, off)
}

// takeOver is the replica's part of a coordinated failover (FAILOVER on
// its master): PSYNC replid offset FAILOVER from the master it follows,
// naming the history they share, makes it a master, which then serves
// that PSYNC as any other. It reports false when it answered an error.
func (s *Server) takeOver(c *client, x *cmdtable.Ctx) bool {
	s.logf("notice", "Failover request received for replid %s.", cmdtable.CString(x.Args[1]))
	if !s.replicaFlag.Load() {
		x.Error("ERR PSYNC FAILOVER can't be sent to a master.")
		return false
	}
	if string(x.Args[1]) != *s.replID.Load() {
		x.Error("ERR PSYNC FAILOVER replid must match my replid.")
		return false
	}
	s.replicaOf("", 0, false)
	s.setReplicaOfConfig("", 0)
	s.logf("notice", "MASTER MODE enabled (failover request from '%s')", c.describe())
	return true
}

func hostOf(a net.Addr) string {
	if a == nil {
		return ""
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

func waitCmd(x *cmdtable.Ctx) {
	n, ok := cmdtable.ParseInt(x.Args[1])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	timeout, ok := msTimeout(x, x.Args[2])
	if !ok {
		return
	}
	c := cl(x)
	m := &c.s.repl
	if c.repl.replica != nil {
		x.Error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		return
	}
	target := c.repl.off
	got := m.Acked(target)
	if got >= n || x.Blocker == nil { // enough acknowledgements, or inside MULTI or a script
		x.W.Int(got)
		return
	}
	c.Block(nil, timeout, false)
	c.blocked.timeoutFn = func(w *resp.Writer) { w.Int(m.Acked(target)) }
	m.Wait(waitBlocked{c.blocked}, target, n)
}

// infoReplication is INFO's replication section on a master.
func (s *Server) infoReplication(b *strings.Builder) {
	replid2, second := s.upstream.Replid2() // set once this server was promoted (REPLICAOF NO ONE)
	s.repl.Info(b, replid2, second)
}

func roleCmd(x *cmdtable.Ctx) {
	if cl(x).s.upstream.Role(x.W) {
		return
	}
	cl(x).s.repl.Role(x.W)
}

// isReplica reports whether c is a replica's connection (CLIENT LIST's S
// flag, CLIENT KILL TYPE replica); safe from any goroutine.
func (c *client) isReplica() bool { return c.repl.attached.Load() }

// replicaGone detaches c's replica as its connection closes.
func (c *client) replicaGone() {
	if c.repl.replica != nil {
		c.s.repl.Detach(c.repl.replica)
	}
}

func init() {
	const g = "server"
	f := cmdtable.Admin | cmdtable.NoScript | cmdtable.NoMulti | cmdtable.NoAsyncLoading
	cmdtable.Register(
		&cmdtable.Cmd{Name: "sync", Arity: 1, Flags: f, Run: syncCmd, Group: g, Since: "1.0.0",
			Summary: "An internal command used in replication."},
		&cmdtable.Cmd{Name: "psync", Arity: -3, Flags: f, Run: syncCmd, Group: g, Since: "2.8.0",
			Summary: "An internal command used in replication.", Args: "replicationid offset"},
		&cmdtable.Cmd{Name: "replconf", Arity: -1, Flags: cmdtable.Admin | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale | cmdtable.AllowBusy, Run: replconfCmd, Group: g, Since: "3.0.0",
			Summary: "An internal command for configuring the replication stream."},
	)
}
