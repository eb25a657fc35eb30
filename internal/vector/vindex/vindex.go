// Package vindex is the server-wide registry of HotKV's named vector
// indexes (VSIM.CREATEINDEX and friends): indexes that are not keys, live
// beside the keyspace, and are searched and written without any keyspace
// lock, so that inserts and searches run in parallel on every core.
//
// Each Index is a vstore.Store (the element store Redis vector sets use too)
// with the name and configuration it was created with. Go callers (the AI
// layer, persistence) use this API directly: Registry.Create, Get, Drop,
// Names, Index.Search (which, unlike a vector set's, returns K hits whenever
// K elements pass a filter: search.go), and the Store methods Set, Delete,
// Vector, Attrs, Each.
package vindex

import (
	"errors"
	"slices"
	"sync"

	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// Index is one named index.
type Index struct {
	*vstore.Store
	Name string
}

// Registry holds the named indexes of one server. Safe for concurrent use.
type Registry struct {
	mu sync.RWMutex
	m  map[string]*Index
}

// ErrExists is returned by Create for a name already taken.
var ErrExists = errors.New("index already exists")

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[string]*Index{}} }

// Create makes an empty index.
func (r *Registry) Create(name string, c hnsw.Config) (*Index, error) {
	s, err := vstore.New(c)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[name]; ok {
		return nil, ErrExists
	}
	x := &Index{Store: s, Name: name}
	r.m[name] = x
	return x, nil
}

// Get returns the index called name, or nil.
func (r *Registry) Get(name string) *Index {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.m[name]
}

// Drop removes the index called name and reports whether it existed.
// Operations already holding it finish on the detached index.
func (r *Registry) Drop(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.m[name]
	delete(r.m, name)
	return ok
}

// Names lists the indexes, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	r.mu.RUnlock()
	slices.Sort(names)
	return names
}

// Stats sums the indexes' element counts and memory (for INFO).
func (r *Registry) Stats() (indexes, vectors int, bytes int64) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, x := range r.m {
		vectors += x.Len()
		bytes += x.Bytes()
	}
	return len(r.m), vectors, bytes
}

// Put adds a loaded index; false if its name is taken.
func (r *Registry) Put(x *Index) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[x.Name]; ok {
		return false
	}
	r.m[x.Name] = x
	return true
}

// Replace makes o's indexes r's, in one step (a replica's full
// synchronization); o is left empty.
func (r *Registry) Replace(o *Registry) {
	o.mu.Lock()
	m := o.m
	o.m = map[string]*Index{}
	o.mu.Unlock()
	r.mu.Lock()
	r.m = m
	r.mu.Unlock()
}
