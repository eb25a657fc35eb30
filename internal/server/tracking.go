package server

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/resp"
)

// Client-side caching (CLIENT TRACKING), as Redis's tracking.c: a table from
// key names to the clients that read them, across databases as in Redis; a
// modification of a key sends each of them one invalidation message and
// forgets them, until they read the key again. Clients in BCAST mode
// register prefixes instead and hear of every key under them.
//
// Ordering: a tracking client's pushes are held while it runs a batch of
// commands and queued after the batch's replies (holdPushes, flush), so an
// invalidation never overtakes the reply carrying the value it invalidates,
// and one caused by the client's own command follows that command's reply,
// as in Redis.

// trackMode is a client's tracking settings, replaced whole (never changed
// in place) so that writers in other goroutines read it without a lock.
type trackMode struct {
	redirect int64
	bcast    bool
	optin    bool
	optout   bool
	noloop   bool
	prefixes []string // BCAST prefixes ("" for every key)
}

// tracker is the server's tracking state; it is the keyspace's
// keyspace.Tracker.
type tracker struct {
	s     *Server
	slots [keyspace.ShardCount]trackSlot
	keys  atomic.Int64 // tracking_total_keys
	items atomic.Int64 // tracking_total_items: (key, client) pairs

	active atomic.Bool // any client tracks

	mu       sync.RWMutex
	clients  map[int64]*client               // with tracking on
	prefixes map[string]map[*client]struct{} // BCAST registrations
	nprefix  atomic.Int64                    // len(prefixes), read without mu

	// Keys modified under a BCAST prefix, by the client whose batch
	// modified them: sent when that batch's replies go (sendBroadcast).
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

// inUse reports whether a client tracks or the table still holds keys
// read by clients that have stopped (a flush empties it all the same).
func (t *tracker) inUse() bool { return t.active.Load() || t.keys.Load() > 0 }

func newTracker(s *Server) *tracker {
	t := &tracker{s: s, clients: map[int64]*client{}, prefixes: map[string]map[*client]struct{}{}, pend: map[int64][]string{}}
	for i := range t.slots {
		t.slots[i].m = map[string]*readers{}
	}
	return t
}

func (t *tracker) nclients() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.clients)
}

// remember records that c read key (under the key's shard lock).
func (t *tracker) remember(c *client, key []byte) {
	sl := &t.slots[keyspace.ShardIndex(key)]
	sl.mu.Lock()
	r := sl.m[string(key)]
	if r == nil {
		r = &readers{}
		sl.m[string(key)] = r
		t.keys.Add(1)
	}
	if r.add(c.id) {
		t.items.Add(1)
	}
	sl.mu.Unlock()
}

// Modified implements keyspace.Tracker.
func (t *tracker) Modified(key string, by int64) {
	if t.nprefix.Load() != 0 {
		t.broadcast(key, by)
	}
	t.invalidateReaders(key, by, nil)
}

// invalidateReaders tells the clients that read key since it last changed,
// and forgets them. self's own message, self being a client on its own
// goroutine between commands, goes straight to its replies, ahead of the
// next one.
func (t *tracker) invalidateReaders(key string, by int64, self *client) {
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
		if m := c.trackMode.Load(); m != nil && !m.bcast && !(m.noloop && id == by) {
			switch dst, b := t.s.message(c, m, []string{key}, false); {
			case dst == nil:
			case dst == self && c == self: // its own, not as a REDIRECT target
				self.out.B = append(self.out.B, b...)
			default:
				t.s.pushTo(dst, b)
			}
		}
	})
}

// broadcast tells BCAST clients whose prefixes key falls under. As Redis
// gathers the keys modified in one event-loop turn into one message per
// prefix, HotKV gathers those a client's batch of commands modifies and
// sends them when the batch's replies go (sendBroadcast, from flush); keys
// the server modifies itself (active expiry, eviction) go at once.
func (t *tracker) broadcast(key string, by int64) {
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

// sendBroadcast sends the BCAST messages for the keys c's commands have
// modified since it last did.
func (t *tracker) sendBroadcast(c *client) {
	t.pendMu.Lock()
	keys, ok := t.pend[c.id]
	if ok {
		delete(t.pend, c.id)
		t.npend.Add(-1)
	}
	t.pendMu.Unlock()
	if ok {
		slices.Sort(keys)
		t.sendKeys(slices.Compact(keys), c.id)
	}
}

// sendKeys sends each BCAST client, for each of its prefixes, one message
// with the keys under it (prefixes and keys sorted, as Redis's radix trees
// list them),
// unless by modified them and it asked for NOLOOP.
func (t *tracker) sendKeys(keys []string, by int64) {
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
			if m := c.trackMode.Load(); m != nil && !(m.noloop && c.id == by) {
				if dst, b := t.s.message(c, m, under, false); dst != nil {
					t.s.pushTo(dst, b)
				}
			}
		}
	}
}

