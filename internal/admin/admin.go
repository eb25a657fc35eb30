package admin

import "github.com/hotkv/hotkv/internal/cmdtable"

// Server is the server's side of the admin commands: the mechanism they
// drive, seen from the connection that runs the command (some answers, such
// as TIME inside EXEC, depend on it). Only admin commands call it.
type Server interface {
	// Version is HotKV's own version (LOLWUT).
	Version() string
	// CachedTime is the time TIME reports, in microseconds, given the
	// clock's now: inside a transaction the same time every call.
	CachedTime(now int64) int64
}

// Conn is what cmdtable.Ctx.Conn holds for a connection that can run admin
// commands.
type Conn interface {
	Admin() Server
}

// srv is the server behind the connection running x.
func srv(x *cmdtable.Ctx) Server { return x.Conn.(Conn).Admin() }
