package resp

import (
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// Redis 7+ formats doubles with fpconv_dtoa, which is Grisu2 (Loitsch,
// "Printing Floating-Point Numbers Quickly and Accurately with Integers",
// 2010). Grisu2 always round-trips but, for about one double in a hundred
// with 17 significant digits, does not find the shortest digits: Redis then
// answers 17.879999394074652 where strconv would say 17.87999939407465. To
// answer what Redis answers, the digits come from the same algorithm.

// diyFp is f * 2^e.
type diyFp struct {
	f uint64
	e int
}

// mul is the 64x64-bit product's upper half, rounded.
func (a diyFp) mul(b diyFp) diyFp {
	hi, lo := bits.Mul64(a.f, b.f)
	if lo >= 1<<63 {
		hi++
	}
	return diyFp{hi, a.e + b.e + 64}
}

func (a diyFp) normalize() diyFp {
	s := bits.LeadingZeros64(a.f)
	return diyFp{a.f << s, a.e - s}
}

// Cached powers of ten 10^k for k = -348, -340, ..., 340, normalized to 64
// bits and rounded to nearest (the Grisu table, computed rather than copied).
const (
	firstPower = -348
	powerStep  = 8
	numPowers  = 87
)

var (
	powersOnce sync.Once
	powers     [numPowers]diyFp
)

func initPowers() {
	for i := range powers {
		k := firstPower + i*powerStep
		// v = 10^k as num/den; find e with 2^63 <= v/2^e < 2^64.
		num, den := big.NewInt(1), big.NewInt(1)
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(k))), nil)
		if k >= 0 {
			num = p
		} else {
			den = p
		}
		e := num.BitLen() - den.BitLen() - 64
		for {
			n, d := new(big.Int).Set(num), new(big.Int).Set(den)
			if e >= 0 {
				d.Lsh(d, uint(e))
			} else {
				n.Lsh(n, uint(-e))
			}
			// round(n/d) = floor((2n + d) / 2d)
			q := new(big.Int).Div(n.Add(n.Lsh(n, 1), d), d.Lsh(d, 1))
			switch {
			case q.BitLen() > 64:
				e++
			case q.BitLen() < 64:
				e--
			default:
				powers[i] = diyFp{q.Uint64(), e}
				goto next
			}
		}
	next:
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// cachedPower returns a power c_k = 10^k whose product with a number of
// binary exponent e lands its exponent in [-60, -32], and k.
func cachedPower(e int) (diyFp, int) {
	powersOnce.Do(initPowers)
	approx := int(float64(-(e + numPowers)) * 0.30102999566398114)
	i := (approx - firstPower) / powerStep
	for {
		cur := e + powers[i].e + 64
		switch {
		case cur < -60:
			i++
		case cur > -32:
			i--
		default:
			return powers[i], firstPower + i*powerStep
		}
	}
}

var pow10 = [...]uint64{
	1e19, 1e18, 1e17, 1e16, 1e15, 1e14, 1e13, 1e12, 1e11, 1e10,
	1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 100, 10, 1,
}

// grisu2 writes the digits of a positive finite d into buf and returns how
// many, and K such that d ~ digits * 10^K.
func grisu2(d float64, buf *[18]byte) (int, int) {
	b := math.Float64bits(d)
	frac, bexp := b&(1<<52-1), int(b>>52&0x7ff)
	var w diyFp
	if bexp == 0 {
		w = diyFp{frac, -1074}
	} else {
		w = diyFp{frac | 1<<52, bexp - 1075}
	}
	// Boundaries halfway to the neighbouring doubles.
	upper := diyFp{w.f<<1 + 1, w.e - 1}.normalize()
	var lower diyFp
	if w.f == 1<<52 {
		lower = diyFp{w.f<<2 - 1, w.e - 2}
	} else {
		lower = diyFp{w.f<<1 - 1, w.e - 1}
	}
	lower = diyFp{lower.f << uint(lower.e-upper.e), upper.e}
	w = w.normalize()
	c, k := cachedPower(upper.e)
	w, upper, lower = w.mul(c), upper.mul(c), lower.mul(c)
	lower.f++
	upper.f--
	K := -k
	return genDigits(w, upper, lower, buf, &K), K
}

func genDigits(w, upper, lower diyFp, buf *[18]byte, K *int) int {
	wfrac := upper.f - w.f
	delta := upper.f - lower.f
	shift := uint(-upper.e)
	one := uint64(1) << shift
	part1 := upper.f >> shift
	part2 := upper.f & (one - 1)
	n, kappa := 0, 10
	for i := 10; kappa > 0; i++ {
		div := pow10[i]
		digit := part1 / div
		if digit != 0 || n != 0 {
			buf[n] = byte(digit) + '0'
			n++
		}
		part1 -= digit * div
		kappa--
		if tmp := part1<<shift + part2; tmp <= delta {
			*K += kappa
			roundDigit(buf[:n], delta, tmp, div<<shift, wfrac)
			return n
		}
	}
	unit := 18
	for {
		part2 *= 10
		delta *= 10
		kappa--
		digit := part2 >> shift
		if digit != 0 || n != 0 {
			buf[n] = byte(digit) + '0'
			n++
		}
		part2 &= one - 1
		if part2 < delta {
			*K += kappa
			roundDigit(buf[:n], delta, part2, one, wfrac*pow10[unit])
			return n
		}
		unit--
	}
}

// roundDigit moves the last digit towards the exact value while the result
// stays within the boundaries.
func roundDigit(digits []byte, delta, rem, kappa, frac uint64) {
	for rem < frac && delta-rem >= kappa && (rem+kappa < frac || frac-rem > rem+kappa-frac) {
		digits[len(digits)-1]--
		rem += kappa
	}
}
