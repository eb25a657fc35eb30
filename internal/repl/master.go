package repl

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/resp"
)

// Host is what the master side needs of the server. None of it is called
// on a command's path: only when a replica syncs, by the cron, and when
// the backlog is made or freed.
type Host interface {
	Config() *config.Config
	Logf(level, format string, args ...any)
	// ReplID is INFO's master_replid.
	ReplID() string
	// IsReplica reports whether REPLICAOF names a master.
	IsReplica() bool
	// WriteRDB writes the data as at one instant as a Redis RDB file:
	// atInstant runs at the instant, every shard locked, and says what
	// the AUX fields tell; before, if set, runs once that is known and
	// before the first byte. fnOnly leaves the keys out, noFns the
	// function libraries.
	WriteRDB(w io.Writer, atInstant func() (rdb.FileInfo, error), before func() error, fnOnly, noFns bool) (keys int, err error)
}

// FormFunc gives the form of a command Redis propagates (relative times as
// absolute, blocking commands as their plain ones), or nil for a command
// with nothing to send; st is the settings the stream goes by.
type FormFunc func(args [][]byte, now int64, st *config.ReplMaster) [][]byte

// Replica states, as INFO shows them.
const (
	stateWaitBgsave = iota // waiting for its RDB file
	stateSendBulk          // receiving it
	stateOnline            // following the stream
)

var stateNames = [...]string{"wait_bgsave", "send_bulk", "online"}

// Master is the master side: the stream, its backlog and the replicas.
type Master struct {
	host Host
	ks   *keyspace.Keyspace
	form FormFunc
	// on: writes are fed to the stream (a replica is attached or the
	// backlog is kept). It changes under mu.
	on atomic.Bool

	mu      sync.Mutex
	off     int64  // master_repl_offset: bytes ever fed
	db      int    // the database the stream has selected, -1: none
	backlog []byte // ring of the last len(backlog) bytes; nil: none
	histLen int64  // bytes of history in the backlog
	// serveID names this server's own stream while it is a replica (ID).
	serveID  atomic.Pointer[string]
	replicas []*Replica
	lastGone int64 // unix seconds the last replica left (repl-backlog-ttl)
	settings config.ReplMaster
	scratch  []byte
	waiters  []*waiter // WAIT calls in progress

	// Skipped counts keys with no RDB form, written to RDB files only in
	// the hotkv-snapshot AUX field (INFO rdb_keys_skipped).
	Skipped atomic.Int64
	// tooFew: min-replicas-to-write is not met, writes are refused
	// (refreshGood).
	tooFew atomic.Bool
	Stats  Stats // INFO's (info.go)
}

// Init readies m for host, whose keyspace is ks; form gives the commands'
// Redis forms.
func (m *Master) Init(host Host, ks *keyspace.Keyspace, form FormFunc) {
	m.host, m.ks, m.form = host, ks, form
	m.db = -1
}

// Configure applies the settings CONFIG SET may have changed.
func (m *Master) Configure(cfg *config.Config) {
	m.mu.Lock()
	m.settings = cfg.ReplMaster()
	m.refreshGood()
	m.mu.Unlock()
}

// refreshGood counts the good replicas (online, acknowledged within
// min-replicas-max-lag seconds) against min-replicas-to-write, as Redis's
// refreshGoodSlavesCount. mu is held.
func (m *Master) refreshGood() {
	st := &m.settings
	if st.MinReplicas == 0 || st.MinMaxLag == 0 {
		m.tooFew.Store(false)
		return
	}
	good := int64(0)
	now := time.Now().UnixMilli()
	for _, r := range m.replicas {
		if r.state.Load() == stateOnline && (now-r.ackTime.Load())/1000 <= st.MinMaxLag {
			good++
		}
	}
	m.tooFew.Store(good < st.MinReplicas)
}

// Feeding reports whether writes go to the replication stream.
func (m *Master) Feeding() bool { return m.on.Load() }

// TooFew reports whether min-replicas-to-write is not met: writes are
// refused.
func (m *Master) TooFew() bool { return m.tooFew.Load() }

var (
	bMulti  = []byte("MULTI")
	bExec   = []byte("EXEC")
	bSelect = []byte("SELECT")
	// Del and Unlink are the commands of a deletion.
	Del    = []byte("DEL")
	Unlink = []byte("UNLINK")
)

// DelOrUnlink is the command Redis sends for a deletion, lazy or not.
func DelOrUnlink(lazy bool) []byte {
	if lazy {
		return Unlink
	}
	return Del
}

// Feed appends commands run at now in database db to the stream, several
// as one MULTI/EXEC, and returns the offset after them. The caller holds
// the locks of what they wrote.
func (m *Master) Feed(db int, now int64, cmds [][][]byte) int64 {
	return m.feedUnit(len(cmds), func(i int) (int, int64, [][]byte) { return db, now, cmds[i] })
}

