package commands

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/ldouble"
	"github.com/hotkv/hotkv/internal/scan"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/value/hash"
)

// Hash commands, field expiry (Redis 7.4) and HGETDEL/HGETEX/HSETEX (8.0).
//
// Every command first reclaims the hash's fields whose time ran out (and the
// key with them if none is left), so the rest of a handler only ever sees
// live fields. They are flagged SelfTouch: like Redis they signal a key to
// WATCH only when they changed it (HSETNX of a present field, HDEL or
// HGETDEL of absent ones and errors change nothing); HSET always does.

const (
	errHashNotInt    = "ERR hash value is not an integer"
	errHashNotFloat  = "ERR hash value is not a float"
	errNaNOrInf      = "ERR value is NaN or Infinity"
	errFieldsMissing = "ERR Mandatory argument FIELDS is missing or not at the right position"
	errFieldsCount   = "ERR The `numfields` parameter must match the number of arguments"
	errNumFields     = "ERR Number of fields must be a positive integer"
	errNumFieldsExp  = "ERR Parameter `numFields` should be greater than 0"
	errExpireNeg     = "ERR invalid expire time, must be >= 0"
)

// maxFieldTime is the latest field expiry Redis accepts (HFE_MAX_ABS_TIME_MSEC,
// 2^46-1 ms, in the year 4199).
const maxFieldTime = 1<<46 - 1

// maxRandomReply bounds HRANDFIELD's negative count: Redis streams such a
// reply, HotKV builds it in memory, so an absurd count is refused instead of
// exhausting memory.
const maxRandomReply = 1 << 24

// rnd draws from the runtime's per-thread generator, so concurrent commands
// share it without a lock.
var rnd = rand.New(runtimeSource{})

type runtimeSource struct{}

func (runtimeSource) Uint64() uint64 { return rand.Uint64() }

// hashOf returns key's hash with its expired fields reclaimed; h is nil when
// the key does not exist (or just lost its last field). ok is false when the
// key holds another type: WRONGTYPE has been answered.
func hashOf(x *cmdtable.Ctx, key []byte, read bool) (h *hash.Hash, e *keyspace.Entry, ok bool) {
	if e, ok = typedEntry(x, key, keyspace.KindHash, read); e == nil {
		return nil, nil, ok
	}
	h = e.Obj.(*hash.Hash)
	if h.Volatile() {
		if n := h.Reclaim(x.Now, -1); n > 0 {
			x.Shard(key).CountExpiredSubkeys(n)
			x.Notify(notify.Hash, "hexpired", key)
			if h.Len() == 0 {
				x.Shard(key).Delete(key, x.Now)
				x.Notify(notify.Generic, "del", key)
				return nil, nil, true
			}
			x.Shard(key).Touch(key)
		}
	}
	return h, e, true
}

// createHash stores a new empty hash under key. The caller adds at least one
// field (or deletes the key again): Redis never keeps an empty hash.
func createHash(x *cmdtable.Ctx, key []byte) (*hash.Hash, *keyspace.Entry) {
	h := hash.New()
	e := &keyspace.Entry{Kind: keyspace.KindHash, Obj: h}
	x.Shard(key).Put(key, e)
	return h, e
}

// settle deletes key when its hash lost every field, or registers it for
// active field expiry when a field just got an expiry time. Call it after
// notifying the command's events: the del event follows them.
func settle(x *cmdtable.Ctx, key []byte, h *hash.Hash, e *keyspace.Entry, gotExpiry bool) {
	switch {
	case h.Len() == 0:
		x.Shard(key).Delete(key, x.Now)
		x.Notify(notify.Generic, "del", key)
	case gotExpiry:
		x.Shard(key).TrackSubExpire(key, e)
	}
}

