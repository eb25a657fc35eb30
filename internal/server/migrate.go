package server

import (
	"bufio"
	"errors"
	"math"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/resp"
)

// MIGRATE moves keys to another server as Redis's migrateCommand does: it
// DUMPs them, sends AUTH, SELECT (when the connection has another database
// selected) and a RESTORE per key in one write, on a connection kept for
// the next MIGRATE to the same host:port, reads the replies and deletes the
// keys the target restored, unless COPY.
//
// Atomicity. Redis's one thread is blocked for the transfer, so no client
// sees a key in both servers or in neither. Here the dispatcher has locked
// the keys' shards, and MIGRATE keeps them through the transfer (each step
// bounded by the timeout, as in Redis): no client can read, write or expire
// a key between its DUMP and its deletion, while every other shard keeps
// serving. What needs one of those shards (or a whole database: KEYS, SCAN,
// FLUSHDB, the snapshot instant) waits for the transfer, as everything
// waits for Redis's. The script gate a multi-shard lock holds is released
// before the network: MIGRATE then holds every lock it needs and waits for
// none, so it cannot close a cycle of waits, and a script queued for the
// gate does not hold up every other multi-key command for a transfer.

const (
	migrateCacheMax = 64               // MIGRATE_SOCKET_CACHE_ITEMS
	migrateCacheTTL = 10 * time.Second // MIGRATE_SOCKET_CACHE_TTL
	migrateChunk    = 64 << 10         // Redis writes the request 64 KB at a time
	migrateLineMax  = 1023             // Redis reads a reply line into 1 KB with its NUL
)

const (
	errMigrateConnect = "IOERR error or timeout connecting to the client"
	errMigrateWrite   = "IOERR error or timeout writing to target instance"
	errMigrateRead    = "IOERR error or timeout reading to target instance" // sic
	errMigrateTarget  = "ERR Target instance replied with error: "
)

// migrateOpts are MIGRATE's arguments.
type migrateOpts struct {
	copy, replace bool
	user, pass    []byte // AUTH sets pass, AUTH2 both
	db            int64
	timeout       time.Duration
	keys          [][]byte
}

