package server

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/stats"
)

// Per-command latency histograms (stats.ConnLatency, the client's lat
// field): LATENCY HISTOGRAM and INFO latencystats (latency-tracking,
// latency-tracking-info-percentiles).

// latPending reports whether a call of d ticks of the running command is
// in bucket 0, counted with its calls. It is on the path of every command;
// if not, the caller records the call with latRecord.
func (c *client) latPending(d int64) bool { return c.stats.lat.Fast(d) && c.ctx.After == nil }

// latRecord counts a call of cmd that took d ticks: the running command's
// in its pending counts (published by latFlush), another one (run by EXEC
// or a script) in its histogram at once. A command with an After part is
// counted by runAfter, with that part.
func (c *client) latRecord(cmd *cmdtable.Cmd, d int64) {
	if c.ctx.After != nil {
		c.stats.lat.Hold(d) // runAfter records the whole
		return
	}
	c.stats.lat.Record(cmd.ID, cmd == c.stats.runCmd, d, c.s.Config().LatencyTracking)
}

// latDue reports whether flushStats, publishing the running command's
// calls, has latFlush to call.
func (c *client) latDue() bool { return c.stats.lat.Pending() || !c.s.Config().LatencyTracking }

// latFlush publishes the running command's pending counts, after its calls
// (flushStats).
func (c *client) latFlush(calls uint64) {
	c.stats.lat.Flush(c.stats.runCmd.ID, calls, c.s.Config().LatencyTracking)
}

// latencyTotals sums the histograms of the closed and the live clients, by
// command ID (nil where a command has none). want, if not nil, selects the
// command IDs to sum.
func (s *Server) latencyTotals(want []bool) []*stats.Counts {
	s.clients.mu.Lock()
	defer s.clients.mu.Unlock()
	out := s.stats.LatencyTotals(want)
	for c := range s.liveClients() {
		stats.AddConn(out, &c.stats.lat, c.stats.calls, want)
	}
	return out
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
		h    *stats.Counts
	}
	var list []entry
	for _, id := range ids {
		if h := totals[id]; h != nil && h.Total() > 0 {
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
func writeHistogram(x *cmdtable.Ctx, h *stats.Counts) {
	calls, buckets := h.Cumulative()
	x.W.Map(2)
	x.W.BulkString("calls")
	x.W.Int(int64(calls))
	x.W.BulkString("histogram_usec")
	x.W.Map(len(buckets))
	for _, b := range buckets {
		x.W.Int(b.UpTo)
		x.W.Int(int64(b.Calls))
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
		h    *stats.Counts
	}
	var rows []row
	for id, h := range totals {
		if h != nil && h.Total() > 0 {
			rows = append(rows, row{cmdtable.ByID(id).Name, h})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	for _, r := range rows {
		total := r.h.Total()
		fmt.Fprintf(b, "latency_percentiles_usec_%s:", r.name)
		for j, p := range percentiles {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "p%s=%.3f", config.FormatPercentile(p), r.h.Percentile(p, total))
		}
		b.WriteString("\r\n")
	}
}
