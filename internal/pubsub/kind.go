package pubsub

import "sync/atomic"

// Kind is a subscription's namespace: channels, patterns and shard channels
// (SSUBSCRIBE) are each their own, as in Redis.
type Kind int

const (
	Channel Kind = iota
	Pattern
	Shard
)

var verbs = [3][2]string{
	{"subscribe", "unsubscribe"},
	{"psubscribe", "punsubscribe"},
	{"ssubscribe", "sunsubscribe"},
}

// Endpoint is a connection's pub/sub side, kept in the server's client: its
// subscription counts, which any goroutine may read, and its Subscriber
// while it has one, which only the owning connection reads directly (others
// go through the Hub, under its lock).
type Endpoint struct {
	sub *Subscriber
	n   [3]atomic.Int32
}

// Subscriber is the connection's queue and subscriptions, nil while it has
// none. For the owning connection's goroutine only.
func (e *Endpoint) Subscriber() *Subscriber { return e.sub }

// Count is the number of subscriptions of kind k.
func (e *Endpoint) Count(k Kind) int32 { return e.n[k].Load() }

// Subscribed reports whether the connection has any subscription (Redis's
// CLIENT_PUBSUB flag). Safe from any goroutine.
func (e *Endpoint) Subscribed() bool {
	return e.n[Channel].Load()+e.n[Pattern].Load()+e.n[Shard].Load() > 0
}
