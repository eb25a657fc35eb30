package filter

import "strings"

// token is a lexical token: a value, an operator, or the ignored null.
type token struct {
	isOp   bool
	isNull bool
	op     opcode
	val    value
}

// Compile parses an expression. On a syntax error it returns a
// *SyntaxError positioned as Redis positions it: at the offending character
// for lexical errors, at the start for structural ones.
func Compile(expr string) (*Expr, error) {
	// Redis works on a C string: a NUL byte ends the expression.
	src := expr
	if i := strings.IndexByte(src, 0); i >= 0 {
		src = src[:i]
	}
	toks, pos, ok := tokenize(src)
	if !ok {
		return nil, &SyntaxError{Expr: expr, Pos: pos}
	}
	prog, ok := build(toks)
	if !ok {
		return nil, &SyntaxError{Expr: expr, Pos: 0}
	}
	return &Expr{prog: prog}, nil
}

// build turns tokens into a postfix program with the shunting-yard
// algorithm, checking operand counts as it goes.
func build(toks []token) ([]instr, bool) {
	var prog []instr
	var opstack []opcode
	items := 0 // values on the stack when the program runs
	emit := func(op opcode) bool {
		if items < arityOf[op] {
			return false
		}
		prog = append(prog, instr{isOp: true, op: op})
		items += 1 - arityOf[op]
		return true
	}
	for _, t := range toks {
		switch {
		case t.isNull:
			// Redis 8.0.2 reads "null" but never compiles it.
		case !t.isOp:
			prog = append(prog, instr{val: t.val})
			items++
		case t.op == opOpen:
			opstack = append(opstack, opOpen)
		case t.op == opClose:
			for {
				if len(opstack) == 0 {
					return nil, false
				}
				top := opstack[len(opstack)-1]
				opstack = opstack[:len(opstack)-1]
				if top == opOpen {
					break
				}
				if !emit(top) {
					return nil, false
				}
			}
		default:
			// Pop operators that bind at least as tightly (strictly more
			// for the right-associative **). A unary operator pops a
			// preceding unary one too, which is why "!!x" does not compile
			// in Redis 8.0.2.
			for len(opstack) > 0 {
				top := opstack[len(opstack)-1]
				if top == opOpen || precOf[top] < precOf[t.op] ||
					(t.op == opPow && precOf[top] <= precOf[t.op]) {
					break
				}
				opstack = opstack[:len(opstack)-1]
				if !emit(top) {
					return nil, false
				}
			}
			opstack = append(opstack, t.op)
		}
	}
	for len(opstack) > 0 {
		top := opstack[len(opstack)-1]
		opstack = opstack[:len(opstack)-1]
		if top == opOpen || !emit(top) {
			return nil, false
		}
	}
	if items != 1 {
		return nil, false
	}
	return prog, true
}

const opChars = "+-*%/!()<>=|&"

func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// isSelectorChar includes the end of the string, as Redis's
// strchr("_-", c) does for c == 0: a lone trailing "." is an empty selector.
func isSelectorChar(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	c := s[i]
	return isAlpha(c) || isDigit(c) || c == '_' || c == '-'
}

// tokenize splits src into tokens; on error it returns the position.
func tokenize(s string) (toks []token, pos int, ok bool) {
	p := 0
	for {
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p == len(s) {
			return toks, 0, true
		}
		// A minus starts a number at the beginning and after an operator
		// other than ")": "-1", "2 * -1", but "(1) -1" subtracts.
		minusNumber := len(toks) == 0 ||
			(toks[len(toks)-1].isOp && toks[len(toks)-1].op != opClose)
		c := s[p]
		var t token
		var good bool
		switch {
		case isDigit(c) || (minusNumber && c == '-' && p+1 < len(s) && isDigit(s[p+1])):
			t.val, p, good = lexNumber(s, p)
		case c == '"' || c == '\'':
			t.val, p, good = lexString(s, p)
		case c == '.' && isSelectorChar(s, p+1):
			t.val, p, good = lexSelector(s, p)
		case c == '[':
			t.val, p, good = lexTuple(s, p)
		case isAlpha(c) || strings.IndexByte(opChars, c) >= 0:
			t, p, good = lexOperator(s, p)
		}
		if !good {
			return nil, p, false
		}
		toks = append(toks, t)
	}
}

// lexNumber reads digits, '.', 'e', 'E' and a leading '-', all of which
// must form one number.
func lexNumber(s string, p int) (value, int, bool) {
	start := p
	for p < len(s) && (isDigit(s[p]) || s[p] == '.' || s[p] == 'e' || s[p] == 'E' || (p == start && s[p] == '-')) {
		if p-start >= 255 {
			return value{}, p, false
		}
		p++
	}
	f, ok := strtod(s[start:p])
	return value{kind: kNum, num: f}, p, ok
}

// lexString reads a quoted string. Backslashes escape the next character
// but stay in the value, as in Redis.
func lexString(s string, p int) (value, int, bool) {
	q := s[p]
	p++
	start := p
	for p < len(s) {
		if s[p] == '\\' && p+1 < len(s) {
			p += 2
			continue
		}
		if s[p] == q {
			return value{kind: kStr, str: s[start:p]}, p + 1, true
		}
		p++
	}
	return value{}, p, false
}

func lexSelector(s string, p int) (value, int, bool) {
	p++
	start := p
	for p < len(s) && isSelectorChar(s, p) {
		p++
	}
	return value{kind: kSelector, str: s[start:p]}, p, true
}

// lexTuple reads [elem, ...] of numbers and strings (a trailing comma is
// allowed, nesting is not).
func lexTuple(s string, p int) (value, int, bool) {
	p++
	t := value{kind: kTuple, tuple: []value{}}
	for {
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p < len(s) && s[p] == ']' {
			return t, p + 1, true
		}
		var e value
		var ok bool
		switch {
		case p < len(s) && (isDigit(s[p]) || s[p] == '-'):
			e, p, ok = lexNumber(s, p)
		case p < len(s) && (s[p] == '"' || s[p] == '\''):
			e, p, ok = lexString(s, p)
		}
		if !ok {
			return value{}, p, false
		}
		t.tuple = append(t.tuple, e)
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p < len(s) && s[p] == ']' {
			return t, p + 1, true
		}
		if p >= len(s) || s[p] != ',' {
			return value{}, p, false
		}
		p++
	}
}

// lexOperator takes a run of letters and operator characters and matches
// the longest operator at its start; the rest of the run is read again as
// the next token. An unknown run is an error at the run's end.
func lexOperator(s string, p int) (token, int, bool) {
	start := p
	for p < len(s) && (isAlpha(s[p]) || strings.IndexByte(opChars, s[p]) >= 0) {
		p++
	}
	run := s[start:p]
	if run == "null" {
		return token{isNull: true}, p, true
	}
	best := -1
	for i, o := range ops {
		if strings.HasPrefix(run, o.name) && (best < 0 || len(o.name) > len(ops[best].name)) {
			best = i
		}
	}
	if best < 0 {
		return token{}, p, false
	}
	return token{isOp: true, op: ops[best].code}, start + len(ops[best].name), true
}
