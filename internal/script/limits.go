package script

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Limits on what one script can make the interpreter do, where gopher-lua
// would otherwise exhaust the Go stack or memory and kill the process
// (a fatal error, not a panic): Lua 5.1, and so Redis, refuse the same
// inputs with these messages.

const (
	maxLevels   = 200    // nesting of brackets and blocks (Lua's LUAI_MAXCCALLS)
	maxOps      = 200000 // operators in one chunk: each may nest one level deeper
	maxCaptures = 32     // captures in a pattern (LUA_MAXCAPTURES)
	maxArray    = 1 << 22
)

func init() {
	// gopher-lua fills a table's array part with nils up to any integer key
	// below this (64M by default: 1 GB for one assignment); keys beyond go
	// to the hash part, as Lua's own tables would hold them.
	lua.MaxArrayIndex = maxArray
}

// checkNesting scans Lua source for what the compiler would recurse too
// deep on, skipping strings and comments; it returns the line and message
// of the first excess, or 0.
func checkNesting(src string) (int, string) {
	depth, ops, line := 0, 0, 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			i += 2
			if n := longBracket(src[i:]); n >= 0 {
				end := closeLong(src, i, n)
				line += strings.Count(src[i:end], "\n")
				i = end
			} else {
				for i < len(src) && src[i] != '\n' {
					i++
				}
			}
		case c == '"' || c == '\'':
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			i++
		case c == '[' && longBracket(src[i:]) >= 0:
			end := closeLong(src, i, longBracket(src[i:]))
			line += strings.Count(src[i:end], "\n")
			i = end
		case c == '(' || c == '{' || c == '[':
			depth++
			i++
		case c == ')' || c == '}' || c == ']':
			depth--
			i++
		case isIdentStart(c):
			j := i
			for j < len(src) && (isIdentStart(src[j]) || '0' <= src[j] && src[j] <= '9') {
				j++
			}
			switch src[i:j] {
			case "function", "do", "then", "repeat":
				depth++
			case "end", "until", "elseif":
				depth--
			case "not", "and", "or":
				ops++
			}
			i = j
		case strings.IndexByte("+-*/%^#<>", c) >= 0:
			ops++
			i++
		case (c == '=' || c == '~' || c == '.') && i+1 < len(src) && src[i+1] == "==."[strings.IndexByte("=~.", c)]:
			ops++ // ==, ~=, ..
			i += 2
		default:
			i++
		}
		if depth > maxLevels {
			return line, "chunk has too many syntax levels"
		}
		if ops > maxOps {
			return line, fmt.Sprintf("script too complex: more than %d operators", maxOps)
		}
	}
	return 0, ""
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// longBracket returns the level of a long bracket opening s ("[[" 0,
// "[==[" 2), or -1.
func longBracket(s string) int {
	if len(s) < 2 || s[0] != '[' {
		return -1
	}
	n := 1
	for n < len(s) && s[n] == '=' {
		n++
	}
	if n < len(s) && s[n] == '[' {
		return n - 1
	}
	return -1
}

// closeLong returns the index after the long bracket of level n closing
// the one opened at src[i], or len(src).
func closeLong(src string, i, n int) int {
	closing := "]" + strings.Repeat("=", n) + "]"
	if j := strings.Index(src[i+n+2:], closing); j >= 0 {
		return i + n + 2 + j + len(closing)
	}
	return len(src)
}

// checkPattern refuses patterns with more captures than Lua allows: the
// pattern compiler recurses on each.
func checkPattern(L *lua.LState, pat string) {
	n := 0
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '%':
			i++
		case '(':
			if n++; n > maxCaptures {
				luaError(L, "too many captures")
			}
		}
	}
}

// checkFormat refuses what Lua 5.1's string.format refuses before gopher-lua
// hands the format to Go: more than two digits of width or precision
// (%999999d would build a megabyte per argument), repeated flags.
func checkFormat(L *lua.LState, f string) {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		flags := 0
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			if flags++; flags > 5 {
				luaError(L, "invalid format (repeated flags)")
			}
			i++
		}
		digits := func() {
			for n := 0; i < len(f) && '0' <= f[i] && f[i] <= '9'; n++ {
				if n == 2 {
					luaError(L, "invalid format (width or precision too long)")
				}
				i++
			}
		}
		digits()
		if i < len(f) && f[i] == '.' {
			i++
			digits()
		}
	}
}
