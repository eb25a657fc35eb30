package glob

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		nocase bool
		want   bool
	}{
		{"*", "", false, true},
		{"*", "abc", false, true},
		{"a*", "a", false, true},
		{"a*c", "abbbc", false, true},
		{"a*c", "abbb", false, false},
		{"*b*", "abc", false, true},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h[ae]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-b]llo", "hbllo", false, true},
		{"h[b-a]llo", "hallo", false, true},
		{"h\\*llo", "h*llo", false, true},
		{"h\\*llo", "hello", false, false},
		{"MAX*", "maxclients", true, true},
		{"MAX*", "maxclients", false, false},
		{"*a*b", "aaaaab", false, true},
		{"*a*a*b*", "xaxab", false, true},
		{"[abc", "a", false, true}, // an unterminated class ends the pattern, as in Redis
	} {
		if got := MatchString(tc.pat, tc.s, tc.nocase); got != tc.want {
			t.Errorf("Match(%q, %q, %v) = %v", tc.pat, tc.s, tc.nocase, got)
		}
	}
}

// TestMatchNoBlowup: a pattern of many stars that cannot match answers at
// once instead of trying every split (exponential before).
func TestMatchNoBlowup(t *testing.T) {
	p := strings.Repeat("*a", 30) + "*b"
	if MatchString(p, strings.Repeat("a", 200), false) {
		t.Fatal("matched")
	}
	if !MatchString(p, strings.Repeat("a", 200)+"b", false) {
		t.Fatal("did not match")
	}
}
