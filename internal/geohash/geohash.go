package geohash

// The coordinate limits (EPSG:900913 / Web Mercator: the poles cannot be
// encoded) and the precision of a stored position.
const (
	LongMin = -180.0
	LongMax = 180.0
	LatMin  = -85.05112878
	LatMax  = 85.05112878
	StepMax = 26 // 26 bits per coordinate: a 52-bit score
)

// Bits is a geohash of Step bits per coordinate, longitude bits at the odd
// positions and latitude bits at the even ones. The zero value (Bits 0,
// Step 0) marks an excluded neighbour.
type Bits struct {
	Bits uint64
	Step uint8
}

// IsZero reports the zero geohash (Redis's HASHISZERO).
func (h Bits) IsZero() bool { return h.Bits == 0 && h.Step == 0 }

// Range is an interval of one coordinate.
type Range struct{ Min, Max float64 }

func (r Range) isZero() bool { return r.Min == 0 && r.Max == 0 } // RANGEISZERO

// Area is the cell a geohash names.
type Area struct {
	Hash      Bits
	Longitude Range
	Latitude  Range
}

// Neighbors are the eight cells around one, at its precision.
type Neighbors struct {
	North, East, West, South                   Bits
	NorthEast, SouthEast, NorthWest, SouthWest Bits
}

// Variables, not constants: Go evaluates constant expressions exactly,
// Redis in doubles, and the ranges enter arithmetic.
var (
	longMin, longMax = LongMin, LongMax
	latMin, latMax   = LatMin, LatMax
	wgs84Long        = Range{longMin, longMax}
	wgs84Lat         = Range{latMin, latMax}
)

// CoordRange is the longitude and latitude range of every stored position.
func CoordRange() (long, lat Range) { return wgs84Long, wgs84Lat }

