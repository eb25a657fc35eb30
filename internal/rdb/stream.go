package rdb

import (
	"encoding/binary"

	"github.com/hotkv/hotkv/internal/value/stream"
)

// Streams are a radix tree of listpack nodes, each keyed by its master ID
// (the first entry's, 16 bytes big endian). A node's listpack starts with
// the master entry: live count, deleted count, the master fields, 0. Each
// entry follows as flags, ID minus the master ID (ms, seq), then either its
// values alone (flagSameFields: its fields are the master's) or a field
// count and the pairs, and last the number of listpack elements before it.
// After the nodes come the counters, then the consumer groups with their
// pending entries lists (PEL) and consumers.

const (
	flagDeleted    = 1
	flagSameFields = 2
	// Redis's stream-node-max-entries and stream-node-max-bytes defaults,
	// for the nodes HotKV writes.
	nodeEntries = 100
	nodeBytes   = 4096
)

func appendID(b []byte, id stream.ID) []byte {
	b = binary.BigEndian.AppendUint64(b, id.Ms)
	return binary.BigEndian.AppendUint64(b, id.Seq)
}

func (w *writer) id(id stream.ID) {
	w.length(id.Ms)
	w.length(id.Seq)
}

func (r *reader) id() stream.ID { return stream.ID{Ms: r.length(), Seq: r.length()} }

// rawID reads a 16-byte big-endian ID.
func (r *reader) rawID() stream.ID {
	b := r.take(16)
	if b == nil {
		return stream.ID{}
	}
	return stream.ID{Ms: binary.BigEndian.Uint64(b), Seq: binary.BigEndian.Uint64(b[8:])}
}

// streamEntry is an entry being dumped.
type streamEntry struct {
	id     stream.ID
	fields [][]byte
}

func dumpStream(w *writer, s *stream.Stream) {
	var nodes [][]streamEntry
	var cur []streamEntry
	size := 0
	s.Range(stream.ID{}, stream.MaxID, false, func(e stream.Entry) bool {
		if len(cur) == nodeEntries || size > nodeBytes {
			nodes, cur, size = append(nodes, cur), nil, 0
		}
		f := e.Fields()
		for _, b := range f {
			size += len(b) + 2
		}
		cur = append(cur, streamEntry{e.ID, f})
		return true
	})
	if len(cur) > 0 {
		nodes = append(nodes, cur)
	}
	w.b = append(w.b, typeStream3)
	w.length(uint64(len(nodes)))
	for _, n := range nodes {
		w.raw(appendID(nil, n[0].id))
		w.raw(streamNode(n))
	}
	w.length(uint64(s.Len()))
	w.id(s.LastID)
	w.id(s.FirstID())
	w.id(s.MaxDeleted)
	w.length(uint64(s.EntriesAdded))
	groups := s.Groups()
	w.length(uint64(len(groups)))
	for _, g := range groups {
		w.str([]byte(g.Name))
		w.id(g.LastID)
		w.length(uint64(g.EntriesRead)) // Invalid (-1) as Redis's all ones
		w.length(uint64(g.PendingCount()))
		g.EachPending(stream.ID{}, stream.MaxID, func(p *stream.Pending) bool {
			w.b = appendID(w.b, p.ID)
			w.fixed64(uint64(p.DeliveryTime))
			w.length(uint64(p.DeliveryCount))
			return true
		})
		consumers := g.Consumers()
		w.length(uint64(len(consumers)))
		for _, c := range consumers {
			w.str([]byte(c.Name))
			w.fixed64(uint64(c.SeenTime))
			w.fixed64(uint64(c.ActiveTime))
			w.length(uint64(c.PendingCount()))
			c.EachPending(stream.ID{}, stream.MaxID, func(p *stream.Pending) bool {
				w.b = appendID(w.b, p.ID)
				return true
			})
		}
	}
}

// streamNode encodes entries as one node, the first entry's fields as the
// master fields.
func streamNode(entries []streamEntry) []byte {
	master := entries[0]
	lp := newListpack()
	lp.addInt(int64(len(entries)))
	lp.addInt(0)
	lp.addInt(int64(len(master.fields) / 2))
	for i := 0; i < len(master.fields); i += 2 {
		lp.add(master.fields[i])
	}
	lp.addInt(0)
	for _, e := range entries {
		same := len(e.fields) == len(master.fields)
		for i := 0; same && i < len(e.fields); i += 2 {
			same = string(e.fields[i]) == string(master.fields[i])
		}
		n := len(e.fields) / 2
		if same {
			lp.addInt(flagSameFields)
		} else {
			lp.addInt(0)
		}
		lp.addInt(int64(e.id.Ms - master.id.Ms))
		lp.addInt(int64(e.id.Seq - master.id.Seq))
		if same {
			for i := 1; i < len(e.fields); i += 2 {
				lp.add(e.fields[i])
			}
			lp.addInt(int64(n + 3))
			continue
		}
		lp.addInt(int64(n))
		for _, b := range e.fields {
			lp.add(b)
		}
		lp.addInt(int64(2*n + 4))
	}
	return lp.bytes()
}

