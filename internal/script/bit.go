package script

import (
	"fmt"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// bit is LuaBitOp, as Redis ships it: 32-bit operations on numbers.
func bitLib(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	arg := func(L *lua.LState, i int) uint32 { return uint32(int64(L.CheckNumber(i))) }
	ret := func(L *lua.LState, v uint32) int {
		L.Push(lua.LNumber(int32(v)))
		return 1
	}
	fold := func(op func(a, b uint32) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			v := arg(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				v = op(v, arg(L, i))
			}
			return ret(L, v)
		}
	}
	shift := func(op func(v uint32, n uint) uint32) lua.LGFunction {
		return func(L *lua.LState) int { return ret(L, op(arg(L, 1), uint(arg(L, 2)&31))) }
	}
	for name, fn := range map[string]lua.LGFunction{
		"tobit":   func(L *lua.LState) int { return ret(L, arg(L, 1)) },
		"bnot":    func(L *lua.LState) int { return ret(L, ^arg(L, 1)) },
		"band":    fold(func(a, b uint32) uint32 { return a & b }),
		"bor":     fold(func(a, b uint32) uint32 { return a | b }),
		"bxor":    fold(func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  shift(func(v uint32, n uint) uint32 { return v << n }),
		"rshift":  shift(func(v uint32, n uint) uint32 { return v >> n }),
		"arshift": shift(func(v uint32, n uint) uint32 { return uint32(int32(v) >> n) }),
		"rol":     shift(func(v uint32, n uint) uint32 { return bits.RotateLeft32(v, int(n)) }),
		"ror":     shift(func(v uint32, n uint) uint32 { return bits.RotateLeft32(v, -int(n)) }),
		"bswap":   func(L *lua.LState) int { return ret(L, bits.ReverseBytes32(arg(L, 1))) },
		"tohex": func(L *lua.LState) int {
			v, n := arg(L, 1), L.OptInt(2, 8)
			digits := "%0*x"
			if n < 0 {
				digits, n = "%0*X", -n
			}
			n = min(n, 8)
			s := fmt.Sprintf(digits, 8, v)
			L.Push(lua.LString(s[8-n:]))
			return 1
		},
	} {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}
