package server

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/hotkv/hotkv/internal/acl"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/resp"
)

// Subscription kinds: channels, patterns and shard channels (SSUBSCRIBE), each
// its own namespace as in Redis.
const (
	kindChannel = iota
	kindPattern
	kindShard
)

var subVerbs = [3][2]string{
	{"subscribe", "unsubscribe"},
	{"psubscribe", "punsubscribe"},
	{"ssubscribe", "sunsubscribe"},
}

// hub maps channels and patterns to their subscribers. Lock order: hub.mu
// before any subscriber's mu, so a confirmation is queued before any message
// for the new subscription can be.
type hub struct {
	mu   sync.RWMutex
	subs [3]map[string]map[*client]struct{}
}

func newHub() *hub {
	h := &hub{}
	for i := range h.subs {
		h.subs[i] = map[string]map[*client]struct{}{}
	}
	return h
}

// subscriber is a client's pub/sub side: its subscriptions and the ordered
// output queue a writer goroutine drains, so publishers never block on a slow
// subscriber's socket.
type subscriber struct {
	c     *client
	names [3]map[string]struct{}

	mu   sync.Mutex
	buf  []byte
	dead bool
	// hold parks messages in held while the client builds replies that
	// must come first (an EXEC that subscribed, a tracking client's batch or
	// served blocked command), so that none lands inside or before them.
	hold bool
	held []byte
	// softSince: when the queue reached the pubsub soft limit (outputOver).
	softSince int64
	// taken is signalled when the writer takes the queue or the client
	// dies (waitRoom).
	taken sync.Cond
	wake  chan struct{}
	done  chan struct{}
	exit  chan struct{}
}

// stopGrace is how long a closing client's queued output may take to drain
// before the socket is closed under it (a client that never reads).
const stopGrace = 2 * time.Second

// subscriber returns c's output queue, made on first use. Other goroutines
// read c.pubsub under the hub's lock (pushTo), so it is set under it.
func (c *client) subscriber() *subscriber {
	if c.pubsub == nil {
		p := &subscriber{c: c, wake: make(chan struct{}, 1), done: make(chan struct{}), exit: make(chan struct{})}
		p.taken.L = &p.mu
		for i := range p.names {
			p.names[i] = map[string]struct{}{}
		}
		c.s.hub.mu.Lock()
		c.pubsub = p
		c.s.hub.mu.Unlock()
		go p.writer()
	}
	return c.pubsub
}

// enqueue appends bytes to the output queue; false once the client is dead.
func (p *subscriber) enqueue(b []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.enqueueLocked(b)
}

func (p *subscriber) enqueueLocked(b []byte) bool {
	if p.dead {
		return false
	}
	if p.hold {
		p.held = append(p.held, b...)
	} else {
		p.buf = append(p.buf, b...)
	}
	return p.checkLocked()
}

