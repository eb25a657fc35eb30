package server

import "testing"

// atoi is glibc's, which Redis's numkeys key finders use: what a count
// that is not a plain integer reads as decides which keys COMMAND GETKEYS
// lists.
func TestAtoi(t *testing.T) {
	for in, want := range map[string]int{
		"2": 2, "02": 2, "+2": 2, " 2": 2, "\t-3": -3, "2x": 2, "x": 0, "": 0, "-": 0,
		"4294967298":            2, // strtol's value, cut to an int32
		"2147483648":            -2147483648,
		"99999999999999999999":  -1, // clamped to LONG_MAX
		"-99999999999999999999": 0,  // clamped to LONG_MIN
	} {
		if got := atoi([]byte(in)); got != want {
			t.Errorf("atoi(%q) = %d, want %d", in, got, want)
		}
	}
}

// Every spec in the generated table is well formed.
func TestRedisSpecsWellFormed(t *testing.T) {
	for name, s := range redisSpecs {
		for _, ks := range s.keys {
			if ks.bs.kind == 0 || ks.fk.kind == 0 || ks.flags == 0 {
				t.Errorf("%s: %+v", name, ks)
			}
		}
	}
}
