package pubsub

import (
	"sort"
	"sync"

	"github.com/hotkv/hotkv/internal/acl"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/resp"
)

// Hub maps channels and patterns to their subscribers. Lock order: the
// hub's mu before any subscriber's, so a confirmation is queued before any
// message for the new subscription can be.
type Hub struct {
	mu      sync.RWMutex
	subs    [3]map[string]map[*Subscriber]struct{}
	room    int
	maxIdle int
}

// NewHub returns an empty hub whose queues make a client that is neither
// subscribed nor monitoring wait while more than room bytes are queued
// (Subscriber.WaitRoom), and whose writers keep buffers up to maxIdle bytes
// for reuse.
func NewHub(room, maxIdle int) *Hub {
	h := &Hub{room: room, maxIdle: maxIdle}
	for i := range h.subs {
		h.subs[i] = map[string]map[*Subscriber]struct{}{}
	}
	return h
}

// Open returns e's Subscriber, made (and its writer started) on first use,
// writing to conn. Other goroutines read e's Subscriber under the hub's
// lock (Push, Load), so it is set under it.
func (h *Hub) Open(e *Endpoint, conn Conn) *Subscriber {
	if e.sub == nil {
		p := &Subscriber{conn: conn, ep: e, room: h.room, maxIdle: h.maxIdle,
			wake: make(chan struct{}, 1), done: make(chan struct{}), exit: make(chan struct{})}
		p.taken.L = &p.mu
		for i := range p.names {
			p.names[i] = map[string]struct{}{}
		}
		h.mu.Lock()
		e.sub = p
		h.mu.Unlock()
		go p.writer()
	}
	return e.sub
}

// Leave retires e's Subscriber, once it has no subscriptions, so that the
// connection writes directly again and, like any client, stops being read
// while it does not read its replies (the queue has no limit once
// unsubscribed). Under the hub's lock no publisher is delivering to it, and
// none can find it any more; what was queued is written first, however
// long it takes.
func (h *Hub) Leave(e *Endpoint) {
	h.mu.Lock()
	p := e.sub
	e.sub = nil
	h.mu.Unlock()
	close(p.done)
	<-p.exit
}

// Load is e's Subscriber as another goroutine sees it (nil if none).
func (h *Hub) Load(e *Endpoint) *Subscriber {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return e.sub
}

// Push queues b on e's queue, if it has one (tracking, subscribed or
// monitoring connections do).
func (h *Hub) Push(e *Endpoint, b []byte) {
	h.mu.RLock()
	if p := e.sub; p != nil {
		p.Enqueue(b)
	}
	h.mu.RUnlock()
}

// Subscribe adds names of kind to p's subscriptions and writes a
// confirmation for each. With hold, the confirmations go into w, part of a
// reply still being built (an EXEC's, or a batch whose pushes are held
// anyway), and p holds what others push until Release. Otherwise w's
// replies so far, then the confirmations, are queued before any message the
// new subscriptions can receive.
func (h *Hub) Subscribe(p *Subscriber, kind Kind, names [][]byte, w *resp.Writer, hold bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := w
	if hold {
		p.hold = true
	} else {
		p.enqueueLocked(w.B)
		w.B = w.B[:0]
		out = &resp.Writer{Proto: w.Proto}
	}
	for _, n := range names {
		name := string(n)
		if _, ok := p.names[kind][name]; !ok {
			p.names[kind][name] = struct{}{}
			p.ep.n[kind].Store(int32(len(p.names[kind])))
			m := h.subs[kind][name]
			if m == nil {
				m = map[*Subscriber]struct{}{}
				h.subs[kind][name] = m
			}
			m[p] = struct{}{}
		}
		out.Push(3)
		out.BulkString(verbs[kind][0])
		out.Bulk(n)
		out.Int(int64(p.subCount(kind)))
	}
	if out != w {
		p.enqueueLocked(out.B)
	}
}

// subCount is what Redis reports after (un)subscribing: shard channels count
// alone, channels and patterns together.
func (p *Subscriber) subCount(kind Kind) int {
	if kind == Shard {
		return len(p.names[Shard])
	}
	return len(p.names[Channel]) + len(p.names[Pattern])
}

