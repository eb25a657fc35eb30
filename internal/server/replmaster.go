package server

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/resp"
)

// HotKV as a replication master (docs/replication.md). A replica's SYNC or
// PSYNC gets an RDB file of the data at one instant, taken copy-on-write as
// a snapshot is (captureInstant), then every write after that instant as
// RESP commands: what the append-only log records (logWrite, in execution
// order, under the writers' shard locks), in the forms Redis propagates
// (relative expiry as absolute, SELECT when the database changes, several
// commands as MULTI/EXEC), plus a DEL for each key that expires or is
// evicted. The stream goes to every replica's own output buffer and to the
// backlog, from which a replica that reconnects continues (+CONTINUE).
//
// With no replica and no backlog, writes pay one atomic load (feeding).

// Replica states, as INFO shows them.
const (
	replWaitBgsave = iota // waiting for its RDB file
	replSendBulk          // receiving it
	replOnline            // following the stream
)

var replStateNames = [...]string{"wait_bgsave", "send_bulk", "online"}

// replMaster is the master side: the stream, its backlog and the replicas.
type replMaster struct {
	s *Server
	// on: writes are fed to the stream (a replica is attached or the
	// backlog is kept). It changes under mu.
	on atomic.Bool

	mu      sync.Mutex
	off     int64  // master_repl_offset: bytes ever fed
	db      int    // the database the stream has selected, -1: none
	backlog []byte // ring of the last len(backlog) bytes; nil: none
	histLen int64  // bytes of history in the backlog
	// serveID names this server's own stream while it is a replica (id).
	serveID  atomic.Pointer[string]
	replicas []*replica
	lastGone int64 // unix seconds the last replica left (repl-backlog-ttl)
	settings config.ReplMaster
	scratch  []byte
	waiters  []*replWaiter // WAIT calls in progress

	skipped atomic.Int64 // keys with no RDB form, written to RDB files only in the hotkv-snapshot AUX field
	// tooFew: min-replicas-to-write is not met, writes are refused
	// (refreshGood).
	tooFew atomic.Bool
	stats  replStats // INFO's (replinfo.go)
}

// replica is one replica's connection.
type replica struct {
	c       *client
	ip      string
	port    int
	capaEOF bool
	rdbOnly bool
	fnOnly  bool // rdb-filter-only functions: no keys
	noFns   bool // rdb-filter-only "": no functions either
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

	// Under replMaster.mu:
	pending   []byte // stream bytes not yet written to it
	softSince int64
}

// replWaiter is a WAIT blocked for acknowledgements.
type replWaiter struct {
	b      *blocked
	target int64
	n      int64
}

func (m *replMaster) init(s *Server) {
	m.s = s
	m.db = -1
}

// configure applies the settings CONFIG SET may have changed.
func (m *replMaster) configure(cfg *config.Config) {
	m.mu.Lock()
	m.settings = cfg.ReplMaster()
	m.refreshGood()
	m.mu.Unlock()
}

// refreshGood counts the good replicas (online, acknowledged within
// min-replicas-max-lag seconds) against min-replicas-to-write, as Redis's
// refreshGoodSlavesCount. mu is held.
func (m *replMaster) refreshGood() {
	st := &m.settings
	if st.MinReplicas == 0 || st.MinMaxLag == 0 {
		m.tooFew.Store(false)
		return
	}
	good := int64(0)
	now := time.Now().UnixMilli()
	for _, r := range m.replicas {
		if r.state.Load() == replOnline && (now-r.ackTime.Load())/1000 <= st.MinMaxLag {
			good++
		}
	}
	m.tooFew.Store(good < st.MinReplicas)
}

// feeding reports whether writes go to the replication stream.
func (s *Server) feeding() bool { return s.repl.on.Load() }

// logging reports whether writes are recorded (append-only log or
// replication): handlers then propagate their effects.
func (s *Server) logging() bool { return s.aof.Load() != nil || s.repl.on.Load() }

var (
	bMulti  = []byte("MULTI")
	bExec   = []byte("EXEC")
	bSelect = []byte("SELECT")
	bDel    = []byte("DEL")
	bUnlink = []byte("UNLINK")
)

// delOrUnlink is the command Redis sends for a deletion, lazy or not.
func delOrUnlink(lazy bool) []byte {
	if lazy {
		return bUnlink
	}
	return bDel
}

// feed appends commands run at now in database db to the stream, several
// as one MULTI/EXEC, and returns the offset after them. The caller holds
// the locks of what they wrote.
func (m *replMaster) feed(db int, now int64, cmds [][][]byte) int64 {
	return m.feedUnit(len(cmds), func(i int) (int, int64, [][]byte) { return db, now, cmds[i] })
}

