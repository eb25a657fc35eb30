//go:build !amd64 || purego

package distance

func floatKernels() map[string]floatKernel {
	return map[string]floatKernel{"generic": {dotGeneric, l2sqGeneric}}
}

func int8Kernels() map[string]func(a, b []int8) int32 {
	return map[string]func(a, b []int8) int32{"generic": dotInt8Generic}
}

func hammingKernels() map[string]func(a, b []uint64) int {
	return map[string]func(a, b []uint64) int{"generic": hammingGeneric}
}

func dot4Kernels() map[string]func(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	return map[string]func(q, a, b, c, d []float32) (float32, float32, float32, float32){"generic": dot4Generic}
}
