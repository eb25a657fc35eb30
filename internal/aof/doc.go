// Package aof is the append-only log: write commands append records to a
// Log, clients wait for them to be written (group commit) and fsynced as
// appendfsync says, a manifest names the base snapshot and incremental logs,
// rewrites compact it, and a Switch turns it on and off at run time. What
// needs the whole keyspace (a snapshot's instant, the replay of a log
// through the command table) is the server's, reached through Host.
//
// # Switching the append-only log
//
// switch.go turns the append-only log on and off at run time (CONFIG
// SET appendonly), as Redis does.
//
// On: a new log is made ready (its directory, a first incremental file at
// a sequence number above every file there) but not yet used, and a rewrite
// of it starts (or is scheduled behind a save running). At that rewrite's
// snapshot instant, every shard and the server's regMu held so that no
// write is half run, the Switch's current log becomes the new one: each
// write is either before the instant, and in the base the snapshot writes,
// or after it, and in the incremental file. The manifest names the new log
// only once the base is written (the log is pending until then; a manifest
// left by an earlier log keeps naming that one, as Redis keeps its old
// manifest until the rewrite is done), then the earlier log's files go. A
// failed rewrite is retried, as Redis retries it (rewriteLimited).
//
// Off: as Redis's stopAppendOnly, at an instant of the same kind
// (Host.Quiesce): the current log becomes nil, what was appended is written
// out, and fsynced before the files are closed; a rewrite running stops and
// leaves no file behind.
//
// Write commands load the current log (Switch.Load) once they hold their
// locks, so each sees one value for all it does (an atomic load per write
// command, nothing on reads). The log's offsets (a client's aofEnd and
// WAITAOF's woff) carry on from one log to the next, so an offset from a
// log turned off is behind every offset of the next one.
package aof
