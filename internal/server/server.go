package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/acl"
	"github.com/hotkv/hotkv/internal/aof"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/lazyfree"
	"github.com/hotkv/hotkv/internal/pubsub"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/repl"
	"github.com/hotkv/hotkv/internal/script"
	"github.com/hotkv/hotkv/internal/tick"
)

// Version is HotKV's own version; RedisVersion is the Redis release whose
// commands and replies HotKV follows, reported where clients look for it.
const (
	Version      = "0.1.0"
	RedisVersion = "8.0.2"
)

// Server is one running HotKV instance.
type Server struct {
	cfg   atomic.Pointer[config.Config]
	cfgMu sync.Mutex // serializes CONFIG SET
	ks    *keyspace.Keyspace
	reg   registries // the named indexes and the AI layer (registries.go)
	hub   *pubsub.Hub
	// users are the ACL users; defaultUser, the one connections start as,
	// keeps its identity for the server's life (ACL LOAD updates it).
	users       *acl.Users
	defaultUser *acl.User
	acl         aclState
	track       *pubsub.Tracker
	mon         monitors
	stats       serverStats
	log         *log.Logger

	clients   serverClients
	listeners listenerSet  // (listeners.go)
	tls       tlsState     // tls-port's listener and settings (tls.go)
	names     commandNames // the command names rename-command left (rename.go); nil: none renamed
	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
	started   time.Time
	runID     string

	expirer  *keyspace.Expirer      // the active expiry cycle the cron runs
	debug    serverDebug            // DEBUG's switches (debug.go)
	replID   atomic.Pointer[string] // INFO's master_replid, which DEBUG CHANGE-REPL-ID replaces
	pause    pauseState             // CLIENT PAUSE and FAILOVER's hold on writes (pause.go)
	failover failoverState          // FAILOVER (failover.go)
	gate     gate                   // orders scripts against multi-lock sections (gate.go)
	scripts  *script.Engine         // EVAL's script cache and Lua state (scripting.go)
	migrate  migrateCache           // MIGRATE's connections to its targets (migrate.go)

	// regMu orders keyless writes (named indexes, AI layer) against the
	// snapshot instant; see runLocked.
	regMu   sync.RWMutex
	persist saveState
	aof     aof.Switch  // the append-only log, on or off (internal/aof)
	repl    repl.Master // replicas and the replication stream (internal/repl)

	ev   *evictor   // maxmemory (evict.go)
	evMu sync.Mutex // serializes applyMemoryConfig

	upstream    replicaState // the replica side of replication: the link to this server's master (internal/repl's Upstream; replica.go)
	replicaFlag atomic.Bool  // REPLICAOF names a master: writes may be refused (readOnlyReplica)

	shut    shutdownState // SHUTDOWN and the signals (shutdown.go)
	loading atomic.Bool   // the data on disk is being loaded: commands get LOADING (loading.go)
	load    loadState
}

// serverClients is the set of connections.
type serverClients struct {
	// mu guards byID, and the counters closed connections fold into
	// the server's (serverStats.addClosed).
	mu       sync.Mutex
	byID     map[int64]*client
	nextID   atomic.Int64
	blockSeq atomic.Uint64 // arrival order of blocked clients
	blocked  atomic.Int64  // clients waiting in a blocking command
}

// serverDebug holds the switches DEBUG sets.
type serverDebug struct {
	activeExpire   atomic.Bool // DEBUG SET-ACTIVE-EXPIRE
	cronPaused     atomic.Bool // DEBUG PAUSE-CRON
	denyScriptsOff atomic.Bool // DEBUG SET-DISABLE-DENY-SCRIPTS (scripting.go)
}

