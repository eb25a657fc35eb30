package differential

import (
	"math"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Geospatial indexes in TestDifferentialRandom. A geo set is a sorted set
// whose scores are geohashes, so the readback's ZRANGE WITHSCORES compares
// the stored cells exactly; the GEO commands also read the sorted sets of
// the zset family (any score decodes to some place) and are tried on keys of
// every other type.

var (
	diffGeoKeys = []string{"g0", "g1", "g2"}
	// An empty search result deletes the destination: g0 is left to
	// GEOADD.
	diffGeoStoreKeys = diffGeoKeys[1:]
	// diffDistKey is where STOREDIST stores, and nothing else writes or
	// reads: distances may differ from Redis's in their last digits
	// (docs/commands/geo.md), which would spread through the sorted-set
	// commands; its readback allows for that (closeDistances).
	diffDistKey = "gdist"

	// Places around Sicily (so that searches find several), on the
	// antimeridian, the equator and the latitude limits, and some that
	// share a cell.
	diffGeoPlaces = [][2]string{
		{"13.361389", "38.115556"}, {"15.087269", "37.502669"}, {"12.758489", "38.788135"}, {"14.2454", "40.8518"},
		{"13.5833", "37.3167"}, {"15.55", "38.1833"}, {"13.361389", "38.115556"}, {"13.3613891", "38.1155561"},
		{"180", "0"}, {"-180", "0"}, {"179.9999", "10"}, {"0", "0"}, {"0", "85.05112878"}, {"-180", "-85.05112878"},
		{"-73.98", "40.75"}, {"139.69", "35.68"}, {"-0.12", "51.5"},
	}
	// The long member is past zset-max-listpack-value: a skiplist.
	diffGeoMembers   = []string{"Palermo", "Catania", "a", "b", "c", "1", "10", "", "place-" + strings.Repeat("p", 64)}
	diffGeoBadCoords = []string{"181", "-180.0001", "85.06", "-85.0512", "x", "inf", "-inf", "nan", "1e400", "", " 1", "0x10", "1e-400"}
	diffGeoUnits     = []string{"m", "km", "km", "km", "ft", "mi", "KM", "Mi", "yd"}
)

// geoMember is a member of the geo pool, now and then a zset one.
func (g *diffGen) geoMember() string {
	if g.chance(15) {
		return g.member()
	}
	return g.pick(diffGeoMembers...)
}

func (g *diffGen) geoMembers(min, max int) []string {
	out := g.members(min, max)
	for i := range out {
		if !g.chance(15) {
			out[i] = g.pick(diffGeoMembers...)
		}
	}
	return out
}

// geoLonLat is a longitude and a latitude: a known place, one near it, one
// anywhere, or (seldom) an invalid coordinate.
func (g *diffGen) geoLonLat() []string {
	p := diffGeoPlaces[g.r.IntN(len(diffGeoPlaces))]
	lon, lat := p[0], p[1]
	switch g.r.IntN(10) {
	case 0, 1:
		x, _ := strconv.ParseFloat(lon, 64)
		y, _ := strconv.ParseFloat(lat, 64)
		x = max(-180, min(180, x+g.r.NormFloat64()*0.5))
		y = max(-85.05, min(85.05, y+g.r.NormFloat64()*0.5))
		lon, lat = strconv.FormatFloat(x, 'f', g.r.IntN(10), 64), strconv.FormatFloat(y, 'g', -1, 64)
	case 2:
		lon = strconv.FormatFloat(g.r.Float64()*360-180, 'f', -1, 64)
		lat = strconv.FormatFloat(g.r.Float64()*170-85, 'f', 6, 64)
	case 3:
		if g.chance(20) {
			if g.chance(50) {
				lon = g.pick(diffGeoBadCoords...)
			} else {
				lat = g.pick(diffGeoBadCoords...)
			}
		}
	}
	return []string{lon, lat}
}

func (g *diffGen) geoRadius() []string {
	r := g.pick("0", "1", "10", "100", "200", "200", "300", "500", "1000", "5000", "20000", "1e9", "0.5")
	switch {
	case g.chance(2):
		r = g.pick("-1", "x", "inf", "nan", "-0", "")
	case g.chance(10):
		r = strconv.FormatFloat(g.r.Float64()*300, 'f', g.r.IntN(6), 64)
	}
	unit := "km"
	if g.chance(40) {
		unit = g.pick(diffGeoUnits...)
	}
	return []string{r, unit}
}

func (g *diffGen) geoBox() []string {
	rw, rh := g.geoRadius(), g.geoRadius()
	return []string{rw[0], rh[0], rh[1]}
}

// geoOptions are a search's reply options: ASC/DESC, COUNT [ANY] and the
// WITH* flags (withs false leaves those out, as the STORE forms need).
func (g *diffGen) geoOptions(withs bool) [][]string {
	count := []string{"COUNT", g.pick("1", "2", "2", "3", "5", "100", "9223372036854775807")}
	if g.chance(5) {
		count[1] = g.pick("0", "-1", "x", "")
	}
	if g.chance(30) {
		count = append(count, "ANY")
	}
	groups := [][]string{{g.pick("ASC", "DESC", "asc")}, count}
	if withs {
		groups = append(groups, []string{"WITHCOORD"}, []string{"WITHDIST"}, []string{"WITHHASH"}, []string{"withdist"})
	}
	if g.chance(3) {
		groups = append(groups, []string{g.pick("ANY", "FOO", "COUNT", "STORE")})
	}
	var out [][]string
	for n := g.r.IntN(4); n > 0; n-- {
		out = append(out, groups[g.r.IntN(len(groups))])
	}
	return out
}

func (g *diffGen) geoCmd() []string {
	k := g.key(diffGeoKeys)
	if g.chance(10) {
		k = g.pick(diffZKeys...)
	}
	switch g.r.IntN(34) {
	case 0, 1, 2, 3, 4, 5, 6, 7, 30, 31, 32, 33:
		args := []string{"GEOADD", k}
		if g.chance(40) {
			args = append(args, g.options(2, []string{"NX"}, []string{"XX"}, []string{"CH"}, []string{"CH"})...)
		}
		if g.chance(3) {
			args = append(args, g.pick("GT", "LT", "INCR"))
		}
		for n := 1 + g.r.IntN(6); n > 0; n-- {
			args = append(args, g.geoLonLat()...)
			args = append(args, g.geoMember())
		}
		if g.chance(4) {
			args = args[:len(args)-1]
		}
		return args
	case 8, 9:
		return cmdOf(g.pick("GEOPOS", "GEOHASH"), k, g.geoMembers(0, 4))
	case 10, 11, 12:
		args := cmdOf("GEODIST", k, g.geoMember(), g.geoMember())
		if g.chance(70) {
			args = append(args, g.pick(diffGeoUnits...))
		}
		if g.chance(3) {
			args = append(args, "km")
		}
		return args
	case 13, 14, 15, 16, 17:
		return g.geoSearch("GEOSEARCH", k)
	case 18, 19, 20:
		return g.geoSearch("GEOSEARCHSTORE", k)
	case 21, 22, 23:
		return g.geoRadiusCmd(g.pick("GEORADIUS", "GEORADIUS", "GEORADIUS_RO"), cmdOf(k, g.geoLonLat()))
	case 24, 25, 26:
		return g.geoRadiusCmd(g.pick("GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"), []string{k, g.geoMember()})
	case 27:
		return cmdOf(g.pick("GEOPOS", "GEOHASH"), k, g.geoMembers(3, 6))
	case 28:
		return g.pickCmd([]string{"GEOADD", k}, []string{"GEOPOS"}, []string{"GEODIST", k, "a"},
			[]string{"GEORADIUS", k, "1", "2", "3"}, []string{"GEOSEARCH", k}, []string{"GEOSEARCHSTORE", k})
	default:
		return cmdOf("ZRANGE", k, "0", "-1", "WITHSCORES")
	}
}

// geoSearch is a GEOSEARCH or GEOSEARCHSTORE: mostly one FROM and one BY,
// now and then none or two of either, options in any order.
func (g *diffGen) geoSearch(name, src string) []string {
	store := name == "GEOSEARCHSTORE"
	groups := g.geoOptions(!store || g.chance(5))
	from := []string{"FROMMEMBER", g.geoMember()}
	if g.chance(50) {
		from = cmdOf("FROMLONLAT", g.geoLonLat())
	}
	by := cmdOf("BYRADIUS", g.geoRadius())
	if g.chance(50) {
		by = cmdOf("BYBOX", g.geoBox())
	}
	for _, grp := range [][]string{from, by} {
		if !g.chance(2) {
			groups = append(groups, grp)
		}
		if g.chance(2) {
			groups = append(groups, grp)
		}
	}
	dst := g.dest(diffGeoStoreKeys)
	if store && g.chance(50) {
		groups = append(groups, []string{"STOREDIST"})
		dst = diffDistKey
	}
	g.r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	if store {
		return cmdOf(name, dst, src, concat(groups...))
	}
	return cmdOf(name, src, concat(groups...))
}

// geoRadiusCmd is a GEORADIUS* with its centre given: the radius, then the
// options in any order, STORE or STOREDIST (rejected by the _RO forms, and
// with a WITH* flag) in some.
func (g *diffGen) geoRadiusCmd(name string, centre []string) []string {
	groups := g.geoOptions(true)
	if g.chance(30) {
		groups = g.geoOptions(g.chance(10))
		for n := 1 + g.r.IntN(2); n > 0; n-- {
			if g.chance(50) {
				groups = append(groups, []string{"STORE", g.dest(diffGeoStoreKeys)})
			} else {
				groups = append(groups, []string{"STOREDIST", diffDistKey})
			}
		}
	}
	g.r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	return cmdOf(name, centre, g.geoRadius(), concat(groups...))
}

// closeDistances compares two replies with distances in them: the same
// shape and values, but for the distances (the values dist picks), which
// may differ in their last digits (docs/commands/geo.md): within a relative
// 1e-7, as tests/geo_test.go allows.
func closeDistances(got, want harness.RV, dist func(v harness.RV) bool) bool {
	if got.T != want.T || got.Null != want.Null || len(got.A) != len(want.A) {
		return false
	}
	for i := range got.A {
		if !closeDistances(got.A[i], want.A[i], dist) {
			return false
		}
	}
	if got.S == want.S {
		return true
	}
	if !dist(got) || !dist(want) {
		return false
	}
	g, err1 := strconv.ParseFloat(got.S, 64)
	w, err2 := strconv.ParseFloat(want.S, 64)
	return err1 == nil && err2 == nil && math.Abs(g-w) <= 1e-7*math.Max(math.Abs(g), math.Abs(w))
}

// storedDistance takes any value of a ZRANGE diffDistKey 0 -1 WITHSCORES
// reply for a distance: the scores are, and no two members in the pools
// differ by so little.
func storedDistance(harness.RV) bool { return true }

// replyDistance picks the distances in a GEODIST or WITHDIST reply: bulk
// strings with four decimals, as Redis writes distances (coordinates have
// more, and hashes are integers).
func replyDistance(v harness.RV) bool {
	return v.T == '$' && strings.IndexByte(v.S, '.') == len(v.S)-5
}
