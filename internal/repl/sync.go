package repl

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/rdb"
)

// A replica's full synchronization (an RDB file of one instant, then the
// stream) or continuation from the backlog.

// Conn is a replica's connection, as the server's client implements it.
// Only the replica's sync and writer goroutine and the stream's publishing
// call it, never a command's path.
type Conn interface {
	// Write writes to the socket, which the replica's goroutine owns once
	// it syncs.
	Write(b []byte) (int, error)
	// Close closes the connection asynchronously.
	Close()
	// Sent counts n bytes of replication written to it.
	Sent(n int64)
	// OutputOver reports whether size bytes waiting for it are over the
	// replica class's output buffer limits in st (softSince is the
	// replica's record of the soft limit); if so it has counted and logged
	// the disconnection, which the caller makes.
	OutputOver(size int64, st *config.ReplMaster, softSince *int64) bool
}

// Conf is what a connection announced with REPLCONF before PSYNC.
type Conf struct {
	Port    int
	IP      string
	CapaEOF bool
	RDBOnly bool
	FnOnly  bool // rdb-filter-only: no keys
	NoFns   bool // ... and no functions either
}

// Replica is one replica's connection.
type Replica struct {
	conn    Conn
	ip      string
	port    int
	conf    Conf
	capaEOF bool
	state   atomic.Int32
	ack     atomic.Int64 // the offset it acknowledged
	ackTime atomic.Int64 // unix ms of its last ACK
	wake    chan struct{}
	done    chan struct{}
	closed  atomic.Bool
	// acked is closed at its first REPLCONF ACK: a replica loaded
	// diskless cannot tell the file's end mark from stream bytes read
	// with it, so the stream waits for that ACK, as in Redis.
	acked     chan struct{}
	ackedOnce sync.Once

	// Under Master.mu:
	pending   []byte // stream bytes not yet written to it
	softSince int64
}

// NewReplica is the replica of conn, whose peer's address is ip, as its
// REPLCONF announced in conf; psync: it asked with PSYNC, not SYNC.
func NewReplica(conn Conn, ip string, conf Conf, psync bool) *Replica {
	r := &Replica{conn: conn, ip: ip, port: conf.Port, conf: conf, capaEOF: conf.CapaEOF && psync,
		wake: make(chan struct{}, 1), done: make(chan struct{}), acked: make(chan struct{})}
	if conf.IP != "" {
		r.ip = conf.IP
	}
	return r
}

// Ack records the replica's REPLCONF ACK of offset off: min-replicas-to-write
// and the WAITs it may satisfy follow.
func (m *Master) Ack(r *Replica, off int64) {
	r.ack.Store(off)
	r.ackTime.Store(time.Now().UnixMilli())
	r.ackedOnce.Do(func() { close(r.acked) })
	m.acknowledged()
}

// Offset is the master's replication offset.
func (m *Master) Offset() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.off
}

// Replicas counts the replicas attached (rdb-only transfers aside).
func (m *Master) Replicas() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.countReplicas()
}

// countReplicas is Replicas with mu held.
func (m *Master) countReplicas() int {
	n := 0
	for _, r := range m.replicas {
		if !r.conf.RDBOnly {
			n++
		}
	}
	return n
}

// FailoverTarget is a replica FAILOVER may hand over to, at the address it
// announced.
type FailoverTarget struct {
	IP       string
	Port     int
	Online   bool // following the stream
	CaughtUp bool // online, and it acknowledged everything sent
}

// Target finds the replica at host:port, or with host "" any replica that
// has caught up; ok is false when there is none.
func (m *Master) Target(host string, port int) (t FailoverTarget, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.replicas {
		if r.conf.RDBOnly || host != "" && (r.ip != host || r.port != port) {
			continue
		}
		t = FailoverTarget{IP: r.ip, Port: r.port, Online: r.state.Load() == stateOnline}
		t.CaughtUp = t.Online && r.ack.Load() == m.off
		if host == "" && !t.CaughtUp {
			continue
		}
		return t, true
	}
	return FailoverTarget{}, false
}

// Sync serves SYNC (psync false) or PSYNC id off: a continuation from the
// backlog when it holds everything from off on, else a full sync on a
// goroutine of its own.
func (m *Master) Sync(r *Replica, psync bool, id string, off []byte) {
	if psync && !r.conf.RDBOnly {
		if m.tryContinue(r, id, off) {
			return
		}
		if !strings.HasPrefix(id, "?") { // "?" asks for a full sync on purpose
			m.Stats.PartialErr.Add(1)
		}
	}
	m.Stats.Full.Add(1)
	go m.fullSync(r, psync)
}

