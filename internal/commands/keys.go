package commands

import (
	"github.com/hotkv/hotkv/internal/command"
)

// Generic key commands.

func del(x *command.Ctx) {
	n := 0
	for _, k := range x.Args[1:] {
		if x.Shard(k).Delete(k, x.Now) {
			n++
		}
	}
	x.W.Int(int64(n))
}

func exists(x *command.Ctx) {
	n := 0
	for _, k := range x.Args[1:] {
		if x.Lookup(k) != nil {
			n++
		}
	}
	x.W.Int(int64(n))
}

// flushArgs accepts FLUSHDB/FLUSHALL's optional ASYNC or SYNC.
func flushArgs(x *command.Ctx) bool {
	if len(x.Args) > 2 || (len(x.Args) == 2 && !command.Is(x.Args[1], "async") && !command.Is(x.Args[1], "sync")) {
		x.Error(command.ErrSyntax)
		return false
	}
	return true
}

func flushdb(x *command.Ctx) {
	if flushArgs(x) {
		x.DB.Flush()
		x.W.OK()
	}
}

func flushall(x *command.Ctx) {
	if flushArgs(x) {
		for _, db := range x.KS.DBs {
			db.Flush()
		}
		x.W.OK()
	}
}

func init() {
	const g = "generic"
	command.Register(
		&command.Cmd{Name: "del", Arity: -2, Flags: command.Write, First: 1, Last: -1, Step: 1, Run: del, Group: g, Since: "1.0.0",
			Summary: "Deletes one or more keys.", Args: "key [key ...]"},
		&command.Cmd{Name: "exists", Arity: -2, Flags: command.ReadOnly | command.Fast, First: 1, Last: -1, Step: 1, Run: exists, Group: g, Since: "1.0.0",
			Summary: "Determines whether one or more keys exist.", Args: "key [key ...]"},
		&command.Cmd{Name: "dbsize", Arity: 1, Flags: command.ReadOnly | command.Fast | command.LockDB, Group: "server", Since: "1.0.0",
			Summary: "Returns the number of keys in the database.", Run: func(x *command.Ctx) { x.W.Int(int64(x.DB.Size())) }},
		&command.Cmd{Name: "flushdb", Arity: -1, Flags: command.Write | command.LockDB, Run: flushdb, Group: "server", Since: "1.0.0",
			Summary: "Removes all keys from the current database.", Args: "[ASYNC | SYNC]"},
		&command.Cmd{Name: "flushall", Arity: -1, Flags: command.Write | command.LockAll, Run: flushall, Group: "server", Since: "1.0.0",
			Summary: "Removes all keys from all databases.", Args: "[ASYNC | SYNC]"},
	)
}
