package keyspace

import (
	"sync/atomic"
	"time"
)

// ExpiredKeys counts keys deleted because their time ran out (INFO expired_keys).
var ExpiredKeys atomic.Int64

// Expirer reclaims expired keys that nobody reads, as Redis's active expire
// cycle does: sample volatile keys shard by shard, and keep going on a shard
// while more than a tenth of its sample had expired (at effort 1, see
// SetEffort), within a time budget.
type Expirer struct {
	ks         *Keyspace
	db, shard  int // where the next cycle resumes
	sampleSize int
	stale      int // percent of a sample expired at which a shard is left
}

// subQuota bounds the expired hash fields deleted per shard visit, so the
// shard lock is held for a short while (about a millisecond at most).
const subQuota = 1000

// NewExpirer makes an expirer over ks, at effort 1.
func NewExpirer(ks *Keyspace) *Expirer { return &Expirer{ks: ks, sampleSize: 20, stale: 10} }

// SetEffort applies active-expire-effort (1 to 10) as Redis's
// activeExpireCycle does: 15+5×effort keys per sample, repeated on a shard
// while more than 11-effort percent of a sample had expired. (The budget,
// 23+2×effort percent of a tick in Redis, is Cycle's argument.)
func (x *Expirer) SetEffort(effort int) {
	e := min(max(effort, 1), 10) - 1
	x.sampleSize, x.stale = 20+5*e, 10-e
}

// Cycle works for at most budget and returns how many keys and hash fields
// it deleted.
func (x *Expirer) Cycle(budget time.Duration) int {
	start := time.Now()
	deadline := start.Add(budget)
	total := 0
	visited, shards := 0, len(x.ks.DBs)*ShardCount
	for visited < shards {
		db := x.ks.DBs[x.db]
		if x.shard == 0 {
			// A new pass over db. Skip it if nothing in it can expire;
			// otherwise clear the hint, which this pass sets again from
			// every shard still holding volatile keys, and a shard that
			// gets its first one meanwhile sets itself.
			if !db.mayExpire.Load() {
				x.db = (x.db + 1) % len(x.ks.DBs)
				visited += ShardCount
				continue
			}
			db.mayExpire.Store(false)
		}
		s := &db.shards[x.shard]
		if x.shard++; x.shard == ShardCount {
			x.shard, x.db = 0, (x.db+1)%len(x.ks.DBs)
		}
		visited++
		s.Lock() // not s.mu: what expires here was changed by no client (NOLOOP)
		for len(s.expires) > 0 {
			now := time.Now()
			sampled, expired := s.ExpireSample(x.sampleSize, now.UnixMilli())
			total += expired
			// A shard full of expired keys (hash tags put many in one)
			// must not hold its lock past the budget.
			if sampled == 0 || expired*100/sampled <= x.stale || now.After(deadline) {
				break
			}
		}
		// Hash fields: keep going on a shard while its quota was used up (a
		// large hash whose fields ran out is reclaimed in chunks) or more
		// than a tenth of the sampled hashes had expired fields.
		for len(s.subexp) > 0 {
			sampled, hit, expired := s.ExpireSubSample(x.sampleSize, subQuota, time.Now().UnixMilli())
			total += expired
			if expired < subQuota && hit*10 <= sampled || time.Now().After(deadline) {
				break
			}
		}
		if len(s.expires) > 0 || len(s.subexp) > 0 {
			db.mayExpire.Store(true)
		}
		s.mu.Unlock()
		if visited%64 == 0 && time.Now().After(deadline) {
			break
		}
	}
	return total
}
