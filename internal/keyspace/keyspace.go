// Package keyspace holds the databases: sharded hash tables of typed entries,
// key expiry and WATCH bookkeeping. It knows nothing of the protocol or of
// commands; callers (the dispatcher) lock the shards a command touches before
// any method here that reads or writes a shard.
package keyspace

import (
	"iter"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hotkv/hotkv/internal/lazyfree"
	"github.com/hotkv/hotkv/internal/notify"
)

// ShardCount is the number of shards per database: a power of two well above
// the core count, so that independent keys rarely share a lock.
const ShardCount = 1024

// Kind is the type of a stored value.
type Kind uint8

// Value kinds, named as TYPE reports them.
const (
	KindString Kind = iota + 1
	KindList
	KindHash
	KindSet
	KindZSet
	KindVectorSet
	KindStream
)

var kindNames = [...]string{"none", "string", "list", "hash", "set", "zset", "vectorset", "stream"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Entry is one key's value: a string's bytes (Bytes), or a collection
// object in Obj, owned by the package of its type.
//
// It is 56 bytes, so that a small key and value stored with it (entry.go)
// fill an 80-byte size class: the string and the key are kept as a pointer
// and 32-bit lengths rather than 24- and 16-byte headers (strings and keys
// are at most proto-max-bulk-len, below 4 GiB), and the access clock takes
// 24 bits, as Redis's does.
type Entry struct {
	Obj    any
	str    *byte // the string value: str[:strLen], with room to strCap
	key    *byte // the key it is stored under, set by the shard's table
	Expire int64 // absolute unix milliseconds, 0 when the key does not expire
	strLen uint32
	strCap uint32
	keyLen uint32
	Kind   Kind
	access [3]byte // LRU clock (seconds, low 24 bits) of the last access, or LFU data (evict.go)
}

// NewString returns a string entry holding b, which it keeps.
func NewString(b []byte) *Entry {
	e := &Entry{Kind: KindString}
	e.SetBytes(b)
	return e
}

// Bytes is a string entry's value; nil for a collection.
func (e *Entry) Bytes() []byte { return unsafe.Slice(e.str, e.strCap)[:e.strLen] }

// SetBytes makes b the entry's string value, keeping b's array.
func (e *Entry) SetBytes(b []byte) {
	e.str, e.strLen, e.strCap = unsafe.SliceData(b), uint32(len(b)), uint32(min(cap(b), math.MaxUint32))
}

// keyString is the key the entry is stored under.
func (e *Entry) keyString() string { return unsafe.String(e.key, e.keyLen) }

func (e *Entry) setKey(k string) { e.key, e.keyLen = unsafe.StringData(k), uint32(len(k)) }

// clockMask keeps the 24 bits of the clock an entry stores.
const clockMask = 1<<24 - 1

// Access is the LRU clock of the entry's last access, in the 24 bits kept.
func (e *Entry) Access() uint32 {
	return uint32(e.access[0]) | uint32(e.access[1])<<8 | uint32(e.access[2])<<16
}

// SetAccess records an access at clock c (the low 24 bits of Clock).
func (e *Entry) SetAccess(c uint32) {
	e.access = [3]byte{byte(c), byte(c >> 8), byte(c >> 16)}
}

// IdleSeconds is the time since the last access at clock now, as Redis
// computes it from a 24-bit clock that wraps every 194 days.
func (e *Entry) IdleSeconds(now uint32) uint32 { return (now - e.Access()) & clockMask }

// Expired reports whether e's time has run out at now.
func (e *Entry) Expired(now int64) bool { return e.Expire != 0 && e.Expire <= now }

// Cloner is implemented by every collection type stored in Entry.Obj, so that
// COPY can duplicate values: Clone returns a deep copy sharing no mutable
// memory with the receiver.
type Cloner interface{ Clone() any }

// Clone returns a deep copy of e, expiry included; ok is false when e holds an
// object that is not a Cloner.
func (e *Entry) Clone() (c *Entry, ok bool) {
	c = &Entry{Kind: e.Kind, Expire: e.Expire}
	if b := e.Bytes(); b != nil {
		c.SetBytes(append(make([]byte, 0, len(b)), b...))
	}
	if e.Obj != nil {
		o, ok := e.Obj.(Cloner)
		if !ok {
			return nil, false
		}
		c.Obj = o.Clone()
	}
	return c, true
}

// approxBytes is about what e and its key take, for the lazy free to judge
// whether a collection is due: a string's bytes, and for a collection a
// few dozen bytes an element (MEMORY USAGE's finer estimate lives with the
// commands).
func approxBytes(e *Entry) int64 {
	n := int64(unsafe.Sizeof(Entry{})) + int64(e.keyLen) + int64(e.strCap)
	if l, ok := e.Obj.(interface{ Len() int }); ok {
		n += int64(l.Len()) * 48
	}
	return n
}

// Encoder is implemented by collection types to name their representation as
// OBJECT ENCODING reports it ("listpack", "hashtable", ...).
type Encoder interface{ Encoding() string }

// Encoding is the name OBJECT ENCODING gives e's representation. Strings are
// named from their bytes as Redis's SET would store them: "int" for a
// canonical 64-bit integer, "embstr" up to 44 bytes, else "raw".
func (e *Entry) Encoding() string {
	if e.Kind == KindString {
		switch {
		case isInt(e.Bytes()):
			return "int"
		case len(e.Bytes()) <= 44:
			return "embstr"
		}
		return "raw"
	}
	if o, ok := e.Obj.(Encoder); ok {
		return o.Encoding()
	}
	return "unknown"
}

// SharedInt reports whether Redis would store e as one of its shared integer
// objects (0 to 9999), as OBJECT REFCOUNT reveals.
func (e *Entry) SharedInt() bool {
	if e.Kind != KindString || !isInt(e.Bytes()) {
		return false
	}
	n, _ := strconv.ParseInt(string(e.Bytes()), 10, 64)
	return n >= 0 && n < 10000
}

// isInt reports whether b is an int64 in canonical form (no sign but '-', no
// leading zero, no "-0"), as Redis's string2ll accepts.
func isInt(b []byte) bool {
	if len(b) == 0 || len(b) > 20 {
		return false
	}
	d := b
	if b[0] == '-' {
		d = b[1:]
	}
	if len(d) == 0 || d[0] < '0' || d[0] > '9' || d[0] == '0' && len(b) > 1 {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	_, err := strconv.ParseInt(string(b), 10, 64)
	return err == nil
}

// Watch is one client's WATCH state; a write to a watched key marks it dirty.
type Watch struct{ dirty atomic.Bool }

// Dirty reports whether a watched key was modified.
func (w *Watch) Dirty() bool { return w.dirty.Load() }

// MarkDirty fails the watching transaction.
func (w *Watch) MarkDirty() { w.dirty.Store(true) }

// Reset clears the dirty flag for a new WATCH round.
func (w *Watch) Reset() { w.dirty.Store(false) }

// Shard is one lock's worth of keys. All methods require the caller to hold
// the lock (Lock/Unlock).
type Shard struct {
	mu       sync.Mutex
	m        table
	expires  map[string]*Entry // the volatile subset of m, sampled by active expiry
	subexp   map[string]*Entry // keys whose values have expiring parts (hash field TTLs)
	watchers map[string][]*Watch
	waiters  map[string][]*Waiter
	ready    []*Waiter // waiters a write has readied; served before the lock is released
	db       *DB       // for its mayExpire hint; nil in a shard made on its own (tests)
	by       int64     // the client whose command holds the lock (LockBy), else 0
	_        [64]byte  // keep neighbouring shards' locks off one cache line
}

// Lock takes the shard's lock.
func (s *Shard) Lock() {
	s.mu.Lock()
	s.by = 0
}

// Unlock releases it.
func (s *Shard) Unlock() { s.mu.Unlock() }

// Len is the number of keys, including expired ones not yet reclaimed.
func (s *Shard) Len() int { return s.m.n }

// Volatile is the number of keys with an expiry.
func (s *Shard) Volatile() int { return len(s.expires) }

// Slots is the size of the shard's key table (MEMORY STATS): 16 bytes each.
func (s *Shard) Slots() int { return len(s.m.slots) }

// Probes calls fn with each key's probe length, the slots between its home
// slot and where it sits (DEBUG HTSTATS), and returns the table's size.
func (s *Shard) Probes(fn func(n int)) (slots int) {
	mask := len(s.m.slots) - 1
	for i, sl := range s.m.slots {
		if sl.e != nil {
			fn((i - int(sl.h)) & mask)
		}
	}
	return len(s.m.slots)
}

// Clock is the LRU clock in seconds, advanced by the server's cron.
var Clock atomic.Uint32

func init() { Clock.Store(uint32(time.Now().Unix())) } // keys made before the first tick are not ancient

// Lookup returns the live entry for key, deleting it first if it has expired.
func (s *Shard) Lookup(key []byte, now int64) *Entry {
	return s.LookupHashed(key, hashKey(bstr(key)), now)
}

// Prefetch starts loading the memory a lookup of key will read first and
// returns the key's hash for LookupHashed. A command looking up many keys
// prefetches them all, then calls PrefetchEntry for each, then looks them
// up: the cache misses of different keys overlap instead of queueing.
func (s *Shard) Prefetch(key []byte) (hash uint64) {
	h := hashKey(bstr(key))
	s.m.prefetchSlot(h)
	return h
}

// PrefetchEntry starts loading the entry a lookup of the key of hash h
// (from Prefetch) will compare.
func (s *Shard) PrefetchEntry(h uint64) { s.m.prefetchEntry(h) }

// LookupHashed is Lookup for a key whose hash came from Prefetch.
func (s *Shard) LookupHashed(key []byte, h uint64, now int64) *Entry {
	e := s.m.getHashed(bstr(key), h)
	if e == nil {
		return nil
	}
	if e.Expire != 0 && e.Expire <= now {
		s.expireUnlessPaused(e, now)
		return nil
	}
	// Written out here rather than called: this is every lookup's path.
	if lfuMode.Load() {
		e.countAccess()
	} else if c := Clock.Load() & clockMask; e.Access() != c {
		e.SetAccess(c) // only when it changes: a read should not dirty the cache line
	}
	return e
}

// Find returns the entry stored under key, whose hash h came from Prefetch,
// expired or not, changing nothing: for looking ahead at pipelined commands.
func (s *Shard) Find(key []byte, h uint64) *Entry { return s.m.getHashed(bstr(key), h) }

// Get returns the entry stored under key, expired or not, without touching
// it: DEBUG OBJECT and DIGEST-VALUE see keys whose time has run out, as
// Redis's do.
func (s *Shard) Get(key []byte) *Entry { return s.m.get(bstr(key)) }

// Peek is Lookup without updating the access time (OBJECT, TTL-style reads
// that Redis does not count as access still delete an expired key).
func (s *Shard) Peek(key []byte, now int64) *Entry {
	e := s.m.get(bstr(key))
	if e == nil {
		return nil
	}
	if e.Expire != 0 && e.Expire <= now {
		s.expireUnlessPaused(e, now)
		return nil
	}
	return e
}

// SetString stores a string value, reusing the existing entry's buffer when it
// is a string with room, so overwriting a key allocates nothing. The expiry is
// set to expire (0 clears it) unless keepTTL.
func (s *Shard) SetString(key, val []byte, expire int64, keepTTL bool) *Entry {
	e := s.m.get(bstr(key))
	if e != nil && s.expireStale(e) {
		e = nil
	}
	if e == nil {
		e, k := newStringEntry(key, val)
		s.m.put(k, e)
		if expire != 0 {
			s.setExpire(k, e, expire)
		}
		e.stamp()
		s.Notify(notify.New, "new", k)
		return e
	}
	// Keep the buffer unless it is more than twice too big; buffers up to
	// maxInline are kept anyway (an inline one cannot be freed on its own).
	if b := e.Bytes(); e.Kind == KindString && cap(b) >= len(val) && cap(b) <= max(2*len(val)+16, maxInline) {
		e.SetBytes(append(b[:0], val...))
	} else {
		e.SetBytes(append(make([]byte, 0, len(val)), val...))
	}
	e.Kind, e.Obj = KindString, nil
	if !lfuMode.Load() {
		e.SetAccess(Clock.Load())
	} // else the key keeps its LFU counter, as Redis's dbSetValue does; the caller's lookup counted the access
	if !keepTTL {
		s.SetExpire(key, e, expire)
	}
	return e
}

// Put stores e under key, replacing any previous value (and its expiry
// bookkeeping) with e's.
func (s *Shard) Put(key []byte, e *Entry) {
	var k string
	if old := s.m.get(bstr(key)); old != nil && !s.expireStale(old) {
		k = old.keyString()
		if old.Expire != 0 {
			delete(s.expires, k)
		}
	} else {
		k = string(key)
		defer s.Notify(notify.New, "new", k) // after the insertion: a subscriber may read the key
	}
	s.m.put(k, e)
	e.stamp()
	if e.Expire != 0 {
		s.setExpire(k, e, e.Expire)
	}
	if se, ok := e.Obj.(SubExpirer); ok && se.SubVolatile() {
		s.TrackSubExpire(key, e)
	}
}

// Reserve sizes an empty shard's table for n keys, so that loading a
// snapshot does not grow it step by step.
func (s *Shard) Reserve(n int) {
	s.m.reserve(n)
}

// SetExpire sets (at > 0) or clears (at == 0) e's expiry.
func (s *Shard) SetExpire(key []byte, e *Entry, at int64) {
	if at == 0 {
		if e.Expire != 0 {
			e.Expire = 0
			delete(s.expires, string(key))
		}
		return
	}
	if e.Expire != 0 {
		e.Expire = at
		return
	}
	s.setExpire(string(key), e, at)
}

func (s *Shard) setExpire(k string, e *Entry, at int64) {
	if s.expires == nil {
		s.expires = make(map[string]*Entry)
	}
	s.hintExpiry()
	e.Expire = at
	s.expires[k] = e
}

// Delete removes key and reports whether it held a live value.
func (s *Shard) Delete(key []byte, now int64) bool { return s.Take(key, now) != nil }

// Take is Delete, returning the value deleted (nil when the key had none).
func (s *Shard) Take(key []byte, now int64) *Entry {
	e := s.m.get(bstr(key))
	if e == nil {
		return nil
	}
	if e.Expired(now) {
		if expiryStopped.Load() { // a replica: its master's DEL is how keys expire
			s.remove(e.keyString(), e)
			return nil
		}
		s.expireUnlessPaused(e, now)
		return nil
	}
	s.remove(e.keyString(), e)
	return e
}

// expireStale expires e if its time has run out, for the writes that
// replace a key without looking it up first (MSET, the STORE commands): as
// in Redis, the old key expires and the new one is a new key.
func (s *Shard) expireStale(e *Entry) bool {
	if e.Expire == 0 || e.Expire > time.Now().UnixMilli() {
		return false
	}
	s.expire(e.keyString(), e)
	return true
}

// expiryPausedUntil is the unix millisecond until which keys whose time
// has run out are not deleted (CLIENT PAUSE): reads see them as missing,
// and the active cycle leaves them, as Redis pauses expiry so that what a
// paused server holds stays as it is.
var expiryPausedUntil atomic.Int64

// PauseExpiry pauses expiry until the unix millisecond until (0: resumes it).
func PauseExpiry(until int64) { expiryPausedUntil.Store(until) }

// expiryStopped: keys never expire by themselves (a replica: its master's
// DELs expire them); reads still see keys whose time has passed as missing.
var expiryStopped atomic.Bool

// StopExpiry stops expiry until StopExpiry(false), as for a pause with no end.
func StopExpiry(on bool) { expiryStopped.Store(on) }

// ExpiryPaused reports whether expiry is paused at now (unix ms).
func ExpiryPaused(now int64) bool { return expiryPausedUntil.Load() > now || expiryStopped.Load() }

// expireUnlessPaused deletes e, whose time has run out, unless expiry is
// paused.
func (s *Shard) expireUnlessPaused(e *Entry, now int64) {
	if !ExpiryPaused(now) {
		s.expire(e.keyString(), e)
	}
}

// expire removes k, whose time has run out, as Redis's expiry does.
func (s *Shard) expire(k string, e *Entry) {
	s.remove(k, e)
	s.countExpired()
	s.expired(k)
}

// expired publishes that k's time ran out: the notification, and the
// keyspace's OnExpire.
func (s *Shard) expired(k string) {
	s.Notify(notify.Expired, "expired", k)
	s.tellExpired(k)
}

// countExpired counts a key deleted because its time ran out in the
// keyspace's expired_keys.
func (s *Shard) countExpired() {
	if s.db != nil && s.db.expiry != nil {
		s.db.expiry.Keys.Add(1)
	}
}

// CountExpiredSubkeys counts n parts of a value of s deleted because their
// own time ran out in the keyspace's expired_subkeys.
func (s *Shard) CountExpiredSubkeys(n int) {
	if s.db != nil && s.db.expiry != nil {
		s.db.expiry.Subkeys.Add(int64(n))
	}
}

// tellExpired calls the keyspace's OnExpire for k, if set.
func (s *Shard) tellExpired(k string) {
	if s.db != nil && s.db.onExpire != nil {
		if fn := s.db.onExpire.Load(); fn != nil {
			(*fn)(s.db.id, k)
		}
	}
}

// Notify publishes a keyspace notification for key k of s's database, when
// class c is enabled.
func (s *Shard) Notify(c notify.Class, event, k string) {
	if s.db != nil {
		s.db.NotifyString(c, event, k)
	}
}

func (s *Shard) remove(k string, e *Entry) {
	s.m.del(k)
	if e.Expire != 0 {
		delete(s.expires, k)
	}
	if s.subexp != nil {
		delete(s.subexp, k)
	}
	for _, w := range s.watchers[k] { // a deletion wakes no list or zset waiter: there is nothing to pop
		w.MarkDirty()
	}
	if s.tracked() {
		s.modified(k)
	}
	if e.Kind == KindStream && len(s.waiters) != 0 {
		s.wakeEvery(k) // XREADGROUP waiters (Kind 0) re-run into their NOGROUP error, as in Redis
	}
	s.release()
}

// release drops the tables of a shard that has emptied: Go maps never shrink,
// and a burst of keys that all expire would otherwise keep its tables forever.
func (s *Shard) release() {
	if s.m.n == 0 {
		s.m, s.expires = table{}, nil
	}
}

// Range calls fn for every live key until it returns false. The key string is
// the map's own; fn must not modify the shard.
func (s *Shard) Range(now int64, fn func(key string, e *Entry) bool) {
	for _, sl := range s.m.slots {
		e := sl.e
		if e == nil || e.Expire != 0 && e.Expire <= now {
			continue
		}
		if !fn(e.keyString(), e) {
			return
		}
	}
}

// All iterates over every key, expired ones included. The body must not
// modify the shard.
func (s *Shard) All() iter.Seq2[string, *Entry] {
	return func(yield func(string, *Entry) bool) {
		for _, sl := range s.m.slots {
			if sl.e != nil && !yield(sl.e.keyString(), sl.e) {
				return
			}
		}
	}
}

// Clear drops every key, touching watched ones.
func (s *Shard) Clear() {
	for k, ws := range s.watchers {
		if s.m.get(k) != nil {
			for _, w := range ws {
				w.MarkDirty()
			}
		}
	}
	s.m, s.expires, s.subexp = table{}, nil, nil
	for k := range s.waiters {
		s.wakeEvery(k) // with no entry left, the XREADGROUP waiters (Kind 0): they re-run into NOGROUP, as after DEL
	}
}

// ExpireSample deletes expired keys among up to n volatile keys (Go's map
// iteration starts at a random point, which makes this a sample). It returns
// how many it looked at and how many it deleted, and about the bytes of
// the large ones among those (approxBytes, bigValue).
func (s *Shard) ExpireSample(n int, now int64) (sampled, expired int, bytes int64) {
	for k, e := range s.expires {
		if sampled == n {
			break
		}
		sampled++
		if e.Expire <= now {
			s.remove(k, e) // deleting from the map being ranged over is allowed
			expired++
			if b := approxBytes(e); b >= bigValue {
				bytes += b
			}
			s.countExpired()
			s.expired(k)
		}
	}
	s.release()
	return sampled, expired, bytes
}

// observers counts WATCH and blocked-client registrations in every shard of
// every keyspace, so that a write can skip hashing its keys again to look for
// them (Touch) while there are none. It changes under the registered key's
// shard lock, which the writer holds when it asks, so it never misses a
// registration made before the write.
var observers atomic.Int64

// Observed reports whether any key of any shard is watched or waited on: if
// not, Touch has nothing to do.
func Observed() bool { return observers.Load() != 0 }

// AddWatch registers w on key.
func (s *Shard) AddWatch(key []byte, w *Watch) {
	if s.watchers == nil {
		s.watchers = make(map[string][]*Watch)
	}
	k := string(key)
	s.watchers[k] = append(s.watchers[k], w)
	observers.Add(1)
}

// RemoveWatch unregisters w from key.
func (s *Shard) RemoveWatch(key []byte, w *Watch) {
	k := string(key)
	ws := s.watchers[k]
	for i, x := range ws {
		if x == w {
			ws[i] = ws[len(ws)-1]
			ws = ws[:len(ws)-1]
			observers.Add(-1)
			break
		}
	}
	if len(ws) == 0 {
		delete(s.watchers, k)
	} else {
		s.watchers[k] = ws
	}
}

// Touch signals a modification of key: clients watching it are marked dirty
// and the oldest client blocked on it that its value can serve is readied.
// Call it after modifying key.
func (s *Shard) Touch(key []byte) {
	if len(s.watchers) == 0 && len(s.waiters) == 0 && !s.tracked() {
		return
	}
	s.touch(string(key))
}

func (s *Shard) touch(k string) {
	for _, w := range s.watchers[k] {
		w.MarkDirty()
	}
	if len(s.waiters) != 0 {
		s.wake(k)
	}
	if s.tracked() {
		s.modified(k)
	}
}

// touchSwapped marks the watchers of keys that are live in s or in o: swapping
// the two shards' contents changes those keys and no other (a key absent or
// expired on both sides stays logically absent).
func (s *Shard) touchSwapped(o *Shard, now int64) {
	for k, ws := range s.watchers {
		if !s.live(k, now) && !o.live(k, now) {
			continue
		}
		for _, w := range ws {
			w.MarkDirty()
		}
	}
}

func (s *Shard) live(k string, now int64) bool {
	e := s.m.get(k)
	return e != nil && !e.Expired(now)
}

// DB is one numbered database.
type DB struct {
	shards   [ShardCount]Shard
	id       int
	events   *notify.Notifier                          // the keyspace's; nil in a DB made on its own (tests)
	onExpire *atomic.Pointer[func(db int, key string)] // the keyspace's, or nil
	tracking *tracking                                 // the keyspace's
	expiry   *ExpiryStats                              // the keyspace's, or nil
	// mayExpire is false only while no shard holds keys with an expiry or
	// expiring parts, so that the active expiry cycle can skip the whole
	// database without locking its shards (see Expirer.Cycle).
	mayExpire atomic.Bool
}

// hintExpiry notes that s now holds something to expire. Called under s's
// lock whenever a key gets an expiry or starts being tracked for expiring
// parts.
func (s *Shard) hintExpiry() {
	if s.db != nil && !s.db.mayExpire.Load() {
		s.db.mayExpire.Store(true)
	}
}

// ShardIndex is the shard that holds key.
func ShardIndex(key []byte) int { return Slot(key) & (ShardCount - 1) }

// Shard returns shard i.
func (db *DB) Shard(i int) *Shard { return &db.shards[i] }

// ShardFor returns the shard that holds key.
func (db *DB) ShardFor(key []byte) *Shard { return &db.shards[ShardIndex(key)] }

// ID is the database's number.
func (db *DB) ID() int { return db.id }

// Notify publishes a keyspace notification for key in db, when class c is
// enabled.
func (db *DB) Notify(c notify.Class, event string, key []byte) {
	if db.events.On(c) {
		db.events.Emit(c, event, key, db.id)
	}
}

// Notifying reports whether events of class c are published.
func (db *DB) Notifying(c notify.Class) bool { return db.events.On(c) }

// NotifyString is Notify for a key held as a string.
func (db *DB) NotifyString(c notify.Class, event, key string) {
	if db.events.On(c) {
		db.events.Emit(c, event, unsafe.Slice(unsafe.StringData(key), len(key)), db.id)
	}
}

// LockAll takes every shard lock in index order.
func (db *DB) LockAll() {
	for i := range db.shards {
		db.shards[i].Lock()
	}
}

// UnlockAll releases every shard lock.
func (db *DB) UnlockAll() {
	for i := range db.shards {
		db.shards[i].mu.Unlock()
	}
}

// Size counts keys (expired but unreclaimed ones included, as Redis's DBSIZE
// does). Caller holds every shard lock.
func (db *DB) Size() int {
	n := 0
	for i := range db.shards {
		n += db.shards[i].m.n
	}
	return n
}

// Stats counts keys and volatile keys, locking one shard at a time.
func (db *DB) Stats() (keys, volatile int) {
	for i := range db.shards {
		s := &db.shards[i]
		s.mu.Lock()
		keys += s.m.n
		volatile += len(s.expires)
		s.mu.Unlock()
	}
	return keys, volatile
}

// Flush empties the database. Caller holds every shard lock.
func (db *DB) Flush() {
	for i := range db.shards {
		db.shards[i].Clear()
	}
}

// Swap exchanges the contents of two databases, touching the watched keys that
// change. Caller holds every shard lock of both; watchers stay with their
// database, as a client's selected database does.
func Swap(a, b *DB, now int64) {
	for i := range a.shards {
		x, y := &a.shards[i], &b.shards[i]
		x.touchSwapped(y, now)
		y.touchSwapped(x, now)
		x.m, y.m = y.m, x.m
		x.expires, y.expires = y.expires, x.expires
		x.subexp, y.subexp = y.subexp, x.subexp
		x.wakeAll() // after the swap: blocked clients are served by the new contents
		y.wakeAll()
	}
	a.mayExpire.Store(true) // each got the other's volatile keys; the next cycle looks
	b.mayExpire.Store(true)
}

// RandomKey returns a random live key, deleting the expired keys it draws, or
// false when the database has none. While expiry is paused it deletes
// nothing and, finding no live key, answers the last expired one it drew,
// as Redis does. Caller holds every shard lock.
func (db *DB) RandomKey(now int64) (string, bool) {
	stale := ""
	for tries := 0; tries < 100; tries++ {
		total := db.Size()
		if total == 0 {
			return "", false
		}
		// Draw a shard weighted by its size, then the first key of a range
		// over it, which Go starts at a random place.
		r := rand.IntN(total)
		s := &db.shards[0]
		for i := range db.shards {
			if s = &db.shards[i]; r < s.m.n {
				break
			}
			r -= s.m.n
		}
		// Then the first entry from a random slot on.
		slots := s.m.slots
		for i, j := 0, rand.IntN(len(slots)); i < len(slots); i, j = i+1, (j+1)&(len(slots)-1) {
			if e := slots[j].e; e != nil {
				if !e.Expired(now) {
					return e.keyString(), true
				}
				if ExpiryPaused(now) {
					stale = e.keyString()
				} else {
					s.expire(e.keyString(), e)
				}
				break
			}
		}
	}
	// Mostly expired keys nobody reclaimed (active expiry off): look for a
	// live one in order rather than draw forever.
	for i := range db.shards {
		for _, sl := range db.shards[i].m.slots {
			if sl.e != nil && !sl.e.Expired(now) {
				return sl.e.keyString(), true
			}
		}
	}
	return stale, stale != ""
}

// Keyspace is the set of numbered databases.
type Keyspace struct {
	DBs []*DB
	// Events publishes keyspace notifications (notify-keyspace-events).
	Events notify.Notifier
	// Lazy reclaims the memory of values commands drop (UNLINK, FLUSHALL),
	// set by the server; nil in a keyspace a loader fills, where it does
	// nothing.
	Lazy *lazyfree.Freer

	tracking tracking
	// Expiry counts what expiry deleted (INFO expired_keys, expired_subkeys).
	Expiry ExpiryStats
	// onExpire, when set, is told of every key deleted because its time
	// ran out, under its shard's lock (replication propagates a DEL).
	onExpire atomic.Pointer[func(db int, key string)]
}

// OnExpire sets (nil: clears) the function told of each key that expires,
// with its database's number, under the key's shard lock.
func (ks *Keyspace) OnExpire(fn func(db int, key string)) {
	if fn == nil {
		ks.onExpire.Store(nil)
		return
	}
	ks.onExpire.Store(&fn)
}

// New makes a keyspace of n databases.
func New(n int) *Keyspace {
	ks := &Keyspace{DBs: make([]*DB, n)}
	for i := range ks.DBs {
		db := &DB{id: i, events: &ks.Events, tracking: &ks.tracking, onExpire: &ks.onExpire, expiry: &ks.Expiry}
		for j := range db.shards {
			db.shards[j].db = db
		}
		ks.DBs[i] = db
	}
	return ks
}

// LockAll takes every lock of every database, in database then shard order.
func (ks *Keyspace) LockAll() {
	for _, db := range ks.DBs {
		db.LockAll()
	}
}

// UnlockAll releases every lock.
func (ks *Keyspace) UnlockAll() {
	for _, db := range ks.DBs {
		db.UnlockAll()
	}
}
