package ai

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type expTest struct {
	id int
	expState
}

func (e *expTest) exp() *expState { return &e.expState }

// The heap holds one item per entry, pops entries in expiry order, and
// lets go of removed ones: random schedules, refreshes and removals against
// a model.
func TestExpiryHeapModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h expHeap[*expTest]
	entries := make([]*expTest, 200)
	want := map[int]int64{} // id -> expiry of the entries queued
	for i := range entries {
		entries[i] = &expTest{id: i}
	}
	now := int64(0)
	for range 20000 {
		e := entries[r.IntN(len(entries))]
		switch op := r.IntN(10); {
		case op < 4: // a new or earlier expiry
			at := now + 1 + r.Int64N(1000)
			if old := want[e.id]; old == 0 || at < old {
				e.at.Store(at)
				want[e.id] = at
			}
			h.schedule(e)
		case op < 6 && want[e.id] != 0: // refreshed later: stays queued at its old time
			e.at.Store(e.at.Load() + r.Int64N(100))
		case op < 8:
			h.remove(e)
			e.at.Store(0)
			delete(want, e.id)
		default:
			now += r.Int64N(50)
			var got []int
			h.due(now, func(e *expTest) { got = append(got, e.id) })
			var exp []int
			for id := range want {
				if entries[id].at.Load() <= now {
					exp = append(exp, id)
				} else {
					want[id] = entries[id].at.Load() // queued again at its new time
				}
			}
			for _, id := range exp {
				delete(want, id)
				entries[id].at.Store(0)
			}
			slices.Sort(got)
			slices.Sort(exp)
			if !slices.Equal(got, exp) {
				t.Fatalf("at %d: due %v, want %v", now, got, exp)
			}
		}
		if len(h.items) != len(want) {
			t.Fatalf("%d items for %d queued entries", len(h.items), len(want))
		}
		for i, it := range h.items {
			if it.v.pos != i || i > 0 && h.items[(i-1)/2].at > it.at {
				t.Fatalf("heap order or positions broken at %d", i)
			}
		}
	}
}

// A deleted or replaced entry with a time to live leaves the expiry heap
// at once: it kept the response reachable until it would have expired.
func TestRemovedEntriesLeaveExpiryHeap(t *testing.T) {
	c := newPromptCache(PromptOptions{})
	c.Set(PromptKey{1}, []byte("a"), 3600_000, 0, false)
	c.Set(PromptKey{2}, []byte("b"), 3600_000, 0, false)
	c.Set(PromptKey{2}, []byte("c"), 3600_000, 0, false) // replaces
	c.Delete(0, PromptKey{1})
	if n := len(c.heap.items); n != 1 {
		t.Fatalf("prompt cache: %d heap items for 1 entry", n)
	}
	s, err := newSemCache(SemOptions{VectorOptions: VectorOptions{Dim: 2}, Threshold: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	id, _, _ := s.Store(SemStore{Prompt: "p", Response: "r", Vector: []float32{1, 0}, TTL: 3600_000}, 0)
	s.Store(SemStore{Prompt: "q", Response: "r", Vector: []float32{0, 1}, TTL: 3600_000}, 0)
	s.Store(SemStore{Prompt: "q", Response: "r2", Vector: []float32{0, 1}, TTL: 3600_000}, 0) // replaces
	s.Delete([]uint64{id}, 0)
	if n := len(s.heap.items); n != 1 {
		t.Fatalf("semantic cache: %d heap items for 1 entry", n)
	}
}
