package admin

import (
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/resp"
)

// Server is the server's side of the admin commands: the mechanism they
// drive, seen from the connection that runs the command (some answers, such
// as TIME inside EXEC, depend on it). Only admin commands call it.
type Server interface {
	// Version is HotKV's own version (LOLWUT).
	Version() string
	// CachedTime is the time TIME reports, in microseconds, given the
	// clock's now: inside a transaction the same time every call.
	CachedTime(now int64) int64

	// Commands are the commands clients can reach (renamed ones under
	// their new names), sorted by name; Lookup finds one as a client
	// names it.
	Commands() []*cmdtable.Cmd
	Lookup(name []byte) *cmdtable.Cmd
	// WriteSpecs writes c's tips and key specs, the two sets of its
	// COMMAND INFO entry before its subcommands.
	WriteSpecs(w *resp.Writer, c *cmdtable.Cmd)
	// HasKeys tells whether c takes key arguments; KeysOf finds them in
	// args (c's name first) as Redis does, each position with its key
	// spec's flag names (COMMAND GETKEYS).
	HasKeys(c *cmdtable.Cmd) bool
	KeysOf(c *cmdtable.Cmd, args [][]byte) (pos []int, flags [][]string)

	// Config is the settings in force. MayDo tells whether this
	// connection may take a protected action under setting (no, yes or
	// local).
	Config() *config.Config
	MayDo(setting string) bool
	// SetConfig has build set values on a copy of the settings and, if it
	// returns nil, makes the copy take effect: all of it, or, returning an
	// *ApplyError, none.
	SetConfig(build func(next *config.Config) error) error
	// RewriteConfig writes the settings to the file the server was
	// started with (ErrNoConfigFile if none).
	RewriteConfig() error
	// ResetStats zeroes the statistics INFO shows (CONFIG RESETSTAT).
	ResetStats()
	// Logf writes to the server's log at level.
	Logf(level, format string, args ...any)

	// FlushStats counts this connection's latest commands in the
	// server's statistics; InfoSection writes INFO section sec (a lower
	// case name) of the server's state, nothing for one it does not know.
	FlushStats()
	InfoSection(b *strings.Builder, sec string)
}

// Conn is what cmdtable.Ctx.Conn holds for a connection that can run admin
// commands.
type Conn interface {
	Admin() Server
}

// srv is the server behind the connection running x.
func srv(x *cmdtable.Ctx) Server { return x.Conn.(Conn).Admin() }
