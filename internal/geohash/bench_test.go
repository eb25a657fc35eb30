package geohash

import "testing"

var sinkF float64

func BenchmarkDistance(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		sinkF += Distance(13.361389, 38.115556, 15.087269+float64(i&7), 37.502669)
	}
}

func BenchmarkCoverShape(b *testing.B) {
	s := Shape{Kind: Circle, Lon: 13.361389, Lat: 38.115556, Conversion: 1000, Radius: 200}
	for b.Loop() {
		c := CoverShape(&s)
		sinkF += float64(c.Hash.Bits)
	}
}

func BenchmarkDecodeScore(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		lon, lat := DecodeScore(3479099956230698 + float64(i&1023))
		sinkF += lon + lat
	}
}
