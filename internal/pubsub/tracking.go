package pubsub

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/resp"
)

// Mode is a connection's tracking settings (CLIENT TRACKING ON ...),
// replaced whole, never changed in place, so that writers in other
// goroutines read it without a lock.
type Mode struct {
	Redirect int64
	BCast    bool
	OptIn    bool
	OptOut   bool
	NoLoop   bool
	Prefixes []string // BCAST prefixes ("" for every key), sorted
}

// Tracking is a connection's side of client-side caching, kept in the
// server's client and registered with the Tracker while tracking is on.
type Tracking struct {
	id     int64
	conn   Conn
	mode   atomic.Pointer[Mode]
	broken atomic.Bool // the client it redirects invalidations to has gone
}

// Mode is the connection's tracking settings, nil while tracking is off.
func (c *Tracking) Mode() *Mode { return c.mode.Load() }

// BrokenRedirect reports whether the REDIRECT target has gone.
func (c *Tracking) BrokenRedirect() bool { return c.broken.Load() }

// ClearBrokenRedirect forgets a gone REDIRECT target.
func (c *Tracking) ClearBrokenRedirect() { c.broken.Store(false) }

// Tracker is the table of client-side caching; it is the keyspace's
// keyspace.Tracker.
type Tracker struct {
	ks     *keyspace.Keyspace
	lookup func(id int64) Conn // a connection by ID (a REDIRECT target), nil if gone
	slots  [keyspace.ShardCount]trackSlot
	keys   atomic.Int64 // tracking_total_keys
	items  atomic.Int64 // tracking_total_items: (key, client) pairs

	active atomic.Bool // any client tracks

	mu       sync.RWMutex
	clients  map[int64]*Tracking               // with tracking on
	prefixes map[string]map[*Tracking]struct{} // BCAST registrations
	nprefix  atomic.Int64                      // len(prefixes), read without mu

	// Keys modified under a BCAST prefix, by the client whose batch
	// modified them: sent when that batch's replies go (SendBroadcast).
	pendMu sync.Mutex
	pend   map[int64][]string
	npend  atomic.Int64 // len(pend), read by every flush
}

type trackSlot struct {
	mu sync.Mutex
	m  map[string]*readers
}

// readers are the clients that read a key since its last modification.
type readers struct {
	ids []int64 // a key is read by one client far more often than by many
	set map[int64]struct{}
}

// add reports whether id is new.
func (r *readers) add(id int64) bool {
	if r.set != nil {
		if _, ok := r.set[id]; ok {
			return false
		}
		r.set[id] = struct{}{}
		return true
	}
	for _, x := range r.ids {
		if x == id {
			return false
		}
	}
	if len(r.ids) == 8 {
		r.set = make(map[int64]struct{}, 16)
		for _, x := range r.ids {
			r.set[x] = struct{}{}
		}
		r.set[id] = struct{}{}
		r.ids = nil
		return true
	}
	r.ids = append(r.ids, id)
	return true
}

func (r *readers) len() int {
	if r.set != nil {
		return len(r.set)
	}
	return len(r.ids)
}

func (r *readers) each(fn func(int64)) {
	for _, id := range r.ids {
		fn(id)
	}
	for id := range r.set {
		fn(id)
	}
}

// NewTracker returns an empty table for ks, which it turns tracking on
// and off in as clients start and stop tracking; lookup finds a REDIRECT
// target by client ID (nil, not a nil-valued Conn, when there is none).
func NewTracker(ks *keyspace.Keyspace, lookup func(id int64) Conn) *Tracker {
	t := &Tracker{ks: ks, lookup: lookup, clients: map[int64]*Tracking{},
		prefixes: map[string]map[*Tracking]struct{}{}, pend: map[int64][]string{}}
	for i := range t.slots {
		t.slots[i].m = map[string]*readers{}
	}
	return t
}

// Active reports whether any client tracks.
func (t *Tracker) Active() bool { return t.active.Load() }

// InUse reports whether a client tracks or the table still holds keys
// read by clients that have stopped (a flush empties it all the same).
func (t *Tracker) InUse() bool { return t.active.Load() || t.keys.Load() > 0 }

// Pending reports whether BCAST messages wait for some client's batch to
// end (SendBroadcast).
func (t *Tracker) Pending() bool { return t.npend.Load() != 0 }

// Keys, Items and Prefixes are INFO's tracking_total_keys, _items and
// _prefixes.
func (t *Tracker) Keys() int64     { return t.keys.Load() }
func (t *Tracker) Items() int64    { return t.items.Load() }
func (t *Tracker) Prefixes() int64 { return t.nprefix.Load() }

