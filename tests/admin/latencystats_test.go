package admin

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// LATENCY HISTOGRAM and INFO latencystats: per-command latency histograms
// (latency-tracking).

// histogram is one command's entry of LATENCY HISTOGRAM, read from RESP2
// (flat arrays) or RESP3 (maps).
type histogram struct {
	calls   int64
	buckets [][2]int64 // label, cumulative calls
}

// kvPairs reads a RESP2 array or RESP3 map as key/value pairs.
func kvPairs(t *testing.T, v any) []any {
	t.Helper()
	switch m := v.(type) {
	case harness.Map:
		return m
	case []any:
		if len(m)%2 != 0 {
			t.Fatalf("odd map: %#v", m)
		}
		return m
	}
	t.Fatalf("not a map: %#v", v)
	return nil
}

// histograms parses a LATENCY HISTOGRAM reply, keeping the order.
func histograms(t *testing.T, v any) (names []string, h map[string]histogram) {
	t.Helper()
	h = map[string]histogram{}
	kv := kvPairs(t, v)
	for i := 0; i < len(kv); i += 2 {
		name := kv[i].(string)
		fields := kvPairs(t, kv[i+1])
		if len(fields) != 4 || fields[0] != "calls" || fields[2] != "histogram_usec" {
			t.Fatalf("%s: %#v", name, fields)
		}
		e := histogram{calls: fields[1].(int64)}
		b := kvPairs(t, fields[3])
		for j := 0; j < len(b); j += 2 {
			e.buckets = append(e.buckets, [2]int64{b[j].(int64), b[j+1].(int64)})
		}
		names = append(names, name)
		h[name] = e
	}
	return names, h
}

// Redis's buckets: the highest microsecond of HDR's sub-bucket at 1024·2^k ns.
var histogramLabels = []int64{1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16908, 33816, 67633, 135266, 270532, 541065, 1073741}

// check verifies the cumulative buckets end at the calls, only rise and
// carry Redis's labels.
func (e histogram) check(t *testing.T, name string, calls int64) {
	t.Helper()
	if e.calls != calls {
		t.Fatalf("%s: calls %d, want %d", name, e.calls, calls)
	}
	prevLabel, prev := int64(0), int64(0)
	for _, b := range e.buckets {
		if !slices.Contains(histogramLabels, b[0]) || b[0] <= prevLabel || b[1] <= prev {
			t.Fatalf("%s: buckets %v", name, e.buckets)
		}
		prevLabel, prev = b[0], b[1]
	}
	if prev != calls {
		t.Fatalf("%s: buckets %v end at %d, want %d", name, e.buckets, prev, calls)
	}
}

func TestLatencyHistogram(t *testing.T) {
	s := harness.Start(t)
	for _, proto := range []string{"2", "3"} {
		r := s.Raw(t)
		r.Do("HELLO", proto)
		r.Expect(harness.Status("OK"), "CONFIG", "RESETSTAT")
		// One at a time, then pipelined (counted in batches), then inside
		// a transaction (counted one by one).
		for i := range 20 {
			r.Expect(harness.Status("OK"), "SET", "k"+strconv.Itoa(i), "v")
		}
		var batch strings.Builder
		for i := range 30 {
			batch.WriteString(harness.Req("GET", "k"+strconv.Itoa(i)))
		}
		r.Send(batch.String())
		for range 30 {
			r.Read()
		}
		r.Expect(harness.Status("OK"), "MULTI")
		r.Expect(harness.Status("QUEUED"), "GET", "k1")
		r.Expect(harness.Status("QUEUED"), "SET", "k1", "w")
		r.Do("EXEC")
		r.Expect(harness.Status("OK"), "CONFIG", "SET", "hz", "10")

		// Named commands, in the order asked; a container lists its
		// subcommands with calls; unknown and idle ones are left out.
		names, h := histograms(t, r.Do("LATENCY", "HISTOGRAM", "get", "SET", "nosuch", "config", "dbsize", "config|nosuch", "get|x"))
		if len(names) != 4 || names[0] != "get" || names[1] != "set" || !slices.Contains(names, "config|resetstat") || !slices.Contains(names, "config|set") {
			t.Fatalf("RESP%s: commands %v", proto, names)
		}
		h["get"].check(t, "get", 31)
		h["set"].check(t, "set", 21)
		h["config|set"].check(t, "config|set", 1)
		// All of them, the others included; LATENCY HISTOGRAM's own calls
		// are counted after it runs.
		names, h = histograms(t, r.Do("LATENCY", "HISTOGRAM"))
		if !slices.Equal(names, []string{"config|resetstat", "config|set", "exec", "get", "latency|histogram", "multi", "set"}) {
			t.Fatalf("RESP%s: all commands %v", proto, names)
		}
		h["latency|histogram"].check(t, "latency|histogram", 1)
		h["exec"].check(t, "exec", 1)
		// Another connection sees this one's calls once they are answered.
		_, h = histograms(t, s.Raw(t).Do("LATENCY", "HISTOGRAM", "get"))
		h["get"].check(t, "get", 31)
	}
}

