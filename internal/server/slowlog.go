package server

import (
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/tick"
)

// recordSlow logs cmd, which ran d ticks, in the slowlog if that is past
// its threshold, and feeds the latency monitor.
func (c *client) recordSlow(cmd *cmdtable.Cmd, args [][]byte, d int64) {
	us := tick.Nanos(d) / 1000
	if cmd.Name == "exec" { // its commands are counted one by one
		return
	}
	c.recordLatency(cmd, us)
	if !c.s.stats.slow.Exceeds(us) {
		return
	}
	c.info.mu.Lock()
	name := c.info.name
	c.info.mu.Unlock()
	c.s.stats.slow.Add(us, args, c.addr(), name, func(i int) bool { return isCredential(cmd, args, i) })
}

// isCredential reports whether args[i] is a credential, which SLOWLOG and
// MONITOR show as "(redacted)": AUTH's arguments, HELLO's AUTH username
// and password, MIGRATE's AUTH and AUTH2 values, the value CONFIG SET gives
// requirepass, masterauth, masteruser or a TLS key password (config.Sensitive),
// the user names and rules (passwords among them) of ACL SETUSER, DELUSER
// and GETUSER.
func isCredential(cmd *cmdtable.Cmd, args [][]byte, i int) bool {
	switch cmd.Name {
	case "migrate":
		return migrateCredential(args, i)
	case "auth":
		return i >= 1
	case "hello":
		for j := 2; j < len(args); j++ {
			if cmdtable.Is(args[j], "auth") {
				return i == j+1 || i == j+2
			}
		}
	case "config|set":
		return i >= 3 && i%2 == 1 && config.Sensitive(string(args[i-1])) // requirepass, masterauth...
	case "acl|setuser", "acl|deluser": // the user names too, as Redis 8
		return i >= 2
	case "acl|getuser":
		return i == 2 && len(args) == 3
	}
	return false
}

func slowlogGet(x *cmdtable.Ctx) {
	count := int64(10)
	if len(x.Args) == 3 {
		n, ok := cmdtable.ParseInt(x.Args[2])
		if !ok || n < -1 {
			x.Error("ERR count should be greater than or equal to -1")
			return
		}
		count = n
	}
	entries := cl(x).s.stats.slow.Latest(count)
	x.W.Array(len(entries))
	for _, e := range entries {
		x.W.Array(6)
		x.W.Int(e.ID)
		x.W.Int(e.Time)
		x.W.Int(e.Micros)
		x.W.Array(len(e.Args))
		for _, a := range e.Args {
			x.W.Bulk(a)
		}
		x.W.BulkString(e.Addr)
		x.W.BulkString(e.Name)
	}
}

func init() {
	const g = "server"
	f := cmdtable.Admin | cmdtable.Loading | cmdtable.Stale
	cmdtable.Register(&cmdtable.Cmd{Name: "slowlog", Arity: -2, Group: g, Since: "2.2.12", Summary: "A container for slow log commands.",
		Subs: []*cmdtable.Cmd{
			{Name: "slowlog|get", Arity: -2, Flags: f, Run: slowlogGet, Group: g, Since: "2.2.12",
				Summary: "Returns the slow log's entries.", Args: "[count]"},
			{Name: "slowlog|len", Arity: 2, Flags: f, Group: g, Since: "2.2.12", Summary: "Returns the number of entries in the slow log.",
				Run: func(x *cmdtable.Ctx) { x.W.Int(int64(cl(x).s.stats.slow.Len())) }},
			{Name: "slowlog|reset", Arity: 2, Flags: f, Group: g, Since: "2.2.12", Summary: "Clears all entries from the slow log.",
				Run: func(x *cmdtable.Ctx) { cl(x).s.stats.slow.Reset(); x.W.OK() }},
			helpCmd("slowlog", strings.Split(strings.TrimSpace(`GET [<count>]
    Return top <count> entries from the slowlog (default: 10, -1 mean all).
    Entries are made of:
    id, timestamp, time in microseconds, arguments array, client IP and port,
    client name
LEN
    Return the length of the slowlog.
RESET
    Reset the slowlog.`), "\n")),
		}})
}