func hsetGeneric(x *cmdtable.Ctx, name string) {
	if len(x.Args)%2 == 1 {
		x.Error(cmdtable.WrongArgs(name))
		return
	}
	key := x.Args[1]
	h, _, ok := hashOf(x, key, false)
	if !ok {
		return
	}
	if h == nil {
		h, _ = createHash(x, key)
	}
	h.Reserve((len(x.Args) - 2) / 2) // more pairs than hash-max-listpack-entries: a hashtable, as in Redis
	created := 0
	for i := 2; i < len(x.Args); i += 2 {
		if h.Set(x.Args[i], x.Args[i+1]) {
			created++
		}
	}
	x.Notify(notify.Hash, "hset", key)
	x.Touch(key)
	if name == "hmset" {
		x.W.OK()
	} else {
		x.W.Int(int64(created))
	}
}

func hset(x *cmdtable.Ctx)  { hsetGeneric(x, "hset") }
func hmset(x *cmdtable.Ctx) { hsetGeneric(x, "hmset") }

func hsetnx(x *cmdtable.Ctx) {
	key, f := x.Args[1], x.Args[2]
	h, _, ok := hashOf(x, key, false)
	if !ok {
		return
	}
	if h != nil && h.Exists(f) {
		replyUnchanged(x, 0)
		return
	}
	if h == nil {
		h, _ = createHash(x, key)
	}
	h.Set(f, x.Args[3])
	x.Notify(notify.Hash, "hset", key)
	x.Touch(key)
	x.W.Int(1)
}

func hget(x *cmdtable.Ctx) {
	h, _, ok := hashOf(x, x.Args[1], true)
	if !ok {
		return
	}
	if h == nil {
		x.W.Null()
		return
	}
	if v, found := h.Get(x.Args[2]); found {
		x.W.Bulk(v)
	} else {
		x.W.Null()
	}
}

func hmget(x *cmdtable.Ctx) {
	h, _, ok := hashOf(x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, f := range x.Args[2:] {
		if h == nil {
			x.W.Null()
		} else if v, found := h.Get(f); found {
			x.W.Bulk(v)
		} else {
			x.W.Null()
		}
	}
}

func hdel(x *cmdtable.Ctx) {
	key := x.Args[1]
	h, e, ok := hashOf(x, key, false)
	if !ok {
		return
	}
	if h == nil {
		replyUnchanged(x, 0)
		return
	}
	n := 0
	for _, f := range x.Args[2:] {
		if h.Delete(f) {
			n++
		}
	}
	if n > 0 {
		x.Notify(notify.Hash, "hdel", key)
		x.Touch(key)
	} else {
		x.NoEffects()
	}
	settle(x, key, h, e, false)
	x.W.Int(int64(n))
}

func hlen(x *cmdtable.Ctx) {
	h, _, ok := hashOf(x, x.Args[1], true)
	if !ok {
		return
	}
	if h == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(h.Len()))
}

func hstrlen(x *cmdtable.Ctx) {
	h, _, ok := hashOf(x, x.Args[1], true)
	if !ok {
		return
	}
	var v []byte
	if h != nil {
		v, _ = h.Get(x.Args[2])
	}
	x.W.Int(int64(len(v)))
}

func hexists(x *cmdtable.Ctx) {
	h, _, ok := hashOf(x, x.Args[1], true)
	if !ok {
		return
	}
	if h != nil && h.Exists(x.Args[2]) {
		x.W.Int(1)
	} else {
		x.W.Int(0)
	}
}

func hincrby(x *cmdtable.Ctx) {
	incr, ok := cmdtable.ParseInt(x.Args[3])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	key, f := x.Args[1], x.Args[2]
	h, _, ok := hashOf(x, key, false)
	if !ok {
		return
	}
	var old int64
	if h != nil {
		if v, found := h.Get(f); found {
			if old, ok = cmdtable.ParseInt(v); !ok {
				x.Error(errHashNotInt)
				return
			}
		}
	}
	if incr < 0 && old < 0 && incr < math.MinInt64-old || incr > 0 && old > 0 && incr > math.MaxInt64-old {
		x.Error(cmdtable.ErrOverflow)
		return
	}
	if h == nil {
		h, _ = createHash(x, key)
	}
	var buf [20]byte
	h.SetKeepTTL(f, strconv.AppendInt(buf[:0], old+incr, 10))
	x.Notify(notify.Hash, "hincrby", key)
	x.Touch(key)
	x.W.Int(old + incr)
}

