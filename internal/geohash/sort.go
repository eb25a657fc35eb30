package geohash

import (
	"math"
	"strconv"
)

// Point is one search result.
type Point struct {
	Lon, Lat float64 // the decoded position
	Dist     float64 // from the search's centre, in meters until the reply converts it
	Score    float64
	Member   string
}

// cmpDist is geo.c's sort_gp_asc (desc negates it). NaN distances compare
// as smaller both ways, as in Redis; the sorts below are Redis's and
// glibc's own so that even then the order is theirs.
func cmpDist(a, b *Point, desc bool) int {
	var r int
	switch {
	case a.Dist > b.Dist:
		r = 1
	case a.Dist == b.Dist:
		r = 0
	default:
		r = -1
	}
	if desc {
		return -r
	}
	return r
}

// SortPoints orders ps by distance (descending when desc) so that its
// first keep elements are what Redis answers: all of ps sorted with
// glibc's qsort when keep covers them, else Redis's partial quicksort
// (pqsort.c) of the first keep. Equal distances keep their search order
// under the first and not necessarily under the second, as in Redis.
func SortPoints(ps []Point, desc bool, keep int) {
	if len(ps) < 2 {
		return
	}
	if keep >= len(ps) {
		msort(ps, make([]Point, len(ps)), desc)
		return
	}
	pqsort(ps, 0, len(ps), desc, 0, keep-1)
}

// msort is glibc 2.41's qsort: a top-down merge sort, stable.
func msort(b, tmp []Point, desc bool) {
	n := len(b)
	if n <= 1 {
		return
	}
	n1 := n / 2
	msort(b[:n1], tmp, desc)
	msort(b[n1:], tmp, desc)
	i, j, k := 0, n1, 0
	for i < n1 && j < n {
		if cmpDist(&b[i], &b[j], desc) <= 0 {
			tmp[k] = b[i]
			i++
		} else {
			tmp[k] = b[j]
			j++
		}
		k++
	}
	k += copy(tmp[k:], b[i:n1])
	copy(b, tmp[:k]) // the rest of the right half is in place
}

// pqsort is Redis's pqsort.c (NetBSD's Bentley-McIlroy quicksort, which
// skips the partitions outside the ranks [lo, hi]) on a[base:base+n].
func pqsort(a []Point, base, n int, desc bool, lo, hi int) {
	cmp := func(i, j int) int { return cmpDist(&a[i], &a[j], desc) }
	swap := func(i, j int) { a[i], a[j] = a[j], a[i] }
	vecswap := func(i, j, n int) {
		for k := 0; k < n; k++ {
			swap(i+k, j+k)
		}
	}
	med3 := func(x, y, z int) int {
		if cmp(x, y) < 0 {
			if cmp(y, z) < 0 {
				return y
			}
			if cmp(x, z) < 0 {
				return z
			}
			return x
		}
		if cmp(y, z) > 0 {
			return y
		}
		if cmp(x, z) < 0 {
			return x
		}
		return z
	}
	insertion := func(base, n int) {
		for pm := base + 1; pm < base+n; pm++ {
			for pl := pm; pl > base && cmp(pl-1, pl) > 0; pl-- {
				swap(pl, pl-1)
			}
		}
	}
	// outside reports a partition [l, r] that holds none of [lo, hi].
	outside := func(l, r int) bool { return (lo < l && hi < l) || (lo > r && hi > r) }
	for {
		if n < 7 {
			insertion(base, n)
			return
		}
		pm := base + n/2
		if n > 7 {
			pl, pn := base, base+n-1
			if n > 40 {
				d := n / 8
				pl = med3(pl, pl+d, pl+2*d)
				pm = med3(pm-d, pm, pm+d)
				pn = med3(pn-2*d, pn-d, pn)
			}
			pm = med3(pl, pm, pn)
		}
		swap(base, pm)
		pa, pb := base+1, base+1
		pc, pd := base+n-1, base+n-1
		for {
			for pb <= pc {
				r := cmp(pb, base)
				if r > 0 {
					break
				}
				if r == 0 {
					swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(pc, base)
				if r < 0 {
					break
				}
				if r == 0 {
					swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			swap(pb, pc)
			pb++
			pc--
		}
		pn := base + n
		r := min(pa-base, pb-pa)
		vecswap(base, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(pb, pn-r, r)
		if r = pb - pa; r > 1 && !outside(base, base+r-1) {
			pqsort(a, base, r, desc, lo, hi)
		}
		if r = pd - pc; r > 1 {
			base, n = pn-r, r
			if !outside(base, base+r-1) {
				continue
			}
		}
		return
	}
}

// AppendDistance formats a distance as Redis's replies do
// (fixedpoint_d2string with 4 digits): rounded half to even at the fourth
// decimal as llrint(d*10000) rounds, "0.0000" for zero.
func AppendDistance(b []byte, d float64) []byte {
	if d == 0 {
		return append(b, "0.0000"...)
	}
	v := llrint(d * 10000)
	var u uint64
	if v < 0 {
		b = append(b, '-')
		u = uint64(-v) // -MinInt64 wraps to 2^63, as Redis's special case
	} else {
		u = uint64(v)
	}
	var digits [24]byte
	s := strconv.AppendUint(digits[:0], u, 10)
	if len(s) <= 4 { // at least one integer digit
		b = append(b, '0')
	} else {
		b = append(b, s[:len(s)-4]...)
		s = s[len(s)-4:]
	}
	b = append(b, '.')
	for i := len(s); i < 4; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// llrint is C's llrint on x86-64: round half to even, and the "integer
// indefinite" MinInt64 for NaN and values out of range.
func llrint(x float64) int64 {
	r := math.RoundToEven(x)
	if r >= -9223372036854775808.0 && r < 9223372036854775808.0 {
		return int64(r)
	}
	return math.MinInt64
}
