package admin

import (
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/resp"
)

// COMMAND and its subcommands, so that client libraries that introspect the
// server (key positions, docs for redis-cli hints) work.

// CategoryOrder is Redis's order of ACL categories in COMMAND INFO.
var CategoryOrder = []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
	"hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection",
	"transaction", "scripting"}

// groupCategory is the ACL category a documentation group implies.
var groupCategory = map[string]string{
	"generic": "keyspace", "string": "string", "list": "list", "set": "set", "sorted-set": "sortedset",
	"hash": "hash", "bitmap": "bitmap", "hyperloglog": "hyperloglog", "geo": "geo", "stream": "stream",
	"pubsub": "pubsub", "connection": "connection", "transactions": "transaction", "scripting": "scripting",
}

// Categories derives a command's ACL categories from its flags, its group
// and its explicit ACL list, in Redis's order.
func Categories(c *cmdtable.Cmd) []string {
	has := map[string]bool{}
	f := c.Flags
	has["write"] = f&cmdtable.Write != 0
	has["admin"] = f&cmdtable.Admin != 0
	has["dangerous"] = f&cmdtable.Admin != 0
	has["fast"] = f&cmdtable.Fast != 0
	has["slow"] = f&cmdtable.Fast == 0
	has["blocking"] = f&cmdtable.Blocking != 0
	// A container's categories are its subcommands' (Redis gives it @slow
	// alone); a command naming group categories of its own (SORT: set,
	// sortedset, list; WAIT: connection) takes those instead of its group's.
	if g := groupCategory[c.Group]; g != "" && c.Subs == nil && !namesGroup(c.ACL) {
		has[g] = true
	}
	for _, a := range c.ACL {
		has[a] = true
	}
	has["read"] = f&cmdtable.ReadOnly != 0 && !has["scripting"] // as Redis: scripts are not @read
	var cats []string
	for _, a := range CategoryOrder {
		if has[a] {
			cats = append(cats, "@"+a)
		}
	}
	return cats
}

func namesGroup(acl []string) bool {
	for _, a := range acl {
		for _, g := range groupCategory {
			if a == g {
				return true
			}
		}
	}
	return false
}

// writeCommandInfo writes one COMMAND INFO entry in Redis 7+'s shape: ten
// fields, with sets for flags, categories, tips and key specs, and the
// subcommands as an array (an empty set for a command without any).
func writeCommandInfo(a Server, w *resp.Writer, c *cmdtable.Cmd) {
	w.Array(10)
	w.BulkString(c.Name)
	w.Int(int64(c.Arity))
	flags := c.FlagNames()
	w.Set(len(flags))
	for _, f := range flags {
		w.Simple(f)
	}
	w.Int(int64(c.First))
	w.Int(int64(c.Last))
	w.Int(int64(c.Step))
	cats := Categories(c)
	w.Set(len(cats))
	for _, cat := range cats {
		w.Simple(cat)
	}
	a.WriteSpecs(w, c)
	if len(c.Subs) == 0 {
		w.Set(0)
		return
	}
	w.Array(len(c.Subs))
	for _, s := range c.Subs {
		writeCommandInfo(a, w, s)
	}
}

func writeCommandDocs(w *resp.Writer, c *cmdtable.Cmd) {
	n := 3
	if len(c.Subs) > 0 {
		n++
	}
	w.Map(n)
	w.BulkString("summary")
	w.BulkString(c.Summary)
	w.BulkString("since")
	w.BulkString(c.Since)
	w.BulkString("group")
	w.BulkString(c.Group)
	if len(c.Subs) > 0 {
		w.BulkString("subcommands")
		w.Map(len(c.Subs))
		for _, s := range c.Subs {
			w.BulkString(s.Name)
			writeCommandDocs(w, s)
		}
	}
}

func commandAll(x *cmdtable.Ctx) {
	a := srv(x)
	all := a.Commands()
	x.W.Array(len(all))
	for _, c := range all {
		writeCommandInfo(a, x.W, c)
	}
}

// resolve finds "config|get"-style or plain command names.
func resolve(a Server, name []byte) *cmdtable.Cmd {
	if i := strings.IndexByte(string(name), '|'); i > 0 {
		if p := a.Lookup(name[:i]); p != nil {
			return p.Sub(name[i+1:])
		}
		return nil
	}
	return a.Lookup(name)
}

func commandInfo(x *cmdtable.Ctx) {
	if len(x.Args) == 2 {
		commandAll(x)
		return
	}
	a := srv(x)
	x.W.Array(len(x.Args) - 2)
	for _, n := range x.Args[2:] {
		if c := resolve(a, n); c != nil {
			writeCommandInfo(a, x.W, c)
		} else {
			x.W.Null()
		}
	}
}

func commandDocs(x *cmdtable.Ctx) {
	a := srv(x)
	var cmds []*cmdtable.Cmd
	if len(x.Args) == 2 {
		cmds = a.Commands()
	} else {
		for _, n := range x.Args[2:] {
			if c := resolve(a, n); c != nil {
				cmds = append(cmds, c)
			}
		}
	}
	x.W.Map(len(cmds))
	for _, c := range cmds {
		x.W.BulkString(c.Name)
		writeCommandDocs(x.W, c)
	}
}

