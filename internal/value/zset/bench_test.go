package zset

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
)

var sizes = []int{10_000, 100_000, 1_000_000}

// bigSets caches one set per size: building a million members takes a while.
var bigSets = map[int]*ZSet{}

// randomSet holds n members "member:i" with uniformly random scores in
// [0, n), inserted in random order as ZADD would.
func randomSet(n int) *ZSet {
	if z := bigSets[n]; z != nil {
		return z
	}
	r := rand.New(rand.NewPCG(1, uint64(n)))
	z := New(0, 0)
	for _, i := range r.Perm(n) {
		z.Set("member:"+strconv.Itoa(i), r.Float64()*float64(n))
	}
	bigSets[n] = z
	return z
}

// BenchmarkRangeByScoreLimit is ZRANGEBYSCORE key (x +inf LIMIT 0 10 at a
// random x: the cost should grow with log n, not n.
func BenchmarkRangeByScoreLimit(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			z := randomSet(n)
			r := rand.New(rand.NewPCG(2, 3))
			sink := 0
			b.ResetTimer()
			for range b.N {
				rg, _ := ParseScoreRange([]byte("("+strconv.Itoa(r.IntN(n))), []byte("+inf"))
				lo, hi := z.Slice(rg, false, 0, 10)
				it := z.At(lo)
				for i := lo; i <= hi; i++ {
					sink += len(it.Member())
					it.Next()
				}
			}
			_ = sink
		})
	}
}

// BenchmarkRangeByRank is ZRANGE key i i+9 at a random rank.
func BenchmarkRangeByRank(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			z := randomSet(n)
			r := rand.New(rand.NewPCG(2, 3))
			sink := 0
			b.ResetTimer()
			for range b.N {
				it := z.At(r.IntN(n - 10))
				for range 10 {
					sink += len(it.Member())
					it.Next()
				}
			}
			_ = sink
		})
	}
}

// BenchmarkRangeLimitDeepOffset is ZRANGEBYSCORE key -inf +inf LIMIT n/2 10:
// the offset is skipped by rank, not by walking.
func BenchmarkRangeLimitDeepOffset(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			z := randomSet(n)
			rg, _ := ParseScoreRange([]byte("-inf"), []byte("+inf"))
			sink := 0
			b.ResetTimer()
			for range b.N {
				lo, hi := z.Slice(rg, false, int64(n/2), 10)
				sink += hi - lo
			}
			_ = sink
		})
	}
}

// BenchmarkAddRemove is ZADD of a new member and ZREM of it again.
func BenchmarkAddRemove(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			z := randomSet(n)
			r := rand.New(rand.NewPCG(4, 5))
			b.ResetTimer()
			for range b.N {
				z.Set("new", r.Float64()*float64(n))
				z.Remove("new")
			}
		})
	}
}

// BenchmarkRank is ZRANK of a random member.
func BenchmarkRank(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			z := randomSet(n)
			r := rand.New(rand.NewPCG(6, 7))
			b.ResetTimer()
			for range b.N {
				z.Rank("member:" + strconv.Itoa(r.IntN(n)))
			}
		})
	}
}

// BenchmarkMemory reports the live heap per member of a 1M-member set
// (after a GC), members "member:0".. with random scores: the figure that
// INFO memory's used_memory grows by.
func BenchmarkMemory(b *testing.B) {
	for _, order := range []string{"random", "ascending"} {
		b.Run(order, func(b *testing.B) {
			const n = 1_000_000
			for range b.N {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				z := New(0, 0)
				r := rand.New(rand.NewPCG(8, 9))
				for i := range n {
					s := float64(i)
					if order == "random" {
						s = r.Float64() * n
					}
					z.Set("member:"+strconv.Itoa(i), s)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/member")
				runtime.KeepAlive(z)
			}
		})
	}
}
