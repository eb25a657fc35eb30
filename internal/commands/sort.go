package commands

import (
	"bytes"
	"slices"
	"strconv"
	"unsafe"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/pqsort"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	setval "github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/zset"
)

const errSortScore = "ERR One or more scores can't be converted into double"

// sortItem is one element of the collection being sorted, with its weight:
// a score, or for ALPHA BY the looked-up value (hasCmp false when missing).
type sortItem struct {
	elem   []byte
	score  float64
	cmp    []byte
	hasCmp bool
}

// sortSpec is SORT's parsed options.
type sortSpec struct {
	desc, alpha, dontsort bool
	start, count          int64 // LIMIT; count -1: no limit
	by                    []byte
	gets                  [][]byte
	store                 []byte
}

// parseSort reads the options after the key, as Redis does: the last of
// repeated options wins, and BY without '*' turns sorting off for good.
// ok is false once the error is answered.
func parseSort(x *cmdtable.Ctx, readonly bool) (s sortSpec, ok bool) {
	s.count = -1
	args := x.Args
	for j := 2; j < len(args); j++ {
		a, left := args[j], len(args)-j-1
		switch {
		case cmdtable.Is(a, "asc"):
			s.desc = false
		case cmdtable.Is(a, "desc"):
			s.desc = true
		case cmdtable.Is(a, "alpha"):
			s.alpha = true
		case cmdtable.Is(a, "limit") && left >= 2:
			var ok1, ok2 bool
			s.start, ok1 = cmdtable.ParseInt(args[j+1])
			if ok1 {
				s.count, ok2 = cmdtable.ParseInt(args[j+2])
			}
			if !ok1 || !ok2 {
				x.Error(cmdtable.ErrNotInt)
				return s, false
			}
			j += 2
		case !readonly && cmdtable.Is(a, "store") && left >= 1:
			s.store = args[j+1]
			j++
		case cmdtable.Is(a, "by") && left >= 1:
			s.by = args[j+1]
			if bytes.IndexByte(cmdtable.CString(s.by), '*') < 0 {
				s.dontsort = true
			} else if !fullKeyAccess(x) {
				x.Error("ERR BY option of SORT denied due to insufficient ACL permissions.")
				return s, false
			}
			j++
		case cmdtable.Is(a, "get") && left >= 1:
			if !fullKeyAccess(x) {
				x.Error("ERR GET option of SORT denied due to insufficient ACL permissions.")
				return s, false
			}
			s.gets = append(s.gets, args[j+1])
			j++
		default:
			x.Error(cmdtable.ErrSyntax)
			return s, false
		}
	}
	return s, true
}

// fullKeyAccess reports whether the connection's ACL user may read every
// key: SORT's BY and GET patterns reach keys no ACL check saw, so Redis
// allows them only then.
func fullKeyAccess(x *cmdtable.Ctx) bool {
	c, ok := x.Conn.(interface{ FullKeyAccess([][]byte) bool })
	return !ok || c.FullKeyAccess(x.Args)
}

func sortCmd(x *cmdtable.Ctx)   { sortGeneric(x, false) }
func sortROCmd(x *cmdtable.Ctx) { sortGeneric(x, true) }

