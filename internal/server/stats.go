package server

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/rdb"
)

// serverStats are the counters INFO reports. Per-command call counts live in
// each client (no shared cache line on the hot path) and are summed on demand;
// closed clients' counts are folded in here.
type serverStats struct {
	connections atomic.Int64
	refused     atomic.Int64 // connections refused at maxclients
	panics      atomic.Int64
	// clients closed for client-query-buffer-limit and for
	// pubsub-output-buffer-limit (INFO's client_*_limit_disconnections)
	qbufLimitDisconnections atomic.Int64
	obufLimitDisconnections atomic.Int64
	crossProtocol           atomic.Int64 // clients closed for sending POST or Host: (protect.go)
	attackLogged            atomic.Int64 // unix second of the last such warning logged; RESETSTAT keeps it
	unexpectedErrors        atomic.Int64 // error replies to the log's replay or the master's stream (INFO unexpected_error_replies)
	sanitizedBase           atomic.Int64 // rdb.Sanitized at the last CONFIG RESETSTAT
	netIn                   atomic.Int64
	netOut                  atomic.Int64
	reads                   atomic.Int64
	writes                  atomic.Int64

	mu         sync.Mutex
	calls      []uint64 // closed clients' calls per command ID
	nanos      []uint64
	hits       int64
	misses     int64
	dirty      uint64   // closed clients' writes that changed something (under the server's mu)
	rejects    []uint64 // per command ID: refused before running
	fails      []uint64 // per command ID: ran and answered an error
	errs       map[string]uint64
	lat        []*latCounts // closed clients' latency histograms per command ID (lathist.go)
	lastSample time.Time
	lastTotal  uint64
	opsPerSec  atomic.Int64
	resampled  atomic.Bool // CONFIG RESETSTAT since the last sample
}

func (st *serverStats) init() {
	if st.calls == nil {
		n := cmdtable.Count()
		st.calls, st.nanos = make([]uint64, n), make([]uint64, n)
		st.rejects, st.fails = make([]uint64, n), make([]uint64, n)
		st.errs = map[string]uint64{}
	}
}

func (st *serverStats) countError(msg string) {
	code := msg
	if i := strings.IndexByte(code, ' '); i > 0 {
		code = code[:i]
	}
	st.mu.Lock()
	st.init()
	st.errs[code]++
	st.mu.Unlock()
}

func (st *serverStats) rejected(cmd *cmdtable.Cmd) {
	st.mu.Lock()
	st.init()
	st.rejects[cmd.ID]++
	st.mu.Unlock()
}

// failed counts a failed call of cmd and its error reply, unless reply is
// nil (an error counted already).
func (st *serverStats) failed(cmd *cmdtable.Cmd, reply []byte) {
	end := 0
	for end < len(reply) && reply[end] != ' ' && reply[end] != '\r' {
		end++
	}
	st.mu.Lock()
	st.init()
	st.fails[cmd.ID]++
	if reply != nil {
		st.errs[string(reply[:end])]++
	}
	st.mu.Unlock()
}

// addClosed folds a closing client's counters into the server's (s.mu
// held: lock order s.mu, then st.mu).
func (st *serverStats) addClosed(c *client) {
	st.mu.Lock()
	st.init()
	for i := range c.calls {
		st.calls[i] += c.calls[i].Load()
		st.nanos[i] += c.nanos[i].Load()
	}
	st.hits += c.hits.Load()
	st.misses += c.misses.Load()
	st.addClosedLatency(c)
	st.mu.Unlock()
	st.netIn.Add(c.netIn.Load())
	st.netOut.Add(c.netOut.Load())
	st.reads.Add(c.reads.Load())
	st.writes.Add(c.writes.Load())
}

// netTotals sums bytes read and written, and socket reads and writes, over
// closed and live clients.
func (s *Server) netTotals() (in, out, reads, writes int64) {
	s.mu.Lock()
	in, out = s.stats.netIn.Load(), s.stats.netOut.Load()
	reads, writes = s.stats.reads.Load(), s.stats.writes.Load()
	for _, c := range s.clients {
		in += c.netIn.Load()
		out += c.netOut.Load()
		reads += c.reads.Load()
		writes += c.writes.Load()
	}
	s.mu.Unlock()
	return in, out, reads, writes
}