func commandList(x *cmdtable.Ctx) {
	var filter func(*cmdtable.Cmd) bool
	args := x.Args[2:]
	if len(args) > 0 {
		if len(args) != 3 || !cmdtable.Is(args[0], "filterby") {
			x.Error(cmdtable.ErrSyntax)
			return
		}
		v := args[2]
		switch {
		case cmdtable.Is(args[1], "module"):
			// Vector sets are a module in Redis 8 (MODULE LIST), built in here.
			isVset := cmdtable.Is(v, VectorsetModule)
			filter = func(c *cmdtable.Cmd) bool { return isVset && c.Group == "vectorset" }
		case cmdtable.Is(args[1], "aclcat"):
			filter = func(c *cmdtable.Cmd) bool {
				for _, cat := range Categories(c) {
					if strings.EqualFold(cat[1:], string(v)) {
						return true
					}
				}
				return false
			}
		case cmdtable.Is(args[1], "pattern"):
			filter = func(c *cmdtable.Cmd) bool { return glob.Match(v, []byte(c.Name), true) }
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	var names []string
	for _, c := range srv(x).Commands() {
		for _, cc := range append([]*cmdtable.Cmd{c}, c.Subs...) {
			if filter == nil || filter(cc) {
				names = append(names, cc.Name)
			}
		}
	}
	x.W.Array(len(names))
	for _, n := range names {
		x.W.BulkString(n)
	}
}

// commandGetKeys is COMMAND GETKEYS, with Redis's checks in its order: the
// command (and subcommand) exists, has key arguments, and fits its arity;
// the keys are found as Redis finds them (Server.KeysOf).
func commandGetKeys(x *cmdtable.Ctx) { getKeys(x, false) }

// commandGetKeysAndFlags is COMMAND GETKEYSANDFLAGS: GETKEYS's keys, each
// with its key spec's flags.
func commandGetKeysAndFlags(x *cmdtable.Ctx) { getKeys(x, true) }

func getKeys(x *cmdtable.Ctx, withFlags bool) {
	a := srv(x)
	args := x.Args[2:]
	c := a.Lookup(args[0])
	if c != nil && c.Subs != nil && len(args) > 1 {
		c = c.Sub(args[1])
	}
	if c == nil {
		x.Error("ERR Invalid command specified")
		return
	}
	if !a.HasKeys(c) {
		x.Error("ERR The command has no key arguments")
		return
	}
	if !c.CheckArity(len(args)) {
		x.Error("ERR Invalid number of arguments specified for command")
		return
	}
	pos, flags := a.KeysOf(c, args)
	if len(pos) == 0 && c.Flags&cmdtable.NoMandatoryKeys != 0 {
		x.W.Array(0)
		return
	}
	if len(pos) == 0 {
		x.Error("ERR Invalid arguments specified for command")
		return
	}
	x.W.Array(len(pos))
	for j, i := range pos {
		if withFlags {
			x.W.Array(2)
			x.W.Bulk(args[i])
			x.W.Set(len(flags[j]))
			for _, f := range flags[j] {
				x.W.Simple(f)
			}
		} else {
			x.W.Bulk(args[i])
		}
	}
}

func init() {
	const g = "server"
	f := cmdtable.Loading | cmdtable.Stale
	cmdtable.Register(&cmdtable.Cmd{Name: "command", Arity: -1, Flags: f, Group: g, Since: "2.8.13", ACL: []string{"connection"},
		Summary: "Returns detailed information about all commands.",
		Run:     commandAll,
		Subs: []*cmdtable.Cmd{
			{Name: "command|count", Arity: 2, Flags: f, Group: g, ACL: []string{"connection"}, Since: "2.8.13", Summary: "Returns a count of commands.",
				Run: func(x *cmdtable.Ctx) { x.W.Int(int64(len(srv(x).Commands()))) }},
			{Name: "command|info", Arity: -2, Flags: f, Group: g, ACL: []string{"connection"}, Since: "2.8.13", Summary: "Returns information about one, multiple or all commands.",
				Args: "[command-name [command-name ...]]", Run: commandInfo},
			{Name: "command|docs", Arity: -2, Flags: f, Group: g, ACL: []string{"connection"}, Since: "7.0.0", Summary: "Returns documentary information about one, multiple or all commands.",
				Args: "[command-name [command-name ...]]", Run: commandDocs},
			{Name: "command|list", Arity: -2, Flags: f, Group: g, ACL: []string{"connection"}, Since: "7.0.0", Summary: "Returns a list of command names.",
				Args: "[FILTERBY <MODULE module-name | ACLCAT category | PATTERN pattern>]", Run: commandList},
			{Name: "command|getkeys", Arity: -3, Flags: f, Group: g, ACL: []string{"connection"}, Since: "2.8.13", Summary: "Extracts the key names from an arbitrary command.",
				Args: "command [arg [arg ...]]", Run: commandGetKeys},
			{Name: "command|getkeysandflags", Arity: -3, Flags: f, Group: g, ACL: []string{"connection"}, Since: "7.0.0", Summary: "Extracts the key names and access flags for an arbitrary command.",
				Args: "command [arg [arg ...]]", Run: commandGetKeysAndFlags},
			withACL(cmdtable.HelpCmd("command", "server", "5.0.0", []string{
				"(no subcommand)", "    Return details about all Redis commands.",
				"COUNT", "    Return the total number of commands in this Redis server.",
				"LIST", "    Return a list of all commands in this Redis server.",
				"INFO [<command-name> ...]", "    Return details about multiple Redis commands.",
				"    If no command names are given, documentation details for all",
				"    commands are returned.",
				"DOCS [<command-name> ...]", "    Return documentation details about multiple Redis commands.",
				"    If no command names are given, documentation details for all",
				"    commands are returned.",
				"GETKEYS <full-command>", "    Return the keys from a full Redis command.",
				"GETKEYSANDFLAGS <full-command>", "    Return the keys and the access flags from a full Redis command.",
			}), "connection"),
		}})
}

// withACL gives c the ACL categories acl.
func withACL(c *cmdtable.Cmd, acl ...string) *cmdtable.Cmd {
	c.ACL = acl
	return c
}
