package admin

import (
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/resp"
)

// MODULE. HotKV loads no modules; vector sets, a module in Redis 8
// ("vectorset", version 1, built into redis-server), are native commands
// here, and MODULE LIST reports them as Redis does so that a client probing
// for the module finds it. Loading fails with the start of Redis's own
// error; unloading fails as Redis's does for a module it cannot unload.

// VectorsetModule is the name Redis 8 lists its vector sets module under.
const VectorsetModule = "vectorset"

// WriteModuleList writes MODULE LIST's reply: each module a map of name,
// version, path (empty for one built in) and load arguments.
func WriteModuleList(w *resp.Writer) {
	w.Array(1)
	w.Map(4)
	w.BulkString("name")
	w.BulkString(VectorsetModule)
	w.BulkString("ver")
	w.Int(1)
	w.BulkString("path")
	w.BulkString("")
	w.BulkString("args")
	w.Array(0)
}

func moduleLoad(x *cmdtable.Ctx) {
	x.Error("ERR Error loading the extension. HotKV cannot load modules.")
}

func moduleUnload(x *cmdtable.Ctx) {
	if cmdtable.Is(x.Args[2], VectorsetModule) {
		x.Error("ERR Error unloading module: the module can't be unloaded")
		return
	}
	x.Error("ERR Error unloading module: no such module with that name")
}

func init() {
	const g = "server"
	adm := cmdtable.Admin | cmdtable.NoScript
	cmdtable.Register(&cmdtable.Cmd{Name: "module", Arity: -2, Group: g, Since: "4.0.0",
		Summary: "A container for module commands.",
		Subs: []*cmdtable.Cmd{
			{Name: "module|list", Arity: 2, Flags: adm, Group: g, Since: "4.0.0",
				Summary: "Returns all loaded modules.",
				Run:     func(x *cmdtable.Ctx) { WriteModuleList(x.W) }},
			{Name: "module|load", Arity: -3, Flags: adm | cmdtable.NoAsyncLoading | cmdtable.Protected, Group: g, Since: "4.0.0",
				Summary: "Loads a module.", Args: "path [arg [arg ...]]", Run: moduleLoad},
			{Name: "module|loadex", Arity: -3, Flags: adm | cmdtable.NoAsyncLoading | cmdtable.Protected, Group: g, Since: "7.0.0",
				Summary: "Loads a module using extended parameters.",
				Args:    "path [CONFIG name value [CONFIG name value ...]] [ARGS args [args ...]]", Run: moduleLoad},
			{Name: "module|unload", Arity: 3, Flags: adm | cmdtable.NoAsyncLoading | cmdtable.Protected, Group: g, Since: "4.0.0",
				Summary: "Unloads a module.", Args: "name", Run: moduleUnload},
			cmdtable.HelpCmd("module", "server", "5.0.0", []string{
				"LIST", "    Return a list of loaded modules.",
				"LOAD <path> [<arg> ...]", "    Load a module library from <path>, passing to it any optional arguments.",
				"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
				"    Load a module library from <path>, while passing it module configurations and optional arguments.",
				"UNLOAD <name>", "    Unload a module.",
			}),
		}})
}