// Clients is the number of clients that track (INFO tracking_clients).
func (t *Tracker) Clients() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.clients)
}

// Remember records that client id read key (under the key's shard lock).
func (t *Tracker) Remember(id int64, key []byte) {
	sl := &t.slots[keyspace.ShardIndex(key)]
	sl.mu.Lock()
	r := sl.m[string(key)]
	if r == nil {
		r = &readers{}
		sl.m[string(key)] = r
		t.keys.Add(1)
	}
	if r.add(id) {
		t.items.Add(1)
	}
	sl.mu.Unlock()
}

// Modified implements keyspace.Tracker.
func (t *Tracker) Modified(key string, by int64) {
	if t.nprefix.Load() != 0 {
		t.broadcast(key, by)
	}
	t.invalidateReaders(key, by, nil, nil)
}

// invalidateReaders tells the clients that read key since it last changed,
// and forgets them. self's own message, self being a client on its own
// goroutine between commands, goes straight to its replies (*out), ahead
// of the next one.
func (t *Tracker) invalidateReaders(key string, by int64, self Conn, out *[]byte) {
	sl := &t.slots[keyspace.ShardIndex(unsafe.Slice(unsafe.StringData(key), len(key)))]
	sl.mu.Lock()
	r := sl.m[key]
	if r != nil {
		delete(sl.m, key)
	}
	sl.mu.Unlock()
	if r == nil {
		return
	}
	t.keys.Add(-1)
	t.items.Add(-int64(r.len()))
	t.mu.RLock()
	defer t.mu.RUnlock()
	r.each(func(id int64) {
		c := t.clients[id]
		if c == nil {
			return
		}
		// A client that switched to BCAST since it read the key hears of it
		// by prefix only.
		if m := c.mode.Load(); m != nil && !m.BCast && !(m.NoLoop && id == by) {
			switch dst, b := t.message(c, m, []string{key}, false); {
			case dst == nil:
			case self != nil && dst == self && c.conn == self: // its own, not as a REDIRECT target
				*out = append(*out, b...)
			default:
				dst.Push(b)
			}
		}
	})
}

// broadcast tells BCAST clients whose prefixes key falls under. As Redis
// gathers the keys modified in one event-loop turn into one message per
// prefix, HotKV gathers those a client's batch of commands modifies and
// sends them when the batch's replies go (SendBroadcast); keys the server
// modifies itself (active expiry, eviction) go at once.
func (t *Tracker) broadcast(key string, by int64) {
	if by == 0 {
		t.sendKeys([]string{key}, 0)
		return
	}
	t.pendMu.Lock()
	keys, ok := t.pend[by]
	t.pend[by] = append(keys, key)
	if !ok {
		t.npend.Add(1)
	}
	t.pendMu.Unlock()
}

// SendBroadcast sends the BCAST messages for the keys client id's commands
// have modified since it last did.
func (t *Tracker) SendBroadcast(id int64) {
	t.pendMu.Lock()
	keys, ok := t.pend[id]
	if ok {
		delete(t.pend, id)
		t.npend.Add(-1)
	}
	t.pendMu.Unlock()
	if ok {
		slices.Sort(keys)
		t.sendKeys(slices.Compact(keys), id)
	}
}

// sendKeys sends each BCAST client, for each of its prefixes, one message
// with the keys under it (prefixes and keys sorted, as Redis's radix trees
// list them), unless by modified them and it asked for NOLOOP.
func (t *Tracker) sendKeys(keys []string, by int64) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var under []string
	for _, p := range slices.Sorted(maps.Keys(t.prefixes)) { // in Redis's order
		cs := t.prefixes[p]
		under = under[:0]
		for _, k := range keys {
			if strings.HasPrefix(k, p) {
				under = append(under, k)
			}
		}
		if len(under) == 0 {
			continue
		}
		for c := range cs {
			if m := c.mode.Load(); m != nil && !(m.NoLoop && c.id == by) {
				if dst, b := t.message(c, m, under, false); dst != nil {
					dst.Push(b)
				}
			}
		}
	}
}

