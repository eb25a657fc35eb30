package tests

import (
	"strings"
	"testing"
)

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
