package commands

import (
	"math/big"
)

// INCRBYFLOAT arithmetic. Redis parses with strtold, adds in x87 long double
// (64-bit mantissa, 15-bit exponent) and prints with "%.17Lf" minus trailing
// zeros. big.Float at 64 bits of precision with round-to-nearest-even does the
// same rounding; the exponent limits below reproduce long double's range.

const (
	ldPrec = 64
	// ldMaxExp is MantExp of the largest finite long double, (1-2^-64)*2^16384.
	ldMaxExp = 16384
	// ldTinyExp: strtold rounds values at or below 2^-16446 (half the smallest
	// denormal) to zero, and Redis rejects such an underflow.
	ldTinyExp = -16446
	// ldMaxChars is Redis's MAX_LONG_DOUBLE_CHARS: longer input is refused.
	ldMaxChars = 5 * 1024
	// ldExpClamp bounds parsed exponents: far beyond it every value has
	// overflowed or underflowed, and it keeps the exact arithmetic small.
	ldExpClamp = 100000
)

// zeroLD is the value of a missing key; big.Float arithmetic never modifies
// its operands, so it is shared.
var zeroLD = new(big.Float).SetPrec(ldPrec)

// parseLongDouble parses b as Redis's string2ld does: the whole of b must be
// a number strtold accepts (decimal, hexadecimal with optional p exponent,
// inf or infinity; no spaces, no NaN), and it must neither overflow nor
// underflow to zero. The result may be an infinity.
func parseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= ldMaxChars {
		return nil, false
	}
	neg := false
	s := b
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	z := new(big.Float).SetPrec(ldPrec)
	if ldIsInf(s) {
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

func ldIsInf(s []byte) bool {
	switch len(s) {
	case 3:
		return ldLowerEq(s, "inf")
	case 8:
		return ldLowerEq(s, "infinity")
	}
	return false
}

func ldLowerEq(s []byte, w string) bool {
	for i := range s {
		if s[i]|0x20 != w[i] {
			return false
		}
	}
	return true
}

// ldDigits returns the mantissa digits of s (with the point removed), how
// many of them follow the point, and the rest of s. ok is false when there
// is no digit at all.
func ldDigits(s []byte, isDigit func(byte) bool) (digits []byte, frac int, rest []byte, ok bool) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	digits = append(digits, s[:i]...)
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		digits = append(digits, s[j:i]...)
		frac = i - j
	}
	return digits, frac, s[i:], len(digits) > 0
}

// ldParseExp parses an exponent's [+-]digits, saturating at ±ldExpClamp; all of
// s must be used.
func ldParseExp(s []byte) (int, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < ldExpClamp {
			n = n*10 + int(c-'0')
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

func ldIsDec(c byte) bool { return c >= '0' && c <= '9' }

func ldIsHex(c byte) bool { return ldIsDec(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// parseDecLD sets z to the decimal number s (unsigned), correctly rounded.
func parseDecLD(z *big.Float, s []byte) bool {
	digits, frac, rest, ok := ldDigits(s, ldIsDec)
	if !ok {
		return false
	}
	exp := 0
	if len(rest) > 0 {
		if rest[0] != 'e' && rest[0] != 'E' {
			return false
		}
		if exp, ok = ldParseExp(rest[1:]); !ok {
			return false
		}
	}
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		z.SetInt64(0)
		return true
	}
	e10 := exp - frac // value = digits * 10^e10
	// digits has at most ldMaxChars digits, so the value lies in
	// [10^(len-1+e10), 10^(len+e10)): decide overflow and underflow by
	// magnitude before doing any exact arithmetic with a huge power of ten.
	if len(digits)-1+e10 > 4933 || len(digits)+e10 < -4952 {
		return false
	}
	mant, _ := new(big.Int).SetString(string(digits), 10)
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(e10, -e10))), nil)
	if e10 >= 0 {
		z.SetInt(mant.Mul(mant, pow))
		return z.MantExp(nil) <= ldMaxExp
	}
	// mant / pow is zero to strtold when mant * 2^16446 <= pow.
	if new(big.Int).Lsh(mant, -ldTinyExp).Cmp(pow) <= 0 {
		return false
	}
	var a, b big.Float
	z.Quo(a.SetInt(mant), b.SetInt(pow))
	return true
}

// parseHexLD sets z to the hexadecimal number s (after "0x"), with an
// optional binary exponent, as C99 strtold reads it.
func parseHexLD(z *big.Float, s []byte) bool {
	digits, frac, rest, ok := ldDigits(s, ldIsHex)
	if !ok {
		return false
	}
	exp := 0
	if len(rest) > 0 {
		if rest[0] != 'p' && rest[0] != 'P' {
			return false
		}
		if exp, ok = ldParseExp(rest[1:]); !ok {
			return false
		}
	}
	mant, _ := new(big.Int).SetString(string(digits), 16)
	if mant.Sign() == 0 {
		z.SetInt64(0)
		return true
	}
	e2 := exp - 4*frac // value = mant * 2^e2
	if k := ldTinyExp - e2; k >= 0 && mant.Cmp(new(big.Int).Lsh(big.NewInt(1), uint(k))) <= 0 {
		return false
	}
	z.SetInt(mant)
	z.SetMantExp(z, e2)
	return z.MantExp(nil) <= ldMaxExp
}

// addLongDouble returns a+b as long double arithmetic would, or ok false when
// the sum is NaN or infinite.
func addLongDouble(a, b *big.Float) (*big.Float, bool) {
	if a.IsInf() || b.IsInf() {
		return nil, false // inf+x is inf, inf-inf is NaN: both refused
	}
	sum := new(big.Float).SetPrec(ldPrec).Add(a, b)
	if sum.MantExp(nil) > ldMaxExp {
		return nil, false
	}
	return sum, true
}

// formatLongDouble appends f as Redis's ld2string(LD_STR_HUMAN) does:
// "%.17Lf" without trailing fractional zeros, and "-0" as "0".
func formatLongDouble(dst []byte, f *big.Float) []byte {
	start := len(dst)
	dst = f.Append(dst, 'f', 17)
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}
