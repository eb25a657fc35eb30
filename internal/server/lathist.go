package server

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/tick"
)

// Per-command latency histograms: LATENCY HISTOGRAM and INFO latencystats
// (latency-tracking, latency-tracking-info-percentiles).
//
// Redis records each call's duration, in whole microseconds, in an HDR
// histogram per command (nanoseconds, two significant digits), which
// LATENCY HISTOGRAM reads at the powers of two from 1024 ns: a bucket
// labelled with the highest microsecond HDR's sub-bucket at 1024·2^k ns
// holds, 1, 2, 4, 8, 16, 33, 66, 132, ... (latLabels). HotKV counts the
// calls of each command in latBuckets buckets of microseconds: one per
// microsecond up to 33, then each of those LATENCY HISTOGRAM buckets split
// in eighths. So LATENCY HISTOGRAM is exact; so are the percentiles INFO
// prints while they fall at or under 33 µs (printed as Redis prints them,
// from HDR's sub-bucket of the value); above, a percentile is the upper end
// of its eighth, at most 12.5% above what Redis would print.
//
// The counts live in each client, one histogram per command, and are
// summed on read with the calls commandstats counts: no cache line is
// shared between connections. Bucket 0 (under 1 µs), where a fast
// command's calls nearly all fall, is not counted at all: it is the calls
// commandstats counts (client.calls) less those in the other buckets and
// those made with latency-tracking off (latHist.untracked). So the command
// path only compares its duration with a microsecond's ticks; a slower
// call of the running command is counted in a per-connection counter
// (latState.pend) and published after the calls, at the end of the batch
// (flushStats); one that EXEC or a script runs, at once.
const (
	latExact      = 34 // one bucket per microsecond below this
	latFirstSplit = 6  // the first LATENCY HISTOGRAM bucket split in eighths (34-66 µs)
	latSubs       = 8
	latLevels     = 21 // LATENCY HISTOGRAM's buckets, 1 µs to 1 s
	latBuckets    = latExact + (latLevels-latFirstSplit)*latSubs
	latMaxUs      = 1_000_000 // Redis clamps durations to a second
)

// latLabels[k] is the label of LATENCY HISTOGRAM's k-th bucket, the highest
// microsecond it holds: HDR's highest nanosecond equivalent to 1024·2^k,
// 1024·2^k + 2^(k+3) - 1, in microseconds. The last one is where HDR's
// iteration stops, its last sub-bucket (2^30-1 ns), beyond the clamp.
var latLabels = func() (l [latLevels]int64) {
	for k := range latLevels - 1 {
		l[k] = (129<<(k+3) - 1) / 1000
	}
	l[latLevels-1] = (1<<30 - 1) / 1000
	return l
}()

// latHist is one client's histogram of one command: b[0] stays 0 (see
// above); untracked counts the calls made with latency-tracking off.
type latHist struct {
	b         [latBuckets]atomic.Uint64
	untracked atomic.Uint64
}

// latCounts is a histogram summed over clients.
type latCounts [latBuckets]uint64

// latTable holds a client's histograms by command ID.
type latTable struct{ h []atomic.Pointer[latHist] }

// latState is a client's part (the client struct's lat field). Only the
// client's goroutine touches it, but for the table.
type latState struct {
	// oneUs is a microsecond in ticks, rounded up: a call shorter is in
	// bucket 0. Set by latRecord: 0 until its first call (then recorded).
	oneUs int64
	// pend counts the running command's (client.runCmd) calls of 1 to 33
	// µs since the last flushStats; mask has bit i set when pend[i] is not 0.
	pend [latExact]uint32
	mask uint64
	// after is the locked part, in ticks, of a command whose Ctx.After is
	// pending: runAfter records the two together.
	after int64
	// cur is the histogram of curCmd, the last command flushed.
	cur    *latHist
	curCmd *cmdtable.Cmd
	table  atomic.Pointer[latTable] // nil until a histogram is needed
}