// parseMigrate reads MIGRATE's arguments in Redis's order: the options,
// then the timeout and the database (not range-checked: the target's
// SELECT answers for it).
func parseMigrate(x *cmdtable.Ctx) (o migrateOpts, ok bool) {
	args := x.Args
	o.keys = args[3:4]
opts:
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch a := args[j]; {
		case cmdtable.Is(a, "copy"):
			o.copy = true
		case cmdtable.Is(a, "replace"):
			o.replace = true
		case cmdtable.Is(a, "auth") && more >= 1:
			j++
			o.pass = args[j] // an AUTH2 username before stays, as in Redis
		case cmdtable.Is(a, "auth2") && more >= 2:
			o.user, o.pass = args[j+1], args[j+2]
			j += 2
		case cmdtable.Is(a, "keys"):
			if len(args[3]) != 0 {
				x.Error("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string")
				return o, false
			}
			o.keys = args[j+1:]
			break opts
		default:
			x.Error(cmdtable.ErrSyntax)
			return o, false
		}
	}
	timeout, okTimeout := cmdtable.ParseInt(args[5])
	db, okDB := cmdtable.ParseInt(args[4])
	if !okTimeout || !okDB {
		x.Error(cmdtable.ErrNotInt)
		return o, false
	}
	if timeout <= 0 {
		timeout = 1000
	}
	o.timeout = time.Duration(min(timeout, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
	o.db = db
	return o, true
}

// migrateKeys finds MIGRATE's keys as Redis's migrateGetKeys: the key
// argument, or every argument after KEYS (none when the key argument is
// not empty, which the command refuses), skipping AUTH's and AUTH2's values.
func migrateKeys(args [][]byte, dst []int) []int {
	first, last := 3, 3
scan:
	for i := 6; i < len(args); i++ {
		switch a := args[i]; {
		case cmdtable.Is(a, "keys"):
			if len(args[3]) != 0 {
				return dst
			}
			first, last = i+1, len(args)-1
			break scan
		case cmdtable.Is(a, "auth"):
			i++
		case cmdtable.Is(a, "auth2"):
			i += 2
		}
	}
	for i := first; i <= last; i++ {
		dst = append(dst, i)
	}
	return dst
}

// migrateCredential reports whether args[i] is a value of AUTH or AUTH2,
// as parseMigrate finds them (Redis redacts them as it parses).
func migrateCredential(args [][]byte, i int) bool {
	for j := 6; j < len(args) && j < i; j++ {
		more := len(args) - 1 - j
		switch a := args[j]; {
		case cmdtable.Is(a, "copy"), cmdtable.Is(a, "replace"):
		case cmdtable.Is(a, "auth") && more >= 1:
			j++
			if i == j {
				return true
			}
		case cmdtable.Is(a, "auth2") && more >= 2:
			if i <= j+2 {
				return true
			}
			j += 2
		default: // KEYS, or an option MIGRATE refuses
			return false
		}
	}
	return false
}

func migrateCmd(x *cmdtable.Ctx) {
	// What MIGRATE changes is logged as the DEL of the keys it moved (Redis
	// rewrites it so), never as itself.
	x.Rewrite()
	o, ok := parseMigrate(x)
	if !ok {
		return
	}
	var found [][]byte
	w := resp.Writer{Proto: 2} // their RESTOREs
	for _, k := range o.keys {
		e := x.LookupRead(k)
		if e == nil {
			continue
		}
		p, err := rdb.Dump(e, x.Now)
		switch {
		case errors.Is(err, rdb.ErrExpired):
			continue // every field of the hash has expired: gone for any reader
		case err != nil:
			x.Error(cmdtable.DumpUnsupported(e.Kind.String()))
			return
		}
		var ttl int64 // at least 1 when set: the lookup found the key live
		if e.Expire != 0 {
			ttl = e.Expire - x.Now
		}
		n := 4
		if o.replace {
			n++
		}
		w.Array(n)
		w.BulkString("RESTORE")
		w.Bulk(k)
		w.BulkInt(ttl)
		w.Bulk(p)
		if o.replace {
			w.BulkString("REPLACE")
		}
		found = append(found, k)
	}
	if len(found) == 0 {
		x.W.Simple("NOKEY")
		return
	}
	c := cl(x)
	if !c.tx.inExec { // EXEC and scripts keep the gate they took for all they run
		c.ungate()
	}
	restored, reply := c.s.migrate.transfer(x.Args[1], x.Args[2], &o, w.B, len(found))
	var deleted [][]byte
	for i, k := range found {
		if o.copy || !restored[i] {
			continue
		}
		sh := x.Shard(k)
		sh.Delete(k, x.Now)
		sh.Touch(k)
		x.Notify(notify.Generic, "del", k)
		deleted = append(deleted, append([]byte(nil), k...))
	}
	if len(deleted) > 0 {
		x.Propagate(append([][]byte{[]byte("DEL")}, deleted...)...)
	}
	if reply != "" {
		x.Error(reply)
		return
	}
	x.W.OK()
}

// migrateCache is Redis's migrate_cached_sockets: a connection per
// host:port, closed after migrateCacheTTL unused. A MIGRATE takes its
// connection out while it uses it, so two MIGRATEs never share one (Redis
// runs one at a time); a second MIGRATE to the same target meanwhile dials
// its own, and the one put back last is kept.
type migrateCache struct {
	mu    sync.Mutex
	conns map[string]*migrateConn
}

// migrateConn is a connection to a MIGRATE target.
type migrateConn struct {
	name string // host:port as given
	conn net.Conn
	r    *bufio.Reader
	db   int64 // the database SELECTed on it; -1 unknown (Redis's last_dbid)
	used time.Time
}

// transfer sends cmds (the RESTOREs of n keys) to host:port, AUTH and
// SELECT first as needed, and reads the replies. As in Redis, a failure
// other than a timeout before any RESTORE reply (a cached connection the
// target has closed, typically) is retried once on a new connection. It
// returns which keys the target restored and the error reply ("" for OK).
func (m *migrateCache) transfer(host, port []byte, o *migrateOpts, cmds []byte, n int) ([]bool, string) {
	name := string(host) + ":" + string(port)
	for retry := true; ; retry = false {
		mc, err := m.take(name, host, port, o.timeout)
		if err != nil && !seenLate(err) {
			return make([]bool, n), errMigrateConnect
		}
		sel := false
		if err == nil {
			sel = mc.db != o.db
			err = mc.send(o, sel, cmds)
		}
		if err != nil {
			m.drop(mc)
			if retry && !timedOut(err) {
				continue
			}
			return make([]bool, n), errMigrateWrite
		}
		restored, targetErr, got, err := mc.replies(o, sel, n)
		if err != nil {
			m.drop(mc)
			switch {
			case got == 0 && retry && !timedOut(err):
				continue
			case targetErr != "":
				return restored, targetErr
			}
			return restored, errMigrateRead
		}
		mc.db = o.db
		if targetErr != "" {
			mc.db = -1 // the SELECT may have failed
		}
		m.put(mc)
		return restored, targetErr
	}
}

// send writes AUTH, SELECT (if sel) and cmds as one request, 64 KB at a
// time, each within the timeout.
func (mc *migrateConn) send(o *migrateOpts, sel bool, cmds []byte) error {
	w := resp.Writer{Proto: 2}
	if o.pass != nil {
		if o.user != nil {
			w.Array(3)
			w.BulkString("AUTH")
			w.Bulk(o.user)
		} else {
			w.Array(2)
			w.BulkString("AUTH")
		}
		w.Bulk(o.pass)
	}
	if sel {
		w.Array(2)
		w.BulkString("SELECT")
		w.BulkInt(o.db)
	}
	req := append(w.B, cmds...)
	for len(req) > 0 {
		n := min(len(req), migrateChunk)
		mc.conn.SetWriteDeadline(time.Now().Add(o.timeout))
		if _, err := mc.conn.Write(req[:n]); err != nil {
			return err
		}
		req = req[n:]
	}
	return nil
}

// replies reads the replies to send's request, as Redis does: a key is
// restored when its RESTORE answered anything but an error and AUTH and
// SELECT did not fail; the first error (AUTH's, SELECT's or a RESTORE's) is
// the reply. got counts the RESTORE replies read before a read failed.
func (mc *migrateConn) replies(o *migrateOpts, sel bool, n int) (restored []bool, targetErr string, got int, err error) {
	restored = make([]bool, n)
	var before string // AUTH's or SELECT's error
	for _, sent := range []bool{o.pass != nil, sel} {
		if !sent {
			continue
		}
		line, err := mc.readLine(o.timeout)
		if err != nil {
			return restored, "", 0, err
		}
		if before == "" && isErrorReply(line) {
			before = string(line[1:])
		}
	}
	for ; got < n; got++ {
		line, err := mc.readLine(o.timeout)
		if err != nil {
			return restored, targetErr, got, err
		}
		switch {
		case before == "" && !isErrorReply(line):
			restored[got] = true
		case targetErr == "" && before != "":
			targetErr = errMigrateTarget + before
		case targetErr == "":
			targetErr = errMigrateTarget + string(line[1:])
		}
	}
	return restored, targetErr, got, nil
}

// readLine reads a reply line within the timeout, without its "\r\n". A
// line longer than Redis's buffer is cut there, as Redis cuts it.
func (mc *migrateConn) readLine(timeout time.Duration) ([]byte, error) {
	mc.conn.SetReadDeadline(time.Now().Add(timeout))
	line, err := mc.r.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return line, nil
	case err != nil:
		return nil, err
	}
	line = line[:len(line)-1]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, nil
}