// flushed sends every tracking client a null invalidation ("everything
// changed") and forgets what they read: FLUSHDB and FLUSHALL, run by by,
// whose reply starts at by.out.B[mark]. Redis 8 runs a flush called from
// outside a transaction or script in the background, its caller blocked
// meanwhile, so that caller's own message comes before its reply (which
// CLIENT REPLY may drop: the message, a push, is sent anyway).
func (t *tracker) flushed(by *client, mark int) {
	first := !by.inExec && !by.ctx.InScript && by.modes&(replyOff|skipThis) == 0
	t.mu.RLock()
	for _, c := range t.clients {
		m := c.trackMode.Load()
		if m == nil {
			continue
		}
		dst, b := t.s.message(c, m, nil, true)
		switch {
		case dst == nil:
		case dst == by && first:
			by.out.B = slices.Insert(by.out.B, mark, b...)
		default:
			t.s.pushTo(dst, b)
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

// trimTracking brings a tracking table over tracking-table-max-keys
// (lowered by CONFIG SET) back under it before c's next command, as Redis
// does before every command. It runs before the command's reply starts, so
// c's own invalidations come first and CLIENT REPLY OFF or SKIP, which drop
// that reply, leave them.
func (c *client) trimTracking() {
	if t := c.s.track; t.active.Load() {
		if max := c.s.Config().TrackingTableMaxKeys; max > 0 && t.keys.Load() > max {
			t.limit(max, c)
		}
	}
}

// limit keeps the table within tracking-table-max-keys, as Redis's
// trackingLimitUsedSlots: keys over the limit are invalidated (their readers
// told, as if the keys had changed), a bounded number per call. self is the
// client about to run a command (nil from the cron), whose own
// invalidations come before that command's reply, as in Redis.
func (t *tracker) limit(max int64, self *client) {
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
		t.invalidateReaders(k, 0, self) // nothing changed: BCAST clients hear nothing, as in Redis
	}
}

// message is c's invalidation for keys (or, flush, for everything) and the
// client to send it to: a RESP3 push on c's own connection, or on the
// connection it redirects to, as a push or, to a RESP2 subscriber, a
// __redis__:invalidate message. dst is nil when there is nothing to send.
func (s *Server) message(c *client, m *trackMode, keys []string, flush bool) (dst *client, b []byte) {
	proto := int(c.proto.Load())
	dst = c
	if m.redirect != 0 {
		dst = s.clientByID(m.redirect)
		if dst == nil {
			c.brokenRedir.Store(true)
			if proto != 3 {
				return nil, nil
			}
			w := resp.Writer{Proto: 3}
			w.Push(2)
			w.BulkString("tracking-redir-broken")
			w.Int(m.redirect)
			return c, w.B
		}
	}
	w := resp.Writer{Proto: int(dst.proto.Load())}
	switch {
	case w.Proto == 3:
		w.Push(2)
		w.BulkString("invalidate")
	case m.redirect != 0 && dst.subscribed(): // a REDIRECT target, itself too
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

// pushTo queues b on c's output queue, if it has one (tracking, subscribed
// or monitoring clients do).
func (s *Server) pushTo(c *client, b []byte) {
	s.hub.mu.RLock()
	if p := c.pubsub; p != nil {
		p.enqueue(b)
	}
	s.hub.mu.RUnlock()
}

// trackAfter is what a command that ran (under its locks) means for
// tracking, while any client tracks: a FLUSHDB or FLUSHALL invalidates
// everything; a read-only command registers its keys if c tracks them (not
// in BCAST mode, and in OPTIN/OPTOUT mode as CLIENT CACHING said). EVAL_RO
// and FCALL_RO register the keys their scripts read instead.
func (c *client) trackAfter(cmd *cmdtable.Cmd, args [][]byte, keys []int, mark int) {
	if cmd.Flags&cmdtable.ReadOnly == 0 {
		if (cmd.Name == "flushdb" || cmd.Name == "flushall") && (len(c.out.B) == mark || c.out.B[mark] != '-') {
			c.s.track.flushed(c, mark)
		}
		return
	}
	m := c.trackMode.Load()
	if m == nil || m.bcast || m.optin && c.modes&caching == 0 || m.optout && c.modes&caching != 0 {
		return
	}
	switch cmd.Name {
	case "eval_ro", "evalsha_ro", "fcall_ro":
		return
	}
	for _, i := range keys {
		c.s.track.remember(c, args[i])
	}
	if c.blocked != nil { // XREAD BLOCK: Redis runs it again when served, tracking its keys again
		c.blocked.track = true
	}
}

// holdPushes parks what others push to a tracking client until the replies
// of the batch it is running are queued (flush).
func (c *client) holdPushes() {
	p := c.pubsub
	p.mu.Lock()
	p.hold = true
	p.mu.Unlock()
	c.holding = true
}

// setTracking turns tracking on with mode m, or off (m nil).
func (c *client) setTracking(m *trackMode) {
	if m != nil {
		c.subscriber() // the queue invalidations arrive through
	}
	t := c.s.track
	old := c.trackMode.Load()
	t.mu.Lock()
	if old != nil {
		for _, p := range old.prefixes {
			if cs := t.prefixes[p]; cs != nil {
				delete(cs, c)
				if len(cs) == 0 {
					delete(t.prefixes, p)
				}
			}
		}
	}
	if m != nil {
		t.clients[c.id] = c
		for _, p := range m.prefixes {
			cs := t.prefixes[p]
			if cs == nil {
				cs = map[*client]struct{}{}
				t.prefixes[p] = cs
			}
			cs[c] = struct{}{}
		}
	} else {
		delete(t.clients, c.id)
	}
	t.nprefix.Store(int64(len(t.prefixes)))
	c.trackMode.Store(m)
	if m != nil {
		c.modes |= tracking
	} else {
		c.modes &^= tracking | caching
	}
	t.active.Store(len(t.clients) > 0)
	c.s.ks.Track(len(t.clients) > 0)
	t.mu.Unlock()
	if m == nil {
		c.brokenRedir.Store(false)
	}
}

// clientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST] [PREFIX p
// ...] [OPTIN] [OPTOUT] [NOLOOP], with Redis's checks in Redis's order.
func clientTracking(x *cmdtable.Ctx) {
	c := cl(x)
	m := &trackMode{}
	var prefixes []string
	for j := 3; j < len(x.Args); j++ {
		a, more := x.Args[j], j+1 < len(x.Args)
		switch {
		case cmdtable.Is(a, "redirect") && more:
			j++
			if m.redirect != 0 {
				x.Error("ERR A client can only redirect to a single other client")
				return
			}
			id, ok := cmdtable.ParseInt(x.Args[j])
			if !ok {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			if c.s.clientByID(id) == nil {
				x.Error("ERR The client ID you want redirect to does not exist")
				return
			}
			m.redirect = id
		case cmdtable.Is(a, "bcast"):
			m.bcast = true
		case cmdtable.Is(a, "optin"):
			m.optin = true
		case cmdtable.Is(a, "optout"):
			m.optout = true
		case cmdtable.Is(a, "noloop"):
			m.noloop = true
		case cmdtable.Is(a, "prefix") && more:
			j++
			prefixes = append(prefixes, string(x.Args[j]))
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	switch {
	case cmdtable.Is(x.Args[2], "off"):
		if c.trackMode.Load() != nil {
			c.setTracking(nil)
		}
		x.W.OK()
		return
	case !cmdtable.Is(x.Args[2], "on"):
		x.Error(cmdtable.ErrSyntax)
		return
	}
	old := c.trackMode.Load()
	switch {
	case !m.bcast && len(prefixes) > 0:
		x.Error("ERR PREFIX option requires BCAST mode to be enabled")
		return
	case old != nil && old.bcast != m.bcast:
		x.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
		return
	case m.bcast && (m.optin || m.optout):
		x.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
		return
	case m.optin && m.optout:
		x.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
		return
	case old != nil && (m.optin && old.optout || m.optout && old.optin):
		x.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
		return
	}
	if m.bcast {
		var have []string
		if old != nil {
			have = old.prefixes
		}
		if msg := prefixCollision(have, prefixes); msg != "" {
			x.Error(msg)
			return
		}
		// Prefixes add up over repeated CLIENT TRACKING ON calls, as in Redis;
		// none means every key.
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		// Sorted, as Redis's radix tree lists them; "" may come twice.
		m.prefixes = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(have), prefixes...))))
	}
	if old == nil || !m.optin && !m.optout {
		c.modes &^= caching
	}
	c.brokenRedir.Store(false)
	c.setTracking(m)
	x.W.OK()
}

// prefixCollision is Redis's checkPrefixCollisionsOrReply: a client's
// prefixes must not overlap (one a prefix of another), among those it has
// and those it adds (the same prefix again counts as an overlap).
func prefixCollision(have, add []string) string {
	overlap := func(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
	for i, p := range add {
		for _, h := range have {
			if overlap(p, h) {
				return fmt.Sprintf("ERR Prefix '%s' overlaps with an existing prefix '%s'. Prefixes for a single client must not overlap.", cstr([]byte(p), -1), cstr([]byte(h), -1))
			}
		}
		for _, q := range add[i+1:] {
			if overlap(p, q) {
				return fmt.Sprintf("ERR Prefix '%s' overlaps with another provided prefix '%s'. Prefixes for a single client must not overlap.", cstr([]byte(p), -1), cstr([]byte(q), -1))
			}
		}
	}
	return ""
}

// clientCaching is CLIENT CACHING YES|NO: whether the next command's keys
// are tracked, in OPTIN or OPTOUT mode.
func clientCaching(x *cmdtable.Ctx) {
	c := cl(x)
	m := c.trackMode.Load()
	if m == nil {
		x.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch {
	case cmdtable.Is(x.Args[2], "yes"):
		if !m.optin {
			x.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case cmdtable.Is(x.Args[2], "no"):
		if !m.optout {
			x.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		x.Error(cmdtable.ErrSyntax)
		return
	}
	c.modes |= caching
	x.W.OK()
}

// clientTrackingInfo is CLIENT TRACKINGINFO.
func clientTrackingInfo(x *cmdtable.Ctx) {
	c := cl(x)
	m := c.trackMode.Load()
	x.W.Map(3)
	x.W.BulkString("flags")
	var flags []string
	if m == nil {
		flags = append(flags, "off")
	} else {
		flags = append(flags, "on")
		if m.bcast {
			flags = append(flags, "bcast")
		}
		if m.optin {
			flags = append(flags, "optin")
			if c.modes&caching != 0 {
				flags = append(flags, "caching-yes")
			}
		}
		if m.optout {
			flags = append(flags, "optout")
			if c.modes&caching != 0 {
				flags = append(flags, "caching-no")
			}
		}
		if m.noloop {
			flags = append(flags, "noloop")
		}
		if c.brokenRedir.Load() {
			flags = append(flags, "broken_redirect")
		}
	}
	x.W.Set(len(flags))
	for _, f := range flags {
		x.W.BulkString(f)
	}
	x.W.BulkString("redirect")
	if m == nil {
		x.W.Int(-1)
	} else {
		x.W.Int(m.redirect)
	}
	x.W.BulkString("prefixes")
	if m == nil {
		x.W.Array(0)
		return
	}
	x.W.Array(len(m.prefixes))
	for _, p := range m.prefixes {
		x.W.BulkString(p)
	}
}

// redirection is CLIENT GETREDIR's answer and CLIENT LIST's redir field.
func (c *client) redirection() int64 {
	if m := c.trackMode.Load(); m != nil {
		return m.redirect
	}
	return -1
}

// trackFlags are CLIENT LIST's tracking flags.
func (c *client) trackFlags(flags []byte) []byte {
	m := c.trackMode.Load()
	if m == nil {
		return flags
	}
	flags = append(flags, 't')
	if c.brokenRedir.Load() {
		flags = append(flags, 'R')
	}
	if m.bcast {
		flags = append(flags, 'B')
	}
	return flags
}
