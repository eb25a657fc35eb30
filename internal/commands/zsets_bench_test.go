package commands

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// benchCtx is a handler context over a fresh keyspace holding "z": n members
// "member:i" with random scores in [0, n).
func zsetBenchCtx(n int) *cmdtable.Ctx {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	z := zset.New(0, 0)
	for _, i := range r.Perm(n) {
		z.Set("member:"+strconv.Itoa(i), r.Float64()*float64(n))
	}
	ks := keyspace.New(1)
	x := &cmdtable.Ctx{KS: ks, DB: ks.DBs[0], W: &resp.Writer{Proto: 3}}
	storeZSet(x, []byte("z"), z)
	return x
}

// BenchmarkZRangeLimit runs range commands through their handlers (parsing,
// search, reply encoding; no network) on 10k, 100k and 1M members. Each
// answers 10 elements from a random place, so the time should follow log n.
func BenchmarkZRangeLimit(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		x := zsetBenchCtx(n)
		r := rand.New(rand.NewPCG(2, 3))
		for _, c := range []struct {
			name string
			zRun func(*cmdtable.Ctx)
			args func() []string
		}{
			{"ZRANGEBYSCORE_LIMIT", zrangebyscore, func() []string {
				return []string{"ZRANGEBYSCORE", "z", "(" + strconv.Itoa(r.IntN(n)), "+inf", "WITHSCORES", "LIMIT", "0", "10"}
			}},
			{"ZRANGE_BYSCORE_REV_LIMIT", zrange, func() []string {
				return []string{"ZRANGE", "z", strconv.Itoa(r.IntN(n)), "-inf", "BYSCORE", "REV", "LIMIT", "5", "10"}
			}},
			{"ZRANGE_rank", zrange, func() []string {
				i := r.IntN(n - 10)
				return []string{"ZRANGE", "z", strconv.Itoa(i), strconv.Itoa(i + 9)}
			}},
		} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				reqs := make([][][]byte, 1024)
				for i := range reqs {
					for _, a := range c.args() {
						reqs[i] = append(reqs[i], []byte(a))
					}
				}
				b.ResetTimer()
				for i := range b.N {
					x.Args = reqs[i%len(reqs)]
					x.W.B = x.W.B[:0]
					c.zRun(x)
				}
			})
		}
	}
}