// checkLocked enforces the pubsub class's output buffer limits on a
// subscribed or monitoring client (obuf.go): past them the client is
// disconnected, and the publisher carries on.
func (p *subscriber) checkLocked() bool {
	c := p.c
	if c.subscribed() || c.monitoring.Load() {
		cfg := c.s.Config()
		if size := int64(len(p.buf) + len(p.held)); outputOver(size, cfg.PubSubOutputLimit, cfg.PubSubOutputSoft, &p.softSince) {
			p.dead = true
			c.outputLimitReached("pubsub", size)
			c.closeConn()
			return false
		}
	}
	if !p.hold {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// queueRoom is how much a client's own replies may wait in its queue
// before it stops reading more commands (waitRoom).
const queueRoom = 4 * flushAt

// waitRoom makes a client that is neither subscribed nor monitoring (one
// that tracks keys) wait while its queue is over queueRoom, as a direct
// write would wait for the socket: one that pipelines without reading its
// replies then stops being read instead of growing the queue without end.
// Subscribers have pubsub-output-buffer-limit instead.
func (p *subscriber) waitRoom() {
	p.mu.Lock()
	for len(p.buf) > queueRoom && !p.dead {
		p.taken.Wait()
	}
	p.mu.Unlock()
}

// releaseHeld queues the replies so far (a finished EXEC's, a tracking
// client's batch), then the messages held while they were built; false if
// the client is dead.
func (c *client) releaseHeld() bool {
	p := c.pubsub
	if p == nil || !c.holding {
		return true
	}
	c.holding = false
	ok := p.release(c.out.B)
	c.resetOut()
	return ok
}

// release ends a hold: out, then the messages held, join the queue; false
// if the client is dead.
func (p *subscriber) release(out []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hold = false
	ok := !p.dead
	if ok {
		p.buf = append(p.buf, out...)
		p.buf = append(p.buf, p.held...)
		ok = p.checkLocked()
	}
	p.held = nil
	return ok
}

func (p *subscriber) writer() {
	defer close(p.exit)
	var spare []byte
	for {
		var stop bool
		select {
		case <-p.wake:
		case <-p.done:
			stop = true
		}
		p.mu.Lock()
		out := p.buf
		p.buf = spare[:0]
		p.taken.Broadcast()
		p.mu.Unlock()
		if len(out) > 0 {
			p.c.writes.Add(1)
			n, err := p.c.conn.Write(out)
			p.c.netOut.Add(int64(n))
			if err != nil {
				p.mu.Lock()
				p.dead = true
				p.taken.Broadcast()
				p.mu.Unlock()
				p.c.closeConn()
				stop = true
			}
		}
		if cap(out) <= maxIdleOutBuf {
			spare = out
		} else {
			spare = nil
		}
		if stop {
			return
		}
	}
}

// leavePubSub returns a client without subscriptions to direct writes, so
// that, like any client, it stops being read while it does not read its
// replies (the queue has no limit once unsubscribed). Under the hub's lock
// no publisher is delivering to it, and none can find it any more.
func (c *client) leavePubSub() {
	c.s.hub.mu.Lock()
	p := c.pubsub
	c.pubsub = nil
	c.s.hub.mu.Unlock()
	close(p.done)
	<-p.exit // what was queued is written first, however long it takes
}

// stop flushes what is queued and ends the writer.
func (p *subscriber) stop() {
	close(p.done)
	select {
	case <-p.exit:
	case <-time.After(stopGrace):
		p.c.conn.Close()
		<-p.exit
	}
}

// subscribe adds names of one kind and answers a confirmation for each.
func (h *hub) subscribe(c *client, kind int, names [][]byte) {
	p := c.subscriber()
	h.mu.Lock()
	defer h.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	w := &c.out
	if c.inExec || c.holding {
		// The confirmations are part of EXEC's reply, still being built, or
		// of a tracking client's batch, whose pushes are held anyway.
		p.hold = true
		c.holding = true
		c.confirmed = true
	} else {
		// Earlier replies of this batch, then the confirmations, are queued
		// before any message the new subscriptions can receive.
		p.enqueueLocked(c.out.B)
		c.out.B = c.out.B[:0]
		w = &resp.Writer{Proto: c.out.Proto}
	}
	for _, n := range names {
		name := string(n)
		if _, ok := p.names[kind][name]; !ok {
			p.names[kind][name] = struct{}{}
			c.nsub[kind].Store(int32(len(p.names[kind])))
			m := h.subs[kind][name]
			if m == nil {
				m = map[*client]struct{}{}
				h.subs[kind][name] = m
			}
			m[c] = struct{}{}
		}
		w.Push(3)
		w.BulkString(subVerbs[kind][0])
		w.Bulk(n)
		w.Int(int64(p.subCount(kind)))
	}
	if w != &c.out {
		p.enqueueLocked(w.B)
	}
}

// subCount is what Redis reports after (un)subscribing: shard channels count
// alone, channels and patterns together.
func (p *subscriber) subCount(kind int) int {
	if kind == kindShard {
		return len(p.names[kindShard])
	}
	return len(p.names[kindChannel]) + len(p.names[kindPattern])
}

// unsubscribe removes names (all of the kind when names is empty), answering
// one confirmation per name.
func (h *hub) unsubscribe(c *client, kind int, names [][]byte) {
	w := &c.out
	c.confirmed = true // not silenced by CLIENT REPLY (afterCommand)
	p := c.pubsub
	if p == nil {
		if len(names) == 0 {
			w.Push(3)
			w.BulkString(subVerbs[kind][1])
			w.Null()
			w.Int(0)
		}
		for _, n := range names {
			w.Push(3)
			w.BulkString(subVerbs[kind][1])
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
			w.BulkString(subVerbs[kind][1])
			w.Null()
			w.Int(int64(p.subCount(kind)))
		}
		for _, n := range all {
			h.remove(p, kind, n)
			w.Push(3)
			w.BulkString(subVerbs[kind][1])
			w.BulkString(n)
			w.Int(int64(p.subCount(kind)))
		}
		return
	}
	for _, n := range names {
		h.remove(p, kind, string(n))
		w.Push(3)
		w.BulkString(subVerbs[kind][1])
		w.Bulk(n)
		w.Int(int64(p.subCount(kind)))
	}
}

func (h *hub) remove(p *subscriber, kind int, name string) {
	if _, ok := p.names[kind][name]; !ok {
		return
	}
	delete(p.names[kind], name)
	p.c.nsub[kind].Store(int32(len(p.names[kind])))
	if m := h.subs[kind][name]; m != nil {
		delete(m, p.c)
		if len(m) == 0 {
			delete(h.subs[kind], name)
		}
	}
}

func (h *hub) unsubscribeAll(c *client) {
	if c.pubsub == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for kind := range c.pubsub.names {
		for n := range c.pubsub.names[kind] {
			h.remove(c.pubsub, kind, n)
		}
	}
}

// publish delivers msg to channel's subscribers (and, for ordinary channels,
// to matching patterns) and returns how many received it.
func (h *hub) publish(kind int, channel, msg []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var m [2]message // by protocol: built once, sent to many
	n := 0
	verb := "message"
	if kind == kindShard {
		verb = "smessage"
	}
	for c := range h.subs[kind][string(channel)] {
		c.pubsub.enqueue(m[protoIdx(c)].build(c, verb, nil, channel, msg))
		n++
	}
	if kind != kindChannel {
		return n
	}
	var pm [2]map[string][]byte
	for pat, subs := range h.subs[kindPattern] {
		if !glob.Match([]byte(pat), channel, false) {
			continue
		}
		for c := range subs {
			i := protoIdx(c)
			if pm[i] == nil {
				pm[i] = map[string][]byte{}
			}
			b, ok := pm[i][pat]
			if !ok {
				var mm message
				b = mm.build(c, "pmessage", []byte(pat), channel, msg)
				pm[i][pat] = b
			}
			c.pubsub.enqueue(b)
			n++
		}
	}
	return n
}

func protoIdx(c *client) int {
	if c.proto.Load() == 3 {
		return 1
	}
	return 0
}

type message struct{ b []byte }

func (m *message) build(c *client, verb string, pattern, channel, msg []byte) []byte {
	if m.b != nil {
		return m.b
	}
	w := resp.Writer{Proto: int(c.proto.Load())}
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

func (h *hub) channels(kind int, pattern []byte) []string {
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

func (h *hub) numSub(kind int, ch []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs[kind][string(ch)])
}

func (h *hub) numPat() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs[kindPattern])
}

func subCmd(kind int) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		c := x.Conn.(*client)
		c.s.hub.subscribe(c, kind, x.Args[1:])
	}
}

