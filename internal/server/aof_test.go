package server

import (
	"fmt"
	"testing"
)

func TestSpopAsSrem(t *testing.T) {
	args := [][]byte{[]byte("spop"), []byte("k")}
	for _, c := range []struct{ reply, want string }{
		{"$1\r\na\r\n", "[srem k a]"},
		{"$-1\r\n", "[]"},
		{"_\r\n", "[]"},
		{"*2\r\n$1\r\na\r\n$3\r\nb\nc\r\n", "[srem k a b\nc]"},
		{"~1\r\n$0\r\n\r\n", "[srem k ]"},
		{"*0\r\n", "[]"},
	} {
		if got := fmt.Sprintf("%s", spopAsSrem(args, []byte(c.reply))); got != c.want {
			t.Errorf("%q: got %q, want %q", c.reply, got, c.want)
		}
	}
}
