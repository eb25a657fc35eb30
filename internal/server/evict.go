package server

import (
	"cmp"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// maxmemory: keeping the data under a memory limit, by evicting keys or by
// refusing writes (docs/configuration.md, "Memory limit and eviction").
//
// Redis knows its memory use exactly from its allocator. The Go heap holds
// garbage until the next collection, so its size says little about the data
// between collections. What the runtime does know is the live heap the last
// collection marked; HotKV measures that, and between collections carries it
// forward by the keys added or removed since, at the bytes per key it had:
// inserting moves the estimate, overwriting (garbage only) does not.
//
// The data is kept to dataShare of maxmemory, and the runtime's soft memory
// limit is set to maxmemory, so that a collection runs before the heap,
// garbage included, reaches it. The rest is room for garbage: the closer the
// live heap comes to the limit, the more often the collector must run.
const dataShare = 0.75

const errOOM = "OOM command not allowed when used memory > 'maxmemory'."

// evictor is the server's maxmemory state, measured each cron tick.
type evictor struct {
	over    atomic.Bool  // the data is over its share: denyoom commands evict first, or get OOM
	excess  atomic.Int64 // keys still to evict to get back under
	evicted atomic.Int64 // INFO evicted_keys
	dbKeys  atomic.Pointer[[]dbCount]
	wake    chan struct{}
	pool    evictPool

	remeasure atomic.Bool  // the limit was set or lowered: collect now rather than wait
	overTime  atomic.Int64 // ms spent over the limit before the current spell
	overNow   atomic.Int64 // start of the current spell (unix ms), 0 if none

	// cron's own
	samples []metrics.Sample
	cycles  uint64
	liveGC  uint64    // live heap at the last collection
	keysGC  int64     // keys then
	lastGC  time.Time // when this tick saw it

	// applyMemoryConfig's own, under Server.evMu
	limit   int64 // the memory limit in force, 0 when maxmemory is off
	goLimit int64 // the runtime's memory limit before maxmemory set it
}

type dbCount struct{ keys, volatile int }

func newEvictor() *evictor {
	return &evictor{
		wake: make(chan struct{}, 1),
		samples: []metrics.Sample{
			{Name: "/gc/cycles/total:gc-cycles"},
			{Name: "/gc/heap/live:bytes"},
		},
	}
}

// applyMemoryConfig makes a new configuration's policy and limit take
// effect: the access bits keys record, and the runtime's memory limit.
func (s *Server) applyMemoryConfig(cfg *config.Config) {
	keyspace.SetLFU(strings.HasSuffix(cfg.MaxMemoryPolicy, "-lfu"), int(cfg.LFULogFactor), int(cfg.LFUDecayTime))
	ev := s.ev
	s.evMu.Lock()
	defer s.evMu.Unlock()
	switch {
	case cfg.MaxMemory > 0 && ev.limit == 0:
		ev.goLimit = debug.SetMemoryLimit(cfg.MaxMemory)
	case cfg.MaxMemory > 0:
		debug.SetMemoryLimit(cfg.MaxMemory)
	case ev.limit > 0:
		debug.SetMemoryLimit(ev.goLimit)
	}
	if cfg.MaxMemory > 0 && (ev.limit == 0 || cfg.MaxMemory < ev.limit) {
		ev.remeasure.Store(true)
	}
	ev.limit = cfg.MaxMemory
}

// releaseMemoryLimit gives the runtime back the memory limit it had (Shutdown).
func (s *Server) releaseMemoryLimit() {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if s.ev.limit > 0 {
		debug.SetMemoryLimit(s.ev.goLimit)
		s.ev.limit = 0
	}
}

// checkMemory measures the data against maxmemory (cron, each tick) and sets
// how many keys must go.
func (s *Server) checkMemory(now time.Time) {
	cfg := s.Config()
	ev := s.ev
	if cfg.MaxMemory == 0 {
		ev.over.Store(false)
		ev.excess.Store(0)
		ev.endSpell(now)
		return
	}
	counts := make([]dbCount, len(s.ks.DBs))
	var keys int64
	for i, db := range s.ks.DBs {
		k, v := db.Stats()
		counts[i] = dbCount{k, v}
		keys += int64(k)
	}
	ev.dbKeys.Store(&counts)
	// Collect now if the last collection may be long ago, when there were
	// other keys: the limit was just set, or the data has been over it for
	// a second without one (writes refused allocate little, and what was
	// deleted from inside collections shows only after a collection).
	if ev.remeasure.Swap(false) || ev.over.Load() && now.Sub(ev.lastGC) > time.Second {
		runtime.GC()
	}
	metrics.Read(ev.samples)
	if cycles := ev.samples[0].Value.Uint64(); cycles != ev.cycles {
		ev.cycles, ev.liveGC, ev.keysGC, ev.lastGC = cycles, ev.samples[1].Value.Uint64(), keys, now
	}
	perKey := int64(64)
	if ev.keysGC > 0 && ev.liveGC > s.startMem {
		perKey = max(perKey, int64(ev.liveGC-s.startMem)/ev.keysGC)
	}
	est := int64(ev.liveGC) + (keys-ev.keysGC)*perKey
	target := int64(float64(cfg.MaxMemory) * dataShare)
	if est <= target {
		ev.excess.Store(0)
		ev.over.Store(false)
		ev.endSpell(now)
		return
	}
	// At least one, even with no keys (the memory is then named vector
	// indexes or the AI layer's): writes try to evict, find nothing, and get
	// OOM, as in Redis when nothing is left to evict.
	ev.excess.Store(max(1, (est-target+perKey-1)/perKey))
	ev.over.Store(true)
	if ev.overNow.Load() == 0 {
		ev.overNow.Store(now.UnixMilli())
	}
	if cfg.MaxMemoryPolicy != "noeviction" {
		select {
		case ev.wake <- struct{}{}:
		default:
		}
	}
}

func (ev *evictor) endSpell(now time.Time) {
	if t := ev.overNow.Swap(0); t != 0 {
		ev.overTime.Add(now.UnixMilli() - t)
	}
}

// evictLoop evicts what checkMemory asks for, in the background; writers
// that arrive while the data is over the limit evict a key each as well, so
// that they cannot add faster than this loop removes.
func (s *Server) evictLoop() {
	defer s.wg.Done()
	ev := s.ev
	for {
		select {
		case <-s.closed:
			return
		case <-ev.wake:
		}
		for ev.excess.Load() > 0 {
			select {
			case <-s.closed:
				return
			default:
			}
			if !s.evictOne() {
				break
			}
			if ev.excess.Add(-1) <= 0 {
				ev.over.Store(false)
			}
		}
	}
}

// makeRoom is what a command that may add data does while the data is over
// the limit: evict one key, or answer false if the policy evicts nothing or
// nothing is left to evict (the command then gets OOM).
func (s *Server) makeRoom() bool {
	ev := s.ev
	if s.Config().MaxMemoryPolicy == "noeviction" {
		return false
	}
	if ev.excess.Add(-1) < 0 {
		ev.excess.Add(1)
		ev.over.Store(false)
		return true
	}
	if !s.evictOne() {
		ev.excess.Add(1)
		return false
	}
	return true
}

// evictOne deletes one key chosen by the policy, as a DEL would: logged to
// the append-only file, captured by a snapshot in progress, and failing the
// transactions watching it.
//
// As in Redis, the choice is approximate: each call samples
// maxmemory-samples keys of a random shard of a random database (weighted
// by its keys, or its keys with an expiry for the volatile policies) into a
// pool that keeps the best candidates seen by earlier calls too, then
// evicts the best. The pool is what keeps a shard that happens to have
// been emptied of good candidates from losing its remaining keys early.
func (s *Server) evictOne() bool {
	cfg := s.Config()
	volatile := strings.HasPrefix(cfg.MaxMemoryPolicy, "volatile-")
	var score keyspace.Victim
	switch strings.TrimPrefix(strings.TrimPrefix(cfg.MaxMemoryPolicy, "allkeys-"), "volatile-") {
	case "lru":
		score = keyspace.LRUScore
	case "lfu":
		score = keyspace.LFUScore
	case "ttl":
		score = keyspace.TTLScore
	case "random":
		return s.evictRandom(volatile)
	default:
		return false
	}
	p := &s.ev.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.policy != cfg.MaxMemoryPolicy { // scores of another policy do not compare
		p.c, p.policy = p.c[:0], cfg.MaxMemoryPolicy
	}
	for range 16 {
		d, idx, sh := s.pickShard(volatile)
		if sh == nil {
			return false
		}
		sh.Sample(int(cfg.MaxMemorySamples), volatile, score, func(k string, v uint64) { p.add(d, idx, k, v) })
		sh.Unlock()
		for len(p.c) > 0 {
			best := p.c[len(p.c)-1]
			p.c = p.c[:len(p.c)-1]
			if s.evictKey(best.db, best.shard, best.key, volatile) {
				return true
			}
		}
	}
	return false
}

// evictRandom evicts the first key found from a random place.
func (s *Server) evictRandom(volatile bool) bool {
	d, idx, sh := s.pickShard(volatile)
	if sh == nil {
		return false
	}
	var key string
	sh.Sample(1, volatile, keyspace.RandomScore, func(k string, _ uint64) { key = k })
	sh.Unlock()
	return key != "" && s.evictKey(d, idx, key, volatile)
}

// pickShard returns a random shard holding keys (keys with an expiry if
// volatile), locked, from a database drawn by its share of those keys; nil
// if there are none.
func (s *Server) pickShard(volatile bool) (int, int, *keyspace.Shard) {
	counts := s.ev.dbKeys.Load()
	if counts == nil {
		return 0, 0, nil
	}
	total := 0
	for _, c := range *counts {
		total += c.pick(volatile)
	}
	order := make([]int, 0, 1+len(*counts))
	if total > 0 {
		r := rand.IntN(total)
		for d, c := range *counts {
			if r -= c.pick(volatile); r < 0 {
				order = append(order, d)
				break
			}
		}
	}
	for d := range *counts { // the counts are a tick old: then any database
		order = append(order, d)
	}
	for _, d := range order {
		db := s.ks.DBs[d]
		start := rand.IntN(keyspace.ShardCount)
		for i := range keyspace.ShardCount {
			idx := (start + i) % keyspace.ShardCount
			sh := db.Shard(idx)
			sh.Lock()
			if volatile && sh.Volatile() > 0 || !volatile && sh.Len() > 0 {
				return d, idx, sh
			}
			sh.Unlock()
		}
	}
	return 0, 0, nil
}

func (c dbCount) pick(volatile bool) int {
	if volatile {
		return c.volatile
	}
	return c.keys
}

// evictKey deletes key from shard idx of database d if it is still there.
func (s *Server) evictKey(d, idx int, key string, volatile bool) bool {
	sh := s.ks.DBs[d].Shard(idx)
	sh.Lock()
	defer sh.Unlock()
	if j := s.snap.Load(); j != nil {
		j.capture(d, idx, sh)
	}
	if !sh.Evict(key, volatile) {
		return false
	}
	if s.aof != nil {
		s.aof.appendCmd(d, time.Now().UnixMilli(), [][]byte{[]byte("DEL"), []byte(key)})
	}
	s.ev.evicted.Add(1)
	return true
}

// evictPool holds the best eviction candidates sampled so far, in
// increasing score, as Redis's EvictionPoolLRU does.
type evictPool struct {
	mu     sync.Mutex
	policy string
	c      []candidate
}

type candidate struct {
	db, shard int
	key       string
	score     uint64
}

const poolSize = 16

func (p *evictPool) add(db, shard int, key string, score uint64) {
	if len(p.c) == poolSize && score <= p.c[0].score {
		return
	}
	i, _ := slices.BinarySearchFunc(p.c, score, func(c candidate, v uint64) int { return cmp.Compare(c.score, v) })
	if len(p.c) == poolSize { // drop the worst to make room
		copy(p.c, p.c[1:i])
		i--
	} else {
		p.c = append(p.c, candidate{})
		copy(p.c[i+1:], p.c[i:])
	}
	p.c[i] = candidate{db, shard, strings.Clone(key), score}
}

// deniedOnOOM reports whether cmd is refused while the data is over the
// limit and nothing can be evicted: commands that may add data, and EXEC of
// a transaction holding one. Inside MULTI, Redis 8 refuses only those too
// (the others are queued).
func (c *client) deniedOnOOM(cmd *command.Cmd) bool {
	return cmd.Flags&command.DenyOOM != 0 || cmd.Name == "exec" && c.multi != nil && c.multi.denyOOM
}
