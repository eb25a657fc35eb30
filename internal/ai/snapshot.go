package ai

import (
	"cmp"
	"encoding/gob"
	"io"
	"slices"
)

// Snapshot is the registry's whole state, for persistence: Registry.Save
// writes it, Registry.Load reads it back. Vectors are the stored ones
// (normalised for COSINE, decoded from INT8/BINARY codes); times are
// absolute unix ms.
type Snapshot struct {
	Prompt []PromptSnapshot
	Sem    []SemSnapshot
	Memory []MemorySnapshot
}

// PromptSnapshot is one prompt cache namespace, entries least recently
// used first.
type PromptSnapshot struct {
	Name    string
	Options PromptOptions
	Stats   PromptStats
	Entries []PromptEntry
}

// PromptEntry is one cached response.
type PromptEntry struct {
	Key         PromptKey
	Value       []byte
	TTL, Expire int64
}

// SemSnapshot is one semantic cache.
type SemSnapshot struct {
	Name    string
	Options SemOptions
	Next    uint64
	Entries []SemEntry
}

// SemEntry is one semantic cache entry.
type SemEntry struct {
	ID                      uint64
	Prompt, Response, Attrs string
	Vector                  []float32
	TTL, Expire, Used       int64
}

// MemorySnapshot is one memory namespace, memories in id order.
type MemorySnapshot struct {
	Name    string
	Options MemoryOptions
	Next    uint64
	Entries []MemoryEntry
}

// MemoryEntry is one memory.
type MemoryEntry struct {
	ID                           uint64
	Text, Attrs, Session         string
	Kind                         MemKind
	Importance                   float64
	Vector                       []float32
	Created, Access, TTL, Expire int64
}

// Snapshot copies the registry's state. Each object is copied under its
// own lock, so objects are consistent one by one.
func (r *Registry) Snapshot(now int64) *Snapshot {
	s := &Snapshot{}
	for _, n := range r.PromptNames() {
		if c := r.Prompt(n); c != nil {
			s.Prompt = append(s.Prompt, c.snapshot(n, now))
		}
	}
	for _, n := range r.SemNames() {
		if c := r.Sem(n); c != nil {
			s.Sem = append(s.Sem, c.snapshot(n, now))
		}
	}
	for _, n := range r.MemoryNames() {
		if m := r.Memory(n); m != nil {
			s.Memory = append(s.Memory, m.snapshot(n, now))
		}
	}
	return s
}

// Restore replaces the registry's state with s. Entries already expired at
// now are skipped.
func (r *Registry) Restore(s *Snapshot, now int64) error {
	fresh := NewRegistry()
	for _, p := range s.Prompt {
		c := newPromptCache(p.Options)
		for _, e := range p.Entries {
			if live(e.Expire, now) {
				c.restore(e, now)
			}
		}
		c.stats.Hits, c.stats.Misses, c.stats.Sets = p.Stats.Hits, p.Stats.Misses, p.Stats.Sets
		c.stats.Evicted, c.stats.Expired = p.Stats.Evicted, p.Stats.Expired
		fresh.prompt[p.Name] = c
	}
	for _, p := range s.Sem {
		c, err := newSemCache(p.Options)
		if err != nil {
			return err
		}
		for _, e := range p.Entries {
			if !live(e.Expire, now) {
				continue
			}
			if _, _, err := c.Store(SemStore{Prompt: e.Prompt, Response: e.Response, Attrs: e.Attrs, Vector: e.Vector, TTL: -1, ID: e.ID}, now); err != nil {
				return err
			}
			x := c.byID[e.ID]
			x.ttl = e.TTL
			x.used.Store(e.Used)
			c.tick.Store(max(c.tick.Load(), e.Used))
			x.expire.at.Store(e.Expire)
			if e.Expire != 0 {
				c.volatile++
			}
			c.schedule(x)
		}
		c.next = max(c.next, p.Next)
		fresh.sem[p.Name] = c
	}
	for _, p := range s.Memory {
		m, err := newMemory(p.Options)
		if err != nil {
			return err
		}
		for _, e := range p.Entries {
			if !live(e.Expire, now) {
				continue
			}
			if _, _, err := m.Add(MemAdd{Text: e.Text, Attrs: e.Attrs, Session: e.Session, Vector: e.Vector, Kind: e.Kind,
				Importance: e.Importance, TTL: -1, Dedup: -1, At: e.Created, ID: e.ID}, now); err != nil {
				return err
			}
			x := m.byID[e.ID]
			x.ttl = e.TTL
			x.access.Store(e.Access)
			x.expire.at.Store(e.Expire)
			m.schedule(x)
		}
		m.next = max(m.next, p.Next)
		fresh.mem[p.Name] = m
	}
	r.mu.Lock()
	r.prompt, r.sem, r.mem = fresh.prompt, fresh.sem, fresh.mem
	r.mu.Unlock()
	return nil
}

// Save writes the registry's state to w (encoding/gob of a Snapshot).
func (r *Registry) Save(w io.Writer, now int64) error {
	return gob.NewEncoder(w).Encode(r.Snapshot(now))
}

// Load replaces the registry's state with one Save wrote.
func (r *Registry) Load(rd io.Reader, now int64) error {
	var s Snapshot
	if err := gob.NewDecoder(rd).Decode(&s); err != nil {
		return err
	}
	return r.Restore(&s, now)
}

func (c *PromptCache) snapshot(name string, now int64) PromptSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	p := PromptSnapshot{Name: name, Options: c.opt, Stats: c.stats}
	for e := c.head.prev; e != &c.head; e = e.prev {
		p.Entries = append(p.Entries, PromptEntry{Key: e.key, Value: e.val, TTL: e.ttl, Expire: e.expire.at.Load()})
	}
	return p
}

// restore adds an entry as the most recently used one, last used now.
func (c *PromptCache) restore(p PromptEntry, now int64) {
	e := &pentry{key: p.Key, val: p.Value, ttl: p.TTL, access: now}
	e.expire.at.Store(p.Expire)
	c.add(e)
}

func (c *SemCache) snapshot(name string, now int64) SemSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now)
	p := SemSnapshot{Name: name, Options: c.opt, Next: c.next}
	for _, e := range c.byID {
		p.Entries = append(p.Entries, SemEntry{ID: e.id, Prompt: e.prompt, Response: e.response, Attrs: e.attrs,
			Vector: c.vector(e), TTL: e.ttl, Expire: e.expire.at.Load(), Used: e.used.Load()})
	}
	slices.SortFunc(p.Entries, func(a, b SemEntry) int { return cmp.Compare(a.ID, b.ID) })
	return p
}

func (m *Memory) snapshot(name string, now int64) MemorySnapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	p := MemorySnapshot{Name: name, Options: m.opt, Next: m.next}
	for _, e := range m.byID {
		p.Entries = append(p.Entries, MemoryEntry{ID: e.id, Text: e.text, Attrs: e.attrs, Session: e.session, Kind: e.kind,
			Importance: e.importance, Vector: m.vector(e), Created: e.created, Access: e.access.Load(), TTL: e.ttl,
			Expire: e.expire.at.Load()})
	}
	slices.SortFunc(p.Entries, func(a, b MemoryEntry) int { return cmp.Compare(a.ID, b.ID) })
	return p
}