// Unsubscribe removes names of kind from e's subscriptions (all of the kind
// when names is empty), writing one confirmation per name to w.
func (h *Hub) Unsubscribe(e *Endpoint, kind Kind, names [][]byte, w *resp.Writer) {
	p := e.sub
	if p == nil {
		if len(names) == 0 {
			w.Push(3)
			w.BulkString(verbs[kind][1])
			w.Null()
			w.Int(0)
		}
		for _, n := range names {
			w.Push(3)
			w.BulkString(verbs[kind][1])
			w.Bulk(n)
			w.Int(0)
		}
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(names) == 0 {
		all := make([]string, 0, len(p.names[kind]))
		for n := range p.names[kind] {
			all = append(all, n)
		}
		sort.Strings(all)
		if len(all) == 0 {
			w.Push(3)
			w.BulkString(verbs[kind][1])
			w.Null()
			w.Int(int64(p.subCount(kind)))
		}
		for _, n := range all {
			h.remove(p, kind, n)
			w.Push(3)
			w.BulkString(verbs[kind][1])
			w.BulkString(n)
			w.Int(int64(p.subCount(kind)))
		}
		return
	}
	for _, n := range names {
		h.remove(p, kind, string(n))
		w.Push(3)
		w.BulkString(verbs[kind][1])
		w.Bulk(n)
		w.Int(int64(p.subCount(kind)))
	}
}

func (h *Hub) remove(p *Subscriber, kind Kind, name string) {
	if _, ok := p.names[kind][name]; !ok {
		return
	}
	delete(p.names[kind], name)
	p.ep.n[kind].Store(int32(len(p.names[kind])))
	if m := h.subs[kind][name]; m != nil {
		delete(m, p)
		if len(m) == 0 {
			delete(h.subs[kind], name)
		}
	}
}

// UnsubscribeAll removes all of e's subscriptions, silently.
func (h *Hub) UnsubscribeAll(e *Endpoint) {
	p := e.sub
	if p == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for kind := range p.names {
		for n := range p.names[kind] {
			h.remove(p, Kind(kind), n)
		}
	}
}

// Publish delivers msg to channel's subscribers (and, for ordinary
// channels, to matching patterns) and returns how many received it.
func (h *Hub) Publish(kind Kind, channel, msg []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var m [2]message // by protocol: built once, sent to many
	n := 0
	verb := "message"
	if kind == Shard {
		verb = "smessage"
	}
	for p := range h.subs[kind][string(channel)] {
		proto := p.conn.Proto()
		p.Enqueue(m[protoIdx(proto)].build(proto, verb, nil, channel, msg))
		n++
	}
	if kind != Channel {
		return n
	}
	var pm [2]map[string][]byte
	for pat, subs := range h.subs[Pattern] {
		if !glob.Match([]byte(pat), channel, false) {
			continue
		}
		for p := range subs {
			proto := p.conn.Proto()
			i := protoIdx(proto)
			if pm[i] == nil {
				pm[i] = map[string][]byte{}
			}
			b, ok := pm[i][pat]
			if !ok {
				var mm message
				b = mm.build(proto, "pmessage", []byte(pat), channel, msg)
				pm[i][pat] = b
			}
			p.Enqueue(b)
			n++
		}
	}
	return n
}

func protoIdx(proto int) int {
	if proto == 3 {
		return 1
	}
	return 0
}

type message struct{ b []byte }

func (m *message) build(proto int, verb string, pattern, channel, msg []byte) []byte {
	if m.b != nil {
		return m.b
	}
	w := resp.Writer{Proto: proto}
	if pattern != nil {
		w.Push(4)
		w.BulkString(verb)
		w.Bulk(pattern)
	} else {
		w.Push(3)
		w.BulkString(verb)
	}
	w.Bulk(channel)
	w.Bulk(msg)
	m.b = w.B
	return m.b
}

// Channels lists the channels of kind with subscribers, matching pattern
// unless it is nil, sorted.
func (h *Hub) Channels(kind Kind, pattern []byte) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []string
	for ch := range h.subs[kind] {
		if pattern == nil || glob.Match(pattern, []byte(ch), false) {
			out = append(out, ch)
		}
	}
	sort.Strings(out)
	return out
}

// NumSub is the number of subscribers of ch.
func (h *Hub) NumSub(kind Kind, ch []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs[kind][string(ch)])
}

// NumPat is the number of patterns with subscribers.
func (h *Hub) NumPat() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs[Pattern])
}

// AllowedFor reports whether profile p lets e keep all its subscriptions:
// channels and shard channels matched by an allowed pattern, patterns equal
// to one (ACL SETUSER closes a client for which this turns false).
func (h *Hub) AllowedFor(e *Endpoint, p *acl.Profile) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if e.sub == nil {
		return true
	}
	for kind, names := range e.sub.names {
		for n := range names {
			if !p.ChannelAllowed(n, Kind(kind) == Pattern) {
				return false
			}
		}
	}
	return true
}