func hincrbyfloat(x *cmdtable.Ctx) {
	incr, ok := ldouble.Parse(x.Args[3])
	if !ok {
		x.Error(cmdtable.ErrNotFloat)
		return
	}
	if incr.IsInf() {
		x.Error(errNaNOrInf)
		return
	}
	key, f := x.Args[1], x.Args[2]
	h, _, ok := hashOf(x, key, false)
	if !ok {
		return
	}
	sum := incr // 0 + incr when the field is missing
	if h != nil {
		if v, found := h.Get(f); found {
			cur, ok := ldouble.Parse(v)
			if !ok {
				x.Error(errHashNotFloat)
				return
			}
			if sum, ok = ldouble.Add(cur, incr); !ok {
				x.Error(errIncrNaNOrInf)
				return
			}
		}
	}
	out := ldouble.Append(nil, sum)
	if h == nil {
		h, _ = createHash(x, key)
	}
	h.SetKeepTTL(f, out)
	x.Notify(notify.Hash, "hincrbyfloat", key)
	x.Touch(key)
	if x.Logged { // as Redis: the value set, not the sum to redo
		x.Propagate([]byte("HSET"), bytes.Clone(key), bytes.Clone(f), out)
	}
	x.W.Bulk(out)
}

// hgetallGeneric answers HGETALL (a map), HKEYS and HVALS (arrays).
func hgetallGeneric(x *cmdtable.Ctx, keys, vals bool) {
	h, _, ok := hashOf(x, x.Args[1], true)
	if !ok {
		return
	}
	n := 0
	if h != nil {
		n = h.Len()
	}
	if keys && vals {
		x.W.Map(n)
	} else {
		x.W.Array(n)
	}
	if h == nil {
		return
	}
	h.Range(func(f, v []byte) bool {
		if keys {
			x.W.Bulk(f)
		}
		if vals {
			x.W.Bulk(v)
		}
		return true
	})
}

func hgetall(x *cmdtable.Ctx) { hgetallGeneric(x, true, true) }
func hkeys(x *cmdtable.Ctx)   { hgetallGeneric(x, true, false) }
func hvals(x *cmdtable.Ctx)   { hgetallGeneric(x, false, true) }