// New makes a server from cfg; Serve or ListenAndServe starts it.
func New(cfg *config.Config) *Server {
	s := &Server{
		ks:      keyspace.New(cfg.Databases),
		reg:     newRegistries(),
		hub:     pubsub.NewHub(queueRoom, maxIdleOutBuf),
		scripts: script.New(),
		clients: serverClients{byID: make(map[int64]*client)},
		closed:  make(chan struct{}),
		shut:    shutdownState{stopped: make(chan struct{})},
		started: time.Now(),
		runID:   repl.NewID(),
		log:     log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds),
	}
	if cfg.LogFile != "" {
		if f, err := os.OpenFile(cfg.LogFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			s.log.SetOutput(f)
		}
	}
	s.cfg.Store(cfg)
	s.ks.Lazy = lazyfree.New()
	if len(cfg.Renames) > 0 {
		s.names, _ = renamed(cfg.Renames) // checked as the configuration was read
	}
	s.users = acl.NewUsers(catalog())
	s.defaultUser = s.users.Default()
	s.ks.Events.SetPublisher(func(ch, msg []byte) { s.hub.Publish(pubsub.Channel, ch, msg) })
	s.ks.Events.Set(cfg.NotifyKeyspaceEvents)
	s.track = pubsub.NewTracker(s.ks, s.trackedConn)
	s.ks.SetTracker(s.track)
	s.stats.slow.Configure(cfg.SlowlogSlowerThan, cfg.SlowlogMaxLen, cfg.LatencyMonitorMs)
	s.ev = newEvictor()
	s.applyMemoryConfig(cfg)
	s.applyRedisParams(cfg)
	s.debug.activeExpire.Store(true)
	s.repl.Init(replHost{s}, s.ks, replicaForm)
	s.repl.Configure(cfg)
	s.upstream.Init(replHost{s}, &s.repl.Stats)
	s.expirer = keyspace.NewExpirer(s.ks)
	s.stats.sanitizedBase.Store(rdb.Sanitized.Load()) // the counter is the process's
	replID := repl.NewID()
	s.replID.Store(&replID)
	s.persist.lastSave.Store(s.started.Unix())
	s.persist.lastOK.Store(true)
	s.aof.Init(aof.Env{Host: (*aofHost)(s), Config: &s.cfg, Latency: &s.stats.latency, Busy: &s.persist.running, Stopped: s.closed})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.stats.startMem = ms.HeapAlloc + ms.StackInuse
	return s
}

// Config returns the settings in force.
func (s *Server) Config() *config.Config { return s.cfg.Load() }

// Listen opens the configured addresses, then loads the data on disk and
// returns (Bind, then Load): connections made meanwhile wait for Serve.
func (s *Server) Listen() error {
	if err := s.Bind(); err != nil {
		return err
	}
	return s.Load()
}

// Bind checks the data directory and opens the configured addresses, as
// Redis does before it loads anything: a port in use fails at once, and
// clients that connect during a long load are answered (LOADING). The
// server is loading until Load returns.
func (s *Server) Bind() error {
	cfg := s.Config()
	if err := s.loadUsers(cfg); err != nil {
		return err
	}
	if err := checkDir(cfg); err != nil {
		return err
	}
	s.loading.Store(true)
	ls, err := s.listenTCP(cfg.Bind, cfg.Port)
	if err != nil {
		return err
	}
	s.listeners.add(kindTCP, ls...)
	if cfg.TLS().Port != 0 {
		if err := s.listenTLS(cfg); err != nil {
			s.closeListeners()
			return err
		}
	}
	if cfg.UnixSocket != "" {
		if err := s.listenUnix(cfg.UnixSocket, os.FileMode(cfg.UnixSocketPerm)); err != nil {
			s.closeListeners()
			return err
		}
	}
	if s.listeners.count() == 0 {
		return errors.New("no address to listen on")
	}
	return nil
}

// Load loads the data on disk, which Serve may answer clients beside
// (LOADING to the commands Redis refuses while loading), then starts
// replicating when replicaof names a master. A shutdown during the load
// makes it return ErrStopped.
func (s *Server) Load() error {
	if err := s.loadData(); err != nil {
		return err
	}
	if s.shut.done.Load() {
		return ErrStopped
	}
	s.loading.Store(false)
	s.startReplicaFromConfig()
	return nil
}

