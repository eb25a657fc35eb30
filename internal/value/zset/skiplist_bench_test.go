package zset

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
)

// The measurement behind the choice of a B+tree: a Go port of Redis's
// zskiplist (spans for ranks, a backward link, 1-32 levels with p = 1/4),
// loaded with the same data as BenchmarkMemory and queried as
// BenchmarkRangeByRank / BenchmarkRangeByScoreLimit. Only the ordered half:
// the member dict Redis keeps beside it would come on top of its figure.
// See docs/bench/zsets.md.

const slMaxLevel = 32

type slLevel struct {
	forward *slNode
	span    int
}
type slNode struct {
	member   string
	score    float64
	backward *slNode
	level    []slLevel
}
type skiplist struct {
	header *slNode
	tail   *slNode
	length int
	lvl    int
	r      *rand.Rand
}

func newSL() *skiplist {
	return &skiplist{header: &slNode{level: make([]slLevel, slMaxLevel)}, lvl: 1, r: rand.New(rand.NewPCG(1, 1))}
}
func (sl *skiplist) randomLevel() int {
	l := 1
	for l < slMaxLevel && sl.r.Uint32()&0xFFFF < 0xFFFF/4 {
		l++
	}
	return l
}
func (sl *skiplist) insert(score float64, member string) {
	var update [slMaxLevel]*slNode
	var rank [slMaxLevel]int
	x := sl.header
	for i := sl.lvl - 1; i >= 0; i-- {
		if i == sl.lvl-1 {
			rank[i] = 0
		} else {
			rank[i] = rank[i+1]
		}
		for x.level[i].forward != nil && less(item{x.level[i].forward.score, x.level[i].forward.member}, item{score, member}) {
			rank[i] += x.level[i].span
			x = x.level[i].forward
		}
		update[i] = x
	}
	lv := sl.randomLevel()
	if lv > sl.lvl {
		for i := sl.lvl; i < lv; i++ {
			rank[i] = 0
			update[i] = sl.header
			update[i].level[i].span = sl.length
		}
		sl.lvl = lv
	}
	x = &slNode{member: member, score: score, level: make([]slLevel, lv)}
	for i := 0; i < lv; i++ {
		x.level[i].forward = update[i].level[i].forward
		update[i].level[i].forward = x
		x.level[i].span = update[i].level[i].span - (rank[0] - rank[i])
		update[i].level[i].span = (rank[0] - rank[i]) + 1
	}
	for i := lv; i < sl.lvl; i++ {
		update[i].level[i].span++
	}
	if update[0] != sl.header {
		x.backward = update[0]
	}
	if x.level[0].forward != nil {
		x.level[0].forward.backward = x
	} else {
		sl.tail = x
	}
	sl.length++
}
func (sl *skiplist) byRank(r int) *slNode { // 1-based
	x, t := sl.header, 0
	for i := sl.lvl - 1; i >= 0; i-- {
		for x.level[i].forward != nil && t+x.level[i].span <= r {
			t += x.level[i].span
			x = x.level[i].forward
		}
		if t == r {
			return x
		}
	}
	return nil
}
func (sl *skiplist) firstGE(min float64) *slNode {
	x := sl.header
	for i := sl.lvl - 1; i >= 0; i-- {
		for x.level[i].forward != nil && x.level[i].forward.score < min {
			x = x.level[i].forward
		}
	}
	return x.level[0].forward
}

var skiplistSets = map[int]*skiplist{}

func randomSkiplist(n int) *skiplist {
	if sl := skiplistSets[n]; sl != nil {
		return sl
	}
	r := rand.New(rand.NewPCG(1, uint64(n)))
	sl := newSL()
	for _, i := range r.Perm(n) {
		sl.insert(r.Float64()*float64(n), "member:"+strconv.Itoa(i))
	}
	skiplistSets[n] = sl
	return sl
}

func BenchmarkSkiplistRangeByRank(b *testing.B) {
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			sl := randomSkiplist(n)
			r := rand.New(rand.NewPCG(2, 3))
			sink := 0
			b.ResetTimer()
			for range b.N {
				x := sl.byRank(1 + r.IntN(n-10))
				for range 10 {
					sink += len(x.member)
					x = x.level[0].forward
				}
			}
			_ = sink
		})
	}
}

func BenchmarkSkiplistRangeByScoreLimit(b *testing.B) {
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			sl := randomSkiplist(n)
			r := rand.New(rand.NewPCG(2, 3))
			sink := 0
			b.ResetTimer()
			for range b.N {
				x := sl.firstGE(float64(r.IntN(n)))
				for j := 0; j < 10 && x != nil; j++ {
					sink += len(x.member)
					x = x.level[0].forward
				}
			}
			_ = sink
		})
	}
}

// BenchmarkSkiplistMemory is BenchmarkMemory/random for the skiplist alone.
func BenchmarkSkiplistMemory(b *testing.B) {
	const n = 1_000_000
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := rand.New(rand.NewPCG(8, 9))
		sl := newSL()
		for i := range n {
			sl.insert(r.Float64()*n, "member:"+strconv.Itoa(i))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/member")
		runtime.KeepAlive(sl)
	}
}
