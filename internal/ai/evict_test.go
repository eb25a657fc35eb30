package ai

import "testing"

// Measure counts each family's memory and lists the caches with entries;
// Sample offers a cache's entries (only those with an expiry if volatile)
// with what maxmemory ranks them by; Evict removes one while it is still
// there and counts it as evicted.
func TestMeasureSampleEvict(t *testing.T) {
	r := NewRegistry()
	vo := VectorOptions{Dim: 2}
	if r.CreatePrompt("p", PromptOptions{}) != nil || r.CreateSem("s", SemOptions{VectorOptions: vo, Threshold: 0.1}) != nil ||
		r.CreateMemory("m", MemoryOptions{VectorOptions: vo, Dedup: -1, HalfLife: 1, WorkingMax: 1}) != nil {
		t.Fatal("create")
	}
	empty, caches := r.Measure()
	if len(caches) != 0 {
		t.Fatalf("caches with entries: %v", caches)
	}
	p, s, m := r.Prompt("p"), r.Sem("s"), r.Memory("m")
	p.Set(PromptKey{1}, make([]byte, 1000), 0, 10, false)
	p.Set(PromptKey{2}, make([]byte, 1000), 5000, 20, false)
	p.Get(PromptKey{2}, 30)
	s.Store(SemStore{Prompt: "a", Response: string(make([]byte, 1000)), Vector: []float32{1, 0}, TTL: 5000}, 40)
	m.Add(MemAdd{Text: string(make([]byte, 1000)), Vector: []float32{1, 0}, Kind: Semantic}, 50)
	u, caches := r.Measure()
	if u.Prompt < empty.Prompt+2000 || u.Sem < empty.Sem+1000 || u.Memory < empty.Memory+1000 {
		t.Fatalf("usage %+v after adding, %+v before", u, empty)
	}
	if len(caches) != 2 {
		t.Fatalf("%d caches with entries, want 2", len(caches))
	}
	byName := map[string]Cache{}
	for _, c := range caches {
		byName[c.name] = c
	}
	if c := byName["p"]; c.Entries != 2 || c.Volatile != 1 {
		t.Fatalf("prompt cache counted %+v", c)
	}
	if c := byName["s"]; c.Entries != 1 || c.Volatile != 1 {
		t.Fatalf("semantic cache counted %+v", c)
	}
	var got []Victim
	byName["p"].Sample(5, true, func(v Victim) { got = append(got, v) })
	if len(got) != 1 || got[0].key != (PromptKey{2}) || got[0].Access != 30 || got[0].Hits != 1 || got[0].Expire != 5020 || got[0].Bytes < 1000 {
		t.Fatalf("volatile sample %+v", got)
	}
	got = got[:0]
	byName["p"].Sample(5, false, func(v Victim) { got = append(got, v) })
	if len(got) != 2 {
		t.Fatalf("sample of all: %+v", got)
	}
	for _, v := range got {
		if v.key == (PromptKey{1}) && r.Evict(v, true) {
			t.Fatal("a volatile eviction took an entry without an expiry")
		}
		if !r.Evict(v, false) || r.Evict(v, false) {
			t.Fatalf("evicting %+v once", v)
		}
	}
	if st := p.Stats(60); st.Entries != 0 || st.Evicted != 2 || st.Bytes != 0 {
		t.Fatalf("prompt cache after evictions: %+v", st)
	}
	got = got[:0]
	byName["s"].Sample(5, false, func(v Victim) { got = append(got, v) })
	if len(got) != 1 || got[0].Access != 40 {
		t.Fatalf("semantic sample %+v", got)
	}
	r.DropSem("s")
	if r.Evict(got[0], false) {
		t.Fatal("evicted from a dropped cache")
	}
	r.CreateSem("s", SemOptions{VectorOptions: vo, Threshold: 0.1})
	if r.Evict(got[0], false) {
		t.Fatal("evicted from a new cache of the same name")
	}
	if u2, _ := r.Measure(); u2.Sem >= u.Sem || u2.Prompt >= u.Prompt {
		t.Fatalf("usage %+v after evicting and dropping, %+v before", u2, u)
	}
}

// A cache's own limits report what they evict, for the server to
// propagate; following a master's stream, they evict nothing (the
// master's deletions come instead).
func TestLimitEvictionsReported(t *testing.T) {
	r := NewRegistry()
	if r.CreatePrompt("p", PromptOptions{MaxEntries: 2}) != nil ||
		r.CreateSem("s", SemOptions{VectorOptions: VectorOptions{Dim: 2}, Threshold: 0.1, MaxEntries: 2}) != nil {
		t.Fatal("create")
	}
	p, s := r.Prompt("p"), r.Sem("s")
	for i := range byte(2) {
		if _, ev, err := p.Set(PromptKey{i}, []byte("v"), 0, int64(i), false); err != nil || ev != nil {
			t.Fatalf("Set %d under the limit: evicted %v, %v", i, ev, err)
		}
	}
	if _, ev, _ := p.Set(PromptKey{2}, []byte("v"), 0, 2, false); len(ev) != 1 || ev[0] != (PromptKey{0}) {
		t.Fatalf("Set over MAXENTRIES evicted %v, want the least recently used", ev)
	}
	if _, ev, _ := p.Set(PromptKey{3}, []byte("v"), 0, 3, true); ev != nil || p.Stats(3).Entries != 3 {
		t.Fatalf("a followed Set evicted %v; %d entries", ev, p.Stats(3).Entries)
	}
	if n := p.Delete(3, PromptKey{1}, PromptKey{9}, PromptKey{2}); n != 2 {
		t.Fatalf("Delete of two present keys and one absent = %d", n)
	}

	var ids []uint64
	for i := range 2 {
		id, ev, err := s.Store(SemStore{Prompt: string(rune('a' + i)), Response: "r", Vector: []float32{1, float32(i)}}, int64(i))
		if err != nil || ev != nil {
			t.Fatalf("Store %d under the limit: evicted %v, %v", i, ev, err)
		}
		ids = append(ids, id)
	}
	_, ev, _ := s.Store(SemStore{Prompt: "c", Response: "r", Vector: []float32{0, 1}}, 2)
	if len(ev) != 1 || ev[0] != ids[0] && ev[0] != ids[1] {
		t.Fatalf("Store over MAXENTRIES evicted %v, want one of %v", ev, ids)
	}
	if n := s.Delete(ev, 3); n != 0 {
		t.Fatalf("the evicted entry %d is still there", ev[0])
	}
	if _, ev, _ := s.Store(SemStore{Prompt: "d", Response: "r", Vector: []float32{1, 1}, Follow: true}, 3); ev != nil || s.Stats(3).Entries != 3 {
		t.Fatalf("a followed Store evicted %v; %d entries", ev, s.Stats(3).Entries)
	}
}
