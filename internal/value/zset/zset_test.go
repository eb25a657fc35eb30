package zset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// model is the obvious sorted-slice implementation the tree must agree with.
type model []item

func (m model) find(member string) int {
	for i, it := range m {
		if it.member == member {
			return i
		}
	}
	return -1
}

func (m *model) set(member string, score float64) {
	if i := m.find(member); i >= 0 {
		*m = slices.Delete(*m, i, i+1)
	}
	i, _ := slices.BinarySearchFunc(*m, item{score, member}, func(a, b item) int {
		if less(a, b) {
			return -1
		}
		if less(b, a) {
			return 1
		}
		return 0
	})
	*m = slices.Insert(*m, i, item{score, member})
}

// contains reports whether an element is within the range.
func (r *Range) contains(score float64, member string) bool {
	it := item{score, member}
	return r.aboveMin(it) && !r.aboveMax(it)
}

func check(t *testing.T, z *ZSet, m model) {
	t.Helper()
	if z.Len() != len(m) || z.tree.len() != len(m) {
		t.Fatalf("len: zset %d tree %d model %d", z.Len(), z.tree.len(), len(m))
	}
	i := 0
	for p := z.first(); p.valid(); p = p.next() {
		if p.item() != m[i] {
			t.Fatalf("at %d: %v, model %v", i, p.item(), m[i])
		}
		i++
	}
	if i != len(m) {
		t.Fatalf("walked %d of %d", i, len(m))
	}
	checkNode(t, z.tree.root, z.tree.root)
}

// checkNode verifies the cached sizes and maxima of inner nodes.
func checkNode(t *testing.T, n, root *node) int {
	t.Helper()
	if n == nil {
		return 0
	}
	if n.leaf() {
		if n.size != len(n.items) || (n != root && len(n.items) == 0) {
			t.Fatalf("leaf size %d, %d items", n.size, len(n.items))
		}
		return n.size
	}
	total := 0
	for i, k := range n.kids {
		s := checkNode(t, k, root)
		if s != n.sizes[i] || k.last() != n.items[i] {
			t.Fatalf("inner child %d: size %d cached %d, max %v cached %v", i, s, n.sizes[i], k.last(), n.items[i])
		}
		total += s
	}
	if total != n.size {
		t.Fatalf("inner size %d, children sum %d", n.size, total)
	}
	return total
}

func TestAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for round, universe := range []int{20, 300, 3000} {
		z := New(0, 0)
		var m model
		for op := 0; op < 20000; op++ {
			member := fmt.Sprint("m", r.IntN(universe))
			switch r.IntN(6) {
			case 0, 1, 2:
				score := float64(r.IntN(50)) // many ties: the member breaks them
				if r.IntN(4) == 0 {
					score = r.NormFloat64()
				}
				_, had := z.Score(member)
				if z.Set(member, score) == had {
					t.Fatalf("Set(%q) new disagrees (had=%v)", member, had)
				}
				m.set(member, score)
			case 3, 4:
				i := m.find(member)
				if z.Remove(member) != (i >= 0) {
					t.Fatalf("Remove(%q) disagrees", member)
				}
				if i >= 0 {
					m = slices.Delete(m, i, i+1)
				}
			case 5:
				rank, score, ok := z.Rank(member)
				i := m.find(member)
				if ok != (i >= 0) || (ok && (rank != i || score != m[i].score)) {
					t.Fatalf("Rank(%q) = %d %v %v, model %d", member, rank, score, ok, i)
				}
				if len(m) > 0 {
					k := r.IntN(len(m))
					if it := z.At(k); it.Member() != m[k].member {
						t.Fatalf("At(%d) = %q, model %q", k, it.Member(), m[k].member)
					}
				}
			}
			if op%997 == 0 {
				check(t, z, m)
				checkRanges(t, r, z, m)
			}
		}
		check(t, z, m)
		// Empty it, checking the structure on the way down.
		for len(m) > 0 {
			k := r.IntN(len(m))
			z.Remove(m[k].member)
			m = slices.Delete(m, k, k+1)
			if len(m)%101 == 0 {
				check(t, z, m)
			}
		}
		if z.tree.root != nil {
			t.Fatalf("round %d: empty set keeps a root", round)
		}
	}
}

func checkRanges(t *testing.T, r *rand.Rand, z *ZSet, m model) {
	t.Helper()
	for range 20 {
		lo, hi := float64(r.IntN(60)-5), float64(r.IntN(60)-5)
		rg := Range{min: lo, max: hi, minEx: r.IntN(2) == 0, maxEx: r.IntN(2) == 0}
		want := 0
		first := -1
		for i, it := range m {
			if rg.contains(it.score, it.member) {
				if first < 0 {
					first = i
				}
				want++
			}
		}
		if got := z.Count(rg); got != want {
			t.Fatalf("Count(%+v) = %d, model %d", rg, got, want)
		}
		if f, _ := z.Bounds(rg, false); want > 0 && f != first {
			t.Fatalf("Bounds(%+v) first %d, model %d", rg, f, first)
		}
	}
}

