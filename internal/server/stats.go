package server

import (
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/stats"
)

// serverStats are the counters INFO reports. Per-command counts live in
// each client and are summed on demand with the closed clients' ones,
// which stats.Commands keeps.
type serverStats struct {
	stats.Commands
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
	dirty                   uint64 // closed clients' writes that changed something (under clients.mu)
	ops                     stats.OpsPerSec
	rates                   stats.Rates   // INFO's instantaneous rates
	slow                    stats.Slowlog // SLOWLOG (slowlog.go)
	latency                 stats.Monitor // LATENCY (latency.go)
	peakMem                 atomic.Uint64
	startMem                uint64
}

// addClosed folds a closing client's counters into the server's (s.clients.mu
// held: lock order s.clients.mu, then the counters' own).
func (st *serverStats) addClosed(c *client) {
	st.AddClosed(stats.Conn{Calls: c.stats.calls, Nanos: c.stats.nanos, Hits: c.stats.hits.Load(), Misses: c.stats.misses.Load(), Latency: &c.stats.lat})
	st.netIn.Add(c.stats.netIn.Load())
	st.netOut.Add(c.stats.netOut.Load())
	st.reads.Add(c.stats.reads.Load())
	st.writes.Add(c.stats.writes.Load())
}

// netTotals sums bytes read and written, and socket reads and writes, over
// closed and live clients.
func (s *Server) netTotals() (in, out, reads, writes int64) {
	s.clients.mu.Lock()
	in, out = s.stats.netIn.Load(), s.stats.netOut.Load()
	reads, writes = s.stats.reads.Load(), s.stats.writes.Load()
	for _, c := range s.clients.byID {
		in += c.stats.netIn.Load()
		out += c.stats.netOut.Load()
		reads += c.stats.reads.Load()
		writes += c.stats.writes.Load()
	}
	s.clients.mu.Unlock()
	return in, out, reads, writes
}

// commandTotals sums calls and microseconds per command over closed and live
// clients.
func (s *Server) commandTotals() (calls, nanos []uint64, hits, misses int64) {
	s.clients.mu.Lock()
	calls, nanos, hits, misses = s.stats.Totals()
	for c := range s.liveClients() {
		for i := range c.stats.calls {
			calls[i] += c.stats.calls[i].Load()
			nanos[i] += c.stats.nanos[i].Load()
		}
		hits += c.stats.hits.Load()
		misses += c.stats.misses.Load()
	}
	s.clients.mu.Unlock()
	return calls, nanos, hits, misses
}

// sample updates instantaneous_ops_per_sec and the event loop's mean cycle
// duration about once a second (it sums every client's counters, so it does
// not run on every cron tick).
func (s *Server) sample(now time.Time) {
	if !s.stats.ops.Due(now) {
		return
	}
	calls, nanos, _, _ := s.commandTotals()
	s.stats.ops.Sample(now, sum(calls))
	_, _, reads, _ := s.netTotals()
	s.stats.rates.SampleLoop(int64(sum(nanos)/1e3), reads)
}

// sampleRates runs after every cron tick; tick is how long its work took.
func (s *Server) sampleRates(now time.Time, tick time.Duration) {
	s.stats.rates.Tick(now, tick, func() stats.Traffic {
		in, out, reads, _ := s.netTotals()
		return stats.Traffic{In: in, Out: out, Reads: reads,
			ReplIn: s.repl.Stats.Received.Load(), ReplOut: s.repl.Stats.SentBytes.Load()}
	})
}

func sum(v []uint64) (n uint64) {
	for _, x := range v {
		n += x
	}
	return n
}

// resetStats is CONFIG RESETSTAT. The clients' counters and the closed
// ones' are zeroed under s.clients.mu, as a closing client moves its counts.
func (s *Server) resetStats() {
	s.clients.mu.Lock()
	s.stats.Commands.Reset()
	s.stats.netIn.Store(0)
	s.stats.netOut.Store(0)
	s.stats.reads.Store(0)
	s.stats.writes.Store(0)
	for c := range s.liveClients() {
		for i := range c.stats.calls {
			c.stats.calls[i].Store(0)
			c.stats.nanos[i].Store(0)
		}
		c.stats.hits.Store(0)
		c.stats.misses.Store(0)
		c.stats.netIn.Store(0)
		c.stats.netOut.Store(0)
		c.stats.reads.Store(0)
		c.stats.writes.Store(0)
		c.stats.lat.Reset()
	}
	s.clients.mu.Unlock()
	s.repl.Stats.Reset()
	s.expirer.Stats.Reset()
	s.ks.Expiry.Keys.Store(0)
	s.ks.Expiry.Subkeys.Store(0)
	s.ks.Lazy.ResetStats()
	s.stats.unexpectedErrors.Store(0)
	s.stats.sanitizedBase.Store(rdb.Sanitized.Load())
	s.stats.connections.Store(0)
	s.stats.refused.Store(0)
	s.stats.ops.Reset()
	s.ev.resetStats()
	s.stats.qbufLimitDisconnections.Store(0)
	s.stats.obufLimitDisconnections.Store(0)
	s.stats.crossProtocol.Store(0)
	s.stats.rates.Reset() // last: a sample of counters half reset is dropped
}