// latPending reports whether a call of d ticks of the running command is
// in bucket 0, counted with its calls. It is on the path of every command;
// if not, the caller records the call with latRecord.
func (c *client) latPending(d int64) bool { return d < c.lat.oneUs && c.ctx.After == nil }

// latRecord counts a call of cmd that took d ticks: the running command's
// in pend (published by latFlush), another one (run by EXEC or a script) in
// its histogram at once. A command with an After part is counted by
// runAfter, with that part.
func (c *client) latRecord(cmd *cmdtable.Cmd, d int64) {
	l := &c.lat
	nsPerTick := tick.NanosPerTick()
	l.oneUs = int64(math.Ceil(1000 / nsPerTick))
	if c.ctx.After != nil {
		l.after = d // runAfter records the whole
		return
	}
	us := int64(float64(d) * nsPerTick / 1000)
	if us <= 0 {
		us = 0
	}
	if cmd == c.runCmd && us < latExact {
		if us > 0 {
			l.pend[us]++
			l.mask |= 1 << us
		}
		return
	}
	switch tracking := c.s.Config().LatencyTracking; {
	case !tracking && cmd != c.runCmd: // the running command's are counted by latFlush
		c.latHist(cmd.ID).untracked.Add(1)
	case tracking && us > 0:
		c.latHist(cmd.ID).b[latIndex(us)].Add(1)
	}
}

// latDue reports whether flushStats, publishing the running command's
// calls, has latFlush to call.
func (c *client) latDue() bool { return c.lat.mask != 0 || !c.s.Config().LatencyTracking }

// latFlush publishes the running command's pending counts, after its calls
// (flushStats). With latency-tracking off, its calls are untracked and the
// counts dropped: as in Redis, a command counts if tracking is on once it
// ran.
func (c *client) latFlush(calls uint64) {
	l := &c.lat
	if l.curCmd != c.runCmd {
		l.cur, l.curCmd = c.latHist(c.runCmd.ID), c.runCmd
	}
	tracking := c.s.Config().LatencyTracking
	if !tracking {
		l.cur.untracked.Add(calls)
	}
	for mask := l.mask; mask != 0; mask &= mask - 1 {
		i := bits.TrailingZeros64(mask)
		if tracking {
			l.cur.b[i].Add(uint64(l.pend[i]))
		}
		l.pend[i] = 0
	}
	l.mask = 0
}

// latHist returns the client's histogram of command id, making it if need
// be. Only the client's goroutine calls it.
func (c *client) latHist(id int) *latHist {
	t := c.lat.table.Load()
	if t == nil {
		t = &latTable{h: make([]atomic.Pointer[latHist], cmdtable.Count())}
		c.lat.table.Store(t)
	}
	h := t.h[id].Load()
	if h == nil {
		h = new(latHist)
		t.h[id].Store(h)
	}
	return h
}

// latIndex is the bucket of a call of us microseconds.
func latIndex(us int64) int {
	if us < latExact {
		return int(max(us, 0))
	}
	us = min(us, latMaxUs)
	k := bits.Len64(uint64(us)) - 1 // 2^k <= us; latLabels[k-1] < 2^k <= latLabels[k] < 2^(k+1)
	if us > latLabels[k] {
		k++
	}
	lo, hi := latLabels[k-1], min(latLabels[k], latMaxUs)
	return latExact + (k-latFirstSplit)*latSubs + int((us-lo-1)*latSubs/(hi-lo))
}

// latRange is the lowest and highest microsecond bucket i holds.
func latRange(i int) (lo, hi int64) {
	if i < latExact {
		return int64(i), int64(i)
	}
	k := latFirstSplit + (i-latExact)/latSubs
	sub := int64((i - latExact) % latSubs)
	base, w := latLabels[k-1]+1, min(latLabels[k], latMaxUs)-latLabels[k-1]
	// us is in sub when (us-base)*latSubs/w == sub
	lo = base + (sub*w+latSubs-1)/latSubs
	hi = base + ((sub+1)*w+latSubs-1)/latSubs - 1
	return lo, hi
}

