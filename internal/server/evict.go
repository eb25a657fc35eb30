package server

import (
	"cmp"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/ai"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/commands"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
)

// maxmemory: keeping the data under a memory limit, by evicting keys or by
// refusing writes (docs/configuration.md, "Memory limit and eviction").
//
// Redis knows its memory use exactly from its allocator. The Go heap holds
// garbage until the next collection, so its size says little about the data
// between collections. What the runtime does know is the live heap the last
// collection marked; HotKV measures that, and between collections carries it
// forward by the keys added or removed since: inserting moves the estimate,
// overwriting (garbage only) does not. A key added is charged the average
// bytes per key of the last collection, within 64 B..1 KiB so that one huge
// key does not make every small one look huge; the next collection corrects
// what the average got wrong.
//
// Named vector indexes and the AI layer are not keys: their memory is
// measured by their own accounting (vindex, ai.Registry.Measure), carried
// forward from the last collection as keys are, and taken out of the
// collection's live heap before the bytes per key are averaged. Prompt and
// semantic cache entries are eviction candidates beside the keys, chosen by
// the same policy; named indexes and agent memory are never evicted, so when
// they alone (with the start-up memory) leave no room under the limit,
// evicting keys could not get there: nothing is evicted and writes get OOM.
//
// The data is kept to dataShare of maxmemory, and the runtime's soft memory
// limit is set to limitShare of it, so that a collection runs before the
// heap, garbage and fragmentation included, grows past that. What lies
// between is room for garbage: the closer the live heap comes to the
// runtime's limit, the more often the collector must run. Measured at
// 64 MB under allkeys-lru (docs/bench/history-2026-12-01.md): with the runtime's limit at
// maxmemory itself, collections ran back to back (goal = live heap) and SETs
// cost 9-13 µs of CPU each; at 1.25 x maxmemory, 3.3 µs, as in Redis, with
// the process's resident memory equal to Redis's at the same maxmemory.
const (
	dataShare  = 0.75
	limitShare = 1.25
)

const errOOM = "OOM command not allowed when used memory > 'maxmemory'."