func unsubCmd(kind int) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		c := x.Conn.(*client)
		c.s.hub.unsubscribe(c, kind, x.Args[1:])
	}
}

func publishCmd(kind int) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		c := x.Conn.(*client)
		x.W.Int(int64(c.s.hub.publish(kind, x.Args[1], x.Args[2])))
		if c.s.feeding() { // replicas' subscribers get it too, as Redis propagates it
			c.s.repl.feed(x.DBID, 0, [][][]byte{x.Args})
		}
	}
}

func init() {
	const g = "pubsub"
	ps := cmdtable.PubSub | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale
	pub := cmdtable.PubSub | cmdtable.Loading | cmdtable.Stale // scripts may publish and introspect
	cmdtable.Register(
		&cmdtable.Cmd{Name: "subscribe", Arity: -2, Flags: ps, Run: subCmd(kindChannel), Group: g, Since: "2.0.0",
			Summary: "Listens for messages published to channels.", Args: "channel [channel ...]"},
		&cmdtable.Cmd{Name: "psubscribe", Arity: -2, Flags: ps, Run: subCmd(kindPattern), Group: g, Since: "2.0.0",
			Summary: "Listens for messages published to channels that match one or more patterns.", Args: "pattern [pattern ...]"},
		&cmdtable.Cmd{Name: "ssubscribe", Arity: -2, Flags: ps, Run: subCmd(kindShard), Group: g, Since: "7.0.0",
			Summary: "Listens for messages published to shard channels.", Args: "shardchannel [shardchannel ...]", First: 1, Last: -1, Step: 1},
		&cmdtable.Cmd{Name: "unsubscribe", Arity: -1, Flags: ps, Run: unsubCmd(kindChannel), Group: g, Since: "2.0.0",
			Summary: "Stops listening to messages posted to channels.", Args: "[channel [channel ...]]"},
		&cmdtable.Cmd{Name: "punsubscribe", Arity: -1, Flags: ps, Run: unsubCmd(kindPattern), Group: g, Since: "2.0.0",
			Summary: "Stops listening to messages published to channels that match one or more patterns.", Args: "[pattern [pattern ...]]"},
		&cmdtable.Cmd{Name: "sunsubscribe", Arity: -1, Flags: ps, Run: unsubCmd(kindShard), Group: g, Since: "7.0.0",
			Summary: "Stops listening to messages posted to shard channels.", Args: "[shardchannel [shardchannel ...]]", First: 1, Last: -1, Step: 1},
		&cmdtable.Cmd{Name: "publish", Arity: 3, Flags: pub | cmdtable.Fast, Run: publishCmd(kindChannel), Group: g, Since: "2.0.0",
			Summary: "Posts a message to a channel.", Args: "channel message"},
		&cmdtable.Cmd{Name: "spublish", Arity: 3, Flags: pub | cmdtable.Fast, Run: publishCmd(kindShard), Group: g, Since: "7.0.0",
			Summary: "Post a message to a shard channel", Args: "shardchannel message", First: 1, Last: 1, Step: 1},
		&cmdtable.Cmd{Name: "pubsub", Arity: -2, Group: g, Since: "2.8.0", Summary: "A container for Pub/Sub commands.",
			Subs: []*cmdtable.Cmd{
				{Name: "pubsub|channels", Arity: -2, Flags: pub, Group: g, Since: "2.8.0", Summary: "Returns the active channels.", Args: "[pattern]",
					Run: func(x *cmdtable.Ctx) { pubsubChannels(x, kindChannel) }},
				{Name: "pubsub|shardchannels", Arity: -2, Flags: pub, Group: g, Since: "7.0.0", Summary: "Returns the active shard channels.", Args: "[pattern]",
					Run: func(x *cmdtable.Ctx) { pubsubChannels(x, kindShard) }},
				{Name: "pubsub|numsub", Arity: -2, Flags: pub, Group: g, Since: "2.8.0", Summary: "Returns a count of subscribers to channels.", Args: "[channel [channel ...]]",
					Run: func(x *cmdtable.Ctx) { pubsubNumSub(x, kindChannel) }},
				{Name: "pubsub|shardnumsub", Arity: -2, Flags: pub, Group: g, Since: "7.0.0", Summary: "Returns the count of subscribers of shard channels.", Args: "[shardchannel [shardchannel ...]]",
					Run: func(x *cmdtable.Ctx) { pubsubNumSub(x, kindShard) }},
				{Name: "pubsub|numpat", Arity: 2, Flags: pub, Group: g, Since: "2.8.0", Summary: "Returns a count of unique pattern subscriptions.",
					Run: func(x *cmdtable.Ctx) { x.W.Int(int64(x.Conn.(*client).s.hub.numPat())) }},
				helpCmd("pubsub", []string{
					"CHANNELS [<pattern>]", "    Return the currently active channels matching a <pattern> (default: '*').",
					"NUMPAT", "    Return number of subscriptions to patterns.",
					"NUMSUB [<channel> ...]", "    Return the number of subscribers for the specified channels, excluding", "    pattern subscriptions(default: no channels).",
					"SHARDCHANNELS [<pattern>]", "    Return the currently active shard level channels matching a <pattern> (default: '*').",
					"SHARDNUMSUB [<shardchannel> ...]", "    Return the number of subscribers for the specified shard level channel(s)",
				}),
			}},
	)
}

