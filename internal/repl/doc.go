// Package repl is replication (docs/replication.md). As a master: the
// stream of writes, its backlog, the replicas' full and partial syncs and
// the acknowledgements WAIT counts. As a replica: the link to the master.
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
// ROLE, REPLICAOF) stay in internal/server as thin glue.
//
// As a replica (Upstream), REPLICAOF host port starts a link goroutine
// that connects to the master, performs Redis's replica handshake (PING,
// AUTH, REPLCONF listening-port, REPLCONF capa eof capa psync2, PSYNC ?
// -1), reads the RDB the full resync sends (as "$<len>" or the diskless
// "$EOF:<mark>" form) into fresh data that then replaces the server's, and
// applies the command stream that follows through the master's client. It
// acknowledges its offset every second and on REPLCONF GETACK, and
// reconnects with backoff when the link drops, asking to continue where it
// stopped (PSYNC <replid> <offset+1>): a master that still has that in its
// backlog answers +CONTINUE and sends the rest of the stream, any other
// answer is a new full resync. The offset applied does not move inside a
// transaction, so a link cut before EXEC gets all of it again. Keys do not
// expire on their own while replicating: the master's DELs do it (reads
// hide keys whose time has passed, as Redis's replicas do).
//
// Upstream reaches the server through ReplicaHost (settings, the replid,
// becoming a replica or a master, loading an RDB file into fresh data),
// Staged (swapping that data in, with the registries, a new history for
// this server's own replicas and a rewrite of the log) and MasterClient
// (applying one command of the stream through the command table). None
// is called on a client's command's path, which reads the link's state
// through the concrete Upstream (LinkUp).
//
// Lock order: Master.mu is taken under the writers' shard locks (Feed),
// never the other way round; a replica's writer goroutine takes it only
// to swap its pending output. Upstream's applyMu is taken before the
// server's locks (a command of the stream runs under it; REPLICAOF holds
// it, with Pause, except inside EXEC); the server's clients.mu is never taken
// under Upstream.mu, which Follow's unblock and ReplicaHost.SetReplica run
// under (REPLICAOF lists the clients to unblock before Follow).
package repl
