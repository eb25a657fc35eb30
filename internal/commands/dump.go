package commands

import (
	"errors"
	"math"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/rdb"
)

// DUMP and RESTORE exchange values in Redis's RDB format (package rdb), so
// keys move between HotKV and Redis (MIGRATE-style tools, RIOT,
// redis-shake) in both directions.

func dump(x *cmdtable.Ctx) {
	e := x.LookupRead(x.Args[1])
	if e == nil {
		x.W.Null()
		return
	}
	p, err := rdb.Dump(e, x.Now)
	switch {
	case errors.Is(err, rdb.ErrExpired):
		x.W.Null() // every field of the hash has expired: the key is gone for any reader
	case err != nil:
		x.Error(cmdtable.DumpUnsupported(e.Kind.String()))
	default:
		x.W.Bulk(p)
	}
}

// restore follows Redis's restoreCommand: options first, then BUSYKEY, the
// TTL, the payload's footer and its value. A TTL already in the past
// creates nothing (deleting the key under REPLACE).
func restore(x *cmdtable.Ctx) {
	var replace, absTTL bool
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(x.Args); j++ {
		a, more := x.Args[j], j+1 < len(x.Args)
		switch {
		case cmdtable.Is(a, "replace"):
			replace = true
		case cmdtable.Is(a, "absttl"):
			absTTL = true
		case cmdtable.Is(a, "idletime") && more && freq == -1:
			j++
			if idle = restoreOpt(x, x.Args[j], math.MaxInt64, "ERR Invalid IDLETIME value, must be >= 0"); idle < 0 {
				return
			}
		case cmdtable.Is(a, "freq") && more && idle == -1:
			j++
			if freq = restoreOpt(x, x.Args[j], 255, "ERR Invalid FREQ value, must be >= 0 and <= 255"); freq < 0 {
				return
			}
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	key, payload := x.Args[1], x.Args[3]
	sh := x.Shard(key)
	if !replace && sh.Lookup(key, x.Now) != nil {
		x.Error(cmdtable.ErrBusyKey)
		return
	}
	ttl, ok := cmdtable.ParseInt(x.Args[2])
	switch {
	case !ok:
		x.Error(cmdtable.ErrNotInt)
		return
	case ttl < 0:
		x.Error("ERR Invalid TTL value, must be >= 0")
		return
	case !rdb.Verify(payload):
		x.Error(rdb.ErrBadPayload)
		return
	}
	e, err := rdb.Load(payload, x.Now)
	switch {
	case errors.Is(err, rdb.ErrExpired):
		x.W.OK() // as Redis: nothing to create, and an existing key stays
		return
	case err != nil:
		x.Error("ERR Bad data format")
		return
	}
	deleted := replace && sh.Delete(key, x.Now)
	if ttl != 0 && !absTTL {
		ttl += x.Now
	}
	if ttl != 0 && ttl <= x.Now {
		if deleted {
			x.Notify(notify.Generic, "del", key)
		}
		x.W.OK()
		return
	}
	e.Expire = ttl
	sh.Put(key, e)
	if idle >= 0 {
		e.SetIdle(idle)
	}
	if freq >= 0 {
		e.SetFreq(uint8(freq))
	}
	sh.Touch(key)
	x.Notify(notify.Generic, "restore", key)
	x.W.OK()
}

// restoreOpt parses IDLETIME's or FREQ's value, from 0 to max; after an
// error it answers -1.
func restoreOpt(x *cmdtable.Ctx, arg []byte, max int64, outOfRange string) int64 {
	v, ok := cmdtable.ParseInt(arg)
	switch {
	case !ok:
		x.Error(cmdtable.ErrNotInt)
	case v < 0 || v > max:
		x.Error(outOfRange)
	default:
		return v
	}
	return -1
}

func init() {
	const (
		g = "generic"
		w = cmdtable.Write | cmdtable.SelfTouch | cmdtable.DenyOOM
	)
	restoreArgs := "key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]"
	cmdtable.Register(
		&cmdtable.Cmd{Name: "dump", Arity: 2, Flags: cmdtable.ReadOnly, First: 1, Last: 1, Step: 1, Run: dump, Group: g,
			Since: "2.6.0", Summary: "Returns a serialized representation of the value stored at a key.", Args: "key"},
		&cmdtable.Cmd{Name: "restore", Arity: -4, Flags: w, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Run: restore, ReplForm: restoreForm, Group: g,
			Since: "2.6.0", Summary: "Creates a key from the serialized representation of a value.", Args: restoreArgs,
			ACL: []string{"dangerous"}},
		&cmdtable.Cmd{Name: "restore-asking", Arity: -4, Flags: w | cmdtable.Asking, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Run: restore, Group: "server",
			Since: "3.0.0", Summary: "An internal command for migrating keys in a cluster.", Args: restoreArgs,
			ACL: []string{"keyspace", "dangerous"}},
	)
}
