package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// MONITOR streams every command the server runs to the connections that
// asked for it, in Redis's format:
//
//	+1339518083.107412 [0 127.0.0.1:60866] "set" "x" "6"
//
// Like Redis it leaves out administrative commands (CONFIG, SHUTDOWN, ...)
// and commands refused before running, and shows credentials (AUTH's,
// HELLO's, MIGRATE's) as "(redacted)". A monitor's lines go through its
// push queue (the subscriber of pub/sub), so a slow monitor never blocks the
// commands it watches; past pubsub-output-buffer-limit it is disconnected.
type monitors struct {
	mu   sync.Mutex
	list []*client
	n    atomic.Int32 // len(list), read on every command
}

func monitorCmd(x *cmdtable.Ctx) {
	c := cl(x)
	if x.Blocker == nil { // inside MULTI/EXEC, as Redis's CLIENT_DENY_BLOCKING
		x.Error("ERR MONITOR isn't allowed for DENY BLOCKING client")
		return
	}
	if c.pubsub.monitoring.Load() {
		return // already monitoring: Redis answers nothing
	}
	m := &c.s.mon
	m.mu.Lock()
	defer m.mu.Unlock()
	// The OK, after any reply before it, is queued before the first line
	// another connection can feed.
	x.W.OK()
	c.subscriber().Enqueue(c.io.out.B)
	c.resetOut()
	c.pubsub.monitoring.Store(true)
	m.list = append(m.list, c)
	m.n.Store(int32(len(m.list)))
}

// stopMonitoring takes c off the monitors (RESET, disconnect).
func (c *client) stopMonitoring() {
	if !c.pubsub.monitoring.Load() {
		return
	}
	m := &c.s.mon
	m.mu.Lock()
	for i, o := range m.list {
		if o == c {
			m.list = append(m.list[:i], m.list[i+1:]...)
			break
		}
	}
	m.n.Store(int32(len(m.list)))
	m.mu.Unlock()
	c.pubsub.monitoring.Store(false)
}

// feedMonitors shows a command c has run to every monitor. Scripts
// (SkipMonitor) show themselves before they run (showScriptCall), so that
// the commands they call, shown from "lua", follow them.
func (c *client) feedMonitors(cmd *cmdtable.Cmd, args [][]byte) {
	if cmd.Flags&(cmdtable.Admin|cmdtable.SkipMonitor) != 0 {
		return
	}
	c.monitorLine(cmd, args)
}

// showScriptCall shows EVAL, EVALSHA or FCALL (and their _RO forms) to the
// monitors as it starts, as Redis does.
func (c *client) showScriptCall(x *cmdtable.Ctx) {
	if c.s.mon.n.Load() > 0 {
		c.monitorLine(c.running, x.Args) // EXEC's, inside a transaction: neither has credentials
	}
}

func (c *client) monitorLine(cmd *cmdtable.Cmd, args [][]byte) {
	now := time.Now()
	line := make([]byte, 0, 64)
	line = append(line, '+')
	line = strconv.AppendInt(line, now.Unix(), 10)
	line = append(line, '.')
	var digits [8]byte
	us := strconv.AppendInt(digits[:0], int64(now.Nanosecond()/1000), 10)
	for range 6 - len(us) {
		line = append(line, '0')
	}
	line = append(line, us...)
	line = append(line, " ["...)
	line = strconv.AppendInt(line, int64(c.ctx.DBID), 10)
	line = append(line, ' ')
	if c.ctx.InScript {
		line = append(line, "lua"...)
	} else if c.unix() { // Redis writes "unix:<path>" for these
		line = append(line, "unix:"...)
		line = append(line, c.io.conn.LocalAddr().String()...)
	} else {
		line = append(line, c.io.conn.RemoteAddr().String()...)
	}
	line = append(line, ']')
	for i, a := range args {
		line = append(line, ' ')
		if isCredential(cmd, args, i) {
			line = append(line, `"(redacted)"`...)
			continue
		}
		line = appendRepr(line, a)
	}
	line = append(line, "\r\n"...)
	m := &c.s.mon
	m.mu.Lock()
	for _, o := range m.list {
		if o == c { // a monitor sees its own commands after their replies
			c.io.out.B = append(c.io.out.B, line...)
		} else {
			o.pubsub.ep.Subscriber().Enqueue(line)
		}
	}
	m.mu.Unlock()
}

// appendRepr appends b quoted and escaped as Redis's sdscatrepr does.
func appendRepr(dst, b []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, ch := range b {
		switch ch {
		case '\\', '"':
			dst = append(dst, '\\', ch)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		case '\a':
			dst = append(dst, `\a`...)
		case '\b':
			dst = append(dst, `\b`...)
		default:
			if ch >= 0x20 && ch < 0x7f {
				dst = append(dst, ch)
			} else {
				dst = append(dst, '\\', 'x', hex[ch>>4], hex[ch&15])
			}
		}
	}
	return append(dst, '"')
}

func init() {
	cmdtable.Register(&cmdtable.Cmd{Name: "monitor", Arity: 1, Flags: cmdtable.Admin | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale,
		Run: monitorCmd, Group: "server", Since: "1.0.0", ACL: []string{"slow", "dangerous"},
		Summary: "Listens for all requests received by the server in real-time."})
}
