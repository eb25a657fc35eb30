package scan

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"testing"
)

// pass scans m to the end with steps of n, applying mutate between steps, and
// returns how often each key came back.
func pass(m map[string]int, n int, pos func(string) uint64, mutate func(step int)) map[string]int {
	seen := map[string]int{}
	var buf []Item[int]
	var cur uint64
	for i := 0; ; i++ {
		var done bool
		buf, cur, done = step(buf[:0], cur, n, maps.All(m), pos)
		for _, it := range buf {
			seen[it.Key]++
			if m[it.Key] != it.Val {
				panic("value does not belong to key")
			}
		}
		if done {
			return seen
		}
		if i > 1_000_000 {
			panic("scan does not end")
		}
		mutate(i)
	}
}

// TestStepGuarantee: under random inserts and deletes between steps, a key
// present for the whole pass comes back exactly once, and no key twice.
func TestStepGuarantee(t *testing.T) {
	coarse := func(s string) uint64 { // many ties: positions in [0, 64)
		h := fnv.New64a()
		h.Write([]byte(s))
		return h.Sum64() % 64
	}
	for _, tc := range []struct {
		name string
		pos  func(string) uint64
	}{{"hash", Pos}, {"ties", coarse}} {
		for _, n := range []int{1, 3, 10, 1000} {
			t.Run(fmt.Sprintf("%s/n=%d", tc.name, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(n)))
				m := map[string]int{}
				for i := 0; i < 500; i++ {
					m[fmt.Sprint("k", i)] = i
				}
				stable := map[string]bool{}
				for k := range m {
					if rng.IntN(2) == 0 {
						stable[k] = true
					}
				}
				next := 500
				seen := pass(m, n, tc.pos, func(int) {
					for range 5 {
						k := fmt.Sprint("k", rng.IntN(next+50))
						if stable[k] {
							continue
						}
						if rng.IntN(2) == 0 {
							delete(m, k)
						} else {
							m[k] = next
							m[fmt.Sprint("k", next)] = next
							next++
						}
					}
				})
				for k := range stable {
					if seen[k] != 1 {
						t.Errorf("stable key %s returned %d times", k, seen[k])
					}
				}
				for k, c := range seen {
					if c > 1 {
						t.Errorf("key %s returned %d times", k, c)
					}
				}
			})
		}
	}
}

func TestStepCount(t *testing.T) {
	m := map[string]int{}
	for i := 0; i < 100; i++ {
		m[fmt.Sprint(i)] = i
	}
	out, next, done := Step[int](nil, 0, 10, maps.All(m))
	if len(out) != 10 || done || next == 0 {
		t.Fatalf("got %d items, next %d, done %v; want 10, more to come", len(out), next, done)
	}
	for _, it := range out {
		if Pos(it.Key) >= next {
			t.Fatalf("returned %s at %d, beyond the cursor %d", it.Key, Pos(it.Key), next)
		}
	}
	if out, _, done := Step[int](nil, 0, 100, maps.All(m)); len(out) != 100 || !done {
		t.Fatalf("n = len: got %d items, done %v", len(out), done)
	}
	if out, next, done := Step[int](nil, 0, 5, maps.All(map[string]int{})); len(out) != 0 || next != 0 || !done {
		t.Fatalf("empty: %v %d %v", out, next, done)
	}
}

func TestNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 2000; trial++ {
		c := make([]Item[int], 1+rng.IntN(40))
		for i := range c {
			c[i].pos = uint64(rng.IntN(12))
		}
		k := rng.IntN(len(c))
		p := nth(c, k)
		if c[k].pos != p {
			t.Fatalf("c[k] = %d, returned %d", c[k].pos, p)
		}
		for i := range c {
			if i < k && c[i].pos > p || i > k && c[i].pos < p {
				t.Fatalf("not partitioned around %d at %d: %v", k, i, c)
			}
		}
	}
}

func TestParseCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"42", 42, true}, {"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false}, {"-1", 0, false}, {"-9223372036854775808", 0, false},
		{"-9223372036854775809", 1<<63 - 1, true}, {"-01", 1<<64 - 1, true}, {"-0", 0, true},
		{" 1", 1, true}, {"\t+1", 1, true}, {"01", 1, true}, {"+1", 1, true},
		{"1 ", 0, false}, {"", 0, false}, {" ", 0, false}, {"+", 0, false}, {"x", 0, false},
		{"0x10", 0, false}, {"1.5", 0, false}, {"1\x002", 1, true}, {"\x001", 0, false},
	} {
		got, ok := ParseCursor([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func BenchmarkStep(b *testing.B) {
	m := map[string]int{}
	for i := 0; i < 1000; i++ {
		m[fmt.Sprint("key:", i)] = i
	}
	var buf []Item[int]
	for b.Loop() {
		buf, _, _ = Step(buf[:0], 0, 10, maps.All(m))
	}
}