// Flushed sends every tracking client a null invalidation ("everything
// changed") and forgets what they read: FLUSHDB and FLUSHALL, run by by,
// whose reply starts at (*out)[mark]. With first, by's own message goes
// before that reply: Redis 8 runs a flush called from outside a
// transaction or script in the background, its caller blocked meanwhile.
func (t *Tracker) Flushed(by Conn, out *[]byte, mark int, first bool) {
	t.mu.RLock()
	for _, c := range t.clients {
		m := c.mode.Load()
		if m == nil {
			continue
		}
		dst, b := t.message(c, m, nil, true)
		switch {
		case dst == nil:
		case dst == by && first:
			*out = slices.Insert(*out, mark, b...)
		default:
			dst.Push(b)
		}
	}
	t.mu.RUnlock()
	for i := range t.slots {
		sl := &t.slots[i]
		sl.mu.Lock()
		for k, r := range sl.m {
			delete(sl.m, k)
			t.keys.Add(-1)
			t.items.Add(-int64(r.len()))
		}
		sl.mu.Unlock()
	}
}

// Limit keeps the table within max keys (tracking-table-max-keys), as
// Redis's trackingLimitUsedSlots: keys over it are invalidated (their
// readers told, as if the keys had changed), a bounded number per call.
// self is the client about to run a command (nil from the cron), whose own
// invalidations go to *out, before that command's reply, as in Redis.
func (t *Tracker) Limit(max int64, self Conn, out *[]byte) {
	over := t.keys.Load() - max
	if over <= 0 {
		return
	}
	if over > 1000 {
		over = 1000 // the rest next time round, as Redis spreads the work
	}
	var victims []string
	for i := 0; i < len(t.slots) && int64(len(victims)) < over; i++ {
		sl := &t.slots[(i+int(t.items.Load()))%len(t.slots)]
		sl.mu.Lock()
		for k := range sl.m {
			if int64(len(victims)) == over {
				break
			}
			victims = append(victims, k)
		}
		sl.mu.Unlock()
	}
	for _, k := range victims {
		t.invalidateReaders(k, 0, self, out) // nothing changed: BCAST clients hear nothing, as in Redis
	}
}

// message is c's invalidation for keys (or, flush, for everything) and the
// connection to send it to: a RESP3 push on c's own connection, or on the
// connection it redirects to, as a push or, to a RESP2 subscriber, a
// __redis__:invalidate message. dst is nil when there is nothing to send.
func (t *Tracker) message(c *Tracking, m *Mode, keys []string, flush bool) (dst Conn, b []byte) {
	proto := c.conn.Proto()
	dst = c.conn
	if m.Redirect != 0 {
		dst = t.lookup(m.Redirect)
		if dst == nil {
			c.broken.Store(true)
			if proto != 3 {
				return nil, nil
			}
			w := resp.Writer{Proto: 3}
			w.Push(2)
			w.BulkString("tracking-redir-broken")
			w.Int(m.Redirect)
			return c.conn, w.B
		}
	}
	w := resp.Writer{Proto: dst.Proto()}
	switch {
	case w.Proto == 3:
		w.Push(2)
		w.BulkString("invalidate")
	case m.Redirect != 0 && dst.Subscribed(): // a REDIRECT target, itself too
		w.Push(3)
		w.BulkString("message")
		w.BulkString("__redis__:invalidate")
	default:
		return nil, nil // RESP2 has no pushes on the connection itself
	}
	switch {
	case !flush:
		w.Array(len(keys))
		for _, k := range keys {
			w.BulkString(k)
		}
	case proto == 3: // the null of the tracking client's protocol, as Redis sends it
		w.B = append(w.B, "_\r\n"...)
	default:
		w.B = append(w.B, "$-1\r\n"...)
	}
	return dst, w.B
}

// Set turns tracking on for c, connection id, with mode m, or off (m nil).
// Registering replaces c's previous BCAST prefixes with m's.
func (t *Tracker) Set(c *Tracking, id int64, conn Conn, m *Mode) {
	old := c.mode.Load()
	t.mu.Lock()
	c.id, c.conn = id, conn
	if old != nil {
		for _, p := range old.Prefixes {
			if cs := t.prefixes[p]; cs != nil {
				delete(cs, c)
				if len(cs) == 0 {
					delete(t.prefixes, p)
				}
			}
		}
	}
	if m != nil {
		t.clients[id] = c
		for _, p := range m.Prefixes {
			cs := t.prefixes[p]
			if cs == nil {
				cs = map[*Tracking]struct{}{}
				t.prefixes[p] = cs
			}
			cs[c] = struct{}{}
		}
	} else {
		delete(t.clients, id)
	}
	t.nprefix.Store(int64(len(t.prefixes)))
	c.mode.Store(m)
	t.active.Store(len(t.clients) > 0)
	t.ks.Track(len(t.clients) > 0)
	t.mu.Unlock()
	if m == nil {
		c.broken.Store(false)
	}
}
