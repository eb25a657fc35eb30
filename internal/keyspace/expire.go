package keyspace

import (
	"math"
	"sync/atomic"
	"time"
)

// ExpiryStats count what expiry deleted, for INFO: keys whose time ran out
// (expired_keys) and parts of values, hash fields, whose own time ran out
// (expired_subkeys). Each keyspace has its own, which CONFIG RESETSTAT
// zeroes.
type ExpiryStats struct {
	Keys, Subkeys atomic.Int64
}

// Expirer reclaims expired keys that nobody reads, as Redis's active expire
// cycle does: sample volatile keys shard by shard, and keep going on a shard
// while more than a tenth of its sample had expired (at effort 1, see
// SetEffort), within a time budget.
type Expirer struct {
	ks         *Keyspace
	db, shard  int // where the next cycle resumes
	sampleSize int
	stale      int // percent of a sample expired at which a shard is left
	Stats      ExpireStats
}

// ExpireStats are Redis's statistics of its active expire cycle (INFO
// expired_stale_perc, expired_time_cap_reached_count,
// expire_cycle_cpu_milliseconds). One goroutine runs the cycles; INFO
// reads these at any time.
type ExpireStats struct {
	stale     atomic.Uint64 // float64 bits: running average of the sampled keys found expired
	CapHits   atomic.Int64  // cycles stopped by their time budget
	UsedMicro atomic.Int64  // time spent in cycles
}

// StalePerc is the estimated percentage of volatile keys that have expired
// and wait to be reclaimed.
func (st *ExpireStats) StalePerc() float64 { return 100 * math.Float64frombits(st.stale.Load()) }

// Reset is CONFIG RESETSTAT.
func (st *ExpireStats) Reset() {
	st.stale.Store(0)
	st.CapHits.Store(0)
	st.UsedMicro.Store(0)
}

// record is Redis's bookkeeping at the end of a cycle: the stale estimate
// is a running average to which each cycle's sample counts for 5%.
func (st *ExpireStats) record(sampled, expired int, capped bool, used time.Duration) {
	cur := 0.0
	if sampled > 0 {
		cur = float64(expired) / float64(sampled)
	}
	st.stale.Store(math.Float64bits(cur*0.05 + math.Float64frombits(st.stale.Load())*0.95))
	if capped {
		st.CapHits.Add(1)
	}
	st.UsedMicro.Add(used.Microseconds())
}

// subQuota bounds the expired hash fields deleted per shard visit, so the
// shard lock is held for a short while (about a millisecond at most).
const subQuota = 1000

// bigValue is the size from which an expired value is worth telling the
// lazy free of, which collects once such drops add up to a large part of
// the heap: an idle server's memory falls after large values expire, as
// Redis's does. Small ones are left to the collector's pace: under steady
// traffic with TTLs, expiries are matched by writes, which Go's pacer
// collects after on its own (reporting them all forced collections about
// four times as often).
const bigValue = 64 << 10

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
	total, sampledKeys, expiredKeys, capped := 0, 0, 0, false
	var dropped int64 // bytes of the large values expired, for the lazy free
	defer func() {
		x.Stats.record(sampledKeys, expiredKeys, capped, time.Since(start))
		x.ks.Lazy.Drop(0, dropped)
	}()
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
			sampled, expired, bytes := s.ExpireSample(x.sampleSize, now.UnixMilli())
			dropped += bytes
			total += expired
			sampledKeys += sampled
			expiredKeys += expired
			if sampled == 0 || expired*100/sampled <= x.stale {
				break
			}
			// A shard full of expired keys (hash tags put many in one)
			// must not hold its lock past the budget.
			if now.After(deadline) {
				capped = true
				break
			}
		}
		// Hash fields: keep going on a shard while its quota was used up (a
		// large hash whose fields ran out is reclaimed in chunks) or more
		// than a tenth of the sampled hashes had expired fields.
		for len(s.subexp) > 0 {
			sampled, hit, expired := s.ExpireSubSample(x.sampleSize, subQuota, time.Now().UnixMilli())
			total += expired
			if expired < subQuota && hit*10 <= sampled {
				break
			}
			if time.Now().After(deadline) {
				capped = true
				break
			}
		}
		if len(s.expires) > 0 || len(s.subexp) > 0 {
			db.mayExpire.Store(true)
		}
		s.mu.Unlock()
		if visited%64 == 0 && time.Now().After(deadline) {
			capped = true
			break
		}
	}
	return total
}
