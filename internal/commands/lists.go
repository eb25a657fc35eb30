package commands

import (
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/value/list"
)

// List commands. Argument checks run in Redis's order, which decides which
// error a malformed call gets: LRANGE/LTRIM/LREM/LPOP parse their numbers
// before looking at the key, LINDEX/LSET look at the key first. They are
// flagged SelfTouch: like Redis they signal a key to WATCH and blocked
// clients only when they changed it (not on an error, a PUSHX or LINSERT
// that finds nothing, an LREM that removes nothing, a pop of 0), but LTRIM
// whenever the key exists.

// errOutOfLongRange is Redis's error for LONG_MIN where it reads a count
// in -LONG_MAX..LONG_MAX (LREM, LPOS RANK), so that it can be negated.
const errOutOfLongRange = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"

// listAt returns key's list, or nil if the key is missing; ok is false (and
// WRONGTYPE has been answered) when the key holds another type. read counts
// the lookup as a keyspace hit or miss, as Redis does for read commands.
func listAt(x *cmdtable.Ctx, key []byte, read bool) (*list.List, bool) {
	return typed[*list.List](x, key, keyspace.KindList, read)
}

func createList(x *cmdtable.Ctx, key []byte) *list.List {
	l := list.New()
	x.Shard(key).Put(key, &keyspace.Entry{Kind: keyspace.KindList, Obj: l})
	return l
}

func push(x *cmdtable.Ctx, front, onlyExisting bool) {
	key := x.Args[1]
	l, ok := listAt(x, key, false)
	if !ok {
		return
	}
	if l == nil {
		if onlyExisting {
			replyUnchanged(x, 0)
			return
		}
		l = createList(x, key)
	}
	if front {
		l.PushFront(x.Args[2:]...)
	} else {
		l.PushBack(x.Args[2:]...)
	}
	x.Notify(notify.List, endEvent(front, "lpush", "rpush"), key)
	x.Touch(key)
	x.W.Int(int64(l.Len()))
}

// endEvent names a list event after the end it works on.
func endEvent(front bool, left, right string) string {
	if front {
		return left
	}
	return right
}

func lpush(x *cmdtable.Ctx)  { push(x, true, false) }
func rpush(x *cmdtable.Ctx)  { push(x, false, false) }
func lpushx(x *cmdtable.Ctx) { push(x, true, true) }
func rpushx(x *cmdtable.Ctx) { push(x, false, true) }

// popOne takes one element from the chosen end. The slice is valid until the
// list changes again.
func popOne(l *list.List, front bool) []byte {
	if front {
		v, _ := l.PopFront()
		return v
	}
	v, _ := l.PopBack()
	return v
}

// popReply pops up to count elements and answers them as an array.
func popReply(x *cmdtable.Ctx, l *list.List, front bool, count int64) {
	n := min(int64(l.Len()), count)
	x.W.Array(int(n))
	for range n {
		x.W.Bulk(popOne(l, front))
	}
}

func pop(x *cmdtable.Ctx, front bool) {
	if len(x.Args) > 3 {
		x.Error(cmdtable.WrongArgs(string(x.Args[0])))
		return
	}
	count, ok := popCount(x)
	if !ok {
		return
	}
	key := x.Args[1]
	l, ok := listAt(x, key, false)
	if !ok {
		return
	}
	switch {
	case l == nil && count >= 0:
		x.NoEffects()
		x.W.NullArray()
	case l == nil:
		x.NoEffects()
		x.W.Null()
	case count == 0: // logged, though it changed nothing
		x.W.Array(0)
	case count < 0:
		x.W.Bulk(popOne(l, front))
	default:
		popReply(x, l, front, count)
	}
	if l != nil && count != 0 {
		x.Notify(notify.List, endEvent(front, "lpop", "rpop"), key)
		x.Touch(key)
		dropIfEmpty(x, key, l)
	}
}

func lpop(x *cmdtable.Ctx) { pop(x, true) }
func rpop(x *cmdtable.Ctx) { pop(x, false) }

func llen(x *cmdtable.Ctx) {
	l, ok := listAt(x, x.Args[1], true)
	if !ok {
		return
	}
	if l == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(l.Len()))
}

// parseRange reads LRANGE/LTRIM's start and stop.
func parseRange(x *cmdtable.Ctx) (start, stop int64, ok bool) {
	start, ok1 := cmdtable.ParseInt(x.Args[2])
	stop, ok2 := cmdtable.ParseInt(x.Args[3])
	if !ok1 || !ok2 {
		x.Error(cmdtable.ErrNotInt)
		return 0, 0, false
	}
	return start, stop, true
}

