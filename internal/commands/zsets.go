package commands

import (
	"bytes"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/scan"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// Sorted set commands, as Redis 8.0's t_zset.c: same argument parsing order,
// errors and reply shapes (RESP3 answers scores as doubles and WITHSCORES
// results as [member, score] pairs).

const (
	errMinMaxFloat = "ERR min or max is not a float"
	errMinMaxLex   = "ERR min or max not valid string range item"
	errNaN         = "ERR resulting score is not a number (NaN)"
)

// zsetAt returns key's sorted set (nil if the key is missing); ok is false,
// with WRONGTYPE answered, for another type. Reads count keyspace hits.
func zsetAt(x *cmdtable.Ctx, key []byte, read bool) (*zset.ZSet, bool) {
	return typed[*zset.ZSet](x, key, keyspace.KindZSet, read)
}

func storeZSet(x *cmdtable.Ctx, key []byte, z *zset.ZSet) {
	x.Shard(key).Put(key, &keyspace.Entry{Kind: keyspace.KindZSet, Obj: z})
}

// storeResult replaces dst with z, or deletes dst when z is empty, and
// signals it if anything changed.
func storeResult(x *cmdtable.Ctx, dst []byte, z *zset.ZSet) {
	if z == nil {
		if x.Shard(dst).Delete(dst, x.Now) {
			x.Touch(dst)
			x.Notify(notify.Generic, "del", dst)
		}
		return
	}
	storeZSet(x, dst, z)
	x.Touch(dst)
	x.NotifyCommand(notify.ZSet, dst)
}

// pairsHeader opens a reply of n members that carry scores when withScores:
// n [member, score] arrays in RESP3, 2n flat items in RESP2.
func pairsHeader(w *resp.Writer, n int, withScores bool) {
	if withScores && w.Proto == 2 {
		w.Array(2 * n)
		return
	}
	w.Array(n)
}

func pair(w *resp.Writer, member string, s float64, withScores bool) {
	if !withScores {
		w.BulkString(member)
		return
	}
	if w.Proto == 3 {
		w.Array(2)
	}
	w.BulkString(member)
	w.Double(s)
}

func zadd(x *cmdtable.Ctx)    { zaddGeneric(x, false) }
func zincrby(x *cmdtable.Ctx) { zaddGeneric(x, true) }

func zaddGeneric(x *cmdtable.Ctx, incrCmd bool) {
	var nx, xx, gt, lt, ch, incr bool
	args := x.Args
	i := 2
	if incrCmd {
		incr = true
	} else {
		for ; i < len(args); i++ {
			switch a := args[i]; {
			case cmdtable.Is(a, "nx"):
				nx = true
			case cmdtable.Is(a, "xx"):
				xx = true
			case cmdtable.Is(a, "gt"):
				gt = true
			case cmdtable.Is(a, "lt"):
				lt = true
			case cmdtable.Is(a, "ch"):
				ch = true
			case cmdtable.Is(a, "incr"):
				incr = true
			default:
				goto pairs
			}
		}
	}
pairs:
	n := len(args) - i
	if n == 0 || n%2 != 0 {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	n /= 2
	switch {
	case nx && xx:
		x.Error("ERR XX and NX options at the same time are not compatible")
		return
	case (gt || lt) && nx, gt && lt:
		x.Error("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	case incr && n > 1:
		x.Error("ERR INCR option supports a single increment-element pair")
		return
	}
	scores := make([]float64, n)
	for j := range scores {
		f, ok := zset.ParseScore(args[i+2*j])
		if !ok {
			x.Error(cmdtable.ErrNotFloat)
			return
		}
		scores[j] = f
	}
	key := args[1]
	z, ok := zsetAt(x, key, false)
	if !ok {
		return
	}
	if z == nil {
		if xx {
			if incr {
				x.W.Null()
			} else {
				x.W.Int(0)
			}
			return
		}
		// Redis sizes a new set by the pair count and the first member's
		// length only: a longer member further on converts the listpack
		// when it is inserted, after the members before it were stored
		// with -0 as 0.
		z = zset.New(n, len(args[i+1]))
		storeZSet(x, key, z)
	} else {
		z.Expect(n)
	}
	added, updated := 0, 0
	var result float64
	done := false
	for j := 0; j < n; j++ {
		// Moving a member keeps the set's own string: copy only to add one.
		member, s := transient(args[i+2*j+1]), scores[j]
		cur, exists := z.Score(member)
		if exists {
			if nx {
				continue
			}
			if incr {
				s += cur
				if math.IsNaN(s) {
					dropIfEmpty(x, key, z)
					x.Error(errNaN)
					return
				}
			}
			if (lt && s >= cur) || (gt && s <= cur) {
				continue
			}
			result, done = s, true
			if s != cur {
				z.Set(member, s)
				updated++
			}
		} else {
			if xx {
				continue
			}
			z.Set(string(args[i+2*j+1]), s)
			added++
			result, done = s, true
		}
	}
	if added+updated > 0 {
		x.Touch(key)
		x.Notify(notify.ZSet, endEvent(incr, "zincr", "zadd"), key)
	}
	dropIfEmpty(x, key, z) // ZADD XX/NX on a key it just created may have added nothing
	switch {
	case incr && done:
		x.W.Double(result)
	case incr:
		x.W.Null()
	case ch:
		x.W.Int(int64(added + updated))
	default:
		x.W.Int(int64(added))
	}
}

func zscore(x *cmdtable.Ctx) {
	z, ok := zsetAt(x, x.Args[1], true)
	if !ok {
		return
	}
	if z != nil {
		if s, found := z.Score(string(x.Args[2])); found {
			x.W.Double(s)
			return
		}
	}
	x.W.Null()
}

func zmscore(x *cmdtable.Ctx) {
	z, ok := zsetAt(x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		if z != nil {
			if s, found := z.Score(string(m)); found {
				x.W.Double(s)
				continue
			}
		}
		x.W.Null()
	}
}

func zcard(x *cmdtable.Ctx) {
	z, ok := zsetAt(x, x.Args[1], true)
	if !ok {
		return
	}
	if z == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(z.Len()))
}

func zcount(x *cmdtable.Ctx)    { zcountGeneric(x, false) }
func zlexcount(x *cmdtable.Ctx) { zcountGeneric(x, true) }

func zcountGeneric(x *cmdtable.Ctx, lex bool) {
	r, ok := parseZRange(x, x.Args[2], x.Args[3], lex)
	if !ok {
		return
	}
	z, ok := zsetAt(x, x.Args[1], true)
	if !ok {
		return
	}
	if z == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(z.Count(r)))
}

// parseZRange parses a score or lex range, answering the error if it is bad.
func parseZRange(x *cmdtable.Ctx, min, max []byte, lex bool) (zset.Range, bool) {
	if lex {
		r, ok := zset.ParseLexRange(min, max)
		if !ok {
			x.Error(errMinMaxLex)
		}
		return r, ok
	}
	r, ok := zset.ParseScoreRange(min, max)
	if !ok {
		x.Error(errMinMaxFloat)
	}
	return r, ok
}

func zrem(x *cmdtable.Ctx) {
	key := x.Args[1]
	z, ok := zsetAt(x, key, false)
	if !ok {
		return
	}
	n := 0
	if z != nil {
		for _, m := range x.Args[2:] {
			if z.Remove(string(m)) {
				n++
			}
		}
		if n > 0 {
			x.Notify(notify.ZSet, "zrem", key)
		}
		dropIfEmpty(x, key, z)
	}
	if n == 0 {
		replyUnchanged(x, 0)
		return
	}
	x.Touch(key)
	x.W.Int(int64(n))
}

func zrank(x *cmdtable.Ctx)    { zrankGeneric(x, false) }
func zrevrank(x *cmdtable.Ctx) { zrankGeneric(x, true) }

func zrankGeneric(x *cmdtable.Ctx, rev bool) {
	if len(x.Args) > 4 {
		x.Error(cmdtable.WrongArgs(string(x.Args[0])))
		return
	}
	withScore := false
	if len(x.Args) == 4 {
		if !cmdtable.Is(x.Args[3], "withscore") {
			x.Error(cmdtable.ErrSyntax)
			return
		}
		withScore = true
	}
	z, ok := zsetAt(x, x.Args[1], true)
	if !ok {
		return
	}
	var rank int
	var s float64
	found := false
	if z != nil {
		rank, s, found = z.Rank(string(x.Args[2]))
	}
	if !found {
		if withScore {
			x.W.NullArray()
		} else {
			x.W.Null()
		}
		return
	}
	if rev {
		rank = z.Len() - 1 - rank
	}
	if withScore {
		x.W.Array(2)
		x.W.Int(int64(rank))
		x.W.Double(s)
		return
	}
	x.W.Int(int64(rank))
}

// The ZRANGE family. Every variant is reduced to an interval of ranks
// [lo, hi] in ascending order plus a direction, found in O(log n), so a
// reply costs O(log n + m).

type rangeKind int

const (
	kindAuto rangeKind = iota
	byRank
	byScore
	byLex
)

type zrangeSpec struct {
	kind          rangeKind
	rev           bool
	start, end    int64 // byRank
	r             zset.Range
	offset, limit int64 // LIMIT; limit < 0 is no limit
	withScores    bool
}

// interval resolves the spec against z: the ranks [lo, hi] to return.
func (s *zrangeSpec) interval(z *zset.ZSet) (lo, hi int) {
	n := int64(z.Len())
	if s.kind == byRank {
		start, end := s.start, s.end
		if start < 0 {
			start += n
		}
		if end < 0 {
			end += n
		}
		start = max(start, 0)
		if start > end || start >= n {
			return 0, -1
		}
		end = min(end, n-1)
		if s.rev {
			return int(n - 1 - end), int(n - 1 - start)
		}
		return int(start), int(end)
	}
	return z.Slice(s.r, s.rev, s.offset, s.limit)
}

// each calls fn for the elements of [lo, hi] in the spec's direction.
func (s *zrangeSpec) each(z *zset.ZSet, lo, hi int, fn func(member string, score float64)) {
	if lo > hi {
		return
	}
	if s.rev {
		it := z.At(hi)
		for i := hi; i >= lo; i-- {
			fn(it.Member(), it.Score())
			it.Prev()
		}
		return
	}
	it := z.At(lo)
	for i := lo; i <= hi; i++ {
		fn(it.Member(), it.Score())
		it.Next()
	}
}

type direction int

const (
	dirAuto direction = iota
	dirFwd
	dirRev
)

// zrangeGeneric serves ZRANGE, ZRANGESTORE and the legacy variants, which
// fix kind and direction (kindAuto and dirAuto leave them to the
// arguments). src is the index of the source key.
func zrangeGeneric(x *cmdtable.Ctx, src int, store bool, kind rangeKind, dir direction) {
	args := x.Args
	s := zrangeSpec{kind: kind, limit: -1, rev: dir == dirRev}
	for j := src + 3; j < len(args); j++ {
		a := args[j]
		switch {
		case !store && cmdtable.Is(a, "withscores"):
			s.withScores = true
		case cmdtable.Is(a, "limit") && len(args)-j-1 >= 2:
			var ok1, ok2 bool
			s.offset, ok1 = cmdtable.ParseInt(args[j+1])
			if ok1 {
				s.limit, ok2 = cmdtable.ParseInt(args[j+2])
			}
			if !ok1 || !ok2 {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			j += 2
		case dir == dirAuto && cmdtable.Is(a, "rev"):
			s.rev, dir = true, dirRev
		case s.kind == kindAuto && cmdtable.Is(a, "bylex"):
			s.kind = byLex
		case s.kind == kindAuto && cmdtable.Is(a, "byscore"):
			s.kind = byScore
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	if s.kind == kindAuto {
		s.kind = byRank
	}
	if s.limit != -1 && s.kind == byRank {
		x.Error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
		return
	}
	if s.withScores && s.kind == byLex {
		x.Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
		return
	}
	minArg, maxArg := args[src+1], args[src+2]
	if s.rev && s.kind != byRank {
		minArg, maxArg = maxArg, minArg // given as max, min
	}
	switch s.kind {
	case byRank:
		var ok1, ok2 bool
		s.start, ok1 = cmdtable.ParseInt(minArg)
		if ok1 {
			s.end, ok2 = cmdtable.ParseInt(maxArg)
		}
		if !ok1 || !ok2 {
			x.Error(cmdtable.ErrNotInt)
			return
		}
	default:
		r, ok := parseZRange(x, minArg, maxArg, s.kind == byLex)
		if !ok {
			return
		}
		s.r = r
	}
	z, ok := zsetAt(x, args[src], true)
	if !ok {
		return
	}
	if store {
		dst := args[1]
		var members []string
		var scores []float64
		if z != nil {
			lo, hi := s.interval(z)
			if lo <= hi {
				members = make([]string, 0, hi-lo+1)
				scores = make([]float64, 0, hi-lo+1)
				it := z.At(lo)
				for i := lo; i <= hi; i++ {
					members = append(members, it.Member())
					scores = append(scores, it.Score())
					it.Next()
				}
			}
		}
		var out *zset.ZSet
		if len(members) > 0 {
			out = zset.FromRange(members, scores, s.rev)
		}
		storeResult(x, dst, out)
		x.W.Int(int64(len(members)))
		return
	}
	if z == nil {
		x.W.Array(0)
		return
	}
	lo, hi := s.interval(z)
	pairsHeader(x.W, max(0, hi-lo+1), s.withScores)
	s.each(z, lo, hi, func(m string, sc float64) { pair(x.W, m, sc, s.withScores) })
}

func zrange(x *cmdtable.Ctx)           { zrangeGeneric(x, 1, false, kindAuto, dirAuto) }
func zrangestore(x *cmdtable.Ctx)      { zrangeGeneric(x, 2, true, kindAuto, dirAuto) }
func zrevrange(x *cmdtable.Ctx)        { zrangeGeneric(x, 1, false, byRank, dirRev) }
func zrangebyscore(x *cmdtable.Ctx)    { zrangeGeneric(x, 1, false, byScore, dirFwd) }
func zrevrangebyscore(x *cmdtable.Ctx) { zrangeGeneric(x, 1, false, byScore, dirRev) }
func zrangebylex(x *cmdtable.Ctx)      { zrangeGeneric(x, 1, false, byLex, dirFwd) }
func zrevrangebylex(x *cmdtable.Ctx)   { zrangeGeneric(x, 1, false, byLex, dirRev) }
func zremrangebyrank(x *cmdtable.Ctx)  { zremrange(x, byRank) }
func zremrangebyscore(x *cmdtable.Ctx) { zremrange(x, byScore) }
func zremrangebylex(x *cmdtable.Ctx)   { zremrange(x, byLex) }

func zremrange(x *cmdtable.Ctx, kind rangeKind) {
	s := zrangeSpec{kind: kind, limit: -1}
	if kind == byRank {
		var ok1, ok2 bool
		s.start, ok1 = cmdtable.ParseInt(x.Args[2])
		if ok1 {
			s.end, ok2 = cmdtable.ParseInt(x.Args[3])
		}
		if !ok1 || !ok2 {
			x.Error(cmdtable.ErrNotInt)
			return
		}
	} else {
		r, ok := parseZRange(x, x.Args[2], x.Args[3], kind == byLex)
		if !ok {
			return
		}
		s.r = r
	}
	key := x.Args[1]
	z, ok := zsetAt(x, key, false)
	if !ok {
		return
	}
	if z == nil {
		replyUnchanged(x, 0)
		return
	}
	lo, hi := s.interval(z)
	n := max(0, hi-lo+1)
	if n > 0 {
		x.NotifyCommand(notify.ZSet, key)
	}
	if n == z.Len() {
		x.Shard(key).Delete(key, x.Now)
		x.Notify(notify.Generic, "del", key)
	} else if n > 0 {
		members := make([]string, 0, n)
		s.each(z, lo, hi, func(m string, _ float64) { members = append(members, m) })
		for _, m := range members {
			z.Remove(m)
		}
	}
	if n == 0 {
		replyUnchanged(x, 0)
		return
	}
	x.Touch(key)
	x.W.Int(int64(n))
}

// Pops.

// zpop pops up to count elements (count < 0: one, answered flat) from the
// first non-empty set among keys, from the top when popMax. The reply shapes
// follow Redis's genericZpopCommand: emitKey prefixes the key (BZPOP*,
// ZMPOP), nested answers [member, score] pairs, and nilWhenEmpty answers a
// null array rather than an empty one when no key has a set. It returns the
// key it popped from and how many it popped (0 also after an error).
func zpop(x *cmdtable.Ctx, keys [][]byte, popMax, emitKey bool, count int64, nested, nilWhenEmpty bool) (key []byte, popped int) {
	var z *zset.ZSet
	for _, k := range keys {
		var ok bool
		if z, ok = zsetAt(x, k, false); !ok {
			return nil, 0
		}
		if z != nil {
			key = k
			break
		}
	}
	if z == nil {
		if nilWhenEmpty {
			x.W.NullArray()
		} else {
			x.W.Array(0)
		}
		return nil, 0
	}
	if count == 0 {
		x.W.Array(0)
		return nil, 0
	}
	if count < 0 {
		count = 1
	}
	n := int(min(count, int64(z.Len())))
	w := x.W
	switch {
	case !nested && !emitKey:
		w.Array(2 * n)
	case nested && !emitKey:
		w.Array(n)
	case !nested && emitKey:
		w.Array(2*n + 1)
		w.Bulk(key)
	default:
		w.Array(2)
		w.Bulk(key)
		w.Array(n)
	}
	for range n {
		r := 0
		if popMax {
			r = z.Len() - 1
		}
		it := z.At(r)
		m, s := it.Member(), it.Score()
		if nested {
			w.Array(2)
		}
		w.BulkString(m)
		w.Double(s)
		z.Remove(m)
	}
	x.Notify(notify.ZSet, endEvent(popMax, "zpopmax", "zpopmin"), key)
	dropIfEmpty(x, key, z)
	x.Touch(key)
	return key, n
}

func zpopmin(x *cmdtable.Ctx) { zpopCmd(x, false) }
func zpopmax(x *cmdtable.Ctx) { zpopCmd(x, true) }

func zpopCmd(x *cmdtable.Ctx, popMax bool) {
	if len(x.Args) > 3 {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	count, ok := popCount(x)
	if !ok {
		return
	}
	if _, n := zpop(x, x.Args[1:2], popMax, false, count, x.W.Proto == 3 && count != -1, false); n == 0 {
		x.NoEffects() // nothing popped (or an error)
	}
}

// zmpopArgs parses "numkeys key... MIN|MAX [COUNT count]" at args[at:].
func zmpopArgs(x *cmdtable.Ctx, at int) (keys [][]byte, popMax bool, count int64, ok bool) {
	args := x.Args
	numkeys, ok := cmdtable.ParseInt(args[at])
	if !ok || numkeys < 1 {
		x.Error(errNumKeysZero)
		return nil, false, 0, false
	}
	if numkeys >= int64(len(args)) { // also keeps the sum below from overflowing
		x.Error(cmdtable.ErrSyntax)
		return nil, false, 0, false
	}
	where := int64(at) + numkeys + 1
	if where >= int64(len(args)) {
		x.Error(cmdtable.ErrSyntax)
		return nil, false, 0, false
	}
	switch {
	case cmdtable.Is(args[where], "min"):
	case cmdtable.Is(args[where], "max"):
		popMax = true
	default:
		x.Error(cmdtable.ErrSyntax)
		return nil, false, 0, false
	}
	count = -1
	for j := int(where) + 1; j < len(args); j++ {
		if count == -1 && cmdtable.Is(args[j], "count") && j+1 < len(args) {
			j++
			n, ok := cmdtable.ParseInt(args[j])
			if !ok || n < 1 {
				x.Error(errCountZero)
				return nil, false, 0, false
			}
			count = n
			continue
		}
		x.Error(cmdtable.ErrSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return args[at+1 : where], popMax, count, true
}

func zmpop(x *cmdtable.Ctx) {
	if keys, popMax, count, ok := zmpopArgs(x, 1); ok {
		if key, n := zpop(x, keys, popMax, true, count, true, true); n == 0 {
			x.NoEffects() // nothing popped (or an error)
		} else {
			propagatePop(x, endEvent(popMax, "zpopmax", "zpopmin"), key, n, true)
		}
	}
}

// bzpopGeneric pops from the first non-empty set among keys, or blocks.
func bzpopGeneric(x *cmdtable.Ctx, keys [][]byte, timeoutRaw []byte, popMax bool, count int64, nested bool) {
	timeout, ok := timeoutArg(x, timeoutRaw)
	if !ok {
		return
	}
	for _, k := range keys {
		z, ok := zsetAt(x, k, false)
		if !ok {
			return
		}
		if z != nil {
			// The plain pop of the key it served, with the number popped
			// for BZMPOP (which gives a count).
			if key, n := zpop(x, [][]byte{k}, popMax, true, count, nested, true); n > 0 {
				propagatePop(x, endEvent(popMax, "zpopmax", "zpopmin"), key, n, count > 0)
			}
			return
		}
	}
	if x.Blocker == nil { // inside MULTI: answer as on timeout
		x.W.NullArray()
		return
	}
	x.Blocker.Block(keys, timeout, false)
}

func bzpopmin(x *cmdtable.Ctx) { bzpopCmd(x, false) }
func bzpopmax(x *cmdtable.Ctx) { bzpopCmd(x, true) }

func bzpopCmd(x *cmdtable.Ctx, popMax bool) {
	n := len(x.Args)
	bzpopGeneric(x, x.Args[1:n-1], x.Args[n-1], popMax, -1, false)
}

// bzmpop reads the timeout last, after numkeys, MIN|MAX and COUNT, as
// Redis's zmpopGenericCommand does: their errors come first.
func bzmpop(x *cmdtable.Ctx) {
	if keys, popMax, count, ok := zmpopArgs(x, 2); ok {
		bzpopGeneric(x, keys, x.Args[1], popMax, count, true)
	}
}

// ZUNION, ZINTER, ZDIFF and their STORE forms, and ZINTERCARD.

// plainSet is what these commands need of a set value (KindSet, whose
// package belongs to the sets family): Redis reads plain sets as sorted sets
// whose scores are all 1. Range may pass views of the set's own buffer.
type plainSet interface {
	Len() int
	Has(member []byte) bool
	Range(fn func(member []byte) bool)
}

type zsrc struct {
	z      *zset.ZSet
	s      plainSet
	weight float64
}

func (s *zsrc) len() int {
	switch {
	case s.z != nil:
		return s.z.Len()
	case s.s != nil:
		return s.s.Len()
	}
	return 0
}

func (s *zsrc) score(m string) (float64, bool) {
	switch {
	case s.z != nil:
		return s.z.Score(m)
	case s.s != nil && s.s.Has([]byte(m)):
		return 1, true
	}
	return 0, false
}

func (s *zsrc) each(fn func(m string, sc float64)) {
	switch {
	case s.z != nil:
		if s.z.Len() > 0 {
			for it := s.z.At(0); it.Valid(); it.Next() {
				fn(it.Member(), it.Score())
			}
		}
	case s.s != nil:
		s.s.Range(func(m []byte) bool { fn(string(m), 1); return true })
	}
}

// weighted is score*weight, with Redis's convention that NaN (inf*0) is 0.
func weighted(sc, w float64) float64 {
	v := sc * w
	if math.IsNaN(v) {
		return 0
	}
	return v
}

type aggregate int

const (
	aggSum aggregate = iota
	aggMin
	aggMax
)

// apply folds v into acc as Redis's zunionInterAggregate: a NaN v (inf*0
// from a later ZINTER source) loses every MIN/MAX comparison.
func (a aggregate) apply(acc, v float64) float64 {
	switch a {
	case aggMin:
		if v < acc {
			return v
		}
		return acc
	case aggMax:
		if v > acc {
			return v
		}
		return acc
	}
	if r := acc + v; !math.IsNaN(r) {
		return r
	}
	return 0 // inf + -inf: Redis's convention
}

type setOp int

const (
	opUnion setOp = iota
	opInter
	opDiff
)

// numkeysKeys locates the keys of a "numkeys key..." command whose numkeys
// is at args[at] (and a destination at args[1] when dst), for the
// dispatcher's locking; a bad numkeys yields what it can, and the handler
// answers the error.
func numkeysKeys(at int, dst bool) func(args [][]byte, out []int) []int {
	return func(args [][]byte, out []int) []int {
		if dst {
			out = append(out, 1)
		}
		if at >= len(args) {
			return out
		}
		n, ok := cmdtable.ParseInt(args[at])
		if !ok || n < 1 {
			return out
		}
		for i := at + 1; i < len(args) && int64(i-at) <= n; i++ {
			out = append(out, i)
		}
		return out
	}
}

type zresult struct {
	members []string
	scores  []float64
}

func (r *zresult) Len() int { return len(r.members) }
func (r *zresult) Less(i, j int) bool {
	return r.scores[i] < r.scores[j] || (r.scores[i] == r.scores[j] && r.members[i] < r.members[j])
}
func (r *zresult) Swap(i, j int) {
	r.members[i], r.members[j] = r.members[j], r.members[i]
	r.scores[i], r.scores[j] = r.scores[j], r.scores[i]
}

// zsetOp serves ZUNION/ZINTER/ZDIFF[STORE] and ZINTERCARD (cardOnly); the
// numkeys argument is at args[at]; dst is the destination key or nil.
func zsetOp(x *cmdtable.Ctx, at int, dst []byte, op setOp, cardOnly bool) {
	args := x.Args
	numkeys, ok := cmdtable.ParseInt(args[at])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if numkeys < 1 {
		x.Error("ERR at least 1 input key is needed for '" + cmdName(x) + "' command")
		return
	}
	if numkeys > int64(len(args)-at-1) {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	srcs := make([]zsrc, numkeys)
	j := at + 1
	for i := range srcs {
		srcs[i].weight = 1
		if e := x.LookupRead(args[j]); e != nil {
			switch e.Kind {
			case keyspace.KindZSet:
				srcs[i].z = e.Obj.(*zset.ZSet)
			case keyspace.KindSet:
				s, isSet := e.Obj.(plainSet)
				if !isSet {
					x.Error(cmdtable.ErrWrongType)
					return
				}
				srcs[i].s = s
			default:
				x.Error(cmdtable.ErrWrongType)
				return
			}
		}
		j++
	}
	agg := aggSum
	withScores := false
	limit := int64(0)
	for j < len(args) {
		rest := len(args) - j
		switch a := args[j]; {
		case op != opDiff && !cardOnly && rest >= len(srcs)+1 && cmdtable.Is(a, "weights"):
			j++
			for i := range srcs {
				w, ok := zset.ParseScore(args[j])
				if !ok {
					x.Error("ERR weight value is not a float")
					return
				}
				srcs[i].weight = w
				j++
			}
		case op != opDiff && !cardOnly && rest >= 2 && cmdtable.Is(a, "aggregate"):
			switch b := args[j+1]; {
			case cmdtable.Is(b, "sum"):
				agg = aggSum
			case cmdtable.Is(b, "min"):
				agg = aggMin
			case cmdtable.Is(b, "max"):
				agg = aggMax
			default:
				x.Error(cmdtable.ErrSyntax)
				return
			}
			j += 2
		case dst == nil && !cardOnly && cmdtable.Is(a, "withscores"):
			withScores = true
			j++
		case cardOnly && rest >= 2 && cmdtable.Is(a, "limit"):
			n, ok := cmdtable.ParseInt(args[j+1])
			if !ok || n < 0 {
				x.Error(errCardLimit)
				return
			}
			limit = n
			j += 2
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	if cardOnly {
		x.W.Int(interCard(srcs, limit))
		return
	}
	var res zresult
	switch op {
	case opUnion:
		sortByLen(srcs) // the order of the sums matters with infinities
		acc := map[string]float64{}
		for i := range srcs {
			w := srcs[i].weight
			srcs[i].each(func(m string, sc float64) {
				v := weighted(sc, w)
				if old, seen := acc[m]; seen {
					acc[m] = agg.apply(old, v)
				} else {
					acc[m] = v
				}
			})
		}
		res.members = make([]string, 0, len(acc))
		res.scores = make([]float64, 0, len(acc))
		for m, v := range acc {
			res.members = append(res.members, m)
			res.scores = append(res.scores, v)
		}
	case opInter:
		sortByLen(srcs)
		if srcs[0].len() > 0 {
			srcs[0].each(func(m string, sc float64) {
				v := weighted(sc, srcs[0].weight)
				for i := 1; i < len(srcs); i++ {
					o, found := srcs[i].score(m)
					if !found {
						return
					}
					v = agg.apply(v, o*srcs[i].weight) // unlike the first, not NaN-corrected: as Redis
				}
				res.members = append(res.members, m)
				res.scores = append(res.scores, v)
			})
		}
	case opDiff:
		srcs[0].each(func(m string, sc float64) {
			for i := 1; i < len(srcs); i++ {
				if _, found := srcs[i].score(m); found {
					return
				}
			}
			res.members = append(res.members, m)
			res.scores = append(res.scores, sc)
		})
	}
	if op != opDiff || srcs[0].s != nil {
		sort.Sort(&res) // a difference keeps its sorted source's order and scores
	}
	if dst != nil {
		var out *zset.ZSet
		if res.Len() > 0 {
			out = zset.FromSorted(res.members, res.scores)
		}
		storeResult(x, dst, out)
		x.W.Int(int64(res.Len()))
		return
	}
	pairsHeader(x.W, res.Len(), withScores)
	for i, m := range res.members {
		pair(x.W, m, res.scores[i], withScores)
	}
}

// sortByLen orders sources smallest first, stably, as Redis does before a
// union or an intersection.
func sortByLen(srcs []zsrc) {
	sort.SliceStable(srcs, func(i, j int) bool { return srcs[i].len() < srcs[j].len() })
}

func interCard(srcs []zsrc, limit int64) int64 {
	sortByLen(srcs)
	var n int64
	if srcs[0].len() == 0 {
		return 0
	}
	done := false
	srcs[0].each(func(m string, _ float64) {
		if done {
			return
		}
		for i := 1; i < len(srcs); i++ {
			if _, found := srcs[i].score(m); !found {
				return
			}
		}
		n++
		done = limit > 0 && n >= limit
	})
	return n
}

// cmdName is the command's name in lower case, as Redis's error texts quote it.
func cmdName(x *cmdtable.Ctx) string { return strings.ToLower(string(x.Args[0])) }

func zunion(x *cmdtable.Ctx)      { zsetOp(x, 1, nil, opUnion, false) }
func zinter(x *cmdtable.Ctx)      { zsetOp(x, 1, nil, opInter, false) }
func zdiff(x *cmdtable.Ctx)       { zsetOp(x, 1, nil, opDiff, false) }
func zintercard(x *cmdtable.Ctx)  { zsetOp(x, 1, nil, opInter, true) }
func zunionstore(x *cmdtable.Ctx) { zsetOp(x, 2, x.Args[1], opUnion, false) }
func zinterstore(x *cmdtable.Ctx) { zsetOp(x, 2, x.Args[1], opInter, false) }
func zdiffstore(x *cmdtable.Ctx)  { zsetOp(x, 2, x.Args[1], opDiff, false) }

// ZRANDMEMBER.

// maxRandCount bounds ZRANDMEMBER's reply: Redis would try to build any
// size (and run out of memory); HotKV refuses counts that large.
const maxRandCount = 1 << 24

func zrandmember(x *cmdtable.Ctx) {
	args := x.Args
	if len(args) == 2 {
		z, ok := zsetAt(x, args[1], true)
		if !ok {
			return
		}
		if z == nil {
			x.W.Null()
			return
		}
		it := z.At(rand.IntN(z.Len()))
		x.W.BulkString(it.Member())
		return
	}
	l, ok := randomCount(x, args[2])
	if !ok {
		return
	}
	withScores := false
	if len(args) > 4 || (len(args) == 4 && !cmdtable.Is(args[3], "withscores")) {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	if len(args) == 4 {
		withScores = true
		if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
			x.Error(errOutOfRange)
			return
		}
	}
	z, ok := zsetAt(x, args[1], true)
	if !ok {
		return
	}
	if z == nil || l == 0 {
		x.W.Array(0)
		return
	}
	size := z.Len()
	w := x.W
	if l < 0 || l == 1 { // with repetition, in random order
		count := l
		if count < 0 {
			count = -count
		}
		if count > maxRandCount {
			x.Error(errOutOfRange)
			return
		}
		pairsHeader(w, int(count), withScores)
		for range count {
			it := z.At(rand.IntN(size))
			pair(w, it.Member(), it.Score(), withScores)
		}
		return
	}
	if l >= int64(size) { // the whole set, highest first as Redis answers it
		pairsHeader(w, size, withScores)
		for it := z.At(size - 1); it.Valid(); it.Prev() {
			pair(w, it.Member(), it.Score(), withScores)
		}
		return
	}
	count := int(l)
	pairsHeader(w, count, withScores)
	if count*3 > size { // a partial shuffle of all ranks
		ranks := make([]int, size)
		for i := range ranks {
			ranks[i] = i
		}
		for i := range count {
			k := i + rand.IntN(size-i)
			ranks[i], ranks[k] = ranks[k], ranks[i]
			it := z.At(ranks[i])
			pair(w, it.Member(), it.Score(), withScores)
		}
		return
	}
	seen := make(map[int]struct{}, count)
	for len(seen) < count {
		r := rand.IntN(size)
		if _, dup := seen[r]; dup {
			continue
		}
		seen[r] = struct{}{}
		it := z.At(r)
		pair(w, it.Member(), it.Score(), withScores)
	}
}

// ZSCAN.

func zscan(x *cmdtable.Ctx) {
	args := x.Args
	cursor, ok := scan.ParseCursor(args[2])
	if !ok {
		x.Error(cmdtable.ErrInvalidCursor)
		return
	}
	z, ok := zsetAt(x, args[1], true)
	if !ok {
		return
	}
	if z == nil {
		emptyScan(x)
		return
	}
	o, ok := parseScanOptions(x, args[3:], scanOther)
	if !ok {
		return
	}
	var members []string
	var scores []float64
	add := func(m string, s float64) {
		if o.pattern == nil || glob.MatchString(string(o.pattern), m, false) {
			members = append(members, m)
			scores = append(scores, s)
		}
	}
	next := uint64(0)
	listpack := z.Listpack()
	if listpack { // Redis answers a listpack whole, in order
		for it := z.At(0); it.Valid(); it.Next() {
			add(it.Member(), it.Score())
		}
	} else {
		next = z.Scan(cursor, o.count, add)
	}
	w := x.W
	w.Array(2)
	var buf [32]byte
	w.Bulk(strconv.AppendUint(buf[:0], next, 10))
	w.Array(2 * len(members))
	for i, m := range members {
		w.BulkString(m)
		if listpack {
			// The score as the listpack stores it (d2string).
			w.Bulk(resp.AppendFloat(buf[:0], scores[i]))
		} else {
			// Redis formats a skiplist's scores with ld2string's "%.17Lg".
			w.Bulk(appendG17(buf[:0], scores[i]))
		}
	}
}

// appendG17 formats f as Redis's ld2string(LD_STR_AUTO) does, which is C's
// "%.17g": 17 significant digits with trailing zeros dropped, in exponent
// form below 1e-4 and from 1e17 ("0.10000000000000001", "1e+20"); "inf",
// "-inf".
func appendG17(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', 17, 64)
	mant := b[start:]
	var exp []byte
	if i := bytes.IndexByte(mant, 'e'); i >= 0 {
		exp = append(exp, mant[i:]...)
		mant = mant[:i]
	}
	if bytes.IndexByte(mant, '.') >= 0 {
		mant = bytes.TrimRight(mant, "0")
		mant = bytes.TrimSuffix(mant, []byte("."))
	}
	return append(b[:start+len(mant)], exp...)
}

func init() {
	const g = "sorted-set"
	key1 := func(c *cmdtable.Cmd) *cmdtable.Cmd { c.First, c.Last, c.Step = 1, 1, 1; return c }
	w := cmdtable.Write | cmdtable.SelfTouch
	rw := w | cmdtable.DenyOOM
	ro := cmdtable.ReadOnly
	cmdtable.Register(
		key1(&cmdtable.Cmd{Name: "zadd", Member: 3, Arity: -4, Flags: rw | cmdtable.Fast, Effects: cmdtable.AsSent, Run: zadd, Group: g, Since: "1.2.0",
			Summary: "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist.",
			Args:    "key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]"}),
		key1(&cmdtable.Cmd{Name: "zincrby", Member: 3, Arity: 4, Flags: rw | cmdtable.Fast, Effects: cmdtable.AsSent, Run: zincrby, Group: g, Since: "1.2.0",
			Summary: "Increments the score of a member in a sorted set.", Args: "key increment member"}),
		key1(&cmdtable.Cmd{Name: "zrem", Member: 2, Arity: -3, Flags: w | cmdtable.Fast, Effects: cmdtable.AsSent, Run: zrem, Group: g, Since: "1.2.0",
			Summary: "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.", Args: "key member [member ...]"}),
		key1(&cmdtable.Cmd{Name: "zscore", Member: 2, Arity: 3, Flags: ro | cmdtable.Fast, Run: zscore, Group: g, Since: "1.2.0",
			Summary: "Returns the score of a member in a sorted set.", Args: "key member"}),
		key1(&cmdtable.Cmd{Name: "zmscore", Member: 2, Arity: -3, Flags: ro | cmdtable.Fast, Run: zmscore, Group: g, Since: "6.2.0",
			Summary: "Returns the score of one or more members in a sorted set.", Args: "key member [member ...]"}),
		key1(&cmdtable.Cmd{Name: "zcard", Arity: 2, Flags: ro | cmdtable.Fast, Run: zcard, Group: g, Since: "1.2.0",
			Summary: "Returns the number of members in a sorted set.", Args: "key"}),
		key1(&cmdtable.Cmd{Name: "zcount", Arity: 4, Flags: ro | cmdtable.Fast, Run: zcount, Group: g, Since: "2.0.0",
			Summary: "Returns the count of members in a sorted set that have scores within a range.", Args: "key min max"}),
		key1(&cmdtable.Cmd{Name: "zlexcount", Arity: 4, Flags: ro | cmdtable.Fast, Run: zlexcount, Group: g, Since: "2.8.9",
			Summary: "Returns the number of members in a sorted set within a lexicographical range.", Args: "key min max"}),
		key1(&cmdtable.Cmd{Name: "zrank", Member: 2, Arity: -3, Flags: ro | cmdtable.Fast, Run: zrank, Group: g, Since: "2.0.0",
			Summary: "Returns the index of a member in a sorted set ordered by ascending scores.", Args: "key member [WITHSCORE]"}),
		key1(&cmdtable.Cmd{Name: "zrevrank", Member: 2, Arity: -3, Flags: ro | cmdtable.Fast, Run: zrevrank, Group: g, Since: "2.0.0",
			Summary: "Returns the index of a member in a sorted set ordered by descending scores.", Args: "key member [WITHSCORE]"}),
		key1(&cmdtable.Cmd{Name: "zrange", Arity: -4, Flags: ro, Run: zrange, Group: g, Since: "1.2.0",
			Summary: "Returns members in a sorted set within a range of indexes.",
			Args:    "key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]"}),
		&cmdtable.Cmd{Name: "zrangestore", Arity: -5, Flags: rw, Effects: cmdtable.AsSent, First: 1, Last: 2, Step: 1, Run: zrangestore, Group: g, Since: "6.2.0",
			Summary: "Stores a range of members from sorted set in a key.",
			Args:    "dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]"},
		key1(&cmdtable.Cmd{Name: "zrevrange", Arity: -4, Flags: ro, Run: zrevrange, Group: g, Since: "1.2.0",
			Summary: "Returns members in a sorted set within a range of indexes in reverse order.", Args: "key start stop [WITHSCORES]"}),
		key1(&cmdtable.Cmd{Name: "zrangebyscore", Arity: -4, Flags: ro, Run: zrangebyscore, Group: g, Since: "1.0.5",
			Summary: "Returns members in a sorted set within a range of scores.", Args: "key min max [WITHSCORES] [LIMIT offset count]"}),
		key1(&cmdtable.Cmd{Name: "zrevrangebyscore", Arity: -4, Flags: ro, Run: zrevrangebyscore, Group: g, Since: "2.2.0",
			Summary: "Returns members in a sorted set within a range of scores in reverse order.", Args: "key max min [WITHSCORES] [LIMIT offset count]"}),
		key1(&cmdtable.Cmd{Name: "zrangebylex", Arity: -4, Flags: ro, Run: zrangebylex, Group: g, Since: "2.8.9",
			Summary: "Returns members in a sorted set within a lexicographical range.", Args: "key min max [LIMIT offset count]"}),
		key1(&cmdtable.Cmd{Name: "zrevrangebylex", Arity: -4, Flags: ro, Run: zrevrangebylex, Group: g, Since: "2.8.9",
			Summary: "Returns members in a sorted set within a lexicographical range in reverse order.", Args: "key max min [LIMIT offset count]"}),
		key1(&cmdtable.Cmd{Name: "zremrangebyrank", Arity: 4, Flags: w, Effects: cmdtable.AsSent, Run: zremrangebyrank, Group: g, Since: "2.0.0",
			Summary: "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.", Args: "key start stop"}),
		key1(&cmdtable.Cmd{Name: "zremrangebyscore", Arity: 4, Flags: w, Effects: cmdtable.AsSent, Run: zremrangebyscore, Group: g, Since: "1.2.0",
			Summary: "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed.", Args: "key min max"}),
		key1(&cmdtable.Cmd{Name: "zremrangebylex", Arity: 4, Flags: w, Effects: cmdtable.AsSent, Run: zremrangebylex, Group: g, Since: "2.8.9",
			Summary: "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.", Args: "key min max"}),
		key1(&cmdtable.Cmd{Name: "zpopmin", Arity: -2, Flags: w | cmdtable.Fast, Effects: cmdtable.AsSent, Run: zpopmin, Group: g, Since: "5.0.0",
			Summary: "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.", Args: "key [count]"}),
		key1(&cmdtable.Cmd{Name: "zpopmax", Arity: -2, Flags: w | cmdtable.Fast, Effects: cmdtable.AsSent, Run: zpopmax, Group: g, Since: "5.0.0",
			Summary: "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.", Args: "key [count]"}),
		&cmdtable.Cmd{Name: "zmpop", Arity: -4, Flags: w, Effects: cmdtable.Recorded, Keys: numkeysKeys(1, false), Run: zmpop, Group: g, Since: "7.0.0",
			Summary: "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.",
			Args:    "numkeys key [key ...] MIN | MAX [COUNT count]"},
		&cmdtable.Cmd{Name: "bzpopmin", Arity: -3, Flags: w | cmdtable.Fast | cmdtable.Blocking, Effects: cmdtable.Recorded, First: 1, Last: -2, Step: 1, Run: bzpopmin, Group: g, Since: "5.0.0",
			Summary: "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.",
			Args:    "key [key ...] timeout"},
		&cmdtable.Cmd{Name: "bzpopmax", Arity: -3, Flags: w | cmdtable.Fast | cmdtable.Blocking, Effects: cmdtable.Recorded, First: 1, Last: -2, Step: 1, Run: bzpopmax, Group: g, Since: "5.0.0",
			Summary: "Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member available otherwise.  Deletes the sorted set if the last element was popped.",
			Args:    "key [key ...] timeout"},
		&cmdtable.Cmd{Name: "bzmpop", Arity: -5, Flags: w | cmdtable.Blocking, Effects: cmdtable.Recorded, Keys: numkeysKeys(2, false), Run: bzmpop, Group: g, Since: "7.0.0",
			Summary: "Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.",
			Args:    "timeout numkeys key [key ...] MIN | MAX [COUNT count]"},
		&cmdtable.Cmd{Name: "zunion", Arity: -3, Flags: ro, Keys: numkeysKeys(1, false), Run: zunion, Group: g, Since: "6.2.0",
			Summary: "Returns the union of multiple sorted sets.", Args: "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]"},
		&cmdtable.Cmd{Name: "zinter", Arity: -3, Flags: ro, Keys: numkeysKeys(1, false), Run: zinter, Group: g, Since: "6.2.0",
			Summary: "Returns the intersect of multiple sorted sets.", Args: "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]"},
		&cmdtable.Cmd{Name: "zdiff", Arity: -3, Flags: ro, Keys: numkeysKeys(1, false), Run: zdiff, Group: g, Since: "6.2.0",
			Summary: "Returns the difference between multiple sorted sets.", Args: "numkeys key [key ...] [WITHSCORES]"},
		&cmdtable.Cmd{Name: "zintercard", Arity: -3, Flags: ro, Keys: numkeysKeys(1, false), Run: zintercard, Group: g, Since: "7.0.0",
			Summary: "Returns the number of members of the intersect of multiple sorted sets.", Args: "numkeys key [key ...] [LIMIT limit]"},
		&cmdtable.Cmd{Name: "zunionstore", Arity: -4, Flags: rw, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Keys: numkeysKeys(2, true), Run: zunionstore, Group: g, Since: "2.0.0",
			Summary: "Stores the union of multiple sorted sets in a key.", Args: "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]"},
		&cmdtable.Cmd{Name: "zinterstore", Arity: -4, Flags: rw, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Keys: numkeysKeys(2, true), Run: zinterstore, Group: g, Since: "2.0.0",
			Summary: "Stores the intersect of multiple sorted sets in a key.", Args: "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]"},
		&cmdtable.Cmd{Name: "zdiffstore", Arity: -4, Flags: rw, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Keys: numkeysKeys(2, true), Run: zdiffstore, Group: g, Since: "6.2.0",
			Summary: "Stores the difference of multiple sorted sets in a key.", Args: "destination numkeys key [key ...]"},
		key1(&cmdtable.Cmd{Name: "zrandmember", Arity: -2, Flags: ro, Run: zrandmember, Group: g, Since: "6.2.0",
			Summary: "Returns one or more random members from a sorted set.", Args: "key [count [WITHSCORES]]"}),
		key1(&cmdtable.Cmd{Name: "zscan", Arity: -3, Flags: ro, Run: zscan, Group: g, Since: "2.8.0",
			Summary: "Iterates over members and scores of a sorted set.", Args: "key cursor [MATCH pattern] [COUNT count]"}),
	)
}
