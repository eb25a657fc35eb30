package script

import (
	"math"
	"runtime/metrics"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1 base and table functions Redis's scripts have and gopher-lua
// lacks or does otherwise.

// collectgarbage returns luaB_collectgarbage. The Lua heap is part of
// Go's, which Go collects on its own: "collect" does not force a collection
// (gopher-lua's runs runtime.GC, a full collection of the whole server's
// heap for every call), and "count" reports the Go heap's objects in KB, as
// no figure for the Lua state alone exists. "setpause" and "setstepmul" keep
// their value (and answer the previous one), which nothing else reads.
func collectgarbage() lua.LGFunction {
	pause, stepmul := 200, 200 // Lua's defaults
	return func(L *lua.LState) int {
		opt := "collect"
		if L.Get(1) != lua.LNil {
			opt = checkOption(L, "collectgarbage", 1, "stop", "restart", "collect", "count", "step", "setpause", "setstepmul")
		}
		ex := 0
		if L.Get(2) != lua.LNil {
			ex = int(checkInt(L, "collectgarbage", 2))
		}
		switch opt {
		case "count":
			L.Push(lua.LNumber(heapKB()))
		case "step":
			L.Push(lua.LFalse)
		case "setpause":
			L.Push(lua.LNumber(pause))
			pause = ex
		case "setstepmul":
			L.Push(lua.LNumber(stepmul))
			stepmul = ex
		default:
			L.Push(lua.LNumber(0))
		}
		return 1
	}
}

// gcinfo is Lua 5.1's: the heap in whole KB.
func gcinfo(L *lua.LState) int {
	L.Push(lua.LNumber(math.Floor(heapKB())))
	return 1
}

func heapKB() float64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64()) / 1024
}

// checkOption is luaL_checkoption: the option named by argument n.
func checkOption(L *lua.LState, fn string, n int, options ...string) string {
	var name string
	switch a := L.Get(n).(type) {
	case lua.LString:
		name = string(a)
	case lua.LNumber:
		name = a.String()
	default:
		argError(L, fn, n, "string expected, got "+typeName(L, n))
	}
	for _, o := range options {
		if o == name {
			return o
		}
	}
	argError(L, fn, n, "invalid option '"+name+"'")
	return ""
}

// typeName names argument n's type as Lua's errors do ("no value" past
// the last).
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// maxLoad bounds the chunk load reads. Lua reads the pieces as it parses,
// so a syntax error ends a reader that never would; here the whole chunk
// is read first, and a reader that never ends is stopped early.
const maxLoad = 1 << 20

// load is Lua 5.1's load: the chunk is the pieces the function returns,
// up to nil or an empty string, compiled as loadstring compiles one.
func (e *Engine) load(L *lua.LState) int {
	fn, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		argError(L, "load", 1, "function expected, got "+typeName(L, 1))
	}
	name := L.OptString(2, "=(load)")
	var src strings.Builder
	for {
		L.Push(fn)
		L.Call(0, 1)
		piece := L.Get(-1)
		L.Pop(1)
		if piece == lua.LNil {
			break
		}
		var s string
		switch p := piece.(type) {
		case lua.LString:
			s = string(p)
		case lua.LNumber:
			s = p.String()
		default:
			return loadFailed(L, "reader function must return a string")
		}
		if s == "" {
			break
		}
		if src.Len()+len(s) > maxLoad {
			return loadFailed(L, "load: the chunk would exceed 1MB")
		}
		src.WriteString(s)
	}
	L.SetTop(0)
	L.Push(lua.LString(src.String()))
	L.Push(lua.LString(name))
	return e.loadstring(L)
}

// loadFailed is load's answer to a chunk it cannot read: nil and why.
func loadFailed(L *lua.LState, msg string) int {
	L.Push(lua.LNil)
	L.Push(lua.LString(msg))
	return 2
}

// tableForeach and tableForeachi are Lua 5.1's table.foreach and
// table.foreachi: f(k, v) for each pair (each index up to #t), stopping at
// the first result that is not nil, which they return.
func tableForeach(L *lua.LState) int {
	t, f := tableAndFunction(L, "foreach")
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if r := callPair(L, f, k, v); r != lua.LNil {
			L.Push(r)
			return 1
		}
	}
	return 0
}

func tableForeachi(L *lua.LState) int {
	t, f := tableAndFunction(L, "foreachi")
	for i := 1; i <= t.Len(); i++ {
		if r := callPair(L, f, lua.LNumber(i), t.RawGetInt(i)); r != lua.LNil {
			L.Push(r)
			return 1
		}
	}
	return 0
}

func tableAndFunction(L *lua.LState, fn string) (*lua.LTable, *lua.LFunction) {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		argError(L, fn, 1, "table expected, got "+typeName(L, 1))
	}
	f, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		argError(L, fn, 2, "function expected, got "+typeName(L, 2))
	}
	return t, f
}

func callPair(L *lua.LState, f *lua.LFunction, k, v lua.LValue) lua.LValue {
	L.Push(f)
	L.Push(k)
	L.Push(v)
	L.Call(2, 1)
	r := L.Get(-1)
	L.Pop(1)
	return r
}

func tableSetn(L *lua.LState) int {
	luaError(L, "'setn' is obsolete")
	return 0
}

// stringDump is string.dump as far as Redis's scripts can use it: the
// chunk's Lua 5.1 header, which loadstring refuses as it refuses every
// binary chunk there.
func stringDump(L *lua.LState) int {
	switch f := L.Get(1).(type) {
	case *lua.LFunction:
		if f.IsG {
			luaError(L, "unable to dump given function")
		}
	default:
		argError(L, "dump", 1, "function expected, got "+typeName(L, 1))
	}
	L.Push(lua.LString("\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"))
	return 1
}
