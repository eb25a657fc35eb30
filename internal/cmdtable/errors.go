package cmdtable

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/intstr"
)

// Error replies, word for word as Redis 8.0.2 sends them. Each text is
// written once, in the one place this rule gives it:
//
//   - here: Redis's generic replies (its shared error objects and the texts of
//     its shared argument parsers: integers, floats, timeouts, scan cursors,
//     arity) and any text that more than one package sends, unless it
//     reports a check of a lower package, which names it beside the check
//     (rdb.ErrBadPayload for rdb.Verify);
//   - internal/commands/errors.go: texts that two or more command families
//     send;
//   - a package's errors.go: texts that two of its files send
//     (internal/server, internal/script);
//   - the top of a family file, or of a value package: texts only it sends.
//
// A text sent from a single place may stay inline at that place, where it
// reads as its branch's explanation (as Redis's addReplyError calls do).
// TestErrorTextsWrittenOnce fails when a text is written twice.
const (
	ErrSyntax        = "ERR syntax error"
	ErrNotInt        = "ERR value is not an integer or out of range"
	ErrNotFloat      = "ERR value is not a valid float"
	ErrWrongType     = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrOverflow      = "ERR increment or decrement would overflow"
	ErrNoSuchKey     = "ERR no such key"
	ErrDBIndex       = "ERR DB index is out of range"
	ErrNoAuth        = "NOAUTH Authentication required."
	ErrWrongPass     = "WRONGPASS invalid username-password pair or user is disabled."
	ErrNotPositive   = "ERR value is out of range, must be positive"
	ErrIndexRange    = "ERR index out of range"
	ErrSameObject    = "ERR source and destination objects are the same"
	ErrBusyKey       = "BUSYKEY Target key name already exists."
	ErrInvalidCursor = "ERR invalid cursor"
	ErrTimeoutNotInt = "ERR timeout is not an integer or out of range"
	ErrTimeoutFloat  = "ERR timeout is not a float or out of range"
	ErrTimeoutNeg    = "ERR timeout is negative"
	ErrTimeoutRange  = "ERR timeout is out of range"
	ErrNumKeysArgs   = "ERR Number of keys can't be greater than number of args"
)

// WrongArgs is the arity error for a command (name as the client sent it is
// lower-cased, as Redis does).
func WrongArgs(name string) string { return WrongArgsAs(strings.ToLower(name)) }

// WrongArgsAs is the arity error naming the command exactly as given (Redis's
// module API names a command as registered, whatever the client sent).
func WrongArgsAs(name string) string {
	return "ERR wrong number of arguments for '" + name + "' command"
}

// UnknownSubcommand is Redis's reply to a subcommand it does not know or that
// got the wrong number of arguments (addReplySubcommandSyntaxError): sub is
// the subcommand as the caller cuts it, cmd the command in upper case.
func UnknownSubcommand(sub []byte, cmd string) string {
	return "ERR unknown subcommand or wrong number of arguments for '" + string(sub) + "'. Try " + cmd + " HELP."
}

// DumpUnsupported is DUMP's error for a value of a kind that has no
// serialized form.
func DumpUnsupported(kind string) string {
	return "ERR DUMP is not supported for " + kind + " values"
}

// ParseInt parses an integer argument as Redis does (string2ll): optional
// '-', no leading '+' or zeros, within int64.
func ParseInt(b []byte) (int64, bool) { return intstr.Parse(b) }

// ParseFloat parses a Redis float argument ("inf", "-inf", "+inf" allowed; NaN
// and surrounding spaces refused).
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 5000 || b[0] == ' ' || b[len(b)-1] == ' ' {
		return 0, false
	}
	s := string(b)
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && !math.IsInf(f, 0) {
			return f, true // underflow to zero or denormal, as strtod accepts
		}
		return 0, false
	}
	if math.IsNaN(f) || strings.ContainsAny(s, "_xXpP") {
		return 0, false
	}
	return f, true
}

// CString is arg as C's string functions see it (%s, strcasecmp, strchr):
// up to its first NUL byte.
func CString(arg []byte) []byte {
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		return arg[:i]
	}
	return arg
}

// Is reports whether arg equals the ASCII keyword kw (lower case),
// case-insensitively, without allocating.
func Is(arg []byte, kw string) bool {
	if len(arg) != len(kw) {
		return false
	}
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != kw[i] {
			return false
		}
	}
	return true
}
