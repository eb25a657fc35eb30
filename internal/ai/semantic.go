package ai

import (
	"crypto/sha256"
	"math"
	"slices"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/vector/filter"
)

// SemOptions configure a semantic cache.
type SemOptions struct {
	VectorOptions
	Threshold  float64 // default distance threshold of a lookup
	TTL        int64   // default time to live in ms, 0 = none
	MaxEntries int     // 0 = unbounded; beyond it the least recently used entry goes
	Refresh    bool    // a hit restarts the entry's time to live
}

type sentry struct {
	item
	prompt, response, attrs string
	ttl                     int64
	used                    atomic.Int64 // the cache's tick at the last store or hit, for eviction
	access, hits            atomic.Int64 // unix ms of the last store or hit, and hits: for maxmemory (evict.go)
	key, phash              [32]byte
}

// bytes is what the entry's texts take.
func (e *sentry) bytes() int64 { return int64(len(e.prompt) + len(e.response) + len(e.attrs)) }

// SemCache is a semantic cache: responses found by the distance between
// prompt embeddings.
type SemCache struct {
	opt SemOptions
	store[*sentry]
	byKey    map[[32]byte]*sentry   // hash of prompt and attributes: storing both again replaces
	byPrompt map[[32]byte][]*sentry // hash of prompt: the exact-match tier

	tick                             atomic.Int64 // counts stores and hits: an LRU clock without ties
	hits, exactHits, misses, evicted atomic.Int64
	hitDist                          atomic.Uint64 // sum of hit distances, float64 bits

	text     int64 // bytes of the entries' texts, under mu
	volatile int   // entries with an expiry, under mu
}

func newSemCache(o SemOptions) (*SemCache, error) {
	if CheckThreshold(o.Metric, o.Threshold) != nil || o.TTL < 0 || o.MaxEntries < 0 {
		return nil, ErrConfigValue
	}
	c := &SemCache{opt: o, byKey: map[[32]byte]*sentry{}, byPrompt: map[[32]byte][]*sentry{}}
	if err := c.store.init(o.VectorOptions, c.unindex); err != nil {
		return nil, err
	}
	c.opt.VectorOptions = c.store.opt
	return c, nil
}

func (c *SemCache) unindex(e *sentry) {
	c.text -= e.bytes()
	if e.expire.at.Load() != 0 {
		c.volatile--
	}
	if c.byKey[e.key] == e {
		delete(c.byKey, e.key)
	}
	l := slices.DeleteFunc(c.byPrompt[e.phash], func(x *sentry) bool { return x == e })
	if len(l) == 0 {
		delete(c.byPrompt, e.phash)
	} else {
		c.byPrompt[e.phash] = l
	}
}

// Options returns the cache's configuration.
func (c *SemCache) Options() SemOptions { return c.opt }

func hashParts(parts ...string) [32]byte { return sha256.Sum256([]byte(joinLen(parts))) }

// joinLen concatenates length-prefixed parts, so that no two lists of
// parts give the same string.
func joinLen(parts []string) string {
	var b []byte
	for _, p := range parts {
		b = append(b, byte(len(p)>>24), byte(len(p)>>16), byte(len(p)>>8), byte(len(p)))
		b = append(b, p...)
	}
	return string(b)
}

// SemStore is one entry to store. TTL 0 takes the cache default, -1 means
// none.
type SemStore struct {
	Prompt, Response, Attrs string
	Vector                  []float32
	TTL                     int64
	ID                      uint64 // restore only: keep this id
	// Follow: a replica applying its master's stream, which sends the
	// master's MaxEntries evictions as deletions ahead of the store, so
	// the cache evicts none itself (the replica's order of use is its own).
	Follow bool
}

// Store adds an entry and returns its id, and the ids of the entries
// MaxEntries evicted to make room, for the caller to propagate. Storing the
// same prompt with the same attributes again replaces the old entry.
// Nothing changes on error.
func (c *SemCache) Store(s SemStore, now int64) (id uint64, evicted []uint64, err error) {
	if err := checkVector(&c.opt.VectorOptions, s.Vector); err != nil {
		return 0, nil, err
	}
	if err := checkAttrs(s.Attrs); err != nil {
		return 0, nil, err
	}
	if len(s.Prompt)+len(s.Response) > MaxTextBytes {
		return 0, nil, ErrTooLarge
	}
	ttl := s.TTL
	if ttl == 0 {
		ttl = c.opt.TTL
	}
	e := &sentry{prompt: s.Prompt, response: s.Response, attrs: s.Attrs, ttl: max(ttl, 0),
		key: hashParts(s.Prompt, s.Attrs), phash: sha256.Sum256([]byte(s.Prompt))}
	if e.ttl > 0 {
		e.expire.at.Store(now + e.ttl)
	}
	e.used.Store(c.tick.Add(1))
	e.access.Store(now)
	// The graph insert, the slow part, runs before the lock: lookups and
	// other stores go on meanwhile.
	node, err := c.idx.Add(s.Vector)
	if err != nil {
		return 0, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now)
	c.register(e, node, s.ID)
	c.text += e.bytes()
	if e.expire.at.Load() != 0 {
		c.volatile++
	}
	if old := c.byKey[e.key]; old != nil {
		c.remove(old)
	}
	c.byKey[e.key] = e
	c.byPrompt[e.phash] = append(c.byPrompt[e.phash], e)
	for !s.Follow && c.opt.MaxEntries > 0 && len(c.byID) > c.opt.MaxEntries {
		if id := c.evict(e); id != 0 {
			evicted = append(evicted, id)
		}
	}
	return e.id, evicted, nil
}