func hrandfield(x *cmdtable.Ctx) {
	args := x.Args
	if len(args) == 2 {
		h, _, ok := hashOf(x, args[1], true)
		if !ok {
			return
		}
		if h == nil {
			x.W.Null()
			return
		}
		h.Random(rnd, 1, true, func(f, _ []byte) { x.W.Bulk(f) })
		return
	}
	l, ok := randomCount(x, args[2])
	if !ok {
		return
	}
	withValues := len(args) == 4
	if len(args) > 4 || withValues && !cmdtable.Is(args[3], "withvalues") {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	if withValues && (l < -math.MaxInt64/2 || l > math.MaxInt64/2) {
		x.Error(errOutOfRange)
		return
	}
	h, _, ok := hashOf(x, args[1], true)
	if !ok {
		return
	}
	count, repeat := int(l), false
	if l < 0 {
		count, repeat = int(-l), true
	}
	if h == nil || count == 0 {
		x.W.Array(0)
		return
	}
	if repeat && count > maxRandomReply {
		x.Error(errOutOfRange)
		return
	}
	n := count
	if !repeat {
		n = min(n, h.Len())
	}
	pairs := withValues && x.W.Proto == 3 // RESP3 nests [field, value]
	if withValues && !pairs {
		x.W.Array(2 * n)
	} else {
		x.W.Array(n)
	}
	h.Random(rnd, count, repeat, func(f, v []byte) {
		if pairs {
			x.W.Array(2)
		}
		x.W.Bulk(f)
		if withValues {
			x.W.Bulk(v)
		}
	})
}

func hscan(x *cmdtable.Ctx) {
	args := x.Args
	cursor, ok := scan.ParseCursor(args[2])
	if !ok {
		x.Error(cmdtable.ErrInvalidCursor)
		return
	}
	h, _, ok := hashOf(x, args[1], true)
	if !ok {
		return
	}
	if h == nil {
		emptyScan(x)
		return
	}
	o, ok := parseScanOptions(x, args[3:], scanHash)
	if !ok {
		return
	}
	// The views stay valid: nothing modifies the hash before the reply.
	var items [][]byte
	next := h.Scan(cursor, o.count, func(f, v []byte) {
		if o.pattern != nil && !glob.Match(o.pattern, f, false) {
			return
		}
		items = append(items, f)
		if !o.noValues {
			items = append(items, v)
		}
	})
	x.W.Array(2)
	var buf [20]byte
	x.W.Bulk(strconv.AppendUint(buf[:0], next, 10))
	x.W.Array(len(items))
	for _, it := range items {
		x.W.Bulk(it)
	}
}

// fieldsArg parses "FIELDS numfields field..." at args[pos], which must run
// to the end of the arguments; countErr is the command's message for a bad
// count.
func fieldsArg(x *cmdtable.Ctx, pos int, countErr string) ([][]byte, bool) {
	args := x.Args
	if !cmdtable.Is(args[pos], "fields") {
		x.Error(errFieldsMissing)
		return nil, false
	}
	n, ok := cmdtable.ParseInt(args[pos+1])
	if !ok || n < 1 {
		x.Error(countErr)
		return nil, false
	}
	if n != int64(len(args)-pos-2) {
		x.Error(errFieldsCount)
		return nil, false
	}
	return args[pos+2:], true
}

// fieldExpireArg parses a field expiry argument: seconds or milliseconds,
// relative to base (now) or absolute (base 0). It returns unix ms.
func fieldExpireArg(x *cmdtable.Ctx, arg []byte, seconds bool, base int64) (int64, bool) {
	v, ok := cmdtable.ParseInt(arg)
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return 0, false
	}
	if v < 0 {
		x.Error(errExpireNeg)
		return 0, false
	}
	invalid := errInvalidExpire(strings.ToLower(string(x.Args[0])))
	if seconds {
		if v > maxFieldTime/1000 {
			x.Error(invalid)
			return 0, false
		}
		v *= 1000
	}
	if v > maxFieldTime-base {
		x.Error(invalid)
		return 0, false
	}
	return v + base, true
}

// Per-field replies of the field expiry commands.
const (
	fieldMissing = -2
	fieldNoTTL   = -1 // HTTL family and HPERSIST
	condNotMet   = 0  // HEXPIRE family
	expirySet    = 1
	fieldDeleted = 2 // HEXPIRE with a time already past
)

// expireField gives field the expiry at (unix ms), or deletes it when at is
// not in the future, and returns HEXPIRE's reply code (the hash is
// x.Args[1]'s, as in every command calling this); cond is "", "nx",
// "xx", "gt" or "lt".
func expireField(x *cmdtable.Ctx, h *hash.Hash, f []byte, at int64, cond string) int64 {
	if !h.Exists(f) {
		return fieldMissing
	}
	prev := h.Expiry(f)
	if prev == 0 {
		if cond == "xx" || cond == "gt" { // no expiry counts as infinite
			return condNotMet
		}
	} else if cond == "nx" || cond == "gt" && prev >= at || cond == "lt" && prev <= at {
		return condNotMet
	}
	if at <= x.Now {
		h.Delete(f)
		x.Shard(x.Args[1]).CountExpiredSubkeys(1)
		return fieldDeleted
	}
	h.SetExpiry(f, at)
	return expirySet
}