func TestAscendingAndDescendingLoads(t *testing.T) {
	for _, dir := range []int{1, -1} {
		z := New(0, 0)
		var m model
		for i := range 20000 {
			s := float64(i * dir)
			z.Set(fmt.Sprint(i), s)
			m = append(m, item{s, fmt.Sprint(i)})
		}
		slices.SortFunc(m, func(a, b item) int {
			if less(a, b) {
				return -1
			}
			return 1
		})
		check(t, z, m)
		// Walk backwards too.
		i := len(m) - 1
		for it := z.At(len(m) - 1); it.Valid(); it.Prev() {
			if it.Member() != m[i].member {
				t.Fatalf("prev walk at %d", i)
			}
			i--
		}
	}
}

func TestBuildAndClone(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 129, 128 * 64, 128*64 + 1, 128*65 + 3, 100000} {
		members := make([]string, n)
		scores := make([]float64, n)
		for i := range n {
			members[i] = fmt.Sprintf("%08d", i)
			scores[i] = float64(i / 3)
		}
		z := FromSorted(members, scores)
		c := z.Clone().(*ZSet)
		z.Set("x", -1) // the clone must not see it
		var m model
		for i := range n {
			m = append(m, item{scores[i], members[i]})
		}
		check(t, c, m)
		for i := 0; i < n; i += 7 { // removals exercise rebalancing of built nodes
			c.Remove(members[i])
		}
		if want := n - (n+6)/7; c.Len() != want {
			t.Fatalf("n=%d: %d left, want %d", n, c.Len(), want)
		}
		checkNode(t, c.tree.root, c.tree.root)
	}
}

func TestEncoding(t *testing.T) {
	z := New(0, 0)
	for i := range DefaultListpackEntries {
		z.Set(fmt.Sprint(i), 1)
	}
	if z.Encoding() != "listpack" {
		t.Fatal("128 members should be a listpack")
	}
	z.Set("one more", 1)
	if z.Encoding() != "skiplist" {
		t.Fatal("129 members should be a skiplist")
	}
	z.Remove("one more")
	if z.Encoding() != "skiplist" {
		t.Fatal("Redis does not convert back on removal")
	}
	z.Fit()
	if z.Encoding() != "listpack" {
		t.Fatal("Fit should pick listpack for 128 short members")
	}
	if New(0, 65).Encoding() != "skiplist" || New(129, 1).Encoding() != "skiplist" {
		t.Fatal("size hints must pick skiplist as zsetTypeCreate does")
	}
	z.Set(string(make([]byte, 65)), 1)
	if z.Encoding() != "skiplist" {
		t.Fatal("a 65-byte member makes a skiplist")
	}
}

func TestNegativeZero(t *testing.T) {
	z := New(0, 0)
	z.Set("a", math.Copysign(0, -1))
	if s, _ := z.Score("a"); math.Signbit(s) {
		t.Fatal("listpack sets keep -0 as 0, as Redis")
	}
	z.Set(string(make([]byte, 65)), math.Copysign(0, -1)) // converts first, then keeps -0
	if s, _ := z.Score(string(make([]byte, 65))); !math.Signbit(s) {
		t.Fatal("the member that makes a skiplist keeps -0, as in Redis")
	}
	b := New(200, 0)
	b.Set("a", math.Copysign(0, -1))
	if s, _ := b.Score("a"); !math.Signbit(s) {
		t.Fatal("skiplist sets keep -0")
	}
}

