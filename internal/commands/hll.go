package commands

import (
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/value/hll"
)

// HyperLogLog commands. An HLL is a string value in Redis's own format, so
// GET/SET/DUMP of it interoperate with Redis. The writes are flagged
// SelfTouch: like Redis they signal a key to WATCH only when PFADD changed
// it (or PFCOUNT refreshed its cached count), PFMERGE's destination
// whenever it succeeds, never after an error or for PFDEBUG.

const errNotHLL = "WRONGTYPE Key is not a valid HyperLogLog string value."

// hllValue returns key's entry if it is an HLL (nil if missing); ok is false
// after an error reply. read looks it up as a read (PFCOUNT, PFMERGE's
// sources), counting a hit or miss.
func hllValue(x *cmdtable.Ctx, key []byte, read bool) (*keyspace.Entry, bool) {
	var e *keyspace.Entry
	if read {
		e = x.LookupRead(key)
	} else {
		e = x.Lookup(key)
	}
	if e == nil {
		return nil, true
	}
	if e.Kind != keyspace.KindString {
		x.Error(cmdtable.ErrWrongType)
		return nil, false
	}
	if !hll.Valid(e.Bytes()) {
		x.Error(errNotHLL)
		return nil, false
	}
	return e, true
}

func pfadd(x *cmdtable.Ctx) {
	key := x.Args[1]
	e, ok := hllValue(x, key, false)
	if !ok {
		return
	}
	changed := false
	if e == nil {
		e = x.Shard(key).SetString(key, nil, 0, false)
		e.SetBytes(hll.New())
		changed = true
	}
	b := e.Bytes()
	for _, ele := range x.Args[2:] {
		c, err := hll.Add(&b, ele)
		e.SetBytes(b) // Add may have grown or converted it
		if err != nil {
			x.Error(err.Error())
			return
		}
		changed = changed || c
	}
	if changed {
		e.Bytes()[15] |= 1 << 7 // the cached cardinality is stale
		x.Notify(notify.String, "pfadd", key)
		x.Touch(key)
		x.W.Int(1)
		return
	}
	x.W.Int(0)
}

func pfcount(x *cmdtable.Ctx) {
	if len(x.Args) == 2 {
		e, ok := hllValue(x, x.Args[1], true)
		if !ok {
			return
		}
		if e == nil {
			x.W.Int(0)
			return
		}
		n, refreshed, err := hll.Count(e.Bytes())
		if err != nil {
			x.Error(err.Error())
			return
		}
		if refreshed { // the cache in the value changed, as Redis signals it
			x.Shard(x.Args[1]).Touch(x.Args[1])
		}
		x.W.Int(int64(n))
		return
	}
	var regs [hll.Registers]uint8
	for _, k := range x.Args[1:] {
		e, ok := hllValue(x, k, true)
		if !ok {
			return
		}
		if e == nil {
			continue
		}
		if err := hll.MergeInto(&regs, e.Bytes()); err != nil {
			x.Error(err.Error())
			return
		}
	}
	x.W.Int(int64(hll.CountRegisters(&regs)))
}

func pfmerge(x *cmdtable.Ctx) {
	var regs [hll.Registers]uint8
	dense := false
	for _, k := range x.Args[1:] {
		e, ok := hllValue(x, k, true)
		if !ok {
			return
		}
		if e == nil {
			continue
		}
		dense = dense || hll.IsDense(e.Bytes())
		if err := hll.MergeInto(&regs, e.Bytes()); err != nil {
			x.Error(err.Error())
			return
		}
	}
	dst := x.Args[1]
	e := x.Lookup(dst)
	if e == nil {
		e = x.Shard(dst).SetString(dst, nil, 0, false)
		e.SetBytes(hll.New())
	}
	b := e.Bytes()
	err := hll.SetRegisters(&b, &regs, dense)
	e.SetBytes(b)
	if err != nil {
		x.Error(err.Error())
		return
	}
	x.Notify(notify.String, "pfadd", dst)
	x.Touch(dst) // even when nothing changed, as Redis
	x.W.OK()
}