// hexpireGeneric is HEXPIRE, HPEXPIRE, HEXPIREAT and HPEXPIREAT.
func hexpireGeneric(x *cmdtable.Ctx, seconds, relative bool) {
	key := x.Args[1]
	h, e, ok := hashOf(x, key, false)
	if !ok {
		return
	}
	var base int64
	if relative {
		base = x.Now
	}
	at, ok := fieldExpireArg(x, x.Args[2], seconds, base)
	if !ok {
		return
	}
	pos, cond := 3, ""
	for _, c := range []string{"nx", "xx", "gt", "lt"} {
		if cmdtable.Is(x.Args[3], c) {
			pos, cond = 4, c
			break
		}
	}
	fields, ok := fieldsArg(x, pos, errNumFieldsExp)
	if !ok {
		return
	}
	x.W.Array(len(fields))
	if h == nil {
		for range fields {
			x.W.Int(fieldMissing)
		}
		return
	}
	h.MarkExpiry()
	set, deleted := false, false
	for _, f := range fields {
		r := expireField(x, h, f, at, cond)
		set = set || r == expirySet
		deleted = deleted || r == fieldDeleted
		x.W.Int(r)
	}
	notifyFieldExpiry(x, key, set, deleted)
	settle(x, key, h, e, set)
}

// notifyFieldExpiry publishes what setting field expiry times did: hexpire
// for fields given a time, hdel for fields deleted by a time in the past;
// either touches the key.
func notifyFieldExpiry(x *cmdtable.Ctx, key []byte, set, deleted bool) {
	if set {
		x.Notify(notify.Hash, "hexpire", key)
	}
	if deleted {
		x.Notify(notify.Hash, "hdel", key)
	}
	if set || deleted {
		x.Touch(key)
	}
}

func hexpire(x *cmdtable.Ctx)    { hexpireGeneric(x, true, true) }
func hpexpire(x *cmdtable.Ctx)   { hexpireGeneric(x, false, true) }
func hexpireat(x *cmdtable.Ctx)  { hexpireGeneric(x, true, false) }
func hpexpireat(x *cmdtable.Ctx) { hexpireGeneric(x, false, false) }

// httlGeneric is HTTL, HPTTL, HEXPIRETIME and HPEXPIRETIME: the remaining
// time (relative) or the expiry time, in seconds (rounded up) or ms.
func httlGeneric(x *cmdtable.Ctx, seconds, relative bool) {
	h, _, ok := hashOf(x, x.Args[1], true)
	if !ok {
		return
	}
	fields, ok := fieldsArg(x, 2, errNumFields)
	if !ok {
		return
	}
	var base int64
	if relative {
		base = x.Now
	}
	x.W.Array(len(fields))
	for _, f := range fields {
		switch {
		case h == nil || !h.Exists(f):
			x.W.Int(fieldMissing)
		case h.Expiry(f) == 0:
			x.W.Int(fieldNoTTL)
		case seconds:
			x.W.Int((h.Expiry(f) + 999 - base) / 1000)
		default:
			x.W.Int(h.Expiry(f) - base)
		}
	}
}

func httl(x *cmdtable.Ctx)         { httlGeneric(x, true, true) }
func hpttl(x *cmdtable.Ctx)        { httlGeneric(x, false, true) }
func hexpiretime(x *cmdtable.Ctx)  { httlGeneric(x, true, false) }
func hpexpiretime(x *cmdtable.Ctx) { httlGeneric(x, false, false) }

func hpersist(x *cmdtable.Ctx) {
	h, _, ok := hashOf(x, x.Args[1], false)
	if !ok {
		return
	}
	fields, ok := fieldsArg(x, 2, errNumFields)
	if !ok {
		return
	}
	x.W.Array(len(fields))
	persisted := false
	for _, f := range fields {
		switch {
		case h == nil || !h.Exists(f):
			x.W.Int(fieldMissing)
		case h.Persist(f):
			x.W.Int(expirySet)
			persisted = true
		default:
			x.W.Int(fieldNoTTL)
		}
	}
	if persisted {
		x.Notify(notify.Hash, "hpersist", x.Args[1])
		x.Touch(x.Args[1])
	}
}

