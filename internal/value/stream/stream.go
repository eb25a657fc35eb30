// Package stream is the value of a Redis stream: entries ordered by ID, with
// consumer groups.
//
// Entries live in nodes kept in a slice in ID order, as Redis keeps its
// listpack nodes in a radix tree: appends go to the last node, lookups
// binary-search the nodes and then scan one, and trimming drops whole nodes
// from the front. A node closes where Redis's would, by
// stream-node-max-entries and stream-node-max-bytes (see SetNodeLimits),
// so XINFO STREAM's radix tree counts and approximate trimming ("~", which
// removes whole nodes only) match Redis's. A node packs its entries into
// one byte slice (node.go).
package stream

import (
	"encoding/binary"
	"slices"
	"sort"
	"sync/atomic"
)

// Redis's defaults for stream-node-max-entries and stream-node-max-bytes.
const (
	DefaultNodeEntries = 100
	DefaultNodeBytes   = 4096
)

// The node limits in force: process-wide, as Redis's, read with atomic
// loads on XADD (SetNodeLimits sets them).
var nodeMaxEntries, nodeMaxBytes atomic.Int64

func init() { SetNodeLimits(DefaultNodeEntries, DefaultNodeBytes) }

// SetNodeLimits sets stream-node-max-entries and stream-node-max-bytes (0
// for no limit). Nodes already holding more stay as they are: the limits
// decide when the next entry opens a new node.
func SetNodeLimits(entries, bytes int64) {
	nodeMaxEntries.Store(entries)
	nodeMaxBytes.Store(bytes)
}

// NodeMaxEntries is stream-node-max-entries (XADD and XTRIM's default
// LIMIT for "~" is 100 times it).
func NodeMaxEntries() int64 { return nodeMaxEntries.Load() }

// lpMaxSafety is Redis's STREAM_LISTPACK_MAX_SIZE: the node size used when
// stream-node-max-bytes is 0 or larger.
const lpMaxSafety = 1 << 30

// nodeFull reports whether Redis's streamAppendItem opens a new node rather
// than add an entry of fields to n: when n's listpack plus the fields' raw
// bytes reaches stream-node-max-bytes, or n holds stream-node-max-entries
// entries, deleted ones included.
func nodeFull(n *node, fields [][]byte) bool {
	maxBytes := nodeMaxBytes.Load()
	if maxBytes == 0 || maxBytes > lpMaxSafety {
		maxBytes = lpMaxSafety
	}
	add := 0
	for _, f := range fields {
		add += len(f)
	}
	if int64(n.lpBytes()+add) >= maxBytes {
		return true
	}
	maxEntries := nodeMaxEntries.Load()
	return maxEntries != 0 && int64(n.added) >= maxEntries
}

// Stream is a stream value.
type Stream struct {
	nodes        []*node
	length       int
	LastID       ID    // the last ID ever added (or set by XSETID)
	MaxDeleted   ID    // the largest ID deleted (XDEL, XTRIM)
	EntriesAdded int64 // entries ever added
	groups       map[string]*Group
}

// New returns an empty stream.
func New() *Stream { return &Stream{} }

// Len is the number of entries.
func (s *Stream) Len() int { return s.length }

// Nodes is the number of nodes (XINFO's radix-tree-keys).
func (s *Stream) Nodes() int { return len(s.nodes) }

// RaxNodes is the number of nodes of Redis's radix tree holding the nodes
// keyed by their first IDs (XINFO's radix-tree-nodes): the root, every
// branching point and each of its children (the start of a compressed
// chain), and a leaf per key.
func (s *Stream) RaxNodes() int {
	if len(s.nodes) == 0 {
		return 1
	}
	keys := make([][16]byte, len(s.nodes))
	for i, n := range s.nodes {
		binary.BigEndian.PutUint64(keys[i][:8], n.base.Ms)
		binary.BigEndian.PutUint64(keys[i][8:], n.base.Seq)
	}
	return raxCount(keys, 0, true)
}

