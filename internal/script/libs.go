package script

import (
	"fmt"
	"math"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// The libraries scripts see, as in Redis: base (without file loading),
// table, string, math, os.clock, redis, cjson, cmsgpack, struct and bit. Globals are
// read-only: a script that assigns one fails, as in Redis 7.

// removed are base functions Redis does not offer scripts, and getfenv and
// setfenv, which would hand a script the real globals (Redis can make them
// read-only inside its Lua; gopher-lua cannot).
var removed = []string{"dofile", "loadfile", "loadstring", "load", "require", "module", "newproxy", "print", "_printregs", "getfenv", "setfenv",
	"_GOPHER_LUA_VERSION"}

// maxString bounds what string.rep builds, as proto-max-bulk-len's default
// bounds a value: beyond it one call would exhaust the server's memory.
const maxString = 512 << 20

var started = time.Now()

func (e *Engine) openLibs() {
	L := e.L
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	for _, name := range removed {
		g.RawSetString(name, lua.LNil)
	}
	osLib := L.NewTable()
	osLib.RawSetString("clock", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(time.Since(started).Seconds()))
		return 1
	}))
	g.RawSetString("os", osLib)
	e.redis = e.redisLib()
	g.RawSetString("redis", e.redis)
	g.RawSetString("cjson", cjsonLib(L))
	g.RawSetString("bit", bitLib(L))
	g.RawSetString("cmsgpack", cmsgpackLib(L))
	g.RawSetString("struct", structLib(L))
	g.RawSetString("loadstring", L.NewFunction(e.loadstring))
	g.RawSetString("load", L.NewFunction(e.load))
	g.RawSetString("collectgarbage", L.NewFunction(collectgarbage()))
	g.RawSetString("gcinfo", L.NewFunction(gcinfo))
	g.RawSetString("tonumber", L.NewFunction(tonumber))
	e.refuse = L.NewFunction(refuseWrite)
	g.RawSetString("rawset", L.NewFunction(e.rawset))
	str := g.RawGetString("string").(*lua.LTable)
	str.RawSetString("rep", L.NewFunction(strRep))
	str.RawSetString("dump", L.NewFunction(stringDump))
	for _, name := range []string{"find", "match", "gmatch", "gsub"} {
		str.RawSetString(name, checked(L, str.RawGetString(name).(*lua.LFunction), 2, checkPattern))
	}
	str.RawSetString("format", checked(L, str.RawGetString("format").(*lua.LFunction), 1, checkFormat))
	// Lua's math.huge is HUGE_VAL, infinity; gopher-lua's the largest float.
	mathLib := g.RawGetString("math").(*lua.LTable)
	mathLib.RawSetString("huge", lua.LNumber(math.Inf(1)))
	mathLib.RawSetString("random", L.NewFunction(e.rand.mathRandom))
	mathLib.RawSetString("randomseed", L.NewFunction(e.rand.mathRandomseed))
	// Metatables only on tables: gopher-lua would give one to every number
	// (or boolean, function...) of every later script, as Lua's debug
	// library could; Redis's setmetatable refuses.
	setmeta := g.RawGetString("setmetatable").(*lua.LFunction)
	g.RawSetString("setmetatable", L.NewFunction(func(L *lua.LState) int {
		e.checkWritable(L, L.CheckTable(1))
		return setmeta.GFunction(L)
	}))
	// The functions that write into a table they are given refuse the
	// read-only ones, as rawset does.
	tbl := g.RawGetString("table").(*lua.LTable)
	for _, name := range []string{"insert", "remove", "sort"} {
		tbl.RawSetString(name, e.guarded(tbl.RawGetString(name).(*lua.LFunction)))
	}
	tbl.RawSetString("foreach", L.NewFunction(tableForeach))
	tbl.RawSetString("foreachi", L.NewFunction(tableForeachi))
	tbl.RawSetString("setn", L.NewFunction(tableSetn))
	// pcall is Redis's luaRedisPcall: an error table that carries a string
	// err (redis.call's errors among them) comes back as that string, as
	// Redis 7 keeps for scripts written for older versions. xpcall's
	// handler still gets the table.
	basePcall := g.RawGetString("pcall").(*lua.LFunction)
	g.RawSetString("pcall", L.NewFunction(func(L *lua.LState) int {
		n := basePcall.GFunction(L)
		if top := L.GetTop(); n >= 2 && L.Get(top-n+1) == lua.LFalse {
			if t, ok := L.Get(top - n + 2).(*lua.LTable); ok {
				switch msg := t.RawGetString("err").(type) {
				case lua.LString, lua.LNumber:
					L.Replace(top-n+2, msg)
				}
			}
		}
		return n
	}))
	// next and pairs walk the table behind a read-only view, so that
	// pairs(os) lists os's functions as in Redis, whose read-only tables
	// are the tables themselves.
	baseNext := g.RawGetString("next").(*lua.LFunction)
	next := L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			L.Replace(1, e.behind(t))
		}
		return baseNext.GFunction(L)
	})
	g.RawSetString("next", next)
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		L.Push(next)
		L.Push(e.behind(L.CheckTable(1)))
		L.Push(lua.LNil)
		return 3
	}))
	// Scripts get read-only views of the libraries, so that none can
	// change them for the scripts after it.
	for _, name := range []string{"string", "table", "math", "os", "redis", "cjson", "bit", "cmsgpack", "struct"} {
		g.RawSetString(name, readOnly(L, g.RawGetString(name).(*lua.LTable), e.refuse))
	}
	// Methods on strings ("x":upper()) reach the same view, and scripts
	// see only a read-only view of the strings' metatable.
	// gopher-lua makes the string library its own metatable; Lua's is a
	// table of its own, so pairs(string) lists only the functions.
	str.RawSetString("__index", lua.LNil)
	strMeta := L.NewTable()
	strMeta.RawSetString("__index", g.RawGetString("string"))
	strMeta.RawSetString("__metatable", readOnly(L, strMeta, e.refuse))
	L.SetMetatable(lua.LString(""), strMeta)
	e.lib = g

	// The environment every script runs in: an empty table (so that every
	// assignment meets __newindex, and rawset, table.insert, table.remove
	// and table.sort refuse it: nothing can write into it, and it is made
	// once) reading through to _G, KEYS and ARGV (set by Run), then to the
	// globals, which raise on a name they lack. Tables, not Go functions,
	// so that reading a global costs no Go call.
	e.missing = L.NewTable()
	e.missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", lua.LVAsString(L.Get(2)))
		return 0
	}))
	L.SetMetatable(g, e.missing)
	e.env, e.base = L.NewTable(), L.NewTable()
	e.base.RawSetString("_G", e.env)
	baseMeta := L.NewTable()
	baseMeta.RawSetString("__index", g)
	L.SetMetatable(e.base, baseMeta)
	meta := L.NewTable()
	meta.RawSetString("__index", e.base)
	meta.RawSetString("__newindex", e.refuse)
	// getmetatable(_G) is a table, as in Redis, and a read-only one; an
	// empty one, as this metatable leads to tables a script must not reach.
	globalsMeta := readOnly(L, L.NewTable(), e.refuse)
	meta.RawSetString("__metatable", globalsMeta)
	L.SetMetatable(e.env, meta)

	// Functions read the globals through their library's own table
	// (libraryEnv) and then fnBase, which has no KEYS or ARGV.
	e.fnBase = L.NewTable()
	fnG := readOnly(L, e.fnBase, e.refuse)
	fnG.Metatable.(*lua.LTable).RawSetString("__metatable", globalsMeta)
	e.fnBase.RawSetString("_G", fnG)
	L.SetMetatable(e.fnBase, baseMeta)
}