// evictor is the server's maxmemory state, measured every hz tick by
// evictLoop.
type evictor struct {
	over    atomic.Bool  // the data is over its share: denyoom commands evict first, or get OOM
	excess  atomic.Int64 // bytes still to evict to get back under
	unit    atomic.Int64 // bytes an evicted key is credited: the average of the last collection
	pinned  atomic.Bool  // what cannot be evicted is over the share alone: refuse, evict nothing
	nothing atomic.Bool  // an eviction found nothing to evict: refuse at once until the next measurement
	evicted atomic.Int64 // INFO evicted_keys
	dbKeys  atomic.Pointer[[]dbCount]
	wake    chan struct{} // measure now (the limit changed)
	gen     atomic.Uint64 // bumped by each applyMemoryConfig: a measurement begun before is void
	done    atomic.Uint64 // the generation the last complete measurement was for
	pool    evictPool
	caches  atomic.Pointer[[]ai.Cache] // the caches with entries, as of the last measurement

	overTime atomic.Int64 // ms spent over the limit before the current spell
	overNow  atomic.Int64 // start of the current spell (unix ms), 0 if none

	// evictLoop's own
	samples  []metrics.Sample
	cycles   uint64
	liveGC   uint64    // live heap at the last collection
	keysGC   int64     // keys then
	othersGC int64     // memory of the named indexes and the AI layer then
	lastGC   time.Time // when evictLoop saw it
	dirtyGC  uint64    // write commands run at the last collection this loop forced
	measured int64     // the limit the last measurement was for

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

// memoryLimit is the limit the data is kept to: maxmemory, or none on a
// replica with replica-ignore-maxmemory yes (Redis's default), which
// neither evicts nor refuses writes for memory, as in Redis: it holds what
// its master holds, the master's deletions of what it evicts keeping it in
// step.
func (s *Server) memoryLimit(cfg *config.Config) int64 {
	if s.replicaFlag.Load() && cfg.ReplicaIgnoreMaxMemory() {
		return 0
	}
	return cfg.MaxMemory
}

// applyMemoryConfig makes a new configuration's policy and limit take
// effect: the access bits keys record, the runtime's memory limit, and a
// measurement against the new limit. When the limit is new or lower it
// returns the generation of that measurement, for awaitMeasurement, else 0.
// It runs again when the server becomes a replica or a master, which may
// change the limit (memoryLimit).
func (s *Server) applyMemoryConfig(cfg *config.Config) (tighter uint64) {
	keyspace.SetLFU(strings.HasSuffix(cfg.MaxMemoryPolicy, "-lfu"), int(cfg.LFULogFactor), int(cfg.LFUDecayTime))
	ev := s.ev
	s.evMu.Lock()
	defer s.evMu.Unlock()
	limit := s.memoryLimit(cfg)
	switch {
	case limit > 0 && ev.limit == 0:
		ev.goLimit = debug.SetMemoryLimit(-1)
		debug.SetMemoryLimit(runtimeLimit(limit, ev.goLimit)) // a lower GOMEMLIMIT stays
	case limit > 0:
		debug.SetMemoryLimit(runtimeLimit(limit, ev.goLimit))
	case ev.limit > 0:
		debug.SetMemoryLimit(ev.goLimit)
	}
	gen := ev.gen.Add(1)
	if limit > 0 && (ev.limit == 0 || limit < ev.limit) {
		tighter = gen
	}
	if limit == 0 || ev.limit > 0 && limit > ev.limit {
		// More room: writes need not wait for the next measurement.
		ev.over.Store(false)
		ev.excess.Store(0)
		ev.pinned.Store(false)
	}
	ev.limit = limit
	select {
	case ev.wake <- struct{}{}:
	default:
	}
	return tighter
}

// awaitMeasurement waits, a second at most, for evictLoop to measure the
// data against a limit CONFIG SET has just set or lowered, so that the next
// command meets it, as Redis checks the limit before every command. The
// caller must hold no shard lock (the measurement counts keys shard by
// shard).
func (s *Server) awaitMeasurement(gen uint64) {
	deadline := time.Now().Add(time.Second)
	for s.ev.done.Load() < gen && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
	}
}

