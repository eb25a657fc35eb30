package commands

// Error texts that two or more command families send (see the rule at the
// top of internal/cmdtable/errors.go).
const (
	errOutOfRange   = "ERR value is out of range"
	errIncrNaNOrInf = "ERR increment would produce NaN or Infinity"
	errNumKeysZero  = "ERR numkeys should be greater than 0"
	errCountZero    = "ERR count should be greater than 0"
	errCountNotPos  = "ERR COUNT must be > 0"
	errCardLimit    = "ERR LIMIT can't be negative"
	errDimRequired  = "ERR DIM is required"
	errMetric       = "ERR METRIC must be COSINE, L2 or IP"
	errQuantType    = "ERR TYPE must be FLOAT32, INT8 or BINARY"
	errInvalidEF    = "ERR invalid EF"
)

// errInvalidExpire is the error for an expire time that overflows once
// turned into absolute milliseconds.
func errInvalidExpire(cmd string) string {
	return "ERR invalid expire time in '" + cmd + "' command"
}