func pubsubChannels(x *cmdtable.Ctx, kind int) {
	if len(x.Args) > 3 {
		x.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try PUBSUB HELP.", cstr(x.Args[1], 128)))
		return
	}
	var pat []byte
	if len(x.Args) == 3 {
		pat = x.Args[2]
	}
	chs := x.Conn.(*client).s.hub.channels(kind, pat)
	x.W.Array(len(chs))
	for _, ch := range chs {
		x.W.BulkString(ch)
	}
}

func pubsubNumSub(x *cmdtable.Ctx, kind int) {
	h := x.Conn.(*client).s.hub
	x.W.Array(2 * (len(x.Args) - 2)) // an array even in RESP3, as Redis answers
	for _, ch := range x.Args[2:] {
		x.W.Bulk(ch)
		x.W.Int(int64(h.numSub(kind, ch)))
	}
}

// allowedFor reports whether profile p lets o keep all its subscriptions:
// channels and shard channels matched by an allowed pattern, patterns equal
// to one (ACL SETUSER closes a client for which this turns false).
func (h *hub) allowedFor(o *client, p *acl.Profile) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if o.pubsub == nil {
		return true
	}
	for kind, names := range o.pubsub.names {
		for n := range names {
			if !p.ChannelAllowed(n, kind == kindPattern) {
				return false
			}
		}
	}
	return true
}
