package keyspace

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
)

// An entry's 24 access bits hold, as Redis's robj.lru does, either the LRU
// clock of its last access (seconds) or, under an LFU maxmemory policy, a
// 16-bit time of the last decrement in minutes and an 8-bit logarithmic
// access counter.
var (
	lfuMode      atomic.Bool
	lfuLogFactor atomic.Int32
	lfuDecayTime atomic.Int32
)

// lfuInit is the counter of a new key, so that it is not evicted before it
// has had a chance to be used (Redis's LFU_INIT_VAL).
const lfuInit = 5

// SetLFU switches what the access bits of keys touched from now on record:
// access counts (on) or access times. Keys keep what they had until they are
// next touched, as in Redis after a policy change.
func SetLFU(on bool, logFactor, decayMinutes int) {
	lfuLogFactor.Store(int32(logFactor))
	lfuDecayTime.Store(int32(decayMinutes))
	lfuMode.Store(on)
}

// LFU reports whether access bits count accesses.
func LFU() bool { return lfuMode.Load() }

func lfuMinutes() uint32 { return Clock.Load() / 60 & 0xffff }

// stamp records that a key was just created or replaced.
func (e *Entry) stamp() {
	if lfuMode.Load() {
		e.SetAccess(lfuMinutes()<<8 | lfuInit)
		return
	}
	e.SetAccess(Clock.Load())
}

// countAccess records an access under an LFU policy, as Redis's updateLFU:
// decay, then a logarithmic increment.
func (e *Entry) countAccess() {
	c := e.Freq()
	if c < 255 {
		base := max(int(c)-lfuInit, 0)
		if rand.Float64() < 1/float64(base*int(lfuLogFactor.Load())+1) {
			c++
		}
	}
	e.SetAccess(lfuMinutes()<<8 | uint32(c))
}

// Freq is the key's LFU access counter after the decay due since it was last
// decremented (OBJECT FREQ). Meaningful only under an LFU policy.
func (e *Entry) Freq() uint8 {
	a := e.Access()
	ldt, c := a>>8, a&0xff
	if d := lfuDecayTime.Load(); d > 0 {
		elapsed := (lfuMinutes() - ldt) & 0xffff
		c -= min(c, elapsed/uint32(d))
	}
	return uint8(c)
}

// Victim scores an entry for eviction: the highest score goes first.
type Victim func(e *Entry) uint64

// Sample calls fn with up to n keys of the shard (only keys with an expiry
// when volatile), from a random place on, and their scores. The key string
// is the shard's own: fn copies it to keep it. Caller holds the lock.
func (s *Shard) Sample(n int, volatile bool, score Victim, fn func(key string, score uint64)) {
	if volatile {
		for k, e := range s.expires { // map iteration starts at a random place
			if n == 0 {
				return
			}
			fn(k, score(e))
			n--
		}
		return
	}
	if s.m.n == 0 {
		return
	}
	slots := s.m.slots
	mask := len(slots) - 1
	for i, j := 0, rand.IntN(len(slots)); i < len(slots) && n > 0; i, j = i+1, (j+1)&mask {
		if e := slots[j].e; e != nil {
			fn(e.keyString(), score(e))
			n--
		}
	}
}

// Evict deletes key, if it is there and, when volatile, still has an
// expiry, and reports whether it did. Caller holds the lock.
func (s *Shard) Evict(key string, volatile bool) bool {
	e := s.m.get(key)
	if e == nil || volatile && e.Expire == 0 {
		return false
	}
	s.remove(e.keyString(), e)
	return true
}

// LRUScore, LFUScore, TTLScore and RandomScore are the Victim of the
// maxmemory policies: least recently used, least frequently used, nearest
// expiry, and whichever key is looked at first.
func LRUScore(e *Entry) uint64 { return uint64(e.IdleSeconds(Clock.Load())) }

// LFUScore puts the least used keys first.
func LFUScore(e *Entry) uint64 { return uint64(255 - e.Freq()) }

// LFUScoreHits is LFUScore for what counts hits rather than keeping an
// access counter (the AI caches' entries): the counter a key would have
// after as many accesses, Redis's expected number of increments from
// lfuInit, decayed by the minutes since the last one.
func LFUScoreHits(hits, idleMs int64) uint64 {
	f := int64(lfuLogFactor.Load())
	c := int64(0) // increments: the b-th takes b*f+1 accesses on average
	for need := int64(1); c < 255-lfuInit && need <= hits; need += c*f + 1 {
		c++
	}
	c += lfuInit
	if d := int64(lfuDecayTime.Load()); d > 0 {
		c -= min(c, idleMs/60000/d)
	}
	return uint64(255 - c)
}

// TTLScore puts the keys that expire first first.
func TTLScore(e *Entry) uint64 { return math.MaxUint64 - uint64(e.Expire) }

// RandomScore ranks every key alike, so the first one looked at goes.
func RandomScore(*Entry) uint64 { return 0 }
