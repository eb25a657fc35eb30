package server

import (
	"fmt"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/script"
)

// Functions: FCALL, FCALL_RO and FUNCTION. A function runs exactly as an
// EVAL script does (runScript), with its flags as a shebang's. The
// libraries live in the script engine, beside the keyspace: FUNCTION's
// writes are keyless writes (registries.go), logged as sent and saved in
// snapshots as FUNCTION DUMP's payload; FLUSHALL leaves them, as in Redis.

func fcallCmd(readOnly bool) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		c := cl(x)
		c.showScriptCall(x)
		f := c.s.scripts.Function(x.Args[1])
		if f == nil {
			x.Error("ERR Function not found")
			return
		}
		keys, argv, ok := evalArgs(x, "ERR Bad number of keys provided")
		if !ok {
			return
		}
		c.runScript(&f.Script, keys, argv, readOnly)
	}
}

// subcommandSyntax is Redis's error for a subcommand given too many
// arguments that its arity allows.
func subcommandSyntax(x *cmdtable.Ctx) {
	x.Error(cmdtable.UnknownSubcommand(cstr(x.Args[1], 128), "FUNCTION"))
}

func functionLoad(x *cmdtable.Ctx) {
	replace := false
	for _, a := range x.Args[2 : len(x.Args)-1] {
		if !cmdtable.Is(a, "replace") {
			x.Error(fmt.Sprintf("ERR Unknown option given: %s", a))
			return
		}
		replace = true
	}
	name, err := cl(x).s.scripts.LoadLibrary(x.Args[len(x.Args)-1], replace)
	if err != nil {
		x.Error(err.Error())
		return
	}
	x.W.BulkString(name)
}

func functionDelete(x *cmdtable.Ctx) {
	if !cl(x).s.scripts.DeleteLibrary(x.Args[2]) {
		x.Error("ERR Library not found")
		return
	}
	x.W.OK()
}

func functionFlush(x *cmdtable.Ctx) {
	switch {
	case len(x.Args) > 3:
		subcommandSyntax(x)
		return
	case len(x.Args) == 3 && !cmdtable.Is(x.Args[2], "sync") && !cmdtable.Is(x.Args[2], "async"):
		x.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	}
	s := cl(x).s
	n, bytes := s.scripts.FlushFunctions()
	s.scriptsFlushed(x, n, 1, bytes) // Redis's one engine, Lua
	x.W.OK()
}

func functionList(x *cmdtable.Ctx) {
	withCode := false
	var pattern []byte
	for i := 2; i < len(x.Args); i++ {
		switch a := x.Args[i]; {
		case !withCode && cmdtable.Is(a, "withcode"):
			withCode = true
		case pattern == nil && cmdtable.Is(a, "libraryname"):
			if i == len(x.Args)-1 {
				x.Error("ERR library name argument was not given")
				return
			}
			i++
			pattern = x.Args[i]
		default:
			x.Error(fmt.Sprintf("ERR Unknown argument %s", a))
			return
		}
	}
	libs := cl(x).s.scripts.Libraries()
	if pattern != nil {
		kept := libs[:0]
		for _, l := range libs {
			if glob.MatchString(string(pattern), l.Name, true) {
				kept = append(kept, l)
			}
		}
		libs = kept
	}
	w := x.W
	w.Array(len(libs))
	for _, l := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(l.Functions))
		for _, f := range l.Functions {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.HasDesc {
				w.BulkString(f.Desc)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			flags := f.Mode.Flags()
			w.Set(len(flags))
			for _, s := range flags {
				w.Simple(s) // as Redis
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(l.Code)
		}
	}
}

// functionStats reports the function running, if any. It takes no lock, so
// it answers while one runs (other commands wait for it, see
// docs/commands/scripting.md).
func functionStats(x *cmdtable.Ctx) {
	e := cl(x).s.scripts
	name, function, cmd, d, running := e.Running()
	if running && !function {
		x.Error(script.ErrBusyScript)
		return
	}
	_, libs, funcs, _ := e.Counts()
	w := x.W
	w.Map(2)
	w.BulkString("running_script")
	if running {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(name)
		w.BulkString("command")
		w.Array(len(cmd))
		for _, a := range cmd {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(d.Milliseconds())
	} else {
		w.Null()
	}
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(libs))
	w.BulkString("functions_count")
	w.Int(int64(funcs))
}

func functionKill(x *cmdtable.Ctx) {
	if msg := cl(x).s.scripts.Kill(true); msg != "" {
		x.Error(msg)
		return
	}
	x.W.OK()
}

func functionDump(x *cmdtable.Ctx) { x.W.Bulk(cl(x).s.scripts.DumpFunctions()) }

