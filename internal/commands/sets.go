package commands

import (
	"bytes"
	"sort"
	"strconv"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/scan"
	setval "github.com/hotkv/hotkv/internal/value/set"
)

// Set commands. They are flagged SelfTouch: like Redis they signal a key to
// WATCH and blocked clients only when they really changed it (SADD of a
// present member, SMOVE of an absent one and the source keys of SINTERSTORE
// change nothing).

// lookupSet returns key's set, nil when the key does not exist; ok is false
// (and WRONGTYPE has been answered) when the key holds another type. read
// counts the lookup as a keyspace hit or miss, as Redis's read lookups do.
func lookupSet(x *cmdtable.Ctx, key []byte, read bool) (*setval.Set, bool) {
	return typed[*setval.Set](x, key, keyspace.KindSet, read)
}

func storeSet(x *cmdtable.Ctx, key []byte, s *setval.Set) {
	x.Shard(key).Put(key, &keyspace.Entry{Kind: keyspace.KindSet, Obj: s})
}

// deferHeader inserts, at mark in the reply, the header that write produces:
// for replies whose length is known only after their elements are written
// (Redis's deferred lengths).
func setReplyHeader(x *cmdtable.Ctx, mark int, write func(w *resp.Writer)) {
	h := resp.Writer{Proto: x.W.Proto}
	write(&h)
	x.W.B = append(x.W.B, h.B...)
	copy(x.W.B[mark+len(h.B):], x.W.B[mark:])
	copy(x.W.B[mark:], h.B)
}

func sadd(x *cmdtable.Ctx) {
	key, members := x.Args[1], x.Args[2:]
	s, ok := lookupSet(x, key, false)
	if !ok {
		return
	}
	created := s == nil
	if created {
		s = setval.New(members[0], len(members))
	} else {
		s.Reserve(len(members))
	}
	added := 0
	for _, m := range members {
		if s.Add(m) {
			added++
		}
	}
	if created {
		storeSet(x, key, s)
	}
	if added == 0 {
		replyUnchanged(x, 0)
		return
	}
	x.Touch(key)
	x.Notify(notify.Set, "sadd", key)
	x.W.Int(int64(added))
}

func srem(x *cmdtable.Ctx) {
	key := x.Args[1]
	s, ok := lookupSet(x, key, false)
	if !ok {
		return
	}
	removed := 0
	if s != nil {
		for _, m := range x.Args[2:] {
			if s.Remove(m) {
				removed++
				if s.Len() == 0 {
					break
				}
			}
		}
		if removed > 0 {
			x.Notify(notify.Set, "srem", key)
		}
		dropIfEmpty(x, key, s)
	}
	if removed == 0 {
		replyUnchanged(x, 0)
		return
	}
	x.Touch(key)
	x.W.Int(int64(removed))
}

func smove(x *cmdtable.Ctx) {
	srcKey, dstKey, m := x.Args[1], x.Args[2], x.Args[3]
	src, ok := lookupSet(x, srcKey, false)
	if !ok {
		return
	}
	if src == nil {
		replyUnchanged(x, 0) // even when the destination has the wrong type, as Redis
		return
	}
	dst, ok := lookupSet(x, dstKey, false)
	if !ok {
		return
	}
	if src == dst {
		if !src.Has(m) {
			replyUnchanged(x, 0)
		} else {
			x.W.Int(1) // logged, though it changed nothing
		}
		return
	}
	if !src.Remove(m) {
		replyUnchanged(x, 0)
		return
	}
	x.Notify(notify.Set, "srem", srcKey)
	dropIfEmpty(x, srcKey, src)
	x.Touch(srcKey)
	if dst == nil {
		dst = setval.New(m, 1)
		storeSet(x, dstKey, dst)
	}
	if dst.Add(m) {
		x.Touch(dstKey)
		x.Notify(notify.Set, "sadd", dstKey)
	}
	x.W.Int(1)
}

func memberInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func sismember(x *cmdtable.Ctx) {
	s, ok := lookupSet(x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Int(memberInt(s != nil && s.Has(x.Args[2])))
}

func smismember(x *cmdtable.Ctx) {
	s, ok := lookupSet(x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		x.W.Int(memberInt(s != nil && s.Has(m)))
	}
}

func scard(x *cmdtable.Ctx) {
	s, ok := lookupSet(x, x.Args[1], true)
	if !ok {
		return
	}
	if s == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(s.Len()))
}

