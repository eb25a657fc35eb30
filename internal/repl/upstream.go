package repl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/resp"
)

// ReplicaHost is what the replica side needs of the server. None of it is
// called on a client's command's path: only by REPLICAOF and by the link's
// goroutine as it connects, syncs and applies the master's stream.
type ReplicaHost interface {
	Config() *config.Config
	Logf(level, format string, args ...any)
	// ReplID is INFO's master_replid; SetReplID replaces it.
	ReplID() string
	SetReplID(id string)
	// Port is the port clients connect to (REPLCONF listening-port).
	Port() int
	// Closed is closed when the server shuts down.
	Closed() <-chan struct{}
	// SetReplica says whether REPLICAOF names a master: client writes may
	// be refused, keys stop expiring on their own, and maxmemory applies
	// as a replica's or a master's.
	SetReplica(on bool)
	// LoadRDB reads a full sync's RDB file from src into fresh data, not
	// yet in use; it reads nothing past the file's end.
	LoadRDB(src io.Reader) (Staged, error)
	// MasterClient is a new client to apply a continued stream in
	// database db; conn is the link's connection, for what shows a
	// client's address (nothing writes to it).
	MasterClient(conn net.Conn, db int) MasterClient
}

// Staged is a full sync's data, loaded and not yet in use.
type Staged interface {
	// Counts is what the file held, for the log.
	Counts() (keys int, bytes int64)
	// Install makes it the server's data, function libraries and
	// registries, as one step no client sees half done; the server's own
	// replicas start a new history and the append-only log, if on, a
	// rewrite. It returns the client that applies the stream that
	// follows, in database 0.
	Install(conn net.Conn) (MasterClient, error)
}

// MasterClient applies the master's stream, as Redis's master client: what
// it applies counts as the server's writes and calls.
type MasterClient interface {
	// Listed makes it the master's client CLIENT LIST shows and CLIENT
	// KILL reaches, while the link streams; Gone ends that, its counts
	// moving into the server's as a closed client's.
	Listed()
	Gone()
	// Apply runs one command of the stream, its reply dropped, and
	// reports whether a transaction (MULTI) is open after it.
	Apply(args [][]byte) (inTx bool)
	// Flush publishes the counts of what it applied.
	Flush()
	// Killed reports that CLIENT KILL closed it: as in Redis, where the
	// kill frees the master's client at once, nothing read after that is
	// applied (the next link gets it again from the master's backlog).
	Killed() bool
	// DB is the database the stream has selected.
	DB() int
}

// Link states, as ROLE names them.
const (
	stateConnect    = "connect"
	stateConnecting = "connecting"
	stateHandshake  = "handshake"
	stateSync       = "sync"
	stateConnected  = "connected"
)

// Upstream is the replica side: REPLICAOF's link to this server's master.
// With no master named it is idle.
type Upstream struct {
	host  ReplicaHost
	stats *Stats // the master side's, whose Received it counts

	// applyMu is held while a command of the master's stream runs, and by
	// REPLICAOF while it changes gen: no command of a link that REPLICAOF
	// ended runs after REPLICAOF returns.
	applyMu sync.Mutex
	mu      sync.Mutex // master, port, gen, conn
	master  string     // "": none, this server is a master
	port    int
	gen     uint64   // bumped by every REPLICAOF: an older link goroutine stops
	conn    net.Conn // the current link, closed to stop it
	state   atomic.Pointer[string]

	linkUp     atomic.Bool
	downSince  atomic.Int64 // unix seconds the link went down (0: never up)
	lastIO     atomic.Int64 // unix ms of the last byte from the master
	syncTotal  atomic.Int64 // RDB size (-1: diskless, unknown)
	syncRead   atomic.Int64
	offset     atomic.Int64           // replication offset applied
	readOffset atomic.Int64           // replication offset read
	secondOff  atomic.Int64           // INFO second_repl_offset after REPLICAOF NO ONE
	replid2    atomic.Pointer[string] // INFO master_replid2: the master's replid a former replica continues

	handover atomic.Pointer[Handover] // FAILOVER's, for the next PSYNC
}

