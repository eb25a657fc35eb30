package stream

import (
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/value/listpack"
)

// withNodeLimits sets the process-wide node limits for one test and
// restores Redis's defaults after it.
func withNodeLimits(t *testing.T, entries, bytes int64) {
	t.Helper()
	SetNodeLimits(entries, bytes)
	t.Cleanup(func() { SetNodeLimits(DefaultNodeEntries, DefaultNodeBytes) })
}

func kv(pairs ...string) [][]byte {
	out := make([][]byte, len(pairs))
	for i, p := range pairs {
		out[i] = []byte(p)
	}
	return out
}

func TestNodeEntriesLimit(t *testing.T) {
	withNodeLimits(t, 3, 0)
	s := New()
	for i := range 7 {
		s.Add(ID{uint64(i + 1), 0}, kv("f", "v"))
	}
	if s.Nodes() != 3 {
		t.Fatalf("7 entries in nodes of 3: %d nodes", s.Nodes())
	}
	s.Delete(ID{7, 0}) // the last node goes with its last entry
	s.Delete(ID{5, 0})
	s.Add(ID{8, 0}, kv("f", "v")) // a node counts its deleted entries
	if s.Nodes() != 3 {
		t.Fatalf("after deletions: %d nodes", s.Nodes())
	}
	SetNodeLimits(0, 0)
	for i := range 500 {
		s.Add(ID{uint64(i + 9), 0}, kv("f", "v"))
	}
	if s.Nodes() != 3 { // the last node takes them all
		t.Fatalf("no limit: %d nodes", s.Nodes())
	}
}

// TestNodeBytesLimit: a node takes entries while its listpack (as Redis
// writes it) plus the new entry's strings stays under stream-node-max-bytes.
func TestNodeBytesLimit(t *testing.T) {
	// The master entry: counters (live 1, deleted 0), 1 field "f", the
	// field, the terminator; then each entry with the master's fields:
	// flags, ms and seq differences, the value, the element count (4).
	val := strings.Repeat("x", 10)
	master := listpack.Header + listpack.IntSize(1) + listpack.IntSize(0) + listpack.IntSize(1) + listpack.EntrySize([]byte("f")) + listpack.IntSize(0)
	entry := 3*listpack.IntSize(0) + listpack.EntrySize([]byte(val)) + listpack.IntSize(4)
	// Room for exactly 3 entries: the 4th would reach the limit.
	limit := int64(master + 3*entry + len("f") + len(val))
	withNodeLimits(t, 0, limit)
	s := New()
	for range 3 {
		s.Add(ID{1, uint64(s.Len())}, kv("f", val))
	}
	if s.Nodes() != 1 || s.nodes[0].lpBytes() != master+3*entry {
		t.Fatalf("%d nodes, first of %d bytes, want 1 of %d", s.Nodes(), s.nodes[0].lpBytes(), master+3*entry)
	}
	s.Add(ID{1, uint64(s.Len())}, kv("f", val))
	if s.Nodes() != 2 {
		t.Fatalf("the 4th entry did not open a node: %d nodes", s.Nodes())
	}
	SetNodeLimits(0, limit+1)
	s = New()
	for range 4 {
		s.Add(ID{1, uint64(s.Len())}, kv("f", val))
	}
	if s.Nodes() != 1 {
		t.Fatalf("a byte more: %d nodes for 4 entries", s.Nodes())
	}
}

// TestRaxNodes counts the nodes of Redis's radix tree over the node keys
// (checked against XINFO STREAM on a real Redis for random layouts).
func TestRaxNodes(t *testing.T) {
	withNodeLimits(t, 1, 0)
	s := New()
	if s.RaxNodes() != 1 {
		t.Fatalf("empty: %d", s.RaxNodes())
	}
	s.Add(ID{1, 0}, kv("f", "v"))
	if s.RaxNodes() != 2 { // the root's compressed key, the leaf
		t.Fatalf("one key: %d", s.RaxNodes())
	}
	s.Add(ID{1, 1}, kv("f", "v"))
	if s.RaxNodes() != 4 { // a shared 15-byte prefix, a branch, two leaves
		t.Fatalf("two keys differing in the last byte: %d", s.RaxNodes())
	}
	s.Add(ID{1 << 40, 0}, kv("f", "v"))
	// The root branches at byte 2; under 0x00 a compressed run to the
	// branch at byte 15 with its two leaves; under 0x01 a run to a leaf.
	if s.RaxNodes() != 8 {
		t.Fatalf("three keys: %d", s.RaxNodes())
	}
}
