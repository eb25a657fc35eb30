package script

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// tonumber is Lua 5.1's luaB_tonumber, as Redis's scripts have it: a string
// is a number as C's strtod reads it (decimal or hexadecimal, with an
// exponent, inf or nan), with blanks around it and nothing else, and in
// another base as strtoul reads it. gopher-lua's reads a string without a
// '.' only as an integer ("1e3" and "-9223372036854775809" are nil, "010"
// is 8).
func tonumber(L *lua.LState) int {
	base := 10
	if L.Get(2) != lua.LNil {
		base = L.CheckInt(2)
	}
	if base == 10 {
		switch v := L.CheckAny(1).(type) {
		case lua.LNumber:
			L.Push(v)
			return 1
		case lua.LString:
			if f, ok := str2d(string(v)); ok {
				L.Push(lua.LNumber(f))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	s := L.CheckString(1)
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	if n, ok := strtoulAll(cString(s), base); ok {
		L.Push(lua.LNumber(n))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// str2d is Lua's luaO_str2d: s (up to its first NUL, as C reads it) is
// one number strtod reads and blanks after it.
func str2d(s string) (float64, bool) {
	s = cString(s)
	f, n := strtod(s)
	if n == 0 {
		return 0, false
	}
	for ; n < len(s); n++ {
		if !isSpace(s[n]) {
			return 0, false
		}
	}
	return f, true
}

// strtod is glibc's strtod: the number at the start of s after blanks, and
// how many bytes it took (0: none). A NaN is the quiet NaN strtod makes
// (its payload, if any, left out).
func strtod(s string) (float64, int) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	start, sign := i, 1.0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		if s[i] == '-' {
			sign = -1
		}
		i++
	}
	word := func(w string) bool { return len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) }
	switch {
	case word("infinity"):
		return math.Inf(int(sign)), i + 8
	case word("inf"):
		return math.Inf(int(sign)), i + 3
	case word("nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' {
			j := n + 1
			for j < len(s) && (isAlnum(s[j]) || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				n = j + 1
			}
		}
		nan := math.Float64frombits(0x7ff8000000000000)
		return math.Copysign(nan, sign), n
	}
	digits := func(j int, ok func(byte) bool) int {
		for j < len(s) && ok(s[j]) {
			j++
		}
		return j
	}
	if word("0x") {
		j := digits(i+2, isHex)
		n := j - (i + 2)
		mant := s[i+2 : j]
		if j < len(s) && s[j] == '.' {
			k := digits(j+1, isHex)
			n += k - (j + 1)
			mant, j = mant+"."+s[j+1:k], k
		}
		if n > 0 {
			exp := "0"
			if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
				if k := digits(signAt(s, j+1), isDigit); k > signAt(s, j+1) {
					exp, j = s[j+1:k], k
				}
			}
			f, _ := strconv.ParseFloat("0x"+mant+"p"+exp, 64)
			return sign * f, j
		}
		// "0x" without a hex digit: strtod reads the 0.
	}
	j := digits(i, isDigit)
	n := j - i
	if j < len(s) && s[j] == '.' {
		k := digits(j+1, isDigit)
		n += k - (j + 1)
		j = k
	}
	if n == 0 {
		return 0, 0
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		if k := digits(signAt(s, j+1), isDigit); k > signAt(s, j+1) {
			j = k
		}
	}
	f, _ := strconv.ParseFloat(s[start:j], 64) // out of range: ±Inf or 0, as strtod
	return f, j
}

// signAt skips a sign at s[i].
func signAt(s string, i int) int {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		return i + 1
	}
	return i
}

func isHex(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// strtoulAll is strtoul(s, base) that takes all of s but blanks after:
// blanks, a sign (a '-' negates modulo 2^64), "0x" in base 16, digits;
// ULONG_MAX on overflow.
func strtoulAll(s string, base int) (uint64, bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := i < len(s) && s[i] == '-'
	i = signAt(s, i)
	if base == 16 && len(s)-i > 2 && s[i] == '0' && s[i+1]|0x20 == 'x' && isHex(s[i+2]) {
		i += 2
	}
	var n uint64
	from, over := i, false
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		hi, lo := bits.Mul64(n, uint64(base))
		if hi != 0 || lo+uint64(d) < lo {
			over = true
		}
		n = lo + uint64(d)
	}
	if i == from {
		return 0, false
	}
	for ; i < len(s); i++ {
		if !isSpace(s[i]) {
			return 0, false
		}
	}
	switch {
	case over:
		return math.MaxUint64, true
	case neg:
		return -n, true
	}
	return n, true
}

// digitValue is c's value as a digit of a base up to 36 (36 if none).
func digitValue(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'z':
		return int(c|0x20-'a') + 10
	}
	return 36
}