// Handover is a master's side of FAILOVER as it becomes a replica of the
// replica that caught up: its first PSYNC names the history the two share
// (the master's replid and its offset) and asks the replica, with
// FAILOVER, to take over. Done learns whether the replica did (+CONTINUE
// or +FULLRESYNC).
type Handover struct {
	ID   string
	Off  int64 // the master's replication offset
	Done func(accepted bool)
}

// HandOver makes the next PSYNC FAILOVER's (Follow then names the target).
func (u *Upstream) HandOver(h *Handover) { u.handover.Store(h) }

// Init readies u for host; the bytes read from a master count in st.
func (u *Upstream) Init(host ReplicaHost, st *Stats) {
	u.host, u.stats = host, st
}

// Master is the master this server replicates, "" for none.
func (u *Upstream) Master() (host string, port int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.master, u.port
}

// LinkUp reports whether the link to the master streams.
func (u *Upstream) LinkUp() bool { return u.linkUp.Load() }

// Replid2 is INFO's master_replid2 and second_repl_offset: the history a
// former replica's data continues (REPLICAOF NO ONE), or none.
func (u *Upstream) Replid2() (string, int64) {
	if p := u.replid2.Load(); p != nil {
		return *p, u.secondOff.Load()
	}
	return strings.Repeat("0", 40), -1
}

func (u *Upstream) linkStateName() string {
	if p := u.state.Load(); p != nil {
		return *p
	}
	return stateConnect
}

func (u *Upstream) setState(st string) { u.state.Store(&st) }

// linkState is a link's own change of state, st, applied only while gen is
// still the replication asked for: a link that REPLICAOF ended cannot mark
// the next one up, or down, in the moment before it notices. The link is up
// in stateConnected only; leaving it notes when it went down.
func (u *Upstream) linkState(gen uint64, st string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.gen != gen {
		return
	}
	u.setState(st)
	if up := st == stateConnected; u.linkUp.Swap(up) && !up {
		u.downSince.Store(time.Now().Unix())
	}
}

// Pause holds the master's stream: no command of it runs until resume.
// REPLICAOF holds it across Follow, except inside EXEC, which may hold
// shards a command of the stream waits for while holding it.
func (u *Upstream) Pause() (resume func()) {
	u.applyMu.Lock()
	return u.applyMu.Unlock
}

// Follow makes the server a replica of host:port ("" host: a master again,
// keeping its data). It reports false when it already replicates that
// master. Otherwise unblock runs first, under the link's lock: a blocked
// client's command would be served by the master's stream or wait for
// writes that can no longer come from clients.
func (u *Upstream) Follow(host string, port int, unblock func()) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if host != "" && u.master == host && u.port == port {
		return false
	}
	unblock()
	u.gen++
	if u.conn != nil {
		u.conn.Close()
		u.conn = nil
	}
	wasReplica := u.master != ""
	u.master, u.port = host, port
	u.linkUp.Store(false)
	u.setState(stateConnect)
	if host == "" {
		u.host.SetReplica(false)
		if wasReplica { // a new history starts here, as Redis's shiftReplicationId
			old := u.host.ReplID()
			u.replid2.Store(&old)
			u.secondOff.Store(u.offset.Load() + 1)
			u.host.SetReplID(NewID())
			u.host.Logf("notice", "MASTER MODE enabled (user request from replicaof no one)")
		}
		return true
	}
	u.host.SetReplica(true)
	u.downSince.Store(0) // master_link_down_since_seconds is -1 until a link drops
	u.host.Logf("notice", "Connecting to MASTER %s:%d", host, port)
	go u.run(u.gen, host, port)
	return true
}

// current reports whether gen is still the replication asked for.
func (u *Upstream) current(gen uint64) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.gen == gen
}

