package ai

import (
	"maps"
	"slices"
	"sync"
)

// Registry holds one server's prompt caches, semantic caches and memory
// namespaces, each kind in its own name space.
type Registry struct {
	mu     sync.RWMutex
	prompt map[string]*PromptCache
	sem    map[string]*SemCache
	mem    map[string]*Memory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{prompt: map[string]*PromptCache{}, sem: map[string]*SemCache{}, mem: map[string]*Memory{}}
}

func get[T any](r *Registry, m map[string]*T, name string) *T {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return m[name]
}

func put[T any](r *Registry, m map[string]*T, name string, v *T) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m[name] != nil {
		return ErrExists
	}
	m[name] = v
	return nil
}

func drop[T any](r *Registry, m map[string]*T, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := m[name]
	delete(m, name)
	return ok
}

func names[T any](r *Registry, m map[string]*T) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// CreatePrompt makes a prompt cache namespace.
func (r *Registry) CreatePrompt(name string, o PromptOptions) error {
	if o.MaxEntries < 0 || o.MaxBytes < 0 || o.TTL < 0 {
		return ErrConfigValue
	}
	return put(r, r.prompt, name, newPromptCache(o))
}

// Prompt returns a prompt cache namespace or nil.
func (r *Registry) Prompt(name string) *PromptCache { return get(r, r.prompt, name) }

// DropPrompt removes a namespace and reports whether it existed.
func (r *Registry) DropPrompt(name string) bool { return drop(r, r.prompt, name) }

// PromptNames lists the namespaces, sorted.
func (r *Registry) PromptNames() []string { return names(r, r.prompt) }

// CreateSem makes a semantic cache.
func (r *Registry) CreateSem(name string, o SemOptions) error {
	c, err := newSemCache(o)
	if err != nil {
		return err
	}
	return put(r, r.sem, name, c)
}

// Sem returns a semantic cache or nil.
func (r *Registry) Sem(name string) *SemCache { return get(r, r.sem, name) }

// DropSem removes a semantic cache and reports whether it existed.
func (r *Registry) DropSem(name string) bool { return drop(r, r.sem, name) }

// SemNames lists the semantic caches, sorted.
func (r *Registry) SemNames() []string { return names(r, r.sem) }

// CreateMemory makes an agent memory namespace.
func (r *Registry) CreateMemory(name string, o MemoryOptions) error {
	m, err := newMemory(o)
	if err != nil {
		return err
	}
	return put(r, r.mem, name, m)
}

// Memory returns a memory namespace or nil.
func (r *Registry) Memory(name string) *Memory { return get(r, r.mem, name) }

// DropMemory removes a memory namespace and reports whether it existed.
func (r *Registry) DropMemory(name string) bool { return drop(r, r.mem, name) }

// MemoryNames lists the memory namespaces, sorted.
func (r *Registry) MemoryNames() []string { return names(r, r.mem) }

// Replace makes o's namespaces r's, in one step (a replica's full
// synchronization); o is left empty. The maps are refilled in place: the
// accessors (get, put, ...) are handed them before they take mu.
func (r *Registry) Replace(o *Registry) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.prompt)
	maps.Copy(r.prompt, o.prompt)
	clear(o.prompt)
	clear(r.sem)
	maps.Copy(r.sem, o.sem)
	clear(o.sem)
	clear(r.mem)
	maps.Copy(r.mem, o.mem)
	clear(o.mem)
}
