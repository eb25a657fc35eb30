package commands

import (
	"math"
	"strconv"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/value/stream"
)

// Stream commands: entries (XADD, XRANGE, XDEL, XTRIM, XSETID), reading
// (XREAD, XREADGROUP) and, in streamgroups.go, consumer groups. Arguments are
// checked in Redis's order (t_stream.c) so that the same bad command gets the
// same error. Unlike other collections, a stream stays when it is empty.

const (
	errInvalidID    = "ERR Invalid stream ID specified as stream command argument"
	errIDZero       = "ERR The ID specified in XADD must be greater than 0-0"
	errIDSmaller    = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	errIDExhausted  = "ERR The stream has exhausted the last possible ID, unable to add more items"
	errStartID      = "ERR invalid start ID for the interval"
	errEndID        = "ERR invalid end ID for the interval"
	errTrimBoth     = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	errMaxLenNeg    = "ERR The MAXLEN argument must be >= 0."
	errLimitNeg     = "ERR The LIMIT argument must be >= 0."
	errLimitNoTrim  = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	errLimitNoApprx = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	errXTrimNoStrat = "ERR syntax error, XTRIM must be called with a trimming strategy"
)

// streamAt returns key's stream, nil when the key does not exist; ok is
// false after WRONGTYPE.
func streamAt(x *cmdtable.Ctx, key []byte, read bool) (*stream.Stream, bool) {
	return typed[*stream.Stream](x, key, keyspace.KindStream, read)
}

func createStream(x *cmdtable.Ctx, key []byte) *stream.Stream {
	s := stream.New()
	x.Shard(key).Put(key, &keyspace.Entry{Kind: keyspace.KindStream, Obj: s})
	return s
}

// idArg parses a strict ID ("-" and "+" refused), answering the error.
func idArg(x *cmdtable.Ctx, b []byte, missingSeq uint64) (stream.ID, bool) {
	id, _, ok := stream.ParseID(b, missingSeq, false)
	if !ok {
		x.Error(errInvalidID)
	}
	return id, ok
}

