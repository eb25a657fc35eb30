package script

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// rand48 is Redis's redisLrand48 (rand.c): the 48-bit linear congruential
// generator of lrand48, so that math.random gives Redis's sequence for a
// seed on every machine, as Redis promises scripts.
type rand48 struct{ x uint64 }

const rand48Init = 0x1234ABCD330E // X2, X1, X0 before any seed

func (r *rand48) seed(v int32) { r.x = uint64(uint32(v))<<16 | 0x330E }

// next returns 31 random bits.
func (r *rand48) next() int32 {
	r.x = (0x5DEECE66D*r.x + 0xB) & (1<<48 - 1)
	return int32(r.x >> 17)
}

// mathRandom and mathRandomseed are redis_math_random and
// redis_math_randomseed: Lua 5.1's math.random on redisLrand48.
func (r *rand48) mathRandom(L *lua.LState) int {
	f := float64(r.next()%math.MaxInt32) / math.MaxInt32
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(f))
	case 1:
		u := checkInt(L, "random", 1)
		if u < 1 {
			argError(L, "random", 1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(f*float64(u)) + 1))
	case 2:
		l, u := checkInt(L, "random", 1), checkInt(L, "random", 2)
		if l > u {
			argError(L, "random", 2, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(f*float64(int64(u)-int64(l)+1)) + float64(l)))
	default:
		luaError(L, "wrong number of arguments")
	}
	return 1
}

func (r *rand48) mathRandomseed(L *lua.LState) int {
	r.seed(checkInt(L, "randomseed", 1))
	return 0
}