// latLevel is the LATENCY HISTOGRAM bucket of bucket i.
func latLevel(i int) int {
	if i >= latExact {
		return latFirstSplit + (i-latExact)/latSubs
	}
	for k, l := range latLabels {
		if int64(i) <= l {
			return k
		}
	}
	return latLevels - 1
}

// hdrRange is the range of nanoseconds equivalent to ns in Redis's HDR
// histogram (1 ns to 1 s, two significant digits: 256 sub-buckets).
func hdrRange(ns int64) (lo, hi int64) {
	size := int64(1) << (bits.Len64(uint64(ns)|255) - 8)
	lo = ns &^ (size - 1)
	return lo, lo + size - 1
}

// usToHDR is the value Redis records for a call of us microseconds.
func usToHDR(us int64) int64 { return max(us*1000, 1) }

func (h *latCounts) total() uint64 {
	var n uint64
	for _, x := range h {
		n += x
	}
	return n
}

// percentile is HDR's hdr_value_at_percentile, in microseconds.
func (h *latCounts) percentile(p float64, total uint64) float64 {
	want := max(int64(min(p, 100)/100*float64(total)+0.5), 1)
	var cum int64
	for i, n := range h {
		cum += int64(n)
		if cum < want {
			continue
		}
		lo, hi := latRange(i)
		if p == 0 {
			v, _ := hdrRange(usToHDR(lo))
			return float64(v) / 1000
		}
		_, v := hdrRange(usToHDR(hi))
		return float64(v) / 1000
	}
	return 0
}

// addClient adds a client's calls of a command to h: hist is its histogram
// of the command (nil if it has none), calls its commandstats count. The
// count is read last: the owner publishes it first, so it covers the
// buckets read, and bucket 0 never goes negative.
func (h *latCounts) addClient(hist *latHist, calls *atomic.Uint64) {
	var untracked, explicit uint64
	var b latCounts
	if hist != nil {
		untracked = hist.untracked.Load()
		for i := 1; i < latBuckets; i++ {
			b[i] = hist.b[i].Load()
			explicit += b[i]
		}
	}
	n := calls.Load()
	total := max(n-min(n, untracked), explicit) // a RESETSTAT may be under way
	b[0] = total - explicit
	for i := range b {
		h[i] += b[i]
	}
}

// clientLatency adds client c's histograms to out (by command ID, made as
// needed), for the commands want selects (nil: all).
func clientLatency(c *client, out []*latCounts, want []bool) {
	t := c.lat.table.Load()
	for id := range c.calls {
		if want != nil && !want[id] {
			continue
		}
		var h *latHist
		if t != nil {
			h = t.h[id].Load()
		}
		if h == nil && c.calls[id].Load() == 0 {
			continue
		}
		if out[id] == nil {
			out[id] = new(latCounts)
		}
		out[id].addClient(h, &c.calls[id])
	}
}

// latencyTotals sums the histograms of the closed and the live clients, by
// command ID (nil where a command has none). want, if not nil, selects the
// command IDs to sum.
func (s *Server) latencyTotals(want []bool) []*latCounts {
	out := make([]*latCounts, cmdtable.Count())
	s.mu.Lock()
	s.stats.mu.Lock()
	for id, h := range s.stats.lat {
		if h != nil && (want == nil || want[id]) {
			cp := *h
			out[id] = &cp
		}
	}
	s.stats.mu.Unlock()
	for c := range s.liveClients() {
		clientLatency(c, out, want)
	}
	s.mu.Unlock()
	return out
}

// addClosedLatency folds a closing client's histograms into the server's
// (s.stats.mu held).
func (st *serverStats) addClosedLatency(c *client) {
	if st.lat == nil {
		st.lat = make([]*latCounts, cmdtable.Count())
	}
	clientLatency(c, st.lat, nil)
}

