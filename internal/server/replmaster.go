package server

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
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

	mu       sync.Mutex
	off      int64  // master_repl_offset: bytes ever fed
	db       int    // the database the stream has selected, -1: none
	backlog  []byte // ring of the last len(backlog) bytes; nil: none
	histLen  int64  // bytes of history in the backlog
	replicas []*replica
	lastGone int64 // unix seconds the last replica left (repl-backlog-ttl)
	settings config.ReplMaster
	scratch  []byte
	waiters  []*replWaiter // WAIT calls in progress

	skipped atomic.Int64 // keys with no RDB form, written to RDB files only in the hotkv-snapshot AUX field
	// tooFew: min-replicas-to-write is not met, writes are refused
	// (refreshGood).
	tooFew atomic.Bool
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

// appendRESP appends args as a RESP array of bulk strings.
func appendRESP(b []byte, args ...[]byte) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

var (
	bMulti  = []byte("MULTI")
	bExec   = []byte("EXEC")
	bSelect = []byte("SELECT")
	bDel    = []byte("DEL")
)

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
	if m.backlog == nil || n == 0 {
		return m.off
	}
	b := m.scratch[:0]
	if n > 1 {
		db, _, _ := cmd(0)
		b = m.selectDB(b, db)
		b = appendRESP(b, bMulti)
	}
	for i := range n {
		db, now, args := cmd(i)
		if args = redisForm(args, now); args != nil {
			b = m.selectDB(b, db)
			b = appendRESP(b, args...)
		}
	}
	if n > 1 {
		b = appendRESP(b, bExec)
	}
	m.publish(b)
	m.scratch = b
	return m.off
}

// selectDB appends a SELECT when the stream is in another database.
func (m *replMaster) selectDB(b []byte, db int) []byte {
	if db == m.db {
		return b
	}
	m.db = db
	return appendRESP(b, bSelect, strconv.AppendInt(nil, int64(db), 10))
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
	m.feed(db, 0, [][][]byte{{bDel, []byte(key)}})
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
		m.publish(appendRESP(m.scratch[:0], []byte("PING")))
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
			r.c.netOut.Add(int64(len(data)))
		}
		// data is written: it takes pending's place next time.
		if cap(data) > 1<<20 {
			data = nil
		}
		spare = data
	}
}

