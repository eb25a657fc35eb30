package quant

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hotkv/hotkv/internal/vector/distance"
)

func randUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	distance.Normalize(v)
	return v
}

func encode(f Format, v []float32) []uint64 {
	c := make([]uint64, f.Words())
	f.Encode(c, v)
	return c
}

func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		kind       Kind
		dim, bytes int
	}{
		{F32, 1, 8}, {F32, 2, 8}, {F32, 3, 16}, {F32, 100, 400}, {F32, 1536, 6144},
		{Q8, 1, 16}, {Q8, 8, 16}, {Q8, 9, 24}, {Q8, 100, 112}, {Q8, 1536, 1544},
		{Bin, 1, 8}, {Bin, 64, 8}, {Bin, 65, 16}, {Bin, 1536, 192},
	} {
		if got := NewFormat(tc.kind, tc.dim).Bytes(); got != tc.bytes {
			t.Errorf("%v dim %d: %d bytes, want %d", tc.kind, tc.dim, got, tc.bytes)
		}
	}
	if F32.String() != "f32" || Q8.String() != "int8" || Bin.String() != "bin" {
		t.Fatal("kind names differ from Redis's VINFO quant-type")
	}
}

func TestF32Exact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, dim := range []int{1, 3, 100, 101} {
		f := NewFormat(F32, dim)
		a, b := randUnit(r, dim), randUnit(r, dim)
		ca, cb := encode(f, a), encode(f, b)
		out := make([]float32, dim)
		f.Decode(out, ca)
		for i := range a {
			if out[i] != a[i] {
				t.Fatalf("dim %d: decode differs at %d", dim, i)
			}
		}
		if f.Dot(ca, cb) != distance.Dot(a, b) || f.L2Sq(ca, cb) != distance.L2Sq(a, b) {
			t.Fatalf("dim %d: distances on codes differ from distances on vectors", dim)
		}
		if len(f.Raw(ca)) != dim*4 {
			t.Fatalf("raw length %d", len(f.Raw(ca)))
		}
	}
}

// TestQ8MatchesRedis pins the coding to Redis's quantize_to_q8: scale by
// 127/max|x|, round half away from zero, keep max|x| as the range.
func TestQ8MatchesRedis(t *testing.T) {
	f := NewFormat(Q8, 4)
	c := encode(f, []float32{1, -0.5, 0.25, 0})
	raw := f.Raw(c)
	want := []int8{127, -64, 32, 0}
	for i, w := range want {
		if int8(raw[i]) != w {
			t.Fatalf("q[%d] = %d, want %d", i, int8(raw[i]), w)
		}
	}
	if Range(c) != 1 {
		t.Fatalf("range %v", Range(c))
	}
	out := make([]float32, 4)
	f.Decode(out, c)
	if out[0] != 1 || out[1] != -64.0/127 {
		t.Fatalf("decode %v", out)
	}
	z := encode(f, []float32{0, 0, 0, 0})
	if Range(z) != 0 || f.Dot(z, c) != 0 || f.Dot(z, z) != 0 {
		t.Fatal("zero vector must code to range 0 and dot 0")
	}
}

func TestQ8Accuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, dim := range []int{7, 100, 1536} {
		f := NewFormat(Q8, dim)
		for range 50 {
			a, b := randUnit(r, dim), randUnit(r, dim)
			ca, cb := encode(f, a), encode(f, b)
			out := make([]float32, dim)
			f.Decode(out, ca)
			half := Range(ca) / 127 / 2 * 1.0001
			for i := range a {
				if d := math.Abs(float64(out[i] - a[i])); d > float64(half) {
					t.Fatalf("dim %d: decode error %g > half step %g", dim, d, half)
				}
			}
			// Quantisation noise on a dot product of unit vectors is a
			// small fraction of the step size.
			if e := math.Abs(float64(f.Dot(ca, cb) - distance.Dot(a, b))); e > 0.02 {
				t.Fatalf("dim %d: dot error %g", dim, e)
			}
			if e := math.Abs(float64(f.L2Sq(ca, cb) - distance.L2Sq(a, b))); e > 0.04 {
				t.Fatalf("dim %d: l2 error %g", dim, e)
			}
			if e := math.Abs(float64(f.Dot(ca, ca) - 1)); e > 0.02 {
				t.Fatalf("dim %d: self dot %g", dim, f.Dot(ca, ca))
			}
		}
	}
}

func TestBin(t *testing.T) {
	f := NewFormat(Bin, 70)
	v := make([]float32, 70)
	for i := range v {
		v[i] = -1
	}
	v[0], v[63], v[64], v[69] = 1, 2, 0.1, 3
	c := encode(f, v)
	if c[0] != 1|1<<63 || c[1] != 1|1<<5 {
		t.Fatalf("bits %x %x", c[0], c[1])
	}
	out := make([]float32, 70)
	f.Decode(out, c)
	if out[0] != 1 || out[1] != -1 || out[69] != 1 {
		t.Fatalf("decode %v", out[:3])
	}
	neg := make([]float32, 70)
	for i := range neg {
		neg[i] = -v[i]
	}
	cn := encode(f, neg)
	if f.Dot(c, c) != 1 || f.Dot(c, cn) != -1 {
		t.Fatalf("bin dot: self %v, opposite %v", f.Dot(c, c), f.Dot(c, cn))
	}
	// Redis's BIN distance is hamming*2/dim; 1 - Dot must equal it.
	w := make([]float32, 70)
	copy(w, v)
	w[1], w[2] = 1, 1
	cw := encode(f, w)
	if got := 1 - f.Dot(c, cw); math.Abs(float64(got)-2.0*2/70) > 1e-6 {
		t.Fatalf("bin distance %v", got)
	}
	if len(f.Raw(c)) != 9 {
		t.Fatalf("raw bytes %d", len(f.Raw(c)))
	}
}
