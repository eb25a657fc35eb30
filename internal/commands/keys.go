package commands

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/scan"
)

// Generic key commands: existence, type, renaming and copying, iteration,
// databases, OBJECT, and expiry.
//
// The commands that change keys are flagged SelfTouch: like Redis they mark
// WATCHed keys only when they really change them (a DEL of a missing key or
// an EXPIRE refused by NX leaves a watching transaction alone). Deleting
// through the keyspace touches by itself; Put and SetExpire are followed by
// an explicit Touch.

const (
	errIntRange = "ERR value is out of range, value must between -2147483648 and 2147483647"
	errNoLFU    = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	errLFU      = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

// peekRead looks key up as Redis's read commands that do not count as an
// access do (TYPE, TTL, EXISTS, OBJECT): no LRU update, but a keyspace hit or
// miss, and an expired key is deleted.
func peekRead(x *cmdtable.Ctx, key []byte) *keyspace.Entry {
	e := peekQuiet(x, key)
	if e == nil {
		x.Notify(notify.KeyMiss, "keymiss", key)
	}
	return e
}

// peekQuiet is peekRead without the keymiss event (OBJECT's lookup).
func peekQuiet(x *cmdtable.Ctx, key []byte) *keyspace.Entry {
	e := x.Shard(key).Peek(key, x.Now)
	if e != nil {
		x.Hits++
	} else {
		x.Misses++
	}
	return e
}

// intArg parses a database index as Redis's getIntFromObjectOrReply does; msg
// replaces both of its errors when not empty (SWAPDB).
func intArg(x *cmdtable.Ctx, b []byte, msg string) (int, bool) {
	n, ok := cmdtable.ParseInt(b)
	switch {
	case ok && n >= math.MinInt32 && n <= math.MaxInt32:
		return int(n), true
	case msg != "":
		x.Error(msg)
	case !ok:
		x.Error(cmdtable.ErrNotInt)
	default:
		x.Error(errIntRange)
	}
	return 0, false
}

// dbArg is intArg for a database that must exist.
func dbArg(x *cmdtable.Ctx, b []byte) (int, bool) {
	n, ok := intArg(x, b, "")
	if ok && (n < 0 || n >= len(x.KS.DBs)) {
		x.Error(cmdtable.ErrDBIndex)
		return 0, false
	}
	return n, ok
}

func del(x *cmdtable.Ctx)    { deleteKeys(x, x.KS.Lazy != nil && x.KS.Lazy.UserDel.Load()) }
func unlink(x *cmdtable.Ctx) { deleteKeys(x, true) }

// deleteKeys is DEL and UNLINK; lazy: the values count as freed lazily.
func deleteKeys(x *cmdtable.Ctx, lazy bool) {
	n := 0
	f := freeing{lazy: lazy}
	for _, k := range x.Args[1:] {
		if e := x.Shard(k).Take(k, x.Now); e != nil {
			f.add(e, len(k))
			x.Notify(notify.Generic, "del", k)
			n++
		}
	}
	f.done(x)
	if n == 0 {
		x.NoEffects()
	}
	x.W.Int(int64(n))
}

func exists(x *cmdtable.Ctx) {
	n := 0
	for _, k := range x.Args[1:] {
		if peekRead(x, k) != nil {
			n++
		}
	}
	x.W.Int(int64(n))
}

func touch(x *cmdtable.Ctx) {
	n := 0
	for _, k := range x.Args[1:] {
		if x.LookupRead(k) != nil {
			n++
		}
	}
	x.W.Int(int64(n))
}

func typeCmd(x *cmdtable.Ctx) {
	if e := peekRead(x, x.Args[1]); e != nil {
		x.W.Simple(e.Kind.String())
	} else {
		x.W.Simple("none")
	}
}

func rename(x *cmdtable.Ctx, nx bool) {
	src, dst := x.Args[1], x.Args[2]
	ss := x.Shard(src)
	e := ss.Lookup(src, x.Now)
	switch {
	case e == nil:
		x.Error(cmdtable.ErrNoSuchKey)
		return
	case bytes.Equal(src, dst):
		if nx {
			replyUnchanged(x, 0)
		} else {
			x.W.OK()
		}
		return
	}
	ds := x.Shard(dst)
	if ds.Lookup(dst, x.Now) != nil {
		if nx {
			replyUnchanged(x, 0)
			return
		}
		ds.Delete(dst, x.Now) // so that, as in Redis, dst is a new key
	}
	ss.Delete(src, x.Now)
	ds.Put(dst, e) // keeps e's expiry
	ds.Touch(dst)
	x.Notify(notify.Generic, "rename_from", src)
	x.Notify(notify.Generic, "rename_to", dst)
	if nx {
		x.W.Int(1)
	} else {
		x.W.OK()
	}
}

func copyCmd(x *cmdtable.Ctx) {
	src, dst := x.Args[1], x.Args[2]
	to, toID := x.DB, x.DBID
	replace := false
	for i := 3; i < len(x.Args); i++ {
		switch a := x.Args[i]; {
		case cmdtable.Is(a, "replace"):
			replace = true
		case cmdtable.Is(a, "db") && i+1 < len(x.Args):
			n, ok := dbArg(x, x.Args[i+1])
			if !ok {
				return
			}
			to, toID = x.KS.DBs[n], n
			i++
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	if toID == x.DBID && bytes.Equal(src, dst) {
		x.Error(cmdtable.ErrSameObject)
		return
	}
	e := x.LookupRead(src)
	if e == nil {
		replyUnchanged(x, 0)
		return
	}
	ds := to.ShardFor(dst)
	exists := ds.Lookup(dst, x.Now) != nil
	if exists && !replace {
		replyUnchanged(x, 0)
		return
	}
	c, ok := e.Clone()
	if !ok {
		x.Error("ERR unknown type object")
		return
	}
	if exists {
		ds.Delete(dst, x.Now) // so that, as in Redis, dst is a new key
	}
	ds.Put(dst, c)
	ds.Touch(dst)
	to.Notify(notify.Generic, "copy_to", dst)
	x.W.Int(1)
}

// copyOtherDB is the database COPY writes besides the selected one: its last
// DB option, when every option is valid (else COPY only answers an error).
func copyOtherDB(args [][]byte, db int) int {
	other := db
	for i := 3; i < len(args); i++ {
		switch {
		case cmdtable.Is(args[i], "replace"):
		case cmdtable.Is(args[i], "db") && i+1 < len(args):
			n, ok := cmdtable.ParseInt(args[i+1])
			if !ok || n < 0 || n > math.MaxInt32 {
				return -1
			}
			other = int(n)
			i++
		default:
			return -1
		}
	}
	return otherDB(other, db)
}

// moveOtherDB is the database MOVE writes besides the selected one.
func moveOtherDB(args [][]byte, db int) int {
	n, ok := cmdtable.ParseInt(args[2])
	if !ok || n < 0 || n > math.MaxInt32 {
		return -1
	}
	return otherDB(int(n), db)
}

func otherDB(n, db int) int {
	if n == db {
		return -1
	}
	return n
}

func move(x *cmdtable.Ctx) {
	n, ok := dbArg(x, x.Args[2])
	if !ok {
		return
	}
	if n == x.DBID {
		x.Error(cmdtable.ErrSameObject)
		return
	}
	key := x.Args[1]
	ss := x.Shard(key)
	e := ss.Lookup(key, x.Now)
	if e == nil {
		replyUnchanged(x, 0)
		return
	}
	ds := x.KS.DBs[n].ShardFor(key)
	if ds.Lookup(key, x.Now) != nil {
		replyUnchanged(x, 0)
		return
	}
	ss.Delete(key, x.Now)
	ds.Put(key, e)
	ds.Touch(key)
	x.Notify(notify.Generic, "move_from", key)
	x.KS.DBs[n].Notify(notify.Generic, "move_to", key)
	x.W.Int(1)
}

func swapdb(x *cmdtable.Ctx) {
	a, ok := intArg(x, x.Args[1], "ERR invalid first DB index")
	if !ok {
		return
	}
	b, ok := intArg(x, x.Args[2], "ERR invalid second DB index")
	if !ok {
		return
	}
	if a < 0 || a >= len(x.KS.DBs) || b < 0 || b >= len(x.KS.DBs) {
		x.Error(cmdtable.ErrDBIndex)
		return
	}
	if a != b {
		keyspace.Swap(x.KS.DBs[a], x.KS.DBs[b], x.Now)
	}
	x.W.OK()
}

// flushArgs parses FLUSHDB/FLUSHALL's optional ASYNC or SYNC, and reports
// whether the flush is asynchronous (ASYNC, or neither with
// lazyfree-lazy-user-flush).
func flushArgs(x *cmdtable.Ctx) (async, ok bool) {
	switch {
	case len(x.Args) == 1:
		return x.KS.Lazy != nil && x.KS.Lazy.UserFlush.Load(), true
	case len(x.Args) == 2 && cmdtable.Is(x.Args[1], "async"):
		return true, true
	case len(x.Args) == 2 && cmdtable.Is(x.Args[1], "sync"):
		return false, true
	}
	x.Error(cmdtable.ErrSyntax)
	return false, false
}

// flushed hands the keys a flush dropped (keys of them, of about bytes) to
// the lazy free and replies, as Redis 8 does: ASYNC counts them freed
// lazily and replies at once; SYNC from a client that may block (not in
// MULTI, a script or a master's stream) counts them too, and replies once
// they are reclaimed; otherwise they are freed as the command runs,
// uncounted.
func flushed(x *cmdtable.Ctx, keys int, bytes int64, async bool) {
	n := int64(keys)
	switch {
	case async:
		x.KS.Lazy.Drop(n, bytes)
	case x.Blocker != nil:
		done := x.KS.Lazy.DropAndWait(n, bytes)
		x.After = func() {
			<-done
			x.W.OK()
		}
		return
	default:
		x.KS.Lazy.Drop(0, bytes)
	}
	x.W.OK()
}

func flushdb(x *cmdtable.Ctx) {
	if async, ok := flushArgs(x); ok {
		keys, bytes := x.DB.Size(), DBBytes(x.DB, x.Now)
		x.DB.Flush()
		flushed(x, keys, bytes, async)
	}
}

func flushall(x *cmdtable.Ctx) {
	if async, ok := flushArgs(x); ok {
		keys, bytes := 0, int64(0)
		for _, db := range x.KS.DBs {
			keys += db.Size()
			bytes += DBBytes(db, x.Now)
			db.Flush()
		}
		flushed(x, keys, bytes, async)
	}
}

func keys(x *cmdtable.Ctx) {
	pat := x.Args[1]
	all := len(pat) == 1 && pat[0] == '*'
	var out []string
	for i := range keyspace.ShardCount {
		x.DB.Shard(i).Range(x.Now, func(k string, _ *keyspace.Entry) bool {
			if all || glob.Match(pat, []byte(k), false) {
				out = append(out, k)
			}
			return true
		})
	}
	x.W.Array(len(out))
	for _, k := range out {
		x.W.BulkString(k)
	}
}

func randomkey(x *cmdtable.Ctx) {
	if k, ok := x.DB.RandomKey(x.Now); ok {
		x.W.BulkString(k)
	} else {
		x.W.Null()
	}
}

// SCAN's cursor is a position within a shard (see package scan) above the
// shard index: pos<<shardBits | shard. Shards are visited in index order and
// each in position order, so a key present from the first call to the last
// is returned exactly once; the final cursor is 0.
//
// A step re-reads its whole shard, so to keep a full pass near linear a step
// takes at least 1/maxShardSteps of its shard, even if COUNT asks for less:
// COUNT stays exact up to about ShardCount*maxShardSteps*COUNT keys (160,000
// at the default 10), and is a lower bound beyond.
const (
	shardBits     = 64 - scan.Bits
	maxShardSteps = 16
)

// scanBufs recycles SCAN's per-call buffer of a shard's candidates: allocating
// it anew each call makes a scan of a big keyspace mostly garbage collection.
var scanBufs = sync.Pool{New: func() any { return new([]scan.Item[*keyspace.Entry]) }}

// The cursor layout needs exactly 1<<shardBits shards.
var (
	_ [keyspace.ShardCount - 1<<shardBits]struct{}
	_ [1<<shardBits - keyspace.ShardCount]struct{}
)

func scanCmd(x *cmdtable.Ctx) {
	cursor, ok := scan.ParseCursor(x.Args[1])
	if !ok {
		x.Error(cmdtable.ErrInvalidCursor)
		return
	}
	o, ok := parseScanOptions(x, x.Args[2:], scanKeys)
	if !ok {
		return
	}
	pat, typ := o.pattern, o.typ
	shard, pos := int(cursor&(1<<shardBits-1)), cursor>>shardBits
	buf := scanBufs.Get().(*[]scan.Item[*keyspace.Entry])
	items := (*buf)[:0]
	var (
		out  []string
		next uint64
		used int // high-water mark of items, cleared before the buffer goes back
	)
	n := o.count
	for examined := 0; ; {
		s := x.DB.Shard(shard)
		want := max(n-examined, s.Len()/maxShardSteps)
		var after uint64
		var done bool
		items, after, done = scan.Step(items[:0], pos, want, s.All())
		used = max(used, len(items))
		examined += len(items)
		out = scanFilter(x, s, items, pat, typ, out)
		if !done {
			next = after<<shardBits | uint64(shard)
			break
		}
		if shard++; shard == keyspace.ShardCount {
			break // next = 0: the pass is complete
		}
		pos = 0
		if examined >= n {
			next = uint64(shard)
			break
		}
	}
	clear(items[:used]) // no pointers into the keyspace stay reachable from the pool
	*buf = items[:0]
	scanBufs.Put(buf)
	x.W.Array(2)
	x.W.BulkString(strconv.FormatUint(next, 10))
	x.W.Array(len(out))
	for _, k := range out {
		x.W.BulkString(k)
	}
}

// scanFilter appends to out the keys of items that pass MATCH and TYPE, in
// Redis's order: the pattern first; then the type, looked up as a read (a hit
// or a miss, deleting an expired key); then expiry, deleting expired keys.
func scanFilter(x *cmdtable.Ctx, s *keyspace.Shard, items []scan.Item[*keyspace.Entry], pat, typ []byte, out []string) []string {
	for _, it := range items {
		if pat != nil && !glob.Match(pat, []byte(it.Key), false) {
			continue
		}
		if it.Val.Expired(x.Now) {
			if typ != nil {
				x.Misses++
			}
			s.Peek([]byte(it.Key), x.Now) // deletes it
			continue
		}
		if typ != nil {
			x.Hits++
			if !strings.EqualFold(it.Val.Kind.String(), string(typ)) {
				continue
			}
		}
		out = append(out, it.Key)
	}
	return out
}

// objectEntry looks up OBJECT's key, answering null when it is missing.
func objectEntry(x *cmdtable.Ctx) *keyspace.Entry {
	e := peekQuiet(x, x.Args[2])
	if e == nil {
		x.W.Null()
	}
	return e
}

func objectEncoding(x *cmdtable.Ctx) {
	if e := objectEntry(x); e != nil {
		x.W.BulkString(e.Encoding())
	}
}

// Redis shares the objects of small integers, whose refcount is INT_MAX.
func objectRefcount(x *cmdtable.Ctx) {
	if e := objectEntry(x); e != nil {
		if e.SharedInt() {
			x.W.Int(math.MaxInt32)
		} else {
			x.W.Int(1)
		}
	}
}

func objectIdletime(x *cmdtable.Ctx) {
	if e := objectEntry(x); e != nil {
		if keyspace.LFU() {
			x.Error(errLFU)
			return
		}
		// A shared integer's idle time in Redis is that of the last access
		// to any key holding it; HotKV reports the key's own.
		x.W.Int(int64(e.IdleSeconds(keyspace.Clock.Load())))
	}
}

// objectFreq is the key's logarithmic access counter, kept only under an LFU
// maxmemory policy.
func objectFreq(x *cmdtable.Ctx) {
	if e := objectEntry(x); e != nil {
		if !keyspace.LFU() {
			x.Error(errNoLFU)
			return
		}
		x.W.Int(int64(e.Freq()))
	}
}

var objectHelp = []string{
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
}

// expireGeneric is EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT: base is 0 for an
// absolute time, now for a relative one; sec when the time is in seconds.
func expireGeneric(x *cmdtable.Ctx, name string, base int64, sec bool) {
	var nx, xx, gt, lt bool
	for _, a := range x.Args[3:] { // options are checked before the time, as Redis does
		switch {
		case cmdtable.Is(a, "nx"):
			nx = true
		case cmdtable.Is(a, "xx"):
			xx = true
		case cmdtable.Is(a, "gt"):
			gt = true
		case cmdtable.Is(a, "lt"):
			lt = true
		default:
			x.Error("ERR Unsupported option " + string(a))
			return
		}
	}
	if nx && (xx || gt || lt) {
		x.Error("ERR NX and XX, GT or LT options at the same time are not compatible")
		return
	}
	if gt && lt {
		x.Error("ERR GT and LT options at the same time are not compatible")
		return
	}
	when, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if sec {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			x.Error(errInvalidExpire(name))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		x.Error(errInvalidExpire(name))
		return
	}
	when += base
	key := x.Args[1]
	sh := x.Shard(key)
	e := sh.Lookup(key, x.Now)
	if e == nil {
		replyUnchanged(x, 0)
		return
	}
	cur := e.Expire // 0: no expiry, which GT and LT treat as infinite
	if nx && cur != 0 || xx && cur == 0 || gt && (cur == 0 || when <= cur) || lt && cur != 0 && when >= cur {
		replyUnchanged(x, 0)
		return
	}
	if when <= x.Now {
		sh.Delete(key, x.Now)
		x.Notify(notify.Generic, "del", key)
	} else {
		sh.SetExpire(key, e, when)
		sh.Touch(key)
		x.Notify(notify.Generic, "expire", key)
	}
	x.W.Int(1)
}

// ttlGeneric is TTL, PTTL, EXPIRETIME and PEXPIRETIME.
func ttlGeneric(x *cmdtable.Ctx, ms, abs bool) {
	e := peekRead(x, x.Args[1])
	switch {
	case e == nil:
		x.W.Int(-2)
	case e.Expire == 0:
		x.W.Int(-1)
	default:
		t := e.Expire
		if !abs {
			t = max(t-x.Now, 0)
		}
		if !ms {
			t = t/1000 + (t%1000+500)/1000 // rounded, as Redis's (t+500)/1000 without overflow
		}
		x.W.Int(t)
	}
}

func persist(x *cmdtable.Ctx) {
	key := x.Args[1]
	sh := x.Shard(key)
	e := sh.Lookup(key, x.Now)
	if e == nil || e.Expire == 0 {
		replyUnchanged(x, 0)
		return
	}
	sh.SetExpire(key, e, 0)
	sh.Touch(key)
	x.Notify(notify.Generic, "persist", key)
	x.W.Int(1)
}

func init() {
	const (
		g = "generic"
		w = cmdtable.Write | cmdtable.SelfTouch
		r = cmdtable.ReadOnly
		f = cmdtable.Fast
	)
	key := func(c *cmdtable.Cmd) *cmdtable.Cmd { c.First, c.Last, c.Step = 1, 1, 1; return c }
	keys2 := func(c *cmdtable.Cmd) *cmdtable.Cmd { c.First, c.Last, c.Step = 1, 2, 1; return c }
	many := func(c *cmdtable.Cmd) *cmdtable.Cmd { c.First, c.Last, c.Step = 1, -1, 1; return c }
	expire := func(name, since, summary, unit string, base bool, sec bool) *cmdtable.Cmd {
		return key(&cmdtable.Cmd{Name: name, Arity: -3, Flags: w | f, Effects: cmdtable.AsSent, Group: g, Since: since, Summary: summary,
			Args:     "key " + unit + " [NX | XX | GT | LT]",
			ReplForm: expireForm(expireUnit(sec), base),
			Run: func(x *cmdtable.Ctx) {
				var b int64
				if base {
					b = x.Now
				}
				expireGeneric(x, name, b, sec)
			}})
	}
	ttl := func(name, since, summary string, ms, abs bool) *cmdtable.Cmd {
		return key(&cmdtable.Cmd{Name: name, Arity: 2, Flags: r | f, Group: g, Since: since, Summary: summary, Args: "key",
			Run: func(x *cmdtable.Ctx) { ttlGeneric(x, ms, abs) }})
	}
	objectSub := func(name, since, summary string, run func(*cmdtable.Ctx)) *cmdtable.Cmd {
		return &cmdtable.Cmd{Name: "object|" + name, Arity: 3, Flags: r, First: 2, Last: 2, Step: 1, Run: run, Group: g,
			Since: since, Summary: summary, Args: "key"}
	}
	cmdtable.Register(
		many(&cmdtable.Cmd{Name: "del", Arity: -2, Flags: w, Effects: cmdtable.AsSent, Run: del, Group: g, Since: "1.0.0",
			Summary: "Deletes one or more keys.", Args: "key [key ...]"}),
		many(&cmdtable.Cmd{Name: "unlink", Arity: -2, Flags: w | f, Effects: cmdtable.AsSent, Run: unlink, Group: g, Since: "4.0.0",
			Summary: "Asynchronously deletes one or more keys.", Args: "key [key ...]"}),
		many(&cmdtable.Cmd{Name: "exists", Arity: -2, Flags: r | f, Run: exists, Group: g, Since: "1.0.0",
			Summary: "Determines whether one or more keys exist.", Args: "key [key ...]"}),
		many(&cmdtable.Cmd{Name: "touch", Arity: -2, Flags: r | f, Run: touch, Group: g, Since: "3.2.1",
			Summary: "Returns the number of existing keys out of those specified after updating the time they were last accessed.",
			Args:    "key [key ...]"}),
		key(&cmdtable.Cmd{Name: "type", Arity: 2, Flags: r | f, Run: typeCmd, Group: g, Since: "1.0.0",
			Summary: "Determines the type of value stored at a key.", Args: "key"}),
		keys2(&cmdtable.Cmd{Name: "rename", Arity: 3, Flags: w, Effects: cmdtable.AsSent, Run: func(x *cmdtable.Ctx) { rename(x, false) }, Group: g, Since: "1.0.0",
			Summary: "Renames a key and overwrites the destination.", Args: "key newkey"}),
		keys2(&cmdtable.Cmd{Name: "renamenx", Arity: 3, Flags: w | f, Effects: cmdtable.AsSent, Run: func(x *cmdtable.Ctx) { rename(x, true) }, Group: g, Since: "1.0.0",
			Summary: "Renames a key only when the target key name doesn't exist.", Args: "key newkey"}),
		keys2(&cmdtable.Cmd{Name: "copy", Arity: -3, Flags: w | cmdtable.DenyOOM, Effects: cmdtable.AsSent, OtherDB: copyOtherDB, Run: copyCmd, Group: g, Since: "6.2.0",
			Summary: "Copies the value of a key to a new key.", Args: "source destination [DB destination-db] [REPLACE]"}),
		key(&cmdtable.Cmd{Name: "move", Arity: 3, Flags: w | f, Effects: cmdtable.AsSent, OtherDB: moveOtherDB, Run: move, Group: g, Since: "1.0.0",
			Summary: "Moves a key to another database.", Args: "key db"}),
		&cmdtable.Cmd{Name: "keys", Arity: 2, Flags: r | cmdtable.LockDB, Run: keys, Group: g, Since: "1.0.0",
			Summary: "Returns all key names that match a pattern.", Args: "pattern", ACL: []string{"dangerous"}},
		&cmdtable.Cmd{Name: "scan", Arity: -2, Flags: r | cmdtable.LockDB, Run: scanCmd, Group: g, Since: "2.8.0",
			Summary: "Iterates over the key names in the database.", Args: "cursor [MATCH pattern] [COUNT count] [TYPE type]"},
		&cmdtable.Cmd{Name: "randomkey", Arity: 1, Flags: r | cmdtable.LockDB, Run: randomkey, Group: g, Since: "1.0.0",
			Summary: "Returns a random key name from the database."},
		&cmdtable.Cmd{Name: "dbsize", Arity: 1, Flags: r | f | cmdtable.LockDB, Group: "server", Since: "1.0.0", ACL: []string{"keyspace"},
			Summary: "Returns the number of keys in the database.", Run: func(x *cmdtable.Ctx) { x.W.Int(int64(x.DB.Size())) }},
		&cmdtable.Cmd{Name: "flushdb", Arity: -1, Flags: w | cmdtable.LockDB, Effects: cmdtable.AsSent, Run: flushdb, Group: "server", Since: "1.0.0",
			Summary: "Removes all keys from the current database.", Args: "[ASYNC | SYNC]", ACL: []string{"keyspace", "dangerous"}},
		&cmdtable.Cmd{Name: "flushall", Arity: -1, Flags: w | cmdtable.LockAll, Effects: cmdtable.AsSent, Run: flushall, Group: "server", Since: "1.0.0",
			Summary: "Removes all keys from all databases.", Args: "[ASYNC | SYNC]", ACL: []string{"keyspace", "dangerous"}},
		&cmdtable.Cmd{Name: "swapdb", Arity: 3, Flags: w | f | cmdtable.LockAll, Effects: cmdtable.AsSent, Run: swapdb, Group: "server", Since: "4.0.0",
			Summary: "Swaps two Redis databases.", Args: "index1 index2", ACL: []string{"keyspace", "dangerous"}},
		&cmdtable.Cmd{Name: "object", Arity: -2, Group: g, Since: "2.2.3", Summary: "A container for object introspection commands.",
			Subs: []*cmdtable.Cmd{
				objectSub("encoding", "2.2.3", "Returns the internal encoding of a Redis object.", objectEncoding),
				objectSub("freq", "4.0.0", "Returns the logarithmic access frequency counter of a Redis object.", objectFreq),
				objectSub("idletime", "2.2.3", "Returns the time since the last access to a Redis object.", objectIdletime),
				objectSub("refcount", "2.2.3", "Returns the reference count of a value of a key.", objectRefcount),
				cmdtable.HelpCmd("object", g, "6.2.0", objectHelp),
			}},
		expire("expire", "1.0.0", "Sets the expiration time of a key in seconds.", "seconds", true, true),
		expire("pexpire", "2.6.0", "Sets the expiration time of a key in milliseconds.", "milliseconds", true, false),
		expire("expireat", "1.2.0", "Sets the expiration time of a key to a Unix timestamp.", "unix-time-seconds", false, true),
		expire("pexpireat", "2.6.0", "Sets the expiration time of a key to a Unix milliseconds timestamp.", "unix-time-milliseconds", false, false),
		ttl("ttl", "1.0.0", "Returns the expiration time in seconds of a key.", false, false),
		ttl("pttl", "2.6.0", "Returns the expiration time in milliseconds of a key.", true, false),
		ttl("expiretime", "7.0.0", "Returns the expiration time of a key as a Unix timestamp.", false, true),
		ttl("pexpiretime", "7.0.0", "Returns the expiration time of a key as a Unix milliseconds timestamp.", true, true),
		key(&cmdtable.Cmd{Name: "persist", Arity: 2, Flags: w | f, Effects: cmdtable.AsSent, Run: persist, Group: g, Since: "2.2.0",
			Summary: "Removes the expiration time of a key.", Args: "key"}),
	)
}
