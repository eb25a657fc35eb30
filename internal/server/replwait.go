package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/resp"
)

// WAIT, INFO replication and ROLE as a master.

// errNoReplicas refuses writes while min-replicas-to-write is not met.
const errNoReplicas = "NOREPLICAS Not enough good replicas to write."

// acked counts the online replicas whose acknowledged offset reached off.
func (m *replMaster) acked(off int64) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for _, r := range m.replicas {
		if r.state.Load() == replOnline && r.ack.Load() >= off {
			n++
		}
	}
	return n
}

// askAcks sends REPLCONF GETACK * to the replicas (a WAIT waits).
func (m *replMaster) askAcks() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.backlog == nil || len(m.replicas) == 0 {
		return
	}
	m.publish(resp.AppendCommand(m.scratch[:0], []byte("REPLCONF"), []byte("GETACK"), []byte("*")))
}

// acknowledged follows a replica's REPLCONF ACK: min-replicas-to-write
// and the WAITs it may satisfy.
func (m *replMaster) acknowledged() {
	m.mu.Lock()
	m.refreshGood()
	m.mu.Unlock()
	m.checkWaiters()
}

// checkWaiters answers the WAITs whose replicas have acknowledged enough.
func (m *replMaster) checkWaiters() {
	m.mu.Lock()
	ws := m.waiters
	m.mu.Unlock()
	if len(ws) == 0 {
		return
	}
	var keep []*replWaiter
	for _, w := range ws {
		n := m.acked(w.target)
		w.b.mu.Lock()
		switch {
		case w.b.state != waiting:
		case n >= w.n:
			w.b.out.Int(n)
			m.s.blockedClients.Add(-1)
			w.b.state = served
			w.b.c.conn.SetReadDeadline(time.Unix(1, 0))
		default:
			keep = append(keep, w)
		}
		w.b.mu.Unlock()
	}
	m.mu.Lock()
	// Waiters added meanwhile are after ws in the list.
	m.waiters = append(keep, m.waiters[len(ws):]...)
	m.mu.Unlock()
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
	if c.replica != nil {
		x.Error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		return
	}
	target := c.replOff
	got := m.acked(target)
	if got >= n || x.Blocker == nil { // enough acknowledgements, or inside MULTI or a script
		x.W.Int(got)
		return
	}
	c.Block(nil, timeout, false)
	c.blocked.timeoutFn = func(w *resp.Writer) { w.Int(m.acked(target)) }
	m.mu.Lock()
	m.waiters = append(m.waiters, &replWaiter{b: c.blocked, target: target, n: n})
	m.mu.Unlock()
	m.askAcks()
}

// infoReplication is INFO's replication section on a master.
func (s *Server) infoReplication(b *strings.Builder) {
	m := &s.repl
	m.mu.Lock()
	defer m.mu.Unlock()
	kv(b, "role", "master")
	n := 0
	for _, r := range m.replicas {
		if !r.rdbOnly {
			n++
		}
	}
	kv(b, "connected_slaves", n)
	i := 0
	now := time.Now().UnixMilli()
	for _, r := range m.replicas {
		if r.rdbOnly {
			continue
		}
		kv(b, fmt.Sprintf("slave%d", i), fmt.Sprintf("ip=%s,port=%d,state=%s,offset=%d,lag=%d",
			r.ip, r.port, replStateNames[r.state.Load()], r.ack.Load(), (now-r.ackTime.Load())/1000))
		i++
	}
	kv(b, "master_failover_state", "no-failover")
	kv(b, "master_replid", *s.replID.Load())
	replid2, second := s.replid2() // set once this server was promoted (REPLICAOF NO ONE)
	kv(b, "master_replid2", replid2)
	kv(b, "master_repl_offset", m.off)
	kv(b, "second_repl_offset", second)
	kv(b, "repl_backlog_active", b2i(m.backlog != nil))
	size := m.settings.BacklogSize
	if m.backlog != nil {
		size = int64(len(m.backlog))
	} else if size == 0 {
		size = s.Config().ReplMaster().BacklogSize
	}
	kv(b, "repl_backlog_size", size)
	first := int64(0)
	if m.backlog != nil {
		first = m.off - m.histLen + 1
	}
	kv(b, "repl_backlog_first_byte_offset", first)
	kv(b, "repl_backlog_histlen", m.histLen)
	kv(b, "rdb_keys_skipped", m.skipped.Load()) // HotKV's: keys Redis cannot load from RDB files (in hotkv-snapshot only)
}

func roleCmd(x *cmdtable.Ctx) {
	if cl(x).s.roleReplica(x) {
		return
	}
	m := &cl(x).s.repl
	m.mu.Lock()
	defer m.mu.Unlock()
	var rs []*replica
	for _, r := range m.replicas {
		if !r.rdbOnly && r.state.Load() == replOnline {
			rs = append(rs, r)
		}
	}
	x.W.Array(3)
	x.W.BulkString("master")
	x.W.Int(m.off)
	x.W.Array(len(rs))
	for _, r := range rs {
		x.W.Array(3)
		x.W.BulkString(r.ip)
		x.W.BulkString(strconv.Itoa(r.port))
		x.W.BulkString(strconv.FormatInt(r.ack.Load(), 10))
	}
}

// isReplica reports whether c is a replica's connection (CLIENT LIST's S
// flag, CLIENT KILL TYPE replica); safe from any goroutine.
func (c *client) isReplica() bool { return c.replicaFlag.Load() }

// replicaGone detaches c's replica as its connection closes.
func (c *client) replicaGone() {
	if c.replica != nil {
		c.s.repl.detach(c.replica)
	}
}
