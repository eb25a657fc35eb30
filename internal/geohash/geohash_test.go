package geohash

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// Values Redis 8.0.2 answers for its documentation's example.
func TestRedisExample(t *testing.T) {
	for _, c := range []struct {
		lon, lat    float64
		score       float64
		decLon      string
		decLat      string
		hash        string
		distToFirst string
	}{
		{13.361389, 38.115556, 3479099956230698, "13.361389338970184", "38.1155563954963", "sqc8b49rny0", "0.0000"},
		{15.087269, 37.502669, 3479447370796909, "15.087267458438873", "37.50266842333162", "sqdtr74hyu0", "166274.1516"},
	} {
		score := EncodeScore(c.lon, c.lat)
		if score != c.score {
			t.Errorf("EncodeScore(%v, %v) = %v, want %v", c.lon, c.lat, score, c.score)
		}
		lon, lat := DecodeScore(score)
		if got := strconv.FormatFloat(lon, 'g', -1, 64); got != c.decLon {
			t.Errorf("longitude %s, want %s", got, c.decLon)
		}
		if got := strconv.FormatFloat(lat, 'g', -1, 64); got != c.decLat {
			t.Errorf("latitude %s, want %s", got, c.decLat)
		}
		if got := String(lon, lat); got != c.hash {
			t.Errorf("String = %s, want %s", got, c.hash)
		}
		lon0, lat0 := DecodeScore(3479099956230698)
		if got := string(AppendDistance(nil, Distance(lon0, lat0, lon, lat))); got != c.distToFirst {
			t.Errorf("distance %s, want %s", got, c.distToFirst)
		}
	}
}

func TestEncodeLimits(t *testing.T) {
	for _, c := range []struct {
		lon, lat float64
		ok       bool
	}{{0, 0, true}, {180, 85.05112878, true}, {-180, -85.05112878, true}, {180.0000001, 0, false},
		{0, 85.051128781, false}, {0, -90, false}, {math.Inf(1), 0, false}} {
		if IsValid(c.lon, c.lat) != c.ok {
			t.Errorf("IsValid(%v, %v) = %v", c.lon, c.lat, !c.ok)
		}
		if _, ok := EncodeWGS84(c.lon, c.lat, StepMax); ok != c.ok {
			t.Errorf("EncodeWGS84(%v, %v) ok = %v", c.lon, c.lat, ok)
		}
	}
	// The upper limits encode one cell past the last, as in Redis: the
	// score gets bit 52 (latitude) and 53 (longitude), and decodes clamped.
	if s := EncodeScore(180, 85.05112878); s != float64(uint64(3)<<52) {
		t.Errorf("EncodeScore(180, max) = %v", s)
	}
	if lon, lat := DecodeScore(float64(uint64(3) << 52)); lon != 180 || lat != 85.05112878 {
		t.Errorf("decoded %v, %v", lon, lat)
	}
	if s := EncodeScore(-180, -85.05112878); s != 0 {
		t.Errorf("EncodeScore(min) = %v", s)
	}
}

func TestScoreBits(t *testing.T) {
	for _, c := range []struct {
		score float64
		want  uint64
	}{
		{0, 0}, {1.5, 1}, {-0.5, 0}, {-5, 0xfffffffffffffffb}, {-1e19, 1 << 63}, {9.3e18, 9300000000000000000},
		{math.Ldexp(1, 64), 0}, {1e20, 0}, {math.Inf(1), 0}, {math.Inf(-1), 1 << 63}, {4503599627370496, 1 << 52},
	} {
		if got := ScoreBits(c.score); got != c.want {
			t.Errorf("ScoreBits(%v) = %#x, want %#x", c.score, got, c.want)
		}
	}
}

func TestInterleave(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		x, y := r.Uint32(), r.Uint32()
		v := interleave64(x, y)
		for b := 0; b < 32; b++ {
			if (v>>(2*b))&1 != uint64(x>>b)&1 || (v>>(2*b+1))&1 != uint64(y>>b)&1 {
				t.Fatalf("interleave64(%#x, %#x) = %#x", x, y, v)
			}
		}
		if d := deinterleave64(v); d != uint64(x)|uint64(y)<<32 {
			t.Fatalf("deinterleave64(%#x) = %#x", v, d)
		}
	}
}

