// Package aof is the append-only log: write commands append records to a
// Log, clients wait for them to be written (group commit) and fsynced as
// appendfsync says, a manifest names the base snapshot and incremental logs,
// rewrites compact it, and a Switch turns it on and off at run time. What
// needs the whole keyspace (a snapshot's instant, the replay of a log
// through the command table) is the server's, reached through Host.
package aof
