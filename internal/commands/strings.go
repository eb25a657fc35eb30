package commands

import (
	"bytes"
	"math"
	"math/big"
	"strconv"

	"github.com/hotkv/hotkv/internal/ldouble"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
)

// String commands. Values live in Entry.Bytes as plain bytes owned by the entry:
// APPEND, SETRANGE and the INCR family modify them in place.

// maxStringLen is Redis's default proto-max-bulk-len, the largest string
// APPEND and SETRANGE may build.
const maxStringLen = 512 << 20

// readString returns key's string entry for a read command (counting a hit or
// miss); ok is false, with WRONGTYPE answered, when it holds another type.
func readString(x *cmdtable.Ctx, key []byte) (*keyspace.Entry, bool) {
	return typedEntry(x, key, keyspace.KindString, true)
}

// writeString is readString for a command that modifies the key: like Redis's
// lookupKeyWrite it counts no hit or miss.
func writeString(x *cmdtable.Ctx, sh *keyspace.Shard, key []byte) (e *keyspace.Entry, ok bool) {
	e = sh.Lookup(key, x.Now)
	if e != nil && e.Kind != keyspace.KindString {
		x.Error(cmdtable.ErrWrongType)
		return nil, false
	}
	return e, true
}

func replyString(x *cmdtable.Ctx, e *keyspace.Entry) {
	if e == nil {
		x.W.Null()
		return
	}
	x.W.Bulk(e.Bytes())
}

func get(x *cmdtable.Ctx) {
	if e, ok := readString(x, x.Args[1]); ok {
		replyString(x, e)
	}
}

// Options of SET and GETEX, named as Redis's OBJ_* flags.
const (
	setOptNX = 1 << iota
	setOptXX
	setOptGet
	setOptKeepTTL
	setOptPersist
	setOptEX
	setOptPX
	setOptEXAT
	setOptPXAT

	setOptExpire = setOptEX | setOptPX | setOptEXAT | setOptPXAT
)

// parseSetOpts reads SET's (or, for GETEX, GETEX's) options from args[from:]
// with Redis's rules: conflicting options are a syntax error, repeating one
// is not (the last expire value wins). The expire value is returned unparsed:
// Redis reports syntax errors before a bad number.
func parseSetOpts(x *cmdtable.Ctx, from int, getex bool) (flags int, expire []byte, ok bool) {
	args := x.Args
	for j := from; j < len(args); j++ {
		a := args[j]
		var f int
		switch {
		case !getex && cmdtable.Is(a, "nx") && flags&setOptXX == 0:
			f = setOptNX
		case !getex && cmdtable.Is(a, "xx") && flags&setOptNX == 0:
			f = setOptXX
		case !getex && cmdtable.Is(a, "get"):
			f = setOptGet
		case !getex && cmdtable.Is(a, "keepttl") && flags&setOptExpire == 0:
			f = setOptKeepTTL
		case getex && cmdtable.Is(a, "persist") && flags&setOptExpire == 0:
			f = setOptPersist
		default:
			f = setExpireOpt(a)
			if f == 0 || j+1 == len(args) || flags&(setOptKeepTTL|setOptPersist|setOptExpire&^f) != 0 {
				x.Error(cmdtable.ErrSyntax)
				return 0, nil, false
			}
			j++
			expire = args[j]
		}
		flags |= f
	}
	return flags, expire, true
}

func setExpireOpt(a []byte) int {
	switch {
	case cmdtable.Is(a, "ex"):
		return setOptEX
	case cmdtable.Is(a, "px"):
		return setOptPX
	case cmdtable.Is(a, "exat"):
		return setOptEXAT
	case cmdtable.Is(a, "pxat"):
		return setOptPXAT
	}
	return 0
}

// parseSetExpire turns an EX/PX/EXAT/PXAT value into absolute unix milliseconds as
// Redis's getExpireMillisecondsOrReply does; cmd names the command in the
// error.
func parseSetExpire(x *cmdtable.Ctx, flags int, val []byte, cmd string) (int64, bool) {
	n, ok := cmdtable.ParseInt(val)
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return 0, false
	}
	seconds := flags&(setOptEX|setOptEXAT) != 0
	if n <= 0 || (seconds && n > math.MaxInt64/1000) {
		x.Error(errInvalidExpire(cmd))
		return 0, false
	}
	if seconds {
		n *= 1000
	}
	if flags&(setOptEX|setOptPX) != 0 {
		if n > math.MaxInt64-x.Now {
			x.Error(errInvalidExpire(cmd))
			return 0, false
		}
		n += x.Now
	}
	return n, true
}