// run connects, syncs and streams until REPLICAOF changes or the server
// shuts down, reconnecting with backoff (100 ms doubling to 5 s).
func (u *Upstream) run(gen uint64, host string, port int) {
	backoff := 100 * time.Millisecond
	var resume psyncPoint
	closed := u.host.Closed()
	for u.current(gen) {
		start := time.Now()
		err := u.session(gen, host, port, &resume)
		if h := u.handover.Swap(nil); h != nil { // the link failed before its PSYNC: FAILOVER gives up
			h.Done(false)
		}
		if !u.current(gen) {
			return
		}
		select {
		case <-closed:
			return
		default:
		}
		u.linkState(gen, stateConnect)
		u.host.Logf("warning", "Replication from MASTER %s:%d: %v; reconnecting", host, port, err)
		if time.Since(start) > 10*time.Second {
			backoff = 100 * time.Millisecond
		}
		select {
		case <-time.After(backoff):
		case <-closed:
			return
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// psyncPoint is where a link that dropped stopped, for the next one to
// continue from: the master's replid and the offset applied (given by the
// Upstream) once ok, and the database its stream had selected, as Redis's
// cached master keeps it.
type psyncPoint struct {
	ok bool
	db int
}

// session is one connection: handshake, full or partial sync, stream.
func (u *Upstream) session(gen uint64, host string, port int, resume *psyncPoint) error {
	u.linkState(gen, stateConnecting)
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), 10*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	u.mu.Lock()
	if u.gen != gen {
		u.mu.Unlock()
		return errors.New("replication changed")
	}
	u.conn = conn
	u.mu.Unlock()
	done := make(chan struct{})
	defer close(done)
	go func() { // a shutdown ends the link
		select {
		case <-u.host.Closed():
			conn.Close()
		case <-done:
		}
	}()
	timeout := u.host.Config().ReplTimeout()
	l := &link{u: u, conn: conn, timeout: timeout}
	l.br = bufio.NewReaderSize(&linkReader{l}, 1<<16)

	u.linkState(gen, stateHandshake)
	if reply, err := l.command("PING"); err != nil {
		return err
	} else if reply[0] == '-' && !strings.HasPrefix(reply, "-NOAUTH") && !strings.HasPrefix(reply, "-NOPERM") && !strings.HasPrefix(reply, "-ERR operation not permitted") {
		return fmt.Errorf("error reply to PING from master: '%s'", reply)
	}
	if user, pass := u.host.Config().MasterAuth(); pass != "" {
		args := []string{"AUTH", pass}
		if user != "" {
			args = []string{"AUTH", user, pass}
		}
		if reply, err := l.command(args...); err != nil {
			return err
		} else if reply[0] == '-' {
			return fmt.Errorf("unable to AUTH to MASTER: %s", reply)
		}
	}
	// The address the master shows in INFO and ROLE, where Sentinel finds
	// the replica: replica-announce-port and -ip when set (NAT, containers).
	cfg := u.host.Config()
	announce := u.host.Port()
	if p, _ := strconv.Atoi(cfg.RedisValue("replica-announce-port")); p != 0 {
		announce = p
	}
	if reply, err := l.command("REPLCONF", "listening-port", strconv.Itoa(announce)); err != nil {
		return err
	} else if reply[0] == '-' {
		u.host.Logf("notice", "(Non critical) Master does not understand REPLCONF listening-port: %s", reply)
	}
	if ip := cfg.RedisValue("replica-announce-ip"); ip != "" {
		if reply, err := l.command("REPLCONF", "ip-address", ip); err != nil {
			return err
		} else if reply[0] == '-' {
			u.host.Logf("notice", "(Non critical) Master does not understand REPLCONF ip-address: %s", reply)
		}
	}
	if reply, err := l.command("REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	} else if reply[0] == '-' {
		u.host.Logf("notice", "(Non critical) Master does not understand REPLCONF capa: %s", reply)
	}
	psyncID, psyncOff := "?", "-1"
	if resume.ok {
		psyncID, psyncOff = u.host.ReplID(), strconv.FormatInt(u.offset.Load()+1, 10)
	}
	psync := []string{"PSYNC", psyncID, psyncOff}
	h := u.handover.Swap(nil)
	if h != nil {
		psync = []string{"PSYNC", h.ID, strconv.FormatInt(h.Off+1, 10), "FAILOVER"}
	}
	reply, err := l.command(psync...)
	if h != nil {
		h.Done(err == nil && (strings.HasPrefix(reply, "+CONTINUE") || strings.HasPrefix(reply, "+FULLRESYNC")))
		if err == nil && strings.HasPrefix(reply, "+CONTINUE") { // the new master goes on from this one's offset
			u.offset.Store(h.Off)
			resume.ok, resume.db = true, 0
		}
	}
	if err != nil {
		return err
	}
	if f := strings.Fields(reply); resume.ok && len(f) >= 1 && f[0] == "+CONTINUE" {
		return u.continueSync(gen, l, f[1:], resume)
	}
	f := strings.Fields(reply)
	if len(f) != 3 || f[0] != "+FULLRESYNC" { // -LOADING, -NOMASTERLINK...: try again later, to continue
		return fmt.Errorf("unexpected reply to PSYNC from master: '%s'", reply)
	}
	resume.ok = false
	replid := f[1]
	startOff, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return fmt.Errorf("bad offset in '%s'", reply)
	}
	u.host.Logf("notice", "Full resync from master: %s:%d", replid, startOff)
	return u.fullSync(gen, l, replid, startOff, resume)
}

// fullSync reads the RDB file a full resync sends (as "$<len>" or the
// diskless "$EOF:<mark>" form), installs its data and follows the stream
// from startOff.
func (u *Upstream) fullSync(gen uint64, l *link, replid string, startOff int64, resume *psyncPoint) error {
	// The RDB. Read from br itself (diskless) or a limit of it, LoadRDB
	// reads nothing past its end: the stream follows.
	u.linkState(gen, stateSync)
	head, err := l.line()
	if err != nil {
		return err
	}
	if len(head) < 2 || head[0] != '$' {
		return fmt.Errorf("bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you sure the host and port are right?", head)
	}
	u.syncRead.Store(int64(l.br.Buffered()))
	l.syncing = true
	var src *bufio.Reader
	var mark []byte
	if m, ok := strings.CutPrefix(head, "$EOF:"); ok {
		if len(m) != 40 {
			return fmt.Errorf("bad EOF mark '%s'", m)
		}
		mark = []byte(m)
		u.syncTotal.Store(-1)
		src = l.br
		u.host.Logf("notice", "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to parser")
	} else {
		n, err := strconv.ParseInt(head[1:], 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("bad RDB length '%s'", head)
		}
		u.syncTotal.Store(n)
		src = bufio.NewReaderSize(io.LimitReader(l.br, n), 1<<16)
		u.host.Logf("notice", "MASTER <-> REPLICA sync: receiving %d bytes from master to parser", n)
	}
	start := time.Now()
	staged, err := u.host.LoadRDB(src)
	if err != nil {
		return fmt.Errorf("loading the RDB from the master: %w", err)
	}
	if mark != nil {
		got := make([]byte, 40)
		if _, err := io.ReadFull(src, got); err != nil || !bytes.Equal(got, mark) {
			return errors.New("the diskless RDB did not end with its EOF mark")
		}
	} else if _, err := io.Copy(io.Discard, src); err != nil { // bytes after EOF: none in a sound file
		return err
	}
	l.syncing = false
	u.applyMu.Lock()
	if !u.current(gen) {
		u.applyMu.Unlock()
		return errors.New("replication changed")
	}
	mc, err := staged.Install(l.conn)
	if err != nil {
		u.applyMu.Unlock()
		return err
	}
	u.host.SetReplID(replid)
	u.offset.Store(startOff)
	u.readOffset.Store(startOff)
	u.applyMu.Unlock()
	keys, size := staged.Counts()
	u.host.Logf("notice", "MASTER <-> REPLICA sync: Finished with success: %d keys, %d bytes in %.3f seconds", keys, size, time.Since(start).Seconds())
	resume.ok, resume.db = true, 0
	return l.streamFrom(gen, mc, resume, l.timeout)
}

// continueSync is a session the master continues (+CONTINUE [replid]): no
// file, the stream from the offset asked for, applied by a master client
// in the database the last link left selected.
func (u *Upstream) continueSync(gen uint64, l *link, newID []string, resume *psyncPoint) error {
	u.applyMu.Lock()
	if !u.current(gen) {
		u.applyMu.Unlock()
		return errors.New("replication changed")
	}
	if len(newID) == 1 && newID[0] != u.host.ReplID() { // the master's history got a new ID (it was promoted)
		old := u.host.ReplID()
		u.replid2.Store(&old)
		u.secondOff.Store(u.offset.Load() + 1)
		u.host.SetReplID(newID[0])
	}
	u.readOffset.Store(u.offset.Load()) // a transaction the last link cut off comes again
	u.applyMu.Unlock()
	u.host.Logf("notice", "Successful partial resynchronization with master.")
	mc := u.host.MasterClient(l.conn, resume.db)
	return l.streamFrom(gen, mc, resume, l.timeout)
}

// streamFrom marks the link up and applies the master's stream with mc,
// acknowledging the offset at once (a master that sent the file diskless
// starts the stream at the first ACK, which Redis's replicas send at once)
// and every second.
func (l *link) streamFrom(gen uint64, mc MasterClient, resume *psyncPoint, timeout time.Duration) error {
	u := l.u
	mc.Listed()
	defer mc.Gone()
	u.linkState(gen, stateConnected)
	u.lastIO.Store(time.Now().UnixMilli())
	l.timeout = 0
	l.conn.SetReadDeadline(time.Time{})
	if err := l.send("REPLCONF", "ACK", strconv.FormatInt(u.offset.Load(), 10)); err != nil {
		return err
	}
	stop := make(chan struct{})
	defer close(stop)
	go l.acker(stop, timeout)
	err := l.stream(gen, mc)
	resume.db = mc.DB()
	return err
}

// acker sends REPLCONF ACK every second and drops a link silent for
// repl-timeout.
func (l *link) acker(stop chan struct{}, timeout time.Duration) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if time.Since(time.UnixMilli(l.u.lastIO.Load())) > timeout {
			l.u.host.Logf("warning", "MASTER timeout: no data nor PING received...")
			l.conn.Close()
			return
		}
		if l.send("REPLCONF", "ACK", strconv.FormatInt(l.u.offset.Load(), 10)) != nil {
			return
		}
	}
}

