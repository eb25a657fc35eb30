// Package server accepts connections and runs commands: the connection loop,
// pipelining, dispatch with shard locking, transactions, pub/sub and the
// connection and server commands. Data commands live in internal/commands.
//
// # Switching the append-only log
//
// aofswitch.go turns the append-only log on and off at run time (CONFIG
// SET appendonly), as Redis does.
//
// On: a new log is made ready (its directory, a first incremental file at
// a sequence number above every file there) but not yet used, and a rewrite
// of it starts (or is scheduled behind a save running). At that rewrite's
// snapshot instant, every shard and regMu held so that no write is half
// run, s.aof becomes the new log: each write is either before the instant,
// and in the base the snapshot writes, or after it, and in the incremental
// file. The manifest names the new log only once the base is written (the
// log is pending until then; a manifest left by an earlier log keeps naming
// that one, as Redis keeps its old manifest until the rewrite is done), then
// the earlier log's files go. A failed rewrite is retried, as Redis retries
// it (rewriteLimited).
//
// Off: as Redis's stopAppendOnly, at an instant of the same kind: s.aof
// becomes nil, what was appended is written out, and fsynced before the
// files are closed; a rewrite running stops and leaves no file behind.
//
// Write commands load s.aof once they hold their locks, so each sees one
// value for all it does (an atomic load per write command, nothing on
// reads). The log's offsets (a client's aofEnd and WAITAOF's woff) carry on
// from one log to the next, so an offset from a log turned off is behind
// every offset of the next one.
package server