// listenTCP listens on port at every bind address; port 0 takes the port
// the kernel chooses for the first address.
func (s *Server) listenTCP(bind []string, port int) ([]net.Listener, error) {
	var ls []net.Listener
	for _, addr := range bind {
		optional := len(addr) > 0 && addr[0] == '-' // "-::1": skipped if unavailable, as in redis.conf
		if optional {
			addr = addr[1:]
		}
		if addr == "*" {
			addr = "0.0.0.0"
		}
		l, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(port)))
		if err != nil {
			if optional {
				s.logf("warning", "Could not create server TCP listening socket %s: %v", net.JoinHostPort(addr, strconv.Itoa(port)), err)
				continue
			}
			for _, l := range ls {
				l.Close()
			}
			return nil, err
		}
		if port == 0 { // the other addresses share the port the kernel chose
			port = l.Addr().(*net.TCPAddr).Port
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// Addr is the first listening address (useful with port 0 in tests).
func (s *Server) Addr() net.Addr { return s.listeners.first() }

// port is the port actually listened on (the configured one may be 0).
func (s *Server) port() int {
	if a, ok := s.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return s.Config().Port
}

// Serve accepts connections until the server stops (SHUTDOWN, a signal,
// Shutdown); it returns nil after a clean stop.
func (s *Server) Serve() error {
	s.logf("notice", "HotKV %s (Redis %s compatible) ready to accept connections on %v", Version, RedisVersion, s.Addr())
	s.wg.Add(4)
	go s.cron()
	go s.evictLoop()
	go s.aofLoop()
	go func() {
		defer s.wg.Done()
		s.ks.Lazy.Run(s.closed)
	}()
	first := s.listeners.serve(s)
	<-s.shut.stopped // the final persistence was made before the listeners closed
	if s.shut.stopErr != nil {
		return s.shut.stopErr
	}
	return first
}

// accept serves one listener. Accept errors other than the listener being
// closed (out of file descriptors, aborted handshakes) are logged and retried
// with a growing pause, as Redis logs and goes on: they must not stop the
// server.
func (s *Server) accept(l net.Listener) error {
	var pause time.Duration
	for {
		conn, err := l.Accept()
		if err != nil {
			select {
			case <-s.closed:
				return nil
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				if s.listeners.retired(l) { // CONFIG SET bind or port moved it
					return nil
				}
				return err
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			s.logf("warning", "Accepting client connection: %v", err)
			time.Sleep(pause)
			continue
		}
		pause = 0
		s.stats.connections.Add(1)
		if s.refusedByProtectedMode(conn) {
			s.refuse(conn, errProtectedMode)
			continue
		}
		raw := conn
		if tc, ok := conn.(*tls.Conn); ok {
			raw = tc.NetConn()
		}
		if tc, ok := raw.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
			if ka := s.Config().TCPKeepAlive; ka > 0 {
				tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: time.Duration(ka) * time.Second})
			}
		}
		s.clients.mu.Lock()
		select {
		case <-s.closed: // Shutdown has closed the clients it knew of
			s.clients.mu.Unlock()
			conn.Close()
			return nil
		default:
		}
		if len(s.clients.byID) >= s.Config().MaxClients {
			s.clients.mu.Unlock()
			s.refuse(conn, "-ERR max number of clients reached\r\n")
			continue
		}
		c := newClient(s, conn)
		s.clients.byID[c.id] = c
		s.wg.Add(1)
		s.clients.mu.Unlock()
		go c.serve()
	}
}

// refuseTimeout bounds how long a refused connection may take to read its
// refusal (over TLS: to complete the handshake first).
const refuseTimeout = 5 * time.Second

// refuse answers a connection turned away at accept with msg and closes it.
// It writes in a goroutine of its own, under a deadline: on the TLS port
// the write runs the handshake first, and a client that never sends its
// ClientHello would otherwise hold the accept loop, and so every other
// TLS client, for as long as it likes.
func (s *Server) refuse(conn net.Conn, msg string) {
	s.stats.refused.Add(1)
	go func() {
		conn.SetDeadline(time.Now().Add(refuseTimeout))
		io.WriteString(conn, msg)
		conn.Close()
	}()
}

func (s *Server) removeClient(c *client) {
	// The counts move to the server's with the delete, under s.clients.mu, as
	// readers and CONFIG RESETSTAT take it: none sees them in neither
	// place or both.
	s.clients.mu.Lock()
	delete(s.clients.byID, c.id)
	s.stats.dirty += c.stats.dirty.Load()
	s.stats.addClosed(c)
	s.clients.mu.Unlock()
	s.wg.Done()
}

