package list

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// contents reads l front to back through Range.
func contents(l *List) []string {
	var out []string
	l.Range(0, l.Len()-1, func(v []byte) bool {
		out = append(out, string(v))
		return true
	})
	return out
}

// check verifies l against the model and the structure's invariants: no
// empty chunks, one chunk for a listpack, plain chunks of one element in
// quicklists only, offsets increasing inside the buffers, and the listpack
// sizes equal to a fresh computation.
func check(t *testing.T, step string, l *List, model []string) {
	t.Helper()
	if l.Len() != len(model) {
		t.Fatalf("%s: Len %d, model %d", step, l.Len(), len(model))
	}
	if got := contents(l); !slices.Equal(got, model) && !(len(got) == 0 && len(model) == 0) {
		t.Fatalf("%s: contents\n got %q\nwant %q", step, got, model)
	}
	n := 0
	if !l.quick && len(l.live()) > 1 {
		t.Fatalf("%s: a listpack in %d chunks", step, len(l.live()))
	}
	for _, c := range l.live() {
		if c.n() == 0 {
			t.Fatalf("%s: empty chunk kept", step)
		}
		if c.plain && (c.n() != 1 || !l.quick) {
			t.Fatalf("%s: plain chunk of %d elements (quicklist %v)", step, c.n(), l.quick)
		}
		if c.lo < 0 || c.hi > len(c.buf) || c.a < 0 || c.b > len(c.off) || int(c.off[c.a]) != c.lo {
			t.Fatalf("%s: chunk bounds broken: %+v", step, c)
		}
		clp := 0
		for j := 0; j < c.n(); j++ {
			if j > 0 && c.off[c.a+j] < c.off[c.a+j-1] {
				t.Fatalf("%s: offsets decrease", step)
			}
			clp += entrySize(c.get(j))
		}
		if clp != c.lp {
			t.Fatalf("%s: chunk lp %d, recomputed %d", step, c.lp, clp)
		}
		n += c.n()
	}
	if n != l.n {
		t.Fatalf("%s: counted n=%d, list says n=%d", step, n, l.n)
	}
	for _, c := range l.chunks[:l.first] {
		if c != nil {
			t.Fatalf("%s: popped chunk still referenced", step)
		}
	}
}

func randElem(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return ""
	case 1:
		return strconv.Itoa(r.IntN(100000) - 50000)
	case 2:
		return string(bytes.Repeat([]byte{'x'}, 1+r.IntN(9000)))
	default:
		return string(rune('a' + r.IntN(4)))
	}
}

// TestAgainstSlice runs random operations on a List and on a []string model.
func TestAgainstSlice(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		againstSlice(t, seed, 6000)
	}
}

// againstSlice runs ops random operations from seed on a List and on a
// []string model.
func againstSlice(t *testing.T, seed uint64, ops int) {
	{
		r := rand.New(rand.NewPCG(seed, 99))
		l := New()
		var model []string
		for op := 0; op < ops; op++ {
			step := fmt.Sprintf("seed %d op %d", seed, op)
			switch k := r.IntN(14); {
			case k < 3: // push back several
				var vals [][]byte
				for range 1 + r.IntN(5) {
					v := randElem(r)
					vals = append(vals, []byte(v))
					model = append(model, v)
				}
				l.PushBack(vals...)
				step += " PushBack"
			case k < 6: // push front several
				for range 1 + r.IntN(5) {
					v := randElem(r)
					l.PushFront([]byte(v))
					model = append([]string{v}, model...)
				}
				step += " PushFront"
			case k == 6:
				v, ok := l.PopFront()
				if ok != (len(model) > 0) || (ok && string(v) != model[0]) {
					t.Fatalf("%s: PopFront %q %v, model %q", step, v, ok, model[:min(1, len(model))])
				}
				if ok {
					model = model[1:]
				}
			case k == 7:
				v, ok := l.PopBack()
				if ok != (len(model) > 0) || (ok && string(v) != model[len(model)-1]) {
					t.Fatalf("%s: PopBack %q %v", step, v, ok)
				}
				if ok {
					model = model[:len(model)-1]
				}
			case k == 8 && len(model) > 0:
				i := r.IntN(len(model))
				v := randElem(r)
				l.Set(i, []byte(v))
				model[i] = v
				step += fmt.Sprintf(" Set(%d)", i)
			case k == 9:
				i := r.IntN(len(model) + 1)
				v := randElem(r)
				insertAt(l, i, []byte(v), r.IntN(2) == 0)
				model = slices.Insert(model, i, v)
				step += fmt.Sprintf(" Insert(%d)", i)
			case k == 10:
				v := string(rune('a' + r.IntN(4)))
				count := r.IntN(7) - 3
				got := l.RemoveMatches([]byte(v), count)
				want := modelRemove(&model, v, count)
				if got != want {
					t.Fatalf("%s: RemoveMatches(%q, %d) = %d, want %d", step, v, count, got, want)
				}
			case k == 11 && len(model) > 0:
				start := r.IntN(len(model))
				stop := start + r.IntN(len(model)-start)
				l.Trim(start, stop)
				model = slices.Clone(model[start : stop+1])
				step += fmt.Sprintf(" Trim(%d,%d)", start, stop)
			case k == 12:
				i := r.IntN(len(model)*2+1) - len(model)
				v, ok := l.Index(i)
				j := i
				if j < 0 {
					j += len(model)
				}
				inRange := j >= 0 && j < len(model)
				if ok != inRange || (ok && string(v) != model[j]) {
					t.Fatalf("%s: Index(%d) = %q %v", step, i, v, ok)
				}
			case k == 13 && len(model) > 0:
				start := r.IntN(len(model))
				stop := start + r.IntN(len(model)-start)
				var got []string
				l.RangeRev(start, stop, func(v []byte) bool {
					got = append(got, string(v))
					return true
				})
				want := slices.Clone(model[start : stop+1])
				slices.Reverse(want)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: RangeRev(%d,%d) = %q, want %q", step, start, stop, got, want)
				}
			}
			check(t, step, l, model)
			if op%500 == 0 {
				c := l.Clone().(*List)
				check(t, step+" clone", c, model)
				if len(model) > 0 { // the clone must not share buffers
					c.Set(0, []byte("changed"))
					check(t, step+" original after clone changed", l, model)
				}
			}
		}
	}
}

