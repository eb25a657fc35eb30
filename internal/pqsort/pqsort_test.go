package pqsort

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type item struct{ key, seq int }

func byKey(a, b *item) int { return a.key - b.key }

// Stable matches the standard library's stable sort; Partial puts in
// positions lo..hi elements of the keys a full sort puts there.
func TestAgainstSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		n := 1 + r.IntN(300)
		v := make([]item, n)
		for i := range v {
			v[i] = item{r.IntN(1 + n/4), i} // many ties
		}
		want := slices.Clone(v)
		slices.SortStableFunc(want, func(a, b item) int { return a.key - b.key })
		got := slices.Clone(v)
		Stable(got, byKey)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: Stable differs from a stable sort", round)
		}
		lo := r.IntN(n)
		hi := lo + r.IntN(n-lo)
		part := slices.Clone(v)
		Partial(part, byKey, lo, hi)
		for i := lo; i <= hi; i++ {
			if part[i].key != want[i].key {
				t.Fatalf("round %d: Partial [%d,%d] has key %d at %d, want %d", round, lo, hi, part[i].key, i, want[i].key)
			}
		}
	}
}
