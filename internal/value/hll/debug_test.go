package hll

import "testing"

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name string
		hll  []byte
		want string
	}{
		{"empty", New(), "Z:16384"},
		// Redis 8.0.2's PFDEBUG DECODE of the same value.
		{"redis a b c", redisABC, "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"},
		// One ZERO opcode (short run) and a VAL run of 2.
		{"opcodes", append(append([]byte{}, redisABC[:hdrSize]...), 0x01, 0x85, 0x7f, 0xff), "z:2 v:2,2 Z:16384"},
		// Cut off after its first byte, an XZERO reads its second from the
		// NUL after the string, as in Redis.
		{"half XZERO", append(append([]byte{}, redisABC[:hdrSize]...), 0x85, 0x42), "v:2,2 Z:513"},
	} {
		if got := Decode(tc.hll); got != tc.want {
			t.Errorf("%s: Decode = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestToDenseRegisters(t *testing.T) {
	d, err := ToDense(redisABC)
	if err != nil || !IsDense(d) || !Valid(d) {
		t.Fatalf("ToDense: dense=%v valid=%v err=%v", IsDense(d), Valid(d), err)
	}
	want := map[int]uint8{8436: 1, 12711: 2, 15780: 1}
	for i := range Registers {
		if got := Register(d, i); got != want[i] {
			t.Errorf("register %d = %d, want %d", i, got, want[i])
		}
	}
	if again, _ := ToDense(d); &again[0] != &d[0] {
		t.Error("ToDense of a dense value should return it as is")
	}
}

func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 10 million elements")
	}
	if err := SelfTest(); err != nil {
		t.Fatal(err)
	}
}
