package filter

import (
	"errors"
	"testing"
)

// Every expectation below was checked against redis8-server 8.0.2 with
// VADD ... SETATTR and VSIM ... FILTER.

const (
	attrsA = `{"n":5,"s":"foo","b":true,"f":false,"z":null,"arr":[1,"x",3],"e":"","o":{"a":1},"q":"a\"b","num":"12","neg":-3.5}`
	attrsB = `{"n":10}`
)

// TestSemantics evaluates expressions against two elements, a and b; want
// lists the ones that pass.
func TestSemantics(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`.n == 5`, "a"},
		{`.n > 4`, "ab"},
		{`.s in "foobar"`, ""}, // no substring test in 8.0.2
		{`"oo" in .s`, ""},
		{`.x`, ""}, // a missing field makes the whole expression false...
		{`.n == 5 and .x`, ""},
		{`.x or 1`, ""}, // ...even where it could not matter
		{`.o`, ""},      // objects are unsupported: false
		{`.arr`, "a"},
		{`1 in .arr`, "a"},
		{`"x" in .arr`, "a"},
		{`.b`, "a"},
		{`.b == 1`, "a"},
		{`.f`, ""},
		{`.e`, ""},
		{`!.e`, "a"},
		{`.q == "a\"b"`, ""}, // literals keep their backslashes
		{`.q == 'a"b'`, "a"},
		{`.num == 12`, "a"}, // string and number compare as numbers
		{`.num > 11`, "a"},
		{`.s > 1`, ""},
		{`.s == 0`, "a"},
		{`.neg < -3`, "a"},
		{`2 ** 3 ** 2 == 512`, "ab"}, // ** is right-associative
		{`(2 ** 3) ** 2 == 64`, "ab"},
		{`7 % 3 == 1`, "ab"},
		{`-7 % 3 == -1`, "ab"},
		{`1/0 > 100`, "ab"},
		{`.n-1 == 4`, ""}, // "n-1" is one selector
		{`.n -1 == 4`, "a"},
		{`.n - -1 == 6`, "a"},
		{`5 == 5.0`, "ab"},
		{`"5" == 5`, "ab"},
		{`"abc" == "abc"`, "ab"},
		{`"abc" < "abd"`, ""}, // ordering is numeric: 0 < 0
		{`1e2 == 100`, "ab"},
		{`.s`, "a"},
		{`""`, ""},
		{`0`, ""},
		{`[1,2]`, "ab"},
		{`[]`, "ab"},
		{`1 in [1,2,]`, "ab"},
		{`(1)`, "ab"},
		{`((1))`, "ab"},
		{`.z`, ""}, // JSON null
		{`!.z`, "a"},
		{`.z == .z`, "a"},
		{`.z != 1`, "a"},
		{`.z == 0`, ""},
		{`.`, ""}, // an empty selector: false, not an error
		{`!1`, ""},
		{`! 0`, "ab"},
		{`!(0)`, "ab"},
		{`not 0`, "ab"},
		{`1 in 1`, ""},
		{`(1 and 0) or 1`, "ab"},
		{`1 or 1 and 0`, "ab"},
		{`3 - 2 - 1 == 0`, "ab"},
		{`8 / 4 / 2 == 1`, "ab"},
		{`2 * 3 + 4 == 10`, "ab"},
		{`2 + 3 * 4 == 14`, "ab"},
		{`1 < 2 == 1`, "ab"},
		{`1 == 1 == 1`, "ab"},
		{`0 -1`, "ab"},
		{`(1) -1`, ""},
		{`1 --1`, "ab"},
		{`.n--1`, ""},
		{`1 && 1`, "ab"},
		{`1 || 0`, "ab"},
		{`1 != 1`, ""},
		{`1 ** -1 == 1`, "ab"},
		{`-1`, "ab"},
		{`.n in [5, "5"]`, "a"},
		{`1 in []`, ""},
		{`null 1`, "ab"}, // null is read and ignored
		{"1 == 1\x00 garbage", "ab"},
	} {
		e, err := Compile(tc.expr)
		if err != nil {
			t.Errorf("%q: %v", tc.expr, err)
			continue
		}
		got := ""
		if e.Eval(attrsA) {
			got += "a"
		}
		if e.Eval(attrsB) {
			got += "b"
		}
		if got != tc.want {
			t.Errorf("%q: passes %q, want %q", tc.expr, got, tc.want)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct{ expr, near string }{
		{`!!.n`, `!!.n`}, // a doubled unary operator does not compile in 8.0.2
		{`not not .n`, `not not .n`},
		{`.z == null`, `.z == null`},
		{`null`, `null`},
		{`.b == true`, `.b == true`},
		{`1 +`, `1 +`},
		{`+ 1`, `+ 1`},
		{`(1`, `(1`},
		{`1)`, `1)`},
		{`1 2`, `1 2`},
		{`.n ==`, `.n ==`},
		{`.n == 5 &&`, `.n == 5 &&`},
		{`foo`, `foo`},
		{`.n == 5 and foo`, `.n == 5 and foo`},
		{`@`, `@`},
		{`.n == 5 @`, `@`},
		{`"abc`, `"abc`},
		{`'abc`, `'abc`},
		{`[1,`, `[1,`},
		{`[1 2]`, `2]`},
		{`[a]`, `a]`},
		{`1.2.3`, `1.2.3`},
		{`1e`, `1e`},
		{`1e+5`, `+5`},
		{`. n`, `. n`},
		{`.n.m`, `.n.m`},
		{`5 - - 5`, `5 - - 5`},
		{`-.n`, `-.n`},
		{`in`, `in`},
		{`and`, `and`},
		{`1 and`, `1 and`},
		{`1 andx 1`, ` 1`},
		{`1 | 0`, ` 0`},
		{`1 & 1`, ` 1`},
		{`1 = 1`, ` 1`},
		{`1 <> 1`, `1 <> 1`},
		{`1 =< 1`, ` 1`},
		{`1 >== 1`, ` 1`},
		{`1 !== 1`, ` 1`},
		{`- 1`, `- 1`},
		{`--1`, `--1`},
		{`x`, `x`},
		{`1 == x`, `1 == x`},
		{`1 == xyz 2`, ` 2`},
		{`abc 1`, ` 1`},
		{`1 |`, `1 |`},
		{`1 | 2 | 3`, ` 2 | 3`},
		{`andx 1`, ` 1`},
		{`1 andx 1 1`, ` 1 1`},
		{`1 ==    `, `1 ==    `},
		{`1 + @`, `@`},
		{`(`, `(`},
		{`)`, `)`},
		{`"a" "b"`, `"a" "b"`},
		{`1 in [1, [2]]`, `[2]]`},
		{`1 == null`, `1 == null`},
		{`nullx 1`, ` 1`},
		{``, ``},
	} {
		_, err := Compile(tc.expr)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: compiled, want a syntax error near %q", tc.expr, tc.near)
			continue
		}
		if se.Near() != tc.near {
			t.Errorf("%q: error near %q, want %q", tc.expr, se.Near(), tc.near)
		}
	}
	_, err := Compile(`1 +`)
	if err.Error() != "syntax error in FILTER expression near: 1 +" {
		t.Fatalf("error text %q", err)
	}
}

