package zset

import (
	"strings"
	"testing"
)

// withThresholds sets the process-wide thresholds for one test and restores
// Redis's defaults after it (tests that use it must not run in parallel).
func withThresholds(t *testing.T, entries, value int64) {
	t.Helper()
	SetThresholds(entries, value)
	t.Cleanup(func() { SetThresholds(DefaultListpackEntries, DefaultListpackValue) })
}

// TestThresholdsAsRedis follows Redis 8.0.2 at zset-max-listpack-entries 4
// and zset-max-listpack-value 5 (checked against a real Redis).
func TestThresholdsAsRedis(t *testing.T) {
	withThresholds(t, 4, 5)
	z := New(1, 1)
	for _, m := range []string{"a", "b", "c", "d"} {
		z.Set(m, 1)
	}
	if z.Encoding() != "listpack" {
		t.Fatalf("4 members: %s", z.Encoding())
	}
	z.Set("a", 2) // an update converts nothing
	if z.Encoding() != "listpack" {
		t.Fatalf("update: %s", z.Encoding())
	}
	z.Set("e", 1)
	if z.Encoding() != "skiplist" {
		t.Fatalf("5 members: %s", z.Encoding())
	}
	for _, c := range []struct {
		n, maxLen int
		want      string
	}{{4, 5, "listpack"}, {5, 5, "skiplist"}, {4, 6, "skiplist"}} {
		if got := New(c.n, c.maxLen).Encoding(); got != c.want {
			t.Errorf("New(%d, %d): %s, want %s", c.n, c.maxLen, got, c.want)
		}
	}
	z = New(1, 1)
	z.Set("abcde", 1)
	if z.Encoding() != "listpack" {
		t.Fatalf("5-byte member: %s", z.Encoding())
	}
	z.Set("abcdef", 1)
	if z.Encoding() != "skiplist" {
		t.Fatalf("6-byte member: %s", z.Encoding())
	}
	z = New(1, 1)
	z.Set("a", 1)
	z.Expect(4)
	if z.Encoding() != "listpack" {
		t.Fatalf("Expect(4): %s", z.Encoding())
	}
	z.Expect(5) // ZADD with five pairs, added or not
	if z.Encoding() != "skiplist" {
		t.Fatalf("Expect(5): %s", z.Encoding())
	}
	// A lowered limit converts at the next insertion only.
	z = New(1, 1)
	z.Set("abcde", 1)
	z.Set("b", 1)
	SetThresholds(1, 1)
	z.Set("abcde", 3)
	if z.Encoding() != "listpack" {
		t.Fatalf("update after lowering: %s", z.Encoding())
	}
	z.Set("c", 1)
	if z.Encoding() != "skiplist" {
		t.Fatalf("insertion after lowering: %s", z.Encoding())
	}
}

// TestFitAndFitCount: a built set (Fit) is judged by count and member
// lengths, one loaded from a listpack payload (FitCount) by its count only.
func TestFitAndFitCount(t *testing.T) {
	withThresholds(t, 2, 3)
	z := FromSorted([]string{"a", strings.Repeat("x", 4)}, []float64{1, 2})
	if z.Encoding() != "skiplist" {
		t.Fatalf("Fit with a long member: %s", z.Encoding())
	}
	z.FitCount()
	if z.Encoding() != "listpack" {
		t.Fatalf("FitCount with a long member: %s", z.Encoding())
	}
	z.Set("b", -0.0) // a third member: a listpack insertion converts
	if z.Encoding() != "skiplist" {
		t.Fatalf("3 members: %s", z.Encoding())
	}
	z.FitCount()
	if z.Encoding() != "skiplist" {
		t.Fatalf("FitCount of 3 members: %s", z.Encoding())
	}
}