// idList parses every ID of XDEL or XACK before either changes anything:
// a bad one fails the whole command.
func idList(x *cmdtable.Ctx, args [][]byte) ([]stream.ID, bool) {
	ids := make([]stream.ID, 0, len(args))
	for _, a := range args {
		id, ok := idArg(x, a, 0)
		if !ok {
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, true
}

// lenientID is idArg that also takes "-" and "+" (streamParseIDOrReply).
func lenientID(x *cmdtable.Ctx, b []byte, missingSeq uint64) (stream.ID, bool) {
	switch string(b) {
	case "-":
		return stream.ID{}, true
	case "+":
		return stream.MaxID, true
	}
	return idArg(x, b, missingSeq)
}

// rangeStart parses a range's start: "-", an ID (sequence 0 if left out),
// or "(ID" for the ID after it.
func rangeStart(x *cmdtable.Ctx, b []byte) (stream.ID, bool) {
	if len(b) > 1 && b[0] == '(' {
		id, ok := idArg(x, b[1:], 0)
		if !ok {
			return id, false
		}
		if id, ok = id.Next(); !ok {
			x.Error(errStartID)
		}
		return id, ok
	}
	return lenientID(x, b, 0)
}

// rangeEnd parses a range's end: "+", an ID (last sequence if left out), or
// "(ID" for the ID before it.
func rangeEnd(x *cmdtable.Ctx, b []byte) (stream.ID, bool) {
	if len(b) > 1 && b[0] == '(' {
		id, ok := idArg(x, b[1:], math.MaxUint64)
		if !ok {
			return id, false
		}
		if id, ok = id.Prev(); !ok {
			x.Error(errEndID)
		}
		return id, ok
	}
	return lenientID(x, b, math.MaxUint64)
}

func writeID(x *cmdtable.Ctx, id stream.ID) {
	var buf [42]byte
	x.W.Bulk(id.Append(buf[:0]))
}

func idBytes(id stream.ID) []byte { return id.Append(nil) }

// writeEntry writes an entry as Redis does: its ID and its fields and values.
func writeEntry(x *cmdtable.Ctx, e stream.Entry) {
	x.W.Array(2)
	writeID(x, e.ID)
	x.W.Array(e.Len())
	e.Each(x.W.Bulk)
}

// writeRange writes the entries from start to end (count 0: all).
func writeRange(x *cmdtable.Ctx, s *stream.Stream, start, end stream.ID, count int64, rev bool) {
	var n int64
	mark := x.W.Deferred()
	s.Range(start, end, rev, func(e stream.Entry) bool {
		writeEntry(x, e)
		n++
		return count == 0 || n < count
	})
	x.W.FillArray(mark, int(n))
}

// trimArgs are the trimming options of XADD and XTRIM.
type trimArgs struct {
	strategy int // 0, stream.TrimMaxLen or stream.TrimMinID
	maxLen   int64
	minID    stream.ID
	approx   bool
	limit    int64
}

// parseTrimAndID reads XADD's options up to its ID, or XTRIM's options
// (streamParseAddOrTrimArgsOrReply). For XADD it returns the ID's position
// and what the ID says: given, with its sequence given.
func parseTrimAndID(x *cmdtable.Ctx, xadd bool) (t trimArgs, noMk bool, idPos int, id stream.ID, idGiven, seqGiven, ok bool) {
	limitGiven := false
	i := 2
	for ; i < len(x.Args); i++ {
		more := len(x.Args) - 1 - i
		opt := x.Args[i]
		switch {
		case xadd && string(opt) == "*":
			goto parsed
		case cmdtable.Is(opt, "maxlen") && more > 0, cmdtable.Is(opt, "minid") && more > 0:
			if t.strategy != 0 {
				x.Error(errTrimBoth)
				return
			}
			t.approx = false
			if next := x.Args[i+1]; more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				t.approx = next[0] == '~'
				i++
			}
			if cmdtable.Is(opt, "maxlen") {
				n, good := cmdtable.ParseInt(x.Args[i+1])
				if !good {
					x.Error(cmdtable.ErrNotInt)
					return
				}
				if n < 0 {
					x.Error(errMaxLenNeg)
					return
				}
				t.strategy, t.maxLen = stream.TrimMaxLen, n
			} else {
				m, good := idArg(x, x.Args[i+1], 0)
				if !good {
					return
				}
				t.strategy, t.minID = stream.TrimMinID, m
			}
			i++
		case cmdtable.Is(opt, "limit") && more > 0:
			n, good := cmdtable.ParseInt(x.Args[i+1])
			if !good {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			if n < 0 {
				x.Error(errLimitNeg)
				return
			}
			t.limit, limitGiven = n, true
			i++
		case xadd && cmdtable.Is(opt, "nomkstream"):
			noMk = true
		case xadd:
			var star, good bool
			if id, star, good = stream.ParseID(opt, 0, true); !good {
				x.Error(errInvalidID)
				return
			}
			idGiven, seqGiven = true, !star
			goto parsed
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
parsed:
	switch {
	case t.limit != 0 && t.strategy == 0:
		x.Error(errLimitNoTrim)
		return
	case !xadd && t.strategy == 0:
		x.Error(errXTrimNoStrat)
		return
	case limitGiven && !t.approx:
		x.Error(errLimitNoApprx)
		return
	case !limitGiven && t.approx:
		t.limit = 100 * stream.NodeMaxEntries() // the LIMIT of a "~" trim that names none
	}
	return t, noMk, i, id, idGiven, seqGiven, true
}

// trim applies t, notifies xtrim if it removed anything, and returns the
// number removed.
func trim(x *cmdtable.Ctx, key []byte, s *stream.Stream, t trimArgs) int64 {
	n := s.Trim(t.strategy, t.maxLen, t.minID, t.approx, t.limit)
	if n > 0 {
		x.Notify(notify.Stream, "xtrim", key)
	}
	return n
}

// exactTrim is the XTRIM that a replay runs to trim exactly what an
// approximate trim did.
func exactTrim(key []byte, s *stream.Stream) [][]byte {
	if s.Len() == 0 {
		return [][]byte{[]byte("XTRIM"), key, []byte("MAXLEN"), []byte("="), []byte("0")}
	}
	return [][]byte{[]byte("XTRIM"), key, []byte("MINID"), []byte("="), idBytes(s.FirstID())}
}

func xadd(x *cmdtable.Ctx) {
	t, noMk, idPos, id, idGiven, seqGiven, ok := parseTrimAndID(x, true)
	if !ok {
		return
	}
	var fields [][]byte
	if idPos < len(x.Args) { // else the options ran to the end: no ID, no fields
		fields = x.Args[idPos+1:]
	}
	if len(fields) < 2 || len(fields)%2 == 1 {
		x.Error(cmdtable.WrongArgs("xadd"))
		return
	}
	if idGiven && seqGiven && id.IsZero() {
		x.Error(errIDZero)
		return
	}
	key := x.Args[1]
	s, ok := streamAt(x, key, false)
	if !ok {
		return
	}
	if s == nil {
		if noMk {
			x.W.Null()
			return
		}
		s = createStream(x, key)
	}
	if s.LastID == stream.MaxID {
		x.Error(errIDExhausted)
		return
	}
	switch {
	case !idGiven:
		id, ok = s.NextID(x.Now)
	case !seqGiven && id.Ms == s.LastID.Ms:
		id, ok = s.LastID.Next()
		ok = ok && id.Ms == s.LastID.Ms
	}
	if !ok || !s.LastID.Less(id) {
		x.Error(errIDSmaller)
		return
	}
	s.Add(id, fields)
	writeID(x, id)
	x.Touch(key)
	x.Notify(notify.Stream, "xadd", key)
	trimmed := t.strategy != 0 && trim(x, key, s, t) > 0
	x.Shard(key).WakeAllWaiters(key)
	if !x.Logged || (idGiven && seqGiven && !t.approx) {
		return // nothing to log, or it replays as it is
	}
	// Log the ID it picked, and an approximate trim as the exact one it was.
	add := make([][]byte, 0, 3+len(fields))
	add = append(add, []byte("XADD"), key)
	if noMk {
		add = append(add, []byte("NOMKSTREAM"))
	}
	add = append(add, idBytes(id))
	x.Propagate(append(add, fields...)...)
	if trimmed {
		x.Propagate(exactTrim(key, s)...)
	}
}

func xtrim(x *cmdtable.Ctx) {
	t, _, idPos, _, _, _, ok := parseTrimAndID(x, false)
	if !ok {
		return
	}
	if idPos < len(x.Args) { // parseTrimAndID stops early only for XADD
		x.Error(cmdtable.ErrSyntax)
		return
	}
	key := x.Args[1]
	s, ok := streamAt(x, key, false)
	if !ok {
		return
	}
	if s == nil {
		x.W.Int(0)
		x.NoEffects()
		return
	}
	n := trim(x, key, s, t)
	x.W.Int(n)
	if n == 0 {
		x.NoEffects()
		return
	}
	x.Touch(key)
	if t.approx {
		x.Propagate(exactTrim(key, s)...)
	}
}

func xlen(x *cmdtable.Ctx) {
	s, ok := streamAt(x, x.Args[1], true)
	if !ok {
		return
	}
	if s == nil {
		x.W.Int(0)
		return
	}
	x.W.Int(int64(s.Len()))
}

func xrangeGeneric(x *cmdtable.Ctx, rev bool) {
	startArg, endArg := x.Args[2], x.Args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, ok := rangeStart(x, startArg)
	if !ok {
		return
	}
	end, ok := rangeEnd(x, endArg)
	if !ok {
		return
	}
	count := int64(-1)
	for j := 4; j < len(x.Args); j++ {
		if !cmdtable.Is(x.Args[j], "count") || j+1 >= len(x.Args) {
			x.Error(cmdtable.ErrSyntax)
			return
		}
		n, good := cmdtable.ParseInt(x.Args[j+1])
		if !good {
			x.Error(cmdtable.ErrNotInt)
			return
		}
		count = max(n, 0)
		j++
	}
	s, ok := streamAt(x, x.Args[1], true)
	switch {
	case !ok:
	case s == nil:
		x.W.Array(0)
	case count == 0:
		x.W.NullArray()
	default:
		writeRange(x, s, start, end, max(count, 0), rev)
	}
}

func xrange(x *cmdtable.Ctx)    { xrangeGeneric(x, false) }
func xrevrange(x *cmdtable.Ctx) { xrangeGeneric(x, true) }

func xdel(x *cmdtable.Ctx) {
	key := x.Args[1]
	s, ok := streamAt(x, key, false)
	if !ok {
		return
	}
	if s == nil {
		x.W.Int(0)
		return
	}
	ids, ok := idList(x, x.Args[2:])
	if !ok {
		return
	}
	var n int64
	for _, id := range ids {
		if s.Delete(id) {
			n++
		}
	}
	if n > 0 {
		x.Touch(key)
		x.Notify(notify.Stream, "xdel", key)
	}
	x.W.Int(n)
}

func xsetid(x *cmdtable.Ctx) {
	id, ok := idArg(x, x.Args[2], 0)
	if !ok {
		return
	}
	added := int64(-1)
	var maxDel stream.ID
	for i := 3; i < len(x.Args); i += 2 {
		more := i+1 < len(x.Args)
		switch {
		case cmdtable.Is(x.Args[i], "entriesadded") && more:
			n, good := cmdtable.ParseInt(x.Args[i+1])
			if !good {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			if n < 0 {
				x.Error("ERR entries_added must be positive")
				return
			}
			added = n
		case cmdtable.Is(x.Args[i], "maxdeletedid") && more:
			if maxDel, ok = idArg(x, x.Args[i+1], 0); !ok {
				return
			}
			if id.Less(maxDel) {
				x.Error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	key := x.Args[1]
	s, ok := streamAt(x, key, false)
	if !ok {
		return
	}
	if s == nil {
		x.Error(cmdtable.ErrNoSuchKey)
		return
	}
	if id.Less(s.MaxDeleted) {
		x.Error("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id")
		return
	}
	if last, ok := s.Last(); ok {
		if id.Less(last.ID) {
			x.Error("ERR The ID specified in XSETID is smaller than the target stream top item")
			return
		}
		if added != -1 && int64(s.Len()) > added {
			x.Error("ERR The entries_added specified in XSETID is smaller than the target stream length")
			return
		}
	}
	s.LastID = id
	if added != -1 {
		s.EntriesAdded = added
	}
	if !maxDel.IsZero() {
		s.MaxDeleted = maxDel
	}
	x.Notify(notify.Stream, "xsetid", key)
	x.W.OK()
}

// readArgs are XREAD's and XREADGROUP's options.
type readArgs struct {
	group, consumer []byte // XREADGROUP
	count           int64
	block           time.Duration
	blocking        bool
	noack           bool
	streams         int // position of the first key
	n               int // number of streams
}

// parseRead reads the options before STREAMS, as Redis's xreadCommand.
func parseRead(x *cmdtable.Ctx, group bool) (a readArgs, ok bool) {
	unbalanced := "ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or '$' must be specified."
	if group {
		unbalanced = "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified."
	}
	for i := 1; i < len(x.Args); i++ {
		more := len(x.Args) - 1 - i
		o := x.Args[i]
		switch {
		case cmdtable.Is(o, "block") && more > 0:
			i++
			ms, good := cmdtable.ParseInt(x.Args[i])
			if !good {
				x.Error(cmdtable.ErrTimeoutNotInt)
				return a, false
			}
			if ms < 0 {
				x.Error(cmdtable.ErrTimeoutNeg)
				return a, false
			}
			if ms > math.MaxInt64-x.Now {
				x.Error(cmdtable.ErrTimeoutRange)
				return a, false
			}
			a.blocking = true
			if ms > 0 && ms < math.MaxInt64/int64(time.Millisecond) {
				a.block = time.Duration(ms) * time.Millisecond
			}
		case cmdtable.Is(o, "count") && more > 0:
			i++
			n, good := cmdtable.ParseInt(x.Args[i])
			if !good {
				x.Error(cmdtable.ErrNotInt)
				return a, false
			}
			a.count = max(n, 0)
		case cmdtable.Is(o, "streams") && more > 0:
			a.streams = i + 1
			n := len(x.Args) - a.streams
			if n%2 != 0 {
				x.Error(unbalanced)
				return a, false
			}
			a.n = n / 2
			i = len(x.Args)
		case cmdtable.Is(o, "group") && more >= 2:
			if !group {
				x.Error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.group, a.consumer = x.Args[i+1], x.Args[i+2]
			i += 2
		case cmdtable.Is(o, "noack"):
			if !group {
				x.Error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.noack = true
		default:
			x.Error(cmdtable.ErrSyntax)
			return a, false
		}
	}
	if a.streams == 0 {
		x.Error(cmdtable.ErrSyntax)
		return a, false
	}
	if group && a.group == nil {
		x.Error("ERR Missing GROUP option for XREADGROUP")
		return a, false
	}
	return a, true
}

// readKeys gives the key positions of XREAD and XREADGROUP (the first half
// of what follows STREAMS), as Redis's xreadGetKeys.
func readKeys(args [][]byte, dst []int) []int {
	for i := 1; i < len(args); i++ {
		switch {
		case cmdtable.Is(args[i], "block"), cmdtable.Is(args[i], "count"):
			i++
		case cmdtable.Is(args[i], "group"):
			i += 2
		case cmdtable.Is(args[i], "noack"):
		case cmdtable.Is(args[i], "streams"):
			n := len(args) - i - 1
			if n%2 != 0 {
				return dst
			}
			for k := i + 1; k <= i+n/2; k++ {
				dst = append(dst, k)
			}
			return dst
		default:
			return dst
		}
	}
	return dst
}

const errMeaningless = " ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The "

// newEntries is the ID XREADGROUP's ">" stands for.
var newEntries = stream.MaxID

// xreadGeneric is XREAD and XREADGROUP.
func xreadGeneric(x *cmdtable.Ctx, group bool) {
	a, ok := parseRead(x, group)
	if !ok {
		return
	}
	keys := x.Args[a.streams : a.streams+a.n]
	idArgs := x.Args[a.streams+a.n:]
	ids := make([]stream.ID, a.n)
	streams := make([]*stream.Stream, a.n)
	var groups []*stream.Group
	if group {
		groups = make([]*stream.Group, a.n)
	}
	for i, key := range keys {
		s, ok := streamAt(x, key, true)
		if !ok {
			return
		}
		streams[i] = s
		if group {
			var g *stream.Group
			if s != nil {
				g = s.Group(a.group)
			}
			if g == nil {
				x.Error(errNoGroup(key, a.group) + " in XREADGROUP with GROUP option")
				return
			}
			groups[i] = g
		}
		switch arg := string(idArgs[i]); {
		case arg == "$":
			if group {
				x.Error("ERR The $" + errMeaningless + "$ ID would just return an empty result set.")
				return
			}
			if s != nil {
				ids[i] = s.LastID
			}
		case arg == "+":
			if group {
				x.Error("ERR The +" + errMeaningless + "+ ID would just return an empty result set.")
				return
			}
			if s != nil {
				if last, ok := s.Last(); ok {
					ids[i], _ = last.ID.Prev()
				} else {
					ids[i] = s.LastID
				}
			}
		case arg == ">":
			if !group {
				x.Error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
				return
			}
			ids[i] = newEntries
		default:
			if ids[i], ok = idArg(x, idArgs[i], 0); !ok {
				return
			}
		}
	}
	served, changed := 0, false
	mark := x.W.Deferred()
	for i, key := range keys {
		s := streams[i]
		if s == nil {
			continue
		}
		after := ids[i]
		var sync, history bool
		var c *stream.Consumer
		if group {
			g := groups[i]
			if after != newEntries {
				sync, history = true, true
			} else if last, ok := s.Last(); ok && g.LastID.Less(last.ID) {
				sync, after = true, g.LastID
			}
			var created bool
			if c, created = g.CreateConsumer(a.consumer, x.Now); created {
				changed = true
				x.Notify(notify.Stream, "xgroup-createconsumer", key)
				// Unless the XCLAIMs of what it reads create it (Redis
				// sends no more than those).
				if !sync || history || a.noack {
					propagateCreateConsumer(x, key, a.group, a.consumer)
				}
			}
			c.SeenTime = x.Now
		} else if last, ok := s.Last(); ok && after.Less(last.ID) {
			sync = true
		}
		if !sync {
			continue
		}
		served++
		if x.W.Proto == 2 {
			x.W.Array(2)
		}
		x.W.Bulk(key)
		start, _ := after.Next()
		switch {
		case history:
			writeHistory(x, s, c, start, a.count)
		case group:
			changed = deliver(x, key, s, groups[i], c, a, start) > 0 || changed
		default:
			writeRange(x, s, start, stream.MaxID, a.count, false)
		}
	}
	if group && !changed {
		// A read of the pending entries only (or of nothing) counts a
		// delivery but changes nothing Redis counts or propagates.
		x.NoEffects()
	}
	if served > 0 {
		if x.W.Proto == 2 {
			x.W.FillArray(mark, served)
		} else {
			x.W.FillMap(mark, served)
		}
		return
	}
	if !a.blocking || x.Blocker == nil {
		x.W.NullArray()
		return
	}
	// Wait from the IDs "$" stands for now, not when a write wakes it.
	for i, arg := range idArgs {
		if string(arg) == "$" {
			idArgs[i] = idBytes(ids[i])
		}
	}
	x.Blocker.Block(keys, a.block, false)
}

// writeHistory writes c's pending entries from start (count 0: all), a
// deleted entry as its ID and a null; each delivery is counted again.
func writeHistory(x *cmdtable.Ctx, s *stream.Stream, c *stream.Consumer, start stream.ID, count int64) {
	var n int64
	mark := x.W.Deferred()
	c.EachPending(start, stream.MaxID, func(p *stream.Pending) bool {
		if e, ok := s.Get(p.ID); ok {
			writeEntry(x, e)
			p.DeliveryTime = x.Now
			p.DeliveryCount++
		} else {
			x.W.Array(2)
			writeID(x, p.ID)
			x.W.NullArray()
		}
		n++
		return count == 0 || n < count
	})
	x.W.FillArray(mark, int(n))
}

// deliver writes the group's new entries from start to c, recording them
// as pending unless NOACK, propagates the group's new state, and returns
// how many it wrote.
func deliver(x *cmdtable.Ctx, key []byte, s *stream.Stream, g *stream.Group, c *stream.Consumer, a readArgs, start stream.ID) int64 {
	var n int64
	moved := false
	mark := x.W.Deferred()
	s.Range(start, stream.MaxID, false, func(e stream.Entry) bool {
		if g.LastID.Less(e.ID) {
			s.Deliver(g, e.ID)
			moved = true
		}
		writeEntry(x, e)
		if !a.noack {
			p := g.Assign(e.ID, c, x.Now, 1)
			c.ActiveTime = x.Now
			propagateClaim(x, key, g, a.group, p)
		}
		n++
		return a.count == 0 || n < a.count
	})
	x.W.FillArray(mark, int(n))
	if moved {
		propagateSetID(x, key, g, a.group)
	}
	return n
}

// propagateClaim logs the XCLAIM that gives a replay p as it is now
// (streamPropagateXCLAIM).
func propagateClaim(x *cmdtable.Ctx, key []byte, g *stream.Group, group []byte, p *stream.Pending) {
	if x.Logged {
		x.Propagate([]byte("XCLAIM"), key, group, []byte(p.Consumer.Name), []byte("0"), idBytes(p.ID),
			[]byte("TIME"), strconv.AppendInt(nil, p.DeliveryTime, 10),
			[]byte("RETRYCOUNT"), strconv.AppendInt(nil, p.DeliveryCount, 10),
			[]byte("FORCE"), []byte("JUSTID"), []byte("LASTID"), idBytes(g.LastID))
	}
}

// propagateSetID logs the XGROUP SETID that gives a replay g's position.
func propagateSetID(x *cmdtable.Ctx, key []byte, g *stream.Group, group []byte) {
	if x.Logged {
		x.Propagate([]byte("XGROUP"), []byte("SETID"), key, group, idBytes(g.LastID),
			[]byte("ENTRIESREAD"), strconv.AppendInt(nil, g.EntriesRead, 10))
	}
}

// propagateCreateConsumer logs the creation of a consumer that a read or
// claim made.
func propagateCreateConsumer(x *cmdtable.Ctx, key, group, consumer []byte) {
	if x.Logged {
		x.Propagate([]byte("XGROUP"), []byte("CREATECONSUMER"), key, group, consumer)
	}
}

func xread(x *cmdtable.Ctx)      { xreadGeneric(x, false) }
func xreadgroup(x *cmdtable.Ctx) { xreadGeneric(x, true) }

func init() {
	const g = "stream"
	// Stream writes signal WATCH only where Redis does (Ctx.Touch): a
	// consumer group's bookkeeping is not a change of the key.
	w, r, f, d := cmdtable.Write|cmdtable.SelfTouch, cmdtable.ReadOnly, cmdtable.Fast, cmdtable.DenyOOM
	key := func(c *cmdtable.Cmd) *cmdtable.Cmd {
		if c.First == 0 && c.Keys == nil {
			c.First, c.Last, c.Step = 1, 1, 1
		}
		c.Group = g
		return c
	}
	cmdtable.Register(
		key(&cmdtable.Cmd{Name: "xadd", Arity: -5, Flags: w | d | f, Effects: cmdtable.Recorded, Run: xadd, Since: "5.0.0",
			Summary: "Appends a new message to a stream. Creates the key if it doesn't exist.",
			Args:    "key [NOMKSTREAM] [<MAXLEN | MINID> [= | ~] threshold [LIMIT count]] <* | id> field value [field value ...]"}),
		key(&cmdtable.Cmd{Name: "xtrim", Arity: -4, Flags: w, Effects: cmdtable.Recorded, Run: xtrim, Since: "5.0.0",
			Summary: "Deletes messages from the beginning of a stream.",
			Args:    "key <MAXLEN | MINID> [= | ~] threshold [LIMIT count]"}),
		key(&cmdtable.Cmd{Name: "xlen", Arity: 2, Flags: r | f, Run: xlen, Since: "5.0.0",
			Summary: "Return the number of messages in a stream.", Args: "key"}),
		key(&cmdtable.Cmd{Name: "xrange", Arity: -4, Flags: r, Run: xrange, Since: "5.0.0",
			Summary: "Returns the messages from a stream within a range of IDs.", Args: "key start end [COUNT count]"}),
		key(&cmdtable.Cmd{Name: "xrevrange", Arity: -4, Flags: r, Run: xrevrange, Since: "5.0.0",
			Summary: "Returns the messages from a stream within a range of IDs in reverse order.", Args: "key end start [COUNT count]"}),
		key(&cmdtable.Cmd{Name: "xdel", Arity: -3, Flags: w | f, Effects: cmdtable.AsSent, Run: xdel, Since: "5.0.0",
			Summary: "Returns the number of messages after removing them from a stream.", Args: "key id [id ...]"}),
		key(&cmdtable.Cmd{Name: "xsetid", Arity: -3, Flags: w | d | f, Effects: cmdtable.AsSent, Run: xsetid, Since: "5.0.0",
			Summary: "An internal command for replicating stream values.",
			Args:    "key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]"}),
		key(&cmdtable.Cmd{Name: "xread", Arity: -4, Flags: r | cmdtable.Blocking, Keys: readKeys, Run: xread, Since: "5.0.0",
			Summary: "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.",
			Args:    "[COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]"}),
		key(&cmdtable.Cmd{Name: "xreadgroup", Arity: -7, Flags: w | cmdtable.Blocking, Effects: cmdtable.Recorded, Keys: readKeys, Run: xreadgroup, Since: "5.0.0",
			Summary: "Returns new or historical messages from a stream for a consumer in a group. Blocks until a message is available otherwise.",
			Args:    "GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]"}),
	)
}
