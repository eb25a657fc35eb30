// Package repl is replication's master side (docs/replication.md): the
// stream of writes, its backlog, the replicas' full and partial syncs and
// the acknowledgements WAIT counts.
//
// A replica's SYNC or PSYNC gets an RDB file of the data at one instant,
// which the server writes copy-on-write as it takes a snapshot
// (Host.WriteRDB), then every write after that instant as RESP commands:
// what the append-only log records, in execution order, under the
// writers' shard locks, in the forms Redis propagates (relative expiry as
// absolute, SELECT when the database changes, several commands as
// MULTI/EXEC), plus a DEL for each key that expires or is evicted. The
// stream goes to every replica's own output buffer and to the backlog,
// from which a replica that reconnects continues (+CONTINUE).
//
// The server reaches the stream through the concrete *Master (Feed,
// FeedRecord after a write): with no replica and no backlog a write pays
// one atomic load (Feeding). Master reaches the server through small
// interfaces none of a command's path calls: Host (settings, the log,
// the RDB file of an instant), Conn (a replica's connection, written by
// the replica's own goroutine) and Waiter (a client blocked in WAIT). A
// command's Redis form comes from the FormFunc the server gives Init.
//
// The commands that need a client's state (SYNC, PSYNC, REPLCONF, WAIT,
// ROLE) stay in internal/server as thin glue, as does the replica side
// (REPLICAOF: the link to a master, loading its RDB into a fresh keyspace
// and applying its stream through a client).
//
// Lock order: Master.mu is taken under the writers' shard locks (Feed),
// never the other way round; a replica's writer goroutine takes it only
// to swap its pending output.
package repl
