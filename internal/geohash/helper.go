package geohash

import "math"

// The search geometry of Redis's geohash_helper.c.

var (
	pi          = math.Pi
	degToRad    = pi / 180.0 // D_R: M_PI/180.0 as C folds it, in doubles
	earthRadius = 6372797.560856
	mercatorMax = 20037726.37
)

// degRad and radDeg round their result: a product that Go fused into the
// sum or difference it feeds would not round as Redis's does.
func degRad(ang float64) float64 { return float64(ang * degToRad) }
func radDeg(ang float64) float64 { return float64(ang / degToRad) }

// EstimateSteps is the precision (bits per coordinate) of the nine cells
// that cover a search of the given radius around latitude lat: the cells
// are at least as large as the radius, and larger towards the poles.
func EstimateSteps(rangeMeters, lat float64) uint8 {
	if rangeMeters == 0 {
		return StepMax
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2 // make sure the range is included in most of the base cases
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint8(min(max(step, 1), StepMax))
}

// ShapeKind tells a radius search from a box search.
type ShapeKind uint8

// The two search shapes.
const (
	Circle ShapeKind = iota + 1
	Box
)

// Shape is a search area around (Lon, Lat). Sizes are in the query's unit;
// Conversion is the unit in meters.
type Shape struct {
	Kind          ShapeKind
	Lon, Lat      float64
	Conversion    float64
	Radius        float64 // Circle
	Width, Height float64 // Box
}

// BoundingBox returns [minLon, minLat, maxLon, maxLat] of the shape, wider
// at the latitude (top or bottom) farther from the equator. Longitudes may
// leave -180..180 and latitudes -90..90: Redis does not wrap them.
func (s *Shape) BoundingBox() [4]float64 {
	var height, width float64
	if s.Kind == Circle {
		height = s.Conversion * s.Radius
		width = s.Conversion * s.Radius
	} else {
		height = s.Conversion * (s.Height / 2)
		width = s.Conversion * (s.Width / 2)
	}
	latDelta := radDeg(height / earthRadius)
	longDeltaTop := radDeg(width / earthRadius / math.Cos(degRad(s.Lat+latDelta)))
	longDeltaBottom := radDeg(width / earthRadius / math.Cos(degRad(s.Lat-latDelta)))
	var b [4]float64
	if s.Lat < 0 { // the southern hemisphere's trapezoid is upside down
		b[0] = s.Lon - longDeltaBottom
		b[2] = s.Lon + longDeltaBottom
	} else {
		b[0] = s.Lon - longDeltaTop
		b[2] = s.Lon + longDeltaTop
	}
	b[1] = s.Lat - latDelta
	b[3] = s.Lat + latDelta
	return b
}

// Cover is the centre cell of a search and its neighbours, the zero Bits
// for those that cannot hold a match.
type Cover struct {
	Hash      Bits
	Area      Area
	Neighbors Neighbors
}

// Cells lists the cover in Redis's search order: centre, N, S, E, W, NE,
// NW, SE, SW.
func (c *Cover) Cells() [9]Bits {
	n := &c.Neighbors
	return [9]Bits{c.Hash, n.North, n.South, n.East, n.West, n.NorthEast, n.NorthWest, n.SouthEast, n.SouthWest}
}

// CoverShape computes the cells that cover the shape
// (geohashCalculateAreasByShapeWGS84): the estimated precision, one step
// coarser when a neighbour does not reach the bounding box's edge, and,
// from step 2 on, without the neighbours entirely outside the box.
func CoverShape(s *Shape) Cover {
	bounds := s.BoundingBox()
	minLon, minLat, maxLon, maxLat := bounds[0], bounds[1], bounds[2], bounds[3]
	var radiusMeters float64
	if s.Kind == Circle {
		radiusMeters = s.Radius
	} else {
		w, h := s.Width/2, s.Height/2
		radiusMeters = math.Sqrt(float64(w*w) + float64(h*h))
	}
	radiusMeters *= s.Conversion
	steps := EstimateSteps(radiusMeters, s.Lat)

	longR, latR := CoordRange()
	hash, _ := Encode(longR, latR, s.Lon, s.Lat, steps)
	neighbors := GetNeighbors(hash)
	area, _ := Decode(longR, latR, hash)

	decrease := false
	north, _ := Decode(longR, latR, neighbors.North)
	south, _ := Decode(longR, latR, neighbors.South)
	east, _ := Decode(longR, latR, neighbors.East)
	west, _ := Decode(longR, latR, neighbors.West)
	if north.Latitude.Max < maxLat {
		decrease = true
	}
	if south.Latitude.Min > minLat {
		decrease = true
	}
	if east.Longitude.Max < maxLon {
		decrease = true
	}
	if west.Longitude.Min > minLon {
		decrease = true
	}
	if steps > 1 && decrease {
		steps--
		hash, _ = Encode(longR, latR, s.Lon, s.Lat, steps)
		neighbors = GetNeighbors(hash)
		area, _ = Decode(longR, latR, hash)
	}

	if steps >= 2 {
		if area.Latitude.Min < minLat {
			neighbors.South, neighbors.SouthWest, neighbors.SouthEast = Bits{}, Bits{}, Bits{}
		}
		if area.Latitude.Max > maxLat {
			neighbors.North, neighbors.NorthEast, neighbors.NorthWest = Bits{}, Bits{}, Bits{}
		}
		if area.Longitude.Min < minLon {
			neighbors.West, neighbors.SouthWest, neighbors.NorthWest = Bits{}, Bits{}, Bits{}
		}
		if area.Longitude.Max > maxLon {
			neighbors.East, neighbors.SouthEast, neighbors.NorthEast = Bits{}, Bits{}, Bits{}
		}
	}
	return Cover{Hash: hash, Area: area, Neighbors: neighbors}
}

// ScoreRange is the scores [min, max) of the positions within cell h.
func ScoreRange(h Bits) (lo, hi float64) {
	lo = float64(Align52(h))
	h.Bits++
	hi = float64(Align52(h))
	return lo, hi
}

// LatDistance is the distance in meters between two latitudes on one
// meridian.
func LatDistance(lat1, lat2 float64) float64 {
	return earthRadius * math.Abs(degRad(lat2)-degRad(lat1))
}

// Distance is the great-circle distance in meters between two positions,
// by the haversine formula.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r := degRad(lon1)
	lon2r := degRad(lon2)
	v := math.Sin((lon2r - lon1r) / 2)
	if v == 0 { // the same meridian: no trigonometry needed
		return LatDistance(lat1, lat2)
	}
	lat1r := degRad(lat1)
	lat2r := degRad(lat2)
	u := math.Sin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(math.Cos(lat1r)*math.Cos(lat2r))*v)*v)
	return 2.0 * earthRadius * math.Asin(math.Sqrt(a))
}

// Contains reports whether the position (lon, lat) lies within the shape
// and, if so, its distance from the centre in meters (geoWithinShape).
func (s *Shape) Contains(lon, lat float64) (dist float64, ok bool) {
	if s.Kind == Circle {
		dist = Distance(s.Lon, s.Lat, lon, lat)
		return dist, !(dist > s.Radius*s.Conversion)
	}
	widthM := s.Width * s.Conversion
	heightM := s.Height * s.Conversion
	if LatDistance(lat, s.Lat) > heightM/2 {
		return 0, false
	}
	if Distance(lon, lat, s.Lon, lat) > widthM/2 {
		return 0, false
	}
	return Distance(s.Lon, s.Lat, lon, lat), true
}
