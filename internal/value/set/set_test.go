package set

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func b(s string) []byte { return []byte(s) }

func members(s *Set) []string {
	var out []string
	s.Range(func(m []byte) bool { out = append(out, string(m)); return true })
	return out
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestAgainstMap runs random operations on sets of every encoding and a Go
// map, across the conversions between encodings.
func TestAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	gens := map[string]func() string{
		"small ints": func() string { return strconv.Itoa(r.IntN(700) - 100) },
		"wide ints":  func() string { return strconv.FormatInt(r.Int64N(math.MaxInt64)-r.Int64N(math.MaxInt64), 10) },
		"mixed": func() string {
			switch r.IntN(4) {
			case 0:
				return strconv.Itoa(r.IntN(300))
			case 1:
				return strings.Repeat("x", 60+r.IntN(10)) // around the 64-byte listpack limit
			case 2:
				return ""
			}
			return "m" + strconv.Itoa(r.IntN(300))
		},
	}
	for name, gen := range gens {
		t.Run(name, func(t *testing.T) {
			s := New(b(gen()), 1)
			model := map[string]bool{}
			for op := range 20000 {
				m := gen()
				switch r.IntN(5) {
				case 0, 1, 2:
					if got := s.Add(b(m)); got == model[m] {
						t.Fatalf("op %d: Add(%q) = %v, model had %v (%s)", op, m, got, model[m], s.Encoding())
					}
					model[m] = true
				case 3:
					if got := s.Remove(b(m)); got != model[m] {
						t.Fatalf("op %d: Remove(%q) = %v, model had %v (%s)", op, m, got, model[m], s.Encoding())
					}
					delete(model, m)
				case 4:
					if got := s.Has(b(m)); got != model[m] {
						t.Fatalf("op %d: Has(%q) = %v (%s)", op, m, got, s.Encoding())
					}
				}
				if s.Len() != len(model) {
					t.Fatalf("op %d: Len %d, model %d", op, s.Len(), len(model))
				}
				if op%1000 == 999 {
					got := members(s)
					slices.Sort(got)
					if !slices.Equal(got, sorted(model)) {
						t.Fatalf("op %d: members differ (%s)", op, s.Encoding())
					}
				}
			}
		})
	}
}

