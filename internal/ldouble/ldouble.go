// Package ldouble emulates C's x87 80-bit long double, which Redis uses for
// INCRBYFLOAT, HINCRBYFLOAT and blocking timeouts: parsing as strtold does,
// addition at 64-bit precision, and Redis's "%.17Lf"-style output.
package ldouble

import (
	"math/big"
)

// Redis does INCRBYFLOAT and HINCRBYFLOAT in C's long double, the x87 80-bit
// format on x86-64: a 64-bit mantissa and a 15-bit exponent. Replies and
// stored values show that precision ("1.23456789012345678", 1e308 written
// out in full, 2e308 not overflowing), so these helpers emulate it with
// math/big floats rounded to 64 bits.

const (
	Prec = 64
	// big.Float exponents (mantissa in [0.5, 1)) of the largest finite long
	// double and of half its smallest subnormal: parsing a value at or below
	// the latter yields 0, which strtold reports as an underflow.
	ldMaxExp  = 16384
	ldTinyExp = -16445
	// Decimal exponents beyond which a value certainly over- or underflows;
	// they keep exact conversion from building enormous powers of ten.
	ldMaxDec = 4933
	ldMinDec = -4952
	// MAX_LONG_DOUBLE_CHARS: longer strings are refused.
	ldMaxChars = 5 * 1024
)

// Parse parses b as Redis's string2ld does (strtold over the whole
// string): decimal or hexadecimal floats, "inf"/"infinity"; no leading
// space, no trailing bytes, no NaN, no value that overflows or underflows to
// zero. The result is rounded to long double precision.
func Parse(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= ldMaxChars || isSpace(b[0]) {
		return nil, false
	}
	s := b
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	z := new(big.Float).SetPrec(Prec)
	if isInfWord(s) {
		return z.SetInf(neg), true
	}
	var ok bool
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		ok = parseHexLD(z, s[2:])
	} else {
		ok = parseDecLD(z, s)
	}
	if !ok {
		return nil, false
	}
	if neg {
		z.Neg(z)
	}
	return z, true
}

func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

func isInfWord(s []byte) bool {
	w := string(s)
	return len(w) == 3 && equalFold(w, "inf") || len(w) == 8 && equalFold(w, "infinity")
}

func equalFold(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// digits splits s at the first byte that is not a digit of the base
// (10 or 16) or a single '.', returning the digits without the point, how
// many of them followed it, and the rest.
func digits(s []byte, hex bool) (mant []byte, frac int, rest []byte, ok bool) {
	dot := false
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', hex && (c|0x20 >= 'a' && c|0x20 <= 'f'):
			mant = append(mant, c)
			if dot {
				frac++
			}
			continue
		case c == '.' && !dot:
			dot = true
			continue
		}
		break
	}
	return mant, frac, s[i:], len(mant) > 0
}

// exponent parses an optional exponent suffix ('e' or 'p' then an optional
// sign and digits), which must end the string. Huge exponents saturate:
// the result is out of range either way.
func exponent(s []byte, mark byte) (int64, bool) {
	if len(s) == 0 {
		return 0, true
	}
	if s[0]|0x20 != mark || len(s) < 2 {
		return 0, false
	}
	s = s[1:]
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, false
	}
	var e int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		if e < 1e9 {
			e = e*10 + int64(c-'0')
		}
	}
	if neg {
		e = -e
	}
	return e, true
}

// parseDecLD sets z to the decimal s (no sign) rounded to z's precision,
// computing exactly so that the rounding is strtold's.
func parseDecLD(z *big.Float, s []byte) bool {
	mant, frac, rest, ok := digits(s, false)
	if !ok {
		return false
	}
	e10, ok := exponent(rest, 'e')
	if !ok {
		return false
	}
	for len(mant) > 1 && mant[0] == '0' {
		mant = mant[1:]
	}
	if len(mant) == 1 && mant[0] == '0' {
		z.SetInt64(0)
		return true
	}
	e10 -= int64(frac)
	if mag := int64(len(mant)) + e10; mag > ldMaxDec || mag < ldMinDec {
		return false
	}
	m, _ := new(big.Int).SetString(string(mant), 10)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(e10)), nil)
	if e10 >= 0 {
		z.SetInt(m.Mul(m, p))
	} else {
		num := new(big.Float).SetInt(m)
		den := new(big.Float).SetInt(p)
		z.Quo(num, den)
	}
	return inRangeLD(z)
}

// parseHexLD sets z to the hexadecimal float s (after "0x"), exponent in
// powers of two.
func parseHexLD(z *big.Float, s []byte) bool {
	mant, frac, rest, ok := digits(s, true)
	if !ok {
		return false
	}
	e2, ok := exponent(rest, 'p')
	if !ok {
		return false
	}
	m, _ := new(big.Int).SetString(string(mant), 16)
	if m.Sign() == 0 {
		z.SetInt64(0)
		return true
	}
	e2 -= 4 * int64(frac)
	if mag := int64(m.BitLen()) + e2; mag > ldMaxExp+1 || mag < ldTinyExp-1 {
		return false
	}
	exact := new(big.Float).SetInt(m)
	z.Set(exact.SetMantExp(exact, int(e2))) // SetMantExp keeps the operand's precision: round here
	return inRangeLD(z)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// inRangeLD reports whether a nonzero z (rounded to 64 bits) is a finite
// long double that does not round to zero.
func inRangeLD(z *big.Float) bool {
	e := z.MantExp(nil)
	if e > ldMaxExp {
		return false
	}
	if e < ldTinyExp || e == ldTinyExp && z.MinPrec() == 1 { // at or below half the smallest subnormal
		return false
	}
	return true
}

// Add returns a+b rounded to long double precision; ok is false
// when the sum is infinite or overflows the long double range.
func Add(a, b *big.Float) (sum *big.Float, ok bool) {
	z := new(big.Float).SetPrec(Prec)
	if a.IsInf() || b.IsInf() {
		return nil, false // a finite increment can only keep an infinity
	}
	z.Add(a, b)
	if z.Sign() != 0 && z.MantExp(nil) > ldMaxExp {
		return nil, false
	}
	return z, true
}

// Append formats f as Redis's ld2string(LD_STR_HUMAN): "%.17Lf"
// with trailing zeros (and a trailing point) removed, "-0" written as "0".
func Append(dst []byte, f *big.Float) []byte {
	if f.IsInf() {
		if f.Signbit() {
			return append(dst, "-inf"...)
		}
		return append(dst, "inf"...)
	}
	start := len(dst)
	dst = f.Append(dst, 'f', 17)
	end := len(dst)
	for end > start && dst[end-1] == '0' {
		end--
	}
	if end > start && dst[end-1] == '.' {
		end--
	}
	dst = dst[:end]
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}
