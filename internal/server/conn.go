package server

import (
	"fmt"

	"github.com/hotkv/hotkv/internal/admin"
	"github.com/hotkv/hotkv/internal/cmdtable"
)

// Connection commands: PING, ECHO, QUIT, RESET, AUTH, HELLO, SELECT.

func cl(x *cmdtable.Ctx) *client { return x.Conn.(*client) }

func ping(x *cmdtable.Ctx) {
	if len(x.Args) > 2 {
		x.Error(cmdtable.WrongArgs("ping"))
		return
	}
	c := cl(x)
	if c.subscribed() && x.W.Proto == 2 {
		x.W.Array(2)
		x.W.BulkString("pong")
		if len(x.Args) == 2 {
			x.W.Bulk(x.Args[1])
		} else {
			x.W.BulkString("")
		}
		return
	}
	if len(x.Args) == 2 {
		x.W.Bulk(x.Args[1])
		return
	}
	x.W.Simple("PONG")
}

func quit(x *cmdtable.Ctx) {
	x.W.OK()
	c := cl(x)
	c.io.closing = true
	// Gone for other clients (CLIENT LIST, a tracking REDIRECT to it)
	// before its OK is out, as in Redis, which frees it once that is written.
	c.io.killed.Store(true)
}

// reset is RESET: the connection as it was on connect, except that the
// library name and version stay (as in Redis).
func reset(x *cmdtable.Ctx) {
	c := cl(x)
	c.endMulti()
	c.stopMonitoring()
	c.s.hub.UnsubscribeAll(&c.pubsub.ep)
	c.selectDB(0)
	c.setProto(2)
	c.auth.user.Store(c.s.defaultUser)
	c.auth.ok = !c.s.defaultNeedsAuth()
	c.info.noEvict.Store(false)
	c.info.noTouch.Store(false)
	if c.modes&tracking != 0 {
		c.setTracking(nil)
	}
	c.modes = 0
	c.info.mu.Lock()
	c.info.name = ""
	c.info.mu.Unlock()
	x.W.Simple("RESET")
}

func auth(x *cmdtable.Ctx) {
	c := cl(x)
	var user, pass []byte
	switch len(x.Args) {
	case 2:
		if c.s.defaultUser.Profile().NoPass {
			x.Error("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
			return
		}
		pass = x.Args[1]
	case 3:
		user, pass = x.Args[1], x.Args[2]
	default:
		x.Error(cmdtable.ErrSyntax)
		return
	}
	u, ok := c.authenticate(string(x.Args[0]), user, pass)
	if !ok {
		c.s.logf("verbose", "AUTH failed for client id=%d", c.id)
		x.Error(cmdtable.ErrWrongPass)
		return
	}
	if !c.login(u) {
		x.Error(cmdtable.ErrWrongPass)
		return
	}
	x.W.OK()
}

// hello is HELLO, following Redis's helloCommand step by step: version, then
// options (a bad SETNAME is refused while parsing, the last AUTH wins), then
// authentication, then the name, then the protocol switch.
func hello(x *cmdtable.Ctx) {
	c := cl(x)
	proto := 0
	args := x.Args[1:]
	if len(args) > 0 {
		v, ok := cmdtable.ParseInt(args[0])
		if !ok {
			x.Error("ERR Protocol version is not an integer or out of range")
			return
		}
		if v != 2 && v != 3 {
			x.Error("NOPROTO unsupported protocol version")
			return
		}
		proto = int(v)
		args = args[1:]
	}
	var user, pass, name []byte
	for i := 0; i < len(args); i++ {
		more := len(args) - 1 - i
		switch {
		case cmdtable.Is(args[i], "auth") && more >= 2:
			user, pass = args[i+1], args[i+2]
			i += 2
		case cmdtable.Is(args[i], "setname") && more >= 1:
			name = args[i+1]
			if msg := validName(name); msg != "" {
				x.Error(msg)
				return
			}
			i++
		default:
			x.Error(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", cstr(args[i], -1)))
			return
		}
	}
	if user != nil {
		u, ok := c.authenticate(string(x.Args[0]), user, pass)
		if !ok {
			c.s.logf("verbose", "HELLO AUTH failed for client id=%d", c.id)
			x.Error(cmdtable.ErrWrongPass)
			return
		}
		if !c.login(u) {
			x.Error(cmdtable.ErrWrongPass)
			return
		}
	}
	if c.authRequired() {
		x.Error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if name != nil {
		c.info.mu.Lock()
		c.info.name = string(name)
		c.info.mu.Unlock()
	}
	if proto != 0 {
		c.setProto(proto)
	}
	w := x.W
	w.Map(7)
	w.BulkString("server")
	w.BulkString("redis")
	w.BulkString("version")
	w.BulkString(RedisVersion)
	w.BulkString("proto")
	w.Int(int64(w.Proto))
	w.BulkString("id")
	w.Int(c.id)
	w.BulkString("mode")
	w.BulkString("standalone")
	w.BulkString("role")
	w.BulkString("master")
	w.BulkString("modules")
	admin.WriteModuleList(w)
}

func selectCmd(x *cmdtable.Ctx) {
	n, ok := cmdtable.ParseInt(x.Args[1])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if n < 0 || n >= int64(len(x.KS.DBs)) {
		x.Error(cmdtable.ErrDBIndex)
		return
	}
	cl(x).selectDB(int(n))
	x.W.OK()
}

// helpCmd builds the HELP subcommand of a server container command.
func helpCmd(parent string, lines []string) *cmdtable.Cmd {
	return cmdtable.HelpCmd(parent, "server", "5.0.0", lines)
}

func init() {
	const g = "connection"
	f := cmdtable.Fast | cmdtable.Loading | cmdtable.Stale
	cmdtable.Register(
		&cmdtable.Cmd{Name: "ping", Arity: -1, Flags: cmdtable.Fast, Run: ping, Group: g, Since: "1.0.0",
			Summary: "Returns the server's liveliness response.", Args: "[message]"},
		&cmdtable.Cmd{Name: "echo", Arity: 2, Flags: f, Run: func(x *cmdtable.Ctx) { x.W.Bulk(x.Args[1]) }, Group: g, Since: "1.0.0",
			Summary: "Returns the given string.", Args: "message"},
		&cmdtable.Cmd{Name: "quit", Arity: -1, Flags: f | cmdtable.NoAuth | cmdtable.NoScript | cmdtable.AllowBusy, Run: quit, Group: g, Since: "1.0.0",
			Summary: "Closes the connection."},
		&cmdtable.Cmd{Name: "reset", Arity: 1, Flags: f | cmdtable.NoAuth | cmdtable.NoScript | cmdtable.AllowBusy, Run: reset, Group: g, Since: "6.2.0",
			Summary: "Resets the connection."},
		&cmdtable.Cmd{Name: "auth", Arity: -2, Flags: f | cmdtable.NoAuth | cmdtable.NoScript | cmdtable.AllowBusy, Run: auth, Group: g, Since: "1.0.0",
			Summary: "Authenticates the connection.", Args: "[username] password"},
		&cmdtable.Cmd{Name: "hello", Arity: -1, Flags: f | cmdtable.NoAuth | cmdtable.NoScript | cmdtable.AllowBusy, Run: hello, Group: g, Since: "6.0.0",
			Summary: "Handshakes with the Redis server.", Args: "[protover [AUTH username password] [SETNAME clientname]]"},
		&cmdtable.Cmd{Name: "select", Arity: 2, Flags: f, Run: selectCmd, Group: g, Since: "1.0.0",
			Summary: "Changes the selected database.", Args: "index"},
	)
}
