package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/script"
)

// HotKV as a replica (docs/replication.md, "HotKV as a replica"): REPLICAOF
// host port starts a link goroutine that connects to the master, performs
// Redis's replica handshake (PING, AUTH, REPLCONF listening-port, REPLCONF
// capa eof capa psync2, PSYNC ? -1), reads the RDB the full resync sends
// (as "$<len>" or the diskless "$EOF:<mark>" form) into a new keyspace that
// then replaces the data, and applies the command stream that follows
// through a client with no connection. It acknowledges its offset every
// second and on REPLCONF GETACK, and reconnects with backoff when the link
// drops, asking to continue where it stopped (PSYNC <replid> <offset+1>):
// a master that still has that in its backlog answers +CONTINUE and sends
// the rest of the stream, any other answer is a new full resync. Keys do
// not expire on their own while replicating: the master's DELs do it
// (reads hide keys whose time has passed, as Redis's replicas do).

// Link states, as ROLE names them.
const (
	replConnect    = "connect"
	replConnecting = "connecting"
	replHandshake  = "handshake"
	replSync       = "sync"
	replConnected  = "connected"
)

// replicaState is the replica side's state; host "" means a master.
type replicaState struct {
	// applyMu is held while a command of the master's stream runs, and by
	// REPLICAOF while it changes gen: no command of a link that REPLICAOF
	// ended runs after REPLICAOF returns.
	applyMu sync.Mutex
	mu      sync.Mutex // host, port, gen, conn
	host    string
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

	// client is the master's client while the link streams (nil
	// otherwise; under the server's mu): as Redis's master client, what it
	// applies counts as the server's writes and calls, and CLIENT LIST and
	// CLIENT KILL show and reach it.
	client *client
}

const (
	errReadOnlyReplica = "READONLY You can't write against a read only replica."
	errMasterDown      = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
)

// isReplica reports whether REPLICAOF (or replicaof) names a master.
func (s *Server) isReplica() bool {
	s.upstream.mu.Lock()
	defer s.upstream.mu.Unlock()
	return s.upstream.host != ""
}

// readOnlyReplica reports whether writes from clients are refused.
func (s *Server) readOnlyReplica() bool {
	return s.replicaFlag.Load() && s.Config().ReplicaReadOnly()
}

func (s *Server) replState() string {
	if p := s.upstream.state.Load(); p != nil {
		return *p
	}
	return replConnect
}

func (s *Server) setReplState(st string) { s.upstream.state.Store(&st) }

// linkState is a link's own change of state, st, applied only while gen is
// still the replication asked for: a link that REPLICAOF ended cannot mark
// the next one up, or down, in the moment before it notices. The link is up
// in replConnected only; leaving it notes when it went down.
func (s *Server) linkState(gen uint64, st string) {
	r := &s.upstream
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gen != gen {
		return
	}
	s.setReplState(st)
	if up := st == replConnected; r.linkUp.Swap(up) && !up {
		r.downSince.Store(time.Now().Unix())
	}
}

// startReplicaFromConfig follows replicaof at start-up.
func (s *Server) startReplicaFromConfig() {
	if cfg := s.Config(); cfg.ReplicaOfHost != "" {
		s.replicaOf(cfg.ReplicaOfHost, cfg.ReplicaOfPort, false)
	}
}

