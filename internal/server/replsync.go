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
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
)

// SYNC, PSYNC and REPLCONF: a replica's full synchronization (an RDB file
// of one instant, then the stream) or continuation from the backlog.

// replConf is what a connection announced with REPLCONF before PSYNC.
type replConf struct {
	port    int
	ip      string
	capaEOF bool
	rdbOnly bool
	fnOnly  bool // rdb-filter-only: no keys
	noFns   bool // ... and no functions either
}

func replconfCmd(x *cmdtable.Ctx) {
	c := cl(x)
	if len(x.Args)%2 == 0 {
		x.Error(cmdtable.ErrSyntax)
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
			p, ok := cmdtable.ParseInt(v)
			if !ok {
				x.Error("ERR value is not an integer or out of range")
				return
			}
			rc.port = int(p)
		case "ip-address":
			rc.ip = string(v)
		case "capa":
			if cmdtable.Is(v, "eof") {
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
				if off, ok := cmdtable.ParseInt(v); ok {
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
func syncCmd(x *cmdtable.Ctx) {
	c := cl(x)
	if c.replica != nil {
		return // already a replica: Redis ignores it
	}
	if c.inExec || c.multi != nil {
		x.Error("ERR Replica can't interact with the keyspace")
		return
	}
	psync := cmdtable.Is(x.Args[0], "psync")
	if psync && len(x.Args) != 3 {
		x.Error(cmdtable.WrongArgs("psync"))
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
	if psync && !r.rdbOnly {
		if m.tryContinue(r, string(x.Args[1]), x.Args[2]) {
			return
		}
		if !strings.HasPrefix(string(x.Args[1]), "?") { // "?" asks for a full sync on purpose
			m.stats.partialErr.Add(1)
		}
	}
	m.stats.full.Add(1)
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
	want, ok := cmdtable.ParseInt(offArg)
	if !ok || id != m.id() {
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
	m.stats.partialOK.Add(1) // before the writer starts: a replica caught up has been counted
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
			head = fmt.Sprintf("+FULLRESYNC %s %d\r\n", m.id(), offset)
		}
		return rdb.FileInfo{ReplID: m.id(), ReplOffset: offset, ReplStreamDB: 0}, nil
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
		m.sent(c, cw.n+int64(len(eof)))
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
		// Unlinked at once, kept open: a server stopped mid-transfer leaves
		// no file behind (the name is only for the creation).
		os.Remove(f.Name())
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
		m.sent(c, size)
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
// (hotkv-snapshot), reporting whether it was; with reg set, the named
// indexes and the AI layer it holds are loaded into reg, which must be
// empty.
func (s *Server) loadRDBAux(key string, val []byte, ks *keyspace.Keyspace, reg *registries) (bool, error) {
	if key != hotkvAux {
		return false, nil
	}
	_, _, err := s.readSnapshot(bytes.NewReader(val), ks, reg)
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
