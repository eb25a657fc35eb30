package stats

import (
	"bytes"
	"fmt"
	"testing"
)

// Entries keep Redis's limits (32 arguments, 128 bytes each), redact what
// the caller says is secret, come newest first and are trimmed to the
// configured length.
func TestSlowlog(t *testing.T) {
	var l Slowlog
	l.Configure(100, 2, 0)
	if l.Exceeds(99) || !l.Exceeds(100) {
		t.Fatalf("threshold 100 µs: 99 exceeds %v, 100 %v", l.Exceeds(99), l.Exceeds(100))
	}
	args := [][]byte{[]byte("auth"), []byte("secret")}
	for range 40 {
		args = append(args, []byte("x"))
	}
	args[2] = bytes.Repeat([]byte("a"), 130)
	l.Add(150, args, "1.2.3.4:5", "app", func(i int) bool { return i == 1 })
	l.Add(200, [][]byte{[]byte("get"), []byte("k")}, "addr", "", func(int) bool { return false })
	l.Add(300, [][]byte{[]byte("set"), []byte("k"), []byte("v")}, "addr", "", func(int) bool { return false })
	got := l.Latest(-1)
	if len(got) != 2 || l.Len() != 2 || got[0].ID != 2 || got[1].ID != 1 || got[0].Micros != 300 {
		t.Fatalf("after three adds at max-len 2: %+v", got)
	}
	l.Configure(100, 5, 0)
	l.Reset()
	l.Add(150, args, "1.2.3.4:5", "app", func(i int) bool { return i == 1 })
	e := l.Latest(1)[0]
	if len(e.Args) != 32 || string(e.Args[1]) != "(redacted)" || e.Addr != "1.2.3.4:5" || e.Name != "app" {
		t.Fatalf("entry %d args, [1] %q, %s %s", len(e.Args), e.Args[1], e.Addr, e.Name)
	}
	if want := string(bytes.Repeat([]byte("a"), 128)) + "... (2 more bytes)"; string(e.Args[2]) != want {
		t.Errorf("long argument: %q", e.Args[2])
	}
	if want := fmt.Sprintf("... (%d more arguments)", len(args)-31); string(e.Args[31]) != want {
		t.Errorf("last argument: %q, want %q", e.Args[31], want)
	}
	l.Configure(-1, 5, 0)
	if l.Exceeds(1 << 40) {
		t.Error("a negative threshold logs")
	}
}