// insertAt puts v before element i (i == Len appends), as LINSERT BEFORE
// element i or, with after and i > 0, as LINSERT AFTER element i-1.
func insertAt(l *List, i int, v []byte, after bool) {
	switch {
	case l.Len() == 0:
		l.PushBack(v)
	case i == l.Len():
		l.Insert(i-1, v, true)
	case after && i > 0:
		l.Insert(i-1, v, true)
	default:
		l.Insert(i, v, false)
	}
}

func modelRemove(model *[]string, v string, count int) int {
	m := *model
	removed := 0
	if count >= 0 {
		out := m[:0:0]
		for _, e := range m {
			if e == v && (count == 0 || removed < count) {
				removed++
				continue
			}
			out = append(out, e)
		}
		*model = out
		return removed
	}
	var out []string
	for i := len(m) - 1; i >= 0; i-- {
		if m[i] == v && removed < -count {
			removed++
			continue
		}
		out = append(out, m[i])
	}
	slices.Reverse(out)
	*model = out
	return removed
}

func TestPushPopEnds(t *testing.T) {
	l := New()
	for i := range 1000 {
		l.PushBack([]byte(strconv.Itoa(i)))
		l.PushFront([]byte(strconv.Itoa(-i - 1)))
	}
	if l.Len() != 2000 {
		t.Fatalf("Len %d", l.Len())
	}
	if v, _ := l.Index(0); string(v) != "-1000" {
		t.Fatalf("first %q", v)
	}
	if v, _ := l.Index(-1); string(v) != "999" {
		t.Fatalf("last %q", v)
	}
	for i := 999; i >= 0; i-- {
		v, ok := l.PopBack()
		if !ok || string(v) != strconv.Itoa(i) {
			t.Fatalf("PopBack %q %v, want %d", v, ok, i)
		}
	}
	for i := 1000; i >= 1; i-- {
		v, ok := l.PopFront()
		if !ok || string(v) != strconv.Itoa(-i) {
			t.Fatalf("PopFront %q %v, want %d", v, ok, -i)
		}
	}
	if _, ok := l.PopFront(); ok || l.Len() != 0 {
		t.Fatal("list should be empty")
	}
	if _, ok := l.PopBack(); ok {
		t.Fatal("PopBack on empty list")
	}
}

// A queue (push back, pop front) must not keep growing its buffers.
func TestQueueReusesMemory(t *testing.T) {
	l := New()
	for i := range 100 {
		l.PushBack([]byte(strconv.Itoa(i)))
	}
	for i := range 1_000_000 {
		l.PushBack([]byte("element"))
		l.PopFront()
		if i%100_000 == 0 && len(l.chunks) > 4 {
			t.Fatalf("chunk slice grew to %d for a list of %d", len(l.chunks), l.Len())
		}
	}
	total := 0
	for _, c := range l.live() {
		total += len(c.buf)
	}
	if total > 16*1024 {
		t.Fatalf("buffers hold %d bytes for %d elements", total, l.Len())
	}
}

