package server

import (
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// The LATENCY commands over the server's monitor (stats.Monitor) and
// histograms (lathist.go).

// latencySample feeds the monitor with an event of the server's own, such
// as an active expiry cycle ("expire-cycle"), that took d.
func (s *Server) latencySample(event string, d time.Duration) {
	if limit := s.Config().LatencyMonitorMs; limit > 0 && d.Milliseconds() >= limit {
		s.stats.latency.Add(event, d.Milliseconds())
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
	c.s.stats.latency.Add(event, us/1000)
}

func latencyLatest(x *cmdtable.Ctx) {
	latest := cl(x).s.stats.latency.Latest()
	x.W.Array(len(latest))
	for _, e := range latest {
		x.W.Array(4)
		x.W.BulkString(e.Event)
		x.W.Int(e.Last.At)
		x.W.Int(e.Last.Ms)
		x.W.Int(e.Max)
	}
}

func latencyHistory(x *cmdtable.Ctx) {
	samples := cl(x).s.stats.latency.History(string(x.Args[2]))
	x.W.Array(len(samples))
	for _, s := range samples {
		x.W.Array(2)
		x.W.Int(s.At)
		x.W.Int(s.Ms)
	}
}

func latencyReset(x *cmdtable.Ctx) {
	var events []string
	for _, e := range x.Args[2:] {
		events = append(events, string(e))
	}
	x.W.Int(int64(cl(x).s.stats.latency.Reset(events...)))
}

func latencyGraph(x *cmdtable.Ctx) {
	event := string(x.Args[2])
	graph, ok := cl(x).s.stats.latency.Graph(event)
	if !ok {
		x.W.Error("ERR No samples available for event '" + event + "'")
		return
	}
	x.W.Verbatim(graph)
}

func latencyDoctor(x *cmdtable.Ctx) { x.W.Verbatim(cl(x).s.stats.latency.Doctor()) }

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
