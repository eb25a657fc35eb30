// Package hll implements HyperLogLog exactly as Redis stores it: the same
// 16-byte "HYLL" header with a cached cardinality, the same sparse and dense
// register encodings, the same hash (MurmurHash64A, seed 0xadc83b19) and the
// same estimator (Ertl's improved raw estimator). A value written by HotKV is
// byte-for-byte what Redis writes for the same commands, and PFCOUNT returns
// the same numbers.
package hll

import (
	"encoding/binary"
	"errors"
	"math"
	"sync/atomic"
)

const (
	p         = 14
	q         = 64 - p
	Registers = 1 << p
	regMax    = 63
	hdrSize   = 16
	denseSize = hdrSize + (Registers*6+7)/8
	encDense  = 0
	encSparse = 1

	zeroMaxLen  = 64
	xzeroMaxLen = 16384
	valMaxValue = 32
	valMaxLen   = 4
)

// sparseMaxBytes is hll-sparse-max-bytes: a sparse HLL that would grow
// past it (header included) becomes dense, as in Redis. The server sets it
// from its configuration; it is process-wide, as in Redis.
var sparseMaxBytes atomic.Int64

func init() { sparseMaxBytes.Store(3000) }

// SetSparseMaxBytes sets hll-sparse-max-bytes (0 to 2^63-1).
func SetSparseMaxBytes(n int64) { sparseMaxBytes.Store(n) }

// ErrCorrupt is a value with the HLL header whose registers do not decode.
var ErrCorrupt = errors.New("INVALIDOBJ Corrupted HLL object detected")

// New returns an empty HLL: sparse, one XZERO opcode covering every register.
func New() []byte {
	b := make([]byte, hdrSize+2)
	copy(b, "HYLL")
	b[4] = encSparse
	l := xzeroMaxLen - 1
	b[hdrSize] = byte(l>>8) | 0x40
	b[hdrSize+1] = byte(l)
	return b
}

// Valid reports whether b is an HLL value (what Redis checks before use).
func Valid(b []byte) bool {
	if len(b) < hdrSize || string(b[:4]) != "HYLL" || b[4] > encSparse {
		return false
	}
	return b[4] != encDense || len(b) == denseSize
}

// IsDense reports whether b uses the dense encoding.
func IsDense(b []byte) bool { return b[4] == encDense }

func invalidate(b []byte) { b[15] |= 1 << 7 }

