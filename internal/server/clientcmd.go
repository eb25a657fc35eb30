package server

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/acl"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/pubsub"
)

// CLIENT and its subcommands.

func validName(b []byte) string {
	for _, c := range b {
		if c < '!' || c > '~' {
			return "ERR Client names cannot contain spaces, newlines or special characters."
		}
	}
	return ""
}

// describe is one CLIENT LIST line, with Redis's field names and order.
// Buffer sizes HotKV does not track the way Redis does are reported as 0;
// omem is the output queued for a subscribed, monitoring or tracking client.
func (c *client) describe() string {
	c.info.mu.Lock()
	name, lib, ver := c.info.name, c.info.libName, c.info.libVer
	c.info.mu.Unlock()
	now := time.Now()
	sub, psub, ssub := c.pubsub.ep.Count(pubsub.Channel), c.pubsub.ep.Count(pubsub.Pattern), c.pubsub.ep.Count(pubsub.Shard)
	queued := c.tx.queued.Load()
	var flags []byte // in Redis's order
	if c.pubsub.monitoring.Load() {
		flags = append(flags, 'O')
	} else if c.isReplica() {
		flags = append(flags, 'S')
	}
	if c.repl.master {
		flags = append(flags, 'M')
	}
	if sub+psub+ssub > 0 {
		flags = append(flags, 'P')
	}
	if queued >= 0 {
		flags = append(flags, 'x')
	}
	if c.waiting.Load() != nil {
		flags = append(flags, 'b')
	}
	flags = c.trackFlags(flags)
	if c.tx.watchCount.Load() > 0 && c.tx.watch.Dirty() {
		flags = append(flags, 'd')
	}
	if c.unix() {
		flags = append(flags, 'U')
	}
	if c.info.noEvict.Load() {
		flags = append(flags, 'e')
	}
	if c.info.noTouch.Load() {
		flags = append(flags, 'T')
	}
	if len(flags) == 0 {
		flags = append(flags, 'N')
	}
	cmd := "NULL"
	if lc := c.info.lastCmd.Load(); lc != nil {
		cmd = lc.Name
	}
	user := c.auth.user.Load().Name
	if c.repl.master { // it runs with no user's rights, as Redis's
		user = "(superuser)"
	}
	qbuf, free := c.queryBuf()
	omem := c.queuedOutput()
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d sub=%d psub=%d ssub=%d multi=%d watch=%d qbuf=%d qbuf-free=%d argv-mem=0 multi-mem=0 rbs=%d rbp=0 obl=0 oll=0 omem=%d tot-mem=%d events=r cmd=%s user=%s redir=%d resp=%d lib-name=%s lib-ver=%s io-thread=0",
		c.id, c.addr(), c.laddr(), c.io.fd, name,
		int64(now.Sub(c.info.created).Seconds()), (now.UnixMilli()-c.info.lastSeen.Load())/1000,
		flags, c.info.dbNum.Load(), sub, psub, ssub, queued, c.tx.watchCount.Load(), qbuf, free, qbuf+free, omem, c.totalMem(omem),
		cmd, user, c.redirection(), c.info.proto.Load(), lib, ver)
}

