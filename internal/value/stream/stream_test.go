package stream

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestParseID(t *testing.T) {
	for _, c := range []struct {
		in       string
		missing  uint64
		star     bool
		want     ID
		wantStar bool
		ok       bool
	}{
		{"1-2", 0, false, ID{1, 2}, false, true},
		{"5", 0, false, ID{5, 0}, false, true},
		{"5", math.MaxUint64, false, ID{5, math.MaxUint64}, false, true},
		{"18446744073709551615-18446744073709551615", 0, false, MaxID, false, true},
		{"18446744073709551616-0", 0, false, ID{}, false, false},
		{"7-*", 0, true, ID{7, 0}, true, true},
		{"7-*", 0, false, ID{}, false, false},
		{"-", 0, false, ID{}, false, false},
		{"+", 0, false, ID{}, false, false},
		{"1-", 0, false, ID{}, false, false},
		{"-1", 0, false, ID{}, false, false},
		{"1-2-3", 0, false, ID{}, false, false},
		{"a-1", 0, false, ID{}, false, false},
		{"", 0, false, ID{}, false, false},
		{" 1", 0, false, ID{1, 0}, false, true}, // strtoull's leading space and sign
		{"+6", 0, false, ID{6, 0}, false, true},
		{"7-+1", 0, false, ID{7, 1}, false, true},
		{"8--1", 0, false, ID{}, false, false},
		{"1--18446744073709551615", 0, false, ID{1, 1}, false, true}, // strtoull negates
		{"1- ", 0, false, ID{}, false, false},
	} {
		id, star, ok := ParseID([]byte(c.in), c.missing, c.star)
		if ok != c.ok || (ok && (id != c.want || star != c.wantStar)) {
			t.Errorf("ParseID(%q) = %v %v %v, want %v %v %v", c.in, id, star, ok, c.want, c.wantStar, c.ok)
		}
	}
}

func TestIDNextPrev(t *testing.T) {
	if n, ok := (ID{1, math.MaxUint64}).Next(); !ok || n != (ID{2, 0}) {
		t.Errorf("Next over the sequence = %v %v", n, ok)
	}
	if _, ok := MaxID.Next(); ok {
		t.Error("MaxID has a next")
	}
	if p, ok := (ID{2, 0}).Prev(); !ok || p != (ID{1, math.MaxUint64}) {
		t.Errorf("Prev over the sequence = %v %v", p, ok)
	}
	if _, ok := (ID{}).Prev(); ok {
		t.Error("0-0 has a previous")
	}
}

func ids(s *Stream, start, end ID, rev bool) []ID {
	var out []ID
	s.Range(start, end, rev, func(e Entry) bool { out = append(out, e.ID); return true })
	return out
}

