package server

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"net"
	"os"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/repl"
	"github.com/hotkv/hotkv/internal/script"
)

// The server's side of the replica side of replication (internal/repl's
// Upstream): REPLICAOF, what the link needs of the server (loading a full
// sync's RDB into a fresh keyspace and swapping it in, the master's client
// that applies the stream through the command table), and the handling of
// an error the master's stream or the append-only log meets.

// replicaState is the replica side's state: the link (internal/repl) and,
// while it streams, the master's client (under s.clients.mu): as
// Redis's master client, what it applies counts as the server's writes and
// calls, and CLIENT LIST and CLIENT KILL show and reach it.
type replicaState struct {
	repl.Upstream
	client *client
}

const (
	errReadOnlyReplica = "READONLY You can't write against a read only replica."
	errMasterDown      = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
)

// isReplica reports whether REPLICAOF (or replicaof) names a master.
func (s *Server) isReplica() bool {
	host, _ := s.upstream.Master()
	return host != ""
}

// readOnlyReplica reports whether writes from clients are refused.
func (s *Server) readOnlyReplica() bool {
	return s.replicaFlag.Load() && s.Config().ReplicaReadOnly()
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
	if !inExec { // EXEC may hold shards a command of the stream waits for, holding the stream paused
		defer s.upstream.Pause()()
	}
	var clients []*client
	if host != "" {
		clients = s.clientList() // (before Follow's lock: s.clients.mu is not taken under it)
	}
	return s.upstream.Follow(host, port, func() {
		// As Redis: a blocked command would be served by the master's
		// stream (a BLPOP popping what the master keeps) or wait for
		// writes that can no longer come from clients. It ends with an
		// error first.
		for _, c := range clients {
			c.unblock(unblockRole)
		}
	})
}

// setReplica is the server's part of becoming a replica (on) or a master.
func (s *Server) setReplica(on bool) {
	s.replicaFlag.Store(on)
	keyspace.StopExpiry(on)
	// A master keeps to maxmemory; with replica-ignore-maxmemory yes, a
	// replica no longer evicts.
	s.applyMemoryConfig(s.Config())
}

// stagedData is a full sync's data (repl.Staged): a fresh keyspace and
// registries the master's RDB file filled.
type stagedData struct {
	s   *Server
	ks  *keyspace.Keyspace
	reg registries
	res rdbResult
}

// loadStaged reads a full sync's RDB file into fresh data.
func (s *Server) loadStaged(src io.Reader) (repl.Staged, error) {
	st := &stagedData{s: s, ks: keyspace.New(len(s.ks.DBs)), reg: newRegistries()}
	res, err := s.loadRDB(src, st.ks, time.Now().UnixMilli(), rdbLoad{keepExpired: true, reg: &st.reg})
	if err != nil {
		return nil, err
	}
	st.res = res
	return st, nil
}

func (st *stagedData) Counts() (int, int64) { return st.res.Keys, st.res.Bytes }

func (st *stagedData) Install(conn net.Conn) (repl.MasterClient, error) {
	s := st.s
	if err := s.scripts.RestoreFunctions(st.res.funcs, script.RestoreFlush); err != nil {
		return nil, fmt.Errorf("loading the master's function libraries: %v", err)
	}
	// The master's client has the link's connection as its own, for what
	// shows a client's address (SLOWLOG, MONITOR); nothing writes to it.
	mc := newMasterClient(s, conn)
	release := s.holdAll(mc)
	s.replaceData(mc, st.ks, 0, true)
	// The master's named indexes and AI layer (from its hotkv-snapshot
	// AUX field; none from a Redis master) replace the replica's too.
	s.reg.replace(&st.reg)
	s.repl.NewHistory()
	release()
	mc.io.out.B = mc.io.out.B[:0]
	if s.aof.Load() != nil { // the log's history is the old data's: start it anew
		go func() {
			for s.aof.Rewrite() == errSaveInProgress {
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	return masterClient{mc}, nil
}

// newMasterClient is the client that applies the master's stream.
func newMasterClient(s *Server, conn net.Conn) *client {
	mc := newClient(s, conn)
	mc.ctx.Blocker = nil
	mc.repl.master = true
	mc.ctx.Master = true
	return mc
}

// masterClient is the master's client as repl.Upstream applies its
// stream with it.
type masterClient struct{ c *client }

func (m masterClient) Listed() {
	m.c.s.clients.mu.Lock()
	m.c.s.upstream.client = m.c
	m.c.s.clients.mu.Unlock()
}

func (m masterClient) Gone() { m.c.s.masterGone(m.c) }

func (m masterClient) Apply(args [][]byte) bool {
	m.c.applyFromMaster(args)
	return m.c.tx.multi != nil
}

func (m masterClient) Flush()       { m.c.flushStats() }
func (m masterClient) DB() int      { return m.c.ctx.DBID }
func (m masterClient) Killed() bool { return m.c.io.killed.Load() }

// masterGone moves the counts of the master's client of a link that ended
// into the server's, as for a client that closes.
func (s *Server) masterGone(mc *client) {
	mc.flushStats()
	s.clients.mu.Lock()
	s.upstream.client = nil
	s.stats.dirty += mc.stats.dirty.Load()
	s.stats.addClosed(mc)
	s.clients.mu.Unlock()
}

// liveClients yields the connected clients and the master's client of a
// replica's link: those whose counts are the server's (s.clients.mu held).
func (s *Server) liveClients() iter.Seq[*client] {
	return func(yield func(*client) bool) {
		for _, c := range s.clients.byID {
			if !yield(c) {
				return
			}
		}
		if mc := s.upstream.client; mc != nil {
			yield(mc)
		}
	}
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
	if c.tx.multi != nil && !txControl[cmd.Name] {
		c.tx.multi.queue(cmd, args, keys, cmd.Flags)
		return
	}
	if c.s.ev.over.Load() && c.deniedOnOOM(cmd, args) {
		c.s.makeRoom()
	}
	c.call(cmd, args, keys) // each command's error goes to propagationError (runLocked)
	c.io.out.B = c.io.out.B[:0]
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
	if s.failingOver() {
		x.Error("ERR REPLICAOF not allowed while failing over.")
		return
	}
	if cmdtable.Is(x.Args[1], "no") && cmdtable.Is(x.Args[2], "one") {
		s.replicaOf("", 0, c.tx.inExec)
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
	if !s.replicaOf(host, int(port), c.tx.inExec) {
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
