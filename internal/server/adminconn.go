package server

import (
	"strings"

	"github.com/hotkv/hotkv/internal/admin"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/resp"
)

// adminConn is a client seen by the admin commands (internal/admin): the
// methods of admin.Server, apart from the client's own.
type adminConn client

// Admin implements admin.Conn.
func (c *client) Admin() admin.Server { return (*adminConn)(c) }

func (a *adminConn) Version() string { return Version }

func (a *adminConn) CachedTime(now int64) int64 {
	if !a.tx.inExec {
		return now
	}
	if a.tx.execTime == 0 {
		a.tx.execTime = now
	}
	return a.tx.execTime
}

func (a *adminConn) Commands() []*cmdtable.Cmd        { return a.s.commands() }
func (a *adminConn) Lookup(name []byte) *cmdtable.Cmd { return a.s.lookup(name) }
func (a *adminConn) HasKeys(c *cmdtable.Cmd) bool     { return hasKeys(c) }

func (a *adminConn) WriteSpecs(w *resp.Writer, c *cmdtable.Cmd) {
	sp := specsOf(c)
	w.Set(len(sp.tips))
	for _, t := range sp.tips {
		w.BulkString(t)
	}
	writeKeySpecs(w, sp.keys)
}

func (a *adminConn) KeysOf(c *cmdtable.Cmd, args [][]byte) ([]int, [][]string) {
	pos, flags := keysOf(c, args, c.KeyPositions(args, nil))
	names := make([][]string, len(flags))
	for i, f := range flags {
		names[i] = f.names()
	}
	return pos, names
}

func (a *adminConn) Config() *config.Config         { return a.s.Config() }
func (a *adminConn) MayDo(setting string) bool      { return (*client)(a).mayDo(setting) }
func (a *adminConn) RewriteConfig() error           { return a.s.rewriteConfig() }
func (a *adminConn) Logf(level, f string, v ...any) { a.s.logf(level, f, v...) }

func (a *adminConn) SetConfig(build func(next *config.Config) error) error {
	return a.s.setConfig((*client)(a), build)
}

// ResetStats counts this connection's latest commands before the reset,
// as INFO would show them.
func (a *adminConn) ResetStats() {
	(*client)(a).flushStats()
	a.s.resetStats()
}

func (a *adminConn) FlushStats() { (*client)(a).flushStats() }

func (a *adminConn) InfoSection(b *strings.Builder, sec string) {
	a.s.infoSection(b, sec, (*client)(a))
}
