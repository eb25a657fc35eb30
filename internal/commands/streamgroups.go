package commands

import (
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/value/stream"
)

// Consumer group commands (XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM) and
// XINFO. Commands that hand entries to a consumer log XCLAIMs with explicit
// times and counts (as Redis propagates them), so a replay rebuilds the same
// pending entries.

const errXGroupNoKey = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."

func noGroup(x *cmdtable.Ctx, key, group []byte) { x.Error(errNoGroup(key, group)) }

func errNoGroup(key, group []byte) string {
	return "NOGROUP No such key '" + string(key) + "' or consumer group '" + string(group) + "'"
}

func noGroupForKey(x *cmdtable.Ctx, key, group []byte) {
	x.Error("NOGROUP No such consumer group '" + string(group) + "' for key name '" + string(key) + "'")
}

// groupOf finds key's stream and group for XGROUP's subcommands, answering
// Redis's errors; g is nil (no error) when the group does not exist.
func groupOf(x *cmdtable.Ctx, needGroup bool) (s *stream.Stream, g *stream.Group, ok bool) {
	key, name := x.Args[2], x.Args[3]
	if s, ok = streamAt(x, key, false); !ok {
		return nil, nil, false
	}
	if s == nil {
		x.Error(errXGroupNoKey)
		return nil, nil, false
	}
	g = s.Group(name)
	if g == nil && needGroup {
		noGroupForKey(x, key, name)
		return nil, nil, false
	}
	return s, g, true
}

// entriesReadArg parses ENTRIESREAD's value: a count, or -1 for unknown.
func entriesReadArg(x *cmdtable.Ctx, b []byte) (int64, bool) {
	n, ok := cmdtable.ParseInt(b)
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return 0, false
	}
	if n < 0 && n != stream.Invalid {
		x.Error("ERR value for ENTRIESREAD must be positive or -1")
		return 0, false
	}
	return n, true
}

// subcommandSyntax is Redis's reply to a subcommand with bad options or
// too many arguments (addReplySubcommandSyntaxError).
func subcommandSyntax(x *cmdtable.Ctx) {
	name := x.Args[1]
	if len(name) > 128 {
		name = name[:128]
	}
	x.Error(cmdtable.UnknownSubcommand(name, strings.ToUpper(string(x.Args[0]))))
}

// groupOptions parses CREATE's and SETID's options after the ID, any
// number of times each, as Redis reads them.
func groupOptions(x *cmdtable.Ctx, create bool) (mkstream bool, entriesRead int64, ok bool) {
	entriesRead = stream.Invalid
	for i := 5; i < len(x.Args); i++ {
		switch {
		case create && cmdtable.Is(x.Args[i], "mkstream"):
			mkstream = true
		case cmdtable.Is(x.Args[i], "entriesread") && i+1 < len(x.Args):
			var good bool
			if entriesRead, good = entriesReadArg(x, x.Args[i+1]); !good {
				return false, 0, false
			}
			i++
		default:
			subcommandSyntax(x)
			return false, 0, false
		}
	}
	return mkstream, entriesRead, true
}

func xgroupCreate(x *cmdtable.Ctx) {
	mkstream, entriesRead, ok := groupOptions(x, true)
	if !ok {
		return
	}
	key, name := x.Args[2], x.Args[3]
	s, ok := streamAt(x, key, false)
	if !ok {
		return
	}
	if s == nil && !mkstream {
		x.Error(errXGroupNoKey)
		return
	}
	if len(x.Args) > 8 {
		subcommandSyntax(x)
		return
	}
	var id stream.ID
	if string(x.Args[4]) == "$" {
		if s != nil {
			id = s.LastID
		}
	} else if id, ok = idArg(x, x.Args[4], 0); !ok {
		return
	}
	if s == nil {
		s = createStream(x, key)
		x.Touch(key)
	}
	if _, ok := s.CreateGroup(name, id, entriesRead); !ok {
		x.Error("BUSYGROUP Consumer Group name already exists")
		return
	}
	x.Notify(notify.Stream, "xgroup-create", key)
	x.W.OK()
}

