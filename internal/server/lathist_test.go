package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/stats"
	"github.com/hotkv/hotkv/internal/tick"
)

// A connection's calls: bucket 0 implied by its calls, slower ones counted
// and published by flushStats, none with latency-tracking off; the command
// path counts without allocating once the histogram exists.
func TestLatencyClientCounts(t *testing.T) {
	s := benchServer(t)
	c := newClient(s, nil)
	get, set := cmdtable.Lookup([]byte("get")), cmdtable.Lookup([]byte("set"))
	ticks := func(us float64) int64 { return int64(us * 1000 / tick.NanosPerTick()) }
	run := func(cmd *cmdtable.Cmd, us float64) { // as call and runLocked count it
		if cmd != c.stats.runCmd {
			c.flushStats()
			c.stats.runCmd = cmd
		}
		d := ticks(us)
		c.stats.runCalls++
		c.stats.runTicks += d
		if !c.latPending(d) {
			c.latRecord(cmd, d)
		}
	}
	// LATENCY HISTOGRAM's view: calls, then each bucket's cumulative count.
	hist := func(cmd *cmdtable.Cmd) string {
		c.flushStats()
		out := make([]*stats.Counts, cmdtable.Count())
		stats.AddConn(out, &c.stats.lat, c.stats.calls, nil)
		h := out[cmd.ID]
		if h == nil {
			return "none"
		}
		calls, buckets := h.Cumulative()
		var b strings.Builder
		fmt.Fprintf(&b, "%d:", calls)
		for _, k := range buckets {
			fmt.Fprintf(&b, " %d=%d", k.UpTo, k.Calls)
		}
		return b.String()
	}
	for range 5 {
		run(get, 0.3)
	}
	run(get, 2.5)
	run(get, 2.2)
	run(get, 40)
	run(set, 0.5)
	if got := hist(get); got != "8: 1=5 2=7 66=8" {
		t.Errorf("get: %s", got)
	}
	if got := hist(set); got != "1: 1=1" {
		t.Errorf("set: %s", got)
	}
	s.cfg.Store(func() *config.Config { cfg := s.Config().Clone(); cfg.LatencyTracking = false; return cfg }())
	run(get, 0.2)
	run(get, 5.5)
	run(set, 7.5)
	c.flushStats() // as the CONFIG SET turning it on would
	s.cfg.Store(func() *config.Config { cfg := s.Config().Clone(); cfg.LatencyTracking = true; return cfg }())
	if got := hist(get); got != "8: 1=5 2=7 66=8" {
		t.Errorf("get after tracking off: %s", got)
	}
	run(get, 3.5)
	if got := hist(set); got != "1: 1=1" {
		t.Errorf("set after tracking off: %s", got)
	}
	if got := hist(get); got != "9: 1=5 2=7 4=8 66=9" {
		t.Errorf("get after tracking on: %s", got)
	}
	if n := testing.AllocsPerRun(100, func() {
		run(get, 0.2)
		run(get, 3.5)
		c.flushStats()
	}); n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}

// CONFIG RESETSTAT while clients close: a client's counts move to the
// server's as it leaves, and a reset between the two used to find them in
// neither place, then see them folded in after it (a CI failure).
func TestResetStatWhileClientsClose(t *testing.T) {
	s := benchServer(t)
	get := cmdtable.Lookup([]byte("get"))
	for i := range 20_000 {
		c := newClient(s, nil)
		c.stats.calls[get.ID].Store(5)
		c.stats.netIn.Store(100)
		s.clients.mu.Lock()
		s.clients.byID[c.id] = c
		s.wg.Add(1)
		s.clients.mu.Unlock()
		go s.removeClient(c)
		s.resetStats()
		s.wg.Wait()
		calls, _, _, _ := s.commandTotals()
		in, _, _, _ := s.netTotals()
		if calls[get.ID] != 0 || in != 0 || s.latencyTotals(nil)[get.ID] != nil {
			t.Fatalf("round %d: after RESETSTAT, a client that closed meanwhile left get calls %d, net input %d", i, calls[get.ID], in)
		}
	}
}