// feedRecord feeds a transaction's log record (persist.BeginRecord ...
// SealRecord): its commands as one MULTI/EXEC.
func (m *replMaster) feedRecord(rec []byte) int64 {
	type logged struct {
		db   int
		now  int64
		args [][]byte
	}
	var cmds []logged
	for d := (persist.Dec{B: rec[12:]}); d.Left() > 0; {
		db, now := int(d.Uvarint()), d.Varint()
		args := make([][]byte, d.Count(1))
		for i := range args {
			args[i] = d.Bytes()
		}
		if d.Err() != nil {
			break // not reached: the record was just built
		}
		cmds = append(cmds, logged{db, now, args})
	}
	return m.feedUnit(len(cmds), func(i int) (int, int64, [][]byte) { return cmds[i].db, cmds[i].now, cmds[i].args })
}

// feedUnit appends n commands (cmd(i) gives each one's database, time and
// arguments) to the stream as one unit: MULTI/EXEC around several. It
// returns the offset after them.
func (m *replMaster) feedUnit(n int, cmd func(i int) (int, int64, [][]byte)) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.feedLocked(n, cmd)
}

// feedLocked is feedUnit with mu held. A unit mixing key writes with
// writes to HotKV's own state (hotkvCommand) goes as two: the key writes,
// then the others. A Redis replica, which has no such commands, would
// discard a whole transaction that held one (EXECABORT); nothing orders
// the two kinds, as no command touches both. A HotKV replica then applies
// the two parts one after the other, not as one transaction.
func (m *replMaster) feedLocked(n int, cmd func(i int) (int, int64, [][]byte)) int64 {
	if m.backlog == nil || n == 0 {
		return m.off
	}
	var own, keyed bool
	for i := 0; n > 1 && i < n && !(own && keyed); i++ {
		_, _, args := cmd(i)
		if hotkvCommand(args[0]) {
			own = true
		} else {
			keyed = true
		}
	}
	buf := m.scratch[:0]
	if own && keyed {
		buf = m.appendUnit(buf, n, cmd, func(args [][]byte) bool { return !hotkvCommand(args[0]) })
		buf = m.appendUnit(buf, n, cmd, func(args [][]byte) bool { return hotkvCommand(args[0]) })
	} else {
		buf = m.appendUnit(buf, n, cmd, nil)
	}
	m.publish(buf)
	m.scratch = buf
	return m.off
}

// appendUnit appends to buf the Redis forms of the commands pick selects
// (nil: all), in MULTI/EXEC when two or more have one. mu is held.
func (m *replMaster) appendUnit(buf []byte, n int, cmd func(i int) (int, int64, [][]byte), pick func([][]byte) bool) []byte {
	// MULTI first, as Redis: a SELECT goes inside the transaction. It is
	// cut when fewer than two commands have a form to send.
	start := len(buf)
	buf = resp.AppendCommand(buf, bMulti)
	head, sent := len(buf), 0
	for i := range n {
		db, now, args := cmd(i)
		if pick != nil && !pick(args) {
			continue
		}
		if args = replicaForm(args, now, &m.settings); args != nil {
			buf = m.selectDB(buf, db)
			buf = resp.AppendCommand(buf, args...)
			sent++
		}
	}
	if sent > 1 {
		return resp.AppendCommand(buf, bExec)
	}
	return append(buf[:start], buf[head:]...)
}

// hotkvCommand reports whether name is a command Redis does not have: the
// named vector indexes' (VSIM.*) and the AI layer's (PCACHE.*, SCACHE.*,
// AMEM.*).
func hotkvCommand(name []byte) bool {
	i := bytes.IndexByte(name, '.')
	if i < 0 {
		return false
	}
	p := name[:i+1]
	return cmdtable.Is(p, "vsim.") || cmdtable.Is(p, "pcache.") || cmdtable.Is(p, "scache.") || cmdtable.Is(p, "amem.")
}

// selectDB appends a SELECT when the stream is in another database.
func (m *replMaster) selectDB(b []byte, db int) []byte {
	if db == m.db {
		return b
	}
	m.db = db
	return resp.AppendCommand(b, bSelect, strconv.AppendInt(nil, int64(db), 10))
}

// publish appends b to the backlog and to every attached replica's
// output, closing replicas over their output buffer limit. mu is held.
func (m *replMaster) publish(b []byte) {
	if len(b) == 0 {
		return
	}
	size := int64(len(m.backlog))
	for rest := b; len(rest) > 0; {
		i := m.off % size
		n := copy(m.backlog[i:], rest)
		rest = rest[n:]
		m.off += int64(n)
	}
	m.histLen = min(m.histLen+int64(len(b)), size)
	lim := &m.settings
	for _, r := range m.replicas {
		if r.closed.Load() {
			continue
		}
		r.pending = append(r.pending, b...)
		if outputOver(int64(len(r.pending)), lim.OutputHard, lim.OutputSoft, &r.softSince) {
			r.c.outputLimitReached("replica", int64(len(r.pending)))
			m.drop(r)
			continue
		}
		if r.state.Load() == replOnline {
			select {
			case r.wake <- struct{}{}:
			default:
			}
		}
	}
}

// drop closes a replica from under mu.
func (m *replMaster) drop(r *replica) {
	if r.closed.CompareAndSwap(false, true) {
		r.pending = nil
		close(r.done)
		r.c.closeConn()
	}
}