// TestNeighbors: each neighbour's cell touches the centre cell on the
// right side, wrapping around in longitude and latitude.
func TestNeighbors(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	longR, latR := CoordRange()
	for i := 0; i < 5000; i++ {
		step := uint8(1 + r.IntN(StepMax))
		h, ok := EncodeWGS84(r.Float64()*359.99-179.99, r.Float64()*170-85, step)
		if !ok {
			t.Fatal("encode failed")
		}
		c, _ := Decode(longR, latR, h)
		n := GetNeighbors(h)
		cellsX := uint64(1) << step
		x := func(a Area) uint64 { return uint64(math.Round((a.Longitude.Min + 180) / 360 * float64(cellsX))) }
		y := func(a Area) uint64 {
			return uint64(math.Round((a.Latitude.Min - latR.Min) / (latR.Max - latR.Min) * float64(cellsX)))
		}
		for _, nb := range []struct {
			h      Bits
			dx, dy int64
		}{{n.North, 0, 1}, {n.South, 0, -1}, {n.East, 1, 0}, {n.West, -1, 0},
			{n.NorthEast, 1, 1}, {n.NorthWest, -1, 1}, {n.SouthEast, 1, -1}, {n.SouthWest, -1, -1}} {
			a, _ := Decode(longR, latR, nb.h)
			wantX := (int64(x(c)) + nb.dx + int64(cellsX)) % int64(cellsX)
			wantY := (int64(y(c)) + nb.dy + int64(cellsX)) % int64(cellsX)
			if int64(x(a)) != wantX || int64(y(a)) != wantY || nb.h.Step != step {
				t.Fatalf("step %d cell (%d,%d): neighbour (%d,%d) at (%d,%d)", step, x(c), y(c), nb.dx, nb.dy, x(a), y(a))
			}
		}
	}
}

func TestEstimateSteps(t *testing.T) {
	for _, c := range []struct {
		meters, lat float64
		want        uint8
	}{
		{0, 0, 26}, {1, 0, 24}, {100, 0, 17}, {1000, 0, 14}, {100000, 0, 7}, {1e7, 0, 1}, {1e12, 0, 1},
		{100000, 70, 6}, {100000, -81, 5}, {1e-300, 0, 26}, {math.Inf(1), 0, 1},
	} {
		if got := EstimateSteps(c.meters, c.lat); got != c.want {
			t.Errorf("EstimateSteps(%v, %v) = %d, want %d", c.meters, c.lat, got, c.want)
		}
	}
}

// TestCoverBasics: the cover's cells are distinct, at the precision the
// radius calls for, and a box's bounds are not wrapped at the antimeridian.
func TestCoverBasics(t *testing.T) {
	s := Shape{Kind: Circle, Lon: 13.361389, Lat: 38.115556, Conversion: 1000, Radius: 200}
	c := CoverShape(&s)
	if c.Hash.Step != 6 {
		t.Errorf("200 km cover at step %d", c.Hash.Step)
	}
	seen := map[Bits]bool{}
	for _, cell := range c.Cells() {
		if cell.IsZero() {
			continue
		}
		if seen[cell] {
			t.Errorf("cell %v twice", cell)
		}
		seen[cell] = true
	}
	s.Radius = 0
	if c := CoverShape(&s); c.Hash.Step != StepMax {
		t.Errorf("radius 0 cover at step %d", c.Hash.Step)
	}
	// A box at the antimeridian reaches past 180 in its bounds.
	b := Shape{Kind: Box, Lon: 179.9, Lat: 0, Conversion: 1000, Width: 100, Height: 100}
	if bb := b.BoundingBox(); bb[2] <= 180 || bb[0] >= 179.9 {
		t.Errorf("bounding box %v", bb)
	}
}

func TestDistanceProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		lon1, lat1 := r.Float64()*360-180, r.Float64()*170-85
		lon2, lat2 := r.Float64()*360-180, r.Float64()*170-85
		d := Distance(lon1, lat1, lon2, lat2)
		if math.IsNaN(d) || d < 0 || d > math.Pi*earthRadius*1.0000001 {
			t.Fatalf("Distance(%v,%v,%v,%v) = %v", lon1, lat1, lon2, lat2, d)
		}
		if math.Abs(d-Distance(lon2, lat2, lon1, lat1)) > 1e-6 {
			t.Fatalf("asymmetric: %v", d)
		}
	}
	if d := Distance(10, 20, 10, 30); d != LatDistance(20, 30) {
		t.Errorf("same meridian: %v vs %v", d, LatDistance(20, 30))
	}
}

func TestContains(t *testing.T) {
	circle := Shape{Kind: Circle, Lon: 0, Lat: 0, Conversion: 1000, Radius: 100}
	box := Shape{Kind: Box, Lon: 0, Lat: 0, Conversion: 1000, Width: 200, Height: 100}
	for _, c := range []struct {
		s        *Shape
		lon, lat float64
		in       bool
	}{
		{&circle, 0, 0, true}, {&circle, 0.8, 0, true}, {&circle, 0.9, 0, false}, {&circle, 0.6, 0.6, true}, {&circle, 0.7, 0.7, false},
		{&box, 0.8, 0, true}, {&box, 0.85, 0.4, true}, {&box, 0.9, 0.4, false}, {&box, 0, 0.5, false}, {&box, -0.85, -0.44, true},
	} {
		if _, in := c.s.Contains(c.lon, c.lat); in != c.in {
			t.Errorf("%v contains (%v, %v) = %v", c.s.Kind, c.lon, c.lat, in)
		}
	}
}

