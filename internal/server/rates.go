package server

import (
	"sync"
	"time"
)

// instMetric is Redis's trackInstantaneousMetric: each sample is the rate
// since the previous one, and the metric is the mean of the last 16.
type instMetric struct {
	samples             [16]int64
	idx                 int
	lastBase, lastValue int64
}

// track records value at base (microseconds, or for a per-event mean the
// count of events), as a rate per factor units of base.
func (m *instMetric) track(value, base, factor int64) {
	if m.lastBase > 0 {
		avg := int64(0)
		if b := base - m.lastBase; b > 0 {
			avg = (value - m.lastValue) * factor / b
		}
		m.samples[m.idx] = avg
		m.idx = (m.idx + 1) % len(m.samples)
	}
	m.lastBase, m.lastValue = base, value
}

func (m *instMetric) get() int64 {
	var sum int64
	for _, v := range m.samples {
		sum += v
	}
	return sum / int64(len(m.samples))
}

// rates are INFO's instantaneous_* metrics other than those sample sets
// once a second: the network's, sampled every 100 ms as Redis's serverCron
// does, and the event loop's. HotKV has a loop per connection rather than
// one: a cycle is a connection's socket read (the wake-up that reads, runs
// and answers a batch) or a cron tick; a cycle's duration counts the
// commands' time and the ticks' (a connection's I/O is not timed).
type rates struct {
	mu            sync.Mutex
	last          time.Time
	netIn, netOut instMetric
	replIn        instMetric
	replOut       instMetric
	elCycles      instMetric
	cronTicks     int64
	cronMicros    int64
	// the commands' time and the cycles at sample's last run, and the mean
	// cycle's duration over the second before it
	lastCmdMicros, lastCycles, elMicros int64
}

// sampleRates runs after every cron tick; tick is how long its work took.
func (s *Server) sampleRates(now time.Time, tick time.Duration) {
	r := &s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cronTicks++
	r.cronMicros += tick.Microseconds()
	if now.Sub(r.last) < 90*time.Millisecond { // every 100 ms, give or take a tick's jitter
		return
	}
	r.last = now
	in, out, reads, _ := s.netTotals()
	replIn, replOut := s.repl.stats.received.Load(), s.repl.stats.sentBytes.Load()
	us := now.UnixMicro()
	r.netIn.track(in+replIn, us, 1e6) // Redis's input counts the master's stream
	r.netOut.track(out, us, 1e6)
	r.replIn.track(replIn, us, 1e6)
	r.replOut.track(replOut, us, 1e6)
	r.elCycles.track(reads+r.cronTicks, us, 1e6)
}

// sampleLoopDuration is sample's part: the mean cycle's duration since its
// previous run, from the commands' total time.
func (s *Server) sampleLoopDuration(cmdMicros, reads int64) {
	r := &s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	cycles := reads + r.cronTicks
	if n := cycles - r.lastCycles; n > 0 && r.lastCycles > 0 {
		r.elMicros = max(cmdMicros-r.lastCmdMicros, 0) / n
	}
	r.lastCmdMicros, r.lastCycles = cmdMicros, cycles
}

// eventLoop is INFO's eventloop_* figures given the commands' time and the
// connections' reads: cycles and their total duration in microseconds, and
// the instantaneous cycles per second and mean duration.
func (s *Server) eventLoop(cmdMicros, reads int64) (cycles, micros, perSec, mean int64) {
	r := &s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	return reads + r.cronTicks, cmdMicros + r.cronMicros, r.elCycles.get(), r.elMicros
}

// netKbps is instantaneous_input_kbps, instantaneous_output_kbps and their
// replication parts.
func (s *Server) netKbps() (in, out, replIn, replOut float64) {
	r := &s.rates
	r.mu.Lock()
	defer r.mu.Unlock()
	return kbps(r.netIn.get()), kbps(r.netOut.get()), kbps(r.replIn.get()), kbps(r.replOut.get())
}

// kbps is bytes per second in KB/s, as Redis computes it in single precision.
func kbps(n int64) float64 { return float64(float32(n) / 1024) }

// reset is CONFIG RESETSTAT's, as Redis's resetServerStats clears its
// metrics' samples.
func (r *rates) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.netIn, r.netOut, r.replIn, r.replOut, r.elCycles = instMetric{}, instMetric{}, instMetric{}, instMetric{}, instMetric{}
	r.cronTicks, r.cronMicros, r.lastCmdMicros, r.lastCycles, r.elMicros = 0, 0, 0, 0, 0
}
