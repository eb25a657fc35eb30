package stream

import (
	"slices"

	"github.com/google/btree"
)

// Group is a consumer group: the last ID it delivered, and its pending
// entries list (PEL): entries delivered to a consumer and not acknowledged.
type Group struct {
	Name        string
	LastID      ID
	EntriesRead int64 // entries read by the group, or Invalid
	pel         *btree.BTreeG[*Pending]
	consumers   map[string]*Consumer
}

// Pending is an entry of a group's PEL.
type Pending struct {
	ID            ID
	Consumer      *Consumer
	DeliveryTime  int64 // unix ms of the last delivery
	DeliveryCount int64
}

// Consumer is a group's consumer, with its own view of the PEL.
type Consumer struct {
	Name       string
	SeenTime   int64 // unix ms of its last attempted interaction
	ActiveTime int64 // unix ms of its last successful one, -1 for never
	pel        *btree.BTreeG[*Pending]
}

func lessPending(a, b *Pending) bool { return a.ID.Less(b.ID) }

func newPEL() *btree.BTreeG[*Pending] { return btree.NewG(16, lessPending) }

func newGroup(name string, last ID, entriesRead int64) *Group {
	return &Group{Name: name, LastID: last, EntriesRead: entriesRead, pel: newPEL(),
		consumers: make(map[string]*Consumer)}
}

// PendingCount is the number of entries in the group's PEL.
func (g *Group) PendingCount() int { return g.pel.Len() }

// Pending returns the PEL entry of id, or nil.
func (g *Group) Pending(id ID) *Pending {
	p, _ := g.pel.Get(&Pending{ID: id})
	return p
}

// EachPending calls fn with the PEL entries from start to end (inclusive)
// in ID order, until it returns false.
func (g *Group) EachPending(start, end ID, fn func(*Pending) bool) {
	eachPending(g.pel, start, end, fn)
}

func eachPending(t *btree.BTreeG[*Pending], start, end ID, fn func(*Pending) bool) {
	if end.Less(start) {
		return
	}
	t.AscendGreaterOrEqual(&Pending{ID: start}, func(p *Pending) bool {
		return !end.Less(p.ID) && fn(p)
	})
}

// Consumer returns the named consumer, or nil.
func (g *Group) Consumer(name []byte) *Consumer { return g.consumers[string(name)] }

// CreateConsumer adds a consumer seen at now; false when it exists already.
func (g *Group) CreateConsumer(name []byte, now int64) (*Consumer, bool) {
	if c := g.consumers[string(name)]; c != nil {
		return c, false
	}
	c := &Consumer{Name: string(name), SeenTime: now, ActiveTime: -1, pel: newPEL()}
	g.consumers[c.Name] = c
	return c, true
}

// DeleteConsumer removes a consumer and its pending entries, returning how
// many it had; false when there is no such consumer.
func (g *Group) DeleteConsumer(name []byte) (int, bool) {
	c := g.consumers[string(name)]
	if c == nil {
		return 0, false
	}
	n := c.pel.Len()
	c.pel.Ascend(func(p *Pending) bool {
		g.pel.Delete(p)
		return true
	})
	delete(g.consumers, c.Name)
	return n, true
}

// Consumers returns the consumers sorted by name.
func (g *Group) Consumers() []*Consumer {
	out := make([]*Consumer, 0, len(g.consumers))
	for _, c := range g.consumers {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Consumer) int { return compareStrings(a.Name, b.Name) })
	return out
}

// ConsumerCount is the number of consumers.
func (g *Group) ConsumerCount() int { return len(g.consumers) }

// Assign makes c the owner of id in the PEL with the given delivery time
// and count, adding the entry if it is not pending.
func (g *Group) Assign(id ID, c *Consumer, at, count int64) *Pending {
	p := g.Pending(id)
	if p == nil {
		p = &Pending{ID: id}
		g.pel.ReplaceOrInsert(p)
	} else if p.Consumer != c {
		p.Consumer.pel.Delete(p)
	}
	p.Consumer, p.DeliveryTime, p.DeliveryCount = c, at, count
	c.pel.ReplaceOrInsert(p)
	return p
}

// Ack removes id from the PEL, reporting whether it was pending.
func (g *Group) Ack(id ID) bool {
	p, ok := g.pel.Delete(&Pending{ID: id})
	if ok {
		p.Consumer.pel.Delete(p)
	}
	return ok
}

// PendingCount is the number of entries pending for the consumer.
func (c *Consumer) PendingCount() int { return c.pel.Len() }

// EachPending calls fn with the consumer's PEL entries from start to end in
// ID order, until it returns false.
func (c *Consumer) EachPending(start, end ID, fn func(*Pending) bool) {
	eachPending(c.pel, start, end, fn)
}

func (g *Group) clone() *Group {
	c := newGroup(g.Name, g.LastID, g.EntriesRead)
	for _, k := range g.consumers {
		c.consumers[k.Name] = &Consumer{Name: k.Name, SeenTime: k.SeenTime, ActiveTime: k.ActiveTime, pel: newPEL()}
	}
	g.pel.Ascend(func(p *Pending) bool {
		c.Assign(p.ID, c.consumers[p.Consumer.Name], p.DeliveryTime, p.DeliveryCount)
		return true
	})
	return c
}

func (g *Group) memoryUsage() int64 {
	size := int64(128 + len(g.Name))
	size += int64(g.pel.Len()) * (48 + 2*16) // the entry, and its place in both trees
	for _, c := range g.consumers {
		size += int64(96 + len(c.Name))
	}
	return size
}
