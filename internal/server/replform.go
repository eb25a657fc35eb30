package server

import (
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
)

// redisForm is the command a Redis replica runs to do what args did at
// now: relative expiry becomes absolute (PEXPIREAT, SET ... PXAT, RESTORE
// ... ABSTTL, HPEXPIREAT), an expiry already past a DEL, GETEX its effect
// on the TTL. nil: nothing to send.
func redisForm(args [][]byte, now int64, st *config.ReplMaster) [][]byte {
	if len(args) < 2 {
		return args
	}
	name := strings.ToLower(string(args[0]))
	abs := func(v []byte, unit int64, rel bool) ([]byte, bool) {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return nil, false
		}
		n *= unit
		if rel {
			n += now
		}
		return strconv.AppendInt(nil, n, 10), true
	}
	switch name {
	case "expire", "pexpire", "expireat", "pexpireat":
		if len(args) < 3 {
			return args
		}
		unit := int64(1000)
		if name[0] == 'p' {
			unit = 1
		}
		at, ok := abs(args[2], unit, !strings.HasSuffix(name, "at"))
		if !ok {
			return args
		}
		if len(args) == 3 {
			if n, _ := strconv.ParseInt(string(at), 10, 64); n <= now {
				return [][]byte{delOrUnlink(st.LazyExpire), args[1]}
			}
		}
		return append([][]byte{[]byte("PEXPIREAT"), args[1], at}, args[3:]...)
	case "setex", "psetex":
		if len(args) != 4 {
			return args
		}
		unit := int64(1000)
		if name == "psetex" {
			unit = 1
		}
		at, ok := abs(args[2], unit, true)
		if !ok {
			return args
		}
		return [][]byte{[]byte("SET"), args[1], args[3], []byte("PXAT"), at}
	case "set":
		// As setGenericCommand: EX, PX or EXAT makes SET key value PXAT
		// (other options dropped), PXAT stays as sent, GET is dropped.
		if len(args) < 3 {
			return args
		}
		get := false
		for i := 3; i < len(args); i++ {
			opt := strings.ToLower(string(args[i]))
			switch opt {
			case "get":
				get = true
			case "ex", "px", "exat":
				if i+1 >= len(args) {
					return args
				}
				unit, rel := int64(1000), opt != "exat"
				if opt == "px" {
					unit = 1
				}
				at, ok := abs(args[i+1], unit, rel)
				if !ok {
					return args
				}
				return [][]byte{args[0], args[1], args[2], []byte("PXAT"), at}
			case "pxat":
				return args
			}
		}
		if !get {
			return args
		}
		out := args[:3:3]
		for _, a := range args[3:] {
			if !cmdtable.Is(a, "get") {
				out = append(out, a)
			}
		}
		return out
	case "hsetex", "hgetex", "getex":
		out := append([][]byte(nil), args...)
		changed := false
		for i := 2; i < len(out); i++ {
			opt := strings.ToLower(string(out[i]))
			if opt == "fields" {
				break
			}
			if i+1 >= len(out) {
				break
			}
			var unit int64
			rel := true
			switch opt {
			case "ex":
				unit = 1000
			case "px":
				unit = 1
			case "exat":
				unit, rel = 1000, false
			default:
				continue
			}
			at, ok := abs(out[i+1], unit, rel)
			if !ok {
				return args
			}
			out[i], out[i+1] = []byte("PXAT"), at
			changed = true
			i++
		}
		if name == "getex" { // what it did to the TTL, as Redis propagates it
			for i := 2; i < len(out); i++ {
				switch strings.ToLower(string(out[i])) {
				case "pxat":
					if i+1 < len(out) {
						if n, _ := strconv.ParseInt(string(out[i+1]), 10, 64); n <= now {
							return [][]byte{delOrUnlink(st.LazyExpire), args[1]} // already past: deleted
						}
						return [][]byte{[]byte("PEXPIREAT"), args[1], out[i+1]}
					}
				case "persist":
					return [][]byte{[]byte("PERSIST"), args[1]}
				}
			}
			return nil
		}
		if !changed {
			return args
		}
		return out
	case "hexpire", "hpexpire", "hexpireat":
		if len(args) < 3 {
			return args
		}
		unit := int64(1000)
		if name == "hpexpire" {
			unit = 1
		}
		at, ok := abs(args[2], unit, name != "hexpireat")
		if !ok {
			return args
		}
		return append([][]byte{[]byte("HPEXPIREAT"), args[1], at}, args[3:]...)
	case "blmove": // without its timeout
		if len(args) == 6 {
			return [][]byte{[]byte("LMOVE"), args[1], args[2], args[3], args[4]}
		}
	case "brpoplpush":
		if len(args) == 4 {
			return [][]byte{[]byte("RPOPLPUSH"), args[1], args[2]}
		}
	case "getdel":
		return [][]byte{bDel, args[1]}
	case "getset":
		if len(args) == 3 {
			return [][]byte{[]byte("SET"), args[1], args[2]}
		}
	case "hgetdel": // HDEL of the fields asked for, as Redis
		if len(args) > 4 {
			return append([][]byte{[]byte("HDEL"), args[1]}, args[4:]...)
		}
	case "restore":
		if len(args) < 4 {
			return args
		}
		replace := false
		for _, a := range args[4:] {
			replace = replace || cmdtable.Is(a, "replace")
		}
		for _, a := range args[4:] {
			if cmdtable.Is(a, "absttl") {
				if at, err := strconv.ParseInt(string(args[2]), 10, 64); err == nil && at > 0 && at <= now {
					if replace { // stored nothing, deleted what it replaced
						return [][]byte{delOrUnlink(st.LazyServerDel), args[1]}
					}
					return nil
				}
				return args
			}
		}
		if ttl, err := strconv.ParseInt(string(args[2]), 10, 64); err != nil || ttl <= 0 {
			return args
		}
		at, _ := abs(args[2], 1, true)
		out := append([][]byte{args[0], args[1], at}, args[3:]...)
		return append(out, []byte("ABSTTL"))
	}
	return args
}
