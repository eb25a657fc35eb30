package server

import (
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/pubsub"
)

// Pub/sub commands and the client's side of the hub (internal/pubsub): the
// hub and the queues are there; what needs the client's state is here.

// subscriber returns c's output queue, made on first use.
func (c *client) subscriber() *pubsub.Subscriber {
	return c.s.hub.Open(&c.pubsub.ep, c)
}

// releaseHeld queues the replies so far (a finished EXEC's, a tracking
// client's batch), then the messages held while they were built; false if
// the client is dead.
func (c *client) releaseHeld() bool {
	p := c.pubsub.ep.Subscriber()
	if p == nil || !c.pubsub.holding {
		return true
	}
	c.pubsub.holding = false
	ok := p.Release(c.io.out.B)
	c.resetOut()
	return ok
}

// leavePubSub returns a client without subscriptions to direct writes
// (Hub.Leave).
func (c *client) leavePubSub() { c.s.hub.Leave(&c.pubsub.ep) }

// Proto implements pubsub.Conn.
func (c *client) Proto() int { return int(c.info.proto.Load()) }

// Subscribed implements pubsub.Conn.
func (c *client) Subscribed() bool { return c.subscribed() }

// Push implements pubsub.Conn: b joins c's output queue, if it has one
// (tracking, subscribed or monitoring clients do).
func (c *client) Push(b []byte) { c.s.hub.Push(&c.pubsub.ep, b) }

// QueueOver implements pubsub.Conn: the pubsub class's output buffer limits
// apply to a subscribed or monitoring client (obuf.go); past them it is
// disconnected.
func (c *client) QueueOver(size int64, softSince *int64) bool {
	if !c.subscribed() && !c.pubsub.monitoring.Load() {
		return false
	}
	cfg := c.s.Config()
	if !outputOver(size, cfg.PubSubOutputLimit, cfg.PubSubOutputSoft, softSince) {
		return false
	}
	c.outputLimitReached("pubsub", size)
	c.closeConn()
	return true
}

// WriteOut implements pubsub.Conn: the queue's writer's socket write.
func (c *client) WriteOut(b []byte) error {
	c.stats.writes.Add(1)
	n, err := c.io.conn.Write(b)
	c.stats.netOut.Add(int64(n))
	return err
}

// CloseConn implements pubsub.Conn.
func (c *client) CloseConn() { c.closeConn() }

// queueRoom is how much a tracking client's own replies may wait in its
// queue before it stops reading more commands (pubsub.Subscriber.WaitRoom).
const queueRoom = 4 * flushAt

func subCmd(kind pubsub.Kind) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		c := x.Conn.(*client)
		p := c.subscriber()
		// In an EXEC, or a tracking client's batch whose pushes are held
		// anyway, the confirmations are part of the reply still being built.
		hold := c.tx.inExec || c.pubsub.holding
		if hold {
			c.pubsub.holding = true
			c.pubsub.confirmed = true
		}
		c.s.hub.Subscribe(p, kind, x.Args[1:], &c.io.out, hold)
	}
}

func unsubCmd(kind pubsub.Kind) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		c := x.Conn.(*client)
		c.pubsub.confirmed = true // not silenced by CLIENT REPLY (afterCommand)
		c.s.hub.Unsubscribe(&c.pubsub.ep, kind, x.Args[1:], &c.io.out)
	}
}

func publishCmd(kind pubsub.Kind) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		c := x.Conn.(*client)
		x.W.Int(int64(c.s.hub.Publish(kind, x.Args[1], x.Args[2])))
		if c.s.feeding() { // replicas' subscribers get it too, as Redis propagates it
			c.s.repl.Feed(x.DBID, 0, [][][]byte{x.Args})
		}
	}
}