// resetLatency empties the client's histograms (CONFIG RESETSTAT, s.mu
// held).
func (c *client) resetLatency() {
	t := c.lat.table.Load()
	if t == nil {
		return
	}
	for id := range t.h {
		if h := t.h[id].Load(); h != nil {
			for i := range h.b {
				h.b[i].Store(0)
			}
			h.untracked.Store(0)
		}
	}
}

// latencyHistogram is LATENCY HISTOGRAM [command ...]: a map of command
// name to {calls, histogram_usec: {bucket: calls up to it}}. With names,
// in their order, each a command or a container (then its subcommands),
// unknown ones skipped; without, every command with calls.
func latencyHistogram(x *cmdtable.Ctx) {
	c := cl(x)
	c.flushStats()
	var ids []int
	if len(x.Args) == 2 {
		for id := range cmdtable.Count() {
			ids = append(ids, id)
		}
	} else {
		for _, a := range x.Args[2:] {
			cmd := c.s.lookupFullName(string(a))
			if cmd == nil {
				continue
			}
			ids = append(ids, cmd.ID)
			for _, sub := range cmd.Subs {
				ids = append(ids, sub.ID)
			}
		}
	}
	want := make([]bool, cmdtable.Count())
	for _, id := range ids {
		want[id] = true
	}
	totals := c.s.latencyTotals(want)
	type entry struct {
		name string
		h    *latCounts
	}
	var list []entry
	for _, id := range ids {
		if h := totals[id]; h != nil && h.total() > 0 {
			list = append(list, entry{cmdtable.ByID(id).Name, h})
		}
	}
	if len(x.Args) == 2 {
		sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	}
	x.W.Map(len(list))
	for _, e := range list {
		x.W.BulkString(e.name)
		writeHistogram(x, e.h)
	}
}

// writeHistogram is Redis's fillCommandCDF.
func writeHistogram(x *cmdtable.Ctx, h *latCounts) {
	var cum [latLevels]uint64
	for i, n := range h {
		cum[latLevel(i)] += n
	}
	var n, prev uint64
	levels := 0
	for k := range cum {
		n += cum[k]
		cum[k] = n
		if n > prev {
			levels++
		}
		prev = n
	}
	x.W.Map(2)
	x.W.BulkString("calls")
	x.W.Int(int64(n))
	x.W.BulkString("histogram_usec")
	x.W.Map(levels)
	prev = 0
	for k, n := range cum {
		if n > prev {
			x.W.Int(latLabels[k])
			x.W.Int(int64(n))
		}
		prev = n
	}
}

// lookupFullName finds a command by Redis's full name: "get", "config",
// "config|get" (case-insensitively).
func (s *Server) lookupFullName(name string) *cmdtable.Cmd {
	parent, sub, isSub := strings.Cut(name, "|")
	cmd := s.lookup([]byte(parent))
	if cmd == nil || !isSub {
		return cmd
	}
	if cmd.Subs == nil || strings.Contains(sub, "|") {
		return nil
	}
	return cmd.Sub([]byte(sub))
}

// infoLatencyStats writes INFO's latencystats section: for each command
// with calls, by name, the configured percentiles in microseconds.
func (s *Server) infoLatencyStats(b *strings.Builder) {
	percentiles := s.Config().LatencyPercentiles
	totals := s.latencyTotals(nil)
	type row struct {
		name string
		h    *latCounts
	}
	var rows []row
	for id, h := range totals {
		if h != nil && h.total() > 0 {
			rows = append(rows, row{cmdtable.ByID(id).Name, h})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	for _, r := range rows {
		total := r.h.total()
		fmt.Fprintf(b, "latency_percentiles_usec_%s:", r.name)
		for j, p := range percentiles {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "p%s=%.3f", config.FormatPercentile(p), r.h.percentile(p, total))
		}
		b.WriteString("\r\n")
	}
}