// errMasterKilled ends a link whose master's client CLIENT KILL closed.
var errMasterKilled = errors.New("the master's client was killed")

// stream applies the master's commands until the link fails. The offset
// applied (acknowledged, and continued from after a drop) does not move
// inside a transaction, as Redis's master client's reploff: a link that
// drops before its EXEC gets all of it again.
func (l *link) stream(gen uint64, mc MasterClient) error {
	u := l.u
	var pending int64 // read inside a transaction not yet applied
	for {
		args, n, err := readCommand(l.br)
		if err != nil {
			return err
		}
		u.lastIO.Store(time.Now().UnixMilli())
		u.readOffset.Add(n)
		if len(args) == 0 {
			u.offset.Add(n)
			continue
		}
		if len(args) >= 2 && cmdtable.Is(args[0], "replconf") && cmdtable.Is(args[1], "getack") {
			if err := l.send("REPLCONF", "ACK", strconv.FormatInt(u.offset.Load(), 10)); err != nil {
				return err
			}
			u.offset.Add(n)
			continue
		}
		u.applyMu.Lock()
		if !u.current(gen) {
			u.applyMu.Unlock()
			return errors.New("replication changed")
		}
		if mc.Killed() {
			u.applyMu.Unlock()
			return errMasterKilled
		}
		if pending += n; !mc.Apply(args) {
			u.offset.Add(pending)
			pending = 0
		}
		u.applyMu.Unlock()
		if l.br.Buffered() == 0 { // the end of what came, as a client's batch: publish its counts
			mc.Flush()
		}
	}
}