func sortGeneric(x *cmdtable.Ctx, readonly bool) {
	s, ok := parseSort(x, readonly)
	if !ok {
		return
	}
	e := x.LookupRead(x.Args[1])
	kind := keyspace.KindList // a missing key sorts as an empty list
	if e != nil {
		kind = e.Kind
		if kind != keyspace.KindList && kind != keyspace.KindSet && kind != keyspace.KindZSet {
			x.Error(cmdtable.ErrWrongType)
			return
		}
	}
	if s.dontsort && kind == keyspace.KindSet && (s.store != nil || x.InScript) {
		s.dontsort, s.alpha, s.by = false, true, nil
	}
	n := int64(0)
	if e != nil {
		switch v := e.Obj.(type) {
		case *list.List:
			n = int64(v.Len())
		case *setval.Set:
			n = int64(v.Len())
		case *zset.ZSet:
			v.ToSkiplist() // Redis converts a sorted set it sorts, for good
			n = int64(v.Len())
		}
	}

	// LIMIT, clamped to the collection as Redis does: [start, end], empty
	// when end < start.
	start := min(max(s.start, 0), n)
	count := min(max(s.count, -1), n)
	end := n - 1
	if count >= 0 {
		end = start + count - 1
	}
	if start >= n {
		start, end = n-1, n-2
	}
	end = min(end, n-1)

	vec, start, end := loadSortVector(e, &s, start, end)

	scoreErr := false
	if !s.dontsort {
		var buf []byte
		for i := range vec {
			it := &vec[i]
			w := it.elem
			if s.by != nil {
				var found bool
				if w, found = sortLookup(x, s.by, it.elem, &buf); !found {
					continue // no weight: score 0, or first for ALPHA
				}
			}
			if s.alpha {
				if s.by != nil {
					it.cmp, it.hasCmp = w, true
				}
			} else if sc, ok := sortScore(w); ok {
				it.score = sc
			} else {
				scoreErr = true
			}
		}
		if !scoreErr {
			cmp := sortCompare(&s)
			if s.by != nil && (start != 0 || end != int64(len(vec))-1) {
				pqsort.Partial(vec, cmp, int(start), int(end))
			} else {
				pqsort.Stable(vec, cmp)
			}
		}
	}

	rows := end - start + 1
	outLen := rows
	if len(s.gets) > 0 {
		outLen = rows * int64(len(s.gets))
	}
	if scoreErr {
		x.Error(errSortScore)
		return
	}
	var buf []byte
	if s.store == nil {
		if !readonly {
			x.NoEffects() // SORT without STORE changed nothing: not logged
		}
		x.W.Array(int(outLen))
		for j := start; j <= end; j++ {
			if len(s.gets) == 0 {
				x.W.Bulk(vec[j].elem)
			}
			for _, g := range s.gets {
				if v, found := sortLookup(x, g, vec[j].elem, &buf); found {
					x.W.Bulk(v)
				} else {
					x.W.Null()
				}
			}
		}
		return
	}
	vals := make([][]byte, 0, outLen)
	for j := start; j <= end; j++ {
		if len(s.gets) == 0 {
			vals = append(vals, vec[j].elem)
		}
		for _, g := range s.gets {
			v, _ := sortLookup(x, g, vec[j].elem, &buf) // a missing one is stored as ""
			vals = append(vals, v)
		}
	}
	dst := s.store
	if outLen > 0 {
		x.Shard(dst).Put(dst, &keyspace.Entry{Kind: keyspace.KindList, Obj: list.FromQuicklist(vals)})
		x.Touch(dst)
		x.Notify(notify.List, "sortstore", dst)
	} else if x.Shard(dst).Delete(dst, x.Now) {
		x.Touch(dst)
		x.Notify(notify.Generic, "del", dst)
	} else {
		x.NoEffects()
	}
	x.W.Int(outLen)
}

// loadSortVector collects the elements to sort. Without sorting, a list or
// sorted set gives only the LIMIT range, in its order (reversed by DESC),
// and start and end are moved onto the vector.
func loadSortVector(e *keyspace.Entry, s *sortSpec, start, end int64) ([]sortItem, int64, int64) {
	if e == nil {
		return nil, start, end
	}
	switch v := e.Obj.(type) {
	case *list.List:
		n := v.Len()
		if !s.dontsort {
			vec := make([]sortItem, 0, n)
			if n > 0 {
				v.Range(0, n-1, func(b []byte) bool { vec = append(vec, sortItem{elem: b}); return true })
			}
			return vec, start, end
		}
		if end < start {
			return nil, start, end
		}
		vec := make([]sortItem, 0, end-start+1)
		add := func(b []byte) bool { vec = append(vec, sortItem{elem: b}); return true }
		if s.desc {
			v.RangeRev(n-1-int(end), n-1-int(start), add)
		} else {
			v.Range(int(start), int(end), add)
		}
		return vec, 0, end - start
	case *setval.Set:
		vec := make([]sortItem, 0, v.Len())
		var ints []byte // an intset's members, which Range formats in one scratch buffer
		if v.IsIntset() {
			ints = make([]byte, 0, 8*v.Len())
		}
		v.Range(func(m []byte) bool {
			if ints != nil {
				ints = append(ints, m...) // a reallocation leaves earlier members in the old array
				m = ints[len(ints)-len(m) : len(ints) : len(ints)]
			}
			vec = append(vec, sortItem{elem: m})
			return true
		})
		if !s.dontsort && s.alpha && v.Encoding() == "hashtable" {
			// Equal ALPHA weights keep the order they come in, which in
			// Redis is the hashtable's; make it deterministic.
			slices.SortFunc(vec, func(a, b sortItem) int { return bytes.Compare(a.elem, b.elem) })
		}
		return vec, start, end
	case *zset.ZSet:
		n := int64(v.Len())
		if !s.dontsort {
			vec := make([]sortItem, 0, n)
			if n > 0 {
				for it := v.At(0); it.Valid(); it.Next() {
					vec = append(vec, sortItem{elem: stringBytes(it.Member())})
				}
			}
			return vec, start, end
		}
		if end < start {
			return nil, 0, end - start
		}
		vec := make([]sortItem, 0, end-start+1)
		first := start
		if s.desc {
			first = n - 1 - start
		}
		it := v.At(int(first))
		for k := start; k <= end; k++ {
			vec = append(vec, sortItem{elem: stringBytes(it.Member())})
			if s.desc {
				it.Prev()
			} else {
				it.Next()
			}
		}
		return vec, 0, end - start
	}
	return nil, start, end
}

