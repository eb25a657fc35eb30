package server

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/tick"
)

// SLOWLOG: commands that ran longer than slowlog-log-slower-than
// microseconds, newest first, at most slowlog-max-len of them, with Redis's
// entry format (arguments cut to 32, each to 128 bytes, credentials
// redacted). The time is the command's own, as Redis measures it: not the
// time spent waiting for a lock or blocked for data.
type slowlog struct {
	// minTicks is a lower bound of the threshold in tick units (this one's
	// or the latency monitor's, the lower), so that the path of every
	// command compares one number; math.MaxInt64 when both are off.
	minTicks atomic.Int64
	us       atomic.Int64 // the threshold in microseconds, checked exactly

	mu      sync.Mutex
	entries []slowEntry // oldest first
	maxLen  int
	nextID  int64
}

type slowEntry struct {
	id, at, us int64
	args       [][]byte
	addr, name string
}

// configure applies slowlog-log-slower-than and slowlog-max-len.
func (l *slowlog) configure(cfg *config.Config) {
	l.us.Store(cfg.SlowlogSlowerThan)
	us := cfg.SlowlogSlowerThan
	if ms := cfg.LatencyMonitorMs; ms > 0 && (us < 0 || ms*1000 < us) {
		us = min(ms, math.MaxInt64/1000) * 1000
	}
	if us < 0 {
		l.minTicks.Store(math.MaxInt64)
	} else {
		l.minTicks.Store(int64(float64(us) * 1000 / tick.NanosPerTick() * 0.9))
	}
	l.mu.Lock()
	l.maxLen = int(min(cfg.SlowlogMaxLen, math.MaxInt32))
	l.trim()
	l.mu.Unlock()
}

func (l *slowlog) trim() {
	if n := len(l.entries) - l.maxLen; n > 0 {
		l.entries = append(l.entries[:0:0], l.entries[n:]...)
	}
}

// Limits of an entry, as Redis's SLOWLOG_ENTRY_MAX_ARGC and _STRING.
const (
	slowMaxArgs   = 32
	slowMaxString = 128
)

// recordSlow logs cmd, which ran d ticks, if that is past the threshold,
// and feeds the latency monitor.
func (c *client) recordSlow(cmd *cmdtable.Cmd, args [][]byte, d int64) {
	l := &c.s.slow
	us := tick.Nanos(d) / 1000
	if cmd.Name == "exec" { // its commands are counted one by one
		return
	}
	c.recordLatency(cmd, us)
	if us < l.us.Load() || l.us.Load() < 0 {
		return
	}
	n := min(len(args), slowMaxArgs)
	e := slowEntry{at: time.Now().Unix(), us: us, args: make([][]byte, n), addr: c.addr()}
	for i := range n {
		a := args[i]
		switch {
		case i == slowMaxArgs-1 && len(args) > slowMaxArgs:
			a = fmt.Appendf(nil, "... (%d more arguments)", len(args)-slowMaxArgs+1)
		case isCredential(cmd, args, i):
			a = []byte("(redacted)")
		case len(a) > slowMaxString:
			a = fmt.Appendf(append([]byte(nil), a[:slowMaxString]...), "... (%d more bytes)", len(a)-slowMaxString)
		default:
			a = append([]byte(nil), a...)
		}
		e.args[i] = a
	}
	c.infoMu.Lock()
	e.name = c.name
	c.infoMu.Unlock()
	l.mu.Lock()
	e.id = l.nextID
	l.nextID++
	if l.maxLen > 0 {
		l.entries = append(l.entries, e)
		l.trim()
	}
	l.mu.Unlock()
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
	l := &cl(x).s.slow
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.entries)
	if count >= 0 && int64(n) > count {
		n = int(count)
	}
	x.W.Array(n)
	for i := range n {
		e := &l.entries[len(l.entries)-1-i]
		x.W.Array(6)
		x.W.Int(e.id)
		x.W.Int(e.at)
		x.W.Int(e.us)
		x.W.Array(len(e.args))
		for _, a := range e.args {
			x.W.Bulk(a)
		}
		x.W.BulkString(e.addr)
		x.W.BulkString(e.name)
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
				Run: func(x *cmdtable.Ctx) {
					l := &cl(x).s.slow
					l.mu.Lock()
					defer l.mu.Unlock()
					x.W.Int(int64(len(l.entries)))
				}},
			{Name: "slowlog|reset", Arity: 2, Flags: f, Group: g, Since: "2.2.12", Summary: "Clears all entries from the slow log.",
				Run: func(x *cmdtable.Ctx) {
					l := &cl(x).s.slow
					l.mu.Lock()
					l.entries = nil
					l.mu.Unlock()
					x.W.OK()
				}},
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
