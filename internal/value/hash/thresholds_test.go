package hash

import (
	"strconv"
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

func hashOf(pairs ...string) *Hash {
	h := New()
	for i := 0; i+1 < len(pairs); i += 2 {
		h.Set([]byte(pairs[i]), []byte(pairs[i+1]))
	}
	return h
}

// TestThresholdsAsRedis follows Redis 8.0.2's hashTypeSet and
// hashTypeTryConversion at hash-max-listpack-entries 4 and
// hash-max-listpack-value 5 (each case checked against a real Redis).
func TestThresholdsAsRedis(t *testing.T) {
	withThresholds(t, 4, 5)
	for _, c := range []struct {
		name  string
		pairs []string
		want  string
	}{
		{"entries at the limit", []string{"a", "1", "b", "2", "c", "3", "d", "4"}, "listpack"},
		{"one over", []string{"a", "1", "b", "2", "c", "3", "d", "4", "e", "5"}, "hashtable"},
		{"updates do not count", []string{"a", "1", "a", "2", "a", "3", "a", "4", "a", "5"}, "listpack"},
		{"value at the limit", []string{"a", "12345"}, "listpack"},
		{"value over", []string{"a", "123456"}, "hashtable"},
		{"field over", []string{"abcdef", "1"}, "hashtable"},
	} {
		if got := hashOf(c.pairs...).Encoding(); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	h := hashOf("a", "1")
	h.Reserve(4)
	if h.Encoding() != "listpack" {
		t.Errorf("Reserve(4) converted")
	}
	h.Reserve(5) // HSET with five pairs, whether or not the fields exist
	if h.Encoding() != "hashtable" {
		t.Errorf("Reserve(5) kept a listpack")
	}
}

// TestLoweredThresholdConvertsAtNextWrite: an update too converts a hash
// past a lowered hash-max-listpack-entries; raising it converts nothing back.
func TestLoweredThresholdConvertsAtNextWrite(t *testing.T) {
	withThresholds(t, 4, 5)
	h := hashOf("a", "1", "b", "2", "c", "3")
	SetThresholds(2, 5)
	if h.Encoding() != "listpack" {
		t.Fatal("converted by the threshold change itself")
	}
	h.Delete([]byte("c"))
	if h.Encoding() != "listpack" {
		t.Fatal("converted by a deletion")
	}
	h.Set([]byte("a"), []byte("x"))
	if h.Encoding() != "listpack" {
		t.Fatal("2 fields converted at hash-max-listpack-entries 2")
	}
	h.Set([]byte("c"), []byte("3"))
	if h.Encoding() != "hashtable" {
		t.Fatal("3 fields stayed a listpack at hash-max-listpack-entries 2")
	}
	SetThresholds(512, 64)
	h.Delete([]byte("c"))
	h.Set([]byte("a"), []byte("y"))
	if h.Encoding() != "hashtable" {
		t.Fatal("a hashtable converted back")
	}
}

// TestListpackBeyondCompactForm: with thresholds above the compact form's
// own bounds the hash lives in a dict but reports (and scans as) a listpack.
func TestListpackBeyondCompactForm(t *testing.T) {
	withThresholds(t, 1000, 1000)
	h := New()
	long := strings.Repeat("v", 900)
	for i := range 100 {
		h.Set([]byte("f"+strconv.Itoa(i)), []byte(long))
	}
	if h.Encoding() != "listpack" || h.d == nil {
		t.Fatalf("encoding %s, dict %v", h.Encoding(), h.d != nil)
	}
	n := 0
	if cur := h.Scan(0, 1, func(f, v []byte) { n++ }); cur != 0 || n != 100 {
		t.Fatalf("Scan returned cursor %d after %d fields, want the whole hash at once", cur, n)
	}
	h.Set([]byte("x"), []byte(strings.Repeat("w", 1001)))
	if h.Encoding() != "hashtable" {
		t.Fatalf("a 1001-byte value kept a listpack")
	}
}

// TestFitCountAsRestore: a hash loaded from a listpack payload is judged by
// its count only.
func TestFitCountAsRestore(t *testing.T) {
	withThresholds(t, 2, 3)
	h := hashOf("a", "123456", "b", "1")
	h.FitCount()
	if h.Encoding() != "listpack" {
		t.Fatalf("long value: %s, want listpack", h.Encoding())
	}
	h = hashOf("a", "1", "b", "2", "c", "3")
	h.FitCount()
	if h.Encoding() != "hashtable" {
		t.Fatalf("3 fields: %s, want hashtable", h.Encoding())
	}
}
