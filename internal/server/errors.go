package server

// Error texts this package sends from more than one file (see the rule at
// the top of internal/cmdtable/errors.go).

// errReplicaKeyspace refuses keyspace commands from a replica's link, and
// from a monitor, which Redis flags as a replica.
const errReplicaKeyspace = "ERR Replica can't interact with the keyspace"