// replyMembers writes every member of s as a RESP3 set (an array in RESP2).
func replySetMembers(x *cmdtable.Ctx, s *setval.Set) {
	x.W.Set(s.Len())
	s.Range(func(m []byte) bool { x.W.Bulk(m); return true })
}

func smembers(x *cmdtable.Ctx) {
	s, ok := lookupSet(x, x.Args[1], true)
	if !ok {
		return
	}
	if s == nil {
		x.W.Set(0)
		return
	}
	replySetMembers(x, s)
}

func spop(x *cmdtable.Ctx) {
	switch len(x.Args) {
	case 3:
		spopCount(x)
		return
	case 2:
	default:
		x.Error(cmdtable.ErrSyntax)
		return
	}
	key := x.Args[1]
	s, ok := lookupSet(x, key, false)
	if !ok {
		return
	}
	if s == nil {
		x.NoEffects()
		x.W.Null()
		return
	}
	var buf [setMemberBuf]byte
	m := s.Pop(buf[:0])
	x.W.Bulk(m)
	eff := newSpopEffects(x, key) // random: it logs the SREM of what it popped
	eff.add(m)
	eff.flush()
	x.Notify(notify.Set, "spop", key)
	dropIfEmpty(x, key, s)
	x.Touch(key)
}

// maxMemberBuf holds any member a small encoding stores (64 bytes).
const setMemberBuf = 64

func spopCount(x *cmdtable.Ctx) {
	n, ok := cmdtable.ParseInt(x.Args[2])
	if !ok || n < 0 {
		x.Error(cmdtable.ErrNotPositive)
		return
	}
	key := x.Args[1]
	s, ok := lookupSet(x, key, false)
	if !ok {
		return
	}
	if s == nil || n == 0 {
		x.NoEffects()
		x.W.Set(0)
		return
	}
	x.Notify(notify.Set, "spop", key)
	if size := s.Len(); n >= int64(size) {
		replySetMembers(x, s)
		x.Shard(key).Delete(key, x.Now)
		x.Notify(notify.Generic, "del", key)
		// All of it: the set deleted, as Redis propagates it.
		if !x.Logged {
			x.Rewrite()
		} else if x.KS.Lazy != nil && x.KS.Lazy.ServerDel.Load() {
			x.Propagate([]byte("UNLINK"), bytes.Clone(key))
		} else {
			x.Propagate([]byte("DEL"), bytes.Clone(key))
		}
	} else {
		x.W.Set(int(n))
		eff := newSpopEffects(x, key) // random: it logs the SREMs of what it popped
		s.PopN(int(n), func(m []byte) {
			x.W.Bulk(m)
			eff.add(m)
		})
		eff.flush()
	}
	x.Touch(key)
}

// maxSampleReply bounds the reply of SRANDMEMBER with a negative count.
// Redis builds whatever was asked for (or dies trying); a reply this large
// is refused instead, as out of range.
const setMaxSampleReply = 1 << 30

func srandmember(x *cmdtable.Ctx) {
	switch len(x.Args) {
	case 3:
		srandmemberCount(x)
		return
	case 2:
	default:
		x.Error(cmdtable.ErrSyntax)
		return
	}
	s, ok := lookupSet(x, x.Args[1], true)
	if !ok {
		return
	}
	if s == nil {
		x.W.Null()
		return
	}
	var buf [20]byte
	x.W.Bulk(s.Random(buf[:0]))
}

func srandmemberCount(x *cmdtable.Ctx) {
	n, ok := randomCount(x, x.Args[2])
	if !ok {
		return
	}
	s, ok := lookupSet(x, x.Args[1], true)
	if !ok {
		return
	}
	if s == nil || n == 0 {
		x.W.Array(0)
		return
	}
	size := int64(s.Len())
	bulk := func(m []byte) { x.W.Bulk(m) }
	switch {
	case n < 0 || n == 1:
		n = max(n, -n)
		if n > 1<<20 && n > setMaxSampleReply/(avgMemberLen(s)+8) {
			x.Error(errOutOfRange)
			return
		}
		x.W.Array(int(n))
		s.Sample(int(n), bulk)
	case n >= size:
		x.W.Array(int(size))
		s.Range(func(m []byte) bool { x.W.Bulk(m); return true })
	default:
		x.W.Array(int(n))
		s.Pick(int(n), bulk)
	}
}

// avgLen is the mean member length, for sizing a reply.
func avgMemberLen(s *setval.Set) int64 {
	var total int64
	s.Range(func(m []byte) bool { total += int64(len(m)); return true })
	return total / int64(s.Len())
}

