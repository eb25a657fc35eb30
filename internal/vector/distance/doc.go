// Package distance holds the vector kernels every other vector package is
// built on: float32 dot product and squared L2 distance (and normalisation for
// cosine), int8 dot product (for per-vector-scaled int8 codes) and Hamming
// distance of bit vectors.
//
// On amd64 the kernels are hand-written assembly (AVX-512, or AVX2+FMA),
// picked once at start-up from the CPU's features; elsewhere, or when built
// with the purego tag, portable Go versions run. Both are tested to agree.
// This package imports nothing from HotKV.
package distance
