//go:build !amd64 || purego

package distance

func dot(a, b []float32) float32  { return dotGeneric(a, b) }
func l2sq(a, b []float32) float32 { return l2sqGeneric(a, b) }
func dotInt8(a, b []int8) int32   { return dotInt8Generic(a, b) }
func hamming(a, b []uint64) int   { return hammingGeneric(a, b) }

// Impl names the kernels in use.
func Impl() string { return "generic" }

func dot4(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	return dot4Generic(q, a, b, c, d)
}
