package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/tick"
)

// The LATENCY HISTOGRAM labels are Redis's (its documented example and
// observed replies: 1, 2, 4, 8, 16, 33 ... and 1073741 for calls from about
// half a second on).
func TestLatencyLabels(t *testing.T) {
	want := []int64{1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16908, 33816, 67633, 135266, 270532, 541065, 1073741}
	if fmt.Sprint(latLabels[:]) != fmt.Sprint(want) {
		t.Fatalf("labels %v, want %v", latLabels, want)
	}
}

// Every microsecond falls in the bucket whose range holds it, buckets are
// in order, and the LATENCY HISTOGRAM level of a call is the first label at
// or above it.
func TestLatencyBuckets(t *testing.T) {
	prevHi := int64(-1)
	for i := range latBuckets {
		lo, hi := latRange(i)
		if lo != prevHi+1 || hi < lo {
			t.Fatalf("bucket %d: [%d, %d] after %d", i, lo, hi, prevHi)
		}
		prevHi = hi
	}
	if prevHi != latMaxUs {
		t.Fatalf("the last bucket ends at %d", prevHi)
	}
	for us := int64(-3); us <= latMaxUs+10; us++ {
		if us > 5000 && us%97 != 0 && us < latMaxUs-10 {
			continue
		}
		i := latIndex(us)
		c := min(max(us, 0), latMaxUs)
		if lo, hi := latRange(i); c < lo || c > hi {
			t.Fatalf("%d µs in bucket %d [%d, %d]", us, i, lo, hi)
		}
		k := latLevel(i)
		if c > latLabels[k] && k < latLevels-1 || k > 0 && c <= latLabels[k-1] {
			t.Fatalf("%d µs at level %d (label %d)", us, k, latLabels[k])
		}
	}
}

// Percentiles print what Redis's HDR histogram prints for the same calls
// (values from Redis 8.0.2's INFO latencystats).
func TestLatencyPercentiles(t *testing.T) {
	one := func(us int64) *latCounts {
		var h latCounts
		h[latIndex(us)]++
		return &h
	}
	for _, tc := range []struct {
		us   int64
		p    float64
		want string
	}{
		{0, 50, "0.001"}, {1, 99, "1.003"}, {2, 50, "2.007"}, {3, 50, "3.007"}, {5, 50, "5.023"},
		{16, 99.9, "16.063"}, {11, 50, "11.007"}, {23, 50, "23.039"}, {0, 0, "0.001"},
	} {
		if got := fmt.Sprintf("%.3f", one(tc.us).percentile(tc.p, 1)); got != tc.want {
			t.Errorf("%d µs p%v = %s, want %s", tc.us, tc.p, got, tc.want)
		}
	}
	// Above 33 µs, within an eighth of the bucket, never below Redis's.
	for _, tc := range []struct {
		us        int64
		redis     float64
		tolerance float64
	}{{78, 78.335, 0.125}, {75, 75.263, 0.125}, {549453, 549453.823, 0.125}} {
		got := one(tc.us).percentile(50, 1)
		if got < tc.redis || got > tc.redis*(1+tc.tolerance) {
			t.Errorf("%d µs: p50 %.3f, Redis %.3f", tc.us, got, tc.redis)
		}
	}
	// Counts: p50 of 3 calls at 1 µs and 1 at 10 µs is 1.003; p99 10.047.
	var h latCounts
	h[latIndex(1)] += 3
	h[latIndex(10)]++
	if p50, p99 := h.percentile(50, 4), h.percentile(99, 4); fmt.Sprintf("%.3f %.3f", p50, p99) != "1.003 10.047" {
		t.Errorf("p50 %.3f p99 %.3f", p50, p99)
	}
}

// A connection's calls: bucket 0 implied by its calls, slower ones counted
// and published by flushStats, none with latency-tracking off; the command
// path counts without allocating once the histogram exists.
func TestLatencyClientCounts(t *testing.T) {
	s := benchServer(t)
	c := newClient(s, nil)
	get, set := cmdtable.Lookup([]byte("get")), cmdtable.Lookup([]byte("set"))
	ticks := func(us float64) int64 { return int64(us * 1000 / tick.NanosPerTick()) }
	run := func(cmd *cmdtable.Cmd, us float64) { // as call and runLocked count it
		if cmd != c.runCmd {
			c.flushStats()
			c.runCmd = cmd
		}
		d := ticks(us)
		c.runCalls++
		c.runTicks += d
		if !c.latPending(d) {
			c.latRecord(cmd, d)
		}
	}
	hist := func(cmd *cmdtable.Cmd) string {
		c.flushStats()
		out := make([]*latCounts, cmdtable.Count())
		clientLatency(c, out, nil)
		h := out[cmd.ID]
		if h == nil {
			return "none"
		}
		var b strings.Builder
		for i, n := range h {
			if n > 0 {
				fmt.Fprintf(&b, "%d:%d ", i, n)
			}
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
	if got := hist(get); got != "0:5 2:2 "+fmt.Sprint(latIndex(40))+":1 " {
		t.Errorf("get: %s", got)
	}
	if got := hist(set); got != "0:1 " {
		t.Errorf("set: %s", got)
	}
	s.cfg.Store(func() *config.Config { cfg := s.Config().Clone(); cfg.LatencyTracking = false; return cfg }())
	run(get, 0.2)
	run(get, 5.5)
	run(set, 7.5)
	c.flushStats() // as the CONFIG SET turning it on would
	s.cfg.Store(func() *config.Config { cfg := s.Config().Clone(); cfg.LatencyTracking = true; return cfg }())
	if got := hist(get); got != "0:5 2:2 "+fmt.Sprint(latIndex(40))+":1 " {
		t.Errorf("get after tracking off: %s", got)
	}
	run(get, 3.5)
	if got := hist(set); got != "0:1 " {
		t.Errorf("set after tracking off: %s", got)
	}
	if got := hist(get); got != "0:5 2:2 3:1 "+fmt.Sprint(latIndex(40))+":1 " {
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
		c.calls[get.ID].Store(5)
		c.netIn.Store(100)
		s.mu.Lock()
		s.clients[c.id] = c
		s.wg.Add(1)
		s.mu.Unlock()
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