// redisForm is the command a Redis replica runs to do what args did at
// now: relative expiry becomes absolute (PEXPIREAT, SET ... PXAT, RESTORE
// ... ABSTTL, HPEXPIREAT), an expiry already past a DEL, GETEX its effect
// on the TTL. nil: nothing to send.
func redisForm(args [][]byte, now int64) [][]byte {
	if len(args) < 2 {
		return args
	}
	name := strings.ToLower(string(args[0]))
	abs := func(v []byte, unit int64, rel bool) ([]byte, bool) {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return nil, false
		}
		n *= unit
		if rel {
			n += now
		}
		return strconv.AppendInt(nil, n, 10), true
	}
	switch name {
	case "expire", "pexpire", "expireat", "pexpireat":
		if len(args) < 3 {
			return args
		}
		unit := int64(1000)
		if name[0] == 'p' {
			unit = 1
		}
		at, ok := abs(args[2], unit, !strings.HasSuffix(name, "at"))
		if !ok {
			return args
		}
		if len(args) == 3 {
			if n, _ := strconv.ParseInt(string(at), 10, 64); n <= now {
				return [][]byte{bDel, args[1]}
			}
		}
		return append([][]byte{[]byte("PEXPIREAT"), args[1], at}, args[3:]...)
	case "setex", "psetex":
		if len(args) != 4 {
			return args
		}
		unit := int64(1000)
		if name == "psetex" {
			unit = 1
		}
		at, ok := abs(args[2], unit, true)
		if !ok {
			return args
		}
		return [][]byte{[]byte("SET"), args[1], args[3], []byte("PXAT"), at}
	case "set", "hsetex", "hgetex", "getex":
		out := append([][]byte(nil), args...)
		changed := false
		first := 2 // the options follow the key, or SET's value
		if name == "set" {
			first = 3
		}
		for i := first; i < len(out); i++ {
			opt := strings.ToLower(string(out[i]))
			if opt == "fields" {
				break
			}
			if i+1 >= len(out) {
				break
			}
			var unit int64
			rel := true
			switch opt {
			case "ex":
				unit = 1000
			case "px":
				unit = 1
			case "exat":
				unit, rel = 1000, false
			default:
				continue
			}
			at, ok := abs(out[i+1], unit, rel)
			if !ok {
				return args
			}
			out[i], out[i+1] = []byte("PXAT"), at
			changed = true
			i++
		}
		if name == "getex" { // what it did to the TTL, as Redis propagates it
			for i := 2; i < len(out); i++ {
				switch strings.ToLower(string(out[i])) {
				case "pxat":
					if i+1 < len(out) {
						return [][]byte{[]byte("PEXPIREAT"), args[1], out[i+1]}
					}
				case "persist":
					return [][]byte{[]byte("PERSIST"), args[1]}
				}
			}
			return nil
		}
		if !changed {
			return args
		}
		return out
	case "hexpire", "hpexpire", "hexpireat":
		if len(args) < 3 {
			return args
		}
		unit := int64(1000)
		if name == "hpexpire" {
			unit = 1
		}
		at, ok := abs(args[2], unit, name != "hexpireat")
		if !ok {
			return args
		}
		return append([][]byte{[]byte("HPEXPIREAT"), args[1], at}, args[3:]...)
	case "restore":
		if len(args) < 4 {
			return args
		}
		for _, a := range args[4:] {
			if command.Is(a, "absttl") {
				return args
			}
		}
		if ttl, err := strconv.ParseInt(string(args[2]), 10, 64); err != nil || ttl <= 0 {
			return args
		}
		at, _ := abs(args[2], 1, true)
		out := append([][]byte{args[0], args[1], at}, args[3:]...)
		return append(out, []byte("ABSTTL"))
	}
	return args
}

// ---- SYNC, PSYNC, REPLCONF ----

// replConf is what a connection announced with REPLCONF before PSYNC.
type replConf struct {
	port    int
	ip      string
	capaEOF bool
	rdbOnly bool
	fnOnly  bool // rdb-filter-only: no keys
	noFns   bool // ... and no functions either
}

