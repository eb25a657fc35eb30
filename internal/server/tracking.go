package server

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/pubsub"
)

// CLIENT TRACKING and its per-command glue; the table and the ordering of
// invalidations are internal/pubsub's (see its doc.go).

// trimTracking brings a tracking table over tracking-table-max-keys
// (lowered by CONFIG SET) back under it before c's next command, as Redis
// does before every command. It runs before the command's reply starts, so
// c's own invalidations come first and CLIENT REPLY OFF or SKIP, which drop
// that reply, leave them.
func (c *client) trimTracking() {
	if t := c.s.track; t.Active() {
		if max := c.s.Config().TrackingTableMaxKeys; max > 0 && t.Keys() > max {
			t.Limit(max, c, &c.io.out.B)
		}
	}
}

// trackAfter is what a command that ran (under its locks) means for
// tracking, while any client tracks: a FLUSHDB or FLUSHALL invalidates
// everything; a read-only command registers its keys if c tracks them (not
// in BCAST mode, and in OPTIN/OPTOUT mode as CLIENT CACHING said). EVAL_RO
// and FCALL_RO register the keys their scripts read instead.
func (c *client) trackAfter(cmd *cmdtable.Cmd, args [][]byte, keys []int, mark int) {
	if cmd.Flags&cmdtable.ReadOnly == 0 {
		if (cmd.Name == "flushdb" || cmd.Name == "flushall") && (len(c.io.out.B) == mark || c.io.out.B[mark] != '-') {
			c.flushedTracking(mark)
		}
		return
	}
	m := c.pubsub.track.Mode()
	if m == nil || m.BCast || m.OptIn && c.modes&caching == 0 || m.OptOut && c.modes&caching != 0 {
		return
	}
	switch cmd.Name {
	case "eval_ro", "evalsha_ro", "fcall_ro":
		return
	}
	for _, i := range keys {
		c.s.track.Remember(c.id, args[i])
	}
	if c.blocked != nil { // XREAD BLOCK: Redis runs it again when served, tracking its keys again
		c.blocked.track = true
	}
}

// holdPushes parks what others push to a tracking client until the replies
// of the batch it is running are queued (flush).
func (c *client) holdPushes() {
	c.pubsub.ep.Subscriber().Hold()
	c.pubsub.holding = true
}

// setTracking turns tracking on with mode m, or off (m nil).
func (c *client) setTracking(m *pubsub.Mode) {
	if m != nil {
		c.subscriber() // the queue invalidations arrive through
	}
	c.s.track.Set(&c.pubsub.track, c.id, c, m)
	if m != nil {
		c.modes |= tracking
	} else {
		c.modes &^= tracking | caching
	}
}

// flushedTracking is a FLUSHDB or FLUSHALL's invalidation of everything
// (pubsub.Tracker.Flushed); c's reply starts at c.out.B[mark]. Redis 8 runs
// a flush called from outside a transaction or script in the background,
// its caller blocked meanwhile, so that caller's own message comes before
// its reply (which CLIENT REPLY may drop: the message, a push, is sent
// anyway).
func (c *client) flushedTracking(mark int) {
	first := !c.tx.inExec && !c.ctx.InScript && c.modes&(replyOff|skipThis) == 0
	c.s.track.Flushed(c, &c.io.out.B, mark, first)
}

// trackedConn is the tracker's lookup of a REDIRECT target.
func (s *Server) trackedConn(id int64) pubsub.Conn {
	if c := s.clientByID(id); c != nil {
		return c
	}
	return nil
}

// clientTracking is CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST] [PREFIX p
// ...] [OPTIN] [OPTOUT] [NOLOOP], with Redis's checks in Redis's order.
func clientTracking(x *cmdtable.Ctx) {
	c := cl(x)
	m := &pubsub.Mode{}
	var prefixes []string
	for j := 3; j < len(x.Args); j++ {
		a, more := x.Args[j], j+1 < len(x.Args)
		switch {
		case cmdtable.Is(a, "redirect") && more:
			j++
			if m.Redirect != 0 {
				x.Error("ERR A client can only redirect to a single other client")
				return
			}
			id, ok := cmdtable.ParseInt(x.Args[j])
			if !ok {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			if c.s.clientByID(id) == nil {
				x.Error("ERR The client ID you want redirect to does not exist")
				return
			}
			m.Redirect = id
		case cmdtable.Is(a, "bcast"):
			m.BCast = true
		case cmdtable.Is(a, "optin"):
			m.OptIn = true
		case cmdtable.Is(a, "optout"):
			m.OptOut = true
		case cmdtable.Is(a, "noloop"):
			m.NoLoop = true
		case cmdtable.Is(a, "prefix") && more:
			j++
			prefixes = append(prefixes, string(x.Args[j]))
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	switch {
	case cmdtable.Is(x.Args[2], "off"):
		if c.pubsub.track.Mode() != nil {
			c.setTracking(nil)
		}
		x.W.OK()
		return
	case !cmdtable.Is(x.Args[2], "on"):
		x.Error(cmdtable.ErrSyntax)
		return
	}
	old := c.pubsub.track.Mode()
	switch {
	case !m.BCast && len(prefixes) > 0:
		x.Error("ERR PREFIX option requires BCAST mode to be enabled")
		return
	case old != nil && old.BCast != m.BCast:
		x.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
		return
	case m.BCast && (m.OptIn || m.OptOut):
		x.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
		return
	case m.OptIn && m.OptOut:
		x.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
		return
	case old != nil && (m.OptIn && old.OptOut || m.OptOut && old.OptIn):
		x.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
		return
	}
	if m.BCast {
		var have []string
		if old != nil {
			have = old.Prefixes
		}
		if msg := prefixCollision(have, prefixes); msg != "" {
			x.Error(msg)
			return
		}
		// Prefixes add up over repeated CLIENT TRACKING ON calls, as in Redis;
		// none means every key.
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		// Sorted, as Redis's radix tree lists them; "" may come twice.
		m.Prefixes = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(have), prefixes...))))
	}
	if old == nil || !m.OptIn && !m.OptOut {
		c.modes &^= caching
	}
	c.pubsub.track.ClearBrokenRedirect()
	c.setTracking(m)
	x.W.OK()
}

