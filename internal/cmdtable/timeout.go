package cmdtable

import (
	"math"
	"math/big"
	"time"

	"github.com/hotkv/hotkv/internal/ldouble"
)

// BlockTimeout parses the timeout of a blocking command (BLPOP, BZPOPMIN...)
// as Redis does: seconds as a long double read by strtold (decimal or hex,
// "inf"), turned into milliseconds rounded up. It returns 0 for "wait
// forever" (also for timeouts past what a time.Duration holds), or the error
// reply.
func BlockTimeout(arg []byte, nowMs int64) (time.Duration, string) {
	v, ok := ldouble.Parse(arg)
	if !ok {
		return 0, ErrTimeoutFloat
	}
	ms := v.Mul(v, big.NewFloat(1000).SetPrec(64))
	if ms.Cmp(new(big.Float).SetInt64(math.MaxInt64)) > 0 {
		return 0, ErrTimeoutRange
	}
	t, acc := ms.Int64() // truncated toward zero; MinInt64 for -inf
	if acc == big.Below && ms.Sign() > 0 {
		t++ // ceil
	}
	if t < 0 {
		return 0, ErrTimeoutNeg
	}
	if t > 0 && t > math.MaxInt64-nowMs {
		return 0, ErrTimeoutRange
	}
	if t > math.MaxInt64/int64(time.Millisecond) {
		return 0, ""
	}
	return time.Duration(t) * time.Millisecond, ""
}
