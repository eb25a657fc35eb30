package script

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// FuzzStructFormat runs struct.pack, unpack and size over arbitrary formats
// (a parser of what scripts send): a Lua error is fine, a panic is not, and
// what pack makes from a format without 'c' unpacks with it ('c0' reads
// its length from the value before, which pack does not write).
func FuzzStructFormat(f *testing.F) {
	for _, s := range []string{">hHi3Ll", "<bBIi8", "!4bid", "Bc0", "c5s", "!3i", "xxd f", "i40", "!", "c0"} {
		f.Add(s)
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	lib := structLib(L)
	call := func(fn string, args ...lua.LValue) error {
		L.SetTop(0)
		return L.CallByParam(lua.P{Fn: lib.RawGetString(fn), NRet: lua.MultRet, Protect: true}, args...)
	}
	f.Fuzz(func(t *testing.T, format string) {
		if len(format) > 64 {
			return // counts like c99999999 would only test allocation
		}
		call("size", lua.LString(format))
		call("unpack", lua.LString(format), lua.LString("\x01\x02\x03\x04\x05\x06\x07\x08abc\x00def"))
		// Pack numbers where numbers are wanted and short strings elsewhere.
		args := []lua.LValue{lua.LString(format)}
		for range 8 {
			args = append(args, lua.LNumber(3))
		}
		if call("pack", args...) != nil || strings.IndexByte(format, 'c') >= 0 {
			return
		}
		packed := L.Get(1)
		if err := call("unpack", lua.LString(format), packed); err != nil {
			t.Fatalf("%q: unpacking what pack made: %v", format, err)
		}
	})
}

// The byte layouts pack makes (checked against Redis 8.0.2 by
// TestDifferentialLuaStruct in tests/).
func TestStructPack(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	L.SetGlobal("struct", structLib(L))
	for _, c := range []struct{ expr, want string }{
		{"struct.pack('>hHi3', -2, 65535, 70000)", "\xff\xfe\xff\xff\x01\x11\x70"},
		{"struct.pack('<l', -1)", "\xff\xff\xff\xff\xff\xff\xff\xff"},
		{"struct.pack('!4bi', 1, 2)", "\x01\x00\x00\x00\x02\x00\x00\x00"},
		{"struct.pack('Bc0s', 3, 'xyz', 'q')", "\x03xyzq\x00"},
		{"struct.pack('>d', 1.5)", "\x3f\xf8\x00\x00\x00\x00\x00\x00"},
		{"struct.pack('<f', 1.5)", "\x00\x00\xc0\x3f"},
	} {
		if err := L.DoString("r = " + c.expr); err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if got := L.GetGlobal("r").String(); got != c.want {
			t.Errorf("%s = %q, want %q", c.expr, got, c.want)
		}
	}
}
