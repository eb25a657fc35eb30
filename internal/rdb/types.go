package rdb

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/hotkv/hotkv/internal/intstr"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	"github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// Collections are loaded into HotKV's types through their ordinary
// inserts, which pick the encoding Redis would for the same contents; they
// are dumped in the RDB type that matches their OBJECT ENCODING, so Redis
// restores the same encoding. A loader returns nil (with r.bad set, or for
// an empty collection, which Redis refuses too) when the value is bad.

// packed reads a blob and decodes it with parse.
func packed(r *reader, parse func([]byte) ([]elem, bool)) []elem {
	b := r.str()
	if r.bad {
		return nil
	}
	es, ok := parse(b)
	if !ok {
		r.fail()
	}
	return es
}

func loadList(r *reader, typ byte) *list.List {
	var vals [][]byte // the elements of the old payloads, pushed one by one
	// The nodes of the quicklist payloads, kept as they are (list.FromNodes).
	var (
		nodes [][][]byte
		plain []bool
	)
	addNode := func(es []elem) {
		if len(es) == 0 {
			return // an empty node is skipped, as Redis does
		}
		node := make([][]byte, len(es))
		for i, e := range es {
			node[i] = e.bytes()
		}
		nodes, plain = append(nodes, node), append(plain, false)
	}
	switch typ {
	case typeList:
		for range r.count(1) {
			vals = append(vals, r.str())
		}
	case typeListZiplist:
		for _, e := range packed(r, ziplist) {
			vals = append(vals, e.bytes())
		}
	case typeListQuicklist:
		for range r.count(1) {
			addNode(packed(r, ziplist)) // Redis converts each node to a listpack
		}
	case typeListQuicklist2:
		for range r.count(2) {
			switch r.length() {
			case containerPlain:
				v := r.str()
				if len(v) == 0 {
					r.fail() // Redis refuses an empty node
				}
				nodes, plain = append(nodes, [][]byte{v}), append(plain, true)
			case containerPacked:
				es, ok := listpack(r.str())
				if !ok {
					r.fail()
				}
				addNode(es)
			default:
				r.fail()
			}
		}
	}
	if r.bad {
		return nil
	}
	if typ == typeList || typ == typeListZiplist {
		if len(vals) == 0 {
			return nil
		}
		return list.FromQuicklist(vals) // pushed one by one, as Redis loads them
	}
	if len(nodes) == 0 {
		return nil
	}
	return list.FromNodes(nodes, plain)
}

// dumpList writes the list's nodes as Redis does: a listpack as one node,
// a quicklist node by node (list.List keeps Redis's nodes), plain nodes as
// their element.
func dumpList(w *writer, l *list.List) {
	var nodes int
	l.EachNode(func(bool, [][]byte) { nodes++ })
	w.b = append(w.b, typeListQuicklist2)
	w.length(uint64(nodes))
	l.EachNode(func(plain bool, vals [][]byte) {
		if plain {
			w.length(containerPlain)
			w.str(vals[0])
			return
		}
		lp := newListpack()
		for _, v := range vals {
			lp.add(v)
		}
		w.length(containerPacked)
		w.raw(lp.bytes())
	})
}

func loadSet(r *reader, typ byte) *set.Set {
	var s *set.Set
	add := func(m []byte) {
		if !s.Add(m) {
			r.fail() // a duplicate
		}
	}
	switch typ {
	case typeSet:
		n := r.count(1)
		s = set.NewLoading(n) // an intset, or a hashtable past set-max-intset-entries
		for range n {
			m := r.str()
			if r.bad {
				return nil
			}
			add(m)
		}
	case typeSetIntset:
		ints, ok := intset(r.str())
		if !ok {
			r.fail()
			return nil
		}
		s = set.NewIntset()
		var buf [20]byte
		for _, v := range ints {
			add(strconv.AppendInt(buf[:0], v, 10))
		}
	case typeSetListpack:
		es := packed(r, listpack)
		ms := make([][]byte, len(es))
		for i, e := range es {
			ms[i] = e.bytes()
		}
		var ok bool
		if s, ok = set.FromListpack(ms); !ok {
			r.fail() // a duplicate
		}
	}
	if r.bad || s == nil || s.Len() == 0 {
		return nil
	}
	return s
}

