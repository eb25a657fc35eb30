//go:build amd64 && !purego

package distance

import "golang.org/x/sys/cpu"

// Kernel tiers, best first. The tier is fixed at start-up.
const (
	tierGeneric = iota
	tierAVX2
	tierAVX512
)

var (
	tier = detect()
	// VPOPCNTQ is a separate AVX-512 extension; without it the Go loop (which
	// compiles to scalar POPCNT) is as fast as anything AVX2 offers for the
	// short bit vectors used here.
	hasVPOPCNT = tier == tierAVX512 && cpu.X86.HasAVX512VPOPCNTDQ
)

func detect() int {
	x := cpu.X86
	switch {
	case x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ && x.HasFMA:
		return tierAVX512
	case x.HasAVX2 && x.HasFMA:
		return tierAVX2
	}
	return tierGeneric
}

// Impl names the kernels in use.
func Impl() string {
	switch tier {
	case tierAVX512:
		if hasVPOPCNT {
			return "avx512+vpopcntdq"
		}
		return "avx512"
	case tierAVX2:
		return "avx2+fma"
	}
	return "generic"
}

//go:noescape
func dotAVX2(a, b []float32) float32

//go:noescape
func dotAVX512(a, b []float32) float32

//go:noescape
func l2sqAVX2(a, b []float32) float32

//go:noescape
func l2sqAVX512(a, b []float32) float32

//go:noescape
func dotInt8AVX2(a, b []int8) int32

//go:noescape
func dotInt8AVX512(a, b []int8) int32

//go:noescape
func hammingAVX512(a, b []uint64) int

//go:noescape
func dot4AVX512(q *float32, n int, a, b, c, d *float32) (ra, rb, rc, rd float32)

//go:noescape
func dot4AVX2(q *float32, n int, a, b, c, d *float32) (ra, rb, rc, rd float32)

func dot4(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	if len(q) == 0 {
		return 0, 0, 0, 0
	}
	switch tier {
	case tierAVX512:
		return dot4AVX512(&q[0], len(q), &a[0], &b[0], &c[0], &d[0])
	case tierAVX2:
		return dot4AVX2(&q[0], len(q), &a[0], &b[0], &c[0], &d[0])
	}
	return dot4Generic(q, a, b, c, d)
}

func dot(a, b []float32) float32 {
	switch tier {
	case tierAVX512:
		return dotAVX512(a, b)
	case tierAVX2:
		return dotAVX2(a, b)
	}
	return dotGeneric(a, b)
}

func l2sq(a, b []float32) float32 {
	switch tier {
	case tierAVX512:
		return l2sqAVX512(a, b)
	case tierAVX2:
		return l2sqAVX2(a, b)
	}
	return l2sqGeneric(a, b)
}

func dotInt8(a, b []int8) int32 {
	switch tier {
	case tierAVX512:
		return dotInt8AVX512(a, b)
	case tierAVX2:
		return dotInt8AVX2(a, b)
	}
	return dotInt8Generic(a, b)
}

func hamming(a, b []uint64) int {
	if hasVPOPCNT {
		return hammingAVX512(a, b)
	}
	return hammingGeneric(a, b)
}
