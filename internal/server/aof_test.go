package server

import (
	"fmt"
	"strings"
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

func TestPoppedForm(t *testing.T) {
	split := func(s string) [][]byte {
		var out [][]byte
		for _, f := range strings.Fields(s) {
			out = append(out, []byte(f))
		}
		return out
	}
	for _, c := range []struct{ cmd, reply, want string }{
		{"blpop a b 0", "*2\r\n$1\r\nb\r\n$1\r\nx\r\n", "[lpop b]"},
		{"bzpopmax z 0", "*3\r\n$1\r\nz\r\n$1\r\nm\r\n,1.5\r\n", "[zpopmax z]"},
		{"lmpop 2 a b RIGHT COUNT 5", "*2\r\n$1\r\na\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n", "[rpop a 2]"},
		{"bzmpop 0 1 z MIN", "*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nm\r\n,1\r\n", "[zpopmin z 1]"},
		{"zmpop 1 z MAX", "*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nm\r\n$1\r\n1\r\n", "[zpopmax z 1]"},
		{"lmpop 1 a LEFT", "*-1\r\n", "[]"},
		{"lpop a", "$1\r\nx\r\n", "[]"},
	} {
		args := split(c.cmd)
		if got := fmt.Sprintf("%s", poppedForm(string(args[0]), args, []byte(c.reply))); got != c.want {
			t.Errorf("%s: got %s, want %s", c.cmd, got, c.want)
		}
	}
}
