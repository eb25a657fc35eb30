package script

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// luaError is luaL_error for the libraries written in Go: the message gets
// the position of the Lua code that called the function, and none when a Go
// function called it directly (pcall(cjson.decode, s)), as C Lua's
// luaL_where gives none for a C caller. gopher-lua's RaiseError would name
// the nearest Lua frame further up.
func luaError(L *lua.LState, format string, args ...any) {
	if calledFromLua(L) {
		L.RaiseError(format, args...)
	}
	L.Error(lua.LString(fmt.Sprintf(format, args...)), 0)
}

// argError is luaL_argerror's message: it names the function in quotes
// (gopher-lua's ArgError does not), or '?' when a Go function such as pcall
// called it, as Lua 5.1 cannot name it then.
func argError(L *lua.LState, fn string, n int, msg string) {
	if !calledFromLua(L) {
		fn = "?"
	}
	luaError(L, "bad argument #%d to '%s' (%s)", n, fn, msg)
}

// calledFromLua reports whether the running Go function's caller is Lua
// code.
func calledFromLua(L *lua.LState) bool {
	dbg, ok := L.GetStack(1)
	if !ok {
		return false
	}
	_, err := L.GetInfo("S", dbg, lua.LNil)
	return err == nil && dbg.What != "G"
}

// checkNumber is luaL_checknumber: a number, or a string Lua reads as one.
func checkNumber(L *lua.LState, fn string, n int) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := str2d(string(v)); ok {
			return f
		}
	}
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	argError(L, fn, n, "number expected, got "+got)
	return 0
}

// checkInt is luaL_checkint: checkNumber truncated to a C int.
func checkInt(L *lua.LState, fn string, n int) int32 {
	return int32(int64(checkNumber(L, fn, n)))
}
