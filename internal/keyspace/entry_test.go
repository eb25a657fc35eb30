package keyspace

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestStringEntriesOfEverySize(t *testing.T) {
	var s Shard
	sizes := []int{0, 1, 3, 7, 8, 9, 23, 24, 25, 100, 183, 184, 185, 1000}
	for _, kl := range sizes {
		for _, vl := range sizes {
			key := []byte(strings.Repeat("k", kl) + strconv.Itoa(vl))
			val := bytes.Repeat([]byte{'v'}, vl)
			s.SetString(key, val, 0, false)
		}
	}
	// Overwrite with bigger, smaller and appended values: the key bytes that
	// share the entry's buffer must survive every one of them.
	for _, kl := range sizes {
		for _, vl := range sizes {
			key := []byte(strings.Repeat("k", kl) + strconv.Itoa(vl))
			e := s.Lookup(key, 0)
			if e == nil || !bytes.Equal(e.Bytes(), bytes.Repeat([]byte{'v'}, vl)) {
				t.Fatalf("key %d+%d: entry %v", kl, vl, e)
			}
			e.SetBytes(append(e.Bytes(), "appended"...))
			s.SetString(key, bytes.Repeat([]byte{'w'}, vl/2), 0, false)
			s.SetString(key, bytes.Repeat([]byte{'x'}, vl+50), 0, false)
		}
	}
	n := 0
	s.Range(0, func(k string, e *Entry) bool {
		n++
		vl, err := strconv.Atoi(strings.TrimLeft(k, "k"))
		if err != nil || !bytes.Equal(e.Bytes(), bytes.Repeat([]byte{'x'}, vl+50)) {
			t.Fatalf("key %q holds %q", k, e.Bytes())
		}
		return true
	})
	if n != len(sizes)*len(sizes) {
		t.Fatalf("%d keys, want %d", n, len(sizes)*len(sizes))
	}
}

func TestSmallStringIsOneAllocation(t *testing.T) {
	var s Shard
	s.SetString([]byte("warm"), []byte("x"), 0, false)
	i := 0
	keys := make([][]byte, 100)
	for j := range keys {
		keys[j] = []byte("key:" + strconv.Itoa(j))
	}
	got := testing.AllocsPerRun(50, func() {
		s.SetString(keys[i%len(keys)], []byte("abc"), 0, false)
		s.Delete(keys[i%len(keys)], 0)
		i++
	})
	if got > 1 {
		t.Fatalf("%.1f allocations per new small string, want 1", got)
	}
}

// BenchmarkLookup reads random keys of a 1M-key database: the cost is the
// cache misses of the map, the key, the entry and the value.
func BenchmarkLookup(b *testing.B) {
	db := new(DB)
	const n = 1 << 20
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(100000000000+i))
		db.ShardFor(keys[i]).SetString(keys[i], []byte("xyz"), 0, false)
	}
	idx := make([]int32, 1<<16)
	for i := range idx {
		idx[i] = int32(rand.IntN(n))
	}
	b.ResetTimer()
	cpu := cpuTime()
	var sum int
	for i := 0; b.Loop(); i++ {
		k := keys[idx[i&(len(idx)-1)]]
		sum += len(db.ShardFor(k).Lookup(k, 0).Bytes())
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	if sum == 0 {
		b.Fatal("no values")
	}
}

// cpuTime is the process's CPU time in nanoseconds, steadier than wall time
// on a shared machine.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