// pfdebug is Redis's PFDEBUG: GETREG (registers, converting to dense),
// DECODE (a sparse value's opcodes), ENCODING, TODENSE. Like Redis it finds
// the key before it looks at the subcommand.
func pfdebug(x *cmdtable.Ctx) {
	sub := x.Args[1]
	if cmdtable.Is(sub, "simd") {
		// HotKV's register loops are plain Go: there is no SIMD path to
		// switch.
		if !cmdtable.Is(x.Args[2], "on") && !cmdtable.Is(x.Args[2], "off") {
			x.Error("ERR Argument must be ON or OFF")
		} else {
			x.W.Simple("disabled")
		}
		x.NoEffects()
		return
	}
	key := x.Args[2]
	e, ok := hllValue(x, key, false)
	if !ok {
		return
	}
	if e == nil {
		x.Error("ERR The specified key does not exist")
		return
	}
	if !cmdtable.Is(sub, "getreg") && !cmdtable.Is(sub, "decode") && !cmdtable.Is(sub, "encoding") && !cmdtable.Is(sub, "todense") {
		x.Error("ERR Unknown PFDEBUG subcommand '" + string(sub) + "'")
		return
	}
	b := e.Bytes()
	switch {
	case cmdtable.Is(sub, "decode"):
		x.NoEffects()
		if hll.IsDense(b) {
			x.Error("ERR HLL encoding is not sparse")
			return
		}
		x.W.BulkString(hll.Decode(b))
		return
	case cmdtable.Is(sub, "encoding"):
		x.NoEffects()
		if hll.IsDense(b) {
			x.W.Simple("dense")
		} else {
			x.W.Simple("sparse")
		}
		return
	}
	converted := !hll.IsDense(b)
	if converted {
		d, err := hll.ToDense(b)
		if err != nil {
			x.Error(err.Error())
			return
		}
		// Same registers, new encoding: like Redis, no WATCH or tracking
		// signal, but the log replays the conversion.
		e.SetBytes(d)
		b = d
	} else {
		x.NoEffects()
	}
	if cmdtable.Is(sub, "todense") {
		if converted {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
		return
	}
	x.W.Array(hll.Registers)
	for i := range hll.Registers {
		x.W.Int(int64(hll.Register(b, i)))
	}
}

func pfselftest(x *cmdtable.Ctx) {
	if err := hll.SelfTest(); err != nil {
		x.Error(err.Error())
		return
	}
	x.W.OK()
}

func init() {
	const g = "hyperloglog"
	cmdtable.Register(
		&cmdtable.Cmd{Name: "pfadd", Arity: -2, Flags: cmdtable.Write | cmdtable.DenyOOM | cmdtable.Fast | cmdtable.SelfTouch, Effects: cmdtable.AsSent, First: 1, Last: 1, Step: 1, Run: pfadd, Group: g, Since: "2.8.9",
			Summary: "Adds elements to a HyperLogLog key. Creates the key if it doesn't exist.", Args: "key [element [element ...]]"},
		&cmdtable.Cmd{Name: "pfcount", Arity: -2, Flags: cmdtable.ReadOnly, First: 1, Last: -1, Step: 1, Run: pfcount, Group: g, Since: "2.8.9",
			Summary: "Returns the approximated cardinality of the set(s) observed by the HyperLogLog key(s).", Args: "key [key ...]"},
		&cmdtable.Cmd{Name: "pfmerge", Arity: -2, Flags: cmdtable.Write | cmdtable.DenyOOM | cmdtable.SelfTouch, Effects: cmdtable.AsSent, First: 1, Last: -1, Step: 1, Run: pfmerge, Group: g, Since: "2.8.9",
			Summary: "Merges one or more HyperLogLog values into a single key.", Args: "destkey [sourcekey [sourcekey ...]]"},
		&cmdtable.Cmd{Name: "pfdebug", Arity: 3, Flags: cmdtable.Write | cmdtable.DenyOOM | cmdtable.Admin | cmdtable.SelfTouch, Effects: cmdtable.AsSent, First: 2, Last: 2, Step: 1, Run: pfdebug, Group: g, Since: "2.8.9",
			Summary: "Internal commands for debugging HyperLogLog values.", Args: "subcommand key"},
		&cmdtable.Cmd{Name: "pfselftest", Arity: 1, Flags: cmdtable.Admin, Run: pfselftest, Group: g, Since: "2.8.9",
			Summary: "An internal command for testing HyperLogLog values."},
	)
}