// raxCount counts the radix tree nodes below the position at depth d that
// the sorted keys share; counted tells whether that position is a node (the
// root, or a child of a branching point).
func raxCount(keys [][16]byte, d int, counted bool) int {
	first, last := &keys[0], &keys[len(keys)-1]
	l := d // the keys share l bytes: a branching point, or the leaf at 16
	for l < 16 && first[l] == last[l] {
		l++
	}
	n := 1 // the branching point or the leaf
	if counted && l > d {
		n++ // the compressed node leading to it
	}
	for i := 0; l < 16 && i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j][l] == keys[i][l] {
			j++
		}
		n += raxCount(keys[i:j], l+1, true)
		i = j
	}
	return n
}

// First returns the first entry.
func (s *Stream) First() (Entry, bool) {
	if s.length == 0 {
		return Entry{}, false
	}
	n := s.nodes[0]
	if n.live == 0 { // the node an exact trim emptied (see Trim)
		n = s.nodes[1]
	}
	e, _, _ := n.at(n.lo)
	return e, true
}

// Last returns the last entry.
func (s *Stream) Last() (Entry, bool) {
	if s.length == 0 {
		return Entry{}, false
	}
	n := s.nodes[len(s.nodes)-1]
	e, _, _ := n.at(n.hi)
	return e, true
}

// FirstID is the first entry's ID, 0-0 when the stream is empty.
func (s *Stream) FirstID() ID {
	e, _ := s.First()
	return e.ID
}

// NextID is the ID XADD's "*" picks at time now (unix ms): now with
// sequence 0, or the next sequence of the last ID when the clock is not
// ahead of it. false when the last ID is MaxID.
func (s *Stream) NextID(now int64) (ID, bool) {
	if now > 0 && uint64(now) > s.LastID.Ms {
		return ID{uint64(now), 0}, true
	}
	return s.LastID.Next()
}

// Add appends an entry; id must be greater than LastID.
func (s *Stream) Add(id ID, fields [][]byte) {
	s.Append(id, fields)
	s.EntriesAdded++
}

// Append appends an entry (id greater than LastID) without counting it as
// added (snapshot loading restores EntriesAdded itself).
func (s *Stream) Append(id ID, fields [][]byte) {
	var n *node
	if len(s.nodes) > 0 {
		n = s.nodes[len(s.nodes)-1]
	}
	if n == nil || nodeFull(n, fields) {
		if n != nil {
			n.close()
		}
		n = newNode(id, fields)
		s.nodes = append(s.nodes, n)
	}
	n.add(id, fields)
	s.length++
	s.LastID = id
}

// seek returns the node and offset of the first entry >= id; ni is
// len(s.nodes) when there is none.
func (s *Stream) seek(id ID) (ni, p int) {
	ni = sort.Search(len(s.nodes), func(i int) bool { return !s.nodes[i].hiID.Less(id) })
	for ; ni < len(s.nodes); ni++ {
		// An emptied first node (see Trim) keeps the hiID of its last
		// live entry, and has none to find.
		if p = s.nodes[ni].seek(id); p < len(s.nodes[ni].buf) {
			return ni, p
		}
	}
	return ni, 0
}

// Get returns the entry with the given ID.
func (s *Stream) Get(id ID) (Entry, bool) {
	ni, p := s.seek(id)
	if ni < len(s.nodes) {
		if e, _, _ := s.nodes[ni].at(p); e.ID == id {
			return e, true
		}
	}
	return Entry{}, false
}

// Delete removes the entry with the given ID, reporting whether it existed.
func (s *Stream) Delete(id ID) bool {
	ni, p := s.seek(id)
	if ni == len(s.nodes) {
		return false
	}
	n := s.nodes[ni]
	if e, _, _ := n.at(p); e.ID != id {
		return false
	}
	n.remove(p)
	if n.live == 0 {
		s.nodes = append(s.nodes[:ni], s.nodes[ni+1:]...)
	}
	s.length--
	if s.MaxDeleted.Less(id) {
		s.MaxDeleted = id
	}
	return true
}

