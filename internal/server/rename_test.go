package server

import (
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/config"
)

// Command names compare case-insensitively in ASCII only, as Redis's
// command table does, whatever their length: a new name with non-ASCII
// capitals is reached as written (it was lowered with strings.ToLower and
// so missed), and a long name does not match Unicode case variants.
func TestRenamedNamesASCIICase(t *testing.T) {
	long := strings.Repeat("X", 70) + "É"
	names, err := renamed([]config.Rename{{From: "get", To: "GÉT"}, {From: "set", To: long}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want string
	}{
		{"GÉT", "get"}, {"gÉt", "get"}, {"gét", ""},
		{long, "set"}, {strings.Repeat("x", 70) + "É", "set"}, {strings.ToLower(long), ""},
	} {
		got := ""
		if c := names.lookup([]byte(tc.name)); c != nil {
			got = c.Name
		}
		if got != tc.want {
			t.Errorf("lookup(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
