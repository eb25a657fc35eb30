package server

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/command"
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
func (c *client) describe() string {
	c.infoMu.Lock()
	name, lib, ver := c.name, c.libName, c.libVer
	c.infoMu.Unlock()
	now := time.Now()
	flags := "N"
	multi := -1
	sub, psub, ssub := int64(0), int64(0), int64(0)
	if p := c.pubsub; p != nil {
		sub, psub, ssub = p.n[kindChannel].Load(), p.n[kindPattern].Load(), p.n[kindShard].Load()
		if sub+psub+ssub > 0 {
			flags = "P"
		}
	}
	cmd := "NULL"
	if lc := c.lastCmd.Load(); lc != nil {
		cmd = lc.Name
	}
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d sub=%d psub=%d ssub=%d multi=%d watch=%d qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=%d rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=default redir=-1 resp=%d lib-name=%s lib-ver=%s",
		c.id, c.conn.RemoteAddr(), c.conn.LocalAddr(), 0, name,
		int64(now.Sub(c.created).Seconds()), (now.UnixMilli()-c.lastSeen.Load())/1000,
		flags, c.dbNum.Load(), sub, psub, ssub, multi, c.watchCount.Load(), initialReadBuf, cmd, c.proto.Load(), lib, ver)
}

func (s *Server) clientList() []*client {
	s.mu.Lock()
	out := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		out = append(out, c)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func clientList(x *command.Ctx) {
	c := cl(x)
	var ids map[int64]bool
	typ := ""
	for i := 2; i < len(x.Args); i++ {
		switch {
		case command.Is(x.Args[i], "type") && i+1 < len(x.Args):
			typ = strings.ToLower(string(x.Args[i+1]))
			switch typ {
			case "normal", "master", "replica", "slave", "pubsub":
			default:
				x.Error(fmt.Sprintf("ERR Unknown client type '%s'", x.Args[i+1]))
				return
			}
			i++
		case command.Is(x.Args[i], "id") && i+1 < len(x.Args):
			ids = map[int64]bool{}
			for i++; i < len(x.Args); i++ {
				id, ok := command.ParseInt(x.Args[i])
				if !ok || id <= 0 {
					x.Error("ERR Invalid client ID")
					return
				}
				ids[id] = true
			}
		default:
			x.Error(command.ErrSyntax)
			return
		}
	}
	var b strings.Builder
	for _, o := range c.s.clientList() {
		if ids != nil && !ids[o.id] {
			continue
		}
		isPub := o.pubsub != nil
		if (typ == "pubsub" && !isPub) || (typ == "normal" && isPub) || typ == "master" || typ == "replica" || typ == "slave" {
			continue
		}
		b.WriteString(o.describe())
		b.WriteByte('\n')
	}
	x.W.Verbatim(b.String())
}

func clientKill(x *command.Ctx) {
	c := cl(x)
	args := x.Args[2:]
	if len(args) == 1 { // old form: CLIENT KILL addr:port
		for _, o := range c.s.clientList() {
			if o.conn.RemoteAddr().String() == string(args[0]) {
				o.kill(c)
				x.W.OK()
				return
			}
		}
		x.Error("ERR No such client")
		return
	}
	if len(args)%2 != 0 {
		x.Error(command.ErrSyntax)
		return
	}
	var (
		id               int64
		addr, laddr, typ string
		user             string
		skipMe                 = true
		maxAge           int64 = -1
	)
	for i := 0; i < len(args); i += 2 {
		v := string(args[i+1])
		switch {
		case command.Is(args[i], "id"):
			n, ok := command.ParseInt(args[i+1])
			if !ok || n <= 0 {
				x.Error("ERR client-id should be greater than 0")
				return
			}
			id = n
		case command.Is(args[i], "addr"):
			addr = v
		case command.Is(args[i], "laddr"):
			laddr = v
		case command.Is(args[i], "type"):
			typ = strings.ToLower(v)
			switch typ {
			case "normal", "master", "replica", "slave", "pubsub":
			default:
				x.Error(fmt.Sprintf("ERR Unknown client type '%s'", v))
				return
			}
		case command.Is(args[i], "user"):
			user = v
		case command.Is(args[i], "skipme"):
			switch strings.ToLower(v) {
			case "yes":
				skipMe = true
			case "no":
				skipMe = false
			default:
				x.Error(command.ErrSyntax)
				return
			}
		case command.Is(args[i], "maxage"):
			n, ok := command.ParseInt(args[i+1])
			if !ok || n < 0 {
				x.Error(command.ErrNotInt)
				return
			}
			maxAge = n
		default:
			x.Error(command.ErrSyntax)
			return
		}
	}
	killed := 0
	for _, o := range c.s.clientList() {
		switch {
		case id != 0 && o.id != id,
			addr != "" && o.conn.RemoteAddr().String() != addr,
			laddr != "" && o.conn.LocalAddr().String() != laddr,
			user != "" && user != "default",
			typ == "pubsub" && o.pubsub == nil, typ == "normal" && o.pubsub != nil,
			typ == "master" || typ == "replica" || typ == "slave",
			skipMe && o == c,
			maxAge >= 0 && time.Since(o.created) < time.Duration(maxAge)*time.Second:
			continue
		}
		o.kill(c)
		killed++
	}
	x.W.Int(int64(killed))
}

// kill closes o; the killer's own connection closes after its reply.
func (o *client) kill(by *client) {
	o.killed.Store(true)
	if o == by {
		by.closing = true
		return
	}
	o.conn.Close()
}

func clientSetInfo(x *command.Ctx) {
	c := cl(x)
	v := string(x.Args[3])
	for _, ch := range x.Args[3] {
		if ch < '!' || ch > '~' {
			x.Error(fmt.Sprintf("ERR %s cannot contain spaces, newlines or special characters.", strings.ToLower(string(x.Args[2]))))
			return
		}
	}
	c.infoMu.Lock()
	defer c.infoMu.Unlock()
	switch {
	case command.Is(x.Args[2], "lib-name"):
		c.libName = v
	case command.Is(x.Args[2], "lib-ver"):
		c.libVer = v
	default:
		x.Error(fmt.Sprintf("ERR Unrecognized option '%s'", x.Args[2]))
		return
	}
	x.W.OK()
}

func onOff(x *command.Ctx) {
	if !command.Is(x.Args[2], "on") && !command.Is(x.Args[2], "off") {
		x.Error(command.ErrSyntax)
		return
	}
	x.W.OK()
}

func init() {
	const g = "connection"
	f := command.NoScript | command.Loading | command.Stale
	sub := func(name string, arity int, summary, args string, run func(*command.Ctx)) *command.Cmd {
		return &command.Cmd{Name: "client|" + name, Arity: arity, Flags: f, Run: run, Group: g, Since: "2.4.0", Summary: summary, Args: args}
	}
	command.Register(&command.Cmd{Name: "client", Arity: -2, Group: g, Since: "2.4.0", Summary: "A container for client connection commands.",
		Subs: []*command.Cmd{
			sub("id", 2, "Returns the unique client ID of the connection.", "", func(x *command.Ctx) { x.W.Int(cl(x).id) }),
			sub("getname", 2, "Returns the name of the connection.", "", func(x *command.Ctx) {
				c := cl(x)
				c.infoMu.Lock()
				name := c.name
				c.infoMu.Unlock()
				if name == "" {
					x.W.Null()
					return
				}
				x.W.BulkString(name)
			}),
			sub("setname", 3, "Sets the connection name.", "connection-name", func(x *command.Ctx) {
				if msg := validName(x.Args[2]); msg != "" {
					x.Error(msg)
					return
				}
				c := cl(x)
				c.infoMu.Lock()
				c.name = string(x.Args[2])
				c.infoMu.Unlock()
				x.W.OK()
			}),
			sub("list", -2, "Lists open connections.", "[TYPE <NORMAL | MASTER | REPLICA | PUBSUB>] [ID client-id [client-id ...]]", clientList),
			sub("info", 2, "Returns information about the connection.", "", func(x *command.Ctx) { x.W.Verbatim(cl(x).describe() + "\n") }),
			sub("kill", -3, "Terminates open connections.", "<ip:port | <[ID client-id] | [TYPE <NORMAL | MASTER | SLAVE | REPLICA | PUBSUB>] | [USER username] | [ADDR ip:port] | [LADDR ip:port] | [SKIPME <YES | NO>] | [MAXAGE maxage]> [...]>", clientKill),
			sub("setinfo", 4, "Sets information specific to the client or connection.", "<LIB-NAME libname | LIB-VER libver>", clientSetInfo),
			sub("no-evict", 3, "Sets the client eviction mode of the connection.", "<ON | OFF>", onOff),
			sub("no-touch", 3, "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.", "<ON | OFF>", onOff),
			helpCmd("client", []string{
				"GETNAME", "    Return the name of the current connection.",
				"ID", "    Return the ID of the current connection.",
				"INFO", "    Return information about the current client connection.",
				"KILL <ip:port>", "    Kill connection made from <ip:port>.",
				"KILL <option> <value> [<option> <value> [...]]", "    Kill connections. Options are: ID, TYPE, USER, ADDR, LADDR, SKIPME, MAXAGE.",
				"LIST [options ...]", "    Return information about client connections. Options: TYPE, ID.",
				"SETNAME <name>", "    Assign the name <name> to the current connection.",
				"SETINFO <option> <value>", "    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
				"NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.",
				"NO-TOUCH (ON|OFF)", "    Will not touch LRU/LFU stats when this mode is on.",
			}),
		}})
}