// TestAgainstModel compares the node structure with a plain sorted slice
// under random appends, deletes, trims and ranges.
func TestAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := New()
	var model []ID
	next := ID{1, 0}
	for step := range 20000 {
		switch op := r.IntN(10); {
		case op < 5:
			fields := [][]byte{[]byte("k"), fmt.Appendf(nil, "%d", step)}
			if r.IntN(4) == 0 { // not the node's master fields
				fields = append(fields, []byte("x"), []byte("y"))
			}
			s.Add(next, fields)
			model = append(model, next)
			next = ID{next.Ms + uint64(r.IntN(3)), next.Seq + 1}
		case op < 7 && len(model) > 0:
			i := r.IntN(len(model))
			if !s.Delete(model[i]) {
				t.Fatalf("step %d: delete of %v failed", step, model[i])
			}
			model = slices.Delete(model, i, i+1)
		case op == 7:
			max := int64(r.IntN(len(model) + 1))
			n := s.Trim(TrimMaxLen, max, ID{}, false, 0)
			want := max64(int64(len(model))-max, 0)
			if n != want {
				t.Fatalf("step %d: MAXLEN %d removed %d, want %d", step, max, n, want)
			}
			model = model[want:]
		case op == 8 && len(model) > 0:
			min := model[r.IntN(len(model))]
			n := s.Trim(TrimMinID, 0, min, false, 0)
			i, _ := slices.BinarySearchFunc(model, min, ID.Compare)
			if n != int64(i) {
				t.Fatalf("step %d: MINID %v removed %d, want %d", step, min, n, i)
			}
			model = model[i:]
		default:
			if len(model) == 0 {
				continue
			}
			a, b := model[r.IntN(len(model))], model[r.IntN(len(model))]
			if b.Less(a) {
				a, b = b, a
			}
			lo, _ := slices.BinarySearchFunc(model, a, ID.Compare)
			hi, _ := slices.BinarySearchFunc(model, b, ID.Compare)
			want := model[lo : hi+1]
			if got := ids(s, a, b, false); !slices.Equal(got, want) {
				t.Fatalf("step %d: range %v..%v = %v, want %v", step, a, b, got, want)
			}
			rev := slices.Clone(want)
			slices.Reverse(rev)
			if got := ids(s, a, b, true); !slices.Equal(got, rev) {
				t.Fatalf("step %d: reverse range %v..%v = %v, want %v", step, a, b, got, rev)
			}
		}
		if s.Len() != len(model) {
			t.Fatalf("step %d: Len %d, model %d", step, s.Len(), len(model))
		}
		if step%100 == 0 { // "-" to "+" both ways: ends that match no entry
			rev := slices.Clone(model)
			slices.Reverse(rev)
			if got := ids(s, ID{}, MaxID, true); !slices.Equal(got, rev) {
				t.Fatalf("step %d: + to - gives %d entries, want %d", step, len(got), len(rev))
			}
		}
	}
	if got := ids(s, ID{}, MaxID, false); !slices.Equal(got, model) {
		t.Fatalf("final contents differ")
	}
	s.Range(ID{}, MaxID, false, func(e Entry) bool {
		if f := e.Fields(); string(f[0]) != "k" || (len(f) != 2 && len(f) != 4) {
			t.Fatalf("%v: fields %q", e.ID, f)
		}
		return true
	})
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// Approximate trimming removes only whole nodes, and LIMIT caps it by
// whole nodes: with 100-entry nodes, as Redis's defaults.
func TestApproxTrim(t *testing.T) {
	s := New()
	for i := range 350 {
		s.Add(ID{uint64(i + 1), 0}, [][]byte{[]byte("f"), []byte("v")})
	}
	if n := s.Trim(TrimMaxLen, 280, ID{}, true, 0); n != 0 {
		t.Fatalf("~ 280 of 350 removed %d, want 0 (a whole node would leave 250)", n)
	}
	if n := s.Trim(TrimMaxLen, 100, ID{}, true, 100); n != 100 {
		t.Fatalf("~ 100 LIMIT 100 removed %d, want one node", n)
	}
	if n := s.Trim(TrimMaxLen, 100, ID{}, true, 0); n != 100 {
		t.Fatalf("~ 100 removed %d, want the next node", n)
	}
	if s.Len() != 150 || s.FirstID() != (ID{201, 0}) {
		t.Fatalf("left %d from %v", s.Len(), s.FirstID())
	}
}

// Entries with the node's master field names store only their values;
// others store everything: both read back as written.
func TestEntryFields(t *testing.T) {
	s := New()
	in := [][][]byte{
		{[]byte("a"), []byte(""), []byte("b"), []byte("long value with \x00 bytes")},
		{[]byte("a"), []byte("1"), []byte("b"), make([]byte, 300)}, // master fields
		{[]byte("b"), []byte("1"), []byte("a"), []byte("2")},       // same names, other order
		{[]byte("a"), []byte("1")},
		{[]byte("a"), []byte("1"), []byte("b"), []byte("2"), []byte("c"), []byte("3")},
	}
	for i, f := range in {
		s.Add(ID{uint64(i + 1), 0}, f)
	}
	for i, want := range in {
		e, ok := s.Get(ID{uint64(i + 1), 0})
		if !ok || e.Len() != len(want) {
			t.Fatalf("entry %d: found %v, Len %d, want %d", i, ok, e.Len(), len(want))
		}
		for j, f := range e.Fields() {
			if string(f) != string(want[j]) {
				t.Fatalf("entry %d string %d = %q, want %q", i, j, f, want[j])
			}
		}
	}
}

// Lag follows Redis's rules: exact without tombstones after the group's
// position, unknown when an XDEL may have left a gap it cannot count.
func TestLag(t *testing.T) {
	s := New()
	for i := range 5 {
		s.Add(ID{uint64(i + 1), 0}, [][]byte{[]byte("f"), []byte("v")})
	}
	g, _ := s.CreateGroup([]byte("g"), ID{}, Invalid)
	if lag, ok := s.Lag(g); !ok || lag != 5 {
		t.Fatalf("lag of a new group = %d %v, want 5", lag, ok)
	}
	s.Deliver(g, ID{1, 0})
	s.Deliver(g, ID{2, 0})
	if g.EntriesRead != 2 {
		t.Fatalf("entries read %d, want 2", g.EntriesRead)
	}
	if lag, ok := s.Lag(g); !ok || lag != 3 {
		t.Fatalf("lag = %d %v, want 3", lag, ok)
	}
	s.Delete(ID{4, 0})
	if _, ok := s.Lag(g); ok {
		t.Fatal("lag known across a tombstone")
	}
	s.Deliver(g, ID{3, 0}) // what XREADGROUP reads next: 3, then 5
	if g.EntriesRead != Invalid {
		t.Fatalf("entries read %d before a tombstone, want unknown", g.EntriesRead)
	}
	s.Deliver(g, ID{5, 0})
	if lag, ok := s.Lag(g); !ok || lag != 0 {
		t.Fatalf("lag at the end = %d %v, want 0", lag, ok)
	}
}

