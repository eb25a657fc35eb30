package zset

import (
	"math"
	"strconv"
	"strings"
)

// Range is a score range (ZRANGEBYSCORE's min and max) or a lex range
// (ZRANGEBYLEX's); Bounds finds its elements in O(log n).
type Range struct {
	lex          bool
	min, max     float64
	minEx, maxEx bool
	lmin, lmax   lexBound
}

// lexBound is one end of a lex range: "-" (inf < 0), "+" (inf > 0), or a
// string, inclusive "[" or exclusive "(".
type lexBound struct {
	s   string
	ex  bool
	inf int8
}

// aboveMin reports whether it is at or past the range's lower end.
func (r *Range) aboveMin(it item) bool {
	if !r.lex {
		if r.minEx {
			return it.score > r.min
		}
		return it.score >= r.min
	}
	switch b := r.lmin; {
	case b.inf < 0:
		return true
	case b.inf > 0:
		return false
	case b.ex:
		return it.member > b.s
	default:
		return it.member >= b.s
	}
}

// aboveMax reports whether it is past the range's upper end.
func (r *Range) aboveMax(it item) bool {
	if !r.lex {
		if r.maxEx {
			return it.score >= r.max
		}
		return it.score > r.max
	}
	switch b := r.lmax; {
	case b.inf < 0:
		return true
	case b.inf > 0:
		return false
	case b.ex:
		return it.member >= b.s
	default:
		return it.member > b.s
	}
}

// lexEmpty reports a lex range that is empty whatever the set holds: min
// above max, or equal with an exclusive end.
func (r *Range) lexEmpty() bool {
	a, b := r.lmin, r.lmax
	var cmp int
	switch {
	case a.inf == b.inf && a.inf != 0:
		cmp = 0
	case a.inf < 0 || b.inf > 0:
		cmp = -1
	case a.inf > 0 || b.inf < 0:
		cmp = 1
	default:
		cmp = strings.Compare(a.s, b.s)
	}
	return cmp > 0 || (cmp == 0 && (a.ex || b.ex))
}

// ParseScoreRange parses ZRANGEBYSCORE-style bounds: a float, "(" before it
// for an exclusive end, inf/-inf. Redis 8 parses these with fast_float, so
// unlike scores they take no hexadecimal, and an empty number reads as 0.
func ParseScoreRange(min, max []byte) (Range, bool) {
	r := Range{}
	var ok1, ok2 bool
	r.min, r.minEx, ok1 = parseRangeEnd(min)
	r.max, r.maxEx, ok2 = parseRangeEnd(max)
	return r, ok1 && ok2
}

func parseRangeEnd(b []byte) (float64, bool, bool) {
	ex := len(b) > 0 && b[0] == '('
	if ex {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, ex, true
	}
	for _, c := range b {
		if c == 'x' || c == 'X' || c == '_' || c == 'p' || c == 'P' {
			return 0, false, false // hexadecimal or Go's digit separators: not fast_float's syntax
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !isRange(err) || math.IsNaN(f) {
		return 0, false, false
	}
	return f, ex, true
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// ParseLexRange parses ZRANGEBYLEX-style bounds: "-", "+", "[member" or
// "(member".
func ParseLexRange(min, max []byte) (Range, bool) {
	r := Range{lex: true}
	var ok1, ok2 bool
	r.lmin, ok1 = parseLexEnd(min)
	r.lmax, ok2 = parseLexEnd(max)
	return r, ok1 && ok2
}

func parseLexEnd(b []byte) (lexBound, bool) {
	if len(b) == 0 {
		return lexBound{}, false
	}
	switch b[0] {
	case '-', '+':
		if len(b) != 1 {
			return lexBound{}, false
		}
		if b[0] == '-' {
			return lexBound{inf: -1}, true
		}
		return lexBound{inf: 1}, true
	case '[', '(':
		return lexBound{s: string(b[1:]), ex: b[0] == '('}, true
	}
	return lexBound{}, false
}

// ParseScore parses a score as Redis's string2d does with strtod: decimal or
// hexadecimal, inf/infinity with any case and sign; no leading space, no
// trailing garbage, no NaN, no overflow and no underflow to zero.
func ParseScore(b []byte) (float64, bool) {
	if len(b) == 0 || b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r' || b[0] == '\v' || b[0] == '\f' {
		return 0, false
	}
	s := string(b)
	if strings.IndexByte(s, '_') >= 0 {
		return 0, false
	}
	digits := s
	if d := strings.TrimLeft(s, "+-"); len(s)-len(d) <= 1 && len(d) > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X') {
		// strtod reads hexadecimal without a binary exponent; Go wants one.
		if !strings.ContainsAny(d, "pP") {
			s += "p0"
		}
		digits = d[2:]
		if i := strings.IndexAny(digits, "pP"); i >= 0 {
			digits = digits[:i]
		}
	} else if i := strings.IndexAny(s, "eE"); i >= 0 {
		digits = s[:i]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	if f == 0 && strings.ContainsAny(digits, "123456789abcdefABCDEF") {
		return 0, false // underflowed to zero: strtod's ERANGE, which Redis refuses
	}
	return f, true
}