// replicaOf makes the server a replica of host:port ("" host: a master
// again, keeping its data). It reports false when it already replicates
// that master.
func (s *Server) replicaOf(host string, port int, inExec bool) bool {
	r := &s.upstream
	if !inExec { // EXEC may hold shards a command of the stream waits for, holding applyMu
		r.applyMu.Lock()
		defer r.applyMu.Unlock()
	}
	var clients []*client
	if host != "" {
		clients = s.clientList() // (before r.mu: s.mu is not taken under it)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if host != "" && r.host == host && r.port == port {
		return false
	}
	// As Redis: a blocked command would be served by the master's stream
	// (a BLPOP popping what the master keeps) or wait for writes that
	// can no longer come from clients. It ends with an error first.
	for _, c := range clients {
		c.unblock(unblockRole)
	}
	r.gen++
	if r.conn != nil {
		r.conn.Close()
		r.conn = nil
	}
	wasReplica := r.host != ""
	r.host, r.port = host, port
	r.linkUp.Store(false)
	s.setReplState(replConnect)
	if host == "" {
		s.replicaFlag.Store(false)
		keyspace.StopExpiry(false)
		// A master keeps to maxmemory.
		s.applyMemoryConfig(s.Config())
		if wasReplica { // a new history starts here, as Redis's shiftReplicationId
			old := *s.replID.Load()
			r.replid2.Store(&old)
			r.secondOff.Store(r.offset.Load() + 1)
			id := randomHex(40)
			s.replID.Store(&id)
			s.logf("notice", "MASTER MODE enabled (user request from replicaof no one)")
		}
		return true
	}
	s.replicaFlag.Store(true)
	keyspace.StopExpiry(true)
	// With replica-ignore-maxmemory yes, it no longer evicts.
	s.applyMemoryConfig(s.Config())
	r.downSince.Store(0) // master_link_down_since_seconds is -1 until a link drops
	s.logf("notice", "Connecting to MASTER %s:%d", host, port)
	go s.replicaLink(r.gen, host, port)
	return true
}

// current reports whether gen is still the replication asked for.
func (s *Server) replCurrent(gen uint64) bool {
	s.upstream.mu.Lock()
	defer s.upstream.mu.Unlock()
	return s.upstream.gen == gen
}

