package list

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// withFill sets list-max-listpack-size for one test and restores Redis's
// default after it (tests that use it must not run in parallel).
func withFill(t *testing.T, fill int64) {
	t.Helper()
	SetFill(fill)
	t.Cleanup(func() { SetFill(DefaultFill) })
}

// shape lists the list's nodes as element counts, a plain node as -1; a
// listpack is one node.
func shape(l *List) []int {
	var out []int
	l.EachNode(func(plain bool, vals [][]byte) {
		if plain {
			out = append(out, -1)
		} else {
			out = append(out, len(vals))
		}
	})
	return out
}

func TestNodeLimits(t *testing.T) {
	for _, c := range []struct {
		fill        int64
		size, count int
	}{
		{-1, 4096, 0}, {-2, 8192, 0}, {-3, 16384, 0}, {-4, 32768, 0}, {-5, 65536, 0}, {-6, 65536, 0},
		{-1000, 65536, 0}, {0, 8192, 1}, {1, 8192, 1}, {7, 8192, 7},
	} {
		m := limitsOf(c.fill)
		if m.size != c.size || (c.count != 0 && m.count != c.count) {
			t.Errorf("limitsOf(%d) = %+v", c.fill, m)
		}
		// isLargeElement and quicklistNodeExceedsLimit at count 1 turn at
		// the size; a positive fill also bounds the count.
		if !m.large(c.size+1) || m.large(c.size) || !m.exceeds(c.size+1, 1) || m.exceeds(c.size, 1) {
			t.Errorf("fill %d: large/exceeds not at %d bytes", c.fill, c.size)
		}
		if c.count != 0 && (!m.exceeds(10, c.count+1) || m.exceeds(10, c.count)) {
			t.Errorf("fill %d: exceeds not at %d entries", c.fill, c.count)
		}
	}
	// quicklistNodeLimit, for the conversion back: counts leave the size
	// unbounded, sizes the count; a new quicklist's fill is clamped.
	SetFill(7)
	if r := server.Load(); r.size != math.MaxInt || r.count != 7 || r.node != limitsOf(7) {
		t.Errorf("fill 7: %+v", r)
	}
	SetFill(-9)
	if r := server.Load(); r.size != 65536 || r.count != math.MaxInt || r.node != limitsOf(-5) {
		t.Errorf("fill -9: %+v", r)
	}
	SetFill(1 << 20)
	if r := server.Load(); r.count != 1<<20 || r.node.count != 1<<15-1 {
		t.Errorf("fill 2^20: %+v", r)
	}
	SetFill(DefaultFill)
}

// TestFillsAgainstSlice runs the random operations under several fills,
// where nodes split, merge and turn plain often.
func TestFillsAgainstSlice(t *testing.T) {
	for _, fill := range []int64{-1, -5, 0, 1, 3, 10} {
		withFill(t, fill)
		againstSlice(t, uint64(fill+100), 1500)
	}
}

// TestQuicklistNodesAsRedis follows Redis 8.0.2's quicklist node rules at
// list-max-listpack-size 3 (shapes read from DEBUG OBJECT and DUMP on a
// real Redis).
func TestQuicklistNodesAsRedis(t *testing.T) {
	withFill(t, 3)
	vals := func(from, to int) [][]byte {
		var out [][]byte
		for i := from; i <= to; i++ {
			out = append(out, []byte("v"+strconv.Itoa(i)))
		}
		return out
	}
	l := New()
	l.PushBack(vals(1, 3)...)
	if l.Encoding() != "listpack" || !slices.Equal(shape(l), []int{3}) {
		t.Fatalf("3 elements: %s %v", l.Encoding(), shape(l))
	}
	l.PushBack(vals(4, 4)...) // the listpack becomes the first node
	l.PushBack(vals(5, 7)...)
	if l.Encoding() != "quicklist" || !slices.Equal(shape(l), []int{3, 3, 1}) {
		t.Fatalf("7 elements: %s %v", l.Encoding(), shape(l))
	}
	l.Insert(1, []byte("x"), true) // a full node splits after v2; the halves merge with neighbours that fit
	if want := []int{2, 2, 3, 1}; !slices.Equal(shape(l), want) {
		t.Fatalf("after LINSERT: %v, want %v", shape(l), want)
	}
	l.Set(0, []byte(strings.Repeat("y", 9000))) // a large element gets a plain node
	if want := []int{-1, 1, 2, 3, 1}; !slices.Equal(shape(l), want) {
		t.Fatalf("after LSET large: %v, want %v", shape(l), want)
	}
	for l.Len() > 1 {
		l.PopBack()
	}
	if l.Encoding() != "quicklist" {
		t.Fatal("a plain node converted back to a listpack")
	}
	l.Set(0, []byte("z")) // the plain node gives way to a listpack node: 1 <= 3/2 converts back
	if l.Encoding() != "listpack" || !slices.Equal(shape(l), []int{1}) {
		t.Fatalf("after LSET small: %s %v", l.Encoding(), shape(l))
	}
	// A quicklist keeps the fill it was created with.
	l = New()
	l.PushBack(vals(1, 4)...)
	SetFill(5)
	l.PushBack(vals(5, 9)...)
	if want := []int{3, 3, 3}; !slices.Equal(shape(l), want) {
		t.Fatalf("after SetFill(5): %v, want %v", shape(l), want)
	}
	// Removals never merge nodes; only one node within half the limit
	// converts back.
	l.RemoveMatches([]byte("v5"), 0)
	l.RemoveMatches([]byte("v6"), 0)
	if want := []int{3, 1, 3}; !slices.Equal(shape(l), want) {
		t.Fatalf("after LREM: %v, want %v", shape(l), want)
	}
	l.Trim(3, 5)
	if l.Encoding() != "quicklist" || !slices.Equal(shape(l), []int{1, 2}) {
		t.Fatalf("after LTRIM: %s %v (two nodes keep a quicklist)", l.Encoding(), shape(l))
	}
	l.PopFront()
	if l.Encoding() != "listpack" {
		t.Fatalf("2 elements (<= 5/2) stayed a %s", l.Encoding())
	}
}

