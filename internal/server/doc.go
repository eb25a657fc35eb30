// Package server accepts connections and runs commands: the connection loop,
// pipelining, dispatch with shard locking, transactions, pub/sub and the
// connection and server commands. Data commands live in internal/commands.
package server