func murmur64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ (uint64(len(key)) * m)
	n := len(key) &^ 7
	for i := 0; i < n; i += 8 {
		k := binary.LittleEndian.Uint64(key[i:])
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	tail := key[n:]
	switch len(tail) {
	case 7:
		h ^= uint64(tail[6]) << 48
		fallthrough
	case 6:
		h ^= uint64(tail[5]) << 40
		fallthrough
	case 5:
		h ^= uint64(tail[4]) << 32
		fallthrough
	case 4:
		h ^= uint64(tail[3]) << 24
		fallthrough
	case 3:
		h ^= uint64(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint64(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint64(tail[0])
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// patLen returns the register an element maps to and the length of its
// "000..1" pattern.
func patLen(ele []byte) (int, uint8) {
	h := murmur64A(ele, 0xadc83b19)
	index := int(h & (Registers - 1))
	h >>= p
	h |= 1 << q
	n := uint8(1)
	for h&1 == 0 {
		n++
		h >>= 1
	}
	return index, n
}

func denseGet(regs []byte, i int) uint8 {
	byteI := i * 6 / 8
	fb := uint(i * 6 & 7)
	v := uint(regs[byteI]) >> fb
	if byteI+1 < len(regs) {
		v |= uint(regs[byteI+1]) << (8 - fb)
	}
	return uint8(v & regMax)
}

func denseSet(regs []byte, i int, val uint8) {
	byteI := i * 6 / 8
	fb := uint(i * 6 & 7)
	v := uint(val)
	regs[byteI] &^= byte(regMax << fb)
	regs[byteI] |= byte(v << fb)
	if byteI+1 < len(regs) {
		regs[byteI+1] &^= byte(regMax >> (8 - fb))
		regs[byteI+1] |= byte(v >> (8 - fb))
	}
}

// Add adds ele to the HLL in *b (which may be re-encoded) and reports
// whether a register changed.
func Add(b *[]byte, ele []byte) (bool, error) {
	index, count := patLen(ele)
	return set(b, index, count)
}

func set(b *[]byte, index int, count uint8) (bool, error) {
	if IsDense(*b) {
		regs := (*b)[hdrSize:]
		if denseGet(regs, index) < count {
			denseSet(regs, index, count)
			invalidate(*b)
			return true, nil
		}
		return false, nil
	}
	return sparseSet(b, index, count)
}

// opcode decoding of the sparse encoding
func isZero(c byte) bool  { return c&0xc0 == 0 }
func isXZero(c byte) bool { return c&0xc0 == 0x40 }
func zeroLen(c byte) int  { return int(c&0x3f) + 1 }

// xzeroLen is the span of the XZERO opcode at s[i]. Of one cut off after
// its first byte, Redis reads the second from the NUL that ends every sds
// string: 0.
func xzeroLen(s []byte, i int) int {
	var d byte
	if i+1 < len(s) {
		d = s[i+1]
	}
	return (int(s[i]&0x3f)<<8 | int(d)) + 1
}
func valValue(c byte) uint8 { return (c>>2)&0x1f + 1 }
func valLen(c byte) int     { return int(c&3) + 1 }
func val(v uint8, n int) byte {
	return byte(int(v-1)<<2|(n-1)) | 0x80
}

func appendZeros(seq []byte, n int) []byte {
	if n > zeroMaxLen {
		return append(seq, byte((n-1)>>8)|0x40, byte(n-1))
	}
	return append(seq, byte(n-1))
}

// sparseSet follows Redis's hllSparseSet step by step, so the resulting bytes
// are the ones Redis would produce.
func sparseSet(b *[]byte, index int, count uint8) (bool, error) {
	if count > valMaxValue {
		return promoteAndSet(b, index, count)
	}
	s := *b
	pos, end := hdrSize, len(s)
	first, span, prev := 0, 0, -1
	for pos < end {
		oplen := 1
		switch c := s[pos]; {
		case isZero(c):
			span = zeroLen(c)
		case !isXZero(c):
			span = valLen(c)
		default:
			span = xzeroLen(s, pos)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = pos
		pos += oplen
		first += span
	}
	if span == 0 || pos >= end {
		return false, ErrCorrupt
	}
	c := s[pos]
	zero, xzero := isZero(c), isXZero(c)
	var runlen int
	switch {
	case zero:
		runlen = zeroLen(c)
	case xzero:
		runlen = xzeroLen(s, pos)
	default:
		runlen = valLen(c)
	}
	updated := false
	if !zero && !xzero {
		if valValue(c) >= count {
			return false, nil
		}
		if runlen == 1 {
			s[pos] = val(count, 1)
			updated = true
		}
	}
	if !updated && zero && runlen == 1 {
		s[pos] = val(count, 1)
		updated = true
	}
	if !updated {
		last := first + span - 1
		seq := make([]byte, 0, 5)
		if zero || xzero {
			if index != first {
				seq = appendZeros(seq, index-first)
			}
			seq = append(seq, val(count, 1))
			if index != last {
				seq = appendZeros(seq, last-index)
			}
		} else {
			cur := valValue(c)
			if index != first {
				seq = append(seq, val(cur, index-first))
			}
			seq = append(seq, val(count, 1))
			if index != last {
				seq = append(seq, val(cur, last-index))
			}
		}
		oldlen := 1
		if xzero {
			oldlen = 2
		}
		delta := len(seq) - oldlen
		if delta > 0 && int64(len(s)+delta) > sparseMaxBytes.Load() {
			return promoteAndSet(b, index, count)
		}
		ns := make([]byte, 0, len(s)+len(seq))
		ns = append(ns, s[:pos]...)
		ns = append(ns, seq...)
		if pos+oldlen < len(s) {
			ns = append(ns, s[pos+oldlen:]...)
		}
		// Redis's string grows by delta: when the XZERO was cut off
		// after its first byte, the sequence's last byte lands past the
		// end.
		s = ns[:len(s)+delta]
	}
	// Merge adjacent VAL opcodes with equal values, scanning up to five
	// opcodes from the one before the change.
	i := prev
	if i < 0 {
		i = hdrSize
	}
	for scan := 5; i < len(s) && scan > 0; {
		scan--
		switch c := s[i]; {
		case isXZero(c):
			i += 2
			continue
		case isZero(c):
			i++
			continue
		}
		if i+1 < len(s) && s[i+1]&0x80 != 0 {
			v1, v2 := valValue(s[i]), valValue(s[i+1])
			if n := valLen(s[i]) + valLen(s[i+1]); v1 == v2 && n <= valMaxLen {
				s[i+1] = val(v1, n)
				s = append(s[:i], s[i+1:]...)
				continue
			}
		}
		i++
	}
	invalidate(s)
	*b = s
	return true, nil
}

func promoteAndSet(b *[]byte, index int, count uint8) (bool, error) {
	d, err := toDense(*b)
	if err != nil {
		return false, err
	}
	denseSet(d[hdrSize:], index, count)
	invalidate(d)
	*b = d
	return true, nil
}

// toDense converts a sparse HLL to a new dense one (dense input is returned
// as is).
func toDense(s []byte) ([]byte, error) {
	if IsDense(s) {
		return s, nil
	}
	d := make([]byte, denseSize)
	copy(d, s[:hdrSize])
	d[4] = encDense
	regs := d[hdrSize:]
	idx := 0
	err := sparseWalk(s, func(v uint8, n int) bool {
		if v != 0 {
			for j := 0; j < n; j++ {
				denseSet(regs, idx+j, v)
			}
		}
		idx += n
		return true
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// sparseWalk calls fn for every run (value, length) and checks that the runs
// cover exactly the registers.
func sparseWalk(s []byte, fn func(v uint8, n int) bool) error {
	idx := 0
	for i := hdrSize; i < len(s); {
		c := s[i]
		var v uint8
		var n int
		switch {
		case isZero(c):
			n = zeroLen(c)
			i++
		case isXZero(c):
			n = xzeroLen(s, i)
			i += 2
		default:
			v, n = valValue(c), valLen(c)
			i++
		}
		if idx+n > Registers {
			return ErrCorrupt
		}
		fn(v, n)
		idx += n
	}
	if idx != Registers {
		return ErrCorrupt
	}
	return nil
}

// MergeInto raises regs[i] to the register values of the HLL s.
func MergeInto(regs *[Registers]uint8, s []byte) error {
	if IsDense(s) {
		r := s[hdrSize:]
		for i := range regs {
			if v := denseGet(r, i); v > regs[i] {
				regs[i] = v
			}
		}
		return nil
	}
	idx := 0
	return sparseWalk(s, func(v uint8, n int) bool {
		for j := 0; j < n; j++ {
			if v > regs[idx+j] {
				regs[idx+j] = v
			}
		}
		idx += n
		return true
	})
}

// SetRegisters raises the registers of *b to regs, as PFMERGE writes its
// result: dense when dense is set (some input was dense), else sparse,
// promoting if the sparse form grows too large.
func SetRegisters(b *[]byte, regs *[Registers]uint8, dense bool) error {
	if dense {
		d, err := toDense(*b)
		if err != nil {
			return err
		}
		*b = d
	}
	for i, v := range regs {
		if v == 0 {
			continue
		}
		if _, err := set(b, i, v); err != nil {
			return err
		}
	}
	invalidate(*b)
	return nil
}

// Count returns the estimated cardinality of s, using and refreshing the
// cached value in its header; refreshed reports that s was modified.
func Count(s []byte) (n uint64, refreshed bool, err error) {
	if s[15]&(1<<7) == 0 {
		return binary.LittleEndian.Uint64(s[8:16]), false, nil
	}
	var histo [64]int
	if IsDense(s) {
		r := s[hdrSize:]
		for i := 0; i < Registers; i++ {
			histo[denseGet(r, i)]++
		}
	} else if err := sparseWalk(s, func(v uint8, n int) bool { histo[v] += n; return true }); err != nil {
		return 0, false, err
	}
	n = estimate(&histo)
	binary.LittleEndian.PutUint64(s[8:16], n)
	return n, true, nil
}

// CountRegisters is the cardinality of a raw register array (PFCOUNT of
// several keys counts their union).
func CountRegisters(regs *[Registers]uint8) uint64 {
	var histo [64]int
	for _, v := range regs {
		histo[v]++
	}
	return estimate(&histo)
}

// estimate is Ertl's improved raw estimator, as Redis's hllCount.
func estimate(histo *[64]int) uint64 {
	m := float64(Registers)
	z := m * tau((m-float64(histo[q+1]))/m)
	for j := q; j >= 1; j-- {
		z += float64(histo[j])
		z *= 0.5
	}
	z += m * sigma(float64(histo[0])/m)
	const alphaInf = 0.721347520444481703680
	return uint64(math.Round(alphaInf * m * m / z))
}

func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zPrime := z
		z += x * y
		y += y
		if zPrime == z {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zPrime := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if zPrime == z {
			return z / 3
		}
	}
}