// TestFromNodesAndQuicklist: RESTORE keeps a payload's nodes, and both it
// and SORT ... STORE give a listpack only to a list of one node within the
// limit (not halved).
func TestFromNodesAndQuicklist(t *testing.T) {
	withFill(t, 3)
	v := func(s ...string) [][]byte {
		var out [][]byte
		for _, x := range s {
			out = append(out, []byte(x))
		}
		return out
	}
	if l := FromNodes([][][]byte{v("a", "b", "c")}, []bool{false}); l.Encoding() != "listpack" {
		t.Fatalf("one node of 3: %s", l.Encoding())
	}
	l := FromNodes([][][]byte{v("a", "b", "c", "d", "e")}, []bool{false})
	if l.Encoding() != "quicklist" || !slices.Equal(shape(l), []int{5}) {
		t.Fatalf("one node of 5: %s %v", l.Encoding(), shape(l))
	}
	if l = FromNodes([][][]byte{v("a"), v("b")}, []bool{false, false}); l.Encoding() != "quicklist" {
		t.Fatalf("two nodes: %s", l.Encoding())
	}
	if l = FromNodes([][][]byte{v("a")}, []bool{true}); l.Encoding() != "quicklist" {
		t.Fatalf("a plain node: %s", l.Encoding())
	}
	if l = FromQuicklist(v("a", "b", "c")); l.Encoding() != "listpack" {
		t.Fatalf("3 pushed: %s", l.Encoding())
	}
	if l = FromQuicklist(v("a", "b", "c", "d")); l.Encoding() != "quicklist" || !slices.Equal(shape(l), []int{3, 1}) {
		t.Fatalf("4 pushed: %s %v", l.Encoding(), shape(l))
	}
}

// TestPackedThreshold checks DEBUG QUICKLIST-PACKED-THRESHOLD's effect: an
// element of at least the threshold gets a plain node whatever the fill,
// and 0 restores the fill's bound.
func TestPackedThreshold(t *testing.T) {
	if SetPackedThreshold(1<<32 - 1<<20 + 1) {
		t.Fatal("a threshold above 4 GB - 1 MB was accepted")
	}
	if !SetPackedThreshold(5) {
		t.Fatal("threshold 5 refused")
	}
	t.Cleanup(func() { SetPackedThreshold(0) })
	l := FromQuicklist([][]byte{[]byte("aaaaa"), []byte("b"), []byte("cc"), []byte("dddddd")})
	if got := shape(l); !slices.Equal(got, []int{-1, 2, -1}) {
		t.Fatalf("threshold 5: nodes %v, want [-1 2 -1]", got)
	}
	l.PushFront([]byte("x"))
	l.Insert(2, []byte("yyyyy"), false)
	if got := shape(l); !slices.Equal(got, []int{1, -1, -1, 2, -1}) {
		t.Fatalf("after LPUSH x, LINSERT yyyyy: nodes %v, want [1 -1 -1 2 -1]", got)
	}
	SetPackedThreshold(0)
	if l = FromQuicklist([][]byte{[]byte("aaaaa"), []byte("b")}); !slices.Equal(shape(l), []int{2}) {
		t.Fatalf("threshold 0: nodes %v, want [2]", shape(l))
	}
}

// TestFill checks the fill a quicklist reports (DEBUG OBJECT's
// ql_listpack_max): list-max-listpack-size when it was made, clamped.
func TestFill(t *testing.T) {
	vals := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	for _, c := range []struct{ set, want int64 }{{1, 1}, {-2, -2}, {-9, -5}, {0, 0}, {40000, 32767}} {
		withFill(t, c.set)
		l := FromQuicklist(vals)
		withFill(t, 7) // later changes do not reach it
		if got := l.Fill(); int64(got) != c.want {
			t.Errorf("fill %d: Fill() = %d, want %d", c.set, got, c.want)
		}
	}
}
