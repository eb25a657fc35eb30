package resp

import (
	"math"
	"testing"
)

// Expected strings are redis8-server's ZSCORE replies for the same doubles.
func TestAppendFloatMatchesRedis(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "-0"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
		{1, "1"}, {-1.5, "-1.5"}, {0.1, "0.1"}, {1e16, "10000000000000000"}, {1e18, "1000000000000000000"},
		{1e19, "1e+19"}, {123456789012345678901, "123456789012345680000"}, {1e-5, "0.00001"},
		{1e-6, "0.000001"}, {1e-7, "1e-7"}, {1.234e-5, "1.234e-5"}, {0.000123456789, "1.23456789e-4"},
		{1234567.125, "1234567.125"}, {1e105, "1e+105"}, {5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"}, {-12345678912345678e10, "-1.2345678912345677e+26"},
		{3457321.5810292433, "3.4573215810292433e+6"}, {-764162.5926579, "-7.641625926579e+5"},
		{8.232510012209223e-05, "8.232510012209223e-5"}, {1.1426209312048741e-07, "1.1426209312048741e-7"},
		// Grisu2 does not always find the shortest digits, and Redis answers its digits.
		{17.87999939407465, "17.879999394074652"}, {37.96349009630325, "37.963490096303254"},
		{5.453770038258688e+20, "545377003825868830000"}, {8.710531292337911e+17, "871053129233791104"},
	} {
		if got := string(AppendFloat(nil, tc.f)); got != tc.want {
			t.Errorf("AppendFloat(%v) = %q, Redis says %q", tc.f, got, tc.want)
		}
	}
}

// AppendDtoa is fpconv_dtoa, without d2string's integer form: what DEBUG
// DIGEST hashes of a score (tests/admin/debug_test.go compares digests with Redis).
func TestAppendDtoa(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{3, "3"}, {100, "100"}, {1e8, "1e+8"}, {12345678, "12345678"}, {1e18, "1e+18"}, {-2.5e7, "-25000000"}, {1.5e9, "1.5e+9"},
		{8.710531292337911e+17, "871053129233791100"}, {0.1, "0.1"}, {math.Copysign(0, -1), "-0"}, {math.Inf(-1), "-inf"},
	} {
		if got := string(AppendDtoa(nil, tc.f)); got != tc.want {
			t.Errorf("AppendDtoa(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestCachedPowers(t *testing.T) {
	powersOnce.Do(initPowers)
	// Values of the published Grisu table.
	for k, want := range map[int]diyFp{
		-348: {0xfa8fd5a0081c0288, -1220}, -4: {0xd1b71758e219652c, -77}, 340: {0xaf87023b9bf0ee6b, 1066},
	} {
		if got := powers[(k-firstPower)/powerStep]; got != want {
			t.Errorf("10^%d = %#x*2^%d, want %#x*2^%d", k, got.f, got.e, want.f, want.e)
		}
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	buf := make([]byte, 0, 32)
	for i := range b.N {
		buf = AppendFloat(buf[:0], float64(i)*1.1234567+0.3)
	}
}
