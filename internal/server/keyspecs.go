package server

import (
	"math"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/resp"
)

// Key specs: how COMMAND INFO describes a command's keys and how COMMAND
// GETKEYSANDFLAGS flags each key it finds. For the commands HotKV shares
// with Redis they are Redis 8.0.2's own (redisSpecs, generated from a real
// Redis); a command Redis lacks gets one spec approximated from its flags.
// Key positions themselves always come from the command table (First/Last/
// Step or Keys), as COMMAND GETKEYS and the dispatcher find them.

// keyFlags are a key spec's flags, in the order Redis prints them.
type keyFlags uint16

const (
	ksRO keyFlags = 1 << iota
	ksRW
	ksOW
	ksRM
	ksAccess
	ksUpdate
	ksInsert
	ksDelete
	ksNotKey
	ksIncomplete
	ksVariableFlags
)

var keyFlagNames = [...]string{"RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key",
	"incomplete", "variable_flags"}

func (f keyFlags) names() []string {
	var out []string
	for i, n := range keyFlagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// beginSearch is where a spec's keys start: at an index, after a keyword
// searched from startFrom (negative: backwards from the end), or unknown.
type beginSearch struct {
	kind      byte // 'i'ndex, 'k'eyword, 'u'nknown
	index     int
	keyword   string
	startFrom int
}

// findKeys is how many keys follow the start: a range (lastKey relative to
// the start, or negative from the end; limit divides what is left), a
// count read from an argument (keynum), or unknown.
type findKeys struct {
	kind                      byte // 'r'ange, 'n' keynum, 'u'nknown
	lastKey, keyStep, limit   int
	keyNumIdx, firstKey, step int
}

type keySpec struct {
	notes string
	flags keyFlags
	bs    beginSearch
	fk    findKeys
}

// cmdSpecs is what COMMAND INFO shows of a command beyond the command
// table: its tips and key specs.
type cmdSpecs struct {
	tips []string
	keys []keySpec
}

func bsIndex(i int) beginSearch { return beginSearch{kind: 'i', index: i} }
func bsKeyword(kw string, from int) beginSearch {
	return beginSearch{kind: 'k', keyword: kw, startFrom: from}
}
func fkRange(last, step, limit int) findKeys {
	return findKeys{kind: 'r', lastKey: last, keyStep: step, limit: limit}
}
func fkKeynum(idx, first, step int) findKeys {
	return findKeys{kind: 'n', keyNumIdx: idx, firstKey: first, step: step}
}

var (
	bsUnknown = beginSearch{kind: 'u'}
	fkUnknown = findKeys{kind: 'u'}
)

// approxKeySpec is the one key spec of a command Redis does not have,
// derived from its flags.
func approxKeySpec(c *cmdtable.Cmd) keySpec {
	ks := keySpec{bs: bsIndex(c.First)}
	last := c.Last
	if last > 0 {
		last -= c.First
	}
	ks.fk = fkRange(last, max(c.Step, 1), 0)
	switch {
	case c.Flags&cmdtable.PubSub != 0:
		ks.flags = ksNotKey
	case c.Flags&cmdtable.Write != 0:
		ks.flags = ksRW | ksUpdate
	case c.Flags&cmdtable.ReadOnly != 0:
		ks.flags = ksRO | ksAccess
	default:
		ks.flags = ksRO
	}
	return ks
}

// specsOf returns c's tips and key specs for COMMAND INFO.
func specsOf(c *cmdtable.Cmd) cmdSpecs {
	if s, ok := redisSpecs[c.Name]; ok {
		return s
	}
	if c.First > 0 {
		return cmdSpecs{keys: []keySpec{approxKeySpec(c)}}
	}
	return cmdSpecs{}
}

// writeKeySpecs writes COMMAND INFO's key specs field, as Redis's
// addReplyCommandKeySpecs does.
func writeKeySpecs(w *resp.Writer, specs []keySpec) {
	w.Set(len(specs))
	for _, ks := range specs {
		n := 3
		if ks.notes != "" {
			n++
		}
		w.Map(n)
		if ks.notes != "" {
			w.BulkString("notes")
			w.BulkString(ks.notes)
		}
		w.BulkString("flags")
		writeKeyFlags(w, ks.flags)
		w.BulkString("begin_search")
		w.Map(2)
		w.BulkString("type")
		switch ks.bs.kind {
		case 'i':
			w.BulkString("index")
			w.BulkString("spec")
			w.Map(1)
			w.BulkString("index")
			w.Int(int64(ks.bs.index))
		case 'k':
			w.BulkString("keyword")
			w.BulkString("spec")
			w.Map(2)
			w.BulkString("keyword")
			w.BulkString(ks.bs.keyword)
			w.BulkString("startfrom")
			w.Int(int64(ks.bs.startFrom))
		default:
			w.BulkString("unknown")
			w.BulkString("spec")
			w.Map(0)
		}
		w.BulkString("find_keys")
		w.Map(2)
		w.BulkString("type")
		switch ks.fk.kind {
		case 'r':
			w.BulkString("range")
			w.BulkString("spec")
			w.Map(3)
			w.BulkString("lastkey")
			w.Int(int64(ks.fk.lastKey))
			w.BulkString("keystep")
			w.Int(int64(ks.fk.keyStep))
			w.BulkString("limit")
			w.Int(int64(ks.fk.limit))
		case 'n':
			w.BulkString("keynum")
			w.BulkString("spec")
			w.Map(3)
			w.BulkString("keynumidx")
			w.Int(int64(ks.fk.keyNumIdx))
			w.BulkString("firstkey")
			w.Int(int64(ks.fk.firstKey))
			w.BulkString("keystep")
			w.Int(int64(ks.fk.step))
		default:
			w.BulkString("unknown")
			w.BulkString("spec")
			w.Map(0)
		}
	}
}

func writeKeyFlags(w *resp.Writer, f keyFlags) {
	names := f.names()
	w.Set(len(names))
	for _, n := range names {
		w.Simple(n)
	}
}

// specKeys finds keys as Redis's getKeysUsingKeySpecs does, appending
// (position, flags) pairs; ok is false where Redis falls back to the
// command's own key finder (an unknown or incomplete spec, a bad count).
func specKeys(specs []keySpec, args [][]byte) (pos []int, flags []keyFlags, ok bool) {
	argc := len(args)
	for _, sp := range specs {
		if sp.flags&ksNotKey != 0 {
			continue
		}
		first := 0
		switch sp.bs.kind {
		case 'i':
			first = sp.bs.index
		case 'k':
			start, end := sp.bs.startFrom, argc-1
			if start <= 0 {
				start, end = argc+sp.bs.startFrom, 1
			}
			for i := start; i != end; {
				if i >= argc || i < 1 {
					break
				}
				if equalFoldASCII(args[i], sp.bs.keyword) {
					first = i + 1
					break
				}
				if start <= end {
					i++
				} else {
					i--
				}
			}
			if first == 0 {
				continue // keyword not found
			}
		default:
			return nil, nil, false
		}
		var last, step int
		switch sp.fk.kind {
		case 'r':
			step = sp.fk.keyStep
			switch {
			case sp.fk.lastKey >= 0:
				last = first + sp.fk.lastKey
			case sp.fk.limit == 0:
				last = argc + sp.fk.lastKey
			default:
				last = first + ((argc-first)/sp.fk.limit + sp.fk.lastKey)
			}
		case 'n':
			step = sp.fk.step
			if sp.fk.keyNumIdx >= argc || first+sp.fk.keyNumIdx >= argc {
				return nil, nil, false
			}
			n, isInt := cmdtable.ParseInt(args[first+sp.fk.keyNumIdx])
			if !isInt || n < 0 || n > int64(argc) {
				return nil, nil, false
			}
			first += sp.fk.firstKey
			last = first + int(n) - 1
		default:
			return nil, nil, false
		}
		if last >= argc || last < first || first >= argc {
			return nil, nil, false
		}
		for i := first; i <= last; i += max(step, 1) {
			pos = append(pos, i)
			flags = append(flags, sp.flags)
		}
		if sp.flags&ksIncomplete != 0 {
			return nil, nil, false
		}
	}
	return pos, flags, true
}

// hasKeys is Redis's doesCommandHaveKeys: whether c may name keys at all
// (a key spec that is not not_key, or a key finder of its own).
func hasKeys(c *cmdtable.Cmd) bool {
	if c.First == 0 && c.Keys == nil {
		return false
	}
	sp, ok := redisSpecs[c.Name]
	if !ok || len(sp.keys) == 0 {
		return c.Keys != nil || approxKeySpec(c).flags&ksNotKey == 0
	}
	for _, ks := range sp.keys {
		if ks.flags&ksNotKey == 0 {
			return true
		}
	}
	return false
}

// keysOf finds the keys of args (a call of c) and their flags as Redis's
// getKeysFromCommandWithSpecs does, for COMMAND GETKEYS and
// GETKEYSANDFLAGS: by the key specs when they are complete and their
// flags fixed, else as the command's own key finder (getkeys_proc) does.
// A command Redis lacks has its keys from the command table (pos,
// c.KeyPositions(args)), flagged by its approximated spec.
func keysOf(c *cmdtable.Cmd, args [][]byte, pos []int) ([]int, []keyFlags) {
	sp, ok := redisSpecs[c.Name]
	if !ok || len(sp.keys) == 0 {
		flags := make([]keyFlags, len(pos))
		for i := range flags {
			flags[i] = approxKeySpec(c).flags
		}
		return pos, flags
	}
	var all keyFlags
	for _, ks := range sp.keys {
		all |= ks.flags
	}
	if all&ksVariableFlags == 0 {
		if pos, flags, ok := specKeys(sp.keys, args); ok {
			return pos, flags
		}
	}
	switch c.Name {
	case "set": // RW and ACCESS only with GET
		f := ksOW | ksUpdate
		for _, a := range args[3:] {
			if len(a) >= 3 && cmdtable.Is(a[:3], "get") && (len(a) == 3 || a[3] == 0) {
				f = ksRW | ksAccess | ksUpdate
				break
			}
		}
		return []int{1}, []keyFlags{f}
	case "bitfield": // read-only unless it SETs or INCRBYs (or cannot be parsed)
		f := ksRO | ksAccess
	scan:
		for i := 2; i < len(args); i++ {
			rem := len(args) - i - 1
			switch a := args[i]; {
			case cmdtable.Is(a, "get") && rem >= 2:
				i += 2
			case (cmdtable.Is(a, "set") || cmdtable.Is(a, "incrby")) && rem >= 3:
				f = ksRW | ksAccess | ksUpdate
				break scan
			case cmdtable.Is(a, "overflow") && rem >= 1:
				i++
			default:
				f = ksRW | ksAccess | ksUpdate
				break scan
			}
		}
		return []int{1}, []keyFlags{f}
	}
	for i, ks := range sp.keys {
		if ks.fk.kind == 'n' { // a numkeys count that did not parse as string2ll does
			store := 0
			if len(sp.keys) == 2 && i == 1 {
				store = sp.keys[0].bs.index
			}
			return genericGetKeys(args, store, ks.bs.index+ks.fk.keyNumIdx, ks.bs.index+ks.fk.firstKey, max(ks.fk.step, 1))
		}
	}
	if !ownKeyFinder[c.Name] {
		return nil, nil // specs that do not fit, and nothing to fall back on
	}
	// The other finders (SORT's STORE, GEORADIUS's STORE and STOREDIST,
	// XREAD's STREAMS) find what the command table does, and flag the first
	// key as the first spec does and any other as the last one does.
	flags := make([]keyFlags, len(pos))
	mask := ^(ksIncomplete | ksVariableFlags)
	for i := range flags {
		if i == 0 {
			flags[i] = sp.keys[0].flags & mask
		} else {
			flags[i] = sp.keys[len(sp.keys)-1].flags & mask
		}
	}
	return pos, flags
}

// ownKeyFinder: the commands with incomplete or unknown key specs for which
// Redis has a key finder of its own that the command table's follows.
var ownKeyFinder = map[string]bool{"sort": true, "sort_ro": true, "georadius": true, "georadiusbymember": true,
	"xread": true, "xreadgroup": true, "migrate": true}

// genericGetKeys is Redis's key finder for numkeys commands, used when the
// count is not a plain integer: it reads the count with atoi, and lists the
// keys, then the destination (store, when not 0), all without flags.
func genericGetKeys(args [][]byte, store, count, first, step int) ([]int, []keyFlags) {
	if count >= len(args) {
		return nil, nil
	}
	num := atoi(args[count])
	if num < 1 || num > (len(args)-first)/step {
		return nil, nil
	}
	var pos []int
	for i := 0; i < num; i++ {
		pos = append(pos, first+i*step)
	}
	if store != 0 {
		pos = append(pos, store)
	}
	return pos, make([]keyFlags, len(pos))
}

// atoi is glibc's: strtol's value (leading spaces, a sign, digits up to
// anything else; clamped to int64) cut to an int32.
func atoi(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var n uint64
	over := false
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if d := uint64(b[i] - '0'); n > (math.MaxInt64-d)/10 {
			over = true
		} else {
			n = n*10 + d
		}
	}
	v := int64(n)
	switch {
	case over && neg:
		v = math.MinInt64
	case over:
		v = math.MaxInt64
	case neg:
		v = -v
	}
	return int(int32(v))
}

// equalFoldASCII is strcasecmp(a, b) == 0.
func equalFoldASCII(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
