package commands

import (
	"runtime"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// heapPer starts an in-process server, runs load against it and reports the
// live heap the load added divided by n, as the metric unit: a figure that,
// like the used_memory delta of Redis and Valkey (jemalloc's allocated
// bytes), counts size-class rounding but no garbage. HotKV's own INFO
// used_memory (HeapAlloc) would count garbage not yet collected.
func heapPer(b *testing.B, unit string, n int, load func(r *harness.Conn)) {
	var per float64
	for b.Loop() {
		s := harness.Start(b, "--loglevel", "warning")
		r := s.Raw(b)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		load(r)
		runtime.GC()
		runtime.ReadMemStats(&after)
		per = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	}
	b.ReportMetric(per, unit)
}

// BenchmarkPipelineSetGet: one connection, 100 SET+GET pairs per write, the
// server layer end to end (parse, dispatch, lock, reply, one write).
func BenchmarkPipelineSetGet(b *testing.B) {
	s := harness.Start(b, "--loglevel", "warning")
	r := s.Raw(b)
	var batch strings.Builder
	for i := range 100 {
		k := "bench:" + string(rune('a'+i%26))
		batch.WriteString(harness.Req("SET", k, "value-0123456789"))
		batch.WriteString(harness.Req("GET", k))
	}
	msg := batch.String()
	b.ReportAllocs()
	for b.Loop() {
		r.Send(msg)
		for range 200 {
			r.Read()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200), "ns/cmd")
}

// BenchmarkPingRoundTrip: one command per round trip (latency-bound).
func BenchmarkPingRoundTrip(b *testing.B) {
	s := harness.Start(b, "--loglevel", "warning")
	r := s.Raw(b)
	for b.Loop() {
		r.Send("*1\r\n$4\r\nPING\r\n")
		r.Read()
	}
}
