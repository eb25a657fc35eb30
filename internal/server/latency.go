package server

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// The latency monitor (LATENCY LATEST, HISTORY, RESET, DOCTOR; HISTOGRAM is
// in lathist.go): with
// latency-monitor-threshold set, a command that runs at least that many
// milliseconds is a sample of event "command", or "fast-command" for the
// O(1) ones, as in Redis. Each event keeps its last 160 samples, one per
// second (the worst of that second), and its all-time worst. Like the
// slowlog it is fed by the command path's own timing.
type latencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencySeries
}

type latencySeries struct {
	samples []latencySample // oldest first, at most latencySamples
	max     int64
}

type latencySample struct{ at, ms int64 }

const latencySamples = 160

func (m *latencyMonitor) add(event string, ms int64) {
	now := time.Now().Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string]*latencySeries{}
	}
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	ts.max = max(ts.max, ms)
	if n := len(ts.samples); n > 0 && ts.samples[n-1].at == now {
		ts.samples[n-1].ms = max(ts.samples[n-1].ms, ms)
		return
	}
	ts.samples = append(ts.samples, latencySample{now, ms})
	if len(ts.samples) > latencySamples {
		ts.samples = append(ts.samples[:0:0], ts.samples[1:]...)
	}
}

// names lists the events with samples, sorted.
func (m *latencyMonitor) names() []string {
	var out []string
	for name := range m.events {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// latencySample feeds the monitor with an event of the server's own, such
// as an active expiry cycle ("expire-cycle"), that took d.
func (s *Server) latencySample(event string, d time.Duration) {
	if limit := s.Config().LatencyMonitorMs; limit > 0 && d.Milliseconds() >= limit {
		s.latency.add(event, d.Milliseconds())
	}
}

// recordLatency feeds the monitor with a command that ran us microseconds.
func (c *client) recordLatency(cmd *cmdtable.Cmd, us int64) {
	limit := c.s.Config().LatencyMonitorMs
	if limit <= 0 || us/1000 < limit {
		return
	}
	event := "command"
	if cmd.Flags&cmdtable.Fast != 0 {
		event = "fast-command"
	}
	c.s.latency.add(event, us/1000)
}

func latencyLatest(x *cmdtable.Ctx) {
	m := &cl(x).s.latency
	m.mu.Lock()
	defer m.mu.Unlock()
	names := m.names()
	x.W.Array(len(names))
	for _, name := range names {
		ts := m.events[name]
		last := ts.samples[len(ts.samples)-1]
		x.W.Array(4)
		x.W.BulkString(name)
		x.W.Int(last.at)
		x.W.Int(last.ms)
		x.W.Int(ts.max)
	}
}

func latencyHistory(x *cmdtable.Ctx) {
	m := &cl(x).s.latency
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[string(x.Args[2])]
	if ts == nil {
		x.W.Array(0)
		return
	}
	x.W.Array(len(ts.samples))
	for _, s := range ts.samples {
		x.W.Array(2)
		x.W.Int(s.at)
		x.W.Int(s.ms)
	}
}

func latencyReset(x *cmdtable.Ctx) {
	m := &cl(x).s.latency
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	if len(x.Args) == 2 {
		n = len(m.events)
		m.events = nil
	} else {
		for _, e := range x.Args[2:] {
			if _, ok := m.events[string(e)]; ok {
				delete(m.events, string(e))
				n++
			}
		}
	}
	x.W.Int(int64(n))
}

// latencyGraph draws an event's samples as Redis's ASCII sparkline.
func latencyGraph(x *cmdtable.Ctx) {
	m := &cl(x).s.latency
	m.mu.Lock()
	defer m.mu.Unlock()
	event := string(x.Args[2])
	ts := m.events[event]
	if ts == nil {
		x.W.Error("ERR No samples available for event '" + event + "'")
		return
	}
	x.W.Verbatim(latencySparkline(event, ts, time.Now().Unix()))
}

// latencySparkline is Redis's latencyCommandGenSparkeline and sparkline.c
// (fill mode, 4 rows, 80 columns per block): each sample a column scaled
// between the lowest and highest, labelled with how long ago it was taken.
func latencySparkline(event string, ts *latencySeries, now int64) string {
	const cols, rows = 80, 4
	const charset = "_o#"
	lo, hi := ts.samples[0].ms, ts.samples[0].ms
	for _, s := range ts.samples {
		lo, hi = min(lo, s.ms), max(hi, s.ms)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, ts.max)
	b.WriteString(strings.Repeat("-", cols))
	b.WriteByte('\n')
	relmax := float64(hi - lo)
	if relmax == 0 {
		relmax = 1
	}
	steps := len(charset) * rows
	for start := 0; start < len(ts.samples); start += cols {
		if start != 0 {
			b.WriteByte('\n')
		}
		block := ts.samples[start:min(start+cols, len(ts.samples))]
		line := make([]byte, len(block))
		for row := 0; row < rows; row++ {
			for j, s := range block {
				// The truncations are Redis's: (int)(relval*steps)/relmax.
				step := min(int(float64(int(float64(s.ms-lo)*float64(steps)))/relmax), steps-1)
				line[j] = ' '
				switch idx := step - (rows-row-1)*len(charset); {
				case idx >= len(charset):
					line[j] = '|'
				case idx >= 0:
					line[j] = charset[idx]
				}
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		// A blank line, then each label written downwards.
		labels := make([]string, len(block))
		height := 0
		for j, s := range block {
			labels[j] = agoLabel(now - s.at)
			height = max(height, len(labels[j]))
		}
		b.WriteString(strings.Repeat(" ", len(block)))
		b.WriteByte('\n')
		for row := 0; row < height; row++ {
			for j, l := range labels {
				line[j] = ' '
				if row < len(l) {
					line[j] = l[row]
				}
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// agoLabel is how Redis labels a sample of the latency graph.
func agoLabel(secs int64) string {
	switch {
	case secs < 60:
		return fmt.Sprintf("%ds", secs)
	case secs < 3600:
		return fmt.Sprintf("%dm", secs/60)
	case secs < 86400:
		return fmt.Sprintf("%dh", secs/3600)
	}
	return fmt.Sprintf("%dd", secs/86400)
}

// latencyDoctor is Redis's report in short: each event's spikes, average,
// mean deviation and worst, without the advice section.
func latencyDoctor(x *cmdtable.Ctx) {
	m := &cl(x).s.latency
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.events) == 0 {
		x.W.Verbatim("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n")
		return
	}
	var b strings.Builder
	b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
	for i, name := range m.names() {
		ts := m.events[name]
		var sum float64
		for _, s := range ts.samples {
			sum += float64(s.ms)
		}
		avg := sum / float64(len(ts.samples))
		var dev float64
		for _, s := range ts.samples {
			dev += math.Abs(float64(s.ms) - avg)
		}
		dev /= float64(len(ts.samples))
		period := 0.0
		if n := len(ts.samples); n > 1 {
			period = float64(ts.samples[n-1].at-ts.samples[0].at) / float64(n-1)
		}
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %.0fms, mean deviation %.0fms, period %.2f sec). Worst all time event %dms.\n",
			i+1, name, len(ts.samples), avg, dev, period, ts.max)
	}
	x.W.Verbatim(b.String())
}

func init() {
	const g = "server"
	f := cmdtable.Admin | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale
	cmdtable.Register(&cmdtable.Cmd{Name: "latency", Arity: -2, Group: g, Since: "2.8.13", Summary: "A container for latency diagnostics commands.",
		Subs: []*cmdtable.Cmd{
			{Name: "latency|latest", Arity: 2, Flags: f, Run: latencyLatest, Group: g, Since: "2.8.13",
				Summary: "Returns the latest latency samples for all events."},
			{Name: "latency|history", Arity: 3, Flags: f, Run: latencyHistory, Group: g, Since: "2.8.13",
				Summary: "Returns timestamp-latency samples for an event.", Args: "event"},
			{Name: "latency|reset", Arity: -2, Flags: f, Run: latencyReset, Group: g, Since: "2.8.13",
				Summary: "Resets the latency data for one or more events.", Args: "[event [event ...]]"},
			{Name: "latency|graph", Arity: 3, Flags: f, Run: latencyGraph, Group: g, Since: "2.8.13",
				Summary: "Returns a latency graph for an event.", Args: "event"},
			{Name: "latency|doctor", Arity: 2, Flags: f, Run: latencyDoctor, Group: g, Since: "2.8.13",
				Summary: "Returns a human-readable latency analysis report."},
			{Name: "latency|histogram", Arity: -2, Flags: f, Run: latencyHistogram, Group: g, Since: "7.0.0",
				Summary: "Returns the cumulative distribution of latencies of a subset or all commands.", Args: "[command [command ...]]"},
			helpCmd("latency", []string{
				"DOCTOR", "    Return a human readable latency analysis report.",
				"GRAPH <event>", "    Return an ASCII latency graph for the <event> class.",
				"HISTORY <event>", "    Return time-latency samples for the <event> class.",
				"LATEST", "    Return the latest latency samples for all events.",
				"RESET [<event> ...]", "    Reset latency data of one or more <event> classes.",
				"    (default: reset all data for all event classes)",
				"HISTOGRAM [COMMAND ...]",
				"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
				"    If no commands are specified then all histograms are replied.",
			}),
		}})
}