func runtimeLimit(maxmemory, goLimit int64) int64 {
	return min(int64(min(float64(maxmemory)*limitShare, math.MaxInt64/2)), goLimit)
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

// evictLoop measures the data against maxmemory every hz tick and evicts
// what is over, in the background; writers that arrive while the data is
// over the limit evict a key each as well (makeRoom), so that they cannot add
// faster than this loop removes.
func (s *Server) evictLoop() {
	defer s.wg.Done()
	ev := s.ev
	hz := s.Config().Hz
	t := time.NewTicker(time.Second / time.Duration(hz))
	defer t.Stop()
	for {
		select {
		case <-s.closed:
			return
		case <-t.C:
			if s.debug.cronPaused.Load() {
				continue // DEBUG PAUSE-CRON: only commands short of memory wake it
			}
		case <-ev.wake:
		}
		if h := s.Config().Hz; h != hz {
			hz = h
			t.Reset(time.Second / time.Duration(hz))
		}
		if s.loading.Load() { // Redis evicts nothing while loading
			continue
		}
		gen := s.checkMemory(time.Now())
		ev.done.Store(gen)
		if s.Config().MaxMemoryPolicy == "noeviction" {
			continue
		}
		for ev.excess.Load() > 0 && ev.gen.Load() == gen {
			select {
			case <-s.closed:
				return
			default:
			}
			freed, ok := s.evictOne()
			if !ok {
				break
			}
			if ev.excess.Add(-freed) <= 0 {
				ev.over.Store(false)
			}
		}
	}
}

// checkMemory measures the data against maxmemory and sets how much must
// be evicted. It returns the configuration generation it measured for: a
// CONFIG SET since voids what it found.
func (s *Server) checkMemory(now time.Time) uint64 {
	ev := s.ev
	gen := ev.gen.Load() // before reading the config it measures against
	cfg := s.Config()
	limit := s.memoryLimit(cfg)
	ev.nothing.Store(false)
	if limit == 0 {
		ev.over.Store(false)
		ev.excess.Store(0)
		ev.pinned.Store(false)
		ev.endSpell(now)
		ev.measured = 0
		return gen
	}
	counts := make([]dbCount, len(s.ks.DBs))
	var keys int64
	for i, db := range s.ks.DBs {
		k, v := db.Stats()
		counts[i] = dbCount{k, v}
		keys += int64(k)
	}
	ev.dbKeys.Store(&counts)
	f := s.families()
	ev.caches.Store(&f.caches)
	// Collect now when the last collection may say little about the data:
	// the limit was just set or lowered (it may be long ago, with other
	// keys), or the data has stayed over the limit for a second while
	// writes ran (a deletion inside a collection shows only in a collection;
	// an idle server is left alone).
	if limit < ev.measured || ev.measured == 0 {
		runtime.GC()
	} else if ev.over.Load() && now.Sub(ev.lastGC) > time.Second {
		if d := s.dirty() + uint64(ev.evicted.Load()); d != ev.dirtyGC { // writes or evictions ran
			ev.dirtyGC = d
			runtime.GC()
		}
	}
	ev.measured = limit
	metrics.Read(ev.samples)
	if cycles := ev.samples[0].Value.Uint64(); cycles != ev.cycles {
		ev.cycles, ev.liveGC, ev.keysGC, ev.othersGC, ev.lastGC = cycles, ev.samples[1].Value.Uint64(), keys, f.others(), now
	}
	avg := int64(64)
	if kb := int64(ev.liveGC) - int64(s.stats.startMem) - ev.othersGC; ev.keysGC > 0 && kb > 0 {
		avg = max(avg, kb/ev.keysGC)
	}
	// Keys added are charged at most 1 KiB; keys removed (evicted) are
	// credited the full average, the unit excess is counted in below, or
	// evicting large keys would hardly lower the estimate and the next
	// measurement would ask for them again.
	charge := avg
	if keys > ev.keysGC {
		charge = min(avg, 1024)
	}
	est := int64(ev.liveGC) + (keys-ev.keysGC)*charge + f.others() - ev.othersGC
	target := int64(float64(limit) * dataShare)
	if ev.gen.Load() != gen {
		return gen // the limit changed meanwhile: applyMemoryConfig woke the next measurement
	}
	ev.unit.Store(avg)
	if est <= target {
		ev.excess.Store(0)
		ev.pinned.Store(false)
		ev.over.Store(false)
		ev.endSpell(now)
		return gen
	}
	// Named indexes and agent memory over the share with the start-up
	// memory: emptying the keyspace and the caches would not get under it.
	pinned := f.indexes+f.usage.Memory > 0 && int64(s.stats.startMem)+f.indexes+f.usage.Memory > target
	ev.pinned.Store(pinned)
	if pinned {
		ev.excess.Store(0)
	} else {
		// At least one key's worth, even with no key (the memory is then
		// overhead): writes try to evict, find nothing, and get OOM, as in
		// Redis when nothing is left to evict. At most half of what can be
		// evicted per measurement, in case the estimate is wrong.
		ev.excess.Store(max(avg, min(est-target, (keys*avg+f.usage.Prompt+f.usage.Sem)/2)))
	}
	ev.over.Store(true)
	if ev.gen.Load() != gen {
		// applyMemoryConfig ran while this was stored: its clearing (or
		// the measurement it woke) wins over a result for the old limit.
		ev.excess.Store(0)
		ev.pinned.Store(false)
		ev.over.Store(false)
		return gen
	}
	if ev.overNow.Load() == 0 {
		ev.overNow.Store(now.UnixMilli())
	}
	return gen
}

func (ev *evictor) endSpell(now time.Time) {
	if t := ev.overNow.Swap(0); t != 0 {
		ev.overTime.Add(now.UnixMilli() - t)
	}
}

// resetStats is CONFIG RESETSTAT's part: evicted_keys and the time over
// the limit start again from zero (a spell in progress from now).
func (ev *evictor) resetStats() {
	ev.evicted.Store(0)
	ev.overTime.Store(0)
	if ev.overNow.Load() != 0 {
		ev.overNow.Store(time.Now().UnixMilli())
	}
}

// makeRoom is what a command that may add data does while the data is over
// the limit: evict one key or cache entry, or answer false if the policy
// evicts nothing, nothing is left to evict, or evicting cannot help (the
// command then gets OOM).
func (s *Server) makeRoom() bool {
	ev := s.ev
	cfg := s.Config()
	if s.memoryLimit(cfg) == 0 {
		return true // the limit was just lifted
	}
	if cfg.MaxMemoryPolicy == "noeviction" || ev.nothing.Load() || ev.pinned.Load() {
		return false
	}
	// Reserve a key's worth first, so that concurrent writers do not all
	// evict for the same excess; the credit is settled after.
	unit := ev.unit.Load()
	if ev.excess.Add(-unit) <= -unit {
		ev.excess.Add(unit)
		ev.over.Store(false)
		return true
	}
	freed, ok := s.evictOne()
	if !ok {
		ev.excess.Add(unit)
		ev.nothing.Store(true)
		return false
	}
	ev.excess.Add(unit - freed)
	return true
}

// evictOne deletes one key or cache entry chosen by the policy and returns
// the bytes it is credited. A key is deleted as a DEL would: logged to the
// append-only file, sent to replicas, captured by a snapshot in progress,
// and failing the transactions watching it. A cache entry is removed as
// PCACHE.DELHASH or SCACHE.INVALIDATE would (evictEntry).
//
// As in Redis, the choice is approximate: each call samples
// maxmemory-samples keys of a random shard of a random database, or entries
// of a random cache (weighted by their keys and entries, or those with an
// expiry for the volatile policies), into a pool that keeps the best
// candidates seen by earlier calls too, then evicts the best. The pool is
// what keeps a shard that happens to have been emptied of good candidates
// from losing its remaining keys early.
func (s *Server) evictOne() (int64, bool) {
	cfg := s.Config()
	volatile := strings.HasPrefix(cfg.MaxMemoryPolicy, "volatile-")
	var score keyspace.Victim
	var cacheScore func(v *ai.Victim, now int64) uint64
	switch strings.TrimPrefix(strings.TrimPrefix(cfg.MaxMemoryPolicy, "allkeys-"), "volatile-") {
	case "lru":
		score = keyspace.LRUScore
		cacheScore = func(v *ai.Victim, _ int64) uint64 {
			return uint64(max(int64(keyspace.Clock.Load())-v.Access/1000, 0)) // seconds, as a key's
		}
	case "lfu":
		score = keyspace.LFUScore
		cacheScore = func(v *ai.Victim, now int64) uint64 { return keyspace.LFUScoreHits(v.Hits, now-v.Access) }
	case "ttl":
		score = keyspace.TTLScore
		cacheScore = func(v *ai.Victim, _ int64) uint64 { return math.MaxUint64 - uint64(v.Expire) }
	case "random":
		return s.evictRandom(volatile)
	default:
		return 0, false
	}
	p := &s.ev.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.policy != cfg.MaxMemoryPolicy { // scores of another policy do not compare
		p.c, p.policy = p.c[:0], cfg.MaxMemoryPolicy
	}
	n := int(cfg.MaxMemorySamples)
	for range 16 {
		// A shard and a cache each time, as Redis samples every database.
		cache := s.pickCache(volatile, -1)
		d, idx, sh := s.pickShard(volatile)
		if sh == nil && cache == nil {
			return 0, false
		}
		if sh != nil {
			sh.Sample(n, volatile, score, func(k string, v uint64) {
				p.add(candidate{db: d, shard: idx, key: k, score: v})
			})
			sh.Unlock()
		}
		if cache != nil {
			now := time.Now().UnixMilli()
			cache.Sample(n, volatile, func(v ai.Victim) { p.add(candidate{cache: &v, score: cacheScore(&v, now)}) })
		}
		for len(p.c) > 0 {
			best := p.c[len(p.c)-1]
			p.c = p.c[:len(p.c)-1]
			if freed, ok := s.evict(best, volatile); ok {
				return freed, true
			}
		}
	}
	return 0, false
}

// evict deletes a candidate if it is still there, and returns the bytes it
// is credited.
func (s *Server) evict(c candidate, volatile bool) (int64, bool) {
	if c.cache != nil {
		return c.cache.Bytes, s.evictEntry(c.cache, volatile)
	}
	return s.ev.unit.Load(), s.evictKey(c.db, c.shard, c.key, volatile)
}

// evictEntry removes a cache entry if it is still there, and logs and
// replicates its removal as the command that removes one (one record per
// entry, as a key's DEL), so that neither a replica nor a restart from the
// log keeps it. regMu, shared, puts the removal and its record wholly
// before or after a snapshot's instant and each AI write with its record
// (with the log or a replica on, those hold regMu alone): a store of the
// same entry is never recorded on the wrong side of its eviction.
func (s *Server) evictEntry(v *ai.Victim, volatile bool) bool {
	s.regMu.RLock()
	defer s.regMu.RUnlock()
	if !s.reg.ai.Evict(*v, volatile) {
		return false
	}
	if !s.logging() {
		return true
	}
	var args [][]byte
	if cache, prompt, key, id := v.Entry(); prompt {
		args = commands.PromptRemoval(cache, key)
	} else {
		args = commands.SemRemoval(cache, id)
	}
	now := time.Now().UnixMilli()
	if s.feeding() {
		s.repl.FeedKeyless(now, args)
	}
	if a := s.aof.Load(); a != nil {
		a.AppendCmd(0, now, args)
	}
	return true
}

// evictRandom evicts the first key or cache entry found from a random
// place: a cache or a shard, in proportion to their entries and keys.
func (s *Server) evictRandom(volatile bool) (int64, bool) {
	for range 16 { // the key drawn may go (DEL, another eviction) before it is evicted
		keys := 0
		if counts := s.ev.dbKeys.Load(); counts != nil {
			for _, c := range *counts {
				keys += c.pick(volatile)
			}
		}
		var c candidate
		if cache := s.pickCache(volatile, keys); cache != nil {
			cache.Sample(1, volatile, func(v ai.Victim) { c.cache = &v })
		} else if d, idx, sh := s.pickShard(volatile); sh != nil {
			sh.Sample(1, volatile, keyspace.RandomScore, func(k string, _ uint64) { c = candidate{db: d, shard: idx, key: strings.Clone(k)} })
			sh.Unlock()
		} else if cache := s.pickCache(volatile, -1); cache != nil { // the key counts are a tick old
			cache.Sample(1, volatile, func(v ai.Victim) { c.cache = &v })
		} else {
			return 0, false
		}
		if c.cache != nil || c.key != "" {
			if freed, ok := s.evict(c, volatile); ok {
				return freed, true
			}
		}
	}
	return 0, false
}

// pickCache draws a cache by its share of the entries (those with an expiry
// if volatile) as of the last measurement, nil if none has any. With keys
// >= 0 the draw is among the entries and that many keys too, and a key
// drawn is nil as well.
func (s *Server) pickCache(volatile bool, keys int) *ai.Cache {
	p := s.ev.caches.Load()
	if p == nil {
		return nil
	}
	caches := *p
	entries := func(c *ai.Cache) int {
		if volatile {
			return c.Volatile
		}
		return c.Entries
	}
	total := 0
	for i := range caches {
		total += entries(&caches[i])
	}
	if total == 0 {
		return nil
	}
	r := rand.IntN(total + max(keys, 0))
	for i := range caches {
		if r -= entries(&caches[i]); r < 0 {
			return &caches[i]
		}
	}
	return nil
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
	if total == 0 { // as of the last measurement; a later one looks again
		return 0, 0, nil
	}
	r := rand.IntN(total)
	for d, c := range *counts {
		if r -= c.pick(volatile); r < 0 {
			if idx, sh := s.shardWithKeys(d, volatile); sh != nil {
				return d, idx, sh
			}
			break
		}
	}
	for d := range *counts { // the counts are a tick old: then any database
		if idx, sh := s.shardWithKeys(d, volatile); sh != nil {
			return d, idx, sh
		}
	}
	return 0, 0, nil
}

// shardWithKeys returns the first shard of database d, from a random one
// on, that holds keys (with an expiry if volatile), locked.
func (s *Server) shardWithKeys(d int, volatile bool) (int, *keyspace.Shard) {
	db := s.ks.DBs[d]
	start := rand.IntN(keyspace.ShardCount)
	for i := range keyspace.ShardCount {
		idx := (start + i) % keyspace.ShardCount
		sh := db.Shard(idx)
		sh.Lock()
		if volatile && sh.Volatile() > 0 || !volatile && sh.Len() > 0 {
			return idx, sh
		}
		sh.Unlock()
	}
	return 0, nil
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
	if j := s.persist.snap.Load(); j != nil {
		j.capture(d, idx, sh)
	}
	if !sh.Evict(key, volatile) {
		return false
	}
	if s.feeding() {
		s.repl.Deleted(d, key, func(st *config.ReplMaster) bool { return st.LazyEviction })
	}
	if a := s.aof.Load(); a != nil {
		a.AppendCmd(d, time.Now().UnixMilli(), [][]byte{[]byte("DEL"), []byte(key)})
	}
	s.ev.evicted.Add(1)
	sh.Notify(notify.Evicted, "evicted", key)
	return true
}

// evictPool holds the best eviction candidates sampled so far, in
// increasing score, as Redis's EvictionPoolLRU does.
type evictPool struct {
	mu     sync.Mutex
	policy string
	c      []candidate
}

// candidate is a key of a shard, or a cache entry.
type candidate struct {
	db, shard int
	key       string
	cache     *ai.Victim
	score     uint64
}

const poolSize = 16

// add keeps c if it scores better than the worst kept; a key's string is
// cloned (the shard's own).
func (p *evictPool) add(c candidate) {
	if len(p.c) == poolSize && c.score <= p.c[0].score {
		return
	}
	i, _ := slices.BinarySearchFunc(p.c, c.score, func(c candidate, v uint64) int { return cmp.Compare(c.score, v) })
	if len(p.c) == poolSize { // drop the worst to make room
		copy(p.c, p.c[1:i])
		i--
	} else {
		p.c = append(p.c, candidate{})
		copy(p.c[i+1:], p.c[i:])
	}
	c.key = strings.Clone(c.key)
	p.c[i] = c
}

// deniedOnOOM reports whether cmd is refused while the data is over the
// limit and nothing can be evicted: commands that may add data, and EXEC of
// a transaction holding one. Inside MULTI, Redis 8 refuses only those too
// (the others are queued). A script declaring flags is refused unless they
// include no-writes or allow-oom (scriptFlags).
func (c *client) deniedOnOOM(cmd *cmdtable.Cmd, args [][]byte) bool {
	f, _ := c.s.scriptFlags(cmd, args)
	return f&cmdtable.DenyOOM != 0 || cmd.Name == "exec" && c.tx.multi != nil && c.tx.multi.denyOOM
}

// families is the memory of what is not keys, by its own accounting.
type families struct {
	indexes int64 // named vector indexes
	usage   ai.Usage
	caches  []ai.Cache // the caches with entries
}

func (s *Server) families() families {
	_, _, ix := s.reg.indexes.Stats()
	u, c := s.reg.ai.Measure()
	return families{ix, u, c}
}

// others is the whole of it.
func (f *families) others() int64 {
	return f.indexes + f.usage.Prompt + f.usage.Sem + f.usage.Memory
}