func TestEncodingTransitions(t *testing.T) {
	ints := func(n int) [][]byte {
		var out [][]byte
		for i := range n {
			out = append(out, b(strconv.Itoa(i)))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		make func() *Set
		want string
	}{
		{"integers start an intset", func() *Set { return New(b("1"), 1) }, "intset"},
		{"non-canonical integers are strings", func() *Set { return New(b("01"), 1) }, "listpack"},
		{"strings start a listpack", func() *Set { return New(b("a"), 1) }, "listpack"},
		{"200 integers start an intset", func() *Set { return New(b("1"), 200) }, "intset"},
		{"513 integers start a hashtable", func() *Set { return New(b("1"), 513) }, "hashtable"},
		{"many strings start a hashtable", func() *Set { return New(b("a"), 129) }, "hashtable"},
		{"512 integers stay an intset", func() *Set {
			s := NewIntset()
			for _, m := range ints(512) {
				s.Add(m)
			}
			return s
		}, "intset"},
		{"513 integers make a hashtable", func() *Set {
			s := NewIntset()
			for _, m := range ints(513) {
				s.Add(m)
			}
			return s
		}, "hashtable"},
		{"a string makes a small intset a listpack", func() *Set {
			s := NewIntset()
			for _, m := range ints(127) {
				s.Add(m)
			}
			s.Add(b("a"))
			return s
		}, "listpack"},
		{"a string makes a 128-member intset a hashtable", func() *Set {
			s := NewIntset()
			for _, m := range ints(128) {
				s.Add(m)
			}
			s.Add(b("a"))
			return s
		}, "hashtable"},
		{"a 65-byte string makes an intset a hashtable", func() *Set {
			s := New(b("1"), 1)
			s.Add(b("1"))
			s.Add(b(strings.Repeat("x", 65)))
			return s
		}, "hashtable"},
		{"a 64-byte string fits a listpack", func() *Set {
			s := New(b("a"), 1)
			s.Add(b(strings.Repeat("x", 64)))
			return s
		}, "listpack"},
		{"the 129th member makes a listpack a hashtable", func() *Set {
			s := NewListpack()
			for i := range 129 {
				s.Add(b("m" + strconv.Itoa(i)))
			}
			return s
		}, "hashtable"},
		{"Reserve converts a listpack for more than 128", func() *Set {
			s := New(b("a"), 1)
			s.Add(b("a"))
			s.Reserve(129)
			return s
		}, "hashtable"},
		{"Reserve keeps an intset for 512", func() *Set {
			s := New(b("1"), 1)
			s.Add(b("1"))
			s.Reserve(512)
			return s
		}, "intset"},
		{"removing members never converts back", func() *Set {
			s := NewListpack()
			for i := range 200 {
				s.Add(b("m" + strconv.Itoa(i)))
			}
			for i := range 199 {
				s.Remove(b("m" + strconv.Itoa(i)))
			}
			return s
		}, "hashtable"},
	} {
		if got := tc.make().Encoding(); got != tc.want {
			t.Errorf("%s: encoding %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestOrder checks the orders Redis's replies show for small sets: an intset
// ascending, a listpack in insertion order (kept across removals, and an
// intset converted to a listpack keeps its ascending order).
func TestOrder(t *testing.T) {
	s := New(b("5"), 1)
	for _, m := range []string{"5", "-70000", "3", "9999999999", "1"} {
		s.Add(b(m))
	}
	if got, want := members(s), []string{"-70000", "1", "3", "5", "9999999999"}; !slices.Equal(got, want) {
		t.Fatalf("intset order %v, want %v", got, want)
	}
	s.Add(b("z"))
	s.Add(b("a"))
	s.Remove(b("3"))
	if got, want := members(s), []string{"-70000", "1", "5", "9999999999", "z", "a"}; !slices.Equal(got, want) {
		t.Fatalf("listpack order %v, want %v", got, want)
	}
}

func TestIntsetWidths(t *testing.T) {
	s := NewIntset()
	vals := []int64{1, math.MaxInt16, math.MinInt16, math.MaxInt16 + 1, math.MinInt32, math.MaxInt32 + 1, math.MinInt64, math.MaxInt64, -1, 0}
	for i, v := range vals {
		if !s.Add(b(strconv.FormatInt(v, 10))) {
			t.Fatalf("Add(%d) reported present", v)
		}
		for _, w := range vals[:i+1] {
			if !s.Has(b(strconv.FormatInt(w, 10))) {
				t.Fatalf("after adding %d: %d missing (width %d)", v, w, s.width)
			}
		}
	}
	if s.width != 8 || s.Encoding() != "intset" {
		t.Fatalf("width %d encoding %s", s.width, s.Encoding())
	}
	want := slices.Clone(vals)
	slices.Sort(want)
	var got []int64
	s.Range(func(m []byte) bool {
		v, _ := strconv.ParseInt(string(m), 10, 64)
		got = append(got, v)
		return true
	})
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// build returns a set of each encoding that can hold n members, all with n
// members (integers in the intset).
func build(n int) map[string]*Set {
	out := map[string]*Set{"hashtable": NewHashtable(0)}
	if n <= DefaultIntsetEntries {
		out["intset"] = NewIntset()
	}
	if n <= DefaultListpackEntries {
		out["listpack"] = NewListpack()
	}
	for name, s := range out {
		for i := range n {
			if name == "intset" {
				s.Add(b(strconv.Itoa(i)))
			} else {
				s.Add(b("m" + strconv.Itoa(i)))
			}
		}
		if s.Encoding() != name {
			panic("build: " + name + " is " + s.Encoding())
		}
	}
	return out
}

// checkUniform fails when some member's count is off its expectation by more
// than 6 standard deviations (so a correct generator practically never fails).
func checkUniform(t *testing.T, what string, counts map[string]int, n, draws int) {
	t.Helper()
	if len(counts) != n {
		t.Fatalf("%s: %d distinct members drawn, want %d", what, len(counts), n)
	}
	p := 1 / float64(n)
	mean, sd := float64(draws)*p, math.Sqrt(float64(draws)*p*(1-p))
	for m, c := range counts {
		if math.Abs(float64(c)-mean) > 6*sd {
			t.Fatalf("%s: %q drawn %d times, expected %.0f±%.0f", what, m, c, mean, sd)
		}
	}
}

func TestRandomIsUniform(t *testing.T) {
	const n, draws = 10, 50000
	for name, s := range build(n) {
		counts := map[string]int{}
		var buf [20]byte
		for range draws {
			counts[string(s.Random(buf[:0]))]++
		}
		checkUniform(t, name+" Random", counts, n, draws)
		counts = map[string]int{}
		s.Sample(draws, func(m []byte) { counts[string(m)]++ })
		checkUniform(t, name+" Sample", counts, n, draws)
	}
}

func TestPickIsDistinctAndUniform(t *testing.T) {
	// 3 of 10 uses selection sampling everywhere; 3 of 40 draws from the
	// hashtable until distinct.
	for _, n := range []int{10, 40} {
		for name, s := range build(n) {
			counts := map[string]int{}
			const rounds = 20000
			for range rounds {
				seen := map[string]bool{}
				s.Pick(3, func(m []byte) {
					if seen[string(m)] || !s.Has(m) {
						t.Fatalf("%s: Pick gave %q twice or a non-member", name, m)
					}
					seen[string(m)] = true
					counts[string(m)]++
				})
				if len(seen) != 3 {
					t.Fatalf("%s: Pick(3) gave %d members", name, len(seen))
				}
			}
			checkUniform(t, fmt.Sprintf("%s Pick of %d", name, n), counts, n, 3*rounds)
		}
	}
}

func TestPopN(t *testing.T) {
	for _, n := range []int{10, 200} {
		// 2 of n pops one by one; n-2 of n keeps the rest instead.
		for _, count := range []int{2, n - 2} {
			for name := range build(n) {
				counts := map[string]int{}
				const rounds = 1000
				for range rounds {
					s := build(n)[name]
					before := map[string]bool{}
					for _, m := range members(s) {
						before[m] = true
					}
					var popped []string
					s.PopN(count, func(m []byte) { popped = append(popped, string(m)) })
					if len(popped) != count || s.Len() != n-count {
						t.Fatalf("%s PopN(%d) of %d: popped %d, left %d", name, count, n, len(popped), s.Len())
					}
					for _, m := range popped {
						if !before[m] || s.Has(b(m)) {
							t.Fatalf("%s: popped %q was not a member or is still one", name, m)
						}
						delete(before, m)
						counts[m]++
					}
					for m := range before {
						if !s.Has(b(m)) {
							t.Fatalf("%s: %q lost without being popped", name, m)
						}
					}
				}
				checkUniform(t, fmt.Sprintf("%s PopN(%d) of %d", name, count, n), counts, n, count*rounds)
			}
		}
	}
}

// TestPopNOrder checks the reply orders that match Redis: a listpack's popped
// members in set order, an intset's ascending when most are popped.
func TestPopNOrder(t *testing.T) {
	for _, count := range []int{2, 8} {
		s := build(10)["listpack"]
		order := members(s)
		var popped []string
		s.PopN(count, func(m []byte) { popped = append(popped, string(m)) })
		if !slices.IsSortedFunc(popped, func(x, y string) int {
			return slices.Index(order, x) - slices.Index(order, y)
		}) {
			t.Fatalf("listpack PopN(%d) order %v, set order %v", count, popped, order)
		}
	}
	s := build(10)["intset"]
	var popped []int
	s.PopN(9, func(m []byte) { v, _ := strconv.Atoi(string(m)); popped = append(popped, v) })
	if !slices.IsSorted(popped) {
		t.Fatalf("intset PopN(9) order %v", popped)
	}
}

func TestPopNHashtableKeepsFewAsListpack(t *testing.T) {
	s := build(300)["hashtable"]
	s.PopN(290, func([]byte) {})
	if s.Len() != 10 || s.Encoding() != "listpack" {
		t.Fatalf("after popping 290 of 300: %d members, %s (Redis rebuilds a listpack)", s.Len(), s.Encoding())
	}
}

func TestPop(t *testing.T) {
	for name, s := range build(50) {
		seen := map[string]bool{}
		for s.Len() > 0 {
			var buf [64]byte
			m := string(s.Pop(buf[:0]))
			if seen[m] || s.Has(b(m)) {
				t.Fatalf("%s: popped %q twice or it is still a member", name, m)
			}
			seen[m] = true
		}
		if len(seen) != 50 {
			t.Fatalf("%s: popped %d distinct of 50", name, len(seen))
		}
	}
}

func TestScan(t *testing.T) {
	for name, s := range build(100) {
		t.Run(name, func(t *testing.T) {
			got := map[string]int{}
			cursor, calls := uint64(0), 0
			for {
				cursor = s.Scan(cursor, 7, func(m []byte) { got[string(m)]++ })
				calls++
				if cursor == 0 {
					break
				}
			}
			if len(got) != 100 {
				t.Fatalf("scan found %d of 100", len(got))
			}
			if name != "hashtable" && calls != 1 {
				t.Fatalf("a small encoding took %d calls; Redis answers in one", calls)
			}
			if name == "hashtable" && calls < 5 {
				t.Fatalf("COUNT 7 over 100 members took only %d calls", calls)
			}
		})
	}
}

func TestCloneIsDeep(t *testing.T) {
	for name, s := range build(20) {
		c := s.Clone().(*Set)
		if c.Encoding() != s.Encoding() || !slices.Equal(members(c), members(s)) {
			t.Fatalf("%s: clone differs", name)
		}
		c.Add(b("99999"))
		c.Remove(b(members(s)[0]))
		if s.Has(b("99999")) || !s.Has(b(members(s)[0])) || s.Len() != 20 {
			t.Fatalf("%s: changing the clone changed the original", name)
		}
	}
}

func TestMakeIntset(t *testing.T) {
	s := NewListpack()
	for _, m := range []string{"3", "-1", "200000"} {
		s.Add(b(m))
	}
	s.MakeIntset()
	if s.Encoding() != "intset" || !slices.Equal(members(s), []string{"-1", "3", "200000"}) {
		t.Fatalf("%s %v", s.Encoding(), members(s))
	}
	s = NewListpack()
	s.Add(b("3"))
	s.Add(b("x"))
	s.MakeIntset()
	if s.Encoding() != "listpack" {
		t.Fatalf("a set with a string became %s", s.Encoding())
	}
}

// heapPerMember measures the live heap that sets members of each of count
// sets take, per member.
func heapPerMember(count, members int, member func(i int) string, newSet func() *Set) float64 {
	keep := make([]*Set, count)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for j := range keep {
		s := newSet()
		for i := range members {
			s.Add(b(member(i)))
		}
		keep[j] = s
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(count*members)
}

// TestCompactEncodingsSaveMemory asserts what justifies the small
// encodings: per member, an intset is smaller than a listpack, which is
// smaller than a hashtable.
func TestCompactEncodingsSaveMemory(t *testing.T) {
	num := func(i int) string { return strconv.Itoa(i) }
	in := heapPerMember(500, 100, num, NewIntset)
	lp := heapPerMember(500, 100, num, NewListpack)
	ht := heapPerMember(500, 100, num, func() *Set { return NewHashtable(0) })
	t.Logf("100 integers: intset %.1f, listpack %.1f, hashtable %.1f bytes/member", in, lp, ht)
	if !(in < lp && lp < ht) {
		t.Errorf("per member: intset %.1f, listpack %.1f, hashtable %.1f; want them in increasing order", in, lp, ht)
	}
}

// BenchmarkMemory reports heap bytes per member (the bytes/member metric) of
// a 1M-member hashtable and of many small sets in each encoding.
func BenchmarkMemory(b *testing.B) {
	str := func(i int) string { return "member:" + strconv.Itoa(i) }
	num := func(i int) string { return strconv.Itoa(i) }
	for _, bc := range []struct {
		name           string
		count, members int
		member         func(int) string
		newSet         func() *Set
	}{
		{"1M-strings", 1, 1_000_000, str, func() *Set { return NewHashtable(0) }},
		{"1M-integers", 1, 1_000_000, num, func() *Set { return NewHashtable(0) }},
		{"10k-sets-of-100-integers-intset", 10_000, 100, num, NewIntset},
		{"10k-sets-of-100-strings-listpack", 10_000, 100, str, NewListpack},
		{"10k-sets-of-100-strings-hashtable", 10_000, 100, str, func() *Set { return NewHashtable(0) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var per float64
			for b.Loop() {
				per = heapPerMember(bc.count, bc.members, bc.member, bc.newSet)
			}
			b.ReportMetric(per, "bytes/member")
		})
	}
}

func BenchmarkAdd(b *testing.B) {
	for _, name := range []string{"intset", "listpack", "hashtable"} {
		b.Run(name, func(b *testing.B) {
			ms := make([][]byte, 100)
			for i := range ms {
				if name == "intset" {
					ms[i] = []byte(strconv.Itoa(i * 7))
				} else {
					ms[i] = []byte("member:" + strconv.Itoa(i))
				}
			}
			for b.Loop() {
				var s *Set
				switch name {
				case "intset":
					s = NewIntset()
				case "listpack":
					s = NewListpack()
				default:
					s = NewHashtable(0)
				}
				for _, m := range ms {
					s.Add(m)
				}
			}
		})
	}
}

func BenchmarkHas(b *testing.B) {
	for name, s := range build(100) {
		b.Run(name, func(b *testing.B) {
			m := []byte("m50")
			if name == "intset" {
				m = []byte("50")
			}
			for b.Loop() {
				if !s.Has(m) {
					b.Fatal("missing")
				}
			}
		})
	}
}

func BenchmarkRandomHashtable1M(b *testing.B) {
	s := NewHashtable(0)
	for i := range 1_000_000 {
		s.Add([]byte("member:" + strconv.Itoa(i)))
	}
	var buf [20]byte
	for b.Loop() {
		s.Random(buf[:0])
	}
}
