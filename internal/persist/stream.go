package persist

import (
	"fmt"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/stream"
)

// Streams are saved whole: entries (IDs as a difference from the previous
// one), the stream's counters, then each consumer group with its consumers
// and pending entries (each naming its consumer by position).

func init() {
	RegisterKind(keyspace.KindStream, &Codec{Encode: encodeStream, Decode: decodeStream})
}

func (e *Enc) streamID(id stream.ID) {
	e.Uvarint(id.Ms)
	e.Uvarint(id.Seq)
}

func (d *Dec) streamID() stream.ID { return stream.ID{Ms: d.Uvarint(), Seq: d.Uvarint()} }

func encodeStream(e *Enc, obj any) {
	s := obj.(*stream.Stream)
	e.Uvarint(uint64(s.Len()))
	s.Range(stream.ID{}, stream.MaxID, false, func(en stream.Entry) bool {
		e.streamID(en.ID)
		e.Uvarint(uint64(en.Len()))
		en.Each(e.Bytes)
		return true
	})
	e.streamID(s.LastID)
	e.streamID(s.MaxDeleted)
	e.Varint(s.EntriesAdded)
	groups := s.Groups()
	e.Uvarint(uint64(len(groups)))
	for _, g := range groups {
		e.String(g.Name)
		e.streamID(g.LastID)
		e.Varint(g.EntriesRead)
		consumers := g.Consumers()
		index := make(map[*stream.Consumer]int, len(consumers))
		e.Uvarint(uint64(len(consumers)))
		for i, c := range consumers {
			index[c] = i
			e.String(c.Name)
			e.Varint(c.SeenTime)
			e.Varint(c.ActiveTime)
		}
		e.Uvarint(uint64(g.PendingCount()))
		g.EachPending(stream.ID{}, stream.MaxID, func(p *stream.Pending) bool {
			e.streamID(p.ID)
			e.Uvarint(uint64(index[p.Consumer]))
			e.Varint(p.DeliveryTime)
			e.Varint(p.DeliveryCount)
			return true
		})
	}
}

func decodeStream(d *Dec) (any, error) {
	s := stream.New()
	n := d.Count(3)
	var fields [][]byte
	for range n {
		id := d.streamID()
		nf := d.Count(1)
		if d.err != nil {
			return nil, d.err
		}
		if nf == 0 || nf%2 != 0 || (s.Len() > 0 && !s.LastID.Less(id)) || id.IsZero() {
			return nil, fmt.Errorf("%w: bad stream entry %s at byte %d", ErrCorrupt, id, d.Off)
		}
		fields = fields[:0]
		for range nf {
			fields = append(fields, d.Bytes())
		}
		if d.err != nil {
			return nil, d.err
		}
		s.Append(id, fields) // copies them
	}
	last, maxDel, added := d.streamID(), d.streamID(), d.Varint()
	if d.err != nil {
		return nil, d.err
	}
	if last.Less(s.LastID) || added < int64(s.Len()) {
		return nil, fmt.Errorf("%w: stream counters behind its entries at byte %d", ErrCorrupt, d.Off)
	}
	s.LastID, s.MaxDeleted, s.EntriesAdded = last, maxDel, added
	for range d.Count(4) {
		name := d.Bytes()
		glast, read := d.streamID(), d.Varint()
		g, ok := s.CreateGroup(name, glast, read)
		if d.err == nil && !ok {
			return nil, fmt.Errorf("%w: duplicate consumer group at byte %d", ErrCorrupt, d.Off)
		}
		var consumers []*stream.Consumer
		for range d.Count(3) {
			cname := d.Bytes()
			seen, active := d.Varint(), d.Varint()
			if d.err != nil {
				return nil, d.err
			}
			c, created := g.CreateConsumer(cname, seen)
			if !created {
				return nil, fmt.Errorf("%w: duplicate consumer at byte %d", ErrCorrupt, d.Off)
			}
			c.ActiveTime = active
			consumers = append(consumers, c)
		}
		for range d.Count(4) {
			id, ci := d.streamID(), d.Uvarint()
			at, count := d.Varint(), d.Varint()
			if d.err != nil {
				return nil, d.err
			}
			if ci >= uint64(len(consumers)) || g.Pending(id) != nil {
				return nil, fmt.Errorf("%w: bad pending entry at byte %d", ErrCorrupt, d.Off)
			}
			g.Assign(id, consumers[ci], at, count)
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	return s, d.err
}
