package intstr

import (
	"strconv"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"0", true}, {"-1", true}, {"7", true}, {"9223372036854775807", true}, {"-9223372036854775808", true},
		{"9223372036854775808", false}, {"-9223372036854775809", false}, {"-0", false}, {"01", false},
		{"+1", false}, {"", false}, {"-", false}, {" 1", false}, {"1 ", false}, {"1.0", false},
		{"99999999999999999999", false}, {"18446744073709551616", false}, {"1e3", false},
	} {
		v, ok := Parse([]byte(tc.in))
		if ok != tc.ok || (ok && strconv.FormatInt(v, 10) != tc.in) {
			t.Errorf("Parse(%q) = %d, %v", tc.in, v, ok)
		}
	}
}

// FuzzParse checks Parse against its definition: it accepts exactly the
// strings that are the canonical decimal form of an int64.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "-0", "12", "-9223372036854775808", "9223372036854775808", "+1", "007"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Parse([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		canonical := err == nil && strconv.FormatInt(want, 10) == s
		if ok != canonical || (ok && v != want) {
			t.Fatalf("Parse(%q) = %d, %v; canonical %v", s, v, ok, canonical)
		}
	})
}
