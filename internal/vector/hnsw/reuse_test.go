package hnsw

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPurgeAfterIDReuse: a delete whose in-links are not all found nearby
// waits for a purge with the neighbours it had, and by then one of them may
// have been deleted too and its id taken by a new node. The purge refilled
// lists from such ids: a new node without the layer crashed the next walk
// of the link (a panic in Delete, under concurrent VSIM.SET, VSIM.DEL and
// searches on one named index); one with the layer got a link that the
// deleted node's neighbourhood never had. Here, in one goroutine: delete a
// node and one of its layer-1 neighbours, insert twice (reusing both ids),
// 20 times, then purge. Every link the purge adds above layer 0 must go to
// a node inserted before the nodes whose links it replaces were deleted,
// and checkGraph checks each link's level. Before the fix seeds 0 to 11
// all failed checkGraph within 50 rounds; with only ref's layer check
// (which stops the crash), 10 of the 12 failed the first check within 150
// rounds, seeds 0 and 2 within 60.
func TestPurgeAfterIDReuse(t *testing.T) {
	seeds := uint64(3)
	if raceEnabled {
		seeds = 1 // one goroutine: the race detector only slows it down
	}
	for seed := range seeds {
		data := clustered(seed, 3000, 8, 30, 0.5)
		x, ids := build(t, Config{Dim: 8, M: 4, EfConstruction: 40, Seed: seed}, data)
		live := slices.Sorted(maps.Keys(ids))
		pos := map[uint32]int{} // id -> index in live
		for i, id := range live {
			pos[id] = i
		}
		clock := 1
		born := map[uint32]int{}    // id -> when its node was inserted (0: at the start)
		deleted := map[uint32]int{} // id -> when its last node was deleted
		r := rand.New(rand.NewPCG(seed, 1))
		replace := func(id uint32) {
			if !x.Delete(id) {
				t.Fatalf("delete of live id %d failed", id)
			}
			deleted[id] = clock
			i := pos[id]
			delete(pos, id)
			live[i], _ = x.Add(data[r.IntN(len(data))])
			pos[live[i]] = i
			born[live[i]] = clock + 1
			clock += 2
		}
		for round := range 60 {
			for range 20 {
				d := live[r.IntN(len(live))]
				var nb []uint32
				if x.Level(d) > 0 {
					nb = x.Links(d, 1)
				}
				replace(d)
				if len(nb) > 0 {
					if c := nb[r.IntN(len(nb))]; x.Contains(c) {
						replace(c)
					}
				}
			}
			before := upperLinks(x)
			x.Purge()
			for k, now := range upperLinks(x) {
				was := before[k]
				last := -1 // when the last node whose links went was deleted
				for _, o := range was {
					if !slices.Contains(now, o) {
						last = max(last, deleted[o])
					}
				}
				for _, o := range now {
					if !slices.Contains(was, o) && born[o] >= last {
						t.Fatalf("seed %d round %d: the purge linked node %d to %d on layer %d, inserted at %d, after the deletes it repaired (by %d)",
							seed, round, k[0], o, k[1], born[o], last)
					}
				}
			}
			checkGraph(t, x)
		}
	}
}

// upperLinks copies the lists of every live node on layers 1 and up, by
// node and layer.
func upperLinks(x *Index) map[[2]uint32][]uint32 {
	out := map[[2]uint32][]uint32{}
	for id := range x.next.Load() {
		if x.Contains(id) {
			for l := 1; l <= x.Level(id); l++ {
				out[[2]uint32{id, uint32(l)}] = x.Links(id, l)
			}
		}
	}
	return out
}

// TestPinHoldsDeletedIDs: an id deleted while a Pin is held goes to no new
// node until Unpin, and to the next one after.
func TestPinHoldsDeletedIDs(t *testing.T) {
	data := clustered(3, 60, 8, 2, 0.5)
	x, _ := build(t, Config{Dim: 8, M: 4, Seed: 3}, data)
	pin := x.Pin()
	if !x.Delete(7) {
		t.Fatal("delete of id 7 failed")
	}
	x.Purge()
	for _, v := range data[:5] {
		if id, _ := x.Add(v); id == 7 {
			t.Fatal("id 7 reused while pinned")
		}
	}
	x.Unpin(pin)
	if id, _ := x.Add(data[5]); id != 7 {
		t.Fatalf("first insert after Unpin got id %d, not the freed 7", id)
	}
}
