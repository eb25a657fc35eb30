package ai

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
)

// PromptOptions configure a prompt cache namespace. Zero means unlimited
// (MaxEntries, MaxBytes) or no expiry (TTL).
type PromptOptions struct {
	MaxEntries int64
	MaxBytes   int64 // bound on the sum of stored response sizes
	TTL        int64 // default time to live in ms
	Refresh    bool  // a hit restarts the entry's time to live
}

// PromptStats are a namespace's counters.
type PromptStats struct {
	Entries, Bytes                       int64
	Hits, Misses, Sets, Evicted, Expired int64
}

// PromptKey is the server-side hash of one request: namespace, model,
// generation parameters (sorted by name, so their order does not matter)
// and prompt, each length-prefixed so that no two requests collide by
// concatenation.
type PromptKey [32]byte

// HashPrompt computes the key. params alternate names and values.
func HashPrompt(ns, model string, params [][2]string, prompt []byte) PromptKey {
	h := sha256.New()
	var n [8]byte
	field := func(b []byte) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte(ns))
	field([]byte(model))
	ps := slices.Clone(params)
	slices.SortFunc(ps, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	binary.LittleEndian.PutUint64(n[:], uint64(len(ps)))
	h.Write(n[:])
	for _, p := range ps {
		field([]byte(p[0]))
		field([]byte(p[1]))
	}
	field(prompt)
	var k PromptKey
	h.Sum(k[:0])
	return k
}

type pentry struct {
	key          PromptKey
	val          []byte
	ttl          int64 // ms, 0 = none
	expire       expState
	access, hits int64   // unix ms of the last store or hit, and hits: for maxmemory (evict.go)
	prev, next   *pentry // LRU list, most recent at head.next
}

func (e *pentry) exp() *expState { return &e.expire }

// PromptCache is one namespace of the exact prompt cache: responses by key,
// in LRU order, bounded by entry count and bytes.
type PromptCache struct {
	mu       sync.Mutex
	opt      PromptOptions
	m        map[PromptKey]*pentry
	head     pentry // sentinel of the LRU ring
	heap     expHeap[*pentry]
	stats    PromptStats
	volatile int // entries with an expiry
}

func newPromptCache(o PromptOptions) *PromptCache {
	c := &PromptCache{opt: o, m: map[PromptKey]*pentry{}}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// Options returns the namespace's configuration.
func (c *PromptCache) Options() PromptOptions {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opt
}

func (c *PromptCache) unlink(e *pentry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *PromptCache) pushFront(e *pentry) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}

func (c *PromptCache) remove(e *pentry) {
	c.unlink(e)
	delete(c.m, e.key)
	c.stats.Bytes -= int64(len(e.val))
	if e.expire.at.Load() != 0 {
		c.volatile--
	}
	c.heap.remove(e)
}

// add stores e as the most recently used entry.
func (c *PromptCache) add(e *pentry) {
	c.m[e.key] = e
	c.pushFront(e)
	c.stats.Bytes += int64(len(e.val))
	if e.expire.at.Load() != 0 {
		c.volatile++
	}
	c.heap.schedule(e)
}

func (c *PromptCache) expire(now int64) {
	c.heap.due(now, func(e *pentry) {
		c.remove(e)
		c.stats.Expired++
	})
}

// Set stores a response; ttl is in ms (0: the namespace default, -1: none).
// It reports whether the key was new, and the keys of the entries
// MaxEntries and MaxBytes evicted to make room, least recently used first,
// for the caller to propagate. With follow (a replica applying its
// master's stream, which sends the master's evictions as deletions ahead
// of the write) it evicts none: the replica's order of use is its own. A
// response larger than MaxBytes is refused with ErrTooLarge and nothing
// changes.
func (c *PromptCache) Set(k PromptKey, val []byte, ttl, now int64, follow bool) (added bool, evicted []PromptKey, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opt.MaxBytes > 0 && int64(len(val)) > c.opt.MaxBytes {
		return false, nil, ErrTooLarge
	}
	c.expire(now)
	if ttl == 0 {
		ttl = c.opt.TTL
	}
	ttl = max(ttl, 0)
	old := c.m[k]
	if old != nil {
		c.remove(old)
	}
	e := &pentry{key: k, val: append([]byte(nil), val...), ttl: ttl, access: now}
	if ttl > 0 {
		e.expire.at.Store(now + ttl)
	}
	c.add(e)
	c.stats.Sets++
	for !follow && ((c.opt.MaxEntries > 0 && int64(len(c.m)) > c.opt.MaxEntries) ||
		(c.opt.MaxBytes > 0 && c.stats.Bytes > c.opt.MaxBytes)) {
		evicted = append(evicted, c.head.prev.key)
		c.remove(c.head.prev)
		c.stats.Evicted++
	}
	return old == nil, evicted, nil
}

// Get returns the response for k and counts a hit or a miss. The returned
// slice is never modified afterwards (Set stores a new one).
func (c *PromptCache) Get(k PromptKey, now int64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	e := c.m[k]
	if e == nil || !live(e.expire.at.Load(), now) {
		c.stats.Misses++
		return nil, false
	}
	c.stats.Hits++
	e.access = now
	e.hits++
	c.unlink(e)
	c.pushFront(e)
	if c.opt.Refresh && e.ttl > 0 {
		e.expire.at.Store(now + e.ttl)
	}
	return e.val, true
}

// TTL returns the remaining time to live of k in ms: -1 without expiry, -2
// when absent (as PTTL).
func (c *PromptCache) TTL(k PromptKey, now int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	e := c.m[k]
	if e == nil {
		return -2
	}
	if at := e.expire.at.Load(); at != 0 {
		return at - now
	}
	return -1
}

// Delete removes the entries of keys and returns how many were there.
func (c *PromptCache) Delete(now int64, keys ...PromptKey) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	n := 0
	for _, k := range keys {
		if e := c.m[k]; e != nil {
			c.remove(e)
			n++
		}
	}
	return n
}

// Stats returns the counters.
func (c *PromptCache) Stats(now int64) PromptStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	s := c.stats
	s.Entries = int64(len(c.m))
	return s
}
