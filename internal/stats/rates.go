package stats

import (
	"sync"
	"sync/atomic"
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

// Rates are INFO's instantaneous_* metrics other than ops per second: the
// network's, sampled every 100 ms as Redis's serverCron does, and the
// event loop's. HotKV has a loop per connection rather than one: a cycle
// is a connection's socket read (the wake-up that reads, runs and answers
// a batch) or a cron tick; a cycle's duration counts the commands' time
// and the ticks' (a connection's I/O is not timed).
type Rates struct {
	mu            sync.Mutex
	last          time.Time
	netIn, netOut instMetric
	replIn        instMetric
	replOut       instMetric
	elCycles      instMetric
	cronTicks     int64
	cronMicros    int64
	// the commands' time and the cycles at SampleLoop's last run, and the
	// mean cycle's duration over the second before it
	lastCmdMicros, lastCycles, elMicros int64
}

// Traffic is what Rates samples: bytes read and written (the master's
// stream apart, in ReplIn), bytes sent to replicas, and socket reads.
type Traffic struct{ In, Out, ReplIn, ReplOut, Reads int64 }

// Tick runs after every cron tick; d is how long its work took. Every 100
// ms it samples the totals traffic returns (called with the rates locked,
// so that a Reset does not fall between reading and recording them).
func (r *Rates) Tick(now time.Time, d time.Duration, traffic func() Traffic) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cronTicks++
	r.cronMicros += d.Microseconds()
	if now.Sub(r.last) < 90*time.Millisecond { // every 100 ms, give or take a tick's jitter
		return
	}
	r.last = now
	t := traffic()
	us := now.UnixMicro()
	r.netIn.track(t.In+t.ReplIn, us, 1e6) // Redis's input counts the master's stream
	r.netOut.track(t.Out, us, 1e6)
	r.replIn.track(t.ReplIn, us, 1e6)
	r.replOut.track(t.ReplOut, us, 1e6)
	r.elCycles.track(t.Reads+r.cronTicks, us, 1e6)
}

// SampleLoop runs about once a second: the mean cycle's duration since
// its previous run, from the commands' total time and the connections'
// reads.
func (r *Rates) SampleLoop(cmdMicros, reads int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cycles := reads + r.cronTicks
	if n := cycles - r.lastCycles; n > 0 && r.lastCycles > 0 {
		r.elMicros = max(cmdMicros-r.lastCmdMicros, 0) / n
	}
	r.lastCmdMicros, r.lastCycles = cmdMicros, cycles
}

// EventLoop is INFO's eventloop_* figures given the commands' time and the
// connections' reads: cycles and their total duration in microseconds, and
// the instantaneous cycles per second and mean duration.
func (r *Rates) EventLoop(cmdMicros, reads int64) (cycles, micros, perSec, mean int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return reads + r.cronTicks, cmdMicros + r.cronMicros, r.elCycles.get(), r.elMicros
}

// NetKbps is instantaneous_input_kbps, instantaneous_output_kbps and their
// replication parts.
func (r *Rates) NetKbps() (in, out, replIn, replOut float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return kbps(r.netIn.get()), kbps(r.netOut.get()), kbps(r.replIn.get()), kbps(r.replOut.get())
}

// kbps is bytes per second in KB/s, as Redis computes it in single precision.
func kbps(n int64) float64 { return float64(float32(n) / 1024) }

// Reset is CONFIG RESETSTAT's, as Redis's resetServerStats clears its
// metrics' samples.
func (r *Rates) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.netIn, r.netOut, r.replIn, r.replOut, r.elCycles = instMetric{}, instMetric{}, instMetric{}, instMetric{}, instMetric{}
	r.cronTicks, r.cronMicros, r.lastCmdMicros, r.lastCycles, r.elMicros = 0, 0, 0, 0, 0
}

// OpsPerSec is instantaneous_ops_per_sec: the calls per second between
// samples about a second apart (summing every connection's counters costs
// too much for every cron tick). Only the cron samples it.
type OpsPerSec struct {
	last      time.Time
	lastTotal uint64
	rate      atomic.Int64
	restarted atomic.Bool // Reset since the last sample
}

// Due reports whether a sample is due at now.
func (o *OpsPerSec) Due(now time.Time) bool { return now.Sub(o.last) >= time.Second }

// Sample records total, the calls of all commands so far, at now.
func (o *OpsPerSec) Sample(now time.Time, total uint64) {
	if o.restarted.Swap(false) {
		o.rate.Store(0) // the totals restarted below the last sample
	} else if !o.last.IsZero() && total >= o.lastTotal {
		o.rate.Store(int64(float64(total-o.lastTotal) / now.Sub(o.last).Seconds()))
	}
	o.last, o.lastTotal = now, total
}

// Get is the rate at the last sample.
func (o *OpsPerSec) Get() int64 { return o.rate.Load() }

// Reset is CONFIG RESETSTAT's: the rate is 0 until the sample after next,
// as Redis empties its instantaneous samples.
func (o *OpsPerSec) Reset() {
	o.rate.Store(0)
	o.restarted.Store(true)
}
