package keyspace

import (
	"github.com/hotkv/hotkv/internal/notify"
)

// SubExpirer is a value whose parts expire on their own: a hash with field
// TTLs. Keys holding one are tracked per shard so that the active expiry
// cycle reclaims expired parts nobody reads.
type SubExpirer interface {
	// ExpireSub deletes up to max parts whose time ran out before now and
	// reports how many it deleted, how many parts are left and whether any
	// part still has an expiry.
	ExpireSub(now int64, max int) (deleted, left int, volatile bool)
	// SubVolatile reports whether any part has an expiry.
	SubVolatile() bool
}

// TrackSubExpire registers key, holding e, for active expiry of its parts.
// Call it after giving a part of e's value an expiry; it is cheap when the
// key is already tracked.
func (s *Shard) TrackSubExpire(key []byte, e *Entry) {
	if s.subexp[string(key)] == e {
		return
	}
	if s.subexp == nil {
		s.subexp = make(map[string]*Entry)
	}
	s.hintExpiry()
	s.subexp[string(key)] = e
}

// SubVolatile is the number of keys tracked for part expiry.
func (s *Shard) SubVolatile() int { return len(s.subexp) }

// ExpireSubSample visits up to n tracked keys and deletes up to quota of
// their expired parts in all, deleting a key whose last part expired. Keys
// that were replaced, deleted or no longer have expiring parts stop being
// tracked. It returns how many keys it looked at, in how many it found
// expired parts, and how many parts it deleted.
func (s *Shard) ExpireSubSample(n, quota int, now int64) (sampled, hit, expired int) {
	for k, e := range s.subexp {
		if sampled == n || expired >= quota {
			break
		}
		sampled++
		se, ok := e.Obj.(SubExpirer)
		if !ok || s.m.get(k) != e || !se.SubVolatile() {
			delete(s.subexp, k)
			continue
		}
		if e.Expire != 0 && e.Expire <= now {
			continue // the whole key goes with the key expiry
		}
		deleted, left, volatile := se.ExpireSub(now, quota-expired)
		if deleted == 0 {
			continue
		}
		hit++
		expired += deleted
		s.CountExpiredSubkeys(deleted)
		s.Notify(notify.Hash, "hexpired", k)
		if left == 0 {
			s.remove(k, e)
			s.Notify(notify.Generic, "del", k)
			s.tellExpired(k)
			continue
		}
		if !volatile {
			delete(s.subexp, k)
		}
		s.touch(k)
	}
	return sampled, hit, expired
}
