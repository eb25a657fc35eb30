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