// replicaLink connects, syncs and streams until REPLICAOF changes or the
// server shuts down, reconnecting with backoff (100 ms doubling to 5 s).
func (s *Server) replicaLink(gen uint64, host string, port int) {
	backoff := 100 * time.Millisecond
	var resume psyncPoint
	for s.replCurrent(gen) {
		start := time.Now()
		err := s.replicaSession(gen, host, port, &resume)
		if !s.replCurrent(gen) {
			return
		}
		select {
		case <-s.closed:
			return
		default:
		}
		s.linkState(gen, replConnect)
		s.logf("warning", "Replication from MASTER %s:%d: %v; reconnecting", host, port, err)
		if time.Since(start) > 10*time.Second {
			backoff = 100 * time.Millisecond
		}
		select {
		case <-time.After(backoff):
		case <-s.closed:
			return
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// psyncPoint is where a link that dropped stopped, for the next one to
// continue from: the master's replid and the offset applied (given by the
// replica state) once ok, and the database its stream had selected, as
// Redis's cached master keeps it.
type psyncPoint struct {
	ok bool
	db int
}

// replLink is one connection to the master.
type replLink struct {
	s       *Server
	conn    net.Conn
	br      *bufio.Reader // over linkReader
	wmu     sync.Mutex
	timeout time.Duration // the read deadline until the stream starts (then the acker's watch)
	syncing bool          // count the bytes read as the RDB's (INFO master_sync_read_bytes)
}

// linkReader reads the connection with repl-timeout as the deadline
// before the stream starts, noting the time of the last byte.
type linkReader struct{ l *replLink }

func (r *linkReader) Read(b []byte) (int, error) {
	l := r.l
	if l.timeout > 0 {
		l.conn.SetReadDeadline(time.Now().Add(l.timeout))
	}
	n, err := l.conn.Read(b)
	if n > 0 {
		l.s.repl.Stats.Received.Add(int64(n))
		l.s.upstream.lastIO.Store(time.Now().UnixMilli())
		if l.syncing {
			l.s.upstream.syncRead.Add(int64(n))
		}
	}
	return n, err
}

func (l *replLink) send(args ...string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := l.conn.Write(b.Bytes())
	return err
}

// line reads one reply line (CRLF stripped), skipping the bare newlines a
// master sends as keepalives while it prepares the RDB.
func (l *replLink) line() (string, error) {
	for {
		s, err := l.br.ReadString('\n')
		if err != nil {
			return "", err
		}
		l.s.upstream.lastIO.Store(time.Now().UnixMilli())
		s = strings.TrimRight(s, "\r\n")
		if s != "" {
			return s, nil
		}
	}
}

// command sends a handshake command and returns its reply line.
func (l *replLink) command(args ...string) (string, error) {
	if err := l.send(args...); err != nil {
		return "", err
	}
	return l.line()
}

// replicaSession is one connection: handshake, full sync, stream.
func (s *Server) replicaSession(gen uint64, host string, port int, resume *psyncPoint) error {
	r := &s.upstream
	s.linkState(gen, replConnecting)
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), 10*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	r.mu.Lock()
	if r.gen != gen {
		r.mu.Unlock()
		return errors.New("replication changed")
	}
	r.conn = conn
	r.mu.Unlock()
	done := make(chan struct{})
	defer close(done)
	go func() { // a shutdown ends the link
		select {
		case <-s.closed:
			conn.Close()
		case <-done:
		}
	}()
	timeout := s.Config().ReplTimeout()
	l := &replLink{s: s, conn: conn, timeout: timeout}
	l.br = bufio.NewReaderSize(&linkReader{l}, 1<<16)

	s.linkState(gen, replHandshake)
	if reply, err := l.command("PING"); err != nil {
		return err
	} else if reply[0] == '-' && !strings.HasPrefix(reply, "-NOAUTH") && !strings.HasPrefix(reply, "-NOPERM") && !strings.HasPrefix(reply, "-ERR operation not permitted") {
		return fmt.Errorf("error reply to PING from master: '%s'", reply)
	}
	if user, pass := s.Config().MasterAuth(); pass != "" {
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
	if reply, err := l.command("REPLCONF", "listening-port", strconv.Itoa(s.port())); err != nil {
		return err
	} else if reply[0] == '-' {
		s.logf("notice", "(Non critical) Master does not understand REPLCONF listening-port: %s", reply)
	}
	if reply, err := l.command("REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	} else if reply[0] == '-' {
		s.logf("notice", "(Non critical) Master does not understand REPLCONF capa: %s", reply)
	}
	psyncID, psyncOff := "?", "-1"
	if resume.ok {
		psyncID, psyncOff = *s.replID.Load(), strconv.FormatInt(r.offset.Load()+1, 10)
	}
	reply, err := l.command("PSYNC", psyncID, psyncOff)
	if err != nil {
		return err
	}
	if f := strings.Fields(reply); resume.ok && len(f) >= 1 && f[0] == "+CONTINUE" {
		return s.continueSync(gen, l, f[1:], resume)
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
	s.logf("notice", "Full resync from master: %s:%d", replid, startOff)

	// The RDB. Read from br itself (diskless) or a limit of it, ReadFile
	// reads nothing past its end: the stream follows.
	s.linkState(gen, replSync)
	head, err := l.line()
	if err != nil {
		return err
	}
	if len(head) < 2 || head[0] != '$' {
		return fmt.Errorf("bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you sure the host and port are right?", head)
	}
	r.syncRead.Store(int64(l.br.Buffered()))
	l.syncing = true
	var src *bufio.Reader
	var mark []byte
	if m, ok := strings.CutPrefix(head, "$EOF:"); ok {
		if len(m) != 40 {
			return fmt.Errorf("bad EOF mark '%s'", m)
		}
		mark = []byte(m)
		r.syncTotal.Store(-1)
		src = l.br
		s.logf("notice", "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to parser")
	} else {
		n, err := strconv.ParseInt(head[1:], 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("bad RDB length '%s'", head)
		}
		r.syncTotal.Store(n)
		src = bufio.NewReaderSize(io.LimitReader(l.br, n), 1<<16)
		s.logf("notice", "MASTER <-> REPLICA sync: receiving %d bytes from master to parser", n)
	}
	start := time.Now()
	staging, stagingReg := keyspace.New(len(s.ks.DBs)), newRegistries()
	res, err := s.loadRDB(src, staging, time.Now().UnixMilli(), rdbLoad{keepExpired: true, reg: &stagingReg})
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
	r.applyMu.Lock()
	if !s.replCurrent(gen) {
		r.applyMu.Unlock()
		return errors.New("replication changed")
	}
	if err := s.scripts.RestoreFunctions(res.funcs, script.RestoreFlush); err != nil {
		r.applyMu.Unlock()
		return fmt.Errorf("loading the master's function libraries: %v", err)
	}
	// The master's client has the link's connection as its own, for what
	// shows a client's address (SLOWLOG, MONITOR); nothing writes to it.
	mc := newMasterClient(s, conn)
	release := s.holdAll(mc)
	s.replaceData(mc, staging, 0, true)
	// The master's named indexes and AI layer (from its hotkv-snapshot
	// AUX field; none from a Redis master) replace the replica's too.
	s.reg.replace(&stagingReg)
	s.repl.NewHistory()
	release()
	mc.out.B = mc.out.B[:0]
	if s.aof.Load() != nil { // the log's history is the old data's: start it anew
		go func() {
			for s.aof.Rewrite() == errSaveInProgress {
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	s.replID.Store(&replid)
	r.offset.Store(startOff)
	r.readOffset.Store(startOff)
	r.applyMu.Unlock()
	s.logf("notice", "MASTER <-> REPLICA sync: Finished with success: %d keys, %d bytes in %.3f seconds", res.Keys, res.Bytes, time.Since(start).Seconds())
	resume.ok, resume.db = true, 0
	return l.streamFrom(gen, mc, resume, timeout)
}

// continueSync is a session the master continues (+CONTINUE [replid]): no
// file, the stream from the offset asked for, applied by a master client
// in the database the last link left selected.
func (s *Server) continueSync(gen uint64, l *replLink, newID []string, resume *psyncPoint) error {
	r := &s.upstream
	r.applyMu.Lock()
	if !s.replCurrent(gen) {
		r.applyMu.Unlock()
		return errors.New("replication changed")
	}
	if len(newID) == 1 && newID[0] != *s.replID.Load() { // the master's history got a new ID (it was promoted)
		old := *s.replID.Load()
		r.replid2.Store(&old)
		r.secondOff.Store(r.offset.Load() + 1)
		id := newID[0]
		s.replID.Store(&id)
	}
	r.readOffset.Store(r.offset.Load()) // a transaction the last link cut off comes again
	r.applyMu.Unlock()
	s.logf("notice", "Successful partial resynchronization with master.")
	mc := newMasterClient(s, l.conn)
	mc.selectDB(resume.db)
	return l.streamFrom(gen, mc, resume, l.timeout)
}

// newMasterClient is the client that applies the master's stream.
func newMasterClient(s *Server, conn net.Conn) *client {
	mc := newClient(s, conn)
	mc.ctx.Blocker = nil
	mc.master = true
	mc.ctx.Master = true
	return mc
}

// streamFrom marks the link up and applies the master's stream with mc,
// acknowledging the offset at once (a master that sent the file diskless
// starts the stream at the first ACK, which Redis's replicas send at once)
// and every second.
func (l *replLink) streamFrom(gen uint64, mc *client, resume *psyncPoint, timeout time.Duration) error {
	r := &l.s.upstream
	l.s.mu.Lock()
	r.client = mc
	l.s.mu.Unlock()
	defer l.s.masterGone(mc)
	l.s.linkState(gen, replConnected)
	r.lastIO.Store(time.Now().UnixMilli())
	l.timeout = 0
	l.conn.SetReadDeadline(time.Time{})
	if err := l.send("REPLCONF", "ACK", strconv.FormatInt(r.offset.Load(), 10)); err != nil {
		return err
	}
	stop := make(chan struct{})
	defer close(stop)
	go l.acker(stop, timeout)
	err := l.stream(gen, mc)
	resume.db = mc.ctx.DBID
	return err
}

// acker sends REPLCONF ACK every second and drops a link silent for
// repl-timeout.
func (l *replLink) acker(stop chan struct{}, timeout time.Duration) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if time.Since(time.UnixMilli(l.s.upstream.lastIO.Load())) > timeout {
			l.s.logf("warning", "MASTER timeout: no data nor PING received...")
			l.conn.Close()
			return
		}
		if l.send("REPLCONF", "ACK", strconv.FormatInt(l.s.upstream.offset.Load(), 10)) != nil {
			return
		}
	}
}

// stream applies the master's commands until the link fails. The offset
// applied (acknowledged, and continued from after a drop) does not move
// inside a transaction, as Redis's master client's reploff: a link that
// drops before its EXEC gets all of it again.
func (l *replLink) stream(gen uint64, mc *client) error {
	r := &l.s.upstream
	var pending int64 // read inside a transaction not yet applied
	for {
		args, n, err := readCommand(l.br)
		if err != nil {
			return err
		}
		r.lastIO.Store(time.Now().UnixMilli())
		r.readOffset.Add(n)
		if len(args) == 0 {
			r.offset.Add(n)
			continue
		}
		if len(args) >= 2 && cmdtable.Is(args[0], "replconf") && cmdtable.Is(args[1], "getack") {
			if err := l.send("REPLCONF", "ACK", strconv.FormatInt(r.offset.Load(), 10)); err != nil {
				return err
			}
			r.offset.Add(n)
			continue
		}
		r.applyMu.Lock()
		if !l.s.replCurrent(gen) {
			r.applyMu.Unlock()
			return errors.New("replication changed")
		}
		mc.applyFromMaster(args)
		if pending += n; mc.multi == nil {
			r.offset.Add(pending)
			pending = 0
		}
		r.applyMu.Unlock()
		if l.br.Buffered() == 0 { // the end of what came, as a client's batch: publish its counts
			mc.flushStats()
		}
	}
}

// masterGone moves the counts of the master's client of a link that ended
// into the server's, as for a client that closes.
func (s *Server) masterGone(mc *client) {
	mc.flushStats()
	s.mu.Lock()
	s.upstream.client = nil
	s.stats.dirty += mc.dirty.Load()
	s.stats.addClosed(mc)
	s.mu.Unlock()
}

// liveClients yields the connected clients and the master's client of a
// replica's link: those whose counts are the server's (s.mu held).
func (s *Server) liveClients() iter.Seq[*client] {
	return func(yield func(*client) bool) {
		for _, c := range s.clients {
			if !yield(c) {
				return
			}
		}
		if mc := s.upstream.client; mc != nil {
			yield(mc)
		}
	}
}

// maxReplArg bounds one argument of the master's stream (Redis's
// proto-max-bulk-len default is 512 MB; a master may be configured higher).
const maxReplArg = 1 << 32

// readCommand reads one RESP command (a multibulk array of bulk strings,
// or an inline line) and its size in bytes.
func readCommand(br *bufio.Reader) (args [][]byte, n int64, err error) {
	head, err := br.ReadSlice('\n')
	if err != nil {
		return nil, 0, err
	}
	n = int64(len(head))
	line := bytes.TrimRight(head, "\r\n")
	if len(line) == 0 {
		return nil, n, nil
	}
	if line[0] != '*' {
		for _, f := range bytes.Fields(line) {
			args = append(args, append([]byte(nil), f...))
		}
		return args, n, nil
	}
	count, err := strconv.ParseInt(string(line[1:]), 10, 64)
	if err != nil || count > 1<<20 {
		return nil, n, fmt.Errorf("bad multibulk length %q from master", line)
	}
	args = make([][]byte, 0, count)
	for range count {
		h, err := br.ReadSlice('\n')
		if err != nil {
			return nil, n, err
		}
		n += int64(len(h))
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 || h[0] != '$' {
			return nil, n, fmt.Errorf("expected '$' from master, got %q", h)
		}
		size, err := strconv.ParseInt(string(h[1:]), 10, 64)
		if err != nil || size < 0 || size > maxReplArg {
			return nil, n, fmt.Errorf("bad bulk length %q from master", h)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, n, err
		}
		n += size + 2
		args = append(args, b[:size:size])
	}
	return args, n, nil
}

// applyFromMaster runs one command of the master's stream as Redis runs
// its master client's: no ACL, read-only or pause checks, replies dropped;
// MULTI ... EXEC applies as one transaction. It is never refused for
// memory: with replica-ignore-maxmemory no it evicts first, as a client's
// write does, and applies whatever that found (Redis would answer OOM,
// leaving the replica without the write).
func (c *client) applyFromMaster(args [][]byte) {
	cmd := c.s.lookup(args[0])
	if cmd != nil && cmd.Subs != nil && len(args) > 1 {
		cmd = cmd.Sub(args[1])
	}
	if cmd == nil || cmd.Run == nil {
		name := string(cstr(args[0], 128))
		c.s.propagationError(true, name, []byte("ERR unknown command '"+name+"'"))
		return
	}
	if !cmd.CheckArity(len(args)) {
		c.s.propagationError(true, cmd.Name, []byte(cmdtable.WrongArgsAs(cmd.Name)))
		return
	}
	c.ctx.Now = time.Now().UnixMilli()
	keys := cmd.KeyPositions(args, c.keys[:0])
	c.keys = keys
	if c.multi != nil && !txControl[cmd.Name] {
		c.multi.queue(cmd, args, keys, cmd.Flags)
		return
	}
	if c.s.ev.over.Load() && c.deniedOnOOM(cmd, args) {
		c.s.makeRoom()
	}
	c.call(cmd, args, keys) // each command's error goes to propagationError (runLocked)
	c.out.B = c.out.B[:0]
}

// propagationError handles an error reply to a command of the master's
// stream (fromMaster) or of the append-only log being loaded, as Redis's
// afterErrorReply: logged as critical, counted in INFO's
// unexpected_error_replies, and fatal as propagation-error-behavior says
// (propagationPanics). reply is the error, its leading '-' and all.
func (s *Server) propagationError(fromMaster bool, cmd string, reply []byte) {
	from, to := "server", "AOF-loading-client"
	if fromMaster {
		from, to = "replica", "master"
	}
	msg, _, _ := bytes.Cut(bytes.TrimPrefix(reply, []byte("-")), []byte("\r\n"))
	s.logf("warning", "== CRITICAL == This %s is sending an error to its %s: '%s' after processing the command '%s'", from, to, cstr(msg, 4096), cmd)
	s.stats.unexpectedErrors.Add(1)
	cfg := s.Config()
	if propagationPanics(cfg.RedisValue("propagation-error-behavior"), fromMaster, cfg.ReplicaReadOnly()) {
		s.logf("warning", "This %s panicked sending an error to its %s after processing the command '%s' (propagation-error-behavior %s): exiting", from, to, cmd, cfg.RedisValue("propagation-error-behavior"))
		exitProcess(1)
	}
}

// exitProcess ends the process (a variable for the tests).
var exitProcess = os.Exit

// propagationPanics is Redis 8.0.2's decision: with behavior panic or
// panic-on-replicas, an error applying the master's stream stops a
// read-only replica (a writable one, replica-read-only no, may have
// diverged on purpose: it only logs); with panic, an error replaying the
// append-only log stops the server too.
func propagationPanics(behavior string, fromMaster, readOnly bool) bool {
	if fromMaster {
		return readOnly && (behavior == "panic" || behavior == "panic-on-replicas")
	}
	return behavior == "panic"
}

// replicaofCmd is REPLICAOF (SLAVEOF) host port | NO ONE.
func replicaofCmd(x *cmdtable.Ctx) {
	c := cl(x)
	s := c.s
	if cmdtable.Is(x.Args[1], "no") && cmdtable.Is(x.Args[2], "one") {
		s.replicaOf("", 0, c.inExec)
		s.setReplicaOfConfig("", 0)
		x.W.OK()
		return
	}
	port, ok := cmdtable.ParseInt(x.Args[2])
	if !ok || port < 0 || port > 65535 {
		x.Error("ERR Invalid master port")
		return
	}
	host := string(x.Args[1])
	if !s.replicaOf(host, int(port), c.inExec) {
		s.logf("notice", "REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.")
		x.W.Simple("OK Already connected to specified master")
		return
	}
	s.setReplicaOfConfig(host, int(port))
	x.W.OK()
}

// setReplicaOfConfig keeps replicaof (CONFIG GET, CONFIG REWRITE) in step
// with REPLICAOF.
func (s *Server) setReplicaOfConfig(host string, port int) {
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	next := s.Config().Clone()
	next.ReplicaOfHost, next.ReplicaOfPort = host, port
	s.cfg.Store(next)
}

// master is the master this server replicates, "" for none.
func (r *replicaState) master() (host string, port int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.host, r.port
}

// infoReplica writes INFO replication for a replica and reports true, or
// false for a master (whose fields info.go writes).
func (s *Server) infoReplica(b *strings.Builder) bool {
	r := &s.upstream
	host, port := r.master()
	if host == "" {
		return false
	}
	now := time.Now()
	kv(b, "role", "slave")
	kv(b, "master_host", host)
	kv(b, "master_port", port)
	up := r.linkUp.Load()
	kv(b, "master_link_status", map[bool]string{true: "up", false: "down"}[up])
	lastIO := int64(-1)
	if up {
		lastIO = int64(now.Sub(time.UnixMilli(r.lastIO.Load())).Seconds())
	}
	kv(b, "master_last_io_seconds_ago", lastIO)
	syncing := s.replState() == replSync
	kv(b, "master_sync_in_progress", map[bool]int{true: 1, false: 0}[syncing])
	kv(b, "slave_read_repl_offset", r.readOffset.Load())
	kv(b, "slave_repl_offset", r.offset.Load())
	kv(b, "replica_full_sync_buffer_size", 0) // no rdb-channel replication: nothing is buffered while the RDB loads
	kv(b, "replica_full_sync_buffer_peak", 0)
	if syncing {
		total, read := r.syncTotal.Load(), r.syncRead.Load()
		kv(b, "master_sync_total_bytes", total)
		kv(b, "master_sync_read_bytes", read)
		left, perc := int64(-1), "0.00"
		if total > 0 {
			left = total - read
			perc = fmt.Sprintf("%.2f", 100*float64(read)/float64(total))
		}
		kv(b, "master_sync_left_bytes", left)
		kv(b, "master_sync_perc", perc)
		kv(b, "master_sync_last_io_seconds_ago", int64(now.Sub(time.UnixMilli(r.lastIO.Load())).Seconds()))
	}
	if !up {
		since := int64(-1)
		if d := r.downSince.Load(); d != 0 {
			since = now.Unix() - d
		}
		kv(b, "master_link_down_since_seconds", since)
	}
	cfg := s.Config()
	kv(b, "slave_priority", cfg.RedisValue("replica-priority"))
	kv(b, "slave_read_only", map[bool]int{true: 1, false: 0}[cfg.ReplicaReadOnly()])
	kv(b, "replica_announced", map[bool]int{true: 1, false: 0}[cfg.RedisValue("replica-announced") == "yes"])
	kv(b, "connected_slaves", 0)
	kv(b, "master_failover_state", "no-failover")
	kv(b, "master_replid", *s.replID.Load())
	kv(b, "master_replid2", strings.Repeat("0", 40))
	kv(b, "master_repl_offset", r.offset.Load())
	kv(b, "second_repl_offset", -1)
	kv(b, "repl_backlog_active", 0)
	kv(b, "repl_backlog_size", cfg.RedisValue("repl-backlog-size"))
	kv(b, "repl_backlog_first_byte_offset", 0)
	kv(b, "repl_backlog_histlen", 0)
	return true
}

// roleReplica writes ROLE's reply for a replica and reports true, or false
// for a master.
func (s *Server) roleReplica(x *cmdtable.Ctx) bool {
	r := &s.upstream
	host, port := r.master()
	if host == "" {
		return false
	}
	x.W.Array(5)
	x.W.BulkString("slave")
	x.W.BulkString(host)
	x.W.Int(int64(port))
	x.W.BulkString(s.replState())
	off := r.offset.Load()
	if s.replState() != replConnected {
		off = -1
	}
	x.W.Int(off)
	return true
}

func init() {
	const g = "server"
	f := cmdtable.Admin | cmdtable.NoScript | cmdtable.Stale | cmdtable.NoAsyncLoading
	cmdtable.Register(
		&cmdtable.Cmd{Name: "replicaof", Arity: 3, Flags: f, Run: replicaofCmd, Group: g, Since: "5.0.0", ACL: []string{"admin", "slow", "dangerous"},
			Summary: "Configures a server as replica of another, or promotes it to a master.", Args: "<host port | NO ONE>"},
		&cmdtable.Cmd{Name: "slaveof", Arity: 3, Flags: f, Run: replicaofCmd, Group: g, Since: "1.0.0", ACL: []string{"admin", "slow", "dangerous"},
			Summary: "Sets a Redis server as a replica of another, or promotes it to being a master.", Args: "<host port | NO ONE>"},
	)
}

// replid2 is INFO's master_replid2 and second_repl_offset: the history a
// former replica's data continues (REPLICAOF NO ONE), or none.
func (s *Server) replid2() (string, int64) {
	if p := s.upstream.replid2.Load(); p != nil {
		return *p, s.upstream.secondOff.Load()
	}
	return strings.Repeat("0", 40), -1
}