// evict removes the least recently used of a few entries, as Redis's
// approximated LRU does (map order is random), and returns its id (0:
// none); keep is never chosen.
func (c *SemCache) evict(keep *sentry) uint64 {
	var victim *sentry
	n := 0
	for _, e := range c.byID {
		if e != keep && (victim == nil || e.used.Load() < victim.used.Load()) {
			victim = e
		}
		if n++; n >= 8 {
			break
		}
	}
	if victim == nil {
		return 0
	}
	c.remove(victim)
	c.evicted.Add(1)
	return victim.id
}

// SemLookup is a lookup request. Threshold NaN means the cache default.
type SemLookup struct {
	Vector    []float32
	Threshold float64
	Filter    *filter.Expr
	Prompt    *string // try this exact prompt first
	EF        int     // 0: the cache's
	NoRefresh bool
}

// SemHit is a lookup's answer.
type SemHit struct {
	ID                      uint64
	Prompt, Response, Attrs string
	Distance                float32
	Exact                   bool
}

// Lookup finds the entry closest to the request within the threshold.
func (c *SemCache) Lookup(q SemLookup, now int64) (SemHit, bool, error) {
	t := q.Threshold
	if math.IsNaN(t) {
		t = c.opt.Threshold
	} else if err := CheckThreshold(c.opt.Metric, t); err != nil {
		return SemHit{}, false, err
	}
	if err := checkVector(&c.opt.VectorOptions, q.Vector); err != nil {
		return SemHit{}, false, err
	}
	c.sweepIfDue(now)
	pass := func(e *sentry) bool { return q.Filter == nil || q.Filter.Eval(e.attrs) }
	c.mu.RLock()
	defer c.mu.RUnlock()
	var hit *sentry
	var dist float32
	exact := false
	if q.Prompt != nil {
		for _, e := range c.byPrompt[sha256.Sum256([]byte(*q.Prompt))] {
			if live(e.expire.at.Load(), now) && pass(e) {
				hit, exact = e, true
				break
			}
		}
	}
	if hit == nil {
		ef := q.EF
		if ef == 0 {
			ef = c.opt.EF
		}
		res := c.search(q.Vector, 1, ef, now, pass)
		if len(res) == 0 || float64(res[0].Dist) > t {
			c.misses.Add(1)
			return SemHit{}, false, nil
		}
		hit, dist = c.byNode[res[0].ID], res[0].Dist
	} else {
		c.exactHits.Add(1)
	}
	c.hits.Add(1)
	addFloat(&c.hitDist, float64(dist))
	hit.used.Store(c.tick.Add(1))
	hit.access.Store(now)
	hit.hits.Add(1)
	if c.opt.Refresh && !q.NoRefresh && hit.ttl > 0 {
		hit.expire.at.Store(now + hit.ttl)
	}
	return SemHit{ID: hit.id, Prompt: hit.prompt, Response: hit.response, Attrs: hit.attrs,
		Distance: reported(c.opt.Metric, dist), Exact: exact}, true, nil
}

func addFloat(a *atomic.Uint64, d float64) {
	for {
		old := a.Load()
		if a.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

// Delete removes entries by id and returns how many existed.
func (c *SemCache) Delete(ids []uint64, now int64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now)
	n := 0
	for _, id := range ids {
		if e := c.byID[id]; e != nil {
			c.remove(e)
			n++
		}
	}
	return n
}

// DeleteMatching removes the entries whose attributes pass f.
func (c *SemCache) DeleteMatching(f *filter.Expr, now int64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now)
	n := 0
	for _, e := range c.byID {
		if f.Eval(e.attrs) {
			c.remove(e)
			n++
		}
	}
	return n
}

// SemStats are a cache's counters.
type SemStats struct {
	Entries                                   int
	Hits, ExactHits, Misses, Evicted, Expired int64
	HitRatio, AvgHitDistance                  float64
	IndexBytes                                int64
}

// Stats returns the counters.
func (c *SemCache) Stats(now int64) SemStats {
	c.sweepIfDue(now)
	c.mu.RLock()
	n := len(c.byID)
	c.mu.RUnlock()
	s := SemStats{Entries: n, Hits: c.hits.Load(), ExactHits: c.exactHits.Load(), Misses: c.misses.Load(),
		Evicted: c.evicted.Load(), Expired: c.expired.Load(), IndexBytes: c.idx.Bytes()}
	if total := s.Hits + s.Misses; total > 0 {
		s.HitRatio = float64(s.Hits) / float64(total)
	}
	if s.Hits > 0 {
		s.AvgHitDistance = math.Float64frombits(c.hitDist.Load()) / float64(s.Hits)
	}
	return s
}