func xgroupSetid(x *cmdtable.Ctx) {
	_, entriesRead, ok := groupOptions(x, false)
	if !ok {
		return
	}
	s, g, ok := groupOf(x, true)
	if !ok {
		return
	}
	if n := len(x.Args); n != 5 && n != 7 {
		subcommandSyntax(x)
		return
	}
	var id stream.ID
	if string(x.Args[4]) == "$" {
		id = s.LastID
	} else if id, ok = lenientID(x, x.Args[4], 0); !ok {
		return
	}
	g.LastID, g.EntriesRead = id, entriesRead
	x.Notify(notify.Stream, "xgroup-setid", x.Args[2])
	x.W.OK()
}

func xgroupDestroy(x *cmdtable.Ctx) {
	s, g, ok := groupOf(x, false)
	if !ok {
		return
	}
	if g == nil {
		x.W.Int(0)
		x.NoEffects()
		return
	}
	s.DestroyGroup(x.Args[3])
	x.Notify(notify.Stream, "xgroup-destroy", x.Args[2])
	x.Shard(x.Args[2]).WakeAllWaiters(x.Args[2]) // its blocked readers get NOGROUP
	x.W.Int(1)
}

func xgroupCreateConsumer(x *cmdtable.Ctx) {
	_, g, ok := groupOf(x, true)
	if !ok {
		return
	}
	if _, created := g.CreateConsumer(x.Args[4], x.Now); !created {
		x.W.Int(0)
		x.NoEffects()
		return
	}
	x.Notify(notify.Stream, "xgroup-createconsumer", x.Args[2])
	x.W.Int(1)
}

func xgroupDelConsumer(x *cmdtable.Ctx) {
	_, g, ok := groupOf(x, true)
	if !ok {
		return
	}
	n, deleted := g.DeleteConsumer(x.Args[4])
	if deleted {
		x.Notify(notify.Stream, "xgroup-delconsumer", x.Args[2])
	}
	x.W.Int(int64(n))
}

var xgroupHelp = []string{
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
}

func xack(x *cmdtable.Ctx) {
	s, ok := streamAt(x, x.Args[1], false)
	if !ok {
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(x.Args[2])
	}
	if g == nil {
		x.W.Int(0)
		x.NoEffects()
		return
	}
	ids, ok := idList(x, x.Args[3:])
	if !ok {
		return
	}
	var n int64
	for _, id := range ids {
		if g.Ack(id) {
			n++
		}
	}
	x.W.Int(n)
}