// checked is fn once check has passed on its string argument arg. It has
// fn's upvalues, which fn reads as its own (gmatch its iterator).
func checked(L *lua.LState, fn *lua.LFunction, arg int, check func(*lua.LState, string)) *lua.LFunction {
	w := L.NewFunction(func(L *lua.LState) int {
		if s, ok := L.Get(arg).(lua.LString); ok {
			check(L, string(s))
		}
		return fn.GFunction(L)
	})
	w.Upvalues = fn.Upvalues
	return w
}

// strRep is string.rep, refusing results over maxString.
func strRep(L *lua.LState) int {
	s, n := L.CheckString(1), L.CheckInt(2)
	if n > 0 && len(s) > 0 && n > maxString/len(s) {
		raise(L, "string.rep: the result would exceed 512MB")
	}
	L.Push(lua.LString(strings.Repeat(s, max(n, 0))))
	return 1
}

// rawset refuses the read-only tables (the globals and the library views),
// as Redis's Lua does.
func (e *Engine) rawset(L *lua.LState) int {
	t := L.CheckTable(1)
	e.checkWritable(L, t)
	switch k := L.CheckAny(2).(type) {
	case *lua.LNilType:
		raise(L, "table index is nil")
	case lua.LNumber:
		if k != k {
			raise(L, "table index is NaN")
		}
	}
	t.RawSet(L.Get(2), L.CheckAny(3))
	L.SetTop(1)
	return 1
}