// prefixCollision is Redis's checkPrefixCollisionsOrReply: a client's
// prefixes must not overlap (one a prefix of another), among those it has
// and those it adds (the same prefix again counts as an overlap).
func prefixCollision(have, add []string) string {
	overlap := func(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
	for i, p := range add {
		for _, h := range have {
			if overlap(p, h) {
				return fmt.Sprintf("ERR Prefix '%s' overlaps with an existing prefix '%s'. Prefixes for a single client must not overlap.", cstr([]byte(p), -1), cstr([]byte(h), -1))
			}
		}
		for _, q := range add[i+1:] {
			if overlap(p, q) {
				return fmt.Sprintf("ERR Prefix '%s' overlaps with another provided prefix '%s'. Prefixes for a single client must not overlap.", cstr([]byte(p), -1), cstr([]byte(q), -1))
			}
		}
	}
	return ""
}

// clientCaching is CLIENT CACHING YES|NO: whether the next command's keys
// are tracked, in OPTIN or OPTOUT mode.
func clientCaching(x *cmdtable.Ctx) {
	c := cl(x)
	m := c.pubsub.track.Mode()
	if m == nil {
		x.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch {
	case cmdtable.Is(x.Args[2], "yes"):
		if !m.OptIn {
			x.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case cmdtable.Is(x.Args[2], "no"):
		if !m.OptOut {
			x.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		x.Error(cmdtable.ErrSyntax)
		return
	}
	c.modes |= caching
	x.W.OK()
}

// clientTrackingInfo is CLIENT TRACKINGINFO.
func clientTrackingInfo(x *cmdtable.Ctx) {
	c := cl(x)
	m := c.pubsub.track.Mode()
	x.W.Map(3)
	x.W.BulkString("flags")
	var flags []string
	if m == nil {
		flags = append(flags, "off")
	} else {
		flags = append(flags, "on")
		if m.BCast {
			flags = append(flags, "bcast")
		}
		if m.OptIn {
			flags = append(flags, "optin")
			if c.modes&caching != 0 {
				flags = append(flags, "caching-yes")
			}
		}
		if m.OptOut {
			flags = append(flags, "optout")
			if c.modes&caching != 0 {
				flags = append(flags, "caching-no")
			}
		}
		if m.NoLoop {
			flags = append(flags, "noloop")
		}
		if c.pubsub.track.BrokenRedirect() {
			flags = append(flags, "broken_redirect")
		}
	}
	x.W.Set(len(flags))
	for _, f := range flags {
		x.W.BulkString(f)
	}
	x.W.BulkString("redirect")
	if m == nil {
		x.W.Int(-1)
	} else {
		x.W.Int(m.Redirect)
	}
	x.W.BulkString("prefixes")
	if m == nil {
		x.W.Array(0)
		return
	}
	x.W.Array(len(m.Prefixes))
	for _, p := range m.Prefixes {
		x.W.BulkString(p)
	}
}

// redirection is CLIENT GETREDIR's answer and CLIENT LIST's redir field.
func (c *client) redirection() int64 {
	if m := c.pubsub.track.Mode(); m != nil {
		return m.Redirect
	}
	return -1
}

// trackFlags are CLIENT LIST's tracking flags.
func (c *client) trackFlags(flags []byte) []byte {
	m := c.pubsub.track.Mode()
	if m == nil {
		return flags
	}
	flags = append(flags, 't')
	if c.pubsub.track.BrokenRedirect() {
		flags = append(flags, 'R')
	}
	if m.BCast {
		flags = append(flags, 'B')
	}
	return flags
}
