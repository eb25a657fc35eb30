package server

import "github.com/hotkv/hotkv/internal/admin"

// adminConn is a client seen by the admin commands (internal/admin): the
// methods of admin.Server, apart from the client's own.
type adminConn client

// Admin implements admin.Conn.
func (c *client) Admin() admin.Server { return (*adminConn)(c) }

func (a *adminConn) Version() string { return Version }

func (a *adminConn) CachedTime(now int64) int64 {
	if !a.inExec {
		return now
	}
	if a.execTime == 0 {
		a.execTime = now
	}
	return a.execTime
}
