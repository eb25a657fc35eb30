package distance

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var sinkF float32
var sinkI int

// Benchmarks report ns per call for each kernel tier at the dimensions that
// matter (GloVe's 100, OpenAI ada-002's 1536).

func BenchmarkDot(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range benchDims() {
		x, y := randFloats(r, n), randFloats(r, n)
		for name, k := range floatKernels() {
			b.Run(fmt.Sprintf("dim=%d/%s", n, name), func(b *testing.B) {
				for b.Loop() {
					sinkF += k.dot(x, y)
				}
			})
		}
	}
}

func BenchmarkL2Sq(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range benchDims() {
		x, y := randFloats(r, n), randFloats(r, n)
		for name, k := range floatKernels() {
			b.Run(fmt.Sprintf("dim=%d/%s", n, name), func(b *testing.B) {
				for b.Loop() {
					sinkF += k.l2sq(x, y)
				}
			})
		}
	}
}

func BenchmarkDotInt8(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range benchDims() {
		x, y := make([]int8, n), make([]int8, n)
		for i := range x {
			x[i], y[i] = int8(r.IntN(255)-127), int8(r.IntN(255)-127)
		}
		for name, k := range int8Kernels() {
			b.Run(fmt.Sprintf("dim=%d/%s", n, name), func(b *testing.B) {
				for b.Loop() {
					sinkI += int(k(x, y))
				}
			})
		}
	}
}

func BenchmarkHamming(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range benchDims() {
		words := (n + 63) / 64
		x, y := make([]uint64, words), make([]uint64, words)
		for i := range x {
			x[i], y[i] = r.Uint64(), r.Uint64()
		}
		for name, k := range hammingKernels() {
			b.Run(fmt.Sprintf("dim=%d/%s", n, name), func(b *testing.B) {
				for b.Loop() {
					sinkI += k(x, y)
				}
			})
		}
	}
}