// TestPoppedValueSurvivesPush: LMOVE pops from one end and pushes onto the
// other end of the same list; the popped slice must still hold the value.
func TestPoppedValueSurvivesPush(t *testing.T) {
	for _, front := range []bool{true, false} {
		l := New()
		l.PushBack([]byte("a"), []byte("bb"), []byte("ccc"))
		var v []byte
		if front {
			v, _ = l.PopFront()
			l.PushFront(v)
		} else {
			v, _ = l.PopBack()
			l.PushBack(v)
		}
		check(t, "pop+push", l, []string{"a", "bb", "ccc"})
	}
	l := New()
	l.PushBack([]byte("only"))
	v, _ := l.PopFront()
	l.PushBack(v)
	check(t, "single", l, []string{"only"})
}

func TestEncodingThresholds(t *testing.T) {
	// Push counts at which Redis 8.0.2 turns a list of one repeated element
	// into a quicklist, and lengths at which popping turns it back (measured
	// with OBJECT ENCODING on redis-server 8.0.2, list-max-listpack-size -2).
	for _, tc := range []struct {
		elem     string
		up, back int
	}{
		{"a", 2730, 1363},
		{"abcdefghij", 683, 340},
		{"7", 4094, 2044},
		{"1000", 2729, 1363},
		{string(bytes.Repeat([]byte{'x'}, 63)), 126, 62},
		{string(bytes.Repeat([]byte{'x'}, 64)), 123, 61},
		{string(bytes.Repeat([]byte{'x'}, 100)), 80, 39},
		{string(bytes.Repeat([]byte{'x'}, 4000)), 3, 1},
	} {
		l := New()
		n := 0
		for l.Encoding() == "listpack" {
			l.PushBack([]byte(tc.elem))
			n++
		}
		if n != tc.up {
			t.Errorf("%d-byte %q: quicklist after %d pushes, Redis %d", len(tc.elem), tc.elem[:1], n, tc.up)
		}
		for l.Encoding() == "quicklist" && n > 1 {
			l.PopBack()
			n--
		}
		if n != tc.back {
			t.Errorf("%d-byte %q: listpack again at %d, Redis %d", len(tc.elem), tc.elem[:1], n, tc.back)
		}
	}
	l := New()
	l.PushBack(bytes.Repeat([]byte{'x'}, 8200))
	if l.Encoding() != "quicklist" {
		t.Error("one element over 8 KB is a quicklist in Redis")
	}
}

func TestEntrySize(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int
	}{
		{"", 2}, {"a", 3}, {"0", 2}, {"127", 2}, {"128", 3}, {"-1", 3}, {"-4096", 3},
		{"4096", 4}, {"-32768", 4}, {"32768", 5}, {"8388607", 5}, {"8388608", 6},
		{"2147483647", 6}, {"2147483648", 10}, {"9223372036854775807", 10},
		{"9223372036854775808", 21}, {"01", 4}, {"+1", 4}, {"-0", 4},
		{string(bytes.Repeat([]byte{'x'}, 63)), 65}, {string(bytes.Repeat([]byte{'x'}, 64)), 67},
		{string(bytes.Repeat([]byte{'x'}, 125)), 128}, {string(bytes.Repeat([]byte{'x'}, 126)), 130},
		{string(bytes.Repeat([]byte{'x'}, 4096)), 4103},
	} {
		if got := entrySize([]byte(tc.v)); got != tc.want {
			t.Errorf("entrySize(%.10q len %d) = %d, want %d", tc.v, len(tc.v), got, tc.want)
		}
	}
}

func TestRangeStopsEarly(t *testing.T) {
	l := New()
	for i := range 1000 {
		l.PushBack([]byte(strconv.Itoa(i)))
	}
	n := 0
	l.Range(10, 900, func([]byte) bool { n++; return n < 5 })
	if n != 5 {
		t.Fatalf("Range went on after false: %d calls", n)
	}
	n = 0
	l.RangeRev(10, 900, func([]byte) bool { n++; return n < 7 })
	if n != 7 {
		t.Fatalf("RangeRev went on after false: %d calls", n)
	}
}

func benchList(n int) *List {
	l := New()
	for i := range n {
		l.PushBack([]byte("element-" + strconv.Itoa(i)))
	}
	return l
}

