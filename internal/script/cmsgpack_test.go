package script

import (
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// FuzzCmsgpackUnpack feeds arbitrary bytes to cmsgpack.unpack (a parser of
// what clients send): it must return values or a Lua error, never panic,
// and what it returns, if no deeper than pack's nesting limit, must pack and
// unpack to as many values. (Past the limit pack writes nil for a table, as
// Redis does, and a table that was a map key then unpacks to a nil key: an
// error in Redis too.)
func FuzzCmsgpackUnpack(f *testing.F) {
	for _, s := range []string{"\x01\x02", "\x93\x01\xa1a\xc3", "\x81\xa1k\xcb\x40\x09\x21\xfb\x54\x44\x2d\x18",
		"\xdc\x00\x02\xc0\xc2", "\xdf\x00\x00\x00\x01\x01\x02", "\xdd\xff\xff\xff\xff", "\xd9\x05ab", "\xc1", "\x80"} {
		f.Add([]byte(s))
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	L.SetGlobal("cmsgpack", cmsgpackLib(L))
	f.Fuzz(func(t *testing.T, in []byte) {
		L.SetTop(0)
		lib := L.GetGlobal("cmsgpack").(*lua.LTable)
		err := L.CallByParam(lua.P{Fn: lib.RawGetString("unpack"), NRet: lua.MultRet, Protect: true}, lua.LString(in))
		if err != nil {
			return // a Lua error, as Redis gives
		}
		vals := make([]lua.LValue, L.GetTop())
		for i := range vals {
			vals[i] = L.Get(i + 1)
		}
		if len(vals) == 0 || slices.ContainsFunc(vals, func(v lua.LValue) bool { return depth(v) > msgpackMaxNesting }) {
			return
		}
		L.SetTop(0)
		if err := L.CallByParam(lua.P{Fn: lib.RawGetString("pack"), NRet: 1, Protect: true}, vals...); err != nil {
			t.Fatalf("packing what unpack gave failed: %v", err)
		}
		packed := L.Get(-1).(lua.LString)
		L.SetTop(0)
		if err := L.CallByParam(lua.P{Fn: lib.RawGetString("unpack"), NRet: lua.MultRet, Protect: true}, packed); err != nil {
			t.Fatalf("unpacking what pack made failed: %v", err)
		}
		if L.GetTop() != len(vals) {
			t.Fatalf("%q unpacked to %d values, repacked to %d", in, len(vals), L.GetTop())
		}
	})
}

// depth is how many tables deep v nests (0 for a non-table).
func depth(v lua.LValue) int {
	t, ok := v.(*lua.LTable)
	if !ok {
		return 0
	}
	d := 0
	t.ForEach(func(k, v lua.LValue) { d = max(d, depth(k), depth(v)) })
	return d + 1
}

// The encodings pack picks, byte for byte (checked against Redis 8.0.2 by
// TestDifferentialCmsgpack in tests/).
func TestCmsgpackPack(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	L.SetGlobal("cmsgpack", cmsgpackLib(L))
	for _, c := range []struct{ expr, want string }{
		{"cmsgpack.pack(1, -1, 200, -200, 70000)", "\x01\xff\xcc\xc8\xd1\xff\x38\xce\x00\x01\x11\x70"},
		{"cmsgpack.pack(1.5, 0.1)", "\xca\x3f\xc0\x00\x00\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a"},
		{"cmsgpack.pack({1, 2}, {}, {a = true})", "\x92\x01\x02\x90\x81\xa1a\xc3"},
		{"cmsgpack.pack(nil, false)", "\xc0\xc2"},
	} {
		if err := L.DoString("return " + c.expr); err != nil {
			t.Fatal(err)
		}
		if got := string(L.Get(-1).(lua.LString)); got != c.want {
			t.Errorf("%s = %q, want %q", c.expr, got, c.want)
		}
		L.SetTop(0)
	}
}

// A table holding itself six times packs 6^16 nils at the nesting limit:
// the packer stops at its limit instead (maxPack for scripts).
func TestCmsgpackPackCap(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	self := L.NewTable()
	for i := 1; i <= 6; i++ {
		self.RawSetInt(i, self)
	}
	p := packer{limit: 1 << 20}
	p.value(self, 0)
	if !p.tooBig || len(p.b) > 2<<20 {
		t.Fatalf("packed %d bytes, tooBig %v", len(p.b), p.tooBig)
	}
	two := L.NewTable()
	two.RawSetInt(1, two)
	two.RawSetInt(2, two)
	p = packer{limit: 1 << 20}
	p.value(two, 0)
	if p.tooBig || len(p.b) < 1<<16 {
		t.Fatalf("width 2 packed %d bytes, tooBig %v", len(p.b), p.tooBig)
	}
}
