package commands

import (
	"testing"

	"github.com/hotkv/hotkv/internal/scan"
)

func TestParseCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"42", 42, true}, {"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false}, {"-1", 0, false}, {"x", 0, false}, {"", 0, false},
		{"01", 1, true}, {" 1", 1, true}, {"+1", 1, true}, {"-0", 0, true},
		{" -1", 1<<64 - 1, true}, {"1 ", 0, false}, {"+", 0, false},
	} {
		got, ok := scan.ParseCursor([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("scan.ParseCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
