//go:build amd64 && !purego

package distance

// The kernel sets this CPU can run, so that every tier is tested, not just
// the one chosen at start-up.

func floatKernels() map[string]floatKernel {
	m := map[string]floatKernel{"generic": {dotGeneric, l2sqGeneric}}
	if tier >= tierAVX2 {
		m["avx2"] = floatKernel{dotAVX2, l2sqAVX2}
	}
	if tier >= tierAVX512 {
		m["avx512"] = floatKernel{dotAVX512, l2sqAVX512}
	}
	return m
}

func int8Kernels() map[string]func(a, b []int8) int32 {
	m := map[string]func(a, b []int8) int32{"generic": dotInt8Generic}
	if tier >= tierAVX2 {
		m["avx2"] = dotInt8AVX2
	}
	if tier >= tierAVX512 {
		m["avx512"] = dotInt8AVX512
	}
	return m
}

func hammingKernels() map[string]func(a, b []uint64) int {
	m := map[string]func(a, b []uint64) int{"generic": hammingGeneric}
	if hasVPOPCNT {
		m["avx512"] = hammingAVX512
	}
	return m
}

func dot4Kernels() map[string]func(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	m := map[string]func(q, a, b, c, d []float32) (float32, float32, float32, float32){"generic": dot4Generic}
	wrap := func(k func(q *float32, n int, a, b, c, d *float32) (float32, float32, float32, float32)) func(q, a, b, c, d []float32) (float32, float32, float32, float32) {
		return func(q, a, b, c, d []float32) (float32, float32, float32, float32) {
			if len(q) == 0 {
				return 0, 0, 0, 0
			}
			return k(&q[0], len(q), &a[0], &b[0], &c[0], &d[0])
		}
	}
	if tier >= tierAVX2 {
		m["avx2"] = wrap(dot4AVX2)
	}
	if tier >= tierAVX512 {
		m["avx512"] = wrap(dot4AVX512)
	}
	return m
}