func functionRestore(x *cmdtable.Ctx) {
	if len(x.Args) > 4 {
		subcommandSyntax(x)
		return
	}
	policy := script.RestoreAppend
	if len(x.Args) == 4 {
		switch a := x.Args[3]; {
		case cmdtable.Is(a, "append"):
		case cmdtable.Is(a, "replace"):
			policy = script.RestoreReplace
		case cmdtable.Is(a, "flush"):
			policy = script.RestoreFlush
		default:
			x.Error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	if err := cl(x).s.scripts.RestoreFunctions(x.Args[2], policy); err != nil {
		x.Error(err.Error())
		return
	}
	x.W.OK()
}

func init() {
	const g = "scripting"
	f := cmdtable.NoScript | cmdtable.Stale | cmdtable.SelfLock | cmdtable.NoMandatoryKeys | cmdtable.SkipMonitor
	args := "function numkeys [key [key ...]] [arg [arg ...]]"
	cmdtable.Register(
		&cmdtable.Cmd{Name: "fcall", Arity: -3, Flags: f, Keys: evalKeys, Run: fcallCmd(false), Group: g, Since: "7.0.0",
			Summary: "Invokes a function.", Args: args},
		&cmdtable.Cmd{Name: "fcall_ro", Arity: -3, Flags: f | cmdtable.ReadOnly, Keys: evalKeys, Run: fcallCmd(true), Group: g, Since: "7.0.0",
			Summary: "Invokes a read-only function.", Args: args},
	)
	ns, w := cmdtable.NoScript, cmdtable.Write|cmdtable.NoScript
	cmdtable.Register(&cmdtable.Cmd{Name: "function", Arity: -2, Group: g, Since: "7.0.0", Summary: "A container for function commands.",
		Subs: []*cmdtable.Cmd{
			{Name: "function|delete", Arity: 3, Flags: w, Effects: cmdtable.AsSent, Run: functionDelete, Group: g, Since: "7.0.0",
				Summary: "Deletes a library and its functions.", Args: "library-name"},
			{Name: "function|dump", Arity: 2, Flags: ns, Run: functionDump, Group: g, Since: "7.0.0",
				Summary: "Dumps all libraries into a serialized binary payload."},
			{Name: "function|flush", Arity: -2, Flags: w, Effects: cmdtable.AsSent, Run: functionFlush, Group: g, Since: "7.0.0",
				Summary: "Deletes all libraries and functions.", Args: "[ASYNC | SYNC]"},
			{Name: "function|kill", Arity: 2, Flags: ns | cmdtable.AllowBusy, Run: functionKill, Group: g, Since: "7.0.0",
				Summary: "Terminates a function during execution."},
			{Name: "function|list", Arity: -2, Flags: ns, Run: functionList, Group: g, Since: "7.0.0",
				Summary: "Returns information about all libraries.", Args: "[LIBRARYNAME library-name-pattern] [WITHCODE]"},
			{Name: "function|load", Arity: -3, Flags: w | cmdtable.DenyOOM, Effects: cmdtable.AsSent, Run: functionLoad, Group: g, Since: "7.0.0",
				Summary: "Creates a library.", Args: "[REPLACE] function-code"},
			{Name: "function|restore", Arity: -3, Flags: w | cmdtable.DenyOOM, Effects: cmdtable.AsSent, Run: functionRestore, Group: g, Since: "7.0.0",
				Summary: "Restores all libraries from a payload.", Args: "serialized-value [FLUSH | APPEND | REPLACE]"},
			{Name: "function|stats", Arity: 2, Flags: ns | cmdtable.AllowBusy, Run: functionStats, Group: g, Since: "7.0.0",
				Summary: "Returns information about a function during execution."},
			cmdtable.HelpCmd("function", g, "7.0.0", []string{
				"LOAD [REPLACE] <FUNCTION CODE>",
				"    Create a new library with the given library name and code.",
				"DELETE <LIBRARY NAME>",
				"    Delete the given library.",
				"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
				"    Return general information on all the libraries:",
				"    * Library name",
				"    * The engine used to run the Library",
				"    * Functions list",
				"    * Library code (if WITHCODE is given)",
				"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
				"STATS",
				"    Return information about the current function running:",
				"    * Function name",
				"    * Command used to run the function",
				"    * Duration in MS that the function is running",
				"    If no function is running, return nil",
				"    In addition, returns a list of available engines.",
				"KILL",
				"    Kill the current running function.",
				"FLUSH [ASYNC|SYNC]",
				"    Delete all the libraries.",
				"    When called without the optional mode argument, the behavior is determined by the",
				"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
				"    * ASYNC: Asynchronously flush the libraries.",
				"    * SYNC: Synchronously flush the libraries.",
				"DUMP",
				"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
				"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
				"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
				"    control how to handle existing libraries (default APPEND):",
				"    * FLUSH: delete all existing libraries.",
				"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
				"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
				"      libraries with the new libraries (notice that even on this option there is a chance of failure",
				"      in case of functions name collision with another library).",
			}),
		}})
}