// lookupSets looks keys up as sets, nil for a missing key; ok is false after
// a WRONGTYPE reply. Every key is checked, as Redis does, even after a
// missing one.
func lookupSets(x *cmdtable.Ctx, keys [][]byte) (sets []*setval.Set, missing, ok bool) {
	sets = make([]*setval.Set, len(keys))
	for i, k := range keys {
		s, ok := lookupSet(x, k, true)
		if !ok {
			return nil, false, false
		}
		sets[i] = s
		missing = missing || s == nil
	}
	return sets, missing, true
}

// storeResult stores a STORE command's result in dst (replacing any value
// and TTL), or deletes dst when the result is empty, and replies its size.
func storeSetResult(x *cmdtable.Ctx, dst []byte, s *setval.Set) {
	if s.Len() > 0 {
		storeSet(x, dst, s)
		x.Touch(dst)
		x.NotifyCommand(notify.Set, dst)
	} else if x.Shard(dst).Delete(dst, x.Now) {
		x.Touch(dst)
		x.Notify(notify.Generic, "del", dst)
	}
	x.W.Int(int64(s.Len()))
}

// sinter serves SINTER, SINTERSTORE (dst != nil) and SINTERCARD (card,
// stopping at limit unless it is 0). It walks the smallest set and probes the
// others, so its reply lists members in that set's order.
func sinter(x *cmdtable.Ctx, keys [][]byte, dst []byte, card bool, limit int64) {
	sets, missing, ok := lookupSets(x, keys)
	if !ok {
		return
	}
	if missing { // the intersection with an empty set is empty
		switch {
		case dst != nil:
			storeSetResult(x, dst, setval.NewIntset())
		case card:
			x.W.Int(0)
		default:
			x.W.Set(0)
		}
		return
	}
	sort.SliceStable(sets, func(i, j int) bool { return sets[i].Len() < sets[j].Len() })
	first := sets[0]
	var result *setval.Set
	if dst != nil {
		if first.IsIntset() {
			result = setval.NewIntset()
		} else {
			result = setval.NewListpack()
		}
	}
	var n int64
	mark := len(x.W.B)
	first.Range(func(m []byte) bool {
		for _, o := range sets[1:] {
			if o != first && !o.Has(m) {
				return true
			}
		}
		n++
		switch {
		case card:
			return limit == 0 || n < limit
		case dst != nil:
			result.Add(m)
		default:
			x.W.Bulk(m)
		}
		return true
	})
	switch {
	case card:
		x.W.Int(n)
	case dst != nil:
		result.MakeIntset()
		storeSetResult(x, dst, result)
	default:
		setReplyHeader(x, mark, func(w *resp.Writer) { w.Set(int(n)) })
	}
}

func sinterCmd(x *cmdtable.Ctx)      { sinter(x, x.Args[1:], nil, false, 0) }
func sinterstoreCmd(x *cmdtable.Ctx) { sinter(x, x.Args[2:], x.Args[1], false, 0) }

// sintercardKeys finds SINTERCARD's keys (numkeys key [key ...]); none when
// numkeys is invalid, which the handler then reports.
func sintercardKeys(args [][]byte, dst []int) []int {
	n, ok := cmdtable.ParseInt(args[1])
	if !ok || n <= 0 || n > int64(len(args)-2) {
		return dst
	}
	for i := 2; i < 2+int(n); i++ {
		dst = append(dst, i)
	}
	return dst
}

func sintercard(x *cmdtable.Ctx) {
	numkeys, ok := cmdtable.ParseInt(x.Args[1])
	if !ok || numkeys <= 0 {
		x.Error(errNumKeysZero)
		return
	}
	if numkeys > int64(len(x.Args)-2) {
		x.Error(cmdtable.ErrNumKeysArgs)
		return
	}
	var limit int64
	for j := 2 + int(numkeys); j < len(x.Args); j++ {
		if !cmdtable.Is(x.Args[j], "limit") || j+1 == len(x.Args) {
			x.Error(cmdtable.ErrSyntax)
			return
		}
		j++
		if limit, ok = cmdtable.ParseInt(x.Args[j]); !ok || limit < 0 {
			x.Error(errCardLimit)
			return
		}
	}
	sinter(x, x.Args[2:2+numkeys], nil, true, limit)
}