func dumpSet(w *writer, s *set.Set) {
	switch s.Encoding() {
	case "intset":
		ints := make([]int64, 0, s.Len())
		s.Range(func(m []byte) bool {
			v, _ := intstr.Parse(m)
			ints = append(ints, v)
			return true
		})
		w.b = append(w.b, typeSetIntset)
		w.raw(appendIntset(nil, ints))
	case "listpack":
		lp := newListpack()
		s.Range(func(m []byte) bool { lp.add(m); return true })
		w.b = append(w.b, typeSetListpack)
		w.raw(lp.bytes())
	default:
		w.b = append(w.b, typeSet)
		w.length(uint64(s.Len()))
		s.Range(func(m []byte) bool { w.str(m); return true })
	}
}

func loadZSet(r *reader, typ byte) *zset.ZSet {
	var (
		members [][]byte
		scores  []float64
	)
	switch typ {
	case typeZSet, typeZSet2:
		for range r.count(2) {
			members = append(members, r.str())
			if typ == typeZSet2 {
				f := r.binaryDouble()
				if math.IsNaN(f) {
					r.fail()
				}
				scores = append(scores, f)
			} else {
				scores = append(scores, r.textDouble())
			}
		}
	case typeZSetZiplist, typeZSetListpack:
		parse := listpack
		if typ == typeZSetZiplist {
			parse = ziplist
		}
		es := packed(r, parse)
		if len(es)%2 != 0 {
			r.fail()
		}
		for i := 0; i+1 < len(es); i += 2 {
			members = append(members, es[i].bytes())
			f, ok := float64(es[i+1].i), true
			if !es[i+1].isInt {
				f, ok = parseScore(es[i+1].s)
			}
			if !ok {
				r.fail()
			}
			scores = append(scores, f)
		}
	}
	if r.bad || len(members) == 0 {
		return nil
	}
	maxLen := 0
	for _, m := range members {
		maxLen = max(maxLen, len(m))
	}
	z := zset.New(len(members), maxLen)
	for i, m := range members {
		if _, dup := z.Score(string(m)); dup {
			r.fail()
			return nil
		}
		z.Set(string(m), scores[i])
	}
	if typ == typeZSetZiplist || typ == typeZSetListpack {
		z.FitCount() // Redis checks a listpack's count only
	}
	return z
}

func dumpZSet(w *writer, z *zset.ZSet) {
	if z.Listpack() {
		lp := newListpack()
		for it := z.At(0); it.Valid(); it.Next() {
			lp.add([]byte(it.Member()))
			lp.add(formatScore(it.Score()))
		}
		w.b = append(w.b, typeZSetListpack)
		w.raw(lp.bytes())
		return
	}
	// Greatest first, as Redis writes a skiplist.
	w.b = append(w.b, typeZSet2)
	w.length(uint64(z.Len()))
	for it := z.At(z.Len() - 1); it.Valid(); it.Prev() {
		w.str([]byte(it.Member()))
		w.fixed64(math.Float64bits(it.Score()))
	}
}

// formatScore writes a listpack score as Redis's d2string does in effect:
// integers as integers (stored as listpack integers), other values in a
// form strtod reads back exactly.
func formatScore(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("inf")
	case math.IsInf(f, -1):
		return []byte("-inf")
	case f == math.Trunc(f) && math.Abs(f) < 1<<53 && !(f == 0 && math.Signbit(f)):
		return strconv.AppendInt(nil, int64(f), 10)
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64)
}

// maxFieldTTL is Redis's EB_EXPIRE_TIME_MAX: field expiry times are 48-bit.
const maxFieldTTL = 1<<48 - 1

