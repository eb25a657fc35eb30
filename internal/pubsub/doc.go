// Package pubsub is the server's publish/subscribe hub, the output queues
// of the connections that receive pushes, and the client-side caching
// table (CLIENT TRACKING). The command handlers that need a connection's
// state stay in internal/server; it reaches each connection through the
// small Conn interface, which only delivery and the queues' writers call,
// never an ordinary command's path.
//
// # Hub and queues
//
// The Hub maps channels, patterns and shard channels (each its own
// namespace, as in Redis) to Subscribers. A Subscriber is a connection's
// subscriptions plus an ordered output queue that a writer goroutine
// drains, so a publisher never blocks on a slow subscriber's socket; a
// message is built once per protocol and appended to every queue. While a
// connection has a Subscriber its own replies go through the queue too, so
// they stay ordered with what others push to it; once it has no
// subscription left and neither monitors nor tracks, it leaves the queue
// (Hub.Leave) and writes directly again, so that it gets the backpressure
// of any client that does not read.
//
// Lock order: the hub's lock before any Subscriber's, so a subscription's
// confirmation is queued before any message for it can be. A connection's
// Subscriber is set and cleared under the hub's lock; other goroutines
// reach it only through the hub (Push, Load), so none delivers to a queue
// being retired.
//
// A Subscriber can hold what others push (Hold, Release) while its
// connection builds replies that must come first: an EXEC that subscribed,
// a tracking client's batch, a blocked command served on its behalf.
//
// # Client-side caching
//
// The Tracker is Redis's tracking.c: a table from key names to the clients
// that read them, across databases as in Redis; a modification of a key
// (keyspace.Tracker's Modified) sends each of them one invalidation message
// and forgets them, until they read the key again. Clients in BCAST mode
// register prefixes instead and hear of every key under them; as Redis
// gathers the keys modified in one event-loop turn into one message per
// prefix, the keys a client's batch of commands modifies are gathered and
// sent when the batch's replies go (SendBroadcast).
//
// Ordering: a tracking client's pushes are held while it runs a batch of
// commands and queued after the batch's replies, so an invalidation never
// overtakes the reply carrying the value it invalidates, and one caused by
// the client's own command follows that command's reply, as in Redis.
package pubsub
