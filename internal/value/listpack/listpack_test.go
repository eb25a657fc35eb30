package listpack

import (
	"strconv"
	"testing"
)

// TestSizes checks the entry sizes at the edges of each listpack encoding
// (the list package's TestEntrySize checks strings against Redis's).
func TestSizes(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want int
	}{
		{0, 2}, {127, 2}, {128, 3}, {-1, 3}, {-4096, 3}, {4095, 3}, {4096, 4}, {-32768, 4}, {32768, 5},
		{-8388608, 5}, {8388608, 6}, {2147483647, 6}, {-2147483649, 10}, {1 << 62, 10},
	} {
		if got := IntSize(c.v); got != c.want {
			t.Errorf("IntSize(%d) = %d, want %d", c.v, got, c.want)
		}
		if got := EntrySize([]byte(strconv.FormatInt(c.v, 10))); got != c.want {
			t.Errorf("EntrySize(%d) = %d, want %d", c.v, got, c.want)
		}
	}
	for _, c := range []struct{ n, want int }{{0, 2}, {63, 65}, {64, 67}, {125, 128}, {126, 130}, {4095, 4099}, {4096, 4103}} {
		b := make([]byte, c.n)
		for i := range b {
			b[i] = 'x'
		}
		if got := EntrySize(b); got != c.want {
			t.Errorf("EntrySize(%d bytes) = %d, want %d", c.n, got, c.want)
		}
	}
}
