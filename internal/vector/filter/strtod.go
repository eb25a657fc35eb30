package filter

import (
	"math"
	"strconv"
	"strings"
)

// strtod converts s as C's strtod in the C locale would, and reports whether
// the whole of s (up to a NUL byte) is the number: optional leading space, a
// sign, then a decimal or hexadecimal float, "inf", "infinity" or "nan",
// any case. Out-of-range values become ±Inf or 0, as strtod returns them.
func strtod(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	p := 0
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	s = s[p:]
	body := s
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	lower := strings.ToLower(body)
	switch {
	case lower == "inf" || lower == "infinity" || lower == "nan":
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	case strings.HasPrefix(lower, "nan(") && strings.HasSuffix(lower, ")"):
		for _, c := range []byte(lower[4 : len(lower)-1]) {
			if !isAlpha(c) && !isDigit(c) && c != '_' {
				return 0, false
			}
		}
		f, _ := strconv.ParseFloat("nan", 64)
		return f, true
	case len(lower) > 2 && lower[0] == '0' && lower[1] == 'x':
		return hexFloat(s, lower[2:])
	}
	if !decimalFloat(body) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRange(err) {
		return 0, false
	}
	return f, true
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// decimalFloat reports whether s is digits [. digits] [e [sign] digits]
// with at least one mantissa digit.
func decimalFloat(s string) bool {
	p, digits := 0, 0
	for p < len(s) && isDigit(s[p]) {
		p++
		digits++
	}
	if p < len(s) && s[p] == '.' {
		p++
		for p < len(s) && isDigit(s[p]) {
			p++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if p < len(s) && (s[p] == 'e' || s[p] == 'E') {
		p++
		if p < len(s) && (s[p] == '+' || s[p] == '-') {
			p++
		}
		start := p
		for p < len(s) && isDigit(s[p]) {
			p++
		}
		if p == start {
			return false
		}
	}
	return p == len(s)
}

// hexFloat converts a hexadecimal float (0x mantissa [p exponent]); full is
// the signed text, mant the lower-cased text after "0x".
func hexFloat(full, mant string) (float64, bool) {
	p, digits := 0, 0
	isHex := func(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') }
	for p < len(mant) && isHex(mant[p]) {
		p++
		digits++
	}
	if p < len(mant) && mant[p] == '.' {
		p++
		for p < len(mant) && isHex(mant[p]) {
			p++
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	exp := false
	if p < len(mant) && mant[p] == 'p' {
		p++
		if p < len(mant) && (mant[p] == '+' || mant[p] == '-') {
			p++
		}
		start := p
		for p < len(mant) && isDigit(mant[p]) {
			p++
		}
		if p == start {
			return 0, false
		}
		exp = true
	}
	if p != len(mant) {
		return 0, false
	}
	if !exp {
		full += "p0" // Go requires the exponent
	}
	f, err := strconv.ParseFloat(full, 64)
	if err != nil && !isRange(err) {
		return 0, false
	}
	return f, true
}

// ParseNumber parses a number argument as Redis's string2d does (strtod on
// the whole argument): no leading space, no trailing bytes, no NaN, no
// overflow; hexadecimal floats and "inf" are accepted.
func ParseNumber(s string) (float64, bool) {
	if s == "" || isSpace(s[0]) || strings.IndexByte(s, 0) >= 0 {
		return 0, false
	}
	f, ok := strtod(s)
	if !ok || f != f {
		return 0, false
	}
	if math.IsInf(f, 0) {
		// strtod's overflow (ERANGE) is refused; only a spelled-out
		// infinity is accepted.
		l := strings.ToLower(strings.TrimLeft(s, "+-"))
		if l != "inf" && l != "infinity" {
			return 0, false
		}
	}
	return f, true
}
