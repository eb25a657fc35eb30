// Package commands implements the data commands, one file per family
// (strings.go, keys.go, ...). Each handler runs with its keys' shards already
// locked by the dispatcher (see command.Ctx) and imports only command,
// keyspace, resp and the value types it works on.
package commands