// Range calls fn with the entries from start to end (inclusive), in
// ascending order, or descending when rev, until fn returns false.
func (s *Stream) Range(start, end ID, rev bool, fn func(Entry) bool) {
	if end.Less(start) {
		return
	}
	if !rev {
		ni, p := s.seek(start)
		for ; ni < len(s.nodes); ni, p = ni+1, -1 {
			n := s.nodes[ni]
			if p < 0 { // a node after the one seek found: all of it
				p = n.lo
			}
			for p < len(n.buf) {
				e, deleted, next := n.at(p)
				p = next
				if deleted {
					continue
				}
				if end.Less(e.ID) || !fn(e) {
					return
				}
			}
		}
		return
	}
	// From the last node starting at or before end, back to start.
	ni := sort.Search(len(s.nodes), func(i int) bool { return end.Less(s.nodes[i].loID) }) - 1
	var offs [DefaultNodeEntries]int
	for ; ni >= 0; ni-- {
		n := s.nodes[ni]
		live := n.liveOffsets(offs[:0])
		for i := len(live) - 1; i >= 0; i-- {
			e, _, _ := n.at(live[i])
			if end.Less(e.ID) {
				continue
			}
			if e.ID.Less(start) || !fn(e) {
				return
			}
		}
	}
}

// Trim strategies.
const (
	TrimMaxLen = 1 + iota
	TrimMinID
)

// Trim removes entries from the front as XTRIM and XADD's trimming do
// (Redis's streamTrim): down to maxLen entries (TrimMaxLen) or those before
// minID (TrimMinID). approx removes whole nodes only; limit (0: none) caps
// the entries removed, by whole nodes. It returns the number removed. As in
// Redis, trimming leaves MaxDeleted alone: only XDEL leaves tombstones.
// Also as in Redis, an exact trim that deletes the last live entries of a
// node it does not remove whole (a MINID trim whose node ends in an entry
// XDEL deleted) keeps that node, empty: it counts in XINFO's radix tree,
// XADD appends to it when it is the last, and the next trim removes it.
func (s *Stream) Trim(strategy int, maxLen int64, minID ID, approx bool, limit int64) int64 {
	var deleted int64
	for len(s.nodes) > 0 {
		if strategy == TrimMaxLen && int64(s.length) <= maxLen {
			break
		}
		n := s.nodes[0]
		entries := int64(n.live)
		if limit > 0 && deleted+entries > limit {
			break
		}
		var whole bool
		if strategy == TrimMaxLen {
			whole = int64(s.length)-entries >= maxLen
		} else {
			whole = n.last.Less(minID)
		}
		if whole {
			s.nodes[0] = nil
			s.nodes = s.nodes[1:]
			s.length -= int(entries)
			deleted += entries
			continue
		}
		if approx {
			break
		}
		for n.live > 0 {
			if strategy == TrimMaxLen && int64(s.length) <= maxLen {
				break
			}
			if strategy == TrimMinID && !n.loID.Less(minID) {
				break
			}
			n.remove(n.lo)
			s.length--
			deleted++
		}
		break
	}
	return deleted
}

// HasTombstones reports whether an entry deleted by XDEL may lie between
// start and end (Redis 8's streamRangeHasTombstones).
func (s *Stream) HasTombstones(start, end ID) bool {
	if s.length == 0 || s.MaxDeleted.IsZero() {
		return false
	}
	return !s.MaxDeleted.Less(start) && !end.Less(s.MaxDeleted)
}

// Invalid marks an unknown entries-read counter.
const Invalid = -1

