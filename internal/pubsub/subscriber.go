package pubsub

import (
	"sync"
	"time"
)

// Conn is the connection a Subscriber's queue belongs to, as the server's
// client implements it. Only pub/sub delivery and the queue's writer call
// it, never an ordinary command's path.
type Conn interface {
	// Proto is the RESP version messages for it are built in.
	Proto() int
	// Subscribed reports whether it has subscriptions (a REDIRECT target
	// that is gets RESP2 invalidations as messages).
	Subscribed() bool
	// Push queues b on its output queue, if it has one.
	Push(b []byte)
	// QueueOver reports whether size bytes waiting in its queue are over
	// the output buffer limits that apply to it (softSince is the
	// Subscriber's record of the soft limit); if so it has closed the
	// connection.
	QueueOver(size int64, softSince *int64) bool
	// WriteOut writes queued output to the socket.
	WriteOut(b []byte) error
	// CloseConn closes the connection under a writer that cannot go on.
	CloseConn()
}

// stopGrace is how long a closing client's queued output may take to drain
// before the socket is closed under it (a client that never reads).
const stopGrace = 2 * time.Second

// Subscriber is a connection's subscriptions and the ordered output queue a
// writer goroutine drains, so publishers never block on a slow subscriber's
// socket. While it has a Subscriber, a connection's own replies go through
// the queue too, so they stay ordered with what others push to it.
type Subscriber struct {
	conn    Conn
	ep      *Endpoint
	room    int // WaitRoom's bound
	maxIdle int // the largest buffer the writer keeps for reuse
	names   [3]map[string]struct{}

	mu   sync.Mutex
	buf  []byte
	dead bool
	// hold parks messages in held while the client builds replies that
	// must come first (an EXEC that subscribed, a tracking client's batch or
	// served blocked command), so that none lands inside or before them.
	hold bool
	held []byte
	// softSince: when the queue reached the soft limit (Conn.QueueOver).
	softSince int64
	// taken is signalled when the writer takes the queue or the client
	// dies (WaitRoom).
	taken sync.Cond
	wake  chan struct{}
	done  chan struct{}
	exit  chan struct{}
}

// Enqueue appends b to the output queue; false once the client is dead.
func (p *Subscriber) Enqueue(b []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.enqueueLocked(b)
}

func (p *Subscriber) enqueueLocked(b []byte) bool {
	if p.dead {
		return false
	}
	if p.hold {
		p.held = append(p.held, b...)
	} else {
		p.buf = append(p.buf, b...)
	}
	return p.checkLocked()
}

// checkLocked enforces the connection's output buffer limits: past them
// the client is disconnected, and the publisher carries on.
func (p *Subscriber) checkLocked() bool {
	if p.conn.QueueOver(int64(len(p.buf)+len(p.held)), &p.softSince) {
		p.dead = true
		return false
	}
	if !p.hold {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// WaitRoom makes a client that is neither subscribed nor monitoring (one
// that tracks keys) wait while its queue is over its room, as a direct
// write would wait for the socket: one that pipelines without reading its
// replies then stops being read instead of growing the queue without end.
// Subscribers have pubsub-output-buffer-limit instead.
func (p *Subscriber) WaitRoom() {
	p.mu.Lock()
	for len(p.buf) > p.room && !p.dead {
		p.taken.Wait()
	}
	p.mu.Unlock()
}

// Hold parks what others push until Release.
func (p *Subscriber) Hold() {
	p.mu.Lock()
	p.hold = true
	p.mu.Unlock()
}

// Release ends a hold: out, then the messages held, join the queue; false
// if the client is dead.
func (p *Subscriber) Release(out []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hold = false
	ok := !p.dead
	if ok {
		p.buf = append(p.buf, out...)
		p.buf = append(p.buf, p.held...)
		ok = p.checkLocked()
	}
	p.held = nil
	return ok
}

// Queued is the output waiting in the queue, held messages included
// (CLIENT LIST omem).
func (p *Subscriber) Queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.buf) + len(p.held)
}

func (p *Subscriber) writer() {
	defer close(p.exit)
	var spare []byte
	for {
		var stop bool
		select {
		case <-p.wake:
		case <-p.done:
			stop = true
		}
		p.mu.Lock()
		out := p.buf
		p.buf = spare[:0]
		p.taken.Broadcast()
		p.mu.Unlock()
		if len(out) > 0 {
			if err := p.conn.WriteOut(out); err != nil {
				p.mu.Lock()
				p.dead = true
				p.taken.Broadcast()
				p.mu.Unlock()
				p.conn.CloseConn()
				stop = true
			}
		}
		if cap(out) <= p.maxIdle {
			spare = out
		} else {
			spare = nil
		}
		if stop {
			return
		}
	}
}

// Stop flushes what is queued and ends the writer, closing the connection
// if the queue has not drained within stopGrace.
func (p *Subscriber) Stop() {
	close(p.done)
	select {
	case <-p.exit:
	case <-time.After(stopGrace):
		p.conn.CloseConn()
		<-p.exit
	}
}
