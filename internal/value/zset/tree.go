package zset

import (
	"slices"
	"sort"
)

// The ordered half of a sorted set is an order-statistics B+tree: leaves hold
// (score, member) items in order and are linked both ways for range walks;
// inner nodes keep, for each child, its largest item (to descend by key) and
// its element count (to descend by rank). Compared with Redis's skiplist this
// stores an item in 24 bytes of a shared array instead of a node with its own
// allocation and level pointers, which matters both for memory and for the
// garbage collector (see docs/bench/zsets.md for the measurement).

const (
	maxLeaf  = 128 // items per leaf
	maxInner = 64  // children per inner node
	minLeaf  = maxLeaf / 4
	minInner = maxInner / 4
)

type item struct {
	score  float64
	member string
}

// less orders by score, then member bytes, as Redis does.
func less(a, b item) bool {
	return a.score < b.score || (a.score == b.score && a.member < b.member)
}

type node struct {
	items      []item  // leaf: the elements; inner: items[i] is the largest element under kids[i]
	kids       []*node // nil for a leaf
	sizes      []int   // inner: element count under kids[i]
	size       int     // elements under this node
	prev, next *node   // leaf neighbours
}

func (n *node) leaf() bool { return n.kids == nil }
func (n *node) last() item { return n.items[len(n.items)-1] }

type tree struct {
	root *node
}

func (t *tree) len() int {
	if t.root == nil {
		return 0
	}
	return t.root.size
}

// childFor is the index of the child whose range holds it: the first child
// whose largest item is >= it, or the last child.
func (n *node) childFor(it item) int {
	i := sort.Search(len(n.items), func(i int) bool { return !less(n.items[i], it) })
	if i == len(n.items) {
		i--
	}
	return i
}

func (n *node) refresh(i int) {
	k := n.kids[i]
	n.items[i] = k.last()
	n.sizes[i] = k.size
}

func (t *tree) insert(it item) {
	if t.root == nil {
		t.root = &node{}
	}
	if r := t.root.insert(it); r != nil {
		l := t.root
		t.root = &node{
			items: []item{l.last(), r.last()},
			kids:  []*node{l, r},
			sizes: []int{l.size, r.size},
			size:  l.size + r.size,
		}
	}
}

// insert adds it under n and returns a new right sibling if n had to split.
func (n *node) insert(it item) *node {
	n.size++
	if n.leaf() {
		p := sort.Search(len(n.items), func(i int) bool { return less(it, n.items[i]) })
		if len(n.items) < maxLeaf {
			if len(n.items) == cap(n.items) { // grow small sets gradually, never past one full leaf
				n.items = append(make([]item, 0, min(max(2*cap(n.items), 4), maxLeaf)), n.items...)
			}
			n.items = insertAt(n.items, p, it)
			return nil
		}
		// Full: split. Appending past the last leaf (ascending loads) keeps
		// the left leaf full; anywhere else split in the middle.
		at := maxLeaf / 2
		if p == maxLeaf && n.next == nil {
			at = maxLeaf
		}
		r := &node{items: make([]item, maxLeaf-at, maxLeaf)}
		copy(r.items, n.items[at:])
		clear(n.items[at:])
		n.items = n.items[:at]
		if p < at {
			n.items = insertAt(n.items, p, it)
		} else {
			r.items = insertAt(r.items, p-at, it)
		}
		n.size, r.size = len(n.items), len(r.items)
		r.prev, r.next = n, n.next
		if n.next != nil {
			n.next.prev = r
		}
		n.next = r
		return r
	}
	i := n.childFor(it)
	if k := n.kids[i]; k.leaf() && len(k.items) == maxLeaf && n.spill(i) {
		i = n.childFor(it)
	}
	split := n.kids[i].insert(it)
	n.refresh(i)
	if split == nil {
		return nil
	}
	n.items = insertAt(n.items, i+1, split.last())
	n.kids = insertAt(n.kids, i+1, split)
	n.sizes = insertAt(n.sizes, i+1, split.size)
	if len(n.kids) <= maxInner {
		return nil
	}
	at := len(n.kids) / 2
	r := &node{
		items: append(make([]item, 0, maxInner+1), n.items[at:]...),
		kids:  append(make([]*node, 0, maxInner+1), n.kids[at:]...),
		sizes: append(make([]int, 0, maxInner+1), n.sizes[at:]...),
	}
	clear(n.items[at:])
	clear(n.kids[at:])
	n.items, n.kids, n.sizes = n.items[:at], n.kids[:at], n.sizes[:at]
	n.size, r.size = sum(n.sizes), sum(r.sizes)
	return r
}