// TestAttributes checks how attribute JSON is read (fastjson's rules).
func TestAttributes(t *testing.T) {
	for _, tc := range []struct {
		attrs, expr string
		want        bool
	}{
		{`{"u":"\u0041"}`, `.u == "A"`, false},    // \u is not decoded...
		{`{"u":"\u0041"}`, `.u == "u0041"`, true}, // ...the backslash is dropped
		{`{"p":+5}`, `.p == 5`, true},
		{`{"d":.5}`, `.d`, false},
		{`{"na":[1,[2]]}`, `.na`, true}, // nested arrays are tuples
		{`{"x":1e5}`, `.x == 100000`, true},
		{`{"dup":1,"dup":2}`, `.dup == 1`, true}, // the first occurrence wins
		{`{"sp" :  7 , "t":true}`, `.sp == 7 and .t`, true},
		{`notjson`, `.a == 1`, false},
		{`{"a":1`, `.a == 1`, true}, // found before the JSON goes wrong
		{`[1,2]`, `.a`, false},
		{`{"k":"v\/w"}`, `.k == "v/w"`, true},
		{`{"k":"v\/w"}`, `.k == "v\/w"`, false},
		{`{"h":"0x10"}`, `.h == 16`, true}, // strings convert with strtod
		{`{"i":" 12"}`, `.i == 12`, true},
		{`{"i":"12 "}`, `.i == 0`, true},
		{`{"inf":"inf"}`, `.inf > 1e300`, true},
		{`{"big":1e999}`, `.big > 1e300`, true},
		{`{"nan":"nan"}`, `.nan == .nan`, true}, // two strings: byte equality
		{`{"nan":"nan"}`, `.nan != .nan`, false},
		{`{"a":1,}`, `.a == 1`, true},
		{`  {  "a"  :  false  }  `, `!.a`, true},
		{`{"a":"\"q\""}`, `.a == '"q"'`, true},
		{`{"a":"\"q\""}`, `.a == "\"q\""`, false},
		{`{"v":1-2}`, `.v`, false},
		{`{"v":1-2}`, `!.v`, false},
		{`{"v":"x\ty"}`, ".v == \"x\ty\"", true},
		{`{"v":"x\ty"}`, `.v == "x\ty"`, false},
		{`{"v":[1,"a\"b"]}`, `'a"b' in .v`, true},
		{`{"v":[1,"a\"b"]}`, `"a\"b" in .v`, false},
		{`{"v":[]}`, `1 in .v`, false},
		{`{"v":[]}`, `.v == 0`, true},
		{`{"v":{"x":1}}`, `.v`, false},
		{`{"v":"a\\b"}`, `.v == "a\b"`, true},
		{`{"v":[1,{"z":1}]}`, `.v`, false},
		{`{"v":1e-999}`, `!.v`, true},
		{`{"v":"1e3"}`, `.v == 1000`, true},
		{`{"x":truex, "v":1}`, `.v`, false}, // malformed before the field
		{`{"x":{"a":"}"}, "v":2}`, `.v == 2`, true},
		{`{"x":[1,"]"], "v":3}`, `.v == 3`, true},
		{`{"v":true,}`, `.v`, true},
		{`{"v" : tru}`, `.v`, false},
		{`{"v":nul}`, `.v`, false},
		{`{"v":-}`, `.v`, false},
		{`{"v":"\b"}`, `.v == "b"`, true},
		{`{ "v" : [ 1 , 2 ] }`, `1 in .v`, true},
		{`{"v":[1,2,]}`, `.v`, false},
		{`{"v":[1 2]}`, `.v`, false},
		{`{"v":"é"}`, `.v == "é"`, true},
		{`{"v":null}`, `.v == .v`, true},
		{`{"v":[null]}`, `.v`, true},
		{`{"v":"unterminated}`, `.v`, false},
		{`{"a\"b":1}`, `.a`, false},
		{`{"v":true}`, `.v == 1 and .v == "1"`, true},
		{`{"v":"true"}`, `.v == 1`, false},
		{``, `1`, true}, // no selector, no JSON needed
	} {
		e, err := Compile(tc.expr)
		if err != nil {
			t.Errorf("%q: %v", tc.expr, err)
			continue
		}
		if got := e.Eval(tc.attrs); got != tc.want {
			t.Errorf("%s on %s: %v, want %v", tc.expr, tc.attrs, got, tc.want)
		}
	}
}

