package server

import (
	"errors"
	"os"
	"time"

	"github.com/hotkv/hotkv/internal/config"
)

// Output buffer limits (client-output-buffer-limit). Subscribed and
// monitoring clients are the pubsub class: their output waits in a queue
// that publishers fill (client.QueueOver). Other clients are the
// normal class: their replies wait in out until the batch that made them
// is written, and a write the peer does not read blocks the connection
// instead of reading more (checkNormalOutput, flush).

// outputOver is Redis's checkClientOutputBufferLimits for a client with
// size bytes of unsent output: true at or over hard, or at or over the soft
// limit for longer than its seconds. *since is the unix second the soft
// limit was first reached (0: under it), counted in whole seconds as Redis
// counts them.
func outputOver(size, hard int64, soft config.SoftLimit, since *int64) bool {
	if hard > 0 && size >= hard {
		return true
	}
	if soft.Bytes == 0 || size < soft.Bytes {
		*since = 0
		return false
	}
	now := time.Now().Unix()
	if *since == 0 {
		*since = now
		return false
	}
	return now-*since > soft.Secs
}

// outputLimitReached counts and logs a client closed by its class's limit.
func (c *client) outputLimitReached(class string, size int64) {
	c.s.stats.obufLimitDisconnections.Add(1)
	c.s.logf("warning", "Client id=%d addr=%v closed for overcoming of output buffer limits (%s, %d bytes pending).", c.id, c.addr(), class, size)
}

// normalLimited reports whether the normal class's limits apply to c now.
func (c *client) normalLimited() bool {
	return (c.io.obufHard > 0 || c.io.obufSoft.Bytes > 0) && !c.subscribed() && !c.pubsub.monitoring.Load()
}

// checkNormalOutput applies the normal class's limits to the replies a
// command left in out; over them, the client gets none of the batch's
// replies and is closed, as Redis drops an over-limit client's buffer
// unwritten. The command itself has run (a whole EXEC too).
func (c *client) checkNormalOutput() bool {
	if !c.normalLimited() || !outputOver(int64(len(c.io.out.B)), c.io.obufHard, c.io.obufSoft, &c.io.obufSince) {
		return true
	}
	c.outputLimitReached("normal", int64(len(c.io.out.B)))
	c.io.out.B = c.io.out.B[:0]
	c.io.closing = true
	return false
}

// writeDeadline bounds a write of pending bytes the peer is not reading
// under the normal class's soft limit: Redis would close the client once
// that much output had waited longer than the limit's seconds.
func (c *client) writeDeadline(pending int) (time.Time, bool) {
	if c.io.obufSoft.Bytes == 0 || int64(pending) < c.io.obufSoft.Bytes || !c.normalLimited() {
		return time.Time{}, false
	}
	return time.Now().Add(time.Duration(c.io.obufSoft.Secs+1) * time.Second), true
}

// writeTimedOut reports whether err is the expiry of writeDeadline's
// deadline.
func writeTimedOut(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// queuedOutput is the output waiting in c's queue, if it has one (CLIENT
// LIST omem); a normal client's replies are written as each batch ends.
func (c *client) queuedOutput() int {
	if p := c.s.hub.Load(&c.pubsub.ep); p != nil {
		return p.Queued()
	}
	return 0
}