func hgetdel(x *cmdtable.Ctx) {
	key := x.Args[1]
	h, e, ok := hashOf(x, key, false)
	if !ok {
		return
	}
	fields, ok := fieldsArg(x, 2, errNumFields)
	if !ok {
		return
	}
	x.W.Array(len(fields))
	deleted := false
	for _, f := range fields {
		v, found := []byte(nil), false
		if h != nil {
			v, found = h.Get(f)
		}
		if !found {
			x.W.Null()
			continue
		}
		x.W.Bulk(v) // before the delete invalidates the view
		h.Delete(f)
		deleted = true
	}
	if !deleted {
		x.NoEffects() // every field missing
	}
	if h != nil {
		notifyFieldExpiry(x, key, false, deleted)
		settle(x, key, h, e, false)
	}
}

// hgetex is HGETEX key [EX s | PX ms | EXAT ts | PXAT ms-ts | PERSIST] FIELDS n field...
func hgetex(x *cmdtable.Ctx) {
	args := x.Args
	key := args[1]
	h, e, ok := hashOf(x, key, false)
	if !ok {
		return
	}
	var at int64
	opt, pos := "", 2 // pos: where FIELDS must be
	for _, o := range []string{"ex", "px", "exat", "pxat", "persist"} {
		if cmdtable.Is(args[2], o) {
			opt = o
			break
		}
	}
	switch opt {
	case "persist":
		pos = 3
	case "":
	default:
		base := int64(0)
		if opt == "ex" || opt == "px" {
			base = x.Now
		}
		if at, ok = fieldExpireArg(x, args[3], opt == "ex" || opt == "exat", base); !ok {
			return
		}
		pos = 4
	}
	if pos+1 >= len(args) {
		x.Error(cmdtable.WrongArgs("hgetex"))
		return
	}
	fields, ok := fieldsArg(x, pos, errNumFields)
	if !ok {
		return
	}
	x.W.Array(len(fields))
	if h == nil {
		for range fields {
			x.W.Null()
		}
		return
	}
	if opt != "" {
		h.MarkExpiry()
	}
	set, deleted, persisted := false, false, false
	for _, f := range fields {
		v, found := h.Get(f)
		if !found {
			x.W.Null()
			continue
		}
		x.W.Bulk(v) // before an expiry in the past deletes the field
		switch opt {
		case "":
		case "persist":
			persisted = h.Persist(f) || persisted
		default:
			r := expireField(x, h, f, at, "")
			set = set || r == expirySet
			deleted = deleted || r == fieldDeleted
		}
	}
	notifyFieldExpiry(x, key, set, deleted)
	if persisted {
		x.Notify(notify.Hash, "hpersist", key)
		x.Touch(key)
	}
	settle(x, key, h, e, set)
}