func loadStream(r *reader, typ byte) *stream.Stream {
	s := stream.New()
	for range r.count(3) {
		key := r.str()
		if r.bad || len(key) != 16 {
			r.fail()
			return nil
		}
		master := stream.ID{Ms: binary.BigEndian.Uint64(key), Seq: binary.BigEndian.Uint64(key[8:])}
		es := packed(r, listpack)
		if r.bad || !loadNode(s, master, es) {
			r.fail()
			return nil
		}
	}
	length, last := r.length(), r.id()
	var maxDeleted stream.ID
	added := length
	if typ != typeStreamListpacks {
		r.id() // the first ID, which the entries give
		maxDeleted, added = r.id(), r.length()
	}
	if r.bad || length != uint64(s.Len()) || last.Less(s.LastID) || added < length {
		r.fail()
		return nil
	}
	s.LastID, s.MaxDeleted, s.EntriesAdded = last, maxDeleted, int64(added)
	for range r.count(4) {
		if !loadGroup(r, s, typ) {
			r.fail()
			return nil
		}
	}
	return s
}

// loadNode appends the live entries of one node's listpack.
func loadNode(s *stream.Stream, master stream.ID, es []elem) bool {
	p := 0
	next := func() int64 {
		if p >= len(es) {
			p = len(es) + 1 // stays past the end: the node is bad
			return 0
		}
		v, ok := es[p].integer()
		if !ok {
			p = len(es) + 1
		}
		p++
		return v
	}
	count, deleted, nf := next(), next(), next()
	if nf < 0 || nf > int64(len(es)) {
		return false
	}
	masterFields := es[min(p, len(es)):min(p+int(nf), len(es))]
	p += int(nf)
	if next() != 0 || p > len(es) {
		return false
	}
	var fields [][]byte
	live, dead := int64(0), int64(0)
	for p < len(es) {
		start := p
		flags, ms, seq := next(), next(), next()
		id := stream.ID{Ms: master.Ms + uint64(ms), Seq: master.Seq + uint64(seq)}
		fields = fields[:0]
		if flags&flagSameFields != 0 {
			if p+int(nf) > len(es) {
				return false
			}
			for i, f := range masterFields {
				fields = append(fields, f.bytes(), es[p+i].bytes())
			}
			p += int(nf)
		} else {
			n := next()
			if n < 0 || n > int64(len(es)) || p+2*int(n) > len(es) {
				return false
			}
			for _, e := range es[p : p+2*int(n)] {
				fields = append(fields, e.bytes())
			}
			p += 2 * int(n)
		}
		if lpCount := next(); p > len(es) || flags&^(flagDeleted|flagSameFields) != 0 || lpCount != int64(p-start-1) {
			return false
		}
		if flags&flagDeleted != 0 {
			dead++
			continue
		}
		if len(fields) == 0 || id.IsZero() || s.Len() > 0 && !s.LastID.Less(id) {
			return false
		}
		s.Append(id, fields) // copies them
		live++
	}
	return live == count && dead == deleted
}

// loadGroup reads a consumer group: its global PEL has the delivery data,
// each consumer's PEL names the entries it owns, which must all be there.
func loadGroup(r *reader, s *stream.Stream, typ byte) bool {
	name, last := r.str(), r.id()
	var read int64
	if typ != typeStreamListpacks {
		read = int64(r.length())
	} else {
		read = s.Distance(last) // not kept before version 2: estimated, as Redis's rdbLoadObject does
	}
	if r.bad {
		return false
	}
	g, ok := s.CreateGroup(name, last, read)
	if !ok {
		return false
	}
	type delivery struct {
		at, count int64
		owned     bool
	}
	pel := map[stream.ID]*delivery{}
	for range r.count(17) {
		id, at, count := r.rawID(), int64(r.fixed64()), int64(r.length())
		if pel[id] != nil {
			return false
		}
		pel[id] = &delivery{at: at, count: count}
	}
	for range r.count(18) {
		cname, seen := r.str(), int64(r.fixed64())
		active := seen // the best estimate before version 3, as Redis's
		if typ == typeStream3 {
			active = int64(r.fixed64())
		}
		if r.bad {
			return false
		}
		c, created := g.CreateConsumer(cname, seen)
		if !created {
			return false
		}
		c.ActiveTime = active
		for range r.count(16) {
			id := r.rawID()
			d := pel[id]
			if r.bad || d == nil || d.owned {
				return false
			}
			d.owned = true
			g.Assign(id, c, d.at, d.count)
		}
	}
	return !r.bad && g.PendingCount() == len(pel)
}
