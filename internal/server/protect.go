package server

import (
	"bytes"
	"net"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// Redis's defences for a server reachable from other hosts: protected mode
// (no password: only local clients), and the settings that keep DEBUG,
// MODULE LOAD and CONFIG SET dir/dbfilename from remote clients, or from
// everyone (enable-debug-command, enable-module-command,
// enable-protected-configs: no, yes or local).

// isLocal reports whether conn comes from this host: a Unix socket or a
// loopback address (Redis's connIsLocal: 127.0.0.0/8 and ::1). The
// server's own clients (the log replayer) have no connection.
func isLocal(conn net.Conn) bool {
	if conn == nil {
		return true
	}
	switch a := conn.RemoteAddr().(type) {
	case *net.UnixAddr:
		return true
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	}
	return false
}

// mayDo reports whether c may take a protected action under setting
// (no, yes or local).
func (c *client) mayDo(setting string) bool {
	return setting == "yes" || (setting == "local" && c.io.local)
}

func (c *client) protectedAllowed(cmd *cmdtable.Cmd) bool {
	cfg := c.s.Config()
	if cmd.Name == "debug" {
		return c.mayDo(cfg.EnableDebugCmd)
	}
	return c.mayDo(cfg.EnableModuleCmd)
}

// protectedCommandError is Redis's refusal of DEBUG or MODULE LOAD/UNLOAD.
func protectedCommandError(cmd *cmdtable.Cmd) string {
	name, setting := "MODULE", "enable-module-command"
	if cmd.Name == "debug" {
		name, setting = "DEBUG", "enable-debug-command"
	}
	return "ERR " + name + ` command not allowed. If the ` + setting + ` option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`
}

// refusedByProtectedMode reports whether a new connection must be turned
// away: protected mode is on, the default user has no password, and the
// client is not local. Redis answers it with errProtectedMode and closes.
func (s *Server) refusedByProtectedMode(conn net.Conn) bool {
	return s.Config().ProtectedMode && s.defaultUser.Profile().NoPass && !isLocal(conn)
}

var errProtectedMode = strings.Join([]string{
	"-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user.",
	"In this mode connections are only accepted from the loopback interface.",
	"If you want to connect from external computers to Redis you may adopt one of the following solutions:",
	"1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent.",
	"2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server.",
	"3) If you started the server manually just for testing, restart it with the '--protected-mode no' option.",
	"4) Set up an authentication password for the default user.",
	"NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n",
}, " ")

// crossProtocol reports whether a command name is the POST or "Host:" of an
// HTTP request, compared as Redis's processCommand does (strcasecmp: up to a
// NUL). A web page can make a browser send such a request to a local port;
// the request's body would then run as commands ("cross protocol
// scripting"). Only unknown names are asked: neither is a command.
func crossProtocol(name []byte) bool {
	name = cstr(name, -1)
	return bytes.EqualFold(name, []byte("post")) || bytes.EqualFold(name, []byte("host:"))
}

// crossProtocolAttack ends the connection as Redis's securityWarningCommand
// does: nothing after it runs and nothing is answered, not even the replies
// of the commands before it in the same read; the warning is logged at
// most once a minute, so that an attacker cannot flood the log.
func (c *client) crossProtocolAttack() {
	c.s.stats.crossProtocol.Add(1)
	now := time.Now().Unix()
	if last := c.s.stats.attackLogged.Load(); (now-last > 60 || last-now > 60) && c.s.stats.attackLogged.CompareAndSwap(last, now) {
		c.s.logf("warning", "Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. "+
			"This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. "+
			"Connection from %s aborted.", c.addr())
	}
	c.resetOut()
	c.io.closing = true
}