// INFO latencystats prints the configured percentiles of each command,
// sorted, and is part of INFO all and everything but not of the default.
func TestInfoLatencyStats(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for range 10 {
		r.Do("GET", "x")
	}
	r.Do("SET", "x", "1")
	st := s.Info(t, "latencystats")
	line := regexp.MustCompile(`^p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3}$`)
	for _, cmd := range []string{"get", "set"} {
		if v := st["latency_percentiles_usec_"+cmd]; !line.MatchString(v) {
			t.Fatalf("latency_percentiles_usec_%s:%q", cmd, v)
		}
	}
	txt := r.Do("INFO", "latencystats").(string)
	if !strings.HasPrefix(txt, "# Latencystats\r\nlatency_percentiles_usec_get:") {
		t.Fatalf("INFO latencystats:\n%s", txt)
	}
	for _, arg := range []string{"all", "everything"} {
		all := r.Do("INFO", arg).(string)
		i, j, k := strings.Index(all, "# Errorstats\r\n"), strings.Index(all, "# Latencystats\r\n"), strings.Index(all, "# Cluster\r\n")
		if i < 0 || j < i || k < j {
			t.Fatalf("INFO %s: Errorstats at %d, Latencystats at %d, Cluster at %d", arg, i, j, k)
		}
	}
	if strings.Contains(r.Do("INFO").(string), "Latencystats") {
		t.Fatal("INFO's default sections include latencystats")
	}
	// Other percentiles, none, and 0 and 100 as HDR computes them.
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "latency-tracking-info-percentiles", "0 25.5 100")
	if v := s.Info(t, "latencystats")["latency_percentiles_usec_get"]; !regexp.MustCompile(`^p0=\d+\.\d{3},p25\.5=\d+\.\d{3},p100=\d+\.\d{3}$`).MatchString(v) {
		t.Fatalf("get: %q", v)
	}
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "latency-tracking-info-percentiles", "")
	if v, ok := s.Info(t, "latencystats")["latency_percentiles_usec_get"]; !ok || v != "" {
		t.Fatalf("get with no percentiles: %q", v)
	}
}