// commandTotals sums calls and microseconds per command over closed and live
// clients.
func (s *Server) commandTotals() (calls, nanos []uint64, hits, misses int64) {
	s.mu.Lock()
	s.stats.mu.Lock()
	s.stats.init()
	calls = append([]uint64(nil), s.stats.calls...)
	nanos = append([]uint64(nil), s.stats.nanos...)
	hits, misses = s.stats.hits, s.stats.misses
	s.stats.mu.Unlock()
	for c := range s.liveClients() {
		for i := range c.calls {
			calls[i] += c.calls[i].Load()
			nanos[i] += c.nanos[i].Load()
		}
		hits += c.hits.Load()
		misses += c.misses.Load()
	}
	s.mu.Unlock()
	return calls, nanos, hits, misses
}

// sample updates instantaneous_ops_per_sec and the event loop's mean cycle
// duration about once a second (it sums every client's counters, so it does
// not run on every cron tick).
func (s *Server) sample(now time.Time) {
	st := &s.stats
	d := now.Sub(st.lastSample)
	if d < time.Second {
		return
	}
	calls, nanos, _, _ := s.commandTotals()
	total, ns := sum(calls), sum(nanos)
	if st.resampled.Swap(false) {
		st.opsPerSec.Store(0) // CONFIG RESETSTAT: the totals restarted below the last sample
	} else if !st.lastSample.IsZero() && total >= st.lastTotal {
		st.opsPerSec.Store(int64(float64(total-st.lastTotal) / d.Seconds()))
	}
	st.lastSample, st.lastTotal = now, total
	_, _, reads, _ := s.netTotals()
	s.sampleLoopDuration(int64(ns/1e3), reads)
}

func sum(v []uint64) (n uint64) {
	for _, x := range v {
		n += x
	}
	return n
}

// resetStats is CONFIG RESETSTAT. The clients' counters and the closed
// ones' are zeroed under s.mu, as a closing client moves its counts.
func (s *Server) resetStats() {
	s.mu.Lock()
	s.stats.mu.Lock()
	s.stats.init()
	clear(s.stats.calls)
	clear(s.stats.nanos)
	clear(s.stats.rejects)
	clear(s.stats.fails)
	clear(s.stats.errs)
	s.stats.hits, s.stats.misses = 0, 0
	s.stats.lat = nil // Redis frees the histograms: commands without calls since are not listed
	s.stats.mu.Unlock()
	s.stats.netIn.Store(0)
	s.stats.netOut.Store(0)
	s.stats.reads.Store(0)
	s.stats.writes.Store(0)
	for c := range s.liveClients() {
		for i := range c.calls {
			c.calls[i].Store(0)
			c.nanos[i].Store(0)
		}
		c.hits.Store(0)
		c.misses.Store(0)
		c.netIn.Store(0)
		c.netOut.Store(0)
		c.reads.Store(0)
		c.writes.Store(0)
		c.resetLatency()
	}
	s.mu.Unlock()
	s.repl.stats.reset()
	s.expirer.Stats.Reset()
	s.ks.Expiry.Keys.Store(0)
	s.ks.Expiry.Subkeys.Store(0)
	s.ks.Lazy.ResetStats()
	s.stats.unexpectedErrors.Store(0)
	s.stats.sanitizedBase.Store(rdb.Sanitized.Load())
	s.stats.connections.Store(0)
	s.stats.refused.Store(0)
	s.stats.opsPerSec.Store(0) // as Redis empties its instantaneous samples
	s.stats.resampled.Store(true)
	s.ev.resetStats()
	s.stats.qbufLimitDisconnections.Store(0)
	s.stats.obufLimitDisconnections.Store(0)
	s.stats.crossProtocol.Store(0)
	s.rates.reset() // last: a sample of counters half reset is dropped
}
