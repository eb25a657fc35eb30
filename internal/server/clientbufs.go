package server

// What a connection's buffers hold, for CLIENT LIST (qbuf, qbuf-free, rbs,
// tot-mem) and INFO's mem_clients_normal, read from other goroutines. The
// connection publishes them after each batch, and only when they changed:
// in the steady state (requests consumed whole, buffers at their size) a
// batch stores nothing.

// bufState is the published figures: bytes of the query buffer not yet
// parsed (a request still arriving), the read buffer's size and the reply
// buffer's capacity.
type bufState struct{ pending, in, out int }

// publishBufs stores c's buffer figures if they changed since the last time.
func (c *client) publishBufs() {
	st := bufState{c.io.w - c.io.r, len(c.io.in), cap(c.io.out.B)}
	if st == c.io.bufsSeen {
		return
	}
	c.io.bufsSeen = st
	c.io.bufs.Store(uint64(min(st.pending, 1<<31-1))<<32 | uint64(min(st.in, 1<<31-1)))
	c.io.outCap.Store(int64(st.out))
}

// queryBuf is CLIENT LIST's qbuf and qbuf-free: bytes waiting to be parsed,
// and the room left after them in the read buffer.
func (c *client) queryBuf() (qbuf, free int) {
	v := c.io.bufs.Load()
	qbuf, size := int(v>>32), int(uint32(v))
	if size == 0 {
		size = initialReadBuf
	}
	return qbuf, max(size-qbuf, 0)
}

// readBufSize is CLIENT LIST's rbs.
func (c *client) readBufSize() int {
	qbuf, free := c.queryBuf()
	return qbuf + free
}

// totalMem is CLIENT LIST's tot-mem: the connection's fixed cost, its read
// and reply buffers, and output queued for it (omem).
func (c *client) totalMem(omem int) uint64 {
	return clientBytes() + uint64(c.readBufSize()) + uint64(c.io.outCap.Load()) + uint64(omem)
}
