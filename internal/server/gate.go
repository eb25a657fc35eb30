package server

import "sync"

// The script gate. A Lua script cannot name the shards it will touch before
// it runs (a script may reach keys it was not given), so it locks them as it
// goes, in whatever order its commands need them. That is only safe if no
// one else ever holds one shard while waiting for another: single-shard
// commands never do, so only the code that takes several shard locks in a
// row (multi-key commands, EXEC, database-wide commands, a snapshot's
// instant, serving a waiter after a write) holds the gate shared, and a
// script holds it exclusively. The hot path of one-key commands never
// touches it; the others take one read lock, spread over gateParts mutexes
// by client so that many cores do not contend on one cache line.
type gate struct {
	parts [gateParts]struct {
		sync.RWMutex
		_ [64 - 24]byte
	}
}

const gateParts = 32

// shared takes the gate for one multi-lock section; part spreads readers
// (a client's id). It returns what to unlock.
func (g *gate) shared(part int64) *sync.RWMutex {
	m := &g.parts[uint64(part)%gateParts].RWMutex
	m.RLock()
	return m
}

// exclusive takes the gate for a script: no multi-lock section runs until
// release.
func (g *gate) exclusive() {
	for i := range g.parts {
		g.parts[i].Lock()
	}
}

func (g *gate) release() {
	for i := range g.parts {
		g.parts[i].Unlock()
	}
}