// CONFIG RESETSTAT empties every histogram (Redis frees them), counting
// itself afterwards; with latency-tracking no, nothing is recorded, the
// CONFIG SET that turns it off included; turning it back on is recorded.
func TestLatencyHistogramResetAndTracking(t *testing.T) {
	s := harness.Start(t)
	r, other := s.Raw(t), s.Raw(t)
	for range 5 {
		r.Do("GET", "x")
		other.Do("GET", "x")
	}
	other.NetConn.Close() // its counts stay, with the closed clients'
	harness.Eventually(t, "the closed client's counts", func() bool {
		_, h := histograms(t, r.Do("LATENCY", "HISTOGRAM", "get"))
		return h["get"].calls == 10
	})
	r.Expect(harness.Status("OK"), "CONFIG", "RESETSTAT")
	names, h := histograms(t, r.Do("LATENCY", "HISTOGRAM"))
	if fmt.Sprint(names) != "[config|resetstat]" {
		t.Fatalf("after RESETSTAT: %v", names)
	}
	h["config|resetstat"].check(t, "config|resetstat", 1)
	if st := s.Info(t, "latencystats"); len(st) != 2 || st["latency_percentiles_usec_config|resetstat"] == "" { // and latency|histogram
		t.Fatalf("INFO latencystats after RESETSTAT: %v", st)
	}

	r.Expect(harness.Status("OK"), "CONFIG", "SET", "latency-tracking", "no")
	r.Expect([]any{"latency-tracking", "no", "latency-tracking-info-percentiles", "50 99 99.9"}, "CONFIG", "GET", "latency-tracking*")
	var batch strings.Builder
	for range 8 {
		batch.WriteString(harness.Req("GET", "x"))
	}
	r.Send(batch.String())
	for range 8 {
		r.Read()
	}
	r.Do("MULTI")
	r.Do("INCR", "n")
	r.Do("EXEC")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "latency-tracking", "yes")
	names, h = histograms(t, r.Do("LATENCY", "HISTOGRAM"))
	if fmt.Sprint(names) != "[config|resetstat config|set info latency|histogram]" {
		t.Fatalf("with tracking off: %v", names)
	}
	h["config|set"].check(t, "config|set", 1) // the one that turned it on
	// commandstats still count them
	if st := s.Info(t, "commandstats"); !strings.HasPrefix(st["cmdstat_get"], "calls=8,") {
		t.Fatalf("cmdstat_get = %q", st["cmdstat_get"])
	}
}

// LATENCY HELP lists HISTOGRAM as Redis does.
func TestLatencyHelp(t *testing.T) {
	s := harness.Start(t)
	help := s.Raw(t).Do("LATENCY", "HELP").([]any)
	var lines []string
	for _, l := range help {
		lines = append(lines, string(l.(harness.Status)))
	}
	if !slices.Contains(lines, "HISTOGRAM [COMMAND ...]") || lines[len(lines)-2] != "HELP" {
		t.Fatalf("LATENCY HELP: %q", lines)
	}
}

// Connections counting while others read the histograms, MEMORY STATS and
// reset nothing: once they are done, the calls add up.
func TestLatencyHistogramConcurrent(t *testing.T) {
	s := harness.Start(t)
	const conns, rounds = 4, 200
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.Raw(t)
			for j := range rounds {
				key := fmt.Sprintf("k%d:%d", i, j%10)
				r.Send(harness.Req("SET", key, "v") + harness.Req("GET", key) + harness.Req("GET", key))
				for range 3 {
					r.Read()
				}
			}
			r.NetConn.Close() // counted with the closed clients
		}()
	}
	go func() {
		defer close(done)
		r := s.Raw(t)
		for {
			r.Do("LATENCY", "HISTOGRAM", "get", "set")
			r.Do("INFO", "latencystats")
			r.Do("MEMORY", "STATS")
			if finished(&wg) {
				return
			}
		}
	}()
	wg.Wait()
	<-done
	r := s.Raw(t)
	harness.Eventually(t, "every connection's calls", func() bool {
		_, h := histograms(t, r.Do("LATENCY", "HISTOGRAM", "get", "set"))
		return h["get"].calls == 2*conns*rounds && h["set"].calls == conns*rounds
	})
	_, h := histograms(t, r.Do("LATENCY", "HISTOGRAM", "get", "set"))
	h["get"].check(t, "get", 2*conns*rounds)
	h["set"].check(t, "set", conns*rounds)
	s.NoPanics(t)
}

// finished reports whether wg's goroutines are done, without waiting.
func finished(wg *sync.WaitGroup) bool {
	c := make(chan struct{})
	go func() { wg.Wait(); close(c) }()
	select {
	case <-c:
		return true
	case <-time.After(time.Millisecond):
		return false
	}
}
