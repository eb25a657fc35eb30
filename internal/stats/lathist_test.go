package stats

import (
	"fmt"
	"testing"
)

// The LATENCY HISTOGRAM labels are Redis's (its documented example and
// observed replies: 1, 2, 4, 8, 16, 33 ... and 1073741 for calls from about
// half a second on).
func TestLatencyLabels(t *testing.T) {
	want := []int64{1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16908, 33816, 67633, 135266, 270532, 541065, 1073741}
	if fmt.Sprint(latLabels[:]) != fmt.Sprint(want) {
		t.Fatalf("labels %v, want %v", latLabels, want)
	}
}

// Every microsecond falls in the bucket whose range holds it, buckets are
// in order, and the LATENCY HISTOGRAM level of a call is the first label at
// or above it.
func TestLatencyBuckets(t *testing.T) {
	prevHi := int64(-1)
	for i := range latBuckets {
		lo, hi := latRange(i)
		if lo != prevHi+1 || hi < lo {
			t.Fatalf("bucket %d: [%d, %d] after %d", i, lo, hi, prevHi)
		}
		prevHi = hi
	}
	if prevHi != latMaxUs {
		t.Fatalf("the last bucket ends at %d", prevHi)
	}
	for us := int64(-3); us <= latMaxUs+10; us++ {
		if us > 5000 && us%97 != 0 && us < latMaxUs-10 {
			continue
		}
		i := latIndex(us)
		c := min(max(us, 0), latMaxUs)
		if lo, hi := latRange(i); c < lo || c > hi {
			t.Fatalf("%d µs in bucket %d [%d, %d]", us, i, lo, hi)
		}
		k := latLevel(i)
		if c > latLabels[k] && k < latLevels-1 || k > 0 && c <= latLabels[k-1] {
			t.Fatalf("%d µs at level %d (label %d)", us, k, latLabels[k])
		}
	}
}

// Percentiles print what Redis's HDR histogram prints for the same calls
// (values from Redis 8.0.2's INFO latencystats).
func TestLatencyPercentiles(t *testing.T) {
	one := func(us int64) *Counts {
		var h Counts
		h[latIndex(us)]++
		return &h
	}
	for _, tc := range []struct {
		us   int64
		p    float64
		want string
	}{
		{0, 50, "0.001"}, {1, 99, "1.003"}, {2, 50, "2.007"}, {3, 50, "3.007"}, {5, 50, "5.023"},
		{16, 99.9, "16.063"}, {11, 50, "11.007"}, {23, 50, "23.039"}, {0, 0, "0.001"},
	} {
		if got := fmt.Sprintf("%.3f", one(tc.us).Percentile(tc.p, 1)); got != tc.want {
			t.Errorf("%d µs p%v = %s, want %s", tc.us, tc.p, got, tc.want)
		}
	}
	// Above 33 µs, within an eighth of the bucket, never below Redis's.
	for _, tc := range []struct {
		us        int64
		redis     float64
		tolerance float64
	}{{78, 78.335, 0.125}, {75, 75.263, 0.125}, {549453, 549453.823, 0.125}} {
		got := one(tc.us).Percentile(50, 1)
		if got < tc.redis || got > tc.redis*(1+tc.tolerance) {
			t.Errorf("%d µs: p50 %.3f, Redis %.3f", tc.us, got, tc.redis)
		}
	}
	// Counts: p50 of 3 calls at 1 µs and 1 at 10 µs is 1.003; p99 10.047.
	var h Counts
	h[latIndex(1)] += 3
	h[latIndex(10)]++
	if p50, p99 := h.Percentile(50, 4), h.Percentile(99, 4); fmt.Sprintf("%.3f %.3f", p50, p99) != "1.003 10.047" {
		t.Errorf("p50 %.3f p99 %.3f", p50, p99)
	}
}