func set(x *cmdtable.Ctx) {
	flags, expire, ok := parseSetOpts(x, 3, false)
	if ok {
		setGeneric(x, flags, x.Args[1], x.Args[2], expire, "set", false)
	}
}

// setGeneric is Redis's setGenericCommand: SET, SETNX, SETEX and PSETEX.
// intReply answers :1/:0 (SETNX) instead of +OK/null. An absolute expiry in
// the past is stored as is, so the key expires on its next access, as in
// Redis.
func setGeneric(x *cmdtable.Ctx, flags int, key, val, expire []byte, cmd string, intReply bool) {
	var at int64
	if expire != nil {
		var ok bool
		if at, ok = parseSetExpire(x, flags, expire, cmd); !ok {
			return
		}
	}
	sh := x.Shard(key)
	var old *keyspace.Entry
	if flags&setOptGet != 0 {
		var ok bool
		if old, ok = readString(x, key); !ok {
			return
		}
		replyString(x, old) // now, before the new value reuses the buffer
	} else {
		old = sh.Lookup(key, x.Now)
	}
	if (flags&setOptNX != 0 && old != nil) || (flags&setOptXX != 0 && old == nil) {
		switch { // refused: it changed nothing, unless GET answered (then logged)
		case flags&setOptGet != 0:
		case intReply:
			replyUnchanged(x, 0)
		default:
			x.NoEffects()
			x.W.Null()
		}
		return
	}
	sh.SetString(key, val, at, flags&setOptKeepTTL != 0)
	x.Touch(key)
	x.Notify(notify.String, "set", key)
	if expire != nil {
		x.Notify(notify.Generic, "expire", key)
	}
	switch {
	case flags&setOptGet != 0:
	case intReply:
		x.W.Int(1)
	default:
		x.W.OK()
	}
}

func setnx(x *cmdtable.Ctx) { setGeneric(x, setOptNX, x.Args[1], x.Args[2], nil, "setnx", true) }

func setex(x *cmdtable.Ctx) { setGeneric(x, setOptEX, x.Args[1], x.Args[3], x.Args[2], "setex", false) }

func psetex(x *cmdtable.Ctx) {
	setGeneric(x, setOptPX, x.Args[1], x.Args[3], x.Args[2], "psetex", false)
}

func getset(x *cmdtable.Ctx) {
	key := x.Args[1]
	e, ok := readString(x, key)
	if !ok {
		return
	}
	replyString(x, e)
	x.Shard(key).SetString(key, x.Args[2], 0, false)
	x.Touch(key)
	x.Notify(notify.String, "set", key)
}

func getdel(x *cmdtable.Ctx) {
	key := x.Args[1]
	e, ok := readString(x, key)
	if !ok {
		return
	}
	replyString(x, e)
	if e == nil {
		x.NoEffects()
	} else {
		x.Shard(key).Delete(key, x.Now)
		x.Touch(key)
		x.Notify(notify.Generic, "del", key)
	}
}

// getex follows Redis's order: syntax, then a missing key (nil even with a
// bad expire), then the type, then the expire value.
func getex(x *cmdtable.Ctx) {
	flags, expire, ok := parseSetOpts(x, 2, true)
	if !ok {
		return
	}
	key := x.Args[1]
	e, ok := readString(x, key)
	if !ok {
		return
	}
	if e == nil {
		x.NoEffects()
		x.W.Null()
		return
	}
	var at int64
	if expire != nil {
		if at, ok = parseSetExpire(x, flags, expire, "getex"); !ok {
			return
		}
	}
	x.W.Bulk(e.Bytes())
	sh := x.Shard(key)
	switch {
	case flags&(setOptEXAT|setOptPXAT) != 0 && at <= x.Now:
		sh.Delete(key, x.Now)
		x.Notify(notify.Generic, "del", key)
	case expire != nil:
		sh.SetExpire(key, e, at)
		x.Notify(notify.Generic, "expire", key)
	case flags&setOptPersist != 0 && e.Expire != 0:
		sh.SetExpire(key, e, 0)
		x.Notify(notify.Generic, "persist", key)
	default:
		return
	}
	x.Touch(key)
}

