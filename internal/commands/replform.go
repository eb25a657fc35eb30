package commands

import (
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// The ReplForm of each command whose logged form a replica cannot run as
// is (cmdtable.Cmd.ReplForm): the log keeps the command with the time it
// ran, a replica (a Redis one too) gets what Redis's own master would send.
// Each takes the logged args (at least a key) and returns args unchanged
// when they do not parse: the command answered an error then.

var (
	bPexpireat  = []byte("PEXPIREAT")
	bHpexpireat = []byte("HPEXPIREAT")
	bPxat       = []byte("PXAT")
	bSet        = []byte("SET")
	bDel        = []byte("DEL")
	bUnlink     = []byte("UNLINK")
)

// delOrUnlink is the command Redis sends for a deletion, lazy or not.
func delOrUnlink(lazy bool) []byte {
	if lazy {
		return bUnlink
	}
	return bDel
}

// absTime is the time v (in unit milliseconds) names, from now when rel.
func absTime(v []byte, unit int64, rel bool, now int64) ([]byte, bool) {
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

// expireForm is EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT as PEXPIREAT; a
// time already past (with no condition) deletes the key.
func expireForm(unit int64, rel bool) func([][]byte, cmdtable.ReplEnv) [][]byte {
	return func(args [][]byte, env cmdtable.ReplEnv) [][]byte {
		if len(args) < 3 {
			return args
		}
		at, ok := absTime(args[2], unit, rel, env.Now)
		if !ok {
			return args
		}
		if len(args) == 3 {
			if n, _ := strconv.ParseInt(string(at), 10, 64); n <= env.Now {
				return [][]byte{delOrUnlink(env.LazyExpire), args[1]}
			}
		}
		return append([][]byte{bPexpireat, args[1], at}, args[3:]...)
	}
}

// setexForm is SETEX and PSETEX as SET ... PXAT.
func setexForm(unit int64) func([][]byte, cmdtable.ReplEnv) [][]byte {
	return func(args [][]byte, env cmdtable.ReplEnv) [][]byte {
		if len(args) != 4 {
			return args
		}
		at, ok := absTime(args[2], unit, true, env.Now)
		if !ok {
			return args
		}
		return [][]byte{bSet, args[1], args[3], bPxat, at}
	}
}

// setForm is SET as setGenericCommand propagates it: EX, PX or EXAT make
// SET key value PXAT (other options dropped), PXAT stays as sent, GET is
// dropped.
func setForm(args [][]byte, env cmdtable.ReplEnv) [][]byte {
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
			at, ok := absTime(args[i+1], unit, rel, env.Now)
			if !ok {
				return args
			}
			return [][]byte{args[0], args[1], args[2], bPxat, at}
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
}

// pxatOptions rewrites the EX, PX and EXAT options before FIELDS (HSETEX,
// HGETEX, GETEX) as PXAT, in a copy of args; changed says whether any was.
func pxatOptions(args [][]byte, now int64) (out [][]byte, changed, ok bool) {
	out = append([][]byte(nil), args...)
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
		at, ok := absTime(out[i+1], unit, rel, now)
		if !ok {
			return nil, false, false
		}
		out[i], out[i+1] = bPxat, at
		changed = true
		i++
	}
	return out, changed, true
}

// hashExpiryOptionsForm is HSETEX and HGETEX with their expiry absolute.
func hashExpiryOptionsForm(args [][]byte, env cmdtable.ReplEnv) [][]byte {
	out, changed, ok := pxatOptions(args, env.Now)
	if !ok || !changed {
		return args
	}
	return out
}

// getexForm is what GETEX did to the TTL, as Redis propagates it:
// PEXPIREAT, PERSIST, a deletion when the time is already past, nothing
// without an option.
func getexForm(args [][]byte, env cmdtable.ReplEnv) [][]byte {
	out, _, ok := pxatOptions(args, env.Now)
	if !ok {
		return args
	}
	for i := 2; i < len(out); i++ {
		switch strings.ToLower(string(out[i])) {
		case "pxat":
			if i+1 < len(out) {
				if n, _ := strconv.ParseInt(string(out[i+1]), 10, 64); n <= env.Now {
					return [][]byte{delOrUnlink(env.LazyExpire), args[1]} // already past: deleted
				}
				return [][]byte{bPexpireat, args[1], out[i+1]}
			}
		case "persist":
			return [][]byte{[]byte("PERSIST"), args[1]}
		}
	}
	return nil
}

// hexpireForm is HEXPIRE, HPEXPIRE and HEXPIREAT as HPEXPIREAT.
func hexpireForm(unit int64, rel bool) func([][]byte, cmdtable.ReplEnv) [][]byte {
	return func(args [][]byte, env cmdtable.ReplEnv) [][]byte {
		if len(args) < 3 {
			return args
		}
		at, ok := absTime(args[2], unit, rel, env.Now)
		if !ok {
			return args
		}
		return append([][]byte{bHpexpireat, args[1], at}, args[3:]...)
	}
}

// blmoveForm is BLMOVE without its timeout.
func blmoveForm(args [][]byte, _ cmdtable.ReplEnv) [][]byte {
	if len(args) == 6 {
		return [][]byte{[]byte("LMOVE"), args[1], args[2], args[3], args[4]}
	}
	return args
}

// brpoplpushForm is BRPOPLPUSH without its timeout.
func brpoplpushForm(args [][]byte, _ cmdtable.ReplEnv) [][]byte {
	if len(args) == 4 {
		return [][]byte{[]byte("RPOPLPUSH"), args[1], args[2]}
	}
	return args
}

// getdelForm is GETDEL as the DEL of its key.
func getdelForm(args [][]byte, _ cmdtable.ReplEnv) [][]byte { return [][]byte{bDel, args[1]} }

// getsetForm is GETSET as SET.
func getsetForm(args [][]byte, _ cmdtable.ReplEnv) [][]byte {
	if len(args) == 3 {
		return [][]byte{bSet, args[1], args[2]}
	}
	return args
}

// hgetdelForm is HGETDEL as the HDEL of the fields asked for, as Redis.
func hgetdelForm(args [][]byte, _ cmdtable.ReplEnv) [][]byte {
	if len(args) > 4 {
		return append([][]byte{[]byte("HDEL"), args[1]}, args[4:]...)
	}
	return args
}

// restoreForm is RESTORE with an absolute TTL (ABSTTL); one already past
// stored nothing, and with REPLACE deleted what it replaced.
func restoreForm(args [][]byte, env cmdtable.ReplEnv) [][]byte {
	if len(args) < 4 {
		return args
	}
	replace := false
	for _, a := range args[4:] {
		replace = replace || cmdtable.Is(a, "replace")
	}
	for _, a := range args[4:] {
		if cmdtable.Is(a, "absttl") {
			if at, err := strconv.ParseInt(string(args[2]), 10, 64); err == nil && at > 0 && at <= env.Now {
				if replace { // stored nothing, deleted what it replaced
					return [][]byte{delOrUnlink(env.LazyServerDel), args[1]}
				}
				return nil
			}
			return args
		}
	}
	if ttl, err := strconv.ParseInt(string(args[2]), 10, 64); err != nil || ttl <= 0 {
		return args
	}
	at, _ := absTime(args[2], 1, true, env.Now)
	out := append([][]byte{args[0], args[1], at}, args[3:]...)
	return append(out, []byte("ABSTTL"))
}

// withReplForm sets c's ReplForm, for commands registered through helpers.
func withReplForm(c *cmdtable.Cmd, f func([][]byte, cmdtable.ReplEnv) [][]byte) *cmdtable.Cmd {
	c.ReplForm = f
	return c
}

// expireUnit is the milliseconds in a unit of EXPIRE's time: seconds, or
// milliseconds (the P forms).
func expireUnit(sec bool) int64 {
	if sec {
		return 1000
	}
	return 1
}