// guarded is fn (which writes into the table it is given first) refusing
// the read-only tables.
func (e *Engine) guarded(fn *lua.LFunction) *lua.LFunction {
	return e.L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			e.checkWritable(L, t)
		}
		return fn.GFunction(L)
	})
}

// checkWritable refuses a read-only table as Redis's Lua does from C: a
// plain message, with no position.
func (e *Engine) checkWritable(L *lua.LState, t *lua.LTable) {
	if m, ok := t.Metatable.(*lua.LTable); ok && m.RawGetString("__newindex") == e.refuse {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
}

// behind is the table a read-only view shows (t itself if it is none). A
// script's _G shows the globals and its KEYS and ARGV: a table of them is
// made for it.
func (e *Engine) behind(t *lua.LTable) *lua.LTable {
	if t == e.env {
		all := e.L.NewTable()
		e.lib.ForEach(all.RawSet)
		e.base.ForEach(all.RawSet)
		return all
	}
	if m, ok := t.Metatable.(*lua.LTable); ok && m.RawGetString("__newindex") == e.refuse {
		if inner, ok := m.RawGetString("__index").(*lua.LTable); ok {
			return inner
		}
	}
	return t
}

func refuseWrite(L *lua.LState) int {
	L.RaiseError("Attempt to modify a readonly table")
	return 0
}

// readOnly is a view of t that refuses writes and hides its metatable.
func readOnly(L *lua.LState, t *lua.LTable, refuse *lua.LFunction) *lua.LTable {
	view, meta := L.NewTable(), L.NewTable()
	meta.RawSetString("__index", t)
	meta.RawSetString("__newindex", refuse)
	meta.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(view, meta)
	return view
}

// loadstring compiles a chunk that runs in the scripts' read-only
// environment, not in the real globals.
func (e *Engine) loadstring(L *lua.LState) int {
	src := L.CheckString(1)
	name := L.OptString(2, "=(load)")
	if line, msg := checkNesting(src); msg != "" {
		L.Push(lua.LNil)
		L.Push(lua.LString(fmt.Sprintf("%s:%d: %s", strings.TrimPrefix(name, "="), line, msg)))
		return 2
	}
	fn, err := L.Load(strings.NewReader(src), name)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	fn.Env = e.env
	L.Push(fn)
	return 1
}

func (e *Engine) redisLib() *lua.LTable {
	L := e.L
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":  func(L *lua.LState) int { return e.redisCall(L, false) },
		"pcall": func(L *lua.LState) int { return e.redisCall(L, true) },
		"error_reply": func(L *lua.LState) int {
			L.Push(errorTable(L, errorText(strings.TrimPrefix(cString(L.CheckString(1)), "-"))))
			return 1
		},
		"status_reply": func(L *lua.LState) int {
			r := L.NewTable()
			r.RawSetString("ok", lua.LString(L.CheckString(1)))
			L.Push(r)
			return 1
		},
		"sha1hex": func(L *lua.LState) int {
			if L.GetTop() != 1 {
				raise(L, "wrong number of arguments")
			}
			L.Push(lua.LString(SHA1([]byte(lua.LVAsString(L.Get(1))))))
			return 1
		},
		"log": func(L *lua.LState) int {
			if L.GetTop() < 2 {
				raise(L, "redis.log() requires two arguments or more.")
			}
			return 0 // HotKV's log has no script channel; Redis drops levels below loglevel too
		},
		"setresp": func(L *lua.LState) int {
			n := L.CheckInt(1)
			if n != 2 && n != 3 {
				raise(L, "RESP version must be 2 or 3.")
			}
			if e.running != nil {
				e.running.proto = n
			}
			return 0
		},
		"acl_check_cmd": func(L *lua.LState) int {
			args, msg := e.callArgs(L)
			switch {
			case msg != "":
				raise(L, msg)
			case len(args) == 0:
				raise(L, "Please specify at least one argument for this redis lib call")
			}
			allowed, refusal := e.running.call.MayRun(args)
			if refusal != "" {
				raise(L, refusal)
			}
			L.Push(lua.LBool(allowed))
			return 1
		},
		"set_repl": func(L *lua.LState) int { return 0 }, // effects are always what is logged
		"replicate_commands": func(L *lua.LState) int {
			L.Push(lua.LTrue)
			return 1
		},
		"breakpoint": func(L *lua.LState) int {
			L.Push(lua.LFalse)
			return 1
		},
		"debug": func(L *lua.LState) int { return 0 },
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	for name, v := range map[string]int{
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REPL_NONE": 0, "REPL_SLAVE": 1, "REPL_REPLICA": 1, "REPL_AOF": 2, "REPL_ALL": 3,
		"REDIS_VERSION_NUM": VersionNum,
	} {
		t.RawSetString(name, lua.LNumber(v))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(Version))
	return t
}

// raise fails the script with a Redis error, as Redis's library functions
// do: no Lua position in the message, the script's line after it.
func raise(L *lua.LState, msg string) {
	t := errorTable(L, "ERR "+msg)
	if line := lineOf(L); line != "" {
		t.RawSetString("line", lua.LString(line))
	}
	L.Error(t, 0)
}

func errorTable(L *lua.LState, msg string) *lua.LTable {
	r := L.CreateTable(0, 2)
	r.RawSetString("err", lua.LString(msg))
	return r
}

// errorText is the message Redis's luaPushErrorBuff puts in the error table
// it makes of an error's text s (without its '-'): up to s's first NUL, as
// C reads it, "CODE msg" split at the first space (ERR the code of a text
// without one), msg trimmed of \r and \n at both ends.
func errorText(s string) string {
	code, msg, found := strings.Cut(cString(s), " ")
	if !found {
		code, msg = "ERR", code
	}
	return code + " " + strings.Trim(msg, "\r\n")
}

// cString is s as far as its first NUL: what Redis's C reads of a Lua
// string it takes with lua_tostring alone.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// redisCall is redis.call (raising errors) and redis.pcall (returning them).
func (e *Engine) redisCall(L *lua.LState, protected bool) int {
	fail := func(t *lua.LTable) int {
		if protected {
			L.Push(t)
			return 1
		}
		if line := lineOf(L); line != "" {
			t.RawSetString("line", lua.LString(line))
		}
		L.Error(t, 0)
		return 0
	}
	r := e.running
	args, msg := e.callArgs(L)
	if msg != "" {
		return fail(errorTable(L, "ERR "+msg))
	}
	reply := r.call.Call(args, r.proto)
	v, _, err := parseReply(L, reply)
	if err != nil {
		return fail(errorTable(L, "ERR "+err.Error()))
	}
	if t, ok := v.(*lua.LTable); ok && isErrorReply(reply) {
		return fail(t)
	}
	L.Push(v)
	return 1
}

func isErrorReply(b []byte) bool { return len(b) > 0 && (b[0] == '-' || b[0] == '!') }