// FeedRecord feeds a transaction's log record (persist.BeginRecord ...
// SealRecord): its commands as one MULTI/EXEC.
func (m *Master) FeedRecord(rec []byte) int64 {
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
func (m *Master) feedUnit(n int, cmd func(i int) (int, int64, [][]byte)) int64 {
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
func (m *Master) feedLocked(n int, cmd func(i int) (int, int64, [][]byte)) int64 {
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
func (m *Master) appendUnit(buf []byte, n int, cmd func(i int) (int, int64, [][]byte), pick func([][]byte) bool) []byte {
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
		if args = m.form(args, now, &m.settings); args != nil {
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
func (m *Master) selectDB(b []byte, db int) []byte {
	if db == m.db {
		return b
	}
	m.db = db
	return resp.AppendCommand(b, bSelect, strconv.AppendInt(nil, int64(db), 10))
}

// publish appends b to the backlog and to every attached replica's
// output, closing replicas over their output buffer limit. mu is held.
func (m *Master) publish(b []byte) {
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
		if r.conn.OutputOver(int64(len(r.pending)), lim, &r.softSince) {
			m.drop(r)
			continue
		}
		if r.state.Load() == stateOnline {
			select {
			case r.wake <- struct{}{}:
			default:
			}
		}
	}
}

// drop closes a replica from under mu.
func (m *Master) drop(r *Replica) {
	if r.closed.CompareAndSwap(false, true) {
		r.pending = nil
		close(r.done)
		r.conn.Close()
	}
}

// ID is the replication ID this server's replicas follow: its replid as a
// master. As a replica it feeds them a stream of its own, whose offsets
// are not its master's, so it gives that stream an ID of its own: a
// replica of it must never continue at one of its offsets with its master
// (or the master's other replicas), where the same number means another
// place. INFO master_replid still shows the master's.
func (m *Master) ID() string {
	if !m.host.IsReplica() {
		return m.host.ReplID()
	}
	if p := m.serveID.Load(); p != nil {
		return *p
	}
	id := NewID()
	m.serveID.CompareAndSwap(nil, &id)
	return *m.serveID.Load()
}

// NewID is a new replication or run ID: 40 random hex digits, as Redis's
// getRandomHexChars makes them.
func NewID() string {
	b := make([]byte, 20)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// NewHistory ends the history this server's replicas follow: its data was
// replaced by a full sync from its own master, which the stream does not
// carry. As Redis's replica disconnects its replicas then, those attached
// are dropped, and its stream gets a new ID (ID), so that none may
// continue from an offset before now: each syncs in full again.
func (m *Master) NewHistory() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := NewID()
	m.serveID.Store(&id)
	for _, r := range m.replicas {
		m.drop(r)
	}
}

// startFeeding makes the backlog (once) and turns the feed on. mu is held.
func (m *Master) startFeeding() {
	m.settings = m.host.Config().ReplMaster()
	if m.backlog == nil {
		m.backlog = make([]byte, max(m.settings.BacklogSize, 16<<10))
		m.histLen = 0
		m.ks.OnExpire(m.expired)
		m.host.Logf("notice", "Replication backlog created, my new replication IDs are '%s' and '%s'", m.host.ReplID(), strings.Repeat("0", 40))
	}
	m.on.Store(true)
}

// expired propagates a key deleted because its time ran out, as Redis
// propagates its expiry: a DEL (under the key's shard lock).
func (m *Master) expired(db int, key string) {
	m.Deleted(db, key, func(st *config.ReplMaster) bool { return st.LazyExpire })
}

// Deleted propagates a key the server deleted: a DEL, or an UNLINK when
// lazy says the setting for it is on.
func (m *Master) Deleted(db int, key string, lazy func(*config.ReplMaster) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	del := DelOrUnlink(lazy(&m.settings))
	m.feedLocked(1, func(int) (int, int64, [][]byte) { return db, 0, [][]byte{del, []byte(key)} })
}

// FeedKeyless feeds one command that names no key (the eviction of a cache
// entry), in whatever database the stream has selected.
func (m *Master) FeedKeyless(now int64, args [][]byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.feedLocked(1, func(int) (int, int64, [][]byte) { return m.db, now, args })
}

// attach adds r to the replicas fed from now on. mu is held.
func (m *Master) attach(r *Replica) {
	m.startFeeding()
	m.replicas = append(m.replicas, r)
}

// Detach forgets r (its connection is closing).
func (m *Master) Detach(r *Replica) {
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
			m.host.Logf("notice", "Connection with replica %s:%d lost.", r.ip, r.port)
			break
		}
	}
	r.pending = nil
	m.refreshGood()
}

// Cron runs every second: PING to the replicas every
// repl-ping-replica-period, replicas silent past repl-timeout closed, the
// backlog freed repl-backlog-ttl after the last replica left.
func (m *Master) Cron(tick int64) {
	if !m.on.Load() {
		return
	}
	now := time.Now()
	m.mu.Lock()
	m.settings = m.host.Config().ReplMaster()
	st := m.settings
	if len(m.replicas) > 0 && st.PingPeriod > 0 && tick%st.PingPeriod == 0 {
		m.publish(resp.AppendCommand(m.scratch[:0], []byte("PING")))
	}
	for _, r := range m.replicas {
		if r.state.Load() == stateOnline && !r.conf.RDBOnly && now.UnixMilli()-r.ackTime.Load() > st.Timeout*1000 {
			m.host.Logf("warning", "Disconnecting timedout replica (streaming sync): %s:%d", r.ip, r.port)
			m.drop(r)
		}
	}
	m.refreshGood()
	if len(m.replicas) == 0 && st.BacklogTTL > 0 && now.Unix()-m.lastGone > st.BacklogTTL {
		m.on.Store(false)
		m.backlog, m.histLen = nil, 0
		m.ks.OnExpire(nil)
		m.host.Logf("notice", "Replication backlog freed after %d seconds without connected replicas.", st.BacklogTTL)
	}
	m.mu.Unlock()
}