func TestPendingOwnership(t *testing.T) {
	s := New()
	g, _ := s.CreateGroup([]byte("g"), ID{}, Invalid)
	a, _ := g.CreateConsumer([]byte("a"), 1)
	b, _ := g.CreateConsumer([]byte("b"), 1)
	for i := range 10 {
		g.Assign(ID{uint64(i + 1), 0}, a, 10, 1)
	}
	g.Assign(ID{3, 0}, b, 20, 2)
	if a.PendingCount() != 9 || b.PendingCount() != 1 || g.PendingCount() != 10 {
		t.Fatalf("counts a=%d b=%d group=%d", a.PendingCount(), b.PendingCount(), g.PendingCount())
	}
	if !g.Ack(ID{3, 0}) || g.Ack(ID{3, 0}) || b.PendingCount() != 0 {
		t.Fatal("ack of b's entry")
	}
	if n, ok := g.DeleteConsumer([]byte("a")); !ok || n != 9 || g.PendingCount() != 0 {
		t.Fatalf("delete consumer: %d %v, group left %d", n, ok, g.PendingCount())
	}
	c := s.Clone().(*Stream)
	if c.Group([]byte("g")).Consumer([]byte("b")) == nil || c.Group([]byte("g")) == g {
		t.Fatal("clone lost or shared the group")
	}
}

// A node whose last entry was deleted still ends at that entry's ID for
// an approximate MINID trim, as Redis's listpack keeps the tombstone.
func TestMinIDTrimSeesDeletedTail(t *testing.T) {
	s := New()
	s.Add(ID{5, 0}, [][]byte{[]byte("f"), []byte("1")})
	s.Add(ID{math.MaxUint64, 0}, [][]byte{[]byte("f"), []byte("2")})
	s.Delete(ID{math.MaxUint64, 0})
	if n := s.Trim(TrimMinID, 0, ID{8, 0}, true, 0); n != 0 {
		t.Fatalf("~ MINID 8 removed %d, want 0", n)
	}
	// The node stays, empty, as in Redis; the next entry joins it.
	if n := s.Trim(TrimMinID, 0, ID{8, 0}, false, 0); n != 1 || s.Len() != 0 || s.Nodes() != 1 {
		t.Fatalf("= MINID 8 removed %d, left %d in %d nodes", n, s.Len(), s.Nodes())
	}
	s.Add(ID{math.MaxUint64, 1}, [][]byte{[]byte("f"), []byte("3")})
	if got := ids(s, ID{}, MaxID, false); len(got) != 1 || s.Nodes() != 1 {
		t.Fatalf("after trimming to empty and adding: %v in %d nodes", got, s.Nodes())
	}
}

// An exact trim that empties the first node keeps it: lookups pass over it
// to the next, and the next trim removes it.
func TestEmptiedFirstNode(t *testing.T) {
	defer SetNodeLimits(DefaultNodeEntries, DefaultNodeBytes)
	SetNodeLimits(3, 0)
	s := New()
	for i := uint64(1); i <= 6; i++ {
		s.Add(ID{i, 0}, [][]byte{[]byte("f"), []byte("v")})
	}
	s.Delete(ID{3, 0})
	if n := s.Trim(TrimMinID, 0, ID{3, 0}, false, 0); n != 2 || s.Nodes() != 2 {
		t.Fatalf("= MINID 3 removed %d, left %d nodes", n, s.Nodes())
	}
	if e, _ := s.First(); e.ID != (ID{4, 0}) || s.FirstID() != (ID{4, 0}) {
		t.Fatalf("first %v", e.ID)
	}
	if _, ok := s.Get(ID{2, 0}); ok {
		t.Fatal("got a trimmed entry")
	}
	if _, ok := s.Get(ID{5, 0}); !ok {
		t.Fatal("lost 5-0")
	}
	if got := ids(s, ID{}, MaxID, true); len(got) != 3 || got[2] != (ID{4, 0}) {
		t.Fatalf("reverse range %v", got)
	}
	if s.Delete(ID{1, 0}) || !s.Delete(ID{4, 0}) || s.Nodes() != 2 {
		t.Fatalf("deletes around the emptied node: %d nodes", s.Nodes())
	}
	if n := s.Trim(TrimMaxLen, 1, ID{}, false, 0); n != 1 || s.Nodes() != 1 || s.FirstID() != (ID{6, 0}) {
		t.Fatalf("MAXLEN 1 removed %d, left %d nodes from %v", n, s.Nodes(), s.FirstID())
	}
}