// stringBytes views a member string, which is never modified, as bytes.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// sortCompare is Redis's sortCompare for the spec's options.
func sortCompare(s *sortSpec) func(a, b *sortItem) int {
	alpha, by, store, desc := s.alpha, s.by != nil, s.store != nil, s.desc
	return func(a, b *sortItem) int {
		var c int
		switch {
		case !alpha:
			switch {
			case a.score > b.score:
				c = 1
			case a.score < b.score:
				c = -1
			default:
				c = bytes.Compare(a.elem, b.elem)
			}
		case by:
			switch {
			case !a.hasCmp || !b.hasCmp:
				switch {
				case a.hasCmp == b.hasCmp:
					c = 0
				case !a.hasCmp:
					c = -1
				default:
					c = 1
				}
			case store:
				c = bytes.Compare(a.cmp, b.cmp)
			default:
				c = bytes.Compare(cmdtable.CString(a.cmp), cmdtable.CString(b.cmp))
			}
		case store:
			c = bytes.Compare(a.elem, b.elem)
		default:
			c = bytes.Compare(cmdtable.CString(a.elem), cmdtable.CString(b.elem))
		}
		if desc {
			return -c
		}
		return c
	}
}

// sortLookup is Redis's lookupKeyByPattern: "#" is the element itself;
// otherwise the first '*' is replaced by the element to name a key, whose
// string value, or with "->field" after the '*' whose hash field, is the
// result. found is false when there is no '*', no such key or field, or
// the key holds another type. *buf is scratch space for the key name.
func sortLookup(x *cmdtable.Ctx, pattern, elem []byte, buf *[]byte) (v []byte, found bool) {
	c := cmdtable.CString(pattern) // Redis searches the pattern as a C string
	if len(c) == 1 && c[0] == '#' {
		return elem, true
	}
	star := bytes.IndexByte(c, '*')
	if star < 0 {
		return nil, false
	}
	post, field := pattern[star+1:], []byte(nil)
	if f := bytes.Index(c[star+1:], []byte("->")); f >= 0 && star+1+f+2 < len(c) {
		post, field = pattern[star+1:star+1+f], pattern[star+1+f+2:]
	}
	key := append(append(append((*buf)[:0], pattern[:star]...), elem...), post...)
	*buf = key
	e := x.LookupRead(key)
	if e == nil {
		return nil, false
	}
	if field == nil {
		if e.Kind != keyspace.KindString {
			return nil, false
		}
		return e.Bytes(), true
	}
	if e.Kind != keyspace.KindHash {
		return nil, false
	}
	h := e.Obj.(*hash.Hash)
	if h.Volatile() { // reclaim expired fields as every hash command does
		if h, _, _ = hashOf(x, key, false); h == nil {
			return nil, false
		}
	}
	return h.Get(field)
}

// sortScore parses a weight as Redis 8's SORT does (fast_float's from_chars
// on the C string, leading '+' allowed): the whole text must be a decimal
// number, inf or infinity, with out-of-range values going to ±inf or 0. An
// empty weight is 0. NaN is refused.
func sortScore(b []byte) (float64, bool) {
	b = cmdtable.CString(b)
	if len(b) == 0 {
		return 0, true
	}
	i := 0
	if b[0] == '+' || b[0] == '-' {
		i++
	}
	if rest := b[i:]; cmdtable.Is(rest, "inf") || cmdtable.Is(rest, "infinity") {
		f, _ := strconv.ParseFloat(transient(b), 64)
		return f, true
	}
	digits := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		exp := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(b) {
		return 0, false
	}
	f, _ := strconv.ParseFloat(transient(b), 64) // out of range: ±Inf or 0, as fast_float
	return f, true
}

// sortKeys is Redis's sortGetKeys: the key, and the destination of the
// last STORE, skipping the arguments of LIMIT, GET and BY.
func sortKeys(args [][]byte, dst []int) []int {
	dst = append(dst, 1)
	store := -1
	for i := 2; i < len(args); i++ {
		switch a := args[i]; {
		case cmdtable.Is(a, "limit"):
			i += 2
		case cmdtable.Is(a, "get"), cmdtable.Is(a, "by"):
			i++
		case cmdtable.Is(a, "store") && i+1 < len(args):
			store = i + 1
			i++
		}
	}
	if store >= 0 {
		dst = append(dst, store)
	}
	return dst
}

func init() {
	const g = "generic"
	acl := []string{"set", "sortedset", "list", "dangerous"}
	cmdtable.Register(
		&cmdtable.Cmd{Name: "sort", Arity: -2, Flags: cmdtable.Write | cmdtable.DenyOOM | cmdtable.SelfTouch | cmdtable.LockDB, Effects: cmdtable.AsSent,
			First: 1, Last: 1, Step: 1, Keys: sortKeys, Run: sortCmd, Group: g, Since: "1.0.0", ACL: acl,
			Summary: "Sorts the elements in a list, a set, or a sorted set, optionally storing the result.",
			Args:    "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA] [STORE destination]"},
		&cmdtable.Cmd{Name: "sort_ro", Arity: -2, Flags: cmdtable.ReadOnly | cmdtable.LockDB | cmdtable.MovableKeys,
			First: 1, Last: 1, Step: 1, Run: sortROCmd, Group: g, Since: "7.0.0", ACL: acl,
			Summary: "Returns the sorted elements of a list, a set, or a sorted set.",
			Args:    "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA]"},
	)
}