func BenchmarkPushBack(b *testing.B) {
	v := []byte("xxx")
	l := New()
	for i := 0; b.Loop(); i++ {
		if i%100_000 == 0 {
			l = New()
		}
		l.PushBack(v)
	}
}

func BenchmarkPushFront(b *testing.B) {
	v := []byte("xxx")
	l := New()
	for i := 0; b.Loop(); i++ {
		if i%100_000 == 0 {
			l = New()
		}
		l.PushFront(v)
	}
}

// BenchmarkQueue is RPUSH + LPOP on a list of 1000 (a job queue).
func BenchmarkQueue(b *testing.B) {
	l := benchList(1000)
	v := []byte("job-payload")
	for b.Loop() {
		l.PushBack(v)
		l.PopFront()
	}
}

// BenchmarkRange100 reads the first 100 of 600 elements, as
// valkey-benchmark's LRANGE_100 does.
func BenchmarkRange100(b *testing.B) {
	l := benchList(600)
	for b.Loop() {
		n := 0
		l.Range(0, 99, func(v []byte) bool { n += len(v); return true })
	}
}

func BenchmarkRange600(b *testing.B) {
	l := benchList(600)
	for b.Loop() {
		n := 0
		l.Range(0, 599, func(v []byte) bool { n += len(v); return true })
	}
}

// BenchmarkIndexMiddle is LINDEX at the middle of a million elements: the
// worst case of walking chunks.
func BenchmarkIndexMiddle(b *testing.B) {
	l := benchList(1_000_000)
	for b.Loop() {
		l.Index(500_000)
	}
}

func BenchmarkIndexNearEnd(b *testing.B) {
	l := benchList(1_000_000)
	for b.Loop() {
		l.Index(-10)
	}
}

// BenchmarkMemoryPerElement reports heap bytes per element of a million-
// element list (live heap after GC, before and after building it).
func BenchmarkMemoryPerElement(b *testing.B) {
	for _, tc := range []struct {
		name string
		elem func(i int) []byte
	}{
		{"int", func(i int) []byte { return []byte(strconv.Itoa(i)) }},
		{"16B", func(i int) []byte { return []byte(fmt.Sprintf("element-%08d", i)) }},
		{"100B", func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, 100) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			const n = 1_000_000
			var per float64
			for b.Loop() {
				before := heapInUse()
				l := New()
				for i := range n {
					l.PushBack(tc.elem(i))
				}
				per = float64(heapInUse()-before) / n
				runtime.KeepAlive(l)
			}
			b.ReportMetric(per, "bytes/elem")
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// FuzzList reads operations from the input and checks the list against a
// slice after each one.
func FuzzList(f *testing.F) {
	f.Add([]byte("\x00a\x01b\x02\x03\x04\x05"))
	f.Add(bytes.Repeat([]byte("\x00\xff\x01\x10\x06\x02"), 50))
	f.Fuzz(func(t *testing.T, ops []byte) {
		l := New()
		var model []string
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%8, int(ops[i+1])
			// Elements of varied size, some over a chunk, some integers.
			v := strings.Repeat(string(rune('a'+arg%3)), arg%5+arg/200*9000)
			if arg%7 == 0 {
				v = strconv.Itoa(arg - 100)
			}
			switch op {
			case 0:
				l.PushBack([]byte(v), []byte(v+"!"))
				model = append(model, v, v+"!")
			case 1:
				l.PushFront([]byte(v))
				model = append([]string{v}, model...)
			case 2:
				if _, ok := l.PopFront(); ok {
					model = model[1:]
				}
			case 3:
				if _, ok := l.PopBack(); ok {
					model = model[:len(model)-1]
				}
			case 4:
				if len(model) > 0 {
					j := arg % len(model)
					l.Set(j, []byte(v))
					model[j] = v
				}
			case 5:
				j := arg % (len(model) + 1)
				insertAt(l, j, []byte(v), arg%2 == 0)
				model = slices.Insert(model, j, v)
			case 6:
				count := arg%5 - 2
				want := modelRemove(&model, v, count)
				if got := l.RemoveMatches([]byte(v), count); got != want {
					t.Fatalf("RemoveMatches = %d, want %d", got, want)
				}
			case 7:
				if len(model) > 0 {
					start := arg % len(model)
					stop := start + (arg/3)%(len(model)-start)
					l.Trim(start, stop)
					model = slices.Clone(model[start : stop+1])
				}
			}
			check(t, fmt.Sprintf("op %d", i/2), l, model)
		}
	})
}