func (s *Server) clientList() []*client {
	s.clients.mu.Lock()
	out := make([]*client, 0, len(s.clients.byID))
	for _, c := range s.clients.byID {
		if !c.io.killed.Load() { // gone for good, though its goroutine may still be finishing
			out = append(out, c)
		}
	}
	s.clients.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// clientUnblock is CLIENT UNBLOCK client-id [TIMEOUT | ERROR].
func clientUnblock(x *cmdtable.Ctx) {
	if len(x.Args) > 4 {
		x.Error(cmdtable.UnknownSubcommand(cstr(x.Args[1], 128), "CLIENT"))
		return
	}
	id, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	reason := unblockTimeout
	switch {
	case len(x.Args) == 3 || len(x.Args) == 4 && cmdtable.Is(x.Args[3], "timeout"):
	case len(x.Args) == 4 && cmdtable.Is(x.Args[3], "error"):
		reason = unblockError
	default:
		x.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
		return
	}
	if c := cl(x).s.clientByID(id); c != nil && c.unblock(reason) {
		x.W.Int(1)
		return
	}
	x.W.Int(0)
}

func (s *Server) clientByID(id int64) *client {
	s.clients.mu.Lock()
	defer s.clients.mu.Unlock()
	if c := s.clients.byID[id]; c != nil && !c.io.killed.Load() {
		return c
	}
	return nil
}

// listedClients is what CLIENT LIST and CLIENT KILL see: the connected
// clients and, on a replica, the master's client of its link.
func (s *Server) listedClients() []*client {
	out := s.clientList()
	s.clients.mu.Lock()
	mc := s.upstream.client
	s.clients.mu.Unlock()
	if mc != nil && !mc.io.killed.Load() {
		out = append(out, mc)
		sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	}
	return out
}

// clientType parses a CLIENT LIST/KILL TYPE argument; ok is false (and the
// error answered) for an unknown one.
func clientType(x *cmdtable.Ctx, arg []byte) (typ string, ok bool) {
	typ = strings.ToLower(string(arg))
	switch typ {
	case "normal", "master", "replica", "slave", "pubsub":
		return typ, true
	}
	x.Error(fmt.Sprintf("ERR Unknown client type '%s'", cstr(arg, -1)))
	return "", false
}

// hasType reports whether o is of a CLIENT LIST/KILL type.
func (o *client) hasType(typ string) bool {
	switch typ {
	case "master":
		return o.repl.master
	case "replica", "slave":
		return o.isReplica()
	case "pubsub":
		return o.subscribed() && !o.isReplica()
	case "normal":
		return !o.subscribed() && !o.isReplica() && !o.repl.master
	}
	return false
}

// clientList is CLIENT LIST [TYPE type | ID id [id ...]], the forms Redis
// accepts (one or the other, not both); IDs are listed in the order given.
func clientList(x *cmdtable.Ctx) {
	s := cl(x).s
	var b strings.Builder
	switch {
	case len(x.Args) == 2:
		for _, o := range s.listedClients() {
			b.WriteString(o.describe())
			b.WriteByte('\n')
		}
	case len(x.Args) == 4 && cmdtable.Is(x.Args[2], "type"):
		typ, ok := clientType(x, x.Args[3])
		if !ok {
			return
		}
		for _, o := range s.listedClients() {
			if o.hasType(typ) {
				b.WriteString(o.describe())
				b.WriteByte('\n')
			}
		}
	case len(x.Args) > 3 && cmdtable.Is(x.Args[2], "id"):
		ids := make([]int64, 0, len(x.Args)-3)
		for _, a := range x.Args[3:] {
			id, ok := cmdtable.ParseInt(a)
			if !ok {
				x.Error("ERR Invalid client ID")
				return
			}
			ids = append(ids, id)
		}
		for _, id := range ids {
			if o := s.clientByID(id); o != nil {
				b.WriteString(o.describe())
				b.WriteByte('\n')
			}
		}
	default:
		x.Error(cmdtable.ErrSyntax)
		return
	}
	x.W.Verbatim(b.String())
}

// clientKill is CLIENT KILL, old form (addr, answers OK, may kill the caller)
// and new form (filters, answers the number killed), with Redis's errors.
func clientKill(x *cmdtable.Ctx) {
	c := cl(x)
	args := x.Args[2:]
	if len(args) == 1 {
		for _, o := range c.s.listedClients() {
			if o.addr() == string(args[0]) {
				o.kill(c)
				x.W.OK()
				return
			}
		}
		x.Error("ERR No such client")
		return
	}
	var (
		id               int64
		addr, laddr, typ string
		skipMe           = true
		maxAge           int64
		user             *acl.User
	)
	for i := 0; i < len(args); i += 2 {
		if i+1 >= len(args) {
			x.Error(cmdtable.ErrSyntax)
			return
		}
		v := args[i+1]
		switch {
		case cmdtable.Is(args[i], "id"):
			n, ok := cmdtable.ParseInt(v)
			if !ok || n <= 0 {
				x.Error("ERR client-id should be greater than 0")
				return
			}
			id = n
		case cmdtable.Is(args[i], "type"):
			var ok bool
			if typ, ok = clientType(x, v); !ok {
				return
			}
		case cmdtable.Is(args[i], "addr"):
			addr = string(v)
		case cmdtable.Is(args[i], "laddr"):
			laddr = string(v)
		case cmdtable.Is(args[i], "user"):
			if user = c.s.users.Get(string(v)); user == nil {
				x.Error(fmt.Sprintf("ERR No such user '%s'", cstr(v, -1)))
				return
			}
		case cmdtable.Is(args[i], "skipme"):
			switch {
			case cmdtable.Is(v, "yes"):
				skipMe = true
			case cmdtable.Is(v, "no"):
				skipMe = false
			default:
				x.Error(cmdtable.ErrSyntax)
				return
			}
		case cmdtable.Is(args[i], "maxage"):
			n, ok := cmdtable.ParseInt(v)
			if !ok {
				x.Error("ERR maxage is not an integer or out of range")
				return
			}
			if n <= 0 {
				x.Error("ERR maxage should be greater than 0")
				return
			}
			maxAge = n
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	killed := 0
	for _, o := range c.s.listedClients() {
		switch {
		case id != 0 && o.id != id,
			addr != "" && o.addr() != addr,
			laddr != "" && o.laddr() != laddr,
			typ != "" && !o.hasType(typ),
			user != nil && (o.repl.master || o.auth.user.Load() != user),
			skipMe && o == c,
			maxAge > 0 && time.Since(o.info.created) < time.Duration(maxAge)*time.Second:
			continue
		}
		o.kill(c)
		killed++
	}
	x.W.Int(int64(killed))
}

// kill closes o; the killer's own connection closes after its reply. A
// replica is detached at once, as Redis frees it: closeConn closes the
// socket a moment later, and the stream written meanwhile must not go out
// on it (the replica gets it from the backlog when it comes back).
func (o *client) kill(by *client) {
	if o == by {
		by.io.closing = true
		return
	}
	if o.isReplica() { // o.replica was set before the flag, and never changes after
		o.replicaGone()
	}
	o.closeConn()
}

// clientSetInfo is CLIENT SETINFO: the attribute is checked before the value,
// and errors name it as the client spelled it.
func clientSetInfo(x *cmdtable.Ctx) {
	c := cl(x)
	attr, v := x.Args[2], x.Args[3]
	var dst *string
	switch {
	case cmdtable.Is(attr, "lib-name"):
		dst = &c.info.libName
	case cmdtable.Is(attr, "lib-ver"):
		dst = &c.info.libVer
	default:
		x.Error(fmt.Sprintf("ERR Unrecognized option '%s'", cstr(attr, -1)))
		return
	}
	if validName(v) != "" {
		x.Error(fmt.Sprintf("ERR %s cannot contain spaces, newlines or special characters.", cstr(attr, -1)))
		return
	}
	c.info.mu.Lock()
	*dst = string(v)
	c.info.mu.Unlock()
	x.W.OK()
}

// clientReply is CLIENT REPLY ON|OFF|SKIP. OFF and SKIP answer nothing;
// afterCommand drops the replies they silence.
func clientReply(x *cmdtable.Ctx) {
	c := cl(x)
	switch {
	case cmdtable.Is(x.Args[2], "on"):
		c.modes &^= replyOff | skipNext | skipThis
		x.W.OK()
	case cmdtable.Is(x.Args[2], "off"):
		c.modes |= replyOff
	case cmdtable.Is(x.Args[2], "skip"):
		if c.modes&replyOff == 0 {
			c.modes |= skipNext
		}
	default:
		x.Error(cmdtable.ErrSyntax)
	}
}

// afterCommand ends a command of the batch, whose reply starts at mark:
// CLIENT REPLY may drop it (not (un)subscribe confirmations, which Redis
// sends as pushes in either protocol), and CLIENT CACHING's flag lasts one command
// (a whole transaction inside MULTI; CLIENT subcommands keep it, as in
// Redis).
func (c *client) afterCommand(cmd *cmdtable.Cmd, mark int) {
	if c.modes&(replyOff|skipThis) != 0 && len(c.io.out.B) > mark && !c.pubsub.confirmed {
		c.io.out.B = c.io.out.B[:mark]
	}
	c.pubsub.confirmed = false
	c.modes &^= skipThis
	if c.modes&skipNext != 0 {
		c.modes ^= skipNext | skipThis
	}
	if c.modes&caching != 0 && c.tx.multi == nil && (cmd == nil || cmd.Name != "client") {
		c.modes &^= caching
	}
}

// onOff makes CLIENT NO-EVICT / NO-TOUCH: HotKV never evicts clients and
// does not track key access per client, so the mode is only recorded (and
// shown in CLIENT LIST's flags).
func onOff(flag func(*client) *atomic.Bool) func(*cmdtable.Ctx) {
	return func(x *cmdtable.Ctx) {
		var on bool
		switch {
		case cmdtable.Is(x.Args[2], "on"):
			on = true
		case cmdtable.Is(x.Args[2], "off"):
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
		flag(cl(x)).Store(on)
		x.W.OK()
	}
}

func init() {
	const g = "connection"
	f := cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale
	sub := func(name string, arity int, summary, args string, run func(*cmdtable.Ctx)) *cmdtable.Cmd {
		flags := f
		if name == "list" || name == "kill" || name == "no-evict" || name == "unblock" || name == "pause" || name == "unpause" {
			flags |= cmdtable.Admin
		}
		return &cmdtable.Cmd{Name: "client|" + name, Arity: arity, Flags: flags, Run: run, Group: g, Since: "2.4.0", Summary: summary, Args: args}
	}
	cmdtable.Register(&cmdtable.Cmd{Name: "client", Arity: -2, Group: g, Since: "2.4.0", Summary: "A container for client connection commands.",
		Subs: []*cmdtable.Cmd{
			sub("id", 2, "Returns the unique client ID of the connection.", "", func(x *cmdtable.Ctx) { x.W.Int(cl(x).id) }),
			sub("getname", 2, "Returns the name of the connection.", "", func(x *cmdtable.Ctx) {
				c := cl(x)
				c.info.mu.Lock()
				name := c.info.name
				c.info.mu.Unlock()
				if name == "" {
					x.W.Null()
					return
				}
				x.W.BulkString(name)
			}),
			sub("setname", 3, "Sets the connection name.", "connection-name", func(x *cmdtable.Ctx) {
				if msg := validName(x.Args[2]); msg != "" {
					x.Error(msg)
					return
				}
				c := cl(x)
				c.info.mu.Lock()
				c.info.name = string(x.Args[2])
				c.info.mu.Unlock()
				x.W.OK()
			}),
			sub("list", -2, "Lists open connections.", "[TYPE <NORMAL | MASTER | REPLICA | PUBSUB>] [ID client-id [client-id ...]]", clientList),
			sub("info", 2, "Returns information about the connection.", "", func(x *cmdtable.Ctx) { x.W.Verbatim(cl(x).describe() + "\n") }),
			sub("kill", -3, "Terminates open connections.", "<ip:port | <[ID client-id] | [TYPE <NORMAL | MASTER | SLAVE | REPLICA | PUBSUB>] | [USER username] | [ADDR ip:port] | [LADDR ip:port] | [SKIPME <YES | NO>] | [MAXAGE maxage]> [...]>", clientKill),
			sub("pause", -3, "Suspends commands processing.", "timeout [WRITE | ALL]", clientPause),
			sub("unpause", 2, "Resumes processing commands from paused clients.", "", clientUnpause),
			sub("setinfo", 4, "Sets information specific to the client or connection.", "<LIB-NAME libname | LIB-VER libver>", clientSetInfo),
			sub("no-evict", 3, "Sets the client eviction mode of the connection.", "<ON | OFF>", onOff(func(c *client) *atomic.Bool { return &c.info.noEvict })),
			sub("unblock", -3, "Unblocks a client blocked by a blocking command from a different connection.", "client-id [TIMEOUT | ERROR]", clientUnblock),
			sub("tracking", -3, "Controls server-assisted client-side caching for the connection.", "<ON | OFF> [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]", clientTracking),
			sub("caching", 3, "Instructs the server whether to track the keys in the next request.", "<YES | NO>", clientCaching),
			sub("trackinginfo", 2, "Returns information about server-assisted client-side caching for the connection.", "", clientTrackingInfo),
			sub("getredir", 2, "Returns the client ID to which the connection's tracking notifications are redirected.", "", func(x *cmdtable.Ctx) { x.W.Int(cl(x).redirection()) }),
			sub("reply", 3, "Instructs the server whether to reply to commands.", "<ON | OFF | SKIP>", clientReply),
			sub("no-touch", 3, "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.", "<ON | OFF>", onOff(func(c *client) *atomic.Bool { return &c.info.noTouch })),
			cmdtable.HelpCmd("client", "connection", "5.0.0", []string{
				"CACHING (YES|NO)", "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
				"GETREDIR", "    Return the client ID we are redirecting to when tracking is enabled.",
				"GETNAME", "    Return the name of the current connection.",
				"ID", "    Return the ID of the current connection.",
				"INFO", "    Return information about the current client connection.",
				"KILL <ip:port>", "    Kill connection made from <ip:port>.",
				"KILL <option> <value> [<option> <value> [...]]", "    Kill connections. Options are: ID, TYPE, USER, ADDR, LADDR, SKIPME, MAXAGE.",
				"LIST [options ...]", "    Return information about client connections. Options: TYPE, ID.",
				"UNPAUSE", "    Stop the current client pause, resuming traffic.",
				"PAUSE <timeout> [WRITE|ALL]", "    Suspend all, or just write, clients for <timeout> milliseconds.",
				"REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
				"SETNAME <name>", "    Assign the name <name> to the current connection.",
				"SETINFO <option> <value>", "    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
				"UNBLOCK <clientid> [TIMEOUT|ERROR]", "    Unblock the specified blocked client.",
				"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]", "         [OPTIN] [OPTOUT] [NOLOOP]",
				"    Control server assisted client side caching.", "TRACKINGINFO",
				"    Report tracking status for the current connection.",
				"NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.",
				"NO-TOUCH (ON|OFF)", "    Will not touch LRU/LFU stats when this mode is on.",
			}),
		}})
}
