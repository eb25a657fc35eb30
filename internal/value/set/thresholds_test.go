package set

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// withThresholds sets the process-wide thresholds for one test and restores
// Redis's defaults after it (tests that use it must not run in parallel).
func withThresholds(t *testing.T, intsetEntries, listpackEntries, listpackValue int64) {
	t.Helper()
	SetThresholds(intsetEntries, listpackEntries, listpackValue)
	t.Cleanup(func() { SetThresholds(DefaultIntsetEntries, DefaultListpackEntries, DefaultListpackValue) })
}

func setOf(ms ...string) *Set {
	s := New(b(ms[0]), 1)
	for _, m := range ms {
		s.Add(b(m))
	}
	return s
}

func ints(n int) []string {
	var out []string
	for i := range n {
		out = append(out, strconv.Itoa(i+1))
	}
	return out
}

// TestThresholdsAsRedis follows Redis 8.0.2's setTypeAdd with
// set-max-intset-entries 10, set-max-listpack-entries 5 and
// set-max-listpack-value 3 (each case checked against a real Redis).
func TestThresholdsAsRedis(t *testing.T) {
	withThresholds(t, 10, 5, 3)
	for _, c := range []struct {
		name string
		ms   []string
		want string
	}{
		{"intset at the limit", ints(10), "intset"},
		{"intset one over", ints(11), "hashtable"},
		{"short ints take a short string", []string{"100", "2", "a"}, "listpack"},
		{"a 4-digit int is too long for the listpack", []string{"1000", "2", "a"}, "hashtable"},
		{"the sign counts", []string{"-10", "2", "abc"}, "listpack"},
		{"the sign counts over", []string{"-100", "2", "abc"}, "hashtable"},
		{"intset of 4 takes a string", append(ints(4), "abc"), "listpack"},
		{"intset of 5 does not", append(ints(5), "abc"), "hashtable"},
		{"string at the value limit", []string{"abc"}, "listpack"},
		{"string over it", []string{"abcd"}, "hashtable"},
		{"listpack at the entry limit", []string{"a", "b", "c", "d", "e"}, "listpack"},
		{"listpack one over", []string{"a", "b", "c", "d", "e", "f"}, "hashtable"},
		{"listpack then a long string", []string{"a", "b", "abcd"}, "hashtable"},
	} {
		if got := setOf(c.ms...).Encoding(); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// New and Reserve size a set by the members a command brings.
	for _, c := range []struct {
		first string
		hint  int
		want  string
	}{{"1", 10, "intset"}, {"1", 11, "hashtable"}, {"a", 5, "listpack"}, {"a", 6, "hashtable"}, {"1", 6, "intset"}} {
		if got := New(b(c.first), c.hint).Encoding(); got != c.want {
			t.Errorf("New(%s, %d): %s, want %s", c.first, c.hint, got, c.want)
		}
	}
	s := setOf("a", "b")
	s.Reserve(5)
	if s.Encoding() != "listpack" {
		t.Errorf("Reserve(5) converted a listpack")
	}
	s.Reserve(6)
	if s.Encoding() != "hashtable" {
		t.Errorf("Reserve(6) kept a listpack")
	}
	s = setOf("1", "2")
	s.Reserve(11)
	if s.Encoding() != "hashtable" {
		t.Errorf("Reserve(11) kept an intset")
	}
}

// TestThresholdChangeDoesNotConvert: a set converts at the write that
// crosses a threshold, never because a threshold changed.
func TestThresholdChangeDoesNotConvert(t *testing.T) {
	withThresholds(t, 2, 2, 64)
	big := setOf("1", "2", "3")
	lp := setOf("a", "b")
	SetThresholds(512, 1, 64)
	if big.Encoding() != "hashtable" || lp.Encoding() != "listpack" {
		t.Fatalf("encodings changed with the thresholds: %s, %s", big.Encoding(), lp.Encoding())
	}
	big.Remove(b("3"))
	big.Remove(b("2"))
	if big.Encoding() != "hashtable" {
		t.Errorf("a hashtable converted back: %s", big.Encoding())
	}
	lp.Remove(b("b"))
	if lp.Encoding() != "listpack" {
		t.Errorf("a listpack converted on removal: %s", lp.Encoding())
	}
	lp.Add(b("c")) // 2 members > 1
	if lp.Encoding() != "hashtable" {
		t.Errorf("a listpack past the new limit did not convert on its next add: %s", lp.Encoding())
	}
}

// TestLongListpackMembers: with set-max-listpack-value raised, members
// longer than a one-byte length live in the listpack.
func TestLongListpackMembers(t *testing.T) {
	withThresholds(t, 512, 128, 100000)
	long := []string{strings.Repeat("x", 127), strings.Repeat("y", 128), strings.Repeat("z", 70000), "a", ""}
	s := New(b(long[0]), 1)
	for _, m := range long {
		if !s.Add(b(m)) {
			t.Fatalf("Add(%d bytes) = false", len(m))
		}
	}
	if s.Encoding() != "listpack" {
		t.Fatalf("encoding %s", s.Encoding())
	}
	if got := members(s); !slices.Equal(got, long) {
		t.Fatalf("members out of order or damaged")
	}
	for _, m := range long {
		if !s.Has(b(m)) || s.Add(b(m)) {
			t.Fatalf("member of %d bytes not found", len(m))
		}
	}
	if !s.Remove(b(long[1])) || s.Has(b(long[1])) || s.Len() != 4 {
		t.Fatalf("Remove of a 128-byte member failed")
	}
	seen := map[string]bool{}
	for range 200 {
		seen[string(s.Random(nil))] = true
	}
	if len(seen) != 4 {
		t.Fatalf("Random drew %d distinct members, want 4", len(seen))
	}
	c := s.Clone().(*Set)
	for s.Len() > 0 {
		m := string(s.Pop(nil))
		if !c.Has(b(m)) {
			t.Fatalf("Pop returned %d bytes not in the set", len(m))
		}
	}
	// Converting a set with long members keeps them.
	SetThresholds(512, 2, 100000)
	c.Add(b("new"))
	if c.Encoding() != "hashtable" || c.Len() != 5 || !c.Has(b(long[2])) {
		t.Fatalf("conversion lost members: %s %d", c.Encoding(), c.Len())
	}
}

// TestLoadingAsRedis: RESTORE's rules. A listpack payload is checked by
// its count only; members listed one by one go through Add from an intset,
// or a hashtable past set-max-intset-entries.
func TestLoadingAsRedis(t *testing.T) {
	withThresholds(t, 3, 2, 3)
	s, ok := FromListpack([][]byte{b("abcdef"), b("x")})
	if !ok || s.Encoding() != "listpack" {
		t.Fatalf("listpack payload with a long member: %v %s", ok, s.Encoding())
	}
	if s, _ = FromListpack([][]byte{b("a"), b("b"), b("c")}); s.Encoding() != "hashtable" {
		t.Fatalf("listpack payload over the count: %s", s.Encoding())
	}
	if _, ok = FromListpack([][]byte{b("a"), b("a")}); ok {
		t.Fatalf("a repeated member was accepted")
	}
	if NewLoading(3).Encoding() != "intset" || NewLoading(4).Encoding() != "hashtable" {
		t.Fatalf("NewLoading picks %s for 3, %s for 4", NewLoading(3).Encoding(), NewLoading(4).Encoding())
	}
}