// hsetex is HSETEX key [FNX | FXX] [EX s | PX ms | EXAT ts | PXAT ms-ts | KEEPTTL] FIELDS n field value...
func hsetex(x *cmdtable.Ctx) {
	args := x.Args
	const errOneExpiry = "ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified"
	var at int64
	cond, expiry := "", "" // fnx/fxx; ex/px/exat/pxat/keepttl
	first := 0             // index of the first field
	for i := 2; i < len(args) && first == 0; i++ {
		a := args[i]
		switch {
		case cmdtable.Is(a, "fields"):
			if i >= len(args)-3 {
				x.Error(cmdtable.WrongArgs("hsetex"))
				return
			}
			n, ok := cmdtable.ParseInt(args[i+1])
			if !ok || n < 1 || n > math.MaxInt32 {
				x.Error("ERR invalid number of fields")
				return
			}
			if rest := len(args) - i - 2; rest%2 != 0 || n != int64(rest/2) {
				x.Error(cmdtable.WrongArgs("hsetex"))
				return
			}
			first = i + 2
		case cmdtable.Is(a, "fnx") || cmdtable.Is(a, "fxx"):
			if cond != "" {
				x.Error("ERR Only one of FXX or FNX arguments can be specified")
				return
			}
			cond = strings.ToLower(string(a))
		case cmdtable.Is(a, "keepttl"):
			if expiry != "" {
				x.Error(errOneExpiry)
				return
			}
			expiry = "keepttl"
		case cmdtable.Is(a, "ex") || cmdtable.Is(a, "px") || cmdtable.Is(a, "exat") || cmdtable.Is(a, "pxat"):
			if expiry != "" {
				x.Error(errOneExpiry)
				return
			}
			if i >= len(args)-1 {
				x.Error("ERR missing expire time")
				return
			}
			expiry = strings.ToLower(string(a))
			base := int64(0)
			if expiry == "ex" || expiry == "px" {
				base = x.Now
			}
			var ok bool
			if at, ok = fieldExpireArg(x, args[i+1], expiry == "ex" || expiry == "exat", base); !ok {
				return
			}
			i++
		default:
			x.Error("ERR unknown argument: " + string(a))
			return
		}
	}
	if first == 0 { // unreachable at arity 6: three option words at most parse cleanly
		x.Error(errFieldsMissing)
		return
	}
	key := args[1]
	h, e, ok := hashOf(x, key, false)
	if !ok {
		return
	}
	if cond != "" {
		for i := first; i < len(args); i += 2 {
			exists := h != nil && h.Exists(args[i])
			if exists == (cond == "fnx") {
				x.W.Int(0)
				return
			}
		}
	}
	if h == nil {
		h, e = createHash(x, key)
	}
	h.Reserve((len(args) - first) / 2)
	setExpiry := expiry != "" && expiry != "keepttl"
	if setExpiry {
		h.MarkExpiry()
	}
	set, deleted := false, false
	for i := first; i < len(args); i += 2 {
		f, v := args[i], args[i+1]
		if expiry == "" {
			h.Set(f, v)
		} else {
			h.SetKeepTTL(f, v)
		}
		if setExpiry {
			r := expireField(x, h, f, at, "")
			set = set || r == expirySet
			deleted = deleted || r == fieldDeleted
		}
	}
	x.Notify(notify.Hash, "hset", key)
	x.Touch(key)
	notifyFieldExpiry(x, key, set, deleted)
	settle(x, key, h, e, set)
	x.W.Int(1)
}

