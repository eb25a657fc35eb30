package filter

import "math"

type kind uint8

const (
	kNum kind = iota
	kStr
	kTuple
	kNull
	kSelector // a program value only: resolved against the attributes
)

// value is an operand: a literal, a selector, or an attribute's value.
type value struct {
	kind  kind
	num   float64
	str   string // string contents; a selector's field name
	tuple []value
}

type opcode uint8

const (
	opOpen opcode = iota
	opClose
	opNot
	opPow
	opMul
	opDiv
	opMod
	opAdd
	opSub
	opGT
	opGE
	opLT
	opLE
	opEQ
	opNE
	opIn
	opAnd
	opOr
)

// The operator table: names, precedence (higher binds tighter) and arity.
var ops = []struct {
	name  string
	code  opcode
	prec  int
	arity int
}{
	{"(", opOpen, 7, 0},
	{")", opClose, 7, 0},
	{"!", opNot, 6, 1},
	{"not", opNot, 6, 1},
	{"**", opPow, 5, 2},
	{"*", opMul, 4, 2},
	{"/", opDiv, 4, 2},
	{"%", opMod, 4, 2},
	{"+", opAdd, 3, 2},
	{"-", opSub, 3, 2},
	{">", opGT, 2, 2},
	{">=", opGE, 2, 2},
	{"<", opLT, 2, 2},
	{"<=", opLE, 2, 2},
	{"==", opEQ, 2, 2},
	{"!=", opNE, 2, 2},
	{"in", opIn, 2, 2},
	{"and", opAnd, 1, 2},
	{"&&", opAnd, 1, 2},
	{"or", opOr, 0, 2},
	{"||", opOr, 0, 2},
}

var (
	precOf  [opOr + 1]int
	arityOf [opOr + 1]int
)

func init() {
	for _, o := range ops {
		precOf[o.code], arityOf[o.code] = o.prec, o.arity
	}
}

// instr is one step of a compiled program: push a value, or apply an
// operator to the values on the stack.
type instr struct {
	isOp bool
	op   opcode
	val  value
}

// Expr is a compiled expression. It is safe for concurrent use.
type Expr struct {
	prog []instr
}

// SyntaxError reports an expression that does not compile.
type SyntaxError struct {
	Expr string
	Pos  int // byte offset Redis reports the error at
}

// Near is the part of the expression Redis quotes in its error reply
// ("ERR syntax error in FILTER expression near: ..."): from the error
// position on, or the whole expression when the position is at its end.
func (e *SyntaxError) Near() string {
	if e.Pos >= len(e.Expr) {
		return e.Expr
	}
	return e.Expr[e.Pos:]
}

func (e *SyntaxError) Error() string {
	return "syntax error in FILTER expression near: " + e.Near()
}

// Eval reports whether an element whose attributes are the JSON object
// attrs passes the expression. Any selector naming a field that attrs lacks
// (or holds as an object) makes the result false; so does malformed JSON
// where a selector's field would be.
func (e *Expr) Eval(attrs string) bool {
	var buf [16]value
	stack := buf[:0]
	for i := range e.prog {
		in := &e.prog[i]
		if !in.isOp {
			v := in.val
			if v.kind == kSelector {
				var ok bool
				if v, ok = extract(attrs, v.str); !ok {
					return false
				}
			}
			stack = append(stack, v)
			continue
		}
		var a, b value
		b = stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if arityOf[in.op] == 2 {
			a = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, value{kind: kNum, num: apply(in.op, a, b)})
	}
	if len(stack) == 0 {
		return false
	}
	return truthy(stack[len(stack)-1])
}

func boolNum(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func apply(op opcode, a, b value) float64 {
	switch op {
	case opNot:
		return boolNum(!truthy(b))
	case opPow:
		return math.Pow(toNum(a), toNum(b))
	case opMul:
		return toNum(a) * toNum(b)
	case opDiv:
		return toNum(a) / toNum(b)
	case opMod:
		return math.Mod(toNum(a), toNum(b))
	case opAdd:
		return toNum(a) + toNum(b)
	case opSub:
		return toNum(a) - toNum(b)
	case opGT:
		return boolNum(toNum(a) > toNum(b))
	case opGE:
		return boolNum(toNum(a) >= toNum(b))
	case opLT:
		return boolNum(toNum(a) < toNum(b))
	case opLE:
		return boolNum(toNum(a) <= toNum(b))
	case opEQ:
		return boolNum(equal(a, b))
	case opNE:
		return boolNum(!equal(a, b))
	case opIn:
		// Membership in a tuple (a literal or a JSON array); anything else
		// on the right is false (8.0.2 has no substring test).
		if b.kind == kTuple {
			for _, e := range b.tuple {
				if equal(a, e) {
					return 1
				}
			}
		}
		return 0
	case opAnd:
		return boolNum(truthy(a) && truthy(b))
	case opOr:
		return boolNum(truthy(a) || truthy(b))
	}
	return 0
}

// toNum converts as Redis does: strings through strtod (0 unless the whole
// string is a number), everything else but numbers to 0.
func toNum(v value) float64 {
	switch v.kind {
	case kNum:
		return v.num
	case kStr:
		if len(v.str) < 256 {
			if f, ok := strtod(v.str); ok {
				return f
			}
		}
	}
	return 0
}

// truthy: non-zero numbers, non-empty strings and tuples are true.
func truthy(v value) bool {
	switch v.kind {
	case kNum:
		return v.num != 0
	case kStr:
		return v.str != ""
	case kNull:
		return false
	}
	return true
}

// equal compares strings as bytes and numbers as numbers; null equals only
// null; other mixes compare as numbers.
func equal(a, b value) bool {
	switch {
	case a.kind == kStr && b.kind == kStr:
		return a.str == b.str
	case a.kind == kNum && b.kind == kNum:
		return a.num == b.num
	case a.kind == kNull || b.kind == kNull:
		return a.kind == b.kind
	}
	return toNum(a) == toNum(b)
}