// spill makes room in the full leaf kids[i] by moving items to a neighbour
// with room (half of that room, at least one item), and reports whether it
// could. Splitting only when the neighbours are full too keeps leaves about
// 85% full under random inserts instead of 70%: 24-byte items, so about 6
// bytes per element (docs/bench/zsets.md).
func (n *node) spill(i int) bool {
	k := n.kids[i]
	if i+1 < len(n.kids) {
		if r := n.kids[i+1]; len(r.items) < maxLeaf {
			m := (maxLeaf - len(r.items) + 1) / 2
			r.items = prepend(r.items, k.items[len(k.items)-m:])
			clear(k.items[len(k.items)-m:])
			k.items = k.items[:len(k.items)-m]
			k.size, r.size = len(k.items), len(r.items)
			n.refresh(i)
			n.refresh(i + 1)
			return true
		}
	}
	if i > 0 {
		if l := n.kids[i-1]; len(l.items) < maxLeaf {
			m := (maxLeaf - len(l.items) + 1) / 2
			l.items = append(l.items, k.items[:m]...)
			k.items = shiftLeft(k.items, m)
			k.size, l.size = len(k.items), len(l.items)
			n.refresh(i - 1)
			n.refresh(i)
			return true
		}
	}
	return false
}

func insertAt[T any](s []T, i int, v T) []T {
	var zero T
	s = append(s, zero)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

func removeAt[T any](s []T, i int) []T {
	copy(s[i:], s[i+1:])
	var zero T
	s[len(s)-1] = zero
	return s[:len(s)-1]
}

func sum(s []int) int {
	n := 0
	for _, v := range s {
		n += v
	}
	return n
}

// remove deletes it, which must be present.
func (t *tree) remove(it item) {
	t.root.remove(it)
	for !t.root.leaf() && len(t.root.kids) == 1 {
		t.root = t.root.kids[0]
	}
	if t.root.size == 0 {
		t.root = nil
	}
}

func (n *node) remove(it item) {
	n.size--
	if n.leaf() {
		pos := sort.Search(len(n.items), func(i int) bool { return !less(n.items[i], it) })
		n.items = removeAt(n.items, pos)
		return
	}
	i := n.childFor(it)
	k := n.kids[i]
	k.remove(it)
	if (k.leaf() && len(k.items) >= minLeaf) || (!k.leaf() && len(k.kids) >= minInner) {
		n.refresh(i)
		return
	}
	n.rebalance(i)
}

// rebalance merges the underfull child i with a neighbour, or moves elements
// over from the neighbour when together they would overflow one node.
func (n *node) rebalance(i int) {
	if len(n.kids) == 1 { // only the root has a single child; the tree collapses it
		if n.kids[0].size > 0 {
			n.refresh(0)
		}
		return
	}
	if i == len(n.kids)-1 {
		i--
	}
	a, b := n.kids[i], n.kids[i+1]
	if a.leaf() {
		if len(a.items)+len(b.items) <= maxLeaf {
			a.items = append(a.items, b.items...)
			a.size = len(a.items)
			b.unlink()
			n.dropKid(i + 1)
			if a.size == 0 { // both empty: only when the whole tree is
				a.unlink()
				n.dropKid(i)
				return
			}
		} else {
			all := append(append(make([]item, 0, len(a.items)+len(b.items)), a.items...), b.items...)
			h := len(all) / 2
			a.items = append(a.items[:0], all[:h]...)
			clear(b.items)
			b.items = append(b.items[:0], all[h:]...)
			a.size, b.size = len(a.items), len(b.items)
			n.refresh(i + 1)
		}
		n.refresh(i)
		return
	}
	if len(a.kids)+len(b.kids) <= maxInner {
		a.items = append(a.items, b.items...)
		a.kids = append(a.kids, b.kids...)
		a.sizes = append(a.sizes, b.sizes...)
		a.size += b.size
		n.dropKid(i + 1)
	} else {
		h := (len(a.kids) + len(b.kids)) / 2
		if len(a.kids) < h { // move b's first children to a
			m := h - len(a.kids)
			a.items = append(a.items, b.items[:m]...)
			a.kids = append(a.kids, b.kids[:m]...)
			a.sizes = append(a.sizes, b.sizes[:m]...)
			b.items = shiftLeft(b.items, m)
			b.kids = shiftLeft(b.kids, m)
			b.sizes = shiftLeft(b.sizes, m)
		} else { // move a's last children to b
			b.items = prepend(b.items, a.items[h:])
			b.kids = prepend(b.kids, a.kids[h:])
			b.sizes = prepend(b.sizes, a.sizes[h:])
			clear(a.items[h:])
			clear(a.kids[h:])
			a.items, a.kids, a.sizes = a.items[:h], a.kids[:h], a.sizes[:h]
		}
		a.size, b.size = sum(a.sizes), sum(b.sizes)
		n.refresh(i + 1)
	}
	n.refresh(i)
}

func (n *node) unlink() {
	if n.prev != nil {
		n.prev.next = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	}
}

func (n *node) dropKid(i int) {
	n.items = removeAt(n.items, i)
	n.kids = removeAt(n.kids, i)
	n.sizes = removeAt(n.sizes, i)
}

func shiftLeft[T any](s []T, m int) []T {
	copy(s, s[m:])
	clear(s[len(s)-m:])
	return s[:len(s)-m]
}

// prepend puts head before s's elements, in s's array when it has room.
func prepend[T any](s, head []T) []T {
	n := len(s)
	s = slices.Grow(s, len(head))[:n+len(head)]
	copy(s[len(head):], s[:n])
	copy(s, head)
	return s
}

// pos is a position in the leaf chain: leaf n, index i.
type pos struct {
	n *node
	i int
}

// at returns the position of the element of rank r (0-based, r < len).
func (t *tree) at(r int) pos {
	n := t.root
	for !n.leaf() {
		i := 0
		for r >= n.sizes[i] {
			r -= n.sizes[i]
			i++
		}
		n = n.kids[i]
	}
	return pos{n, r}
}

// seek returns the rank of the first element for which pred holds (len if
// none) and its position; pred must be false for a prefix of the order and
// true for the rest.
func (t *tree) seek(pred func(item) bool) (int, pos) {
	if t.root == nil {
		return 0, pos{}
	}
	rank := 0
	n := t.root
	for !n.leaf() {
		i := sort.Search(len(n.items), func(i int) bool { return pred(n.items[i]) })
		if i == len(n.items) {
			return t.root.size, pos{}
		}
		for j := 0; j < i; j++ {
			rank += n.sizes[j]
		}
		n = n.kids[i]
	}
	i := sort.Search(len(n.items), func(i int) bool { return pred(n.items[i]) })
	if i == len(n.items) {
		return t.root.size, pos{}
	}
	return rank + i, pos{n, i}
}

func (p pos) valid() bool { return p.n != nil }
func (p pos) item() item  { return p.n.items[p.i] }

func (p pos) next() pos {
	if p.i+1 < len(p.n.items) {
		return pos{p.n, p.i + 1}
	}
	if p.n.next == nil {
		return pos{}
	}
	return pos{p.n.next, 0}
}

func (p pos) prev() pos {
	if p.i > 0 {
		return pos{p.n, p.i - 1}
	}
	if p.n.prev == nil {
		return pos{}
	}
	return pos{p.n.prev, len(p.n.prev.items) - 1}
}

// build makes a tree from items already in order, with full leaves.
func build(items []item) tree {
	if len(items) == 0 {
		return tree{}
	}
	var level []*node
	var prev *node
	for len(items) > 0 {
		k := min(len(items), maxLeaf)
		n := &node{items: append(make([]item, 0, k), items[:k]...), size: k, prev: prev}
		if prev != nil {
			prev.next = n
		}
		prev = n
		level = append(level, n)
		items = items[k:]
	}
	for len(level) > 1 {
		var up []*node
		for len(level) > 0 {
			k := min(len(level), maxInner)
			if rest := len(level) - k; rest > 0 && rest < minInner {
				k = len(level) / 2 // keep the last node above the minimum
			}
			p := &node{kids: append(make([]*node, 0, k), level[:k]...)}
			for _, c := range p.kids {
				p.items = append(p.items, c.last())
				p.sizes = append(p.sizes, c.size)
				p.size += c.size
			}
			up = append(up, p)
			level = level[k:]
		}
		level = up
	}
	return tree{root: level[0]}
}
