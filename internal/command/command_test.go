package command_test

import (
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/command"
	_ "github.com/hotkv/hotkv/internal/commands" // a real table to look up
)

func TestLookupIgnoresCaseAndFindsEveryCommand(t *testing.T) {
	if len(command.All()) < 3 {
		t.Fatal("no command table to test")
	}
	for _, c := range command.All() {
		for _, name := range []string{c.Name, strings.ToUpper(c.Name)} {
			if got := command.Lookup([]byte(name)); got != c {
				t.Errorf("Lookup(%q) = %v", name, got)
			}
		}
	}
	for _, name := range []string{"", "nosuchcommand", "GE", "gett", strings.Repeat("x", 100)} {
		if got := command.Lookup([]byte(name)); got != nil {
			t.Errorf("Lookup(%q) = %v, want nil", name, got.Name)
		}
	}
}