func TestAppendDistance(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want string
	}{
		{0, "0.0000"}, {math.Copysign(0, -1), "0.0000"}, {0.00004, "0.0000"}, {0.00005, "0.0000"}, {0.00015, "0.0001"},
		// Ties after the product round to even (printf's %.4f, on the
		// exact value, would answer 0.0003, 0.0013 and 0.0037).
		{0.00025, "0.0002"}, {0.00125, "0.0012"}, {0.00375, "0.0038"}, {0.7750, "0.7750"}, {1.23456, "1.2346"}, {12345.6789, "12345.6789"}, {166274.15156, "166274.1516"},
		{-1.5, "-1.5000"}, {20037726.37, "20037726.3700"}, {math.NaN(), "-922337203685477.5808"},
	} {
		if got := string(AppendDistance(nil, c.d)); got != c.want {
			t.Errorf("AppendDistance(%v) = %s, want %s", c.d, got, c.want)
		}
	}
}

// TestSortPoints: the full sort is stable; the partial sort puts the
// nearest keep points first, in order, whatever the ties.
func TestSortPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 2000; i++ {
		n := 1 + r.IntN(200)
		ps := make([]Point, n)
		for j := range ps {
			ps[j] = Point{Dist: float64(r.IntN(1 + r.IntN(50))), Member: strconv.Itoa(j)}
		}
		desc := r.IntN(2) == 0
		less := func(a, b Point) bool {
			if desc {
				return a.Dist > b.Dist
			}
			return a.Dist < b.Dist
		}
		want := slices.Clone(ps)
		sort.SliceStable(want, func(i, j int) bool { return less(want[i], want[j]) })
		full := slices.Clone(ps)
		SortPoints(full, desc, n)
		if !slices.Equal(full, want) {
			t.Fatalf("full sort of %d is not the stable sort", n)
		}
		keep := 1 + r.IntN(n)
		part := slices.Clone(ps)
		SortPoints(part, desc, keep)
		for j := 0; j < keep; j++ {
			if part[j].Dist != want[j].Dist {
				t.Fatalf("partial sort of %d keeping %d: rank %d has %v, want %v", n, keep, j, part[j].Dist, want[j].Dist)
			}
		}
		seen := map[string]bool{}
		for _, p := range part {
			seen[p.Member] = true
		}
		if len(seen) != n {
			t.Fatal("partial sort lost points")
		}
	}
}

// FuzzEncodeDecode: any valid position encodes to a score that decodes
// within its cell (half a cell from the input, which is 0.6 m at most),
// whose re-encoding is the same score, and whose geohash string has 11
// characters; distances from it are finite and symmetric. Longitude 180
// is the exception Redis makes too: its score needs 54 bits, so the
// double loses the lowest latitude bit (one cell).
func FuzzEncodeDecode(f *testing.F) {
	for _, p := range [][2]float64{{0, 0}, {13.361389, 38.115556}, {180, 85.05112878}, {-180, -85.05112878}, {179.999999, -0.000001}} {
		f.Add(p[0], p[1], 1.0, 2.0)
	}
	f.Fuzz(func(t *testing.T, lon, lat, lon2, lat2 float64) {
		if !IsValid(lon, lat) {
			if _, ok := EncodeWGS84(lon, lat, StepMax); ok {
				t.Fatalf("(%v, %v) encoded", lon, lat)
			}
			return
		}
		score := EncodeScore(lon, lat)
		dlon, dlat := DecodeScore(score)
		latCells := 1.0
		if lon == 180 {
			latCells = 2
		}
		if math.Abs(dlon-lon) > 360.0/(1<<26) || math.Abs(dlat-lat) > latCells*171.0/(1<<26) {
			t.Fatalf("(%v, %v) decodes to (%v, %v)", lon, lat, dlon, dlat)
		}
		if lon < 180 && lat < LatMax && EncodeScore(dlon, dlat) != score {
			t.Fatalf("(%v, %v): re-encoding changes the score", lon, lat)
		}
		if s := String(dlon, dlat); len(s) != 11 || s[10] != '0' {
			t.Fatalf("String = %q", s)
		}
		if !IsValid(lon2, lat2) {
			return
		}
		d1, d2 := Distance(lon, lat, lon2, lat2), Distance(lon2, lat2, lon, lat)
		if math.IsNaN(d1) || d1 < 0 || math.Abs(d1-d2) > 1e-6 {
			t.Fatalf("Distance = %v / %v", d1, d2)
		}
	})
}