// clampRange turns Redis start/stop indexes into an inclusive range of a list
// of n elements; empty is true when nothing is in range.
func clampRange(start, stop int64, n int) (int, int, bool) {
	ln := int64(n)
	if start < 0 {
		start += ln
	}
	if stop < 0 {
		stop += ln
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= ln {
		return 0, 0, true
	}
	if stop >= ln {
		stop = ln - 1
	}
	return int(start), int(stop), false
}

func lrange(x *cmdtable.Ctx) {
	start, stop, ok := parseRange(x)
	if !ok {
		return
	}
	l, ok := listAt(x, x.Args[1], true)
	if !ok {
		return
	}
	if l == nil {
		x.W.Array(0)
		return
	}
	from, to, empty := clampRange(start, stop, l.Len())
	if empty {
		x.W.Array(0)
		return
	}
	x.W.Array(to - from + 1)
	l.Range(from, to, func(v []byte) bool {
		x.W.Bulk(v)
		return true
	})
}

func ltrim(x *cmdtable.Ctx) {
	start, stop, ok := parseRange(x)
	if !ok {
		return
	}
	key := x.Args[1]
	l, ok := listAt(x, key, false)
	if !ok {
		return
	}
	if l != nil {
		if from, to, empty := clampRange(start, stop, l.Len()); empty {
			l.Clear()
		} else {
			l.Trim(from, to)
		}
		x.Notify(notify.List, "ltrim", key)
		x.Touch(key) // even when nothing was trimmed, as Redis
		dropIfEmpty(x, key, l)
	}
	x.W.OK()
}

func lindex(x *cmdtable.Ctx) {
	l, ok := listAt(x, x.Args[1], true)
	if !ok {
		return
	}
	if l == nil {
		x.W.Null()
		return
	}
	i, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if i < -int64(l.Len()) || i >= int64(l.Len()) {
		x.W.Null()
		return
	}
	v, _ := l.Index(int(i))
	x.W.Bulk(v)
}

func lset(x *cmdtable.Ctx) {
	l, ok := listAt(x, x.Args[1], false)
	if !ok {
		return
	}
	if l == nil {
		x.Error(cmdtable.ErrNoSuchKey)
		return
	}
	i, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	// Redis passes the index to listTypeReplaceAtIndex as a C int: only
	// its low 32 bits count, so 4294967297 is 1 and 9223372036854775807
	// is -1.
	i = int64(int32(i))
	l.PrepareAdd(x.Args[3]) // Redis converts a full listpack even when the index is out of range
	n := int64(l.Len())
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		x.Error(cmdtable.ErrIndexRange)
		return
	}
	l.Set(int(i), x.Args[3])
	x.Notify(notify.List, "lset", x.Args[1])
	x.Touch(x.Args[1])
	x.W.OK()
}

func linsert(x *cmdtable.Ctx) {
	var after bool
	switch {
	case cmdtable.Is(x.Args[2], "after"):
		after = true
	case cmdtable.Is(x.Args[2], "before"):
	default:
		x.Error(cmdtable.ErrSyntax)
		return
	}
	l, ok := listAt(x, x.Args[1], false)
	if !ok {
		return
	}
	if l == nil {
		replyUnchanged(x, 0)
		return
	}
	l.PrepareAdd(x.Args[4]) // Redis converts a full listpack even when the pivot is missing
	pivot, at := x.Args[3], -1
	i := 0
	l.Range(0, l.Len()-1, func(v []byte) bool {
		if string(v) == string(pivot) {
			at = i
			return false
		}
		i++
		return true
	})
	if at < 0 {
		replyUnchanged(x, -1)
		return
	}
	l.Insert(at, x.Args[4], after)
	x.Notify(notify.List, "linsert", x.Args[1])
	x.Touch(x.Args[1])
	x.W.Int(int64(l.Len()))
}