// id is the replication ID this server's replicas follow: its replid as a
// master. As a replica it feeds them a stream of its own, whose offsets
// are not its master's, so it gives that stream an ID of its own: a
// replica of it must never continue at one of its offsets with its master
// (or the master's other replicas), where the same number means another
// place. INFO master_replid still shows the master's.
func (m *replMaster) id() string {
	if !m.s.replicaFlag.Load() {
		return *m.s.replID.Load()
	}
	if p := m.serveID.Load(); p != nil {
		return *p
	}
	id := randomHex(40)
	m.serveID.CompareAndSwap(nil, &id)
	return *m.serveID.Load()
}

// newHistory ends the history this server's replicas follow: its data was
// replaced by a full sync from its own master, which the stream does not
// carry. As Redis's replica disconnects its replicas then, those attached
// are dropped, and its stream gets a new ID (id), so that none may
// continue from an offset before now: each syncs in full again.
func (m *replMaster) newHistory() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := randomHex(40)
	m.serveID.Store(&id)
	for _, r := range m.replicas {
		m.drop(r)
	}
}

// startFeeding makes the backlog (once) and turns the feed on. mu is held.
func (m *replMaster) startFeeding() {
	m.settings = m.s.Config().ReplMaster()
	if m.backlog == nil {
		m.backlog = make([]byte, max(m.settings.BacklogSize, 16<<10))
		m.histLen = 0
		m.s.ks.OnExpire(m.expired)
		m.s.logf("notice", "Replication backlog created, my new replication IDs are '%s' and '%s'", *m.s.replID.Load(), strings.Repeat("0", 40))
	}
	m.on.Store(true)
}

// expired propagates a key deleted because its time ran out, as Redis
// propagates its expiry: a DEL (under the key's shard lock).
func (m *replMaster) expired(db int, key string) {
	m.deleted(db, key, func(st *config.ReplMaster) bool { return st.LazyExpire })
}

// deleted propagates a key the server deleted: a DEL, or an UNLINK when
// lazy says the setting for it is on.
func (m *replMaster) deleted(db int, key string, lazy func(*config.ReplMaster) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	del := delOrUnlink(lazy(&m.settings))
	m.feedLocked(1, func(int) (int, int64, [][]byte) { return db, 0, [][]byte{del, []byte(key)} })
}

// feedKeyless feeds one command that names no key (the eviction of a cache
// entry), in whatever database the stream has selected.
func (m *replMaster) feedKeyless(now int64, args [][]byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.feedLocked(1, func(int) (int, int64, [][]byte) { return m.db, now, args })
}

// attach adds r to the replicas fed from now on. mu is held.
func (m *replMaster) attach(r *replica) {
	m.startFeeding()
	m.replicas = append(m.replicas, r)
}

// detach forgets r (its connection is closing).
func (m *replMaster) detach(r *replica) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.closed.CompareAndSwap(false, true) {
		close(r.done)
	}
	for i, x := range m.replicas {
		if x == r {
			m.replicas = append(m.replicas[:i], m.replicas[i+1:]...)
			if len(m.replicas) == 0 {
				m.lastGone = time.Now().Unix()
			}
			m.s.logf("notice", "Connection with replica %s:%d lost.", r.ip, r.port)
			break
		}
	}
	r.pending = nil
	m.refreshGood()
}

// cron runs every second: PING to the replicas every
// repl-ping-replica-period, replicas silent past repl-timeout closed, the
// backlog freed repl-backlog-ttl after the last replica left.
func (m *replMaster) cron(tick int64) {
	if !m.on.Load() {
		return
	}
	now := time.Now()
	m.mu.Lock()
	m.settings = m.s.Config().ReplMaster()
	st := m.settings
	if len(m.replicas) > 0 && st.PingPeriod > 0 && tick%st.PingPeriod == 0 {
		m.publish(resp.AppendCommand(m.scratch[:0], []byte("PING")))
	}
	for _, r := range m.replicas {
		if r.state.Load() == replOnline && !r.rdbOnly && now.UnixMilli()-r.ackTime.Load() > st.Timeout*1000 {
			m.s.logf("warning", "Disconnecting timedout replica (streaming sync): %s:%d", r.ip, r.port)
			m.drop(r)
		}
	}
	m.refreshGood()
	if len(m.replicas) == 0 && st.BacklogTTL > 0 && now.Unix()-m.lastGone > st.BacklogTTL {
		m.on.Store(false)
		m.backlog, m.histLen = nil, 0
		m.s.ks.OnExpire(nil)
		m.s.logf("notice", "Replication backlog freed after %d seconds without connected replicas.", st.BacklogTTL)
	}
	m.mu.Unlock()
}

// loop is the replica's writer: it sends the stream as it comes.
func (r *replica) loop(m *replMaster) {
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
			if _, err := r.c.conn.Write(data); err != nil {
				r.c.closeConn()
				return
			}
			m.sent(r.c, int64(len(data)))
		}
		// data is written: it takes pending's place next time.
		if cap(data) > 1<<20 {
			data = nil
		}
		spare = data
	}
}