func xpending(x *cmdtable.Ctx) {
	if n := len(x.Args); n != 3 && (n < 6 || n > 9) {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	var start, end stream.ID
	var count, minIdle int64
	var consumerName []byte
	if len(x.Args) >= 6 {
		at := 3
		if cmdtable.Is(x.Args[3], "idle") {
			var ok bool
			if minIdle, ok = cmdtable.ParseInt(x.Args[4]); !ok {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			if len(x.Args) < 8 {
				x.Error(cmdtable.ErrSyntax)
				return
			}
			at += 2
		}
		n, ok := cmdtable.ParseInt(x.Args[at+2])
		if !ok {
			x.Error(cmdtable.ErrNotInt)
			return
		}
		count = max(n, 0)
		if start, ok = rangeStart(x, x.Args[at]); !ok {
			return
		}
		if end, ok = rangeEnd(x, x.Args[at+1]); !ok {
			return
		}
		if at+3 < len(x.Args) {
			consumerName = x.Args[at+3]
		}
	}
	key, name := x.Args[1], x.Args[2]
	s, ok := streamAt(x, key, true)
	if !ok {
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(name)
	}
	if g == nil {
		noGroup(x, key, name)
		return
	}
	if len(x.Args) == 3 {
		pendingSummary(x, g)
		return
	}
	each := g.EachPending
	if consumerName != nil {
		c := g.Consumer(consumerName)
		if c == nil {
			x.W.Array(0)
			return
		}
		each = c.EachPending
	}
	var n int
	mark := x.W.Deferred()
	each(start, end, func(p *stream.Pending) bool {
		if count == 0 {
			return false
		}
		idle := x.Now - p.DeliveryTime
		if minIdle != 0 && idle < minIdle {
			return true
		}
		n++
		count--
		x.W.Array(4)
		writeID(x, p.ID)
		x.W.BulkString(p.Consumer.Name)
		x.W.Int(max(idle, 0))
		x.W.Int(p.DeliveryCount)
		return true
	})
	x.W.FillArray(mark, n)
}

func pendingSummary(x *cmdtable.Ctx, g *stream.Group) {
	x.W.Array(4)
	x.W.Int(int64(g.PendingCount()))
	if g.PendingCount() == 0 {
		x.W.Null()
		x.W.Null()
		x.W.NullArray()
		return
	}
	var first, last stream.ID
	seen := false
	g.EachPending(stream.ID{}, stream.MaxID, func(p *stream.Pending) bool {
		if !seen {
			first, seen = p.ID, true
		}
		last = p.ID
		return true
	})
	writeID(x, first)
	writeID(x, last)
	var n int
	mark := x.W.Deferred()
	for _, c := range g.Consumers() {
		if c.PendingCount() == 0 {
			continue
		}
		x.W.Array(2)
		x.W.BulkString(c.Name)
		x.W.BulkInt(int64(c.PendingCount()))
		n++
	}
	x.W.FillArray(mark, n)
}

// claimTarget finds the stream and group of XCLAIM and XAUTOCLAIM.
func claimTarget(x *cmdtable.Ctx) (*stream.Stream, *stream.Group, bool) {
	key, name := x.Args[1], x.Args[2]
	s, ok := streamAt(x, key, false)
	if !ok {
		return nil, nil, false
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(name)
	}
	if g == nil {
		noGroup(x, key, name)
		return nil, nil, false
	}
	return s, g, true
}

// claimConsumer returns the claiming consumer, created if new, seen now.
func claimConsumer(x *cmdtable.Ctx, g *stream.Group) (c *stream.Consumer, created bool) {
	if c, created = g.CreateConsumer(x.Args[3], x.Now); created {
		x.Notify(notify.Stream, "xgroup-createconsumer", x.Args[1])
	}
	c.SeenTime = x.Now
	return c, created
}

// claimedBy logs the creation of a consumer that claimed nothing: the
// XCLAIMs of what it claims create it on a replay, and Redis sends no
// more than those.
func claimedBy(x *cmdtable.Ctx, created bool, n int) {
	if created && n == 0 {
		propagateCreateConsumer(x, x.Args[1], x.Args[2], x.Args[3])
	}
}

func xclaim(x *cmdtable.Ctx) {
	s, g, ok := claimTarget(x)
	if !ok {
		return
	}
	minIdle, ok := cmdtable.ParseInt(x.Args[4])
	if !ok {
		x.Error("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	j := 5
	for ; j < len(x.Args); j++ {
		if _, _, ok := stream.ParseID(x.Args[j], 0, false); !ok {
			break
		}
	}
	ids := x.Args[5:j]
	deliveryTime, retryCount := int64(-1), int64(-1)
	var force, justID bool
	var lastID stream.ID
	for ; j < len(x.Args); j++ {
		more := j+1 < len(x.Args)
		opt := x.Args[j]
		intOpt := func(what string) (int64, bool) {
			j++
			n, ok := cmdtable.ParseInt(x.Args[j])
			if !ok {
				x.Error("ERR Invalid " + what + " option argument for XCLAIM")
			}
			return n, ok
		}
		switch {
		case cmdtable.Is(opt, "force"):
			force = true
		case cmdtable.Is(opt, "justid"):
			justID = true
		case cmdtable.Is(opt, "idle") && more:
			n, ok := intOpt("IDLE")
			if !ok {
				return
			}
			deliveryTime = x.Now - n
		case cmdtable.Is(opt, "time") && more:
			if deliveryTime, ok = intOpt("TIME"); !ok {
				return
			}
		case cmdtable.Is(opt, "retrycount") && more:
			if retryCount, ok = intOpt("RETRYCOUNT"); !ok {
				return
			}
		case cmdtable.Is(opt, "lastid") && more:
			j++
			if lastID, ok = idArg(x, x.Args[j], 0); !ok {
				return
			}
		default:
			x.Error("ERR Unrecognized XCLAIM option '" + string(opt) + "'")
			return
		}
	}
	x.Rewrite()
	key, group := x.Args[1], x.Args[2]
	moved := false
	if g.LastID.Less(lastID) {
		g.LastID, moved = lastID, true
	}
	if deliveryTime < 0 || deliveryTime > x.Now {
		deliveryTime = x.Now
	}
	c, created := claimConsumer(x, g)
	var n int
	mark := x.W.Deferred()
	for _, arg := range ids {
		id, _, _ := stream.ParseID(arg, 0, false)
		p := g.Pending(id)
		e, exists := s.Get(id)
		if !exists {
			if p != nil { // gone from the stream: drop it from the PEL too
				propagateClaim(x, key, g, group, p)
				g.Ack(id)
			}
			continue
		}
		count := int64(1) // a pending entry FORCE creates starts delivered once
		if p != nil {
			if minIdle != 0 && x.Now-p.DeliveryTime < minIdle {
				continue
			}
			count = p.DeliveryCount
		} else if !force {
			continue
		}
		switch {
		case retryCount >= 0:
			count = retryCount
		case !justID:
			count++
		}
		p = g.Assign(id, c, deliveryTime, count)
		if justID {
			writeID(x, id)
		} else {
			writeEntry(x, e)
		}
		n++
		c.ActiveTime = x.Now
		propagateClaim(x, key, g, group, p)
		moved = false // the XCLAIM carries LASTID
	}
	x.W.FillArray(mark, n)
	claimedBy(x, created, n)
	if moved {
		propagateSetID(x, key, g, group)
	}
}

// autoclaimAttempts is how many PEL entries XAUTOCLAIM looks at per entry
// of COUNT.
const autoclaimAttempts = 10

func xautoclaim(x *cmdtable.Ctx) {
	minIdle, ok := cmdtable.ParseInt(x.Args[4])
	if !ok {
		x.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	start, ok := rangeStart(x, x.Args[5])
	if !ok {
		return
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(x.Args); j++ {
		switch {
		case cmdtable.Is(x.Args[j], "count") && j+1 < len(x.Args):
			n, ok := cmdtable.ParseInt(x.Args[j+1])
			if !ok || n < 1 || n > (1<<63-1)/16 {
				x.Error(errCountNotPos)
				return
			}
			count = n
			j++
		case cmdtable.Is(x.Args[j], "justid"):
			justID = true
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	s, g, ok := claimTarget(x)
	if !ok {
		return
	}
	x.Rewrite()
	key, group := x.Args[1], x.Args[2]
	c, created := claimConsumer(x, g)
	attempts := count * autoclaimAttempts
	// Collect first: claiming and dropping change the PEL being walked.
	var seen []*stream.Pending
	g.EachPending(start, stream.MaxID, func(p *stream.Pending) bool {
		seen = append(seen, p)
		return int64(len(seen)) <= attempts
	})
	var deleted []stream.ID
	var n int
	x.W.Array(3)
	cursor := len(seen)
	var body []byte
	mark := x.W.Deferred()
	for i, p := range seen {
		if attempts == 0 || count == 0 {
			cursor = i
			break
		}
		attempts--
		e, exists := s.Get(p.ID)
		if !exists {
			propagateClaim(x, key, g, group, p)
			g.Ack(p.ID)
			deleted = append(deleted, p.ID)
			count--
			continue
		}
		if minIdle != 0 && x.Now-p.DeliveryTime < minIdle {
			continue
		}
		dc := p.DeliveryCount
		if !justID {
			dc++
		}
		g.Assign(p.ID, c, x.Now, dc)
		if justID {
			writeID(x, p.ID)
		} else {
			writeEntry(x, e)
		}
		n++
		count--
		c.ActiveTime = x.Now
		propagateClaim(x, key, g, group, p)
	}
	x.W.FillArray(mark, n)
	claimedBy(x, created, n)
	// The cursor goes before the claimed entries.
	body = append(body, x.W.B[mark:]...)
	x.W.B = x.W.B[:mark]
	var next stream.ID
	if cursor < len(seen) {
		next = seen[cursor].ID
	}
	writeID(x, next)
	x.W.B = append(x.W.B, body...)
	x.W.Array(len(deleted))
	for _, id := range deleted {
		writeID(x, id)
	}
}

var xinfoHelp = []string{
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
}

func infoStream(x *cmdtable.Ctx) (*stream.Stream, bool) {
	s, ok := streamAt(x, x.Args[2], true)
	if ok && s == nil {
		x.Error(cmdtable.ErrNoSuchKey)
		return nil, false
	}
	return s, ok
}

// writeLag writes a group's lag, null when it cannot be known.
func writeLag(x *cmdtable.Ctx, s *stream.Stream, g *stream.Group) {
	if lag, ok := s.Lag(g); ok {
		x.W.Int(lag)
	} else {
		x.W.Null()
	}
}

func writeEntriesRead(x *cmdtable.Ctx, g *stream.Group) {
	if g.EntriesRead == stream.Invalid {
		x.W.Null()
	} else {
		x.W.Int(g.EntriesRead)
	}
}

func xinfoStream(x *cmdtable.Ctx) {
	// The key first: Redis looks it up before it reads the options.
	s, ok := infoStream(x)
	if !ok {
		return
	}
	full := false
	count := int64(10)
	if len(x.Args) > 3 {
		if !cmdtable.Is(x.Args[3], "full") {
			subcommandSyntax(x)
			return
		}
		full = true
		if len(x.Args) > 4 {
			if len(x.Args) != 6 || !cmdtable.Is(x.Args[4], "count") {
				subcommandSyntax(x)
				return
			}
			n, ok := cmdtable.ParseInt(x.Args[5])
			if !ok {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			if n >= 0 { // a negative COUNT keeps the default
				count = n
			}
		}
	}
	if full {
		x.W.Map(9)
	} else {
		x.W.Map(10)
	}
	x.W.BulkString("length")
	x.W.Int(int64(s.Len()))
	x.W.BulkString("radix-tree-keys")
	x.W.Int(int64(s.Nodes()))
	x.W.BulkString("radix-tree-nodes")
	x.W.Int(int64(s.RaxNodes()))
	x.W.BulkString("last-generated-id")
	writeID(x, s.LastID)
	x.W.BulkString("max-deleted-entry-id")
	writeID(x, s.MaxDeleted)
	x.W.BulkString("entries-added")
	x.W.Int(s.EntriesAdded)
	x.W.BulkString("recorded-first-entry-id")
	writeID(x, s.FirstID())
	if !full {
		x.W.BulkString("groups")
		x.W.Int(int64(s.GroupCount()))
		x.W.BulkString("first-entry")
		if e, ok := s.First(); ok {
			writeEntry(x, e)
		} else {
			x.W.Null()
		}
		x.W.BulkString("last-entry")
		if e, ok := s.Last(); ok {
			writeEntry(x, e)
		} else {
			x.W.Null()
		}
		return
	}
	x.W.BulkString("entries")
	writeRange(x, s, stream.ID{}, stream.MaxID, count, false)
	x.W.BulkString("groups")
	groups := s.Groups()
	x.W.Array(len(groups))
	for _, g := range groups {
		x.W.Map(7)
		x.W.BulkString("name")
		x.W.BulkString(g.Name)
		x.W.BulkString("last-delivered-id")
		writeID(x, g.LastID)
		x.W.BulkString("entries-read")
		writeEntriesRead(x, g)
		x.W.BulkString("lag")
		writeLag(x, s, g)
		x.W.BulkString("pel-count")
		x.W.Int(int64(g.PendingCount()))
		x.W.BulkString("pending")
		writePendingList(x, g.EachPending, count, true)
		x.W.BulkString("consumers")
		consumers := g.Consumers()
		x.W.Array(len(consumers))
		for _, c := range consumers {
			x.W.Map(5)
			x.W.BulkString("name")
			x.W.BulkString(c.Name)
			x.W.BulkString("seen-time")
			x.W.Int(c.SeenTime)
			x.W.BulkString("active-time")
			x.W.Int(c.ActiveTime)
			x.W.BulkString("pel-count")
			x.W.Int(int64(c.PendingCount()))
			x.W.BulkString("pending")
			writePendingList(x, c.EachPending, count, false)
		}
	}
}

// writePendingList writes XINFO STREAM FULL's list of up to count (0: all)
// pending entries: ID, the consumer's name in a group's list (named),
// delivery time and count.
func writePendingList(x *cmdtable.Ctx, each func(start, end stream.ID, fn func(*stream.Pending) bool), count int64, named bool) {
	var n int64
	mark := x.W.Deferred()
	each(stream.ID{}, stream.MaxID, func(p *stream.Pending) bool {
		if count != 0 && n >= count {
			return false
		}
		if named {
			x.W.Array(4)
			writeID(x, p.ID)
			x.W.BulkString(p.Consumer.Name)
		} else {
			x.W.Array(3)
			writeID(x, p.ID)
		}
		x.W.Int(p.DeliveryTime)
		x.W.Int(p.DeliveryCount)
		n++
		return true
	})
	x.W.FillArray(mark, int(n))
}

func xinfoGroups(x *cmdtable.Ctx) {
	s, ok := infoStream(x)
	if !ok {
		return
	}
	groups := s.Groups()
	x.W.Array(len(groups))
	for _, g := range groups {
		x.W.Map(6)
		x.W.BulkString("name")
		x.W.BulkString(g.Name)
		x.W.BulkString("consumers")
		x.W.Int(int64(g.ConsumerCount()))
		x.W.BulkString("pending")
		x.W.Int(int64(g.PendingCount()))
		x.W.BulkString("last-delivered-id")
		writeID(x, g.LastID)
		x.W.BulkString("entries-read")
		writeEntriesRead(x, g)
		x.W.BulkString("lag")
		writeLag(x, s, g)
	}
}

func xinfoConsumers(x *cmdtable.Ctx) {
	s, ok := infoStream(x)
	if !ok {
		return
	}
	g := s.Group(x.Args[3])
	if g == nil {
		noGroupForKey(x, x.Args[2], x.Args[3])
		return
	}
	consumers := g.Consumers()
	x.W.Array(len(consumers))
	for _, c := range consumers {
		x.W.Map(4)
		x.W.BulkString("name")
		x.W.BulkString(c.Name)
		x.W.BulkString("pending")
		x.W.Int(int64(c.PendingCount()))
		x.W.BulkString("idle")
		x.W.Int(max(x.Now-c.SeenTime, 0))
		x.W.BulkString("inactive")
		if c.ActiveTime == -1 {
			x.W.Int(-1)
		} else {
			x.W.Int(max(x.Now-c.ActiveTime, 0))
		}
	}
}

func init() {
	const g = "stream"
	w, r, f, d := cmdtable.Write|cmdtable.SelfTouch, cmdtable.ReadOnly, cmdtable.Fast, cmdtable.DenyOOM // see streams.go
	key := func(c *cmdtable.Cmd) *cmdtable.Cmd {
		if c.First == 0 && c.Keys == nil {
			c.First, c.Last, c.Step = 1, 1, 1
		}
		c.Group = g
		return c
	}
	sub := func(parent, name string, arity int, flags cmdtable.Flags, run func(*cmdtable.Ctx), since, summary, args string) *cmdtable.Cmd {
		return &cmdtable.Cmd{Name: parent + "|" + name, Arity: arity, Flags: flags, First: 2, Last: 2, Step: 1,
			Run: run, Group: g, Since: since, Summary: summary, Args: args}
	}
	cmdtable.Register(
		&cmdtable.Cmd{Name: "xgroup", Arity: -2, Group: g, Since: "5.0.0", Summary: "A container for consumer groups commands.",
			Subs: []*cmdtable.Cmd{
				cmdtable.AsSent.Of(sub("xgroup", "create", -5, w|d, xgroupCreate, "5.0.0", "Creates a consumer group.",
					"key group <id | $> [MKSTREAM] [ENTRIESREAD entries-read]")),
				cmdtable.AsSent.Of(sub("xgroup", "setid", -5, w, xgroupSetid, "5.0.0", "Sets the last-delivered ID of a consumer group.",
					"key group <id | $> [ENTRIESREAD entries-read]")),
				cmdtable.AsSent.Of(sub("xgroup", "destroy", 4, w, xgroupDestroy, "5.0.0", "Destroys a consumer group.", "key group")),
				cmdtable.AsSent.Of(sub("xgroup", "createconsumer", 5, w|d, xgroupCreateConsumer, "6.2.0", "Creates a consumer in a consumer group.",
					"key group consumer")),
				cmdtable.AsSent.Of(sub("xgroup", "delconsumer", 5, w, xgroupDelConsumer, "5.0.0", "Deletes a consumer from a consumer group.",
					"key group consumer")),
				cmdtable.HelpCmd("xgroup", g, "5.0.0", xgroupHelp),
			}},
		&cmdtable.Cmd{Name: "xinfo", Arity: -2, Group: g, Since: "5.0.0", Summary: "A container for stream introspection commands.",
			Subs: []*cmdtable.Cmd{
				sub("xinfo", "stream", -3, r, xinfoStream, "5.0.0", "Returns information about a stream.", "key [FULL [COUNT count]]"),
				sub("xinfo", "groups", 3, r, xinfoGroups, "5.0.0", "Returns a list of the consumer groups of a stream.", "key"),
				sub("xinfo", "consumers", 4, r, xinfoConsumers, "5.0.0", "Returns a list of the consumers in a consumer group.", "key group"),
				cmdtable.HelpCmd("xinfo", g, "5.0.0", xinfoHelp),
			}},
		key(&cmdtable.Cmd{Name: "xack", Arity: -4, Flags: w | f, Effects: cmdtable.AsSent, Run: xack, Since: "5.0.0",
			Summary: "Returns the number of messages that were successfully acknowledged by the consumer group member of a stream.",
			Args:    "key group id [id ...]"}),
		key(&cmdtable.Cmd{Name: "xpending", Arity: -3, Flags: r, Run: xpending, Since: "5.0.0",
			Summary: "Returns the information and entries from a stream consumer group's pending entries list.",
			Args:    "key group [[IDLE min-idle-time] start end count [consumer]]"}),
		key(&cmdtable.Cmd{Name: "xclaim", Arity: -6, Flags: w | f, Effects: cmdtable.Recorded, Run: xclaim, Since: "5.0.0",
			Summary: "Changes, or acquires, ownership of a message in a consumer group, as if the message was delivered a consumer group member.",
			Args:    "key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]"}),
		key(&cmdtable.Cmd{Name: "xautoclaim", Arity: -6, Flags: w | f, Effects: cmdtable.Recorded, Run: xautoclaim, Since: "6.2.0",
			Summary: "Changes, or acquires, ownership of messages in a consumer group, as if the messages were delivered to as consumer group member.",
			Args:    "key group consumer min-idle-time start [COUNT count] [JUSTID]"}),
	)
}
