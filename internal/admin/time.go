package admin

import (
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// timeCmd answers the time; inside a transaction or script, the same time
// every call, as Redis's cached clock does.
func timeCmd(x *cmdtable.Ctx) {
	us := srv(x).CachedTime(time.Now().UnixMicro())
	x.W.Array(2)
	x.W.BulkInt(us / 1e6)
	x.W.BulkInt(us % 1e6)
}

func init() {
	cmdtable.Register(&cmdtable.Cmd{Name: "time", Arity: 1, Flags: cmdtable.Loading | cmdtable.Stale | cmdtable.Fast, Run: timeCmd, Group: "server", Since: "2.6.0",
		Summary: "Returns the server time."})
}
