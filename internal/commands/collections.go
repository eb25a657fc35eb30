package commands

import (
	"math"
	"unsafe"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
)

// Helpers shared by the collection families.

// transient views an argument as a string without copying it, for a lookup
// or a call that does not keep the string past the command.
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// typedEntry returns key's entry when it holds kind (nil when the key does not
// exist); ok is false, with WRONGTYPE answered, for another type. read counts
// the lookup as a keyspace hit or miss, as Redis's read lookups do.
func typedEntry(x *cmdtable.Ctx, key []byte, kind keyspace.Kind, read bool) (e *keyspace.Entry, ok bool) {
	if read {
		e = x.LookupRead(key)
	} else {
		e = x.Lookup(key)
	}
	if e != nil && e.Kind != kind {
		x.Error(cmdtable.ErrWrongType)
		return nil, false
	}
	return e, true
}

// typed is typedEntry for the value object itself.
func typed[T any](x *cmdtable.Ctx, key []byte, kind keyspace.Kind, read bool) (v T, ok bool) {
	e, ok := typedEntry(x, key, kind, read)
	if e == nil {
		return v, ok
	}
	return e.Obj.(T), true
}

// dropIfEmpty deletes key once its collection is empty: Redis keeps no empty
// collections. Call it after notifying the command's own event: the del
// event follows it.
func dropIfEmpty(x *cmdtable.Ctx, key []byte, c interface{ Len() int }) {
	if c.Len() == 0 {
		x.Shard(key).Delete(key, x.Now)
		x.Notify(notify.Generic, "del", key)
	}
}

// popCount parses the optional count of LPOP/RPOP/ZPOPMIN/ZPOPMAX (args[2]):
// -1 when absent; ok is false after Redis's error for a bad or negative one.
func popCount(x *cmdtable.Ctx) (count int64, ok bool) {
	if len(x.Args) < 3 {
		return -1, true
	}
	n, ok := cmdtable.ParseInt(x.Args[2])
	if !ok || n < 0 {
		x.Error(cmdtable.ErrNotPositive)
		return 0, false
	}
	return n, true
}

// randomCount parses the count of SRANDMEMBER, HRANDFIELD and ZRANDMEMBER:
// any int64 but the one whose negation overflows (a negative count means
// "allow repeats").
func randomCount(x *cmdtable.Ctx, arg []byte) (int64, bool) {
	n, ok := cmdtable.ParseInt(arg)
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return 0, false
	}
	if n == math.MinInt64 {
		x.Error(errOutOfLongRange)
		return 0, false
	}
	return n, true
}
