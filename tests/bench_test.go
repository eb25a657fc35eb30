package tests

import (
	"runtime"
	"strings"
	"testing"
)

// heapPer starts an in-process server, runs load against it and reports the
// live heap the load added divided by n, as the metric unit: a figure that,
// like the used_memory delta of Redis and Valkey (jemalloc's allocated
// bytes), counts size-class rounding but no garbage. HotKV's own INFO
// used_memory (HeapAlloc) would count garbage not yet collected.
func heapPer(b *testing.B, unit string, n int, load func(r *raw)) {
	var per float64
	for b.Loop() {
		s := start(b, "--loglevel", "warning")
		r := s.raw(b)
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
	s := start(b, "--loglevel", "warning")
	r := s.raw(b)
	var batch strings.Builder
	for i := range 100 {
		k := "bench:" + string(rune('a'+i%26))
		batch.WriteString(req("SET", k, "value-0123456789"))
		batch.WriteString(req("GET", k))
	}
	msg := batch.String()
	b.ReportAllocs()
	for b.Loop() {
		r.send(msg)
		for range 200 {
			r.read()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200), "ns/cmd")
}

// BenchmarkPingRoundTrip: one command per round trip (latency-bound).
func BenchmarkPingRoundTrip(b *testing.B) {
	s := start(b, "--loglevel", "warning")
	r := s.raw(b)
	for b.Loop() {
		r.send("*1\r\n$4\r\nPING\r\n")
		r.read()
	}
}
