package commands

import (
	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// String commands.

// stringValue returns key's string entry; ok is false (and WRONGTYPE has been
// answered) when the key holds another type.
func stringValue(x *command.Ctx, key []byte) (e *keyspace.Entry, ok bool) {
	e = x.LookupRead(key)
	if e != nil && e.Kind != keyspace.KindString {
		x.Error(command.ErrWrongType)
		return nil, false
	}
	return e, true
}

func get(x *command.Ctx) {
	e, ok := stringValue(x, x.Args[1])
	if !ok {
		return
	}
	if e == nil {
		x.W.Null()
		return
	}
	x.W.Bulk(e.Str)
}

// expireOpts parses EX/PX/EXAT/PXAT (and KEEPTTL where allowed) at args[i],
// returning the absolute expiry in ms. cmd names the command for the error.
func expireArg(x *command.Ctx, unit, val []byte, cmd string) (at int64, ok bool) {
	n, ok := command.ParseInt(val)
	if !ok {
		x.Error(command.ErrNotInt)
		return 0, false
	}
	invalid := "ERR invalid expire time in '" + cmd + "' command"
	if n <= 0 {
		x.Error(invalid)
		return 0, false
	}
	const maxMs = 1<<63 - 1
	switch {
	case command.Is(unit, "ex"):
		if n > maxMs/1000-x.Now/1000 {
			x.Error(invalid)
			return 0, false
		}
		return x.Now + n*1000, true
	case command.Is(unit, "px"):
		if n > maxMs-x.Now {
			x.Error(invalid)
			return 0, false
		}
		return x.Now + n, true
	case command.Is(unit, "exat"):
		if n > maxMs/1000 {
			x.Error(invalid)
			return 0, false
		}
		return n * 1000, true
	default: // pxat
		return n, true
	}
}

func set(x *command.Ctx) {
	const (
		nx = 1 << iota
		xx
		withGet
		keepTTL
		expiry
	)
	var flags int
	var at int64
	args := x.Args
	for i := 3; i < len(args); i++ {
		a := args[i]
		switch {
		case command.Is(a, "nx") && flags&xx == 0:
			flags |= nx
		case command.Is(a, "xx") && flags&nx == 0:
			flags |= xx
		case command.Is(a, "get"):
			flags |= withGet
		case command.Is(a, "keepttl") && flags&expiry == 0:
			flags |= keepTTL
		case (command.Is(a, "ex") || command.Is(a, "px") || command.Is(a, "exat") || command.Is(a, "pxat")) &&
			flags&(expiry|keepTTL) == 0 && i+1 < len(args):
			flags |= expiry
			var ok bool
			if at, ok = expireArg(x, a, args[i+1], "set"); !ok {
				return
			}
			i++
		default:
			x.Error(command.ErrSyntax)
			return
		}
	}
	key := args[1]
	sh := x.Shard(key)
	old := sh.Lookup(key, x.Now)
	if flags&withGet != 0 && old != nil && old.Kind != keyspace.KindString {
		x.Error(command.ErrWrongType)
		return
	}
	if (flags&nx != 0 && old != nil) || (flags&xx != 0 && old == nil) {
		if flags&withGet != 0 {
			replyOld(x, old)
		} else {
			x.W.Null()
		}
		return
	}
	if flags&withGet != 0 {
		replyOld(x, old) // before the buffer is reused by the new value
	}
	if flags&expiry != 0 && at <= x.Now {
		sh.Delete(key, x.Now) // an absolute time in the past: the key is gone at once
	} else {
		sh.SetString(key, args[2], at, flags&keepTTL != 0)
	}
	if flags&withGet == 0 {
		x.W.OK()
	}
}

func replyOld(x *command.Ctx, old *keyspace.Entry) {
	if old == nil {
		x.W.Null()
		return
	}
	x.W.Bulk(old.Str)
}

func init() {
	const g = "string"
	command.Register(
		&command.Cmd{Name: "get", Arity: 2, Flags: command.ReadOnly | command.Fast, First: 1, Last: 1, Step: 1, Run: get, Group: g, Since: "1.0.0",
			Summary: "Returns the string value of a key.", Args: "key"},
		&command.Cmd{Name: "set", Arity: -3, Flags: command.Write | command.DenyOOM, First: 1, Last: 1, Step: 1, Run: set, Group: g, Since: "1.0.0",
			Summary: "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
			Args:    "key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]"},
	)
}
