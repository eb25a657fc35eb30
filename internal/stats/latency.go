package stats

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

// Monitor is the latency monitor (LATENCY LATEST, HISTORY, RESET, GRAPH,
// DOCTOR): with latency-monitor-threshold set, a command that runs at
// least that many milliseconds is a sample of event "command", or
// "fast-command" for the O(1) ones, as in Redis; the server adds events of
// its own ("expire-cycle", "aof-fsync-always"). Each event keeps its last
// 160 samples, one per second (the worst of that second), and its all-time
// worst. Like the slowlog it is fed by the command path's own timing.
type Monitor struct {
	mu     sync.Mutex
	events map[string]*Series
}

// Series is one event's samples.
type Series struct {
	Samples []Sample // oldest first, at most maxSamples
	Max     int64    // the all-time worst, in milliseconds
}

// Sample is the worst latency of an event in a second.
type Sample struct{ At, Ms int64 } // unix seconds, milliseconds

const maxSamples = 160

// Add records a sample of event that took ms milliseconds.
func (m *Monitor) Add(event string, ms int64) {
	now := time.Now().Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string]*Series{}
	}
	ts := m.events[event]
	if ts == nil {
		ts = &Series{}
		m.events[event] = ts
	}
	ts.Max = max(ts.Max, ms)
	if n := len(ts.Samples); n > 0 && ts.Samples[n-1].At == now {
		ts.Samples[n-1].Ms = max(ts.Samples[n-1].Ms, ms)
		return
	}
	ts.Samples = append(ts.Samples, Sample{now, ms})
	if len(ts.Samples) > maxSamples {
		ts.Samples = append(ts.Samples[:0:0], ts.Samples[1:]...)
	}
}

// names lists the events with samples, sorted (m.mu held).
func (m *Monitor) names() []string {
	var out []string
	for name := range m.events {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Latest is an event's last sample and all-time worst (LATENCY LATEST).
type Latest struct {
	Event string
	Last  Sample
	Max   int64
}

// Latest returns each event's last sample, by name.
func (m *Monitor) Latest() []Latest {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Latest
	for _, name := range m.names() {
		ts := m.events[name]
		out = append(out, Latest{name, ts.Samples[len(ts.Samples)-1], ts.Max})
	}
	return out
}

// History returns a copy of event's samples, oldest first (nil if none).
func (m *Monitor) History(event string) []Sample {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ts := m.events[event]; ts != nil {
		return append([]Sample(nil), ts.Samples...)
	}
	return nil
}

// Reset drops the events named (none: all) and returns how many it
// dropped.
func (m *Monitor) Reset(events ...string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(events) == 0 {
		n := len(m.events)
		m.events = nil
		return n
	}
	n := 0
	for _, e := range events {
		if _, ok := m.events[e]; ok {
			delete(m.events, e)
			n++
		}
	}
	return n
}

// Graph draws event's samples (LATENCY GRAPH); false if it has none.
func (m *Monitor) Graph(event string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[event]
	if ts == nil {
		return "", false
	}
	return Sparkline(event, ts, time.Now().Unix()), true
}

// Sparkline is Redis's latencyCommandGenSparkeline and sparkline.c (fill
// mode, 4 rows, 80 columns per block): each sample a column scaled
// between the lowest and highest, labelled with how long before now it was
// taken.
func Sparkline(event string, ts *Series, now int64) string {
	const cols, rows = 80, 4
	const charset = "_o#"
	lo, hi := ts.Samples[0].Ms, ts.Samples[0].Ms
	for _, s := range ts.Samples {
		lo, hi = min(lo, s.Ms), max(hi, s.Ms)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, ts.Max)
	b.WriteString(strings.Repeat("-", cols))
	b.WriteByte('\n')
	relmax := float64(hi - lo)
	if relmax == 0 {
		relmax = 1
	}
	steps := len(charset) * rows
	for start := 0; start < len(ts.Samples); start += cols {
		if start != 0 {
			b.WriteByte('\n')
		}
		block := ts.Samples[start:min(start+cols, len(ts.Samples))]
		line := make([]byte, len(block))
		for row := 0; row < rows; row++ {
			for j, s := range block {
				// The truncations are Redis's: (int)(relval*steps)/relmax.
				step := min(int(float64(int(float64(s.Ms-lo)*float64(steps)))/relmax), steps-1)
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
			labels[j] = agoLabel(now - s.At)
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

// Doctor is LATENCY DOCTOR, Redis's report in short: each event's spikes,
// average, mean deviation and worst, without the advice section.
func (m *Monitor) Doctor() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.events) == 0 {
		return "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n"
	}
	var b strings.Builder
	b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
	for i, name := range m.names() {
		ts := m.events[name]
		var sum float64
		for _, s := range ts.Samples {
			sum += float64(s.Ms)
		}
		avg := sum / float64(len(ts.Samples))
		var dev float64
		for _, s := range ts.Samples {
			dev += math.Abs(float64(s.Ms) - avg)
		}
		dev /= float64(len(ts.Samples))
		period := 0.0
		if n := len(ts.Samples); n > 1 {
			period = float64(ts.Samples[n-1].At-ts.Samples[0].At) / float64(n-1)
		}
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %.0fms, mean deviation %.0fms, period %.2f sec). Worst all time event %dms.\n",
			i+1, name, len(ts.Samples), avg, dev, period, ts.Max)
	}
	return b.String()
}
