package distance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// lengths covers every tail length of every kernel's unrolled loops plus
// the dimensions that matter in practice.
func lengths() []int {
	var ls []int
	for n := 0; n <= 70; n++ {
		ls = append(ls, n)
	}
	return append(ls, 100, 127, 128, 129, 255, 300, 768, 1536, 1537)
}

func randFloats(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// within checks got against an exact float64 reference, allowing for
// float32 rounding in any summation order: the bound scales with the sum of
// absolute terms, not with the (possibly cancelling) result.
func within(t *testing.T, what string, n int, got float32, exact, absSum float64) {
	t.Helper()
	tol := 1e-6*absSum + 1e-6
	if math.Abs(float64(got)-exact) > tol {
		t.Fatalf("%s n=%d: got %v, want %v (tol %g)", what, n, got, exact, tol)
	}
}

func refDot(a, b []float32) (exact, absSum float64) {
	for i := range a {
		p := float64(a[i]) * float64(b[i])
		exact += p
		absSum += math.Abs(p)
	}
	return
}

func refL2(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return s
}

// TestFloatKernels compares every float kernel available on this CPU with
// a float64 reference, on unaligned slices (offset 1) as well as aligned.
func TestFloatKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for name, k := range floatKernels() {
		for _, n := range lengths() {
			for off := 0; off < 2; off++ {
				a := randFloats(r, n+off)[off:]
				b := randFloats(r, n+off)[off:]
				exact, absSum := refDot(a, b)
				within(t, name+" dot", n, k.dot(a, b), exact, absSum)
				l2 := refL2(a, b)
				within(t, name+" l2sq", n, k.l2sq(a, b), l2, l2)
			}
		}
	}
}

func TestDot4Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for name, k := range dot4Kernels() {
		for _, n := range lengths() {
			q := randFloats(r, n+1)[1:]
			vs := [4][]float32{}
			for i := range vs {
				// Poison past the end: a kernel reading beyond n changes
				// the result.
				v := randFloats(r, n+17)
				for j := n; j < len(v); j++ {
					v[j] = float32(math.NaN())
				}
				vs[i] = v[:n]
			}
			got := [4]float32{}
			got[0], got[1], got[2], got[3] = k(q, vs[0], vs[1], vs[2], vs[3])
			for i := range vs {
				exact, absSum := refDot(q, vs[i])
				within(t, name+" dot4", n, got[i], exact, absSum)
			}
		}
	}
}

// TestInt8Kernels checks exact agreement, including the extreme -128 and
// 127 values a caller may pass even though Q8 codes stay within ±127.
func TestInt8Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for name, k := range int8Kernels() {
		for _, n := range lengths() {
			a, b := make([]int8, n+1)[1:], make([]int8, n+1)[1:]
			for i := range a {
				a[i], b[i] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
			}
			if got, want := k(a, b), dotInt8Ref(a, b); got != want {
				t.Fatalf("%s n=%d: got %d, want %d", name, n, got, want)
			}
			for i := range a {
				a[i], b[i] = -128, -128
			}
			if got, want := k(a, b), int32(n*16384); got != want {
				t.Fatalf("%s n=%d all -128: got %d, want %d", name, n, got, want)
			}
		}
	}
}

func dotInt8Ref(a, b []int8) int32 {
	var s int32
	for i := range a {
		s += int32(a[i]) * int32(b[i])
	}
	return s
}

func TestHammingKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for name, k := range hammingKernels() {
		for _, n := range lengths() {
			a, b := make([]uint64, n+1)[1:], make([]uint64, n+1)[1:]
			want := 0
			for i := range a {
				a[i], b[i] = r.Uint64(), r.Uint64()
				for x := a[i] ^ b[i]; x != 0; x &= x - 1 {
					want++
				}
			}
			if got := k(a, b); got != want {
				t.Fatalf("%s n=%d: got %d, want %d", name, n, got, want)
			}
			if got := k(a, a); got != 0 {
				t.Fatalf("%s n=%d: distance to itself %d", name, n, got)
			}
		}
	}
}

// TestKernelsDoNotReadPastLength gives each kernel a slice whose backing
// array continues with poison values: a kernel reading beyond len would
// change the result.
func TestKernelsDoNotReadPastLength(t *testing.T) {
	for _, n := range lengths() {
		a := make([]float32, n+64)
		b := make([]float32, n+64)
		for i := range a {
			a[i], b[i] = 1, 1
			if i >= n {
				a[i], b[i] = float32(math.NaN()), 1e30
			}
		}
		for name, k := range floatKernels() {
			if got := k.dot(a[:n], b[:n]); got != float32(n) {
				t.Fatalf("%s dot n=%d read past the end: %v", name, n, got)
			}
			if got := k.l2sq(a[:n], b[:n]); got != 0 {
				t.Fatalf("%s l2sq n=%d read past the end: %v", name, n, got)
			}
		}
		ia, ib := make([]int8, n+64), make([]int8, n+64)
		for i := range ia {
			ia[i], ib[i] = 1, 1
			if i >= n {
				ia[i], ib[i] = 127, 127
			}
		}
		for name, k := range int8Kernels() {
			if got := k(ia[:n], ib[:n]); got != int32(n) {
				t.Fatalf("%s n=%d read past the end: %d", name, n, got)
			}
		}
		ha, hb := make([]uint64, n+16), make([]uint64, n+16)
		for i := n; i < len(ha); i++ {
			ha[i] = ^uint64(0)
		}
		for name, k := range hammingKernels() {
			if got := k(ha[:n], hb[:n]); got != 0 {
				t.Fatalf("%s n=%d read past the end: %d", name, n, got)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	v := []float32{3, 4}
	if n := Normalize(v); n != 5 || v[0] != 0.6 || v[1] != 0.8 {
		t.Fatalf("Normalize: norm %v vector %v", n, v)
	}
	z := []float32{0, 0, 0}
	if n := Normalize(z); n != 0 || z[0] != 0 {
		t.Fatalf("zero vector: norm %v vector %v", n, z)
	}
	if d := Cosine([]float32{1, 0}, []float32{0, 0}); d != 1 {
		t.Fatalf("cosine against zero vector = %v, want 1", d)
	}
	if d := Cosine([]float32{1, 1}, []float32{-2, -2}); math.Abs(float64(d)-2) > 1e-6 {
		t.Fatalf("cosine of opposite vectors = %v, want 2", d)
	}
}

func TestPublicAPIUsesPrefixOfB(t *testing.T) {
	a := []float32{1, 2}
	b := []float32{3, 4, 100}
	if got := Dot(a, b); got != 11 {
		t.Fatalf("Dot = %v", got)
	}
	if got := L2Sq(a, b); got != 8 {
		t.Fatalf("L2Sq = %v", got)
	}
}

func BenchmarkDot4(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range benchDims() {
		q, v0, v1, v2, v3 := randFloats(r, n), randFloats(r, n), randFloats(r, n), randFloats(r, n), randFloats(r, n)
		for name, k := range dot4Kernels() {
			b.Run(fmt.Sprintf("dim=%d/%s", n, name), func(b *testing.B) {
				for b.Loop() {
					x, y, z, w := k(q, v0, v1, v2, v3)
					sinkF += x + y + z + w
				}
			})
		}
	}
}

type floatKernel struct {
	dot, l2sq func(a, b []float32) float32
}

func benchDims() []int { return []int{100, 1536} }
