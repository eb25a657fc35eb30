package zset

// What ZADD and the GEO commands need beyond the rest of the API.

// ScoreRange is the score range from min to max, each end excluded when
// its flag says so (a geohash cell is the scores [min, max)).
func ScoreRange(min, max float64, minEx, maxEx bool) Range {
	return Range{min: min, max: max, minEx: minEx, maxEx: maxEx}
}

// Expect is Redis's zsetTypeMaybeConvert: a command about to add n members
// to an existing set (ZADD, GEOADD) makes a listpack set a skiplist when n
// is over the listpack limit, even if the members turn out to be there
// already or are not added. (A long member converts it only once added.)
func (z *ZSet) Expect(n int) {
	if !fitsListpack(n, 0) {
		z.big = true
	}
}
