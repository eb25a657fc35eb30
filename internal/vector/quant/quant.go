// Package quant defines how an index stores its vectors: float32 (exact),
// int8 with a per-vector scale (symmetric, as Redis's Q8), or one sign bit
// per dimension (as Redis's BIN), and computes distances directly on those
// codes. Every code is a whole number of uint64 words so that codes can sit
// back to back in pointer-free slabs, 8-byte aligned.
//
// It imports only the distance kernels.
package quant

import (
	"math"
	"unsafe"

	"github.com/hotkv/hotkv/internal/vector/distance"
)

// Kind is a vector coding.
type Kind uint8

const (
	// F32 stores the float32 vector as is.
	F32 Kind = iota
	// Q8 stores round(x*127/max|x|) per dimension as int8 plus max|x|
	// (the "range") per vector.
	Q8
	// Bin stores one bit per dimension, set when x > 0.
	Bin
)

// String is the name Redis uses for the coding (VINFO quant-type).
func (k Kind) String() string {
	switch k {
	case F32:
		return "f32"
	case Q8:
		return "int8"
	case Bin:
		return "bin"
	}
	return "unknown"
}

// Format is the coding of one index's vectors: a Kind at a dimension.
type Format struct {
	kind  Kind
	dim   int
	words int
}

// q8Header is the word in front of Q8 bytes: the range (max|x|) in the low
// half and the squared norm of the decoded vector in the high half, which
// L2 needs.
const q8Header = 1

// NewFormat returns the Format of kind at dim dimensions.
func NewFormat(kind Kind, dim int) Format {
	f := Format{kind: kind, dim: dim}
	switch kind {
	case F32:
		f.words = (dim*4 + 7) / 8
	case Q8:
		f.words = q8Header + (dim+7)/8
	case Bin:
		f.words = (dim + 63) / 64
	}
	return f
}

// Kind returns the coding.
func (f Format) Kind() Kind { return f.kind }

// Dim returns the dimension.
func (f Format) Dim() int { return f.dim }

// Words returns the size of one code in uint64 words.
func (f Format) Words() int { return f.words }

// Bytes returns the size of one code in bytes.
func (f Format) Bytes() int { return f.words * 8 }

// Encode writes v's code into dst, which must hold Words() words; v must
// have Dim() elements.
func (f Format) Encode(dst []uint64, v []float32) {
	dst = dst[:f.words]
	v = v[:f.dim]
	clear(dst)
	switch f.kind {
	case F32:
		copy(AsF32(dst, f.dim), v)
	case Q8:
		var maxAbs float32
		for _, x := range v {
			maxAbs = max(maxAbs, x, -x)
		}
		q := asI8(dst[q8Header:], f.dim)
		var sq int64
		if maxAbs > 0 && !math.IsInf(float64(maxAbs), 0) {
			scale := 127 / maxAbs
			for i, x := range v {
				c := int8(math.Round(float64(x * scale)))
				q[i] = c
				sq += int64(c) * int64(c)
			}
		} else {
			maxAbs = 0
		}
		step := maxAbs / 127
		dst[0] = uint64(math.Float32bits(maxAbs)) | uint64(math.Float32bits(float32(sq)*step*step))<<32
	case Bin:
		for i, x := range v {
			if x > 0 {
				dst[i/64] |= 1 << (i % 64)
			}
		}
	}
}

// Decode writes the vector a code stands for into dst (Dim() elements).
// Bin decodes to ±1 per dimension, as Redis's VEMB does.
func (f Format) Decode(dst []float32, code []uint64) {
	dst = dst[:f.dim]
	switch f.kind {
	case F32:
		copy(dst, AsF32(code, f.dim))
	case Q8:
		r := Range(code)
		for i, c := range asI8(code[q8Header:], f.dim) {
			dst[i] = float32(c) * r / 127
		}
	case Bin:
		for i := range dst {
			dst[i] = -1
			if code[i/64]&(1<<(i%64)) != 0 {
				dst[i] = 1
			}
		}
	}
}

// Dot returns the dot product of the vectors two codes stand for. For Bin,
// whose codes carry no length, it is the cosine estimate 1 - 2·hamming/dim
// of unit vectors (Redis's BIN distance is one minus this).
func (f Format) Dot(a, b []uint64) float32 {
	switch f.kind {
	case F32:
		return distance.Dot(AsF32(a, f.dim), AsF32(b, f.dim))
	case Q8:
		d := distance.DotInt8(asI8(a[q8Header:], f.dim), asI8(b[q8Header:], f.dim))
		return float32(d) * (Range(a) / 127) * (Range(b) / 127)
	default:
		return 1 - float32(2*distance.Hamming(a[:f.words], b[:f.words]))/float32(f.dim)
	}
}

// L2Sq returns the squared Euclidean distance between the vectors two codes
// stand for (for Bin, the estimate for unit vectors, 4·hamming/dim).
func (f Format) L2Sq(a, b []uint64) float32 {
	switch f.kind {
	case F32:
		return distance.L2Sq(AsF32(a, f.dim), AsF32(b, f.dim))
	case Q8:
		d := sqNorm(a) + sqNorm(b) - 2*f.Dot(a, b)
		return max(d, 0)
	default:
		return float32(4*distance.Hamming(a[:f.words], b[:f.words])) / float32(f.dim)
	}
}

// Range returns a Q8 code's range, max|x| of the encoded vector.
func Range(code []uint64) float32 { return math.Float32frombits(uint32(code[0])) }

func sqNorm(code []uint64) float32 { return math.Float32frombits(uint32(code[0] >> 32)) }

// Raw returns the bytes of a code's vector part, as Redis's VEMB RAW
// reports them: little-endian float32s, int8s, or packed bits (only the
// bytes the dimension needs).
func (f Format) Raw(code []uint64) []byte {
	all := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(code))), len(code)*8)
	switch f.kind {
	case F32:
		return all[:f.dim*4]
	case Q8:
		return all[q8Header*8 : q8Header*8+f.dim]
	default:
		return all[:(f.dim+7)/8]
	}
}

// AsF32 views the first n float32s of a word slice (an F32 code).
func AsF32(w []uint64, n int) []float32 {
	if (n*4+7)/8 > len(w) {
		panic("quant: code shorter than its dimension")
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(w))), n)
}

func asI8(w []uint64, n int) []int8 {
	if (n+7)/8 > len(w) {
		panic("quant: code shorter than its dimension")
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(w))), n)
}
