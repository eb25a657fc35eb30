package geohash

import (
	"math"
	"strconv"

	"github.com/hotkv/hotkv/internal/pqsort"
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
// first keep elements are what Redis answers: all of ps sorted with a
// stable merge sort (glibc's qsort) when keep covers them, else Redis's
// partial quicksort of the first keep. Equal distances keep their search
// order under the first and not necessarily under the second, as in Redis.
func SortPoints(ps []Point, desc bool, keep int) {
	if len(ps) < 2 {
		return
	}
	cmp := func(a, b *Point) int { return cmpDist(a, b, desc) }
	if keep >= len(ps) {
		pqsort.Stable(ps, cmp)
		return
	}
	pqsort.Partial(ps, cmp, 0, keep-1)
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
