package distance

import (
	"math"
	"math/bits"
)

// Dot returns the dot product of a and b. b must be at least as long as a;
// only len(a) elements are used.
func Dot(a, b []float32) float32 {
	return dot(a, b[:len(a)])
}

// Dot4 returns the dot products of q with each of a, b, c and d (each at
// least as long as q), faster than four calls to Dot: the query is read once.
func Dot4(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	n := len(q)
	return dot4(q, a[:n], b[:n], c[:n], d[:n])
}

// L2Sq returns the squared Euclidean distance between a and b (b at least
// as long as a).
func L2Sq(a, b []float32) float32 {
	return l2sq(a, b[:len(a)])
}

// DotInt8 returns the exact dot product of two int8 vectors (b at least as
// long as a). The sum cannot overflow for vectors shorter than 131072.
func DotInt8(a, b []int8) int32 {
	return dotInt8(a, b[:len(a)])
}

// Hamming returns the number of differing bits between a and b (b at least
// as long as a).
func Hamming(a, b []uint64) int {
	return hamming(a, b[:len(a)])
}

// Norm returns the Euclidean length of v.
func Norm(v []float32) float32 {
	return float32(math.Sqrt(float64(dot(v, v))))
}

// Normalize scales v in place to unit length and returns its original
// length. A zero vector is left as it is (and 0 returned), so that cosine
// distances against it come out as 1, not NaN.
func Normalize(v []float32) float32 {
	n := Norm(v)
	if n == 0 || math.IsInf(float64(n), 0) || math.IsNaN(float64(n)) {
		return n
	}
	inv := 1 / n
	for i := range v {
		v[i] *= inv
	}
	return n
}

// Cosine returns the cosine distance 1 - cos(a, b) of two vectors that need
// not be normalised; 1 if either is zero.
func Cosine(a, b []float32) float32 {
	b = b[:len(a)]
	na, nb := dot(a, a), dot(b, b)
	if na == 0 || nb == 0 {
		return 1
	}
	return 1 - dot(a, b)/float32(math.Sqrt(float64(na)*float64(nb)))
}

// The portable kernels. Four independent accumulators let the CPU overlap
// the additions; the assembly versions sum in a different order, so float
// results agree only to rounding.

func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 4 {
		x, y := a[:4:4], b[:4:4]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		a, b = a[4:], b[4:]
	}
	for i := range a {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dot4Generic(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	return dotGeneric(q, a), dotGeneric(q, b), dotGeneric(q, c), dotGeneric(q, d)
}

func l2sqGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 4 {
		x, y := a[:4:4], b[:4:4]
		d0, d1, d2, d3 := x[0]-y[0], x[1]-y[1], x[2]-y[2], x[3]-y[3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
		a, b = a[4:], b[4:]
	}
	for i := range a {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

func dotInt8Generic(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	for len(a) >= 4 {
		x, y := a[:4:4], b[:4:4]
		s0 += int32(x[0]) * int32(y[0])
		s1 += int32(x[1]) * int32(y[1])
		s2 += int32(x[2]) * int32(y[2])
		s3 += int32(x[3]) * int32(y[3])
		a, b = a[4:], b[4:]
	}
	for i := range a {
		s0 += int32(a[i]) * int32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func hammingGeneric(a, b []uint64) int {
	b = b[:len(a)]
	n := 0
	for i := range a {
		n += bits.OnesCount64(a[i] ^ b[i])
	}
	return n
}