func lrem(x *cmdtable.Ctx) {
	count, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if count == -1<<63 {
		x.Error(errOutOfLongRange)
		return
	}
	key := x.Args[1]
	l, ok := listAt(x, key, false)
	if !ok {
		return
	}
	if l == nil {
		replyUnchanged(x, 0)
		return
	}
	if count < -int64(l.Len()) || count > int64(l.Len()) {
		count = 0 // asking for more than the list holds is asking for all
	}
	n := l.RemoveMatches(x.Args[3], int(count))
	if n == 0 {
		replyUnchanged(x, 0)
		return
	}
	x.Notify(notify.List, "lrem", key)
	x.Touch(key)
	dropIfEmpty(x, key, l)
	x.W.Int(int64(n))
}

// lposLimit parses LPOS's COUNT or MAXLEN: Redis answers anything but a
// non-negative integer with the same error.
func lposLimit(x *cmdtable.Ctx, arg []byte, name string) (int64, bool) {
	n, ok := cmdtable.ParseInt(arg)
	if !ok || n < 0 {
		x.Error("ERR " + name + " can't be negative")
		return 0, false
	}
	return n, true
}

func lpos(x *cmdtable.Ctx) {
	rank, count, maxlen := int64(1), int64(-1), int64(0) // count -1: no COUNT given
	args := x.Args
	ok := true
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case cmdtable.Is(args[j], "rank") && more:
			j++
			n, ok := cmdtable.ParseInt(args[j])
			if !ok {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			if n == -1<<63 {
				x.Error(errOutOfLongRange)
				return
			}
			if n == 0 {
				x.Error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			rank = n
		case cmdtable.Is(args[j], "count") && more:
			j++
			if count, ok = lposLimit(x, args[j], "COUNT"); !ok {
				return
			}
		case cmdtable.Is(args[j], "maxlen") && more:
			j++
			if maxlen, ok = lposLimit(x, args[j], "MAXLEN"); !ok {
				return
			}
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	l, ok := listAt(x, x.Args[1], true)
	if !ok {
		return
	}
	if l == nil {
		if count >= 0 {
			x.W.Array(0)
		} else {
			x.W.Null()
		}
		return
	}
	elem := x.Args[2]
	n := l.Len()
	rev := rank < 0
	if rev {
		rank = -rank
	}
	var found []int64
	matches, seen := int64(0), int64(0)
	visit := func(v []byte, idx int) bool {
		if maxlen != 0 && seen >= maxlen {
			return false
		}
		seen++
		if string(v) != string(elem) {
			return true
		}
		matches++
		if matches < rank {
			return true
		}
		found = append(found, int64(idx))
		// Without COUNT the first match at the rank is the answer; COUNT 0
		// means every match.
		return count == 0 || (count > 0 && int64(len(found)) < count)
	}
	if rev {
		idx := n - 1
		l.RangeRev(0, n-1, func(v []byte) bool { r := visit(v, idx); idx--; return r })
	} else {
		idx := 0
		l.Range(0, n-1, func(v []byte) bool { r := visit(v, idx); idx++; return r })
	}
	if count < 0 {
		if len(found) == 0 {
			x.W.Null()
		} else {
			x.W.Int(found[0])
		}
		return
	}
	x.W.Array(len(found))
	for _, i := range found {
		x.W.Int(i)
	}
}

// parseEnd reads LEFT or RIGHT; it reports whether the end is the head.
func parseEnd(x *cmdtable.Ctx, arg []byte) (front, ok bool) {
	switch {
	case cmdtable.Is(arg, "left"):
		return true, true
	case cmdtable.Is(arg, "right"):
		return false, true
	}
	x.Error(cmdtable.ErrSyntax)
	return false, false
}

// listMove pops from src's end and pushes onto dst's end (LMOVE and friends).
// It answers the element, or reports false without answering when src is
// empty (the caller decides between a null reply and blocking).
func listMove(x *cmdtable.Ctx, src, dst []byte, fromFront, toFront bool) (done bool) {
	sl, ok := listAt(x, src, false)
	if !ok {
		return true
	}
	if sl == nil {
		return false
	}
	dl, ok := listAt(x, dst, false)
	if !ok {
		return true
	}
	if dl == nil {
		dl = createList(x, dst)
	}
	v, _ := sl.PopHold(fromFront)
	// Push first: with src == dst the list must not be deleted in between,
	// and v, which aliases sl's buffer, is still intact. As in Redis, the
	// source converts back to a listpack only after the push.
	if toFront {
		dl.PushFront(v)
	} else {
		dl.PushBack(v)
	}
	sl.Shrink()
	x.W.Bulk(v)
	x.Notify(notify.List, endEvent(toFront, "lpush", "rpush"), dst)
	x.Notify(notify.List, endEvent(fromFront, "lpop", "rpop"), src)
	x.Touch(dst)
	x.Touch(src)
	dropIfEmpty(x, src, sl)
	return true
}

func lmove(x *cmdtable.Ctx) {
	from, ok := parseEnd(x, x.Args[3])
	if !ok {
		return
	}
	to, ok := parseEnd(x, x.Args[4])
	if !ok {
		return
	}
	if !listMove(x, x.Args[1], x.Args[2], from, to) {
		x.NoEffects()
		x.W.Null()
	}
}

func rpoplpush(x *cmdtable.Ctx) {
	if !listMove(x, x.Args[1], x.Args[2], false, true) {
		x.NoEffects()
		x.W.Null()
	}
}

// mpopArgs parses LMPOP/BLMPOP's "numkeys key [key ...] LEFT|RIGHT [COUNT
// count]" starting at args[at].
func mpopArgs(x *cmdtable.Ctx, at int) (keys [][]byte, front bool, count int64, ok bool) {
	args := x.Args
	n, ok := cmdtable.ParseInt(args[at])
	if !ok || n <= 0 {
		x.Error(errNumKeysZero)
		return nil, false, 0, false
	}
	where := at + 1 + int(min(n, int64(len(args))))
	if where >= len(args) {
		x.Error(cmdtable.ErrSyntax)
		return nil, false, 0, false
	}
	if front, ok = parseEnd(x, args[where]); !ok {
		return nil, false, 0, false
	}
	count = -1
	for j := where + 1; j < len(args); j++ {
		if count == -1 && cmdtable.Is(args[j], "count") && j+1 < len(args) {
			j++
			if count, ok = cmdtable.ParseInt(args[j]); !ok || count <= 0 {
				x.Error(errCountZero)
				return nil, false, 0, false
			}
			continue
		}
		x.Error(cmdtable.ErrSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return args[at+1 : where], front, count, true
}

// mpopKeys finds LMPOP/BLMPOP's keys for the dispatcher: numkeys at args[at].
// A malformed numkeys yields no keys; the handler then answers the error
// without touching the keyspace.
func mpopKeys(at int) func(args [][]byte, dst []int) []int {
	return func(args [][]byte, dst []int) []int {
		if len(args) <= at {
			return dst
		}
		n, ok := cmdtable.ParseInt(args[at])
		if !ok || n <= 0 || n >= int64(len(args)-at) {
			return dst
		}
		for i := range int(n) {
			dst = append(dst, at+1+i)
		}
		return dst
	}
}

// mpop serves the first non-empty list among keys as [key, [elements]],
// propagated as the LPOP or RPOP of that key with the number popped; it
// reports false without answering when all are empty.
func mpop(x *cmdtable.Ctx, keys [][]byte, front bool, count int64) (done bool) {
	for _, k := range keys {
		l, ok := listAt(x, k, false)
		if !ok {
			return true
		}
		if l == nil {
			continue
		}
		propagatePop(x, endEvent(front, "lpop", "rpop"), k, int(min(int64(l.Len()), count)), true)
		x.W.Array(2)
		x.W.Bulk(k)
		popReply(x, l, front, count)
		x.Notify(notify.List, endEvent(front, "lpop", "rpop"), k)
		x.Touch(k)
		dropIfEmpty(x, k, l)
		return true
	}
	return false
}

func lmpop(x *cmdtable.Ctx) {
	keys, front, count, ok := mpopArgs(x, 1)
	if ok && !mpop(x, keys, front, count) {
		x.NoEffects()
		x.W.NullArray()
	}
}

// Blocking variants: served at once when they can be; otherwise the client
// waits on the keys (Blocker.Block), or inside MULTI, where nothing may
// block, answers what a timeout would.

func timeoutArg(x *cmdtable.Ctx, arg []byte) (time.Duration, bool) {
	d, msg := cmdtable.BlockTimeout(arg, x.Now)
	if msg != "" {
		x.Error(msg)
		return 0, false
	}
	return d, true
}

func bpop(x *cmdtable.Ctx, front bool) {
	keys := x.Args[1 : len(x.Args)-1]
	timeout, ok := timeoutArg(x, x.Args[len(x.Args)-1])
	if !ok {
		return
	}
	for _, k := range keys {
		l, ok := listAt(x, k, false)
		if !ok {
			return
		}
		if l == nil {
			continue
		}
		propagatePop(x, endEvent(front, "lpop", "rpop"), k, 1, false)
		x.W.Array(2)
		x.W.Bulk(k)
		x.W.Bulk(popOne(l, front))
		x.Notify(notify.List, endEvent(front, "lpop", "rpop"), k)
		x.Touch(k)
		dropIfEmpty(x, k, l)
		return
	}
	if x.Blocker == nil {
		x.W.NullArray()
		return
	}
	x.Blocker.Block(keys, timeout, false)
}

func blpop(x *cmdtable.Ctx) { bpop(x, true) }
func brpop(x *cmdtable.Ctx) { bpop(x, false) }

func bmove(x *cmdtable.Ctx, src, dst []byte, from, to bool, timeoutArgv []byte) {
	timeout, ok := timeoutArg(x, timeoutArgv)
	if !ok || listMove(x, src, dst, from, to) {
		return
	}
	if x.Blocker == nil {
		x.W.Null() // Redis answers a null bulk here, but a null array on timeout
		return
	}
	x.Blocker.Block([][]byte{src}, timeout, false)
}

func blmove(x *cmdtable.Ctx) {
	from, ok := parseEnd(x, x.Args[3])
	if !ok {
		return
	}
	to, ok := parseEnd(x, x.Args[4])
	if !ok {
		return
	}
	bmove(x, x.Args[1], x.Args[2], from, to, x.Args[5])
}

func brpoplpush(x *cmdtable.Ctx) {
	bmove(x, x.Args[1], x.Args[2], false, true, x.Args[3])
}

func blmpop(x *cmdtable.Ctx) {
	keys, front, count, ok := mpopArgs(x, 2)
	if !ok {
		return
	}
	timeout, ok := timeoutArg(x, x.Args[1])
	if !ok || mpop(x, keys, front, count) {
		return
	}
	if x.Blocker == nil {
		x.W.NullArray()
		return
	}
	x.Blocker.Block(keys, timeout, false)
}

func init() {
	const g = "list"
	w, r := cmdtable.Write|cmdtable.SelfTouch, cmdtable.ReadOnly
	wd, f := w|cmdtable.DenyOOM, cmdtable.Fast
	key := func(c *cmdtable.Cmd) *cmdtable.Cmd {
		if c.First == 0 && c.Keys == nil {
			c.First, c.Last, c.Step = 1, 1, 1
		}
		c.Group = g
		return c
	}
	cmdtable.Register(
		key(&cmdtable.Cmd{Name: "lpush", Arity: -3, Flags: wd | f, Effects: cmdtable.AsSent, Run: lpush, Since: "1.0.0",
			Summary: "Prepends one or more elements to a list. Creates the key if it doesn't exist.", Args: "key element [element ...]"}),
		key(&cmdtable.Cmd{Name: "rpush", Arity: -3, Flags: wd | f, Effects: cmdtable.AsSent, Run: rpush, Since: "1.0.0",
			Summary: "Appends one or more elements to a list. Creates the key if it doesn't exist.", Args: "key element [element ...]"}),
		key(&cmdtable.Cmd{Name: "lpushx", Arity: -3, Flags: wd | f, Effects: cmdtable.AsSent, Run: lpushx, Since: "2.2.0",
			Summary: "Prepends one or more elements to a list only when the list exists.", Args: "key element [element ...]"}),
		key(&cmdtable.Cmd{Name: "rpushx", Arity: -3, Flags: wd | f, Effects: cmdtable.AsSent, Run: rpushx, Since: "2.2.0",
			Summary: "Appends an element to a list only when the list exists.", Args: "key element [element ...]"}),
		key(&cmdtable.Cmd{Name: "linsert", Arity: 5, Flags: wd, Effects: cmdtable.AsSent, Run: linsert, Since: "2.2.0",
			Summary: "Inserts an element before or after another element in a list.", Args: "key <BEFORE | AFTER> pivot element"}),
		key(&cmdtable.Cmd{Name: "lpop", Arity: -2, Flags: w | f, Effects: cmdtable.AsSent, Run: lpop, Since: "1.0.0",
			Summary: "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.", Args: "key [count]"}),
		key(&cmdtable.Cmd{Name: "rpop", Arity: -2, Flags: w | f, Effects: cmdtable.AsSent, Run: rpop, Since: "1.0.0",
			Summary: "Returns and removes the last elements of a list. Deletes the list if the last element was popped.", Args: "key [count]"}),
		key(&cmdtable.Cmd{Name: "llen", Arity: 2, Flags: r | f, Run: llen, Since: "1.0.0",
			Summary: "Returns the length of a list.", Args: "key"}),
		key(&cmdtable.Cmd{Name: "lrange", Arity: 4, Flags: r, Run: lrange, Since: "1.0.0",
			Summary: "Returns a range of elements from a list.", Args: "key start stop"}),
		key(&cmdtable.Cmd{Name: "lindex", Arity: 3, Flags: r, Run: lindex, Since: "1.0.0",
			Summary: "Returns an element from a list by its index.", Args: "key index"}),
		key(&cmdtable.Cmd{Name: "lset", Arity: 4, Flags: wd, Effects: cmdtable.AsSent, Run: lset, Since: "1.0.0",
			Summary: "Sets the value of an element in a list by its index.", Args: "key index element"}),
		key(&cmdtable.Cmd{Name: "lrem", Arity: 4, Flags: w, Effects: cmdtable.AsSent, Run: lrem, Since: "1.0.0",
			Summary: "Removes elements from a list. Deletes the list if the last element was removed.", Args: "key count element"}),
		key(&cmdtable.Cmd{Name: "ltrim", Arity: 4, Flags: w, Effects: cmdtable.AsSent, Run: ltrim, Since: "1.0.0",
			Summary: "Removes elements from both ends a list. Deletes the list if all elements were trimmed.", Args: "key start stop"}),
		key(&cmdtable.Cmd{Name: "lpos", Arity: -3, Flags: r, Run: lpos, Since: "6.0.6",
			Summary: "Returns the index of matching elements in a list.", Args: "key element [RANK rank] [COUNT num-matches] [MAXLEN len]"}),
		key(&cmdtable.Cmd{Name: "lmove", Arity: 5, Flags: wd, Effects: cmdtable.AsSent, First: 1, Last: 2, Step: 1, Run: lmove, Since: "6.2.0",
			Summary: "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.",
			Args:    "source destination <LEFT | RIGHT> <LEFT | RIGHT>"}),
		key(&cmdtable.Cmd{Name: "rpoplpush", Arity: 3, Flags: wd, Effects: cmdtable.AsSent, First: 1, Last: 2, Step: 1, Run: rpoplpush, Since: "1.2.0",
			Summary: "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.",
			Args:    "source destination"}),
		key(&cmdtable.Cmd{Name: "lmpop", Arity: -4, Flags: w, Effects: cmdtable.Recorded, Keys: mpopKeys(1), Run: lmpop, Since: "7.0.0",
			Summary: "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.",
			Args:    "numkeys key [key ...] <LEFT | RIGHT> [COUNT count]"}),
		key(&cmdtable.Cmd{Name: "blpop", Arity: -3, Flags: w | cmdtable.Blocking, Effects: cmdtable.Recorded, First: 1, Last: -2, Step: 1, Run: blpop, Since: "2.0.0",
			Summary: "Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
			Args:    "key [key ...] timeout"}),
		key(&cmdtable.Cmd{Name: "brpop", Arity: -3, Flags: w | cmdtable.Blocking, Effects: cmdtable.Recorded, First: 1, Last: -2, Step: 1, Run: brpop, Since: "2.0.0",
			Summary: "Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
			Args:    "key [key ...] timeout"}),
		key(&cmdtable.Cmd{Name: "blmove", Arity: 6, Flags: wd | cmdtable.Blocking, Effects: cmdtable.AsSent, First: 1, Last: 2, Step: 1, Run: blmove, ReplForm: blmoveForm, Since: "6.2.0",
			Summary: "Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.",
			Args:    "source destination <LEFT | RIGHT> <LEFT | RIGHT> timeout"}),
		key(&cmdtable.Cmd{Name: "brpoplpush", Arity: 4, Flags: wd | cmdtable.Blocking, Effects: cmdtable.AsSent, First: 1, Last: 2, Step: 1, Run: brpoplpush, ReplForm: brpoplpushForm, Since: "2.2.0",
			Summary: "Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.",
			Args:    "source destination timeout"}),
		key(&cmdtable.Cmd{Name: "blmpop", Arity: -5, Flags: w | cmdtable.Blocking, Effects: cmdtable.Recorded, Keys: mpopKeys(2), Run: blmpop, Since: "7.0.0",
			Summary: "Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
			Args:    "timeout numkeys key [key ...] <LEFT | RIGHT> [COUNT count]"}),
	)
}