// Shutdown stops the server as SHUTDOWN FORCE does: the log is written out
// and the final snapshot saved (when save points are set), a failure
// logged; then no more connections, and every client closed and waited
// for, up to ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	s.scripts.Abort() // a script in an endless loop would hold the final save off
	s.finishShutdown(config.ShutdownForce)
	return s.teardown(ctx)
}

// Done is closed when the server stops (SHUTDOWN, a signal, Shutdown), once
// the final persistence is made: the connections close then.
func (s *Server) Done() <-chan struct{} { return s.closed }

func (s *Server) closeListeners() { s.listeners.closeAll() }

var logLevels = map[string]int{"debug": 0, "verbose": 1, "notice": 2, "warning": 3, "nothing": 4}

func (s *Server) logf(level, format string, args ...any) {
	if logLevels[level] < logLevels[s.Config().LogLevel] {
		return
	}
	s.log.Output(2, fmt.Sprintf(format, args...))
}

// cron runs the periodic work: the LRU clock, active expiry, INFO's rates;
// nothing while DEBUG PAUSE-CRON holds it, as Redis's serverCron.
func (s *Server) cron() {
	defer s.wg.Done()
	hz := s.Config().Hz
	t := time.NewTicker(time.Second / time.Duration(hz))
	defer t.Stop()
	exp := s.expirer
	for {
		select {
		case <-s.closed:
			return
		case now := <-t.C:
			if s.debug.cronPaused.Load() {
				continue
			}
			s.checkSignal()
			s.updateFailover(now)
			if s.loading.Load() || s.shut.done.Load() { // nothing else runs while loading, as in Redis, or once stopping
				continue
			}
			began := time.Now()
			if keyspace.Clock.Swap(uint32(now.Unix())) != uint32(now.Unix()) { // once a second
				s.checkSavePoints(now)
				s.migrate.closeIdle(migrateCacheTTL)
				s.repl.Cron(now.Unix())
			}
			tick.Calibrate()
			s.sample(now)
			s.closeHalfClosed(now)
			if s.debug.activeExpire.Load() && !keyspace.ExpiryPaused(now.UnixMilli()) {
				effort := s.Config().ActiveExpireEffort()
				exp.SetEffort(effort)
				start := time.Now()
				exp.Cycle(time.Second / time.Duration(hz) * time.Duration(23+2*effort) / 100)
				s.latencySample("expire-cycle", time.Since(start))
			}
			if keyspace.ReadyPending.Load() > 0 {
				s.serveStranded()
			}
			if max := s.Config().TrackingTableMaxKeys; max > 0 {
				s.track.Limit(max, nil, nil)
			}
			s.sampleRates(now, time.Since(began))
			if h := s.Config().Hz; h != hz {
				hz = h
				t.Reset(time.Second / time.Duration(hz))
			}
		}
	}
}

// closeHalfClosed closes connections whose peer shut its side down with
// its last command: serveRaw goes back to the edge-triggered poller after a
// read that did not fill the buffer without reading again (which saves a
// system call per request), so an end of file that arrived together with
// that read raises no further event, and a client that half-closed and
// waits for the server to close (nc -N, a script reading to EOF) would wait
// forever. A connection idle for a tick after such a read is peeked once;
// Redis closes a client whose read returns end of file the same way.
func (s *Server) closeHalfClosed(now time.Time) {
	idle := now.UnixMilli() - 100
	var check []*client
	s.clients.mu.Lock()
	for _, c := range s.clients.byID {
		if c.io.shortRead.Load() && c.info.lastSeen.Load() < idle && c.io.shortRead.CompareAndSwap(true, false) {
			check = append(check, c)
		}
	}
	s.clients.mu.Unlock()
	for _, c := range check {
		// A read between the flag and the peek (of the command that came
		// with the end of file) is the connection's to answer: its own
		// next read sees the end of file.
		if r := c.stats.reads.Load(); c.peerClosed() && c.stats.reads.Load() == r {
			c.closeConn()
		}
	}
}
