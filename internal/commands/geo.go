package commands

import (
	"math"
	"strconv"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/geohash"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// The GEO commands, as Redis 8.0's geo.c: a geo set is a sorted set whose
// scores are 52-bit geohashes (internal/geohash), so TYPE says zset and the
// Z* commands work on it. Arguments are checked in Redis's order with its
// error texts; searches scan the same cells in the same order and sort as
// Redis sorts, so results, their order and every digit match.

const (
	errGeoMember = "ERR could not decode requested zset member"
	errGeoUnit   = "ERR unsupported unit provided. please use M, KM, FT, MI"
)

// geoIs reports whether arg is the keyword kw as Redis's strcasecmp sees it.
func geoIs(arg []byte, kw string) bool { return cmdtable.Is(cmdtable.CString(arg), kw) }

// geoDouble parses a double as getDoubleFromObjectOrReply (strtod, no
// NaN), answering "ERR "+msg when it is not one.
func geoDouble(x *cmdtable.Ctx, b []byte, msg string) (float64, bool) {
	f, ok := zset.ParseScore(b)
	if !ok {
		x.Error("ERR " + msg)
	}
	return f, ok
}

// geoLonLat parses a longitude and a latitude (extractLongLatOrReply).
func geoLonLat(x *cmdtable.Ctx, lonArg, latArg []byte) (lon, lat float64, ok bool) {
	const notFloat = "value is not a valid float"
	if lon, ok = geoDouble(x, lonArg, notFloat); !ok {
		return 0, 0, false
	}
	if lat, ok = geoDouble(x, latArg, notFloat); !ok {
		return 0, 0, false
	}
	if !geohash.IsValid(lon, lat) {
		x.Error("ERR invalid longitude,latitude pair " + cFloat(lon) + "," + cFloat(lat))
		return 0, 0, false
	}
	return lon, lat, true
}

// cFloat formats f as C's printf("%f").
func cFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// geoUnit is the unit's length in meters (extractUnitOrReply).
func geoUnit(x *cmdtable.Ctx, b []byte) (float64, bool) {
	switch {
	case geoIs(b, "m"):
		return 1, true
	case geoIs(b, "km"):
		return 1000, true
	case geoIs(b, "ft"):
		return 0.3048, true
	case geoIs(b, "mi"):
		return 1609.34, true
	}
	x.Error(errGeoUnit)
	return 0, false
}

// geoRadius parses "radius unit" (extractDistanceOrReply).
func geoRadius(x *cmdtable.Ctx, args [][]byte) (radius, conversion float64, ok bool) {
	if radius, ok = geoDouble(x, args[0], "need numeric radius"); !ok {
		return 0, 0, false
	}
	if radius < 0 {
		x.Error("ERR radius cannot be negative")
		return 0, 0, false
	}
	conversion, ok = geoUnit(x, args[1])
	return radius, conversion, ok
}

// geoBox parses "width height unit" (extractBoxOrReply).
func geoBox(x *cmdtable.Ctx, args [][]byte) (width, height, conversion float64, ok bool) {
	if width, ok = geoDouble(x, args[0], "need numeric width"); !ok {
		return 0, 0, 0, false
	}
	if height, ok = geoDouble(x, args[1], "need numeric height"); !ok {
		return 0, 0, 0, false
	}
	if height < 0 || width < 0 {
		x.Error("ERR height or width cannot be negative")
		return 0, 0, 0, false
	}
	conversion, ok = geoUnit(x, args[2])
	return width, height, conversion, ok
}

// geoMemberPos is the position of member in z (longLatFromMember).
func geoMemberPos(z *zset.ZSet, member []byte) (lon, lat float64, ok bool) {
	score, found := z.Score(transient(member))
	if !found {
		return 0, 0, false
	}
	lon, lat = geohash.DecodeScore(score)
	return lon, lat, true
}

// GEOADD key [NX|XX] [CH] longitude latitude member [...]: Redis turns it
// into ZADD key [NX|XX] [CH] score member..., which this does directly.
func geoadd(x *cmdtable.Ctx) {
	args := x.Args
	var nx, xx, ch bool
	i := 2
	for ; i < len(args); i++ {
		switch a := args[i]; {
		case geoIs(a, "nx"):
			nx = true
		case geoIs(a, "xx"):
			xx = true
		case geoIs(a, "ch"):
			ch = true
		default:
			goto elements
		}
	}
elements:
	if (len(args)-i)%3 != 0 || (nx && xx) {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	n := (len(args) - i) / 3
	if n == 0 { // only options: ZADD finds no score-member pair
		x.Error(cmdtable.ErrSyntax)
		return
	}
	scores := make([]float64, n)
	maxLen := 0
	for j := range scores {
		at := i + 3*j
		lon, lat, ok := geoLonLat(x, args[at], args[at+1])
		if !ok {
			return
		}
		scores[j] = geohash.EncodeScore(lon, lat)
		maxLen = max(maxLen, len(args[at+2]))
	}
	key := args[1]
	z, ok := zsetAt(x, key, false)
	if !ok {
		return
	}
	if z == nil {
		if xx {
			x.W.Int(0)
			return
		}
		z = zset.New(n, maxLen)
		storeZSet(x, key, z)
	} else {
		z.Expect(n) // over 128 pairs, a listpack set becomes a skiplist whatever they add
	}
	added, updated := 0, 0
	for j, s := range scores {
		m := args[i+3*j+2]
		if cur, exists := z.Score(transient(m)); exists {
			if !nx && s != cur {
				z.Set(transient(m), s) // moving a member keeps the set's string
				updated++
			}
		} else if !xx {
			z.Set(string(m), s)
			added++
		}
	}
	if added+updated > 0 {
		x.Touch(key)
		x.Notify(notify.ZSet, "zadd", key)
	}
	if ch {
		x.W.Int(int64(added + updated))
	} else {
		x.W.Int(int64(added))
	}
}

// GEOPOS key member [member ...]
func geopos(x *cmdtable.Ctx) {
	eachMemberPos(x, x.W.NullArray, func(lon, lat float64) {
		x.W.Array(2)
		x.W.Double(lon)
		x.W.Double(lat)
	})
}

// GEOHASH key member [member ...]
func geohashCmd(x *cmdtable.Ctx) {
	eachMemberPos(x, x.W.Null, func(lon, lat float64) { x.W.BulkString(geohash.String(lon, lat)) })
}

// eachMemberPos answers GEOPOS and GEOHASH: an array with, per member
// argument, found's reply for its position or missing's.
func eachMemberPos(x *cmdtable.Ctx, missing func(), found func(lon, lat float64)) {
	z, ok := zsetAt(x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		if z == nil {
			missing()
		} else if lon, lat, ok := geoMemberPos(z, m); ok {
			found(lon, lat)
		} else {
			missing()
		}
	}
}

// GEODIST key member1 member2 [M|KM|FT|MI]
func geodist(x *cmdtable.Ctx) {
	args := x.Args
	toMeter := 1.0
	if len(args) == 5 {
		var ok bool
		if toMeter, ok = geoUnit(x, args[4]); !ok {
			return
		}
	} else if len(args) > 5 {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	z, ok := zsetAt(x, args[1], true)
	if !ok {
		return
	}
	if z == nil {
		x.W.Null()
		return
	}
	lon1, lat1, found1 := geoMemberPos(z, args[2])
	lon2, lat2, found2 := geoMemberPos(z, args[3])
	if !found1 || !found2 {
		x.W.Null()
		return
	}
	d := geohash.Distance(lon1, lat1, lon2, lat2) / toMeter
	var buf [32]byte
	x.W.Bulk(geohash.AppendDistance(buf[:0], d))
}

// The variants of the search (georadiusGeneric's flags).
type geoFlags uint8

const (
	geoRadiusCoords geoFlags = 1 << iota // GEORADIUS[_RO]: around a position
	geoRadiusMember                      // GEORADIUSBYMEMBER[_RO]: around a member
	geoNoStore                           // the _RO forms: no STORE/STOREDIST
	geoSearch                            // GEOSEARCH[STORE]: FROM.../BY... options
	geoSearchStore                       // GEOSEARCHSTORE: STOREDIST flag only
)

type geoSort uint8

const (
	geoSortNone geoSort = iota
	geoSortAsc
	geoSortDesc
)

func georadius(x *cmdtable.Ctx)           { geoSearchGeneric(x, 1, geoRadiusCoords) }
func georadiusbymember(x *cmdtable.Ctx)   { geoSearchGeneric(x, 1, geoRadiusMember) }
func georadiusRO(x *cmdtable.Ctx)         { geoSearchGeneric(x, 1, geoRadiusCoords|geoNoStore) }
func georadiusbymemberRO(x *cmdtable.Ctx) { geoSearchGeneric(x, 1, geoRadiusMember|geoNoStore) }
func geosearch(x *cmdtable.Ctx)           { geoSearchGeneric(x, 1, geoSearch) }
func geosearchstore(x *cmdtable.Ctx)      { geoSearchGeneric(x, 2, geoSearch|geoSearchStore) }

// geoQuery is a parsed search.
type geoQuery struct {
	shape                         geohash.Shape
	store, storeDist              bool
	storeKey                      []byte
	withDist, withHash, withCoord bool
	any                           bool  // COUNT ... ANY: stop at count matches
	count                         int64 // 0: no limit
	sort                          geoSort
}

// geoSearchGeneric serves every search command (georadiusGeneric): the
// source sorted set is args[src].
func geoSearchGeneric(x *cmdtable.Ctx, src int, flags geoFlags) {
	z, ok := zsetAt(x, x.Args[src], true)
	if !ok {
		return
	}
	q, ok := parseGeoQuery(x, z, flags)
	if !ok {
		return
	}
	if !q.store && flags&(geoNoStore|geoSearch) == 0 {
		x.NoEffects() // GEORADIUS without STORE is a write command that writes nothing: log nothing
	}
	if z == nil {
		if q.store {
			geoStore(x, q.storeKey, nil, false, flags)
			x.W.Int(0)
		} else {
			x.W.Array(0)
		}
		return
	}
	// COUNT without an order would answer arbitrary members: the nearest
	// ones, unless ANY asked for the first found.
	if q.count != 0 && q.sort == geoSortNone && !q.any {
		q.sort = geoSortAsc
	}
	limit := 0
	if q.any {
		limit = int(min(q.count, math.MaxInt32))
	}
	points := geoScan(z, &q.shape, limit)
	if len(points) == 0 && !q.store {
		x.W.Array(0)
		return
	}
	returned := len(points)
	if q.count != 0 && int64(returned) > q.count {
		returned = int(q.count)
	}
	if q.sort != geoSortNone {
		geohash.SortPoints(points, q.sort == geoSortDesc, returned)
	}
	points = points[:returned]
	for i := range points {
		points[i].Dist /= q.shape.Conversion // to the query's unit
	}
	if q.store {
		geoStore(x, q.storeKey, points, q.storeDist, flags)
		x.W.Int(int64(returned))
		return
	}
	geoReply(x, &q, points)
}

// parseGeoQuery reads a search's arguments in Redis's order, answering the
// first error: the centre and radius GEORADIUS and GEORADIUSBYMEMBER take
// first, then the options left to right (a FROMMEMBER's member is looked
// up as it comes), then the checks between options.
func parseGeoQuery(x *cmdtable.Ctx, z *zset.ZSet, flags geoFlags) (q geoQuery, ok bool) {
	args := x.Args
	shape := &q.shape
	var base int
	switch {
	case flags&geoRadiusCoords != 0:
		base = 6
		shape.Kind = geohash.Circle
		if shape.Lon, shape.Lat, ok = geoLonLat(x, args[2], args[3]); !ok {
			return q, false
		}
		if shape.Radius, shape.Conversion, ok = geoRadius(x, args[4:6]); !ok {
			return q, false
		}
	case flags&geoRadiusMember != 0 && z == nil:
		base = 5 // parse the options anyway: the reply depends on STORE
	case flags&geoRadiusMember != 0:
		base = 5
		shape.Kind = geohash.Circle
		if shape.Lon, shape.Lat, ok = geoMemberPos(z, args[2]); !ok {
			x.Error(errGeoMember)
			return q, false
		}
		if shape.Radius, shape.Conversion, ok = geoRadius(x, args[3:5]); !ok {
			return q, false
		}
	default:
		base = 2
		if flags&geoSearchStore != 0 {
			base = 3
			q.storeKey, q.store = args[1], true
		}
	}

	search := flags&geoSearch != 0
	canStore := flags&(geoNoStore|geoSearch) == 0 // STORE key / STOREDIST key
	var fromMember, fromLoc, byRadius, byBox bool
	rest := args[base:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		left := len(rest) - i - 1 // arguments after a
		switch {
		case geoIs(a, "withdist"):
			q.withDist = true
		case geoIs(a, "withhash"):
			q.withHash = true
		case geoIs(a, "withcoord"):
			q.withCoord = true
		case geoIs(a, "any"):
			q.any = true
		case geoIs(a, "asc"):
			q.sort = geoSortAsc
		case geoIs(a, "desc"):
			q.sort = geoSortDesc
		case geoIs(a, "count") && left >= 1:
			n, isInt := cmdtable.ParseInt(rest[i+1])
			if !isInt {
				x.Error(cmdtable.ErrNotInt)
				return q, false
			}
			if n <= 0 {
				x.Error(errCountNotPos)
				return q, false
			}
			q.count = n
			i++
		case geoIs(a, "store") && left >= 1 && canStore:
			q.storeKey, q.store, q.storeDist = rest[i+1], true, false
			i++
		case geoIs(a, "storedist") && left >= 1 && canStore:
			q.storeKey, q.store, q.storeDist = rest[i+1], true, true
			i++
		case geoIs(a, "storedist") && flags&geoSearchStore != 0:
			q.storeDist = true
		case geoIs(a, "frommember") && left >= 1 && search && !fromLoc:
			if z != nil { // without a key, finish parsing and answer empty
				if shape.Lon, shape.Lat, ok = geoMemberPos(z, rest[i+1]); !ok {
					x.Error(errGeoMember)
					return q, false
				}
			}
			fromMember = true
			i++
		case geoIs(a, "fromlonlat") && left >= 2 && search && !fromMember:
			if shape.Lon, shape.Lat, ok = geoLonLat(x, rest[i+1], rest[i+2]); !ok {
				return q, false
			}
			fromLoc = true
			i += 2
		case geoIs(a, "byradius") && left >= 2 && search && !byBox:
			if shape.Radius, shape.Conversion, ok = geoRadius(x, rest[i+1:i+3]); !ok {
				return q, false
			}
			shape.Kind = geohash.Circle
			byRadius = true
			i += 2
		case geoIs(a, "bybox") && left >= 3 && search && !byRadius:
			if shape.Width, shape.Height, shape.Conversion, ok = geoBox(x, rest[i+1:i+4]); !ok {
				return q, false
			}
			shape.Kind = geohash.Box
			byBox = true
			i += 3
		default:
			x.Error(cmdtable.ErrSyntax)
			return q, false
		}
	}

	switch {
	case q.store && (q.withDist || q.withHash || q.withCoord):
		if flags&geoSearchStore != 0 {
			x.Error("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		} else {
			x.Error("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		}
	case search && !fromMember && !fromLoc:
		x.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(args[0]))
	case search && !byRadius && !byBox:
		x.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(args[0]))
	case q.any && q.count == 0:
		x.Error("ERR the ANY argument requires COUNT argument")
	default:
		return q, true
	}
	return q, false
}

// geoReply answers a search's points: members, or [member, distance,
// hash, [lon, lat]] with the options asked.
func geoReply(x *cmdtable.Ctx, q *geoQuery, points []geohash.Point) {
	options := 0
	for _, on := range []bool{q.withDist, q.withHash, q.withCoord} {
		if on {
			options++
		}
	}
	w := x.W
	w.Array(len(points))
	var buf [32]byte
	for i := range points {
		p := &points[i]
		if options > 0 {
			w.Array(options + 1)
		}
		w.BulkString(p.Member)
		if q.withDist {
			w.Bulk(geohash.AppendDistance(buf[:0], p.Dist))
		}
		if q.withHash {
			w.Int(int64(p.Score))
		}
		if q.withCoord {
			w.Array(2)
			w.Double(p.Lon)
			w.Double(p.Lat)
		}
	}
}

// geoScan collects the members of z within the shape, cell by cell of its
// cover in Redis's order (membersOfAllNeighbors), each cell in score order;
// limit > 0 stops at that many (ANY).
func geoScan(z *zset.ZSet, shape *geohash.Shape, limit int) []geohash.Point {
	cover := geohash.CoverShape(shape)
	cells := cover.Cells()
	var points []geohash.Point
	last := 0 // Redis's last_processed: 0 is also "none", so the centre is never compared
	for i, cell := range cells {
		if cell.IsZero() {
			continue
		}
		// A huge radius makes adjacent neighbours the same cell.
		if last != 0 && cell == cells[last] {
			continue
		}
		if limit > 0 && len(points) >= limit {
			break
		}
		lo, hi := geohash.ScoreRange(cell)
		first, end := z.Bounds(zset.ScoreRange(lo, hi, false, true), false)
		if first <= end {
			it := z.At(first)
			for r := first; r <= end; r++ {
				score := it.Score()
				lon, lat := geohash.DecodeScore(score)
				if d, in := shape.Contains(lon, lat); in {
					points = append(points, geohash.Point{Lon: lon, Lat: lat, Dist: d, Score: score, Member: it.Member()})
				}
				if limit > 0 && len(points) >= limit {
					break
				}
				it.Next()
			}
		}
		last = i
	}
	return points
}

// geoStore writes a search's result to dst: the members with their
// geohash scores, or their distances (in the query's unit) with
// STOREDIST. No result deletes dst.
func geoStore(x *cmdtable.Ctx, dst []byte, points []geohash.Point, storeDist bool, flags geoFlags) {
	if len(points) == 0 {
		if x.Shard(dst).Delete(dst, x.Now) {
			x.Touch(dst)
			x.Notify(notify.Generic, "del", dst)
		}
		return
	}
	maxLen := 0
	for i := range points {
		maxLen = max(maxLen, len(points[i].Member))
	}
	z := zset.New(len(points), maxLen)
	for i := range points {
		s := points[i].Score
		if storeDist {
			s = points[i].Dist
		}
		z.Set(points[i].Member, s)
	}
	z.Fit()
	storeZSet(x, dst, z)
	x.Touch(dst)
	event := "georadiusstore"
	if flags&geoSearch != 0 {
		event = "geosearchstore"
	}
	x.Notify(notify.ZSet, event, dst)
}

// georadiusKeys locates GEORADIUS's and GEORADIUSBYMEMBER's keys as
// Redis's georadiusGetKeys: the source, and the key of the last STORE or
// STOREDIST, the one the command writes.
func georadiusKeys(args [][]byte, dst []int) []int {
	dst = append(dst, 1)
	stored := -1
	for i := 5; i < len(args); i++ {
		if (geoIs(args[i], "store") || geoIs(args[i], "storedist")) && i+1 < len(args) {
			stored = i + 1
			i++
		}
	}
	if stored >= 0 {
		dst = append(dst, stored)
	}
	return dst
}

func init() {
	const g = "geo"
	key1 := func(c *cmdtable.Cmd) *cmdtable.Cmd { c.First, c.Last, c.Step = 1, 1, 1; return c }
	w := cmdtable.Write | cmdtable.DenyOOM | cmdtable.SelfTouch
	ro := cmdtable.ReadOnly
	const radiusArgs = "[WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]"
	cmdtable.Register(
		key1(&cmdtable.Cmd{Name: "geoadd", Member: 4, Arity: -5, Flags: w, Effects: cmdtable.AsSent, Run: geoadd, Group: g, Since: "3.2.0",
			Summary: "Adds one or more members to a geospatial index. The key is created if it doesn't exist.",
			Args:    "key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]"}),
		key1(&cmdtable.Cmd{Name: "geopos", Member: 2, Arity: -2, Flags: ro, Run: geopos, Group: g, Since: "3.2.0",
			Summary: "Returns the longitude and latitude of members from a geospatial index.", Args: "key [member [member ...]]"}),
		key1(&cmdtable.Cmd{Name: "geohash", Member: 2, Arity: -2, Flags: ro, Run: geohashCmd, Group: g, Since: "3.2.0",
			Summary: "Returns members from a geospatial index as geohash strings.", Args: "key [member [member ...]]"}),
		key1(&cmdtable.Cmd{Name: "geodist", Member: 2, Arity: -4, Flags: ro, Run: geodist, Group: g, Since: "3.2.0",
			Summary: "Returns the distance between two members of a geospatial index.", Args: "key member1 member2 [M | KM | FT | MI]"}),
		&cmdtable.Cmd{Name: "georadius", Arity: -6, Flags: w, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Keys: georadiusKeys, Run: georadius, Group: g, Since: "3.2.0",
			Summary: "Queries a geospatial index for members within a distance from a coordinate, optionally stores the result.",
			Args:    "key longitude latitude radius M | KM | FT | MI " + radiusArgs + " [STORE key | STOREDIST key]"},
		&cmdtable.Cmd{Name: "georadiusbymember", Arity: -5, Flags: w, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Keys: georadiusKeys, Run: georadiusbymember, Group: g, Since: "3.2.0",
			Summary: "Queries a geospatial index for members within a distance from a member, optionally stores the result.",
			Args:    "key member radius M | KM | FT | MI " + radiusArgs + " [STORE key | STOREDIST key]"},
		key1(&cmdtable.Cmd{Name: "georadius_ro", Arity: -6, Flags: ro, Run: georadiusRO, Group: g, Since: "3.2.10",
			Summary: "Returns members from a geospatial index that are within a distance from a coordinate.",
			Args:    "key longitude latitude radius M | KM | FT | MI " + radiusArgs}),
		key1(&cmdtable.Cmd{Name: "georadiusbymember_ro", Arity: -5, Flags: ro, Run: georadiusbymemberRO, Group: g, Since: "3.2.10",
			Summary: "Returns members from a geospatial index that are within a distance from a member.",
			Args:    "key member radius M | KM | FT | MI " + radiusArgs}),
		key1(&cmdtable.Cmd{Name: "geosearch", Arity: -7, Flags: ro, Run: geosearch, Group: g, Since: "6.2.0",
			Summary: "Queries a geospatial index for members inside an area of a box or a circle.",
			Args: "key FROMMEMBER member | FROMLONLAT longitude latitude BYRADIUS radius M | KM | FT | MI | BYBOX width height M | KM | FT | MI " +
				"[ASC | DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]"}),
		&cmdtable.Cmd{Name: "geosearchstore", Arity: -8, Flags: w, Effects: cmdtable.AsSent, First: 1, Last: 2, Step: 1, Run: geosearchstore, Group: g, Since: "6.2.0",
			Summary: "Queries a geospatial index for members inside an area of a box or a circle, optionally stores the result.",
			Args: "destination source FROMMEMBER member | FROMLONLAT longitude latitude BYRADIUS radius M | KM | FT | MI | BYBOX width height M | KM | FT | MI " +
				"[ASC | DESC] [COUNT count [ANY]] [STOREDIST]"},
	)
}
