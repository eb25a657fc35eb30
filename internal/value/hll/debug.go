package hll

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// What PFDEBUG and PFSELFTEST look at: the encodings themselves.

// ToDense returns b in the dense encoding (b itself when already dense).
func ToDense(b []byte) ([]byte, error) { return toDense(b) }

// Register returns register i of a dense HLL.
func Register(dense []byte, i int) uint8 { return denseGet(dense[hdrSize:], i) }

// Decode lists a sparse HLL's opcodes as Redis's PFDEBUG DECODE does:
// "z:len" (ZERO), "Z:len" (XZERO) and "v:value,len" (VAL), whether or not
// they cover the registers exactly.
func Decode(s []byte) string {
	var b strings.Builder
	for i := hdrSize; i < len(s); {
		if i > hdrSize {
			b.WriteByte(' ')
		}
		switch c := s[i]; {
		case isZero(c):
			fmt.Fprintf(&b, "z:%d", zeroLen(c))
			i++
		case isXZero(c):
			fmt.Fprintf(&b, "Z:%d", xzeroLen(s, i))
			i += 2
		default:
			fmt.Fprintf(&b, "v:%d,%d", valValue(c), valLen(c))
			i++
		}
	}
	return b.String()
}

// SelfTest is Redis's PFSELFTEST: dense registers keep what is written to
// them without disturbing their neighbours, and from 1 to 10 million distinct
// elements a dense and a sparse HLL agree and stay within six standard errors
// (the sparse one while it is small enough to stay sparse).
func SelfTest() error {
	dense := make([]byte, denseSize)
	copy(dense, "HYLL")
	regs := dense[hdrSize:]
	var want [Registers]uint8
	for range 1000 {
		for i := range want {
			want[i] = uint8(rand.IntN(regMax + 1))
			denseSet(regs, i, want[i])
		}
		for i, w := range want {
			if v := denseGet(regs, i); v != w {
				return fmt.Errorf("TESTFAILED Register %d should be %d but is %d", i, w, v)
			}
		}
	}
	clear(regs)
	invalidate(dense)
	sparse := New()
	relErr := 1.04 / math.Sqrt(Registers)
	seed := rand.Uint64()
	var ele [8]byte
	for j, checkpoint := uint64(1), uint64(1); j <= 10_000_000; j++ {
		v := j ^ seed
		for k := range ele {
			ele[k] = byte(v >> (8 * k))
		}
		if _, err := Add(&dense, ele[:]); err != nil {
			return err
		}
		if _, err := Add(&sparse, ele[:]); err != nil {
			return err
		}
		if j != checkpoint {
			continue
		}
		if j < uint64(sparseMaxBytes.Load()/2) && IsDense(sparse) {
			return fmt.Errorf("TESTFAILED sparse encoding not used")
		}
		n, _, err := Count(dense)
		if err != nil {
			return err
		}
		if m, _, err := Count(sparse); err != nil || m != n {
			return fmt.Errorf("TESTFAILED dense/sparse disagree")
		}
		maxErr := uint64(math.Ceil(relErr * 6 * float64(checkpoint)))
		if j == 10 {
			// Collisions make a larger error at 10 likely enough to
			// fail now and then; Redis allows 1.
			maxErr = 1
		}
		absErr := int64(checkpoint) - int64(n)
		if uint64(max(absErr, -absErr)) > maxErr {
			return fmt.Errorf("TESTFAILED Too big error. card:%d abserr:%d", checkpoint, max(absErr, -absErr))
		}
		checkpoint *= 10
	}
	return nil
}