func init() {
	const g = "hash"
	w, r, f, d := cmdtable.Write|cmdtable.SelfTouch, cmdtable.ReadOnly, cmdtable.Fast, cmdtable.DenyOOM
	cmd := func(name string, arity int, flags cmdtable.Flags, run func(*cmdtable.Ctx), since, summary, args string) *cmdtable.Cmd {
		return &cmdtable.Cmd{Name: name, Arity: arity, Flags: flags, First: 1, Last: 1, Step: 1, Run: run,
			Group: g, Since: since, Summary: summary, Args: args}
	}
	field := func(c *cmdtable.Cmd) *cmdtable.Cmd { c.Member = 2; return c } // its first field follows the key
	const fields = "FIELDS numfields field [field ...]"
	cmdtable.Register(
		field(cmdtable.AsSent.Of(cmd("hset", -4, w|d|f, hset, "2.0.0", "Creates or modifies the value of a field in a hash.", "key field value [field value ...]"))),
		field(cmdtable.AsSent.Of(cmd("hmset", -4, w|d|f, hmset, "2.0.0", "Sets the values of multiple fields.", "key field value [field value ...]"))),
		field(cmdtable.AsSent.Of(cmd("hsetnx", 4, w|d|f, hsetnx, "2.0.0", "Sets the value of a field in a hash only when the field doesn't exist.", "key field value"))),
		field(cmd("hget", 3, r|f, hget, "2.0.0", "Returns the value of a field in a hash.", "key field")),
		field(cmd("hmget", -3, r|f, hmget, "2.0.0", "Returns the values of all fields in a hash.", "key field [field ...]")),
		field(cmdtable.AsSent.Of(cmd("hdel", -3, w|f, hdel, "2.0.0", "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.", "key field [field ...]"))),
		cmd("hlen", 2, r|f, hlen, "2.0.0", "Returns the number of fields in a hash.", "key"),
		field(cmd("hstrlen", 3, r|f, hstrlen, "3.2.0", "Returns the length of the value of a field.", "key field")),
		field(cmd("hexists", 3, r|f, hexists, "2.0.0", "Determines whether a field exists in a hash.", "key field")),
		field(cmdtable.AsSent.Of(cmd("hincrby", 4, w|d|f, hincrby, "2.0.0", "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.", "key field increment"))),
		field(cmdtable.Recorded.Of(cmd("hincrbyfloat", 4, w|d|f, hincrbyfloat, "2.6.0", "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.", "key field increment"))),
		cmd("hgetall", 2, r, hgetall, "2.0.0", "Returns all fields and values in a hash.", "key"),
		cmd("hkeys", 2, r, hkeys, "2.0.0", "Returns all fields in a hash.", "key"),
		cmd("hvals", 2, r, hvals, "2.0.0", "Returns all values in a hash.", "key"),
		cmd("hrandfield", -2, r, hrandfield, "6.2.0", "Returns one or more random fields from a hash.", "key [count [WITHVALUES]]"),
		cmd("hscan", -3, r, hscan, "2.8.0", "Iterates over fields and values of a hash.", "key cursor [MATCH pattern] [COUNT count] [NOVALUES]"),
		withReplForm(cmdtable.AsSent.Of(cmd("hexpire", -6, w|f, hexpire, "7.4.0", "Set expiry for hash field using relative time to expire (seconds)", "key seconds [NX | XX | GT | LT] "+fields)), hexpireForm(1000, true)),
		withReplForm(cmdtable.AsSent.Of(cmd("hpexpire", -6, w|f, hpexpire, "7.4.0", "Set expiry for hash field using relative time to expire (milliseconds)", "key milliseconds [NX | XX | GT | LT] "+fields)), hexpireForm(1, true)),
		withReplForm(cmdtable.AsSent.Of(cmd("hexpireat", -6, w|f, hexpireat, "7.4.0", "Set expiry for hash field using an absolute Unix timestamp (seconds)", "key unix-time-seconds [NX | XX | GT | LT] "+fields)), hexpireForm(1000, false)),
		cmdtable.AsSent.Of(cmd("hpexpireat", -6, w|f, hpexpireat, "7.4.0", "Set expiry for hash field using an absolute Unix timestamp (milliseconds)", "key unix-time-milliseconds [NX | XX | GT | LT] "+fields)),
		cmd("httl", -5, r|f, httl, "7.4.0", "Returns the TTL in seconds of a hash field.", "key "+fields),
		cmd("hpttl", -5, r|f, hpttl, "7.4.0", "Returns the TTL in milliseconds of a hash field.", "key "+fields),
		cmd("hexpiretime", -5, r|f, hexpiretime, "7.4.0", "Returns the expiration time of a hash field as a Unix timestamp, in seconds.", "key "+fields),
		cmd("hpexpiretime", -5, r|f, hpexpiretime, "7.4.0", "Returns the expiration time of a hash field as a Unix timestamp, in msec.", "key "+fields),
		cmdtable.AsSent.Of(cmd("hpersist", -5, w|f, hpersist, "7.4.0", "Removes the expiration time for each specified field", "key "+fields)),
		withReplForm(cmdtable.AsSent.Of(cmd("hgetdel", -5, w|f, hgetdel, "8.0.0", "Returns the value of a field and deletes it from the hash.", "key "+fields)), hgetdelForm),
		withReplForm(cmdtable.AsSent.Of(cmd("hgetex", -5, w|f, hgetex, "8.0.0", "Get the value of one or more fields of a given hash key, and optionally set their expiration.",
			"key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST] "+fields)), hashExpiryOptionsForm),
		withReplForm(cmdtable.AsSent.Of(cmd("hsetex", -6, w|d|f, hsetex, "8.0.0", "Set the value of one or more fields of a given hash key, and optionally set their expiration.",
			"key [FNX | FXX] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL] FIELDS numfields field value [field value ...]")), hashExpiryOptionsForm),
	)
}