// sunionDiff serves SUNION, SDIFF and their STORE forms. Like Redis it
// accumulates into an intset when storing or when every input is an intset
// (so the reply is sorted), and into a hashtable otherwise.
func sunionDiff(x *cmdtable.Ctx, keys [][]byte, dst []byte, diff bool) {
	sets, _, ok := lookupSets(x, keys)
	if !ok {
		return
	}
	allInts, same, biggest := true, false, 0
	for i, s := range sets {
		if s == nil {
			continue
		}
		allInts = allInts && s.IsIntset()
		same = same || (i > 0 && s == sets[0])
		biggest = max(biggest, s.Len())
	}
	var result *setval.Set
	if dst != nil || allInts {
		result = setval.NewIntset()
	} else {
		result = setval.NewHashtable(biggest)
	}
	switch {
	case !diff:
		for _, s := range sets {
			if s != nil {
				s.Range(func(m []byte) bool { result.Add(m); return true })
			}
		}
	case sets[0] == nil || same:
		// nothing is left of an empty first set, or of one minus itself
	case diffByProbing(sets):
		sets[0].Range(func(m []byte) bool {
			for _, o := range sets[1:] {
				if o != nil && o.Has(m) {
					return true
				}
			}
			result.Add(m)
			return true
		})
	default:
		sets[0].Range(func(m []byte) bool { result.Add(m); return true })
		for _, o := range sets[1:] {
			if result.Len() == 0 {
				break
			}
			if o != nil {
				o.Range(func(m []byte) bool { result.Remove(m); return true })
			}
		}
	}
	if dst != nil {
		storeSetResult(x, dst, result)
		return
	}
	replySetMembers(x, result)
}

// diffByProbing chooses Redis's SDIFF algorithm, since the choice shows in
// the stored result's encoding: probing the other sets for each member of the
// first (O(N*M), favoured 2:1), or copying the first and removing the others'
// members (O(total)). For probing it orders the other sets largest first.
func diffByProbing(sets []*setval.Set) bool {
	var probe, copyRemove int64
	for _, s := range sets {
		if s != nil {
			probe += int64(sets[0].Len())
			copyRemove += int64(s.Len())
		}
	}
	if probe/2 > copyRemove {
		return false
	}
	rest := sets[1:]
	size := func(s *setval.Set) int {
		if s == nil {
			return 0
		}
		return s.Len()
	}
	sort.SliceStable(rest, func(i, j int) bool { return size(rest[i]) > size(rest[j]) })
	return true
}

func sunionCmd(x *cmdtable.Ctx)      { sunionDiff(x, x.Args[1:], nil, false) }
func sunionstoreCmd(x *cmdtable.Ctx) { sunionDiff(x, x.Args[2:], x.Args[1], false) }
func sdiffCmd(x *cmdtable.Ctx)       { sunionDiff(x, x.Args[1:], nil, true) }
func sdiffstoreCmd(x *cmdtable.Ctx)  { sunionDiff(x, x.Args[2:], x.Args[1], true) }

func sscan(x *cmdtable.Ctx) {
	cursor, ok := scan.ParseCursor(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrInvalidCursor)
		return
	}
	s, ok := lookupSet(x, x.Args[1], true)
	if !ok {
		return
	}
	if s == nil {
		emptyScan(x)
		return
	}
	o, ok := parseScanOptions(x, x.Args[3:], scanOther)
	if !ok {
		return
	}
	mark := len(x.W.B)
	n := 0
	next := s.Scan(cursor, o.count, func(m []byte) {
		if o.pattern == nil || glob.Match(o.pattern, m, false) {
			x.W.Bulk(m)
			n++
		}
	})
	setReplyHeader(x, mark, func(w *resp.Writer) {
		w.Array(2)
		w.BulkString(strconv.FormatUint(next, 10))
		w.Array(n)
	})
}

