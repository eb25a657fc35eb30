package scripting

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// TestDifferentialLuaStruct compares the struct library scripts get with
// Redis 8.0.2's: layouts, round trips, alignment, and the error texts.
func TestDifferentialLuaStruct(t *testing.T) {
	eval := func(expr string) []string { return []string{"EVAL", "return " + expr, "0"} }
	script := [][]string{
		eval("struct.pack('>hHi3Ll', -2, 65535, 70000, 5, -1)"),
		eval("{struct.unpack('<hHIb', struct.pack('<hHIb', -7, 9, 123456, -128))}"),
		eval("{struct.unpack('>i16', struct.pack('>i16', -5))}"),
		eval("{struct.unpack('<I5', struct.pack('<I5', 1099511627775))}"),
		eval("struct.size('!4bid')"), eval("struct.size('!bhld')"), eval("struct.size('<i7c3x')"),
		eval("struct.pack('!bd', 1, 2)"), eval("struct.pack('!2bhb', 1, 2, 3)"),
		eval("{struct.unpack('Bc0', struct.pack('Bc0', 3, 'xyz'))}"),
		eval("{struct.unpack('s s', struct.pack('ss', 'ab', 'c'))}"),
		eval("{struct.unpack('i', 'abcdefgh', 5)}"),
		eval("tostring(struct.unpack('>f', struct.pack('>f', 1.5)))"),
		eval("tostring(struct.unpack('d', struct.pack('d', -0.25)))"),
		eval("struct.pack('z', 1)"), eval("struct.size('s')"), eval("struct.size('c0')"),
		eval("{struct.unpack('i', 'ab')}"), eval("struct.pack('c5', 'ab')"), eval("struct.pack('!3i', 1)"),
		eval("{struct.unpack('c0', 'ab')}"), eval("struct.pack('i40', 1)"), eval("{struct.unpack('s', 'abc')}"),
		eval("{struct.unpack('i', 'abcdefgh', 9)}"), eval("{struct.unpack('i', 'abcdefgh', 0)}"),
		eval("struct.pack('i', 'x')"), eval("struct.pack('i99999999999', 1)"),
		eval("struct.pack('b')"), eval("struct.unpack('b')"), eval("struct.size()"),
		eval("{struct.unpack('!8bi0', struct.pack('!8bi0', 3, 3))}"), eval("{struct.unpack('i0I0', 'ab')}"),
		eval("{struct.unpack('b', 'a', 'x')}"), eval("{struct.unpack('b', 'ab', '2')}"), eval("{struct.unpack('b', 12)}"),
	}
	r := rand.New(rand.NewPCG(7, 7))
	opts := []string{"b", "B", "h", "H", "l", "L", "T", "i", "I", "i2", "I3", "i8", "x", "<", ">", "!", "!2", "!4"}
	for range 40 {
		format, args := "", ""
		for range 1 + r.IntN(6) {
			o := opts[r.IntN(len(opts))]
			format += o
			if o[0] != 'x' && o[0] != '<' && o[0] != '>' && o[0] != '!' {
				args += fmt.Sprintf(", %d", r.IntN(200)-100)
			}
		}
		script = append(script, eval(fmt.Sprintf("{struct.size('%s'), struct.pack('%s'%s), struct.unpack('%s', struct.pack('%s'%s))}",
			format, format, args, format, format, args)))
	}
	harness.Differ(t, script)
}