// mget answers nil for keys of other types, as Redis does.
func mget(x *cmdtable.Ctx) {
	keys := x.Args[1:]
	x.W.Array(len(keys))
	var buf [16]*keyspace.Entry
	for len(keys) > 0 {
		n := min(len(keys), len(buf))
		for _, e := range x.LookupReadMany(keys[:n], buf[:0]) {
			mgetReply(x, e)
		}
		keys = keys[n:]
	}
}

func mgetReply(x *cmdtable.Ctx, e *keyspace.Entry) {
	if e == nil || e.Kind != keyspace.KindString {
		x.W.Null()
		return
	}
	x.W.Bulk(e.Bytes())
}

func mset(x *cmdtable.Ctx) {
	if len(x.Args)%2 == 0 {
		x.Error(cmdtable.WrongArgs("mset"))
		return
	}
	msetPairs(x)
	x.W.OK()
}

// msetnx sets nothing if any key exists.
func msetnx(x *cmdtable.Ctx) {
	if len(x.Args)%2 == 0 {
		x.Error(cmdtable.WrongArgs("msetnx"))
		return
	}
	for i := 1; i < len(x.Args); i += 2 {
		if x.Lookup(x.Args[i]) != nil {
			replyUnchanged(x, 0)
			return
		}
	}
	msetPairs(x)
	x.W.Int(1)
}

func msetPairs(x *cmdtable.Ctx) {
	var keys [16][]byte
	for i := 1; i < len(x.Args); {
		n := 0
		for j := i; j < len(x.Args) && n < len(keys); j += 2 {
			keys[n] = x.Args[j]
			n++
		}
		x.PrefetchKeys(keys[:n])
		for range n {
			k := x.Args[i]
			if keyspace.LFU() { // an overwrite counts as one access, as Redis's setKey looks the key up
				x.Shard(k).Lookup(k, x.Now)
			}
			x.Shard(k).SetString(k, x.Args[i+1], 0, false)
			x.Touch(k)
			x.Notify(notify.String, "set", k)
			i += 2
		}
	}
}

// checkStringLen refuses a string that would grow past proto-max-bulk-len.
func checkStringLen(x *cmdtable.Ctx, size, add int64) bool {
	if add > maxStringLen-size {
		x.Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
		return false
	}
	return true
}

// appendCmd keeps the key's TTL.
func appendCmd(x *cmdtable.Ctx) {
	key, val := x.Args[1], x.Args[2]
	sh := x.Shard(key)
	e, ok := writeString(x, sh, key)
	if !ok {
		return
	}
	if e == nil {
		sh.SetString(key, val, 0, false)
		x.Touch(key)
		x.Notify(notify.String, "append", key)
		x.W.Int(int64(len(val)))
		return
	}
	if !checkStringLen(x, int64(len(e.Bytes())), int64(len(val))) {
		return
	}
	e.SetBytes(append(e.Bytes(), val...))
	x.Touch(key)
	x.Notify(notify.String, "append", key)
	x.W.Int(int64(len(e.Bytes())))
}

func strlen(x *cmdtable.Ctx) {
	e, ok := readString(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(len(e.Bytes())))
}

