package keyspace

import "sync/atomic"

// Tracker learns of key modifications for client-side caching (CLIENT
// TRACKING). Modified is called under the shard lock of the changed key,
// after the change; by is the ID of the client whose command holds that lock
// (0 for the expiry cycle, eviction and other internal work), which NOLOOP
// needs.
type Tracker interface {
	Modified(key string, by int64)
}

// tracking is what a database reports modifications to, while any client
// tracks keys.
type tracking struct {
	on atomic.Bool
	t  Tracker
}

// SetTracker installs the keyspace's tracker; tracking stays off until
// Track(true).
func (ks *Keyspace) SetTracker(t Tracker) { ks.tracking.t = t }

// anyTracking counts the keyspaces that track (Track), so that a write
// checks a global in cache instead of following s.db to the end of a large
// DB (a cache miss per write, 2% of a SET) while nothing is tracked.
var anyTracking atomic.Int32

// Track turns reporting modifications to the tracker on or off. While on,
// every write touches its keys (Observed), as WATCH needs.
func (ks *Keyspace) Track(on bool) {
	if ks.tracking.on.Swap(on) != on {
		n := int64(1)
		if !on {
			n = -1
		}
		observers.Add(n)
		anyTracking.Add(int32(n))
	}
}

// tracked reports whether modifications of s's keys are reported.
func (s *Shard) tracked() bool {
	return anyTracking.Load() != 0 && s.db != nil && s.db.tracking.on.Load()
}

// modified reports a change of k to the tracker.
func (s *Shard) modified(k string) {
	s.db.tracking.t.Modified(k, s.by)
}

// LockBy takes the shard's lock for the command of client id, whose
// modifications are then reported as its own.
func (s *Shard) LockBy(id int64) {
	s.mu.Lock()
	s.by = id
}

// ActFor reports the modifications made from now on under s's lock, which
// the caller holds, as client id's, and returns whose they were: a writer
// that serves a blocked client runs that client's command.
func (s *Shard) ActFor(id int64) (prev int64) {
	prev, s.by = s.by, id
	return prev
}

// LockAllBy is LockAll for the command of client id.
func (db *DB) LockAllBy(id int64) {
	for i := range db.shards {
		db.shards[i].LockBy(id)
	}
}

// LockAllBy is LockAll for the command of client id.
func (ks *Keyspace) LockAllBy(id int64) {
	for _, db := range ks.DBs {
		db.LockAllBy(id)
	}
}