func TestParseScore(t *testing.T) {
	for in, want := range map[string]float64{
		"1": 1, "-1.5": -1.5, "+1": 1, ".5": .5, "5.": 5, "1e5": 1e5, "0x10": 16, "0X1P-2": .25,
		"0x1.8": 1.5, "inf": math.Inf(1), "-Infinity": math.Inf(-1), "+INF": math.Inf(1),
		"1e-310": 1e-310, "0e-400": 0, "00012": 12,
	} {
		if got, ok := ParseScore([]byte(in)); !ok || got != want {
			t.Errorf("ParseScore(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", " 1", "1 ", "1e", "nan", "NaN", "1e400", "-1e400", "1e-400", "0x", "++1", "1_0", "1.5abc", "0x1_0", "\t1"} {
		if got, ok := ParseScore([]byte(in)); ok {
			t.Errorf("ParseScore(%q) = %v, want refusal", in, got)
		}
	}
}

func TestParseRanges(t *testing.T) {
	for _, tc := range []struct {
		min, max string
		ok       bool
		r        Range
	}{
		{"1", "(2", true, Range{min: 1, max: 2, maxEx: true}},
		{"(", "", true, Range{minEx: true}},
		{"-inf", "+inf", true, Range{min: math.Inf(-1), max: math.Inf(1)}},
		{"1e400", "(+1", true, Range{min: math.Inf(1), max: 1, maxEx: true}},
		{" 1", "2", false, Range{}},
		{"0x2", "2", false, Range{}},
		{"nan", "2", false, Range{}},
		{"1", "(nan", false, Range{}},
		{"1_0", "2", false, Range{}},
	} {
		r, ok := ParseScoreRange([]byte(tc.min), []byte(tc.max))
		if ok != tc.ok || (ok && r != tc.r) {
			t.Errorf("ParseScoreRange(%q, %q) = %+v %v", tc.min, tc.max, r, ok)
		}
	}
	for _, tc := range []struct {
		min, max string
		ok       bool
	}{{"-", "+", true}, {"[a", "(b", true}, {"[", "(", true}, {"a", "+", false}, {"-", "++", false}, {"", "+", false}} {
		if _, ok := ParseLexRange([]byte(tc.min), []byte(tc.max)); ok != tc.ok {
			t.Errorf("ParseLexRange(%q, %q) ok=%v", tc.min, tc.max, ok)
		}
	}
	z := New(0, 0)
	for _, m := range []string{"a", "b", "c", "d"} {
		z.Set(m, 0)
	}
	for _, tc := range []struct {
		min, max    string
		first, last int
	}{{"-", "+", 0, 3}, {"[b", "[c", 1, 2}, {"(b", "(c", 2, 1}, {"+", "-", 4, -1}, {"[a", "-", 0, -1}, {"(a", "+", 1, 3}} {
		r, _ := ParseLexRange([]byte(tc.min), []byte(tc.max))
		f, l := z.Bounds(r, false)
		if tc.first > tc.last && f > l {
			continue // empty either way
		}
		if f != tc.first || l != tc.last {
			t.Errorf("lex %s %s: [%d %d], want [%d %d]", tc.min, tc.max, f, l, tc.first, tc.last)
		}
	}
}

// TestSliceAgainstModel checks LIMIT handling (both encodings, both
// directions, offsets past the end) against a filter over the sorted items.
func TestSliceAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 100, 128, 129, 1000} {
		z := New(0, 0)
		var m model
		for i := range n {
			s := float64(r.IntN(20))
			z.Set(fmt.Sprint(i), s)
			m.set(fmt.Sprint(i), s)
		}
		for range 500 {
			rg := Range{min: float64(r.IntN(24) - 2), max: float64(r.IntN(24) - 2), minEx: r.IntN(2) == 0, maxEx: r.IntN(2) == 0}
			rev := r.IntN(2) == 0
			offset, count := int64(r.IntN(n+3)), int64(r.IntN(12)-1)
			switch r.IntN(6) {
			case 0, 1:
				count = int64(r.IntN(400))
			case 2:
				count = math.MaxInt64
			case 3:
				offset = math.MaxInt64
			}
			var in []int
			for i, it := range m {
				if rg.contains(it.score, it.member) {
					in = append(in, i)
				}
			}
			if rev {
				slices.Reverse(in)
			}
			in = in[min(int(offset), len(in)):]
			if count >= 0 && int(count) < len(in) {
				in = in[:count]
			}
			lo, hi := z.Slice(rg, rev, offset, count)
			if got := max(0, hi-lo+1); got != len(in) || (len(in) > 0 && lo != slices.Min(in)) {
				t.Fatalf("n=%d %+v rev=%v LIMIT %d %d: [%d %d], model %v", n, rg, rev, offset, count, lo, hi, in)
			}
		}
	}
}

// TestRandomInsertsFillLeaves: a leaf that fills up moves items to a
// neighbour with room before it splits, so random inserts leave the leaves
// more than 80% full on average (a split alone leaves about 70%).
func TestRandomInsertsFillLeaves(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	z := New(0, 0)
	var m model
	for i := range 50000 {
		member, score := fmt.Sprint("m", i), r.Float64()
		z.Set(member, score)
		m = append(m, item{score, member})
	}
	slices.SortFunc(m, func(a, b item) int {
		if less(a, b) {
			return -1
		}
		return 1
	})
	check(t, z, m)
	leaves := 0
	for n := z.first().n; n != nil; n = n.next {
		leaves++
	}
	fill := float64(len(m)) / float64(leaves*maxLeaf)
	if fill < 0.8 {
		t.Fatalf("%d leaves for %d items: %.2f full", leaves, len(m), fill)
	}
	t.Logf("%d leaves for %d items: %.2f full", leaves, len(m), fill)
}