// Distance estimates how many entries were ever added up to id
// (streamEstimateDistanceFromFirstEverEntry), or Invalid.
func (s *Stream) Distance(id ID) int64 {
	if s.EntriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.Compare(s.LastID) < 1 {
		return s.EntriesAdded
	}
	if !id.IsZero() && id.Less(s.MaxDeleted) {
		return Invalid // a gap between id and the last ID
	}
	switch c := id.Compare(s.LastID); {
	case c == 0:
		return s.EntriesAdded
	case c > 0:
		return Invalid
	}
	first := s.FirstID()
	if s.MaxDeleted.IsZero() || s.MaxDeleted.Less(first) {
		switch id.Compare(first) {
		case -1:
			return s.EntriesAdded - int64(s.length)
		case 0:
			return s.EntriesAdded - int64(s.length) + 1
		}
	}
	return Invalid
}

// Lag is the number of entries not yet read by g (Redis 8's
// streamReplyWithCGLag); false when it cannot be known.
func (s *Stream) Lag(g *Group) (int64, bool) {
	if s.EntriesAdded == 0 || s.length == 0 {
		return 0, true
	}
	if first := s.FirstID(); g.LastID.Less(first) && s.MaxDeleted.Less(first) {
		return int64(s.length), true // everything left is after the group and any gap
	}
	if g.EntriesRead != Invalid && !s.HasTombstones(g.LastID, MaxID) {
		return s.EntriesAdded - g.EntriesRead, true
	}
	if r := s.Distance(g.LastID); r != Invalid {
		return s.EntriesAdded - r, true
	}
	return 0, false
}

// Deliver records that g delivered entry id (to a reader of new entries),
// advancing its last ID and entries-read counter as Redis does.
func (s *Stream) Deliver(g *Group, id ID) {
	if !g.LastID.Less(id) {
		return
	}
	if g.EntriesRead != Invalid && !g.LastID.Less(s.FirstID()) && !s.HasTombstones(g.LastID, MaxID) {
		g.EntriesRead++
	} else if s.EntriesAdded != 0 {
		g.EntriesRead = s.Distance(id)
	}
	g.LastID = id
}

// Group returns the consumer group name, or nil.
func (s *Stream) Group(name []byte) *Group { return s.groups[string(name)] }

// CreateGroup adds a group; false when one of that name exists.
func (s *Stream) CreateGroup(name []byte, last ID, entriesRead int64) (*Group, bool) {
	if s.groups[string(name)] != nil {
		return nil, false
	}
	if s.groups == nil {
		s.groups = make(map[string]*Group)
	}
	g := newGroup(string(name), last, entriesRead)
	s.groups[g.Name] = g
	return g, true
}

// DestroyGroup removes a group, reporting whether it existed.
func (s *Stream) DestroyGroup(name []byte) bool {
	if s.groups[string(name)] == nil {
		return false
	}
	delete(s.groups, string(name))
	return true
}

// Groups returns the consumer groups sorted by name, as Redis lists them.
func (s *Stream) Groups() []*Group {
	out := make([]*Group, 0, len(s.groups))
	for _, g := range s.groups {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *Group) int { return compareStrings(a.Name, b.Name) })
	return out
}

// GroupCount is the number of consumer groups.
func (s *Stream) GroupCount() int { return len(s.groups) }

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Clone returns a deep copy (COPY).
func (s *Stream) Clone() any {
	c := &Stream{LastID: s.LastID, MaxDeleted: s.MaxDeleted, EntriesAdded: s.EntriesAdded}
	for _, n := range s.nodes {
		c.nodes = append(c.nodes, n.clone())
	}
	c.length = s.length
	for _, g := range s.groups {
		if c.groups == nil {
			c.groups = make(map[string]*Group, len(s.groups))
		}
		c.groups[g.Name] = g.clone()
	}
	return c
}

// MemoryUsage estimates the bytes the stream holds.
func (s *Stream) MemoryUsage() int64 {
	size := int64(96 + 8*cap(s.nodes))
	for _, n := range s.nodes {
		size += 144 + int64(cap(n.buf)+cap(n.master))
	}
	for _, g := range s.groups {
		size += g.memoryUsage()
	}
	return size
}

// Encoding is what OBJECT ENCODING reports.
func (s *Stream) Encoding() string { return "stream" }
