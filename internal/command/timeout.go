package command

import (
	"math"
	"math/big"
	"strings"
	"time"
)

// BlockTimeout parses the timeout of a blocking command (BLPOP, BZPOPMIN...)
// as Redis does: seconds as a long double read by strtold (decimal or hex,
// "inf"), turned into milliseconds rounded up. It returns 0 for "wait
// forever" (also for timeouts past what a time.Duration holds), or the error
// reply.
func BlockTimeout(arg []byte, nowMs int64) (time.Duration, string) {
	const notFloat = "ERR timeout is not a float or out of range"
	v, ok := parseLongDouble(arg)
	if !ok {
		return 0, notFloat
	}
	ms := v.Mul(v, big.NewFloat(1000).SetPrec(64))
	if ms.Cmp(new(big.Float).SetInt64(math.MaxInt64)) > 0 {
		return 0, "ERR timeout is out of range"
	}
	t, acc := ms.Int64() // truncated toward zero; MinInt64 for -inf
	if acc == big.Below && ms.Sign() > 0 {
		t++ // ceil
	}
	if t < 0 {
		return 0, "ERR timeout is negative"
	}
	if t > 0 && t > math.MaxInt64-nowMs {
		return 0, "ERR timeout is out of range"
	}
	if t > math.MaxInt64/int64(time.Millisecond) {
		return 0, ""
	}
	return time.Duration(t) * time.Millisecond, ""
}

// parseLongDouble accepts what Redis's string2ld accepts: strtold syntax
// without leading space or trailing characters, not NaN, and within the
// range of an x87 long double (64-bit mantissa, exponents to 2^16384;
// values that would round to zero are refused, tiny ones kept).
func parseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= 5*1024 {
		return nil, false
	}
	s := string(b)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return nil, false
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if s[0] == '-' {
			return new(big.Float).SetInf(true), true
		}
		return new(big.Float).SetInf(false), true
	}
	allowed := "0123456789.eE+-"
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		allowed = "0123456789abcdefABCDEF.pP+-"
		body = body[2:]
		if !strings.ContainsAny(body, "pP") {
			s += "p0" // strtold reads hex without an exponent; math/big wants one
		}
	}
	for i := 0; i < len(body); i++ {
		if !strings.ContainsRune(allowed, rune(body[i])) {
			return nil, false
		}
	}
	v, _, err := big.ParseFloat(s, 0, 64, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	if v.Sign() != 0 {
		if exp := v.MantExp(nil); exp > 16384 || exp < -16444 {
			return nil, false // strtold's overflow to HUGE_VAL or underflow to zero
		}
	}
	return v, true
}