// tryContinue answers PSYNC replid offset with +CONTINUE when the backlog
// holds everything from offset on, and attaches r.
func (m *Master) tryContinue(r *Replica, id string, offArg []byte) bool {
	want, ok := cmdtable.ParseInt(offArg)
	if !ok || id != m.ID() {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	from := want - 1 // the replica has the stream up to here
	if m.backlog == nil || from < m.off-m.histLen || from > m.off {
		return false
	}
	r.pending = append(r.pending, "+CONTINUE "+id+"\r\n"...)
	size := int64(len(m.backlog))
	for o := from; o < m.off; {
		i := o % size
		end := min(size, i+(m.off-o))
		r.pending = append(r.pending, m.backlog[i:end]...)
		o += end - i
	}
	m.attach(r)
	m.Stats.PartialOK.Add(1) // before the writer starts: a replica caught up has been counted
	r.ack.Store(from)
	r.ackTime.Store(time.Now().UnixMilli())
	r.state.Store(stateOnline)
	m.refreshGood()
	r.wake <- struct{}{}
	go r.loop(m)
	m.host.Logf("notice", "Partial resynchronization request from %s:%d accepted. Sending %d bytes of backlog starting from offset %d.", r.ip, r.port, m.off-from, want)
	return true
}

// fullSync sends r the data as at one instant, then the stream from that
// instant on: diskless ($EOF:<mark>) to a replica that announced capa eof,
// else through a temporary file whose length heads the transfer.
func (m *Master) fullSync(r *Replica, psync bool) {
	h := m.host
	conn := r.conn
	r.state.Store(stateWaitBgsave)
	fail := func(err error) {
		h.Logf("warning", "Full resync with replica %s:%d failed: %v", r.ip, r.port, err)
		m.Detach(r)
		conn.Close()
	}
	var head string
	var offset int64
	atInstant := func() (rdb.FileInfo, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if !r.conf.RDBOnly {
			m.attach(r)
		} else if m.backlog == nil {
			m.settings = h.Config().ReplMaster()
		}
		offset = m.off
		m.db = -1 // the next command selects its database
		if psync {
			head = fmt.Sprintf("+FULLRESYNC %s %d\r\n", m.ID(), offset)
		}
		return rdb.FileInfo{ReplID: m.ID(), ReplOffset: offset, ReplStreamDB: 0}, nil
	}
	h.Logf("notice", "Replica %s:%d asks for synchronization", r.ip, r.port)
	if r.capaEOF {
		mark := make([]byte, 20)
		rand.Read(mark)
		eof := hex.EncodeToString(mark)
		bw := bufio.NewWriterSize(conn, 1<<16)
		cw := &countWriter{w: bw}
		_, err := h.WriteRDB(cw, atInstant, func() error {
			r.state.Store(stateSendBulk)
			_, err := io.WriteString(bw, head+"$EOF:"+eof+"\r\n")
			return err
		}, r.conf.FnOnly, r.conf.NoFns)
		if err == nil {
			_, err = io.WriteString(bw, eof)
		}
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			fail(err)
			return
		}
		m.sent(r, cw.n+int64(len(eof)))
		h.Logf("notice", "Synchronization with replica %s:%d succeeded (diskless, %d bytes)", r.ip, r.port, cw.n)
	} else {
		f, err := os.CreateTemp(h.Config().Dir, "temp-sync-*.rdb")
		if err != nil {
			f, err = os.CreateTemp("", "hotkv-sync-*.rdb")
		}
		if err != nil {
			fail(err)
			return
		}
		// Unlinked at once, kept open: a server stopped mid-transfer leaves
		// no file behind (the name is only for the creation).
		os.Remove(f.Name())
		defer f.Close()
		bw := bufio.NewWriterSize(f, 1<<20)
		if _, err = h.WriteRDB(bw, atInstant, nil, r.conf.FnOnly, r.conf.NoFns); err == nil {
			err = bw.Flush()
		}
		var size int64
		if err == nil {
			size, err = f.Seek(0, io.SeekCurrent)
		}
		if err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		if err == nil {
			r.state.Store(stateSendBulk)
			_, err = io.WriteString(conn, head+"$"+strconv.FormatInt(size, 10)+"\r\n")
		}
		if err == nil {
			_, err = io.Copy(conn, f)
		}
		if err != nil {
			fail(err)
			return
		}
		m.sent(r, size)
		h.Logf("notice", "Synchronization with replica %s:%d succeeded (%d bytes)", r.ip, r.port, size)
	}
	if r.conf.RDBOnly {
		m.Detach(r)
		conn.Close()
		return
	}
	// Online: what accumulated since the instant goes out, then the
	// stream as it comes; after a diskless transfer, once the replica has
	// loaded the file and acknowledged. Its acknowledged offset stays 0
	// until then, so WAIT counts it only once it has the data.
	if r.capaEOF {
		select {
		case <-r.acked:
		case <-r.done:
			return
		}
	}
	r.ackTime.Store(time.Now().UnixMilli())
	r.state.Store(stateOnline)
	m.mu.Lock()
	m.refreshGood()
	m.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	r.loop(m)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// loop is the replica's writer: it sends the stream as it comes.
func (r *Replica) loop(m *Master) {
	var spare []byte
	for {
		select {
		case <-r.wake:
		case <-r.done:
			return
		}
		m.mu.Lock()
		data := r.pending
		r.pending = spare[:0]
		m.mu.Unlock()
		if len(data) > 0 {
			if _, err := r.conn.Write(data); err != nil {
				r.conn.Close()
				return
			}
			m.sent(r, int64(len(data)))
		}
		// data is written: it takes pending's place next time.
		if cap(data) > 1<<20 {
			data = nil
		}
		spare = data
	}
}