// Info writes INFO's replication section for a replica and reports true,
// or false for a master (Master.Info).
func (u *Upstream) Info(b *strings.Builder) bool {
	host, port := u.Master()
	if host == "" {
		return false
	}
	now := time.Now()
	kv(b, "role", "slave")
	kv(b, "master_host", host)
	kv(b, "master_port", port)
	up := u.linkUp.Load()
	kv(b, "master_link_status", map[bool]string{true: "up", false: "down"}[up])
	lastIO := int64(-1)
	if up {
		lastIO = int64(now.Sub(time.UnixMilli(u.lastIO.Load())).Seconds())
	}
	kv(b, "master_last_io_seconds_ago", lastIO)
	syncing := u.linkStateName() == stateSync
	kv(b, "master_sync_in_progress", map[bool]int{true: 1, false: 0}[syncing])
	kv(b, "slave_read_repl_offset", u.readOffset.Load())
	kv(b, "slave_repl_offset", u.offset.Load())
	kv(b, "replica_full_sync_buffer_size", 0) // no rdb-channel replication: nothing is buffered while the RDB loads
	kv(b, "replica_full_sync_buffer_peak", 0)
	if syncing {
		total, read := u.syncTotal.Load(), u.syncRead.Load()
		kv(b, "master_sync_total_bytes", total)
		kv(b, "master_sync_read_bytes", read)
		left, perc := int64(-1), "0.00"
		if total > 0 {
			left = total - read
			perc = fmt.Sprintf("%.2f", 100*float64(read)/float64(total))
		}
		kv(b, "master_sync_left_bytes", left)
		kv(b, "master_sync_perc", perc)
		kv(b, "master_sync_last_io_seconds_ago", int64(now.Sub(time.UnixMilli(u.lastIO.Load())).Seconds()))
	}
	if !up {
		since := int64(-1)
		if d := u.downSince.Load(); d != 0 {
			since = now.Unix() - d
		}
		kv(b, "master_link_down_since_seconds", since)
	}
	cfg := u.host.Config()
	kv(b, "slave_priority", cfg.RedisValue("replica-priority"))
	kv(b, "slave_read_only", map[bool]int{true: 1, false: 0}[cfg.ReplicaReadOnly()])
	kv(b, "replica_announced", map[bool]int{true: 1, false: 0}[cfg.RedisValue("replica-announced") == "yes"])
	kv(b, "connected_slaves", 0)
	kv(b, "master_failover_state", u.stats.failoverState())
	kv(b, "master_replid", u.host.ReplID())
	kv(b, "master_replid2", strings.Repeat("0", 40))
	kv(b, "master_repl_offset", u.offset.Load())
	kv(b, "second_repl_offset", -1)
	kv(b, "repl_backlog_active", 0)
	kv(b, "repl_backlog_size", cfg.RedisValue("repl-backlog-size"))
	kv(b, "repl_backlog_first_byte_offset", 0)
	kv(b, "repl_backlog_histlen", 0)
	return true
}

// Role writes ROLE's reply for a replica and reports true, or false for a
// master (Master.Role).
func (u *Upstream) Role(w *resp.Writer) bool {
	host, port := u.Master()
	if host == "" {
		return false
	}
	w.Array(5)
	w.BulkString("slave")
	w.BulkString(host)
	w.Int(int64(port))
	w.BulkString(u.linkStateName())
	off := u.offset.Load()
	if u.linkStateName() != stateConnected {
		off = -1
	}
	w.Int(off)
	return true
}
