package filter

import "testing"

// FuzzCompile feeds arbitrary expressions and attributes: compiling and
// evaluating must never panic, and a compiled expression always yields a
// boolean.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		`.year >= 1980 and .year < 1990 and .genre in ["action", "drama"]`,
		`!(.a == 'x\'y') || .b ** -2 % 3`, `[1, "a",]`, `null`, `.`, `((((1))))`,
		`1e5 in [1e5]`, `.a-b_c`, `"\`, `[`, `not not 1`, `2 ** 3 ** 2`,
	} {
		f.Add(s, `{"year":1984,"genre":"action","a":[1,[2,"x"]],"b":null,"s":"a\"b"}`)
	}
	f.Fuzz(func(t *testing.T, expr, attrs string) {
		e, err := Compile(expr)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("%q: error of type %T", expr, err)
			}
			return
		}
		e.Eval(attrs)
		e.Eval("")
	})
}