// getrange is Redis's getrangeCommand, index arithmetic included.
func getrange(x *cmdtable.Ctx) {
	start, ok1 := cmdtable.ParseInt(x.Args[2])
	end, ok2 := cmdtable.ParseInt(x.Args[3])
	if !ok1 || !ok2 {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	e, ok := readString(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Bulk(nil)
		return
	}
	s := e.Bytes()
	n := int64(len(s))
	if start < 0 && end < 0 && start > end {
		x.W.Bulk(nil)
		return
	}
	if start < 0 {
		start = max(n+start, 0)
	}
	if end < 0 {
		end = max(n+end, 0)
	}
	end = min(end, n-1)
	if start > end || n == 0 {
		x.W.Bulk(nil)
		return
	}
	x.W.Bulk(s[start : end+1])
}

// setrange keeps the key's TTL; it creates the key only to write something.
func setrange(x *cmdtable.Ctx) {
	key, val := x.Args[1], x.Args[3]
	off, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if off < 0 {
		x.Error("ERR offset is out of range")
		return
	}
	sh := x.Shard(key)
	e, ok := writeString(x, sh, key)
	if !ok {
		return
	}
	if e == nil {
		if len(val) == 0 {
			x.W.Int(0)
			return
		}
		if !checkStringLen(x, off, int64(len(val))) {
			return
		}
		b := make([]byte, int(off)+len(val))
		copy(b[off:], val)
		sh.Put(key, keyspace.NewString(b))
		x.Touch(key)
		x.Notify(notify.String, "setrange", key)
		x.W.Int(int64(len(b)))
		return
	}
	if len(val) == 0 {
		x.W.Int(int64(len(e.Bytes())))
		return
	}
	if !checkStringLen(x, off, int64(len(val))) {
		return
	}
	b := e.Bytes()
	if need := int(off) + len(val); need > len(b) {
		b = append(b, make([]byte, need-len(b))...)
		e.SetBytes(b)
	}
	copy(b[off:], val)
	x.Touch(key)
	x.Notify(notify.String, "setrange", key)
	x.W.Int(int64(len(b)))
}

// incrBy adds by to key's integer value, keeping its TTL and rewriting the
// digits in place so that an existing key allocates nothing.
func incrBy(x *cmdtable.Ctx, by int64) {
	key := x.Args[1]
	sh := x.Shard(key)
	e, ok := writeString(x, sh, key)
	if !ok {
		return
	}
	var v int64
	if e != nil {
		if v, ok = cmdtable.ParseInt(e.Bytes()); !ok {
			x.Error(cmdtable.ErrNotInt)
			return
		}
	}
	if (by < 0 && v < 0 && by < math.MinInt64-v) || (by > 0 && v > 0 && by > math.MaxInt64-v) {
		x.Error(cmdtable.ErrOverflow)
		return
	}
	v += by
	var tmp [20]byte
	digits := strconv.AppendInt(tmp[:0], v, 10)
	if e == nil {
		sh.SetString(key, digits, 0, false)
	} else {
		e.SetBytes(append(e.Bytes()[:0], digits...))
	}
	x.Touch(key)
	x.Notify(notify.String, "incrby", key)
	x.W.Int(v)
}

func incr(x *cmdtable.Ctx) { incrBy(x, 1) }

func decr(x *cmdtable.Ctx) { incrBy(x, -1) }

func incrby(x *cmdtable.Ctx) {
	n, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	incrBy(x, n)
}

func decrby(x *cmdtable.Ctx) {
	n, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if n == math.MinInt64 {
		x.Error("ERR decrement would overflow")
		return
	}
	incrBy(x, -n)
}

// incrbyfloat keeps the key's TTL and stores the result as Redis prints it.
func incrbyfloat(x *cmdtable.Ctx) {
	key := x.Args[1]
	sh := x.Shard(key)
	e, ok := writeString(x, sh, key)
	if !ok {
		return
	}
	cur := new(big.Float).SetPrec(ldouble.Prec)
	if e != nil {
		if cur, ok = ldouble.Parse(e.Bytes()); !ok {
			x.Error(cmdtable.ErrNotFloat)
			return
		}
	}
	by, ok := ldouble.Parse(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotFloat)
		return
	}
	sum, ok := ldouble.Add(cur, by)
	if !ok {
		x.Error(errIncrNaNOrInf)
		return
	}
	var tmp [64]byte
	out := ldouble.Append(tmp[:0], sum)
	if e == nil {
		sh.SetString(key, out, 0, false)
	} else {
		e.SetBytes(append(e.Bytes()[:0], out...))
	}
	x.Touch(key)
	x.Notify(notify.String, "incrbyfloat", key)
	if x.Logged { // as Redis: the value set, not the sum to redo
		x.Propagate([]byte("SET"), bytes.Clone(key), bytes.Clone(out), []byte("KEEPTTL"))
	}
	x.W.Bulk(out)
}

