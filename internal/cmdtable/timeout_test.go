package cmdtable

import (
	"strings"
	"testing"
	"time"
)

func TestBlockTimeout(t *testing.T) {
	const now = 1_700_000_000_000
	for _, tc := range []struct {
		arg  string
		want time.Duration
		err  string
	}{
		{"0", 0, ""},
		{"-0", 0, ""},
		{"-0.0001", 0, ""}, // rounds up to 0 ms: wait forever, as in Redis
		{"0.0001", time.Millisecond, ""},
		{"1.5", 1500 * time.Millisecond, ""},
		{"0x10", 16 * time.Second, ""},
		{"0x1p-3", 125 * time.Millisecond, ""},
		{".5", 500 * time.Millisecond, ""},
		{"1e-400", time.Millisecond, ""}, // a long double, not a float64
		{"1e10", 0, ""},                  // past time.Duration: treated as forever
		{"x", 0, "ERR timeout is not a float or out of range"},
		{"", 0, "ERR timeout is not a float or out of range"},
		{" 1", 0, "ERR timeout is not a float or out of range"},
		{"1 ", 0, "ERR timeout is not a float or out of range"},
		{"1_0", 0, "ERR timeout is not a float or out of range"},
		{"0b1", 0, "ERR timeout is not a float or out of range"},
		{"nan", 0, "ERR timeout is not a float or out of range"},
		{"1e5000", 0, "ERR timeout is not a float or out of range"},
		{"1e-5000", 0, "ERR timeout is not a float or out of range"},
		{"--1", 0, "ERR timeout is not a float or out of range"},
		{"1e2147483648", 0, "ERR timeout is not a float or out of range"},
		{"-1", 0, "ERR timeout is negative"},
		{"-inf", 0, "ERR timeout is negative"},
		{"-1e400", 0, "ERR timeout is negative"},
		{"inf", 0, "ERR timeout is out of range"},
		{"Infinity", 0, "ERR timeout is out of range"},
		{"1e400", 0, "ERR timeout is out of range"},
		{"9223372036854775", 0, "ERR timeout is out of range"}, // overflows once now is added
		{"0x7FFFFFFFFFFFFF", 0, "ERR timeout is out of range"},
	} {
		got, err := BlockTimeout([]byte(tc.arg), now)
		if got != tc.want || err != tc.err {
			t.Errorf("BlockTimeout(%q) = %v, %q; want %v, %q", tc.arg, got, err, tc.want, tc.err)
		}
	}
	if _, err := BlockTimeout([]byte(strings.Repeat("1", 5*1024)), now); err == "" {
		t.Error("a 5 KB timeout should be refused, as Redis's string2ld does")
	}
}

// FuzzBlockTimeout: any client bytes give a duration or one of the errors,
// never a panic or a negative wait.
func FuzzBlockTimeout(f *testing.F) {
	for _, s := range []string{"0", "1.5", "0x1p-3", "inf", "-1e400", "1e-400", "1e99999999999999999999", "0x.8p1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := BlockTimeout(b, 1_700_000_000_000)
		if err == "" && d < 0 {
			t.Fatalf("%q: negative timeout %v", b, d)
		}
		if err != "" && !strings.HasPrefix(err, "ERR timeout is ") {
			t.Fatalf("%q: unexpected error %q", b, err)
		}
	})
}