func loadHash(r *reader, typ byte, now int64) (*hash.Hash, error) {
	h := hash.New()
	expired := false
	put := func(f, v []byte, at int64) {
		switch {
		case r.bad:
		case at < 0 || at > maxFieldTTL:
			r.fail()
		case hash.Expired(at, now):
			expired = true
		case !h.Set(f, v):
			r.fail() // a duplicate
		case at != 0:
			h.SetExpiry(f, at)
		}
	}
	switch typ {
	case typeHash:
		for range r.count(2) {
			f, v := r.str(), r.str()
			put(f, v, 0)
		}
	case typeHashZipmap, typeHashZiplist, typeHashListpack:
		parse := listpack
		switch typ {
		case typeHashZipmap:
			parse = zipmap
		case typeHashZiplist:
			parse = ziplist
		}
		es := packed(r, parse)
		if len(es)%2 != 0 {
			r.fail()
		}
		for i := 0; i+1 < len(es); i += 2 {
			put(es[i].bytes(), es[i+1].bytes(), 0)
		}
	case typeHashMetadata:
		// Field times are stored relative to the smallest, plus one (0: none).
		base := r.fixed64()
		for range r.count(3) {
			rel := r.length()
			f, v := r.str(), r.str()
			var at int64
			if rel != 0 {
				if base > maxFieldTTL || rel > maxFieldTTL+1-base {
					r.fail()
				}
				at = int64(base + rel - 1)
			}
			put(f, v, at)
		}
		h.MarkExpiry()
	case typeHashListpackEx:
		r.fixed64() // the smallest field time, which Redis does not read back either
		es := packed(r, listpack)
		if len(es)%3 != 0 {
			r.fail()
		}
		for i := 0; i+2 < len(es); i += 3 {
			at, ok := es[i+2].integer()
			if !ok {
				r.fail()
			}
			put(es[i].bytes(), es[i+1].bytes(), at)
		}
		h.MarkExpiry()
	}
	if typ == typeHashZiplist || typ == typeHashListpack || typ == typeHashListpackEx {
		h.FitCount() // Redis checks a listpack's count only
	}
	switch {
	case r.bad:
		return nil, ErrBadData
	case h.Len() > 0:
		return h, nil
	case expired:
		return nil, ErrExpired
	}
	return nil, ErrBadData
}

// fieldAt is a hash field being dumped.
type fieldAt struct {
	f, v []byte
	at   int64
}

func dumpHash(w *writer, h *hash.Hash, now int64) error {
	var fields []fieldAt
	minAt := int64(0)
	h.Range(func(f, v []byte) bool {
		at := h.Expiry(f)
		if !hash.Expired(at, now) {
			fields = append(fields, fieldAt{f, v, at})
			if at != 0 && (minAt == 0 || at < minAt) {
				minAt = at
			}
		}
		return true
	})
	if len(fields) == 0 {
		return ErrExpired
	}
	switch enc := h.Encoding(); {
	case enc == "listpackex":
		// Redis keeps a listpackex ordered by time, the fields without one last.
		slices.SortStableFunc(fields, func(a, b fieldAt) int {
			return cmp.Compare(uint64(a.at-1), uint64(b.at-1)) // 0 wraps to the end
		})
		lp := newListpack()
		for _, fa := range fields {
			lp.add(fa.f)
			lp.add(fa.v)
			lp.addInt(fa.at)
		}
		w.b = append(w.b, typeHashListpackEx)
		w.fixed64(uint64(cmp.Or(minAt, noFieldTTL)))
		w.raw(lp.bytes())
	case enc == "listpack":
		lp := newListpack()
		for _, fa := range fields {
			lp.add(fa.f)
			lp.add(fa.v)
		}
		w.b = append(w.b, typeHashListpack)
		w.raw(lp.bytes())
	case minAt != 0:
		w.b = append(w.b, typeHashMetadata)
		w.fixed64(uint64(minAt))
		w.length(uint64(len(fields)))
		for _, fa := range fields {
			if fa.at == 0 {
				w.length(0)
			} else {
				w.length(uint64(fa.at-minAt) + 1)
			}
			w.str(fa.f)
			w.str(fa.v)
		}
	default:
		w.b = append(w.b, typeHash)
		w.length(uint64(len(fields)))
		for _, fa := range fields {
			w.str(fa.f)
			w.str(fa.v)
		}
	}
	return nil
}

// noFieldTTL is Redis's EB_EXPIRE_TIME_INVALID, the smallest field time of
// a hash whose fields have none.
const noFieldTTL = 1 << 48