// lcs is Redis's lcsCommand: the dynamic programming table, then a walk back
// from its end collecting the LCS and (for IDX) the matching ranges, last
// first.
func lcs(x *cmdtable.Ctx) {
	ea, eb := x.LookupRead(x.Args[1]), x.LookupRead(x.Args[2])
	if (ea != nil && ea.Kind != keyspace.KindString) || (eb != nil && eb.Kind != keyspace.KindString) {
		x.Error("ERR The specified keys must contain string values")
		return
	}
	var a, b []byte
	if ea != nil {
		a = ea.Bytes()
	}
	if eb != nil {
		b = eb.Bytes()
	}
	var getLen, getIdx, withLen bool
	var minLen int64
	for j := 3; j < len(x.Args); j++ {
		opt := x.Args[j]
		switch {
		case cmdtable.Is(opt, "idx"):
			getIdx = true
		case cmdtable.Is(opt, "len"):
			getLen = true
		case cmdtable.Is(opt, "withmatchlen"):
			withLen = true
		case cmdtable.Is(opt, "minmatchlen") && j+1 < len(x.Args):
			n, ok := cmdtable.ParseInt(x.Args[j+1])
			if !ok {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			minLen = max(n, 0)
			j++
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		x.Error("ERR If you want both the length and indexes, please just use IDX.")
		return
	}
	alen, blen := len(a), len(b)
	if int64(alen+1)*int64(blen+1)*4 > maxStringLen {
		x.Error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
		return
	}
	w := blen + 1
	t := make([]uint32, (alen+1)*w) // t[i*w+j]: LCS length of a[:i] and b[:j]
	for i := 1; i <= alen; i++ {
		for j := 1; j <= blen; j++ {
			if a[i-1] == b[j-1] {
				t[i*w+j] = t[(i-1)*w+j-1] + 1
			} else {
				t[i*w+j] = max(t[(i-1)*w+j], t[i*w+j-1])
			}
		}
	}
	total := t[alen*w+blen]
	if getLen {
		x.W.Int(int64(total))
		return
	}
	type match struct{ a0, a1, b0, b1 int }
	var matches []match
	result := make([]byte, total)
	idx := total
	// Ranges grow backwards from their first (rightmost) matched byte;
	// aStart == alen means no range is open.
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0
	for i, j := alen, blen; i > 0 && j > 0; {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			switch {
			case aStart == alen:
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			case aStart == i && bStart == j:
				aStart--
				bStart--
			default:
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if t[(i-1)*w+j] > t[i*w+j-1] {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			if n := aEnd - aStart + 1; minLen == 0 || int64(n) >= minLen {
				matches = append(matches, match{aStart, aEnd, bStart, bEnd})
			}
			aStart = alen
		}
	}
	if !getIdx {
		x.W.Bulk(result)
		return
	}
	x.W.Map(2)
	x.W.BulkString("matches")
	x.W.Array(len(matches))
	for _, m := range matches {
		if withLen {
			x.W.Array(3)
		} else {
			x.W.Array(2)
		}
		x.W.Array(2)
		x.W.Int(int64(m.a0))
		x.W.Int(int64(m.a1))
		x.W.Array(2)
		x.W.Int(int64(m.b0))
		x.W.Int(int64(m.b1))
		if withLen {
			x.W.Int(int64(m.a1 - m.a0 + 1))
		}
	}
	x.W.BulkString("len")
	x.W.Int(int64(total))
}

func init() {
	const g = "string"
	var (
		w   = cmdtable.Write | cmdtable.SelfTouch
		ro  = cmdtable.ReadOnly
		oom = cmdtable.DenyOOM
		f   = cmdtable.Fast
	)
	one := func(c *cmdtable.Cmd) *cmdtable.Cmd {
		c.First, c.Last, c.Step, c.Group = 1, 1, 1, g
		return c
	}
	pairs := func(c *cmdtable.Cmd) *cmdtable.Cmd {
		c.First, c.Last, c.Step, c.Group = 1, -1, 2, g
		return c
	}
	cmdtable.Register(
		one(&cmdtable.Cmd{Name: "get", Arity: 2, Flags: ro | f, Run: get, Since: "1.0.0",
			Summary: "Returns the string value of a key.", Args: "key"}),
		one(&cmdtable.Cmd{Name: "set", Arity: -3, Flags: w | oom, Effects: cmdtable.AsSent, Run: set, ReplForm: setForm, Since: "1.0.0",
			Summary: "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
			Args:    "key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]"}),
		one(&cmdtable.Cmd{Name: "setnx", Arity: 3, Flags: w | oom | f, Effects: cmdtable.AsSent, Run: setnx, Since: "1.0.0",
			Summary: "Set the string value of a key only when the key doesn't exist.", Args: "key value"}),
		one(&cmdtable.Cmd{Name: "setex", Arity: 4, Flags: w | oom, Effects: cmdtable.AsSent, Run: setex, ReplForm: setexForm(1000), Since: "2.0.0",
			Summary: "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.", Args: "key seconds value"}),
		one(&cmdtable.Cmd{Name: "psetex", Arity: 4, Flags: w | oom, Effects: cmdtable.AsSent, Run: psetex, ReplForm: setexForm(1), Since: "2.6.0",
			Summary: "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.",
			Args:    "key milliseconds value"}),
		&cmdtable.Cmd{Name: "mget", Arity: -2, Flags: ro | f, First: 1, Last: -1, Step: 1, Run: mget, Group: g, Since: "1.0.0",
			Summary: "Atomically returns the string values of one or more keys.", Args: "key [key ...]"},
		pairs(&cmdtable.Cmd{Name: "mset", Arity: -3, Flags: w | oom, Effects: cmdtable.AsSent, Run: mset, Since: "1.0.1",
			Summary: "Atomically creates or modifies the string values of one or more keys.", Args: "key value [key value ...]"}),
		pairs(&cmdtable.Cmd{Name: "msetnx", Arity: -3, Flags: w | oom, Effects: cmdtable.AsSent, Run: msetnx, Since: "1.0.1",
			Summary: "Atomically modifies the string values of one or more keys only when all keys don't exist.",
			Args:    "key value [key value ...]"}),
		one(&cmdtable.Cmd{Name: "getset", Arity: 3, Flags: w | oom | f, Effects: cmdtable.AsSent, Run: getset, ReplForm: getsetForm, Since: "1.0.0",
			Summary: "Returns the previous string value of a key after setting it to a new value.", Args: "key value"}),
		one(&cmdtable.Cmd{Name: "getdel", Arity: 2, Flags: w | f, Effects: cmdtable.AsSent, Run: getdel, ReplForm: getdelForm, Since: "6.2.0",
			Summary: "Returns the string value of a key after deleting the key.", Args: "key"}),
		one(&cmdtable.Cmd{Name: "getex", Arity: -2, Flags: w | f, Effects: cmdtable.AsSent, Run: getex, ReplForm: getexForm, Since: "6.2.0",
			Summary: "Returns the string value of a key after setting its expiration time.",
			Args:    "key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]"}),
		one(&cmdtable.Cmd{Name: "append", Arity: 3, Flags: w | oom | f, Effects: cmdtable.AsSent, Run: appendCmd, Since: "2.0.0",
			Summary: "Appends a string to the value of a key. Creates the key if it doesn't exist.", Args: "key value"}),
		one(&cmdtable.Cmd{Name: "strlen", Arity: 2, Flags: ro | f, Run: strlen, Since: "2.2.0",
			Summary: "Returns the length of a string value.", Args: "key"}),
		one(&cmdtable.Cmd{Name: "getrange", Arity: 4, Flags: ro, Run: getrange, Since: "2.4.0",
			Summary: "Returns a substring of the string stored at a key.", Args: "key start end"}),
		one(&cmdtable.Cmd{Name: "substr", Arity: 4, Flags: ro, Run: getrange, Since: "1.0.0",
			Summary: "Returns a substring from a string value.", Args: "key start end"}),
		one(&cmdtable.Cmd{Name: "setrange", Arity: 4, Flags: w | oom, Effects: cmdtable.AsSent, Run: setrange, Since: "2.2.0",
			Summary: "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.",
			Args:    "key offset value"}),
		one(&cmdtable.Cmd{Name: "incr", Arity: 2, Flags: w | oom | f, Effects: cmdtable.AsSent, Run: incr, Since: "1.0.0",
			Summary: "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", Args: "key"}),
		one(&cmdtable.Cmd{Name: "decr", Arity: 2, Flags: w | oom | f, Effects: cmdtable.AsSent, Run: decr, Since: "1.0.0",
			Summary: "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", Args: "key"}),
		one(&cmdtable.Cmd{Name: "incrby", Arity: 3, Flags: w | oom | f, Effects: cmdtable.AsSent, Run: incrby, Since: "1.0.0",
			Summary: "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
			Args:    "key increment"}),
		one(&cmdtable.Cmd{Name: "decrby", Arity: 3, Flags: w | oom | f, Effects: cmdtable.AsSent, Run: decrby, Since: "1.0.0",
			Summary: "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.",
			Args:    "key decrement"}),
		one(&cmdtable.Cmd{Name: "incrbyfloat", Arity: 3, Flags: w | oom | f, Effects: cmdtable.Recorded, Run: incrbyfloat, Since: "2.6.0",
			Summary: "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
			Args:    "key increment"}),
		&cmdtable.Cmd{Name: "lcs", Arity: -3, Flags: ro, First: 1, Last: 2, Step: 1, Run: lcs, Group: g, Since: "7.0.0",
			Summary: "Finds the longest common substring.", Args: "key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]"},
	)
}