// take returns the cached connection to name, taking it out of the cache,
// or a new one.
func (m *migrateCache) take(name string, host, port []byte, timeout time.Duration) (*migrateConn, error) {
	m.mu.Lock()
	mc := m.conns[name]
	delete(m.conns, name)
	m.mu.Unlock()
	if mc != nil {
		return mc, nil
	}
	conn, err := migrateDial(host, port, timeout)
	if err != nil {
		return nil, err
	}
	return &migrateConn{name: name, conn: conn, r: bufio.NewReaderSize(conn, migrateLineMax), db: -1}, nil
}

// put caches mc for the next MIGRATE to its target, closing the one cached
// there already, or a random one (as Redis picks) when the cache is full.
// size is how many connections are cached (INFO migrate_cached_sockets).
func (m *migrateCache) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.conns)
}

func (m *migrateCache) put(mc *migrateConn) {
	mc.used = time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.conns[mc.name]; old != nil {
		old.conn.Close()
	} else if len(m.conns) >= migrateCacheMax {
		for name, o := range m.conns {
			o.conn.Close()
			delete(m.conns, name)
			break
		}
	}
	if m.conns == nil {
		m.conns = make(map[string]*migrateConn)
	}
	m.conns[mc.name] = mc
}

// drop closes mc (nil when it could not connect) for good.
func (m *migrateCache) drop(mc *migrateConn) {
	if mc != nil {
		mc.conn.Close()
	}
}

// closeIdle closes the connections unused for longer than ttl: the server
// cron calls it once a second with migrateCacheTTL, as Redis's does, and
// shutdown with -1 for all of them.
func (m *migrateCache) closeIdle(ttl time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, mc := range m.conns {
		if time.Since(mc.used) > ttl {
			mc.conn.Close()
			delete(m.conns, name)
		}
	}
}

// migrateDial connects as Redis's connBlockingConnect: to host, at the port
// atoi reads in the argument, cut to 16 bits as getaddrinfo cuts it; no
// host, or a negative port, fails as getaddrinfo does.
func migrateDial(host, port []byte, timeout time.Duration) (net.Conn, error) {
	p := atoi(port)
	if len(host) == 0 || p < 0 {
		return nil, errNoAddress
	}
	d := net.Dialer{Timeout: timeout}
	return d.Dial("tcp", net.JoinHostPort(string(host), strconv.Itoa(p&0xffff)))
}

var errNoAddress = errors.New("no address to connect to")

// seenLate reports whether a failed connection is one Redis's non-blocking
// connect takes for established (refused, host unreachable, timed out):
// Redis finds out when it writes, so it retries once and answers that it
// could not write. A name that does not resolve fails at once.
func seenLate(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || timedOut(err)
}

func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func init() {
	cmdtable.Register(&cmdtable.Cmd{Name: "migrate", Arity: -6, Flags: cmdtable.Write | cmdtable.SelfTouch, Effects: cmdtable.Recorded, First: 3, Last: 3, Step: 1,
		Keys: migrateKeys, Run: migrateCmd, Group: "generic", Since: "2.6.0", ACL: []string{"dangerous"},
		Summary: "Atomically transfers a key from one Redis instance to another.",
		Args:    `host port <key | ""> destination-db timeout [COPY] [REPLACE] [AUTH password | AUTH2 username password] [KEYS key [key ...]]`})
}