func TestStrtod(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want float64
		ok   bool
	}{
		{"12", 12, true}, {" 12", 12, true}, {"12 ", 0, false}, {"+1.5", 1.5, true},
		{"-.5", -0.5, true}, {"1.", 1, true}, {".", 0, false}, {"1e3", 1000, true},
		{"1e", 0, false}, {"1e+", 0, false}, {"0x10", 16, true}, {"0X1p4", 16, true},
		{"0x", 0, false}, {"0x1p", 0, false}, {"0x.8", 0.5, true}, {"INF", 0, true},
		{"-Infinity", 0, true}, {"infx", 0, false}, {"nan(123)", 0, true},
		{"", 0, false}, {"abc", 0, false}, {"1_000", 0, false}, {"12\x00x", 12, true},
	} {
		got, ok := strtod(tc.s)
		if ok != tc.ok || (ok && tc.want != 0 && got != tc.want) {
			t.Errorf("strtod(%q) = %v, %v; want %v, %v", tc.s, got, ok, tc.want, tc.ok)
		}
	}
}

func BenchmarkEval(b *testing.B) {
	e, err := Compile(`.year >= 1980 and .year < 1990 and .genre in ["action", "drama"]`)
	if err != nil {
		b.Fatal(err)
	}
	attrs := `{"title":"The Terminator","year":1984,"genre":"action","rating":8.1}`
	for b.Loop() {
		if !e.Eval(attrs) {
			b.Fatal("no match")
		}
	}
}
