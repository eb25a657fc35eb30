package ai

import "unsafe"

// What the server's maxmemory needs of the AI layer: how much memory each
// family holds, and the cache entries its eviction policy may choose from.
// Prompt and semantic cache entries are evicted like keys; agent memories
// are not (docs/configuration.md, "Memory limit and eviction").

// Bytes an entry takes besides its texts and vector: the entry itself and
// its slots in the maps and lists that index it, about.
var (
	promptEntryBytes = int64(unsafe.Sizeof(pentry{})) + 64 // map slot (key and pointer), expiry heap item
	semEntryBytes    = int64(unsafe.Sizeof(sentry{})) + 160
	memEntryBytes    = int64(unsafe.Sizeof(mentry{})) + 64
)

// Usage is the memory the registry's objects hold, in bytes, about:
// entries, texts and vector graphs. A graph keeps the room of deleted
// entries for new ones: it does not shrink until its cache or namespace is
// dropped.
type Usage struct {
	Prompt, Sem, Memory int64
}

// Cache is a prompt or semantic cache as an eviction source, with its entry
// counts as of Measure.
type Cache struct {
	name     string
	p        *PromptCache
	s        *SemCache
	Entries  int
	Volatile int // entries with an expiry
}

// Victim is a cache entry a maxmemory policy may evict.
type Victim struct {
	c      Cache
	key    PromptKey
	id     uint64
	Access int64 // unix ms of the last store or hit
	Expire int64 // unix ms, 0 if none
	Hits   int64
	Bytes  int64 // what it holds, its share of its cache's graph included
}

// Entry names v's entry: its cache, and its key in a prompt cache (prompt
// set) or its id in a semantic cache.
func (v *Victim) Entry() (cache string, prompt bool, key PromptKey, id uint64) {
	return v.c.name, v.c.p != nil, v.key, v.id
}

// Measure returns the memory each family holds and the caches that have
// entries.
func (r *Registry) Measure() (Usage, []Cache) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var u Usage
	var caches []Cache
	for name, c := range r.prompt {
		c.mu.Lock()
		n, v := len(c.m), c.volatile
		u.Prompt += c.stats.Bytes + int64(n)*promptEntryBytes
		c.mu.Unlock()
		if n > 0 {
			caches = append(caches, Cache{name: name, p: c, Entries: n, Volatile: v})
		}
	}
	for name, c := range r.sem {
		c.mu.RLock()
		n, v := len(c.byID), c.volatile
		u.Sem += c.text + int64(n)*semEntryBytes
		c.mu.RUnlock()
		u.Sem += c.idx.Bytes()
		if n > 0 {
			caches = append(caches, Cache{name: name, s: c, Entries: n, Volatile: v})
		}
	}
	for _, m := range r.mem {
		m.mu.RLock()
		u.Memory += m.text + int64(len(m.byID))*memEntryBytes
		m.mu.RUnlock()
		u.Memory += m.idx.Bytes()
	}
	return u, caches
}

// Sample calls fn with up to n of the cache's entries (only entries with an
// expiry if volatile), from a random place on.
func (c Cache) Sample(n int, volatile bool, fn func(Victim)) {
	if c.p != nil {
		p := c.p
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, e := range p.m { // map iteration starts at a random place
			if n == 0 {
				return
			}
			if at := e.expire.at.Load(); !volatile || at != 0 {
				fn(Victim{c: c, key: e.key, Access: e.access, Expire: at, Hits: e.hits, Bytes: int64(len(e.val)) + promptEntryBytes})
				n--
			}
		}
		return
	}
	s := c.s
	graph := s.idx.Bytes()
	s.mu.RLock()
	defer s.mu.RUnlock()
	share := graph / int64(max(len(s.byID), 1))
	for _, e := range s.byID {
		if n == 0 {
			return
		}
		if at := e.expire.at.Load(); !volatile || at != 0 {
			fn(Victim{c: c, id: e.id, Access: e.access.Load(), Expire: at, Hits: e.hits.Load(),
				Bytes: e.bytes() + semEntryBytes + share})
			n--
		}
	}
}

// Evict removes v's entry if its cache is still in the registry and the
// entry still in the cache (with an expiry, if volatile), and reports
// whether it did. The cache counts it as evicted (INFO's evicted).
func (r *Registry) Evict(v Victim, volatile bool) bool {
	if v.c.p != nil {
		if r.Prompt(v.c.name) != v.c.p {
			return false
		}
		c := v.c.p
		c.mu.Lock()
		defer c.mu.Unlock()
		e := c.m[v.key]
		if e == nil || volatile && e.expire.at.Load() == 0 {
			return false
		}
		c.remove(e)
		c.stats.Evicted++
		return true
	}
	if r.Sem(v.c.name) != v.c.s {
		return false
	}
	c := v.c.s
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byID[v.id]
	if e == nil || volatile && e.expire.at.Load() == 0 {
		return false
	}
	c.remove(e)
	c.evicted.Add(1)
	return true
}
