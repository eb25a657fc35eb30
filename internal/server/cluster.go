package server

import "github.com/hotkv/hotkv/internal/cmdtable"

// CLUSTER, READONLY, READWRITE and ASKING. HotKV has no cluster mode, so
// each answers as Redis does with cluster-enabled no: its arity is checked
// (and an unknown subcommand refused) first, then every one of them,
// CLUSTER HELP included, replies errClusterDisabled.

const errClusterDisabled = "ERR This instance has cluster support disabled"

func clusterDisabled(x *cmdtable.Ctx) { x.Error(errClusterDisabled) }

func init() {
	const g = "cluster"
	st := cmdtable.Stale
	adm := cmdtable.Admin | cmdtable.Stale
	sub := func(name string, arity int, f cmdtable.Flags, since, summary, args string) *cmdtable.Cmd {
		return &cmdtable.Cmd{Name: "cluster|" + name, Arity: arity, Flags: f, Group: g, Since: since,
			Summary: summary, Args: args, Run: clusterDisabled}
	}
	na := cmdtable.NoAsyncLoading
	cmdtable.Register(
		&cmdtable.Cmd{Name: "cluster", Arity: -2, Group: g, Since: "3.0.0", Summary: "A container for Redis Cluster commands.",
			Subs: []*cmdtable.Cmd{
				sub("addslots", -3, adm|na, "3.0.0", "Assigns new hash slots to a node.", "slot [slot ...]"),
				sub("addslotsrange", -4, adm|na, "7.0.0", "Assigns new hash slot ranges to a node.", "start-slot end-slot [start-slot end-slot ...]"),
				sub("bumpepoch", 2, adm|na, "3.0.0", "Advances the cluster config epoch.", ""),
				sub("count-failure-reports", 3, adm, "3.0.0", "Returns the number of active failure reports active for a node.", "node-id"),
				sub("countkeysinslot", 3, st, "3.0.0", "Returns the number of keys in a hash slot.", "slot"),
				sub("delslots", -3, adm|na, "3.0.0", "Sets hash slots as unbound for a node.", "slot [slot ...]"),
				sub("delslotsrange", -4, adm|na, "7.0.0", "Sets hash slot ranges as unbound for a node.", "start-slot end-slot [start-slot end-slot ...]"),
				sub("failover", -2, adm|na, "3.0.0", "Forces a replica to perform a manual failover of its master.", "[FORCE | TAKEOVER]"),
				sub("flushslots", 2, adm|na, "3.0.0", "Deletes all slots information from a node.", ""),
				sub("forget", 3, adm|na, "3.0.0", "Removes a node from the nodes table.", "node-id"),
				sub("getkeysinslot", 4, st, "3.0.0", "Returns the key names in a hash slot.", "slot count"),
				// Redis answers CLUSTER HELP with the same error, not a help text.
				sub("help", 2, cmdtable.Loading|st, "5.0.0", "Returns helpful text about the different subcommands.", ""),
				sub("info", 2, st, "3.0.0", "Returns information about the state of a node.", ""),
				sub("keyslot", 3, st, "3.0.0", "Returns the hash slot for a key.", "key"),
				sub("links", 2, st, "7.0.0", "Returns a list of all TCP links to and from peer nodes.", ""),
				sub("meet", -4, adm|na, "3.0.0", "Forces a node to handshake with another node.", "ip port [cluster-bus-port]"),
				sub("myid", 2, st, "3.0.0", "Returns the ID of a node.", ""),
				sub("myshardid", 2, st, "7.2.0", "Returns the shard ID of a node.", ""),
				sub("nodes", 2, st, "3.0.0", "Returns the cluster configuration for a node.", ""),
				sub("replicas", 3, adm, "5.0.0", "Lists the replica nodes of a master node.", "node-id"),
				sub("replicate", 3, adm|na, "3.0.0", "Configure a node as replica of a master node.", "node-id"),
				sub("reset", -2, adm|cmdtable.NoScript, "3.0.0", "Resets a node.", "[HARD | SOFT]"),
				sub("saveconfig", 2, adm|na, "3.0.0", "Forces a node to save the cluster configuration to disk.", ""),
				sub("set-config-epoch", 3, adm|na, "3.0.0", "Sets the configuration epoch for a new node.", "config-epoch"),
				sub("setslot", -4, adm|na, "3.0.0", "Binds a hash slot to a node.", "slot <IMPORTING node-id | MIGRATING node-id | NODE node-id | STABLE>"),
				sub("shards", 2, cmdtable.Loading|st, "7.0.0", "Returns the mapping of cluster slots to shards.", ""),
				sub("slaves", 3, adm, "3.0.0", "Lists the replica nodes of a master node.", "node-id"),
				sub("slots", 2, cmdtable.Loading|st, "3.0.0", "Returns the mapping of cluster slots to nodes.", ""),
			}},
		&cmdtable.Cmd{Name: "readonly", Arity: 1, Flags: cmdtable.Loading | cmdtable.Stale | cmdtable.Fast, Group: g, Since: "3.0.0",
			ACL: []string{"connection"}, Run: clusterDisabled,
			Summary: "Enables read-only queries for a connection to a Redis Cluster replica node."},
		&cmdtable.Cmd{Name: "readwrite", Arity: 1, Flags: cmdtable.Loading | cmdtable.Stale | cmdtable.Fast, Group: g, Since: "3.0.0",
			ACL: []string{"connection"}, Run: clusterDisabled,
			Summary: "Enables read-write queries for a connection to a Reids Cluster replica node."}, // sic, as Redis spells it
		&cmdtable.Cmd{Name: "asking", Arity: 1, Flags: cmdtable.Fast, Group: g, Since: "3.0.0",
			ACL: []string{"connection"}, Run: clusterDisabled,
			Summary: "Signals that a cluster client is following an -ASK redirect."},
	)
}
