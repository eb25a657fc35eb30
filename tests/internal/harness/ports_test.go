package harness

import (
	"net"
	"strconv"
	"testing"
)

// A port FreePort handed out is not handed out again, in this process or
// (through the lock file) another, until its test ends, and one that
// something listens on is not claimed.
func TestFreePortClaims(t *testing.T) {
	p := FreePort(t)
	if p < firstPort || p >= ephemeralLow() {
		t.Fatalf("port %d outside [%d, %d)", p, firstPort, ephemeralLow())
	}
	if _, ok := claim(p); ok {
		t.Fatalf("port %d claimed twice", p)
	}
	q := FreePort(t)
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(q+1))
	if err == nil {
		defer l.Close()
		if unlock, ok := claim(q + 1); ok {
			unlock()
			t.Fatalf("port %d claimed while something listens on it", q+1)
		}
	}
}