func replconfCmd(x *command.Ctx) {
	c := cl(x)
	if len(x.Args)%2 == 0 {
		x.Error(command.ErrSyntax)
		return
	}
	if c.replConf == nil {
		c.replConf = &replConf{}
	}
	rc := c.replConf
	for i := 1; i < len(x.Args); i += 2 {
		opt, v := strings.ToLower(string(x.Args[i])), x.Args[i+1]
		switch opt {
		case "listening-port":
			p, ok := command.ParseInt(v)
			if !ok {
				x.Error("ERR value is not an integer or out of range")
				return
			}
			rc.port = int(p)
		case "ip-address":
			rc.ip = string(v)
		case "capa":
			if command.Is(v, "eof") {
				rc.capaEOF = true
			}
		case "rdb-only":
			rc.rdbOnly = string(v) == "1"
		case "rdb-filter-only":
			// Include filters: "functions", or none ("": an empty file).
			rc.fnOnly = true
			rc.noFns = true
			for _, f := range strings.Fields(strings.ToLower(string(v))) {
				if f != "functions" {
					x.Error(fmt.Sprintf("ERR Unsupported rdb-filter-only option: %s", f))
					return
				}
				rc.noFns = false
			}
		case "ack", "fack":
			if r := c.replica; r != nil && opt == "ack" {
				if off, ok := command.ParseInt(v); ok {
					r.ack.Store(off)
					r.ackTime.Store(time.Now().UnixMilli())
					r.ackedOnce.Do(func() { close(r.acked) })
					c.s.repl.acknowledged()
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
func syncCmd(x *command.Ctx) {
	c := cl(x)
	if c.replica != nil {
		return // already a replica: Redis ignores it
	}
	if c.inExec || c.multi != nil {
		x.Error("ERR Replica can't interact with the keyspace")
		return
	}
	psync := command.Is(x.Args[0], "psync")
	if psync && len(x.Args) != 3 {
		x.Error(command.WrongArgs("psync"))
		return
	}
	rc := c.replConf
	if rc == nil {
		rc = &replConf{}
	}
	r := &replica{c: c, ip: hostOf(c.conn.RemoteAddr()), port: rc.port, capaEOF: rc.capaEOF && psync,
		rdbOnly: rc.rdbOnly, fnOnly: rc.fnOnly, noFns: rc.noFns, wake: make(chan struct{}, 1), done: make(chan struct{}),
		acked: make(chan struct{})}
	if rc.ip != "" {
		r.ip = rc.ip
	}
	// Replies already made in this batch go out first; from now on the
	// writer goroutine owns the connection's output (flush drops replies).
	if len(c.out.B) > 0 {
		c.conn.Write(c.out.B)
		c.out.B = c.out.B[:0]
	}
	c.replica = r
	c.replicaFlag.Store(true)
	m := &c.s.repl
	if psync && !r.rdbOnly && m.tryContinue(r, string(x.Args[1]), x.Args[2]) {
		return
	}
	go m.fullSync(r, psync)
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

// tryContinue answers PSYNC replid offset with +CONTINUE when the backlog
// holds everything from offset on, and attaches r.
func (m *replMaster) tryContinue(r *replica, id string, offArg []byte) bool {
	want, ok := command.ParseInt(offArg)
	if !ok || id != *m.s.replID.Load() {
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
	r.ack.Store(from)
	r.ackTime.Store(time.Now().UnixMilli())
	r.state.Store(replOnline)
	m.refreshGood()
	r.wake <- struct{}{}
	go r.loop(m)
	m.s.logf("notice", "Partial resynchronization request from %s:%d accepted. Sending %d bytes of backlog starting from offset %d.", r.ip, r.port, m.off-from, want)
	return true
}

// fullSync sends r the data as at one instant, then the stream from that
// instant on: diskless ($EOF:<mark>) to a replica that announced capa eof,
// else through a temporary file whose length heads the transfer.
func (m *replMaster) fullSync(r *replica, psync bool) {
	s := m.s
	c := r.c
	r.state.Store(replWaitBgsave)
	fail := func(err error) {
		s.logf("warning", "Full resync with replica %s:%d failed: %v", r.ip, r.port, err)
		m.detach(r)
		c.closeConn()
	}
	var head string
	var offset int64
	atInstant := func() (rdb.FileInfo, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if !r.rdbOnly {
			m.attach(r)
		} else if m.backlog == nil {
			m.settings = s.Config().ReplMaster()
		}
		offset = m.off
		m.db = -1 // the next command selects its database
		if psync {
			head = fmt.Sprintf("+FULLRESYNC %s %d\r\n", *s.replID.Load(), offset)
		}
		return rdb.FileInfo{ReplID: *s.replID.Load(), ReplOffset: offset, ReplStreamDB: 0}, nil
	}
	s.logf("notice", "Replica %s:%d asks for synchronization", r.ip, r.port)
	conn := c.conn
	if r.capaEOF {
		mark := make([]byte, 20)
		rand.Read(mark)
		eof := hex.EncodeToString(mark)
		bw := bufio.NewWriterSize(conn, 1<<16)
		cw := &countWriter{w: bw}
		_, err := s.writeRDB(cw, atInstant, func() error {
			r.state.Store(replSendBulk)
			_, err := io.WriteString(bw, head+"$EOF:"+eof+"\r\n")
			return err
		}, r.fnOnly, r.noFns)
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
		c.netOut.Add(cw.n + int64(len(eof)))
		s.logf("notice", "Synchronization with replica %s:%d succeeded (diskless, %d bytes)", r.ip, r.port, cw.n)
	} else {
		f, err := os.CreateTemp(s.Config().Dir, "temp-sync-*.rdb")
		if err != nil {
			f, err = os.CreateTemp("", "hotkv-sync-*.rdb")
		}
		if err != nil {
			fail(err)
			return
		}
		defer os.Remove(f.Name())
		defer f.Close()
		bw := bufio.NewWriterSize(f, 1<<20)
		if _, err = s.writeRDB(bw, atInstant, nil, r.fnOnly, r.noFns); err == nil {
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
			r.state.Store(replSendBulk)
			_, err = io.WriteString(conn, head+"$"+strconv.FormatInt(size, 10)+"\r\n")
		}
		if err == nil {
			_, err = io.Copy(conn, f)
		}
		if err != nil {
			fail(err)
			return
		}
		c.netOut.Add(size)
		s.logf("notice", "Synchronization with replica %s:%d succeeded (%d bytes)", r.ip, r.port, size)
	}
	if r.rdbOnly {
		m.detach(r)
		c.closeConn()
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
	r.state.Store(replOnline)
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

// writeRDB writes the data as at one instant as a Redis RDB file.
// atInstant runs at the instant, every shard locked, and says what the AUX
// fields tell; before, if set, runs once that is known and before the
// first byte. fnOnly leaves the keys out (rdb-filter-only functions), noFns
// the function libraries.
func (s *Server) writeRDB(w io.Writer, atInstant func() (rdb.FileInfo, error), before func() error, fnOnly, noFns bool) (keys int, err error) {
	var info rdb.FileInfo
	var sizes []rdb.DBSize
	side := &hotkvOnly{}
	j := newSnapJob(s, func(dst []byte, db int, sh *keyspace.Shard, now int64) ([]byte, int, error) {
		return rdbShard(dst, db, sh, now, side)
	})
	if fnOnly {
		j.enc = func(dst []byte, _ int, _ *keyspace.Shard, _ int64) ([]byte, int, error) { return dst, 0, nil }
	}
	var fw *rdb.FileWriter
	err = s.captureInstant(j, func() error {
		sizes = make([]rdb.DBSize, len(s.ks.DBs))
		for d, db := range s.ks.DBs {
			for i := range keyspace.ShardCount {
				sh := db.Shard(i)
				sizes[d].Keys += sh.Len()
				sizes[d].Expires += sh.Volatile()
			}
		}
		info = rdb.FileInfo{ReplStreamDB: -1}
		if atInstant != nil {
			var err error
			info, err = atInstant()
			return err
		}
		return nil
	}, func(now int64) error {
		if before != nil {
			if err := before(); err != nil {
				return err
			}
		}
		info.RedisVer = RedisVersion
		info.Ctime = now / 1000
		info.UsedMem = int64(s.memoryFigures().used)
		fw = rdb.NewFileWriter(w, sizes)
		if err := fw.Header(info); err != nil {
			return err
		}
		if _, libs, _, _ := s.scripts.Counts(); libs > 0 && !noFns {
			fw.Functions(s.scripts.DumpFunctions())
		}
		if !fnOnly {
			var err error
			side.aux, side.nAux, err = s.encodeRegistries(now, false)
			return err
		}
		return nil
	}, func(b []byte, n int) error {
		keys += n
		return fw.Block(b)
	}, nil)
	if err == nil && (side.keys > 0 || side.nAux > 0) {
		// What RDB cannot hold, as a HotKV snapshot in an AUX field:
		// Redis skips it, a HotKV replica loads it (loadRDBAux).
		snap := persist.AppendHeader(nil, persist.SnapshotMagic)
		snap = append(snap, side.aux...)
		for _, b := range side.blocks {
			snap = append(snap, b...)
		}
		snap = persist.AppendEnd(snap, side.nAux+len(side.blocks), side.keys)
		fw.Aux(hotkvAux, snap)
		if side.keys > 0 {
			s.repl.skipped.Add(int64(side.keys))
			s.logf("warning", "RDB file: %d keys with no RDB form (vector sets) are only in its %s AUX field, which Redis skips", side.keys, hotkvAux)
		}
	}
	if err == nil {
		err = fw.End()
	}
	return keys, err
}

// hotkvAux is the AUX field of an RDB file that holds, as a HotKV snapshot
// (docs/persistence.md's format), what RDB has no form for: vector sets,
// named vector indexes, the AI layer.
const hotkvAux = "hotkv-snapshot"

// hotkvOnly collects what an RDB file cannot hold while it is written.
type hotkvOnly struct {
	aux  []byte // registries' aux blocks (encodeRegistries)
	nAux int

	mu     sync.Mutex
	blocks [][]byte // HotKV keys blocks of the keys with no RDB form
	keys   int
}

// loadRDBAux loads an RDB file's AUX field into ks when it is HotKV's
// (hotkv-snapshot), reporting whether it was; with registries set, the
// named indexes and the AI layer it holds are loaded into the server's
// registries, which must be empty (a replica's full synchronization
// flushes them first).
func (s *Server) loadRDBAux(key string, val []byte, ks *keyspace.Keyspace, registries bool) (bool, error) {
	if key != hotkvAux {
		return false, nil
	}
	_, _, err := s.readSnapshot(bytes.NewReader(val), ks, registries)
	return true, err
}

// rdbShard encodes sh's live keys as an RDB block of database db; keys
// without an RDB form go to side, in a HotKV keys block.
func rdbShard(dst []byte, db int, sh *keyspace.Shard, now int64, side *hotkvOnly) ([]byte, int, error) {
	start := len(dst)
	dst = rdb.AppendBlock(dst, db)
	n := 0
	var other *persist.KeysBlock
	defer func() {
		if other != nil && other.Keys > 0 {
			side.mu.Lock()
			side.blocks = append(side.blocks, other.Finish())
			side.keys += other.Keys
			side.mu.Unlock()
		}
	}()
	for k, e := range sh.All() {
		if e.Expired(now) {
			continue
		}
		var err error
		dst, err = rdb.AppendKey(dst, []byte(k), e, now)
		switch {
		case err == nil:
			n++
		case errors.Is(err, rdb.ErrExpired):
		case errors.Is(err, rdb.ErrUnsupported):
			if other == nil {
				other = persist.BeginKeys(nil, db)
			}
			if err := other.Add(k, e); err != nil {
				return dst[:start], 0, fmt.Errorf("key %q: %w", k, err)
			}
		default:
			return dst[:start], 0, fmt.Errorf("key %q: %w", k, err)
		}
	}
	if n == 0 {
		return dst[:start], 0, nil
	}
	return dst, n, nil
}

// ---- WAIT, INFO, ROLE ----

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
	m.publish(appendRESP(m.scratch[:0], []byte("REPLCONF"), []byte("GETACK"), []byte("*")))
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

func waitCmd(x *command.Ctx) {
	n, ok := command.ParseInt(x.Args[1])
	if !ok {
		x.Error(command.ErrNotInt)
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

func roleCmd(x *command.Ctx) {
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

func init() {
	const g = "server"
	f := command.Admin | command.NoScript | command.NoMulti | command.NoAsyncLoading
	command.Register(
		&command.Cmd{Name: "sync", Arity: 1, Flags: f, Run: syncCmd, Group: g, Since: "1.0.0",
			Summary: "An internal command used in replication."},
		&command.Cmd{Name: "psync", Arity: -3, Flags: f, Run: syncCmd, Group: g, Since: "2.8.0",
			Summary: "An internal command used in replication.", Args: "replicationid offset"},
		&command.Cmd{Name: "replconf", Arity: -1, Flags: command.Admin | command.NoScript | command.Loading | command.Stale | command.AllowBusy, Run: replconfCmd, Group: g, Since: "3.0.0",
			Summary: "An internal command for configuring the replication stream."},
	)
}
