// Package intstr parses integers exactly as Redis's string2ll does. Redis
// uses that rule for protocol lengths, integer arguments and for deciding
// whether a string is stored as an integer (intsets, list and set
// encodings), so every one of those places must agree on it.
package intstr

import "math"

// Parse accepts an optional '-' and decimal digits without leading zeros or
// '+' ("0" is fine, "-0" is not), within int64.
func Parse(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' || n > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return int64(-n), true
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}