// interleave64 spreads x over the even bits and y over the odd bits.
func interleave64(xlo, ylo uint32) uint64 {
	x, y := uint64(xlo), uint64(ylo)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	y = (y | y<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	y = (y | y<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
	y = (y | y<<4) & 0x0F0F0F0F0F0F0F0F
	x = (x | x<<2) & 0x3333333333333333
	y = (y | y<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	y = (y | y<<1) & 0x5555555555555555
	return x | y<<1
}

// deinterleave64 undoes interleave64: the even bits in the low word, the
// odd bits in the high word.
func deinterleave64(v uint64) uint64 {
	x, y := v, v>>1
	x &= 0x5555555555555555
	y &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	y = (y | y>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	y = (y | y>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	y = (y | y>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	y = (y | y>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	y = (y | y>>16) & 0x00000000FFFFFFFF
	return x | y<<32
}

// Encode computes the geohash of step bits per coordinate of (lon, lat)
// within the given ranges; ok is false outside them or for a bad step.
// A coordinate on the upper limit encodes one past the last cell, as in
// Redis (its score then has bit 52 or 53 set).
func Encode(longRange, latRange Range, lon, lat float64, step uint8) (h Bits, ok bool) {
	if step > 32 || step == 0 || latRange.isZero() || longRange.isZero() {
		return Bits{}, false
	}
	if lon > longMax || lon < longMin || lat > latMax || lat < latMin {
		return Bits{}, false
	}
	if lat < latRange.Min || lat > latRange.Max || lon < longRange.Min || lon > longRange.Max {
		return Bits{Step: step}, false
	}
	latOffset := (lat - latRange.Min) / (latRange.Max - latRange.Min)
	longOffset := (lon - longRange.Min) / (longRange.Max - longRange.Min)
	scale := float64(uint64(1) << step)
	latOffset *= scale
	longOffset *= scale
	return Bits{Bits: interleave64(uint32(latOffset), uint32(longOffset)), Step: step}, true
}

// EncodeWGS84 is Encode over the stored positions' ranges.
func EncodeWGS84(lon, lat float64, step uint8) (Bits, bool) {
	return Encode(wgs84Long, wgs84Lat, lon, lat, step)
}

// Decode returns the cell of h within the given ranges; ok is false for
// the zero geohash.
func Decode(longRange, latRange Range, h Bits) (Area, bool) {
	if h.IsZero() || latRange.isZero() || longRange.isZero() {
		return Area{}, false
	}
	sep := deinterleave64(h.Bits)
	latScale := latRange.Max - latRange.Min
	longScale := longRange.Max - longRange.Min
	ilato := uint32(sep)       // the latitude bits
	ilono := uint32(sep >> 32) // the longitude bits
	div := float64(uint64(1) << h.Step)
	// (ilato+1) wraps at 2^32 as C's unsigned arithmetic does.
	return Area{
		Hash: h,
		Latitude: Range{
			Min: latRange.Min + float64(float64(ilato)/div*latScale),
			Max: latRange.Min + float64(float64(ilato+1)/div*latScale),
		},
		Longitude: Range{
			Min: longRange.Min + float64(float64(ilono)/div*longScale),
			Max: longRange.Min + float64(float64(ilono+1)/div*longScale),
		},
	}, true
}

// DecodeWGS84 is Decode over the stored positions' ranges.
func DecodeWGS84(h Bits) (Area, bool) { return Decode(wgs84Long, wgs84Lat, h) }

// Center is the middle of the cell, clamped to the coordinate limits.
func (a Area) Center() (lon, lat float64) {
	lon = (a.Longitude.Min + a.Longitude.Max) / 2
	lon = min(max(lon, longMin), longMax)
	lat = (a.Latitude.Min + a.Latitude.Max) / 2
	lat = min(max(lat, latMin), latMax)
	return lon, lat
}

// DecodeScore is the position a sorted-set score stands for: the centre of
// its 52-bit cell (Redis's decodeGeohash). Any score decodes, as in Redis:
// one that is not a geohash gives some position within the limits.
func DecodeScore(score float64) (lon, lat float64) {
	a, _ := DecodeWGS84(Bits{Bits: ScoreBits(score), Step: StepMax})
	return a.Center()
}

// EncodeScore is the score GEOADD stores for a valid (lon, lat).
func EncodeScore(lon, lat float64) float64 {
	h, _ := EncodeWGS84(lon, lat, StepMax)
	return float64(Align52(h))
}

// ScoreBits converts a score to uint64 as C's (uint64_t) cast compiles
// with GCC on x86-64, for scores that are not geohashes too: truncation
// toward zero below 2^63 (negative values wrap, those below -2^63 give
// 2^63), 2^63 added back above it, and 0 from 2^64 on and for +inf.
func ScoreBits(score float64) uint64 {
	const two63 = 9223372036854775808.0
	cvt := func(f float64) uint64 { // cvttsd2si: 0x8000000000000000 when out of range
		if f >= -two63 && f < two63 {
			return uint64(int64(f))
		}
		return 1 << 63
	}
	if score >= two63 {
		return cvt(score-two63) ^ 1<<63
	}
	return cvt(score)
}

// IsValid reports whether (lon, lat) may be stored.
func IsValid(lon, lat float64) bool {
	return !(lon < longMin || lon > longMax || lat < latMin || lat > latMax)
}

// Align52 shifts h to a 52-bit score prefix.
func Align52(h Bits) uint64 { return h.Bits << (52 - uint(h.Step)*2) }

// move moves h one cell along the axis whose bits are in mask (the
// longitude's, 0xaaaa..., east for d > 0; the latitude's, 0x5555...,
// north), wrapping around: Redis's geohash_move_x and geohash_move_y.
func move(h *Bits, d int, mask uint64) {
	if d == 0 {
		return
	}
	shift := 64 - uint(h.Step)*2
	v := h.Bits & mask
	other := h.Bits &^ mask
	zz := ^mask >> shift
	if d > 0 {
		v = v + (zz + 1)
	} else {
		v = v | zz
		v = v - (zz + 1)
	}
	v &= mask >> shift
	h.Bits = v | other
}

func moveX(h *Bits, d int) { move(h, d, 0xaaaaaaaaaaaaaaaa) }
func moveY(h *Bits, d int) { move(h, d, 0x5555555555555555) }

// GetNeighbors returns the eight cells around h.
func GetNeighbors(h Bits) Neighbors {
	n := Neighbors{h, h, h, h, h, h, h, h}
	moveX(&n.East, 1)
	moveX(&n.West, -1)
	moveY(&n.South, -1)
	moveY(&n.North, 1)
	moveX(&n.NorthWest, -1)
	moveY(&n.NorthWest, 1)
	moveX(&n.NorthEast, 1)
	moveY(&n.NorthEast, 1)
	moveX(&n.SouthEast, 1)
	moveY(&n.SouthEast, -1)
	moveX(&n.SouthWest, -1)
	moveY(&n.SouthWest, -1)
	return n
}

// String is GEOHASH's 11-character geohash of a stored position: re-encoded
// over the standard latitude range -90..90 (Redis stores over Mercator's),
// the 52 bits in ten base-32 characters and a final '0'.
func String(lon, lat float64) string {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	h, _ := Encode(Range{-180, 180}, Range{-90, 90}, lon, lat, StepMax)
	var buf [11]byte
	for i := 0; i < 10; i++ {
		buf[i] = alphabet[(h.Bits>>(52-(i+1)*5))&0x1f]
	}
	buf[10] = alphabet[0]
	return string(buf[:])
}