func init() {
	const g = "pubsub"
	ps := cmdtable.PubSub | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale
	pub := cmdtable.PubSub | cmdtable.Loading | cmdtable.Stale // scripts may publish and introspect
	cmdtable.Register(
		&cmdtable.Cmd{Name: "subscribe", Arity: -2, Flags: ps, Run: subCmd(pubsub.Channel), Group: g, Since: "2.0.0",
			Summary: "Listens for messages published to channels.", Args: "channel [channel ...]"},
		&cmdtable.Cmd{Name: "psubscribe", Arity: -2, Flags: ps, Run: subCmd(pubsub.Pattern), Group: g, Since: "2.0.0",
			Summary: "Listens for messages published to channels that match one or more patterns.", Args: "pattern [pattern ...]"},
		&cmdtable.Cmd{Name: "ssubscribe", Arity: -2, Flags: ps, Run: subCmd(pubsub.Shard), Group: g, Since: "7.0.0",
			Summary: "Listens for messages published to shard channels.", Args: "shardchannel [shardchannel ...]", First: 1, Last: -1, Step: 1},
		&cmdtable.Cmd{Name: "unsubscribe", Arity: -1, Flags: ps, Run: unsubCmd(pubsub.Channel), Group: g, Since: "2.0.0",
			Summary: "Stops listening to messages posted to channels.", Args: "[channel [channel ...]]"},
		&cmdtable.Cmd{Name: "punsubscribe", Arity: -1, Flags: ps, Run: unsubCmd(pubsub.Pattern), Group: g, Since: "2.0.0",
			Summary: "Stops listening to messages published to channels that match one or more patterns.", Args: "[pattern [pattern ...]]"},
		&cmdtable.Cmd{Name: "sunsubscribe", Arity: -1, Flags: ps, Run: unsubCmd(pubsub.Shard), Group: g, Since: "7.0.0",
			Summary: "Stops listening to messages posted to shard channels.", Args: "[shardchannel [shardchannel ...]]", First: 1, Last: -1, Step: 1},
		&cmdtable.Cmd{Name: "publish", Arity: 3, Flags: pub | cmdtable.Fast, Run: publishCmd(pubsub.Channel), Group: g, Since: "2.0.0",
			Summary: "Posts a message to a channel.", Args: "channel message"},
		&cmdtable.Cmd{Name: "spublish", Arity: 3, Flags: pub | cmdtable.Fast, Run: publishCmd(pubsub.Shard), Group: g, Since: "7.0.0",
			Summary: "Post a message to a shard channel", Args: "shardchannel message", First: 1, Last: 1, Step: 1},
		&cmdtable.Cmd{Name: "pubsub", Arity: -2, Group: g, Since: "2.8.0", Summary: "A container for Pub/Sub commands.",
			Subs: []*cmdtable.Cmd{
				{Name: "pubsub|channels", Arity: -2, Flags: pub, Group: g, Since: "2.8.0", Summary: "Returns the active channels.", Args: "[pattern]",
					Run: func(x *cmdtable.Ctx) { pubsubChannels(x, pubsub.Channel) }},
				{Name: "pubsub|shardchannels", Arity: -2, Flags: pub, Group: g, Since: "7.0.0", Summary: "Returns the active shard channels.", Args: "[pattern]",
					Run: func(x *cmdtable.Ctx) { pubsubChannels(x, pubsub.Shard) }},
				{Name: "pubsub|numsub", Arity: -2, Flags: pub, Group: g, Since: "2.8.0", Summary: "Returns a count of subscribers to channels.", Args: "[channel [channel ...]]",
					Run: func(x *cmdtable.Ctx) { pubsubNumSub(x, pubsub.Channel) }},
				{Name: "pubsub|shardnumsub", Arity: -2, Flags: pub, Group: g, Since: "7.0.0", Summary: "Returns the count of subscribers of shard channels.", Args: "[shardchannel [shardchannel ...]]",
					Run: func(x *cmdtable.Ctx) { pubsubNumSub(x, pubsub.Shard) }},
				{Name: "pubsub|numpat", Arity: 2, Flags: pub, Group: g, Since: "2.8.0", Summary: "Returns a count of unique pattern subscriptions.",
					Run: func(x *cmdtable.Ctx) { x.W.Int(int64(x.Conn.(*client).s.hub.NumPat())) }},
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

func pubsubChannels(x *cmdtable.Ctx, kind pubsub.Kind) {
	if len(x.Args) > 3 {
		x.Error(cmdtable.UnknownSubcommand(cstr(x.Args[1], 128), "PUBSUB"))
		return
	}
	var pat []byte
	if len(x.Args) == 3 {
		pat = x.Args[2]
	}
	chs := x.Conn.(*client).s.hub.Channels(kind, pat)
	x.W.Array(len(chs))
	for _, ch := range chs {
		x.W.BulkString(ch)
	}
}

func pubsubNumSub(x *cmdtable.Ctx, kind pubsub.Kind) {
	h := x.Conn.(*client).s.hub
	x.W.Array(2 * (len(x.Args) - 2)) // an array even in RESP3, as Redis answers
	for _, ch := range x.Args[2:] {
		x.W.Bulk(ch)
		x.W.Int(int64(h.NumSub(kind, ch)))
	}
}
