package repl

import "github.com/hotkv/hotkv/internal/resp"

// WAIT: the replicas' acknowledgements of the stream's offsets.

// Waiter is a WAIT blocked for acknowledgements, as the server blocks a
// client.
type Waiter interface {
	// Answer is called as acknowledgements come: acked replicas have
	// reached its offset, enough when that is as many as it asked for,
	// in which case it is answered. It reports whether it still waits
	// (false once answered, timed out or ended otherwise).
	Answer(acked int64, enough bool) (waiting bool)
}

type waiter struct {
	w      Waiter
	target int64
	n      int64
}

// Acked counts the online replicas whose acknowledged offset reached off.
func (m *Master) Acked(off int64) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for _, r := range m.replicas {
		if r.state.Load() == stateOnline && r.ack.Load() >= off {
			n++
		}
	}
	return n
}

// Wait registers w until n replicas have acknowledged offset target, and
// asks the replicas for their acknowledgements.
func (m *Master) Wait(w Waiter, target, n int64) {
	m.mu.Lock()
	m.waiters = append(m.waiters, &waiter{w: w, target: target, n: n})
	m.mu.Unlock()
	m.askAcks()
}

// askAcks sends REPLCONF GETACK * to the replicas (a WAIT waits).
func (m *Master) askAcks() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.backlog == nil || len(m.replicas) == 0 {
		return
	}
	m.publish(resp.AppendCommand(m.scratch[:0], []byte("REPLCONF"), []byte("GETACK"), []byte("*")))
}

// acknowledged follows a replica's REPLCONF ACK: min-replicas-to-write
// and the WAITs it may satisfy.
func (m *Master) acknowledged() {
	m.mu.Lock()
	m.refreshGood()
	m.mu.Unlock()
	m.checkWaiters()
}

// checkWaiters answers the WAITs whose replicas have acknowledged enough.
func (m *Master) checkWaiters() {
	m.mu.Lock()
	ws := m.waiters
	m.mu.Unlock()
	if len(ws) == 0 {
		return
	}
	var keep []*waiter
	for _, w := range ws {
		n := m.Acked(w.target)
		if w.w.Answer(n, n >= w.n) {
			keep = append(keep, w)
		}
	}
	m.mu.Lock()
	// Waiters added meanwhile are after ws in the list.
	m.waiters = append(keep, m.waiters[len(ws):]...)
	m.mu.Unlock()
}
