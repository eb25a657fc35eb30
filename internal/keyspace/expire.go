package keyspace

import (
	"sync/atomic"
	"time"
)

// ExpiredKeys counts keys deleted because their time ran out (INFO expired_keys).
var ExpiredKeys atomic.Int64

// Expirer reclaims expired keys that nobody reads, as Redis's active expire
// cycle does: sample volatile keys shard by shard, and keep going on a shard
// while more than a tenth of its sample had expired, within a time budget.
type Expirer struct {
	ks         *Keyspace
	db, shard  int // where the next cycle resumes
	sampleSize int
}

// NewExpirer makes an expirer over ks.
func NewExpirer(ks *Keyspace) *Expirer { return &Expirer{ks: ks, sampleSize: 20} }

// Cycle works for at most budget and returns how many keys it deleted.
func (x *Expirer) Cycle(budget time.Duration) int {
	start := time.Now()
	deadline := start.Add(budget)
	total := 0
	visited, shards := 0, len(x.ks.DBs)*ShardCount
	for visited < shards {
		db := x.ks.DBs[x.db]
		s := &db.shards[x.shard]
		if x.shard++; x.shard == ShardCount {
			x.shard, x.db = 0, (x.db+1)%len(x.ks.DBs)
		}
		visited++
		s.mu.Lock()
		for len(s.expires) > 0 {
			now := time.Now()
			sampled, expired := s.ExpireSample(x.sampleSize, now.UnixMilli())
			total += expired
			// A shard full of expired keys (hash tags put many in one)
			// must not hold its lock past the budget.
			if expired*10 <= sampled || now.After(deadline) {
				break
			}
		}
		s.mu.Unlock()
		if visited%64 == 0 && time.Now().After(deadline) {
			break
		}
	}
	return total
}