func init() {
	const g = "set"
	r, w := cmdtable.ReadOnly, cmdtable.Write|cmdtable.SelfTouch
	cmdtable.Register(
		&cmdtable.Cmd{Name: "sadd", Arity: -3, Flags: w | cmdtable.DenyOOM | cmdtable.Fast, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Member: 2, Run: sadd, Group: g, Since: "1.0.0",
			Summary: "Adds one or more members to a set. Creates the key if it doesn't exist.", Args: "key member [member ...]"},
		&cmdtable.Cmd{Name: "srem", Arity: -3, Flags: w | cmdtable.Fast, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Member: 2, Run: srem, Group: g, Since: "1.0.0",
			Summary: "Removes one or more members from a set. Deletes the set if the last member was removed.", Args: "key member [member ...]"},
		&cmdtable.Cmd{Name: "smove", Arity: 4, Flags: w | cmdtable.Fast, Effects: cmdtable.AsSent, First: 1, Last: 2, Step: 1, Run: smove, Group: g, Since: "1.0.0",
			Summary: "Moves a member from one set to another.", Args: "source destination member"},
		&cmdtable.Cmd{Name: "sismember", Arity: 3, Flags: r | cmdtable.Fast, First: 1, Last: 1, Step: 1, Member: 2, Run: sismember, Group: g, Since: "1.0.0",
			Summary: "Determines whether a member belongs to a set.", Args: "key member"},
		&cmdtable.Cmd{Name: "smismember", Arity: -3, Flags: r | cmdtable.Fast, First: 1, Last: 1, Step: 1, Member: 2, Run: smismember, Group: g, Since: "6.2.0",
			Summary: "Determines whether multiple members belong to a set.", Args: "key member [member ...]"},
		&cmdtable.Cmd{Name: "scard", Arity: 2, Flags: r | cmdtable.Fast, First: 1, Last: 1, Step: 1, Run: scard, Group: g, Since: "1.0.0",
			Summary: "Returns the number of members in a set.", Args: "key"},
		&cmdtable.Cmd{Name: "smembers", Arity: 2, Flags: r, First: 1, Last: 1, Step: 1, Run: smembers, Group: g, Since: "1.0.0",
			Summary: "Returns all members of a set.", Args: "key"},
		&cmdtable.Cmd{Name: "spop", Arity: -2, Flags: w | cmdtable.Fast, Effects: cmdtable.Recorded, First: 1, Last: 1, Step: 1, Run: spop, Group: g, Since: "1.0.0",
			Summary: "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.", Args: "key [count]"},
		&cmdtable.Cmd{Name: "srandmember", Arity: -2, Flags: r, First: 1, Last: 1, Step: 1, Run: srandmember, Group: g, Since: "1.0.0",
			Summary: "Get one or multiple random members from a set", Args: "key [count]"},
		&cmdtable.Cmd{Name: "sinter", Arity: -2, Flags: r, First: 1, Last: -1, Step: 1, Run: sinterCmd, Group: g, Since: "1.0.0",
			Summary: "Returns the intersect of multiple sets.", Args: "key [key ...]"},
		&cmdtable.Cmd{Name: "sintercard", Arity: -3, Flags: r, Keys: sintercardKeys, Run: sintercard, Group: g, Since: "7.0.0",
			Summary: "Returns the number of members of the intersect of multiple sets.", Args: "numkeys key [key ...] [LIMIT limit]"},
		&cmdtable.Cmd{Name: "sinterstore", Arity: -3, Flags: w | cmdtable.DenyOOM, Effects: cmdtable.AsSent, First: 1, Last: -1, Step: 1, Run: sinterstoreCmd, Group: g, Since: "1.0.0",
			Summary: "Stores the intersect of multiple sets in a key.", Args: "destination key [key ...]"},
		&cmdtable.Cmd{Name: "sunion", Arity: -2, Flags: r, First: 1, Last: -1, Step: 1, Run: sunionCmd, Group: g, Since: "1.0.0",
			Summary: "Returns the union of multiple sets.", Args: "key [key ...]"},
		&cmdtable.Cmd{Name: "sunionstore", Arity: -3, Flags: w | cmdtable.DenyOOM, Effects: cmdtable.AsSent, First: 1, Last: -1, Step: 1, Run: sunionstoreCmd, Group: g, Since: "1.0.0",
			Summary: "Stores the union of multiple sets in a key.", Args: "destination key [key ...]"},
		&cmdtable.Cmd{Name: "sdiff", Arity: -2, Flags: r, First: 1, Last: -1, Step: 1, Run: sdiffCmd, Group: g, Since: "1.0.0",
			Summary: "Returns the difference of multiple sets.", Args: "key [key ...]"},
		&cmdtable.Cmd{Name: "sdiffstore", Arity: -3, Flags: w | cmdtable.DenyOOM, Effects: cmdtable.AsSent, First: 1, Last: -1, Step: 1, Run: sdiffstoreCmd, Group: g, Since: "1.0.0",
			Summary: "Stores the difference of multiple sets in a key.", Args: "destination key [key ...]"},
		&cmdtable.Cmd{Name: "sscan", Arity: -3, Flags: r, First: 1, Last: 1, Step: 1, Run: sscan, Group: g, Since: "2.8.0",
			Summary: "Iterates over members of a set.", Args: "key cursor [MATCH pattern] [COUNT count]"},
	)
}
