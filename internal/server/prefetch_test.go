package server

import (
	"strings"
	"testing"
	"unsafe"
)

// A large read buffer is dropped once drained; nothing the batch or the
// parser kept may hold it alive.
func TestBatchKeepsNoDroppedBuffer(t *testing.T) {
	s := benchServer(t)
	c := newClient(s, &batchConn{})
	var d []byte
	for i := range 20 { // more than a batch, so that batches of different sizes came before
		d = encode(d, "SET", "k"+strings.Repeat("x", i), "v")
	}
	d = encode(d, "SET", "big", strings.Repeat("v", 4<<20))
	d = encode(d, "GET", "x")
	d = encode(d, "PING")
	c.in = make([]byte, 8<<20)
	c.w = copy(c.in, d)
	old := uintptr(unsafe.Pointer(unsafe.SliceData(c.in)))
	c.process()
	if uintptr(unsafe.Pointer(unsafe.SliceData(c.in))) == old {
		t.Fatal("the large buffer was not dropped")
	}
	refs := 0
	check := func(args [][]byte) {
		for _, a := range args {
			if p := uintptr(unsafe.Pointer(unsafe.SliceData(a))); a != nil && p >= old && p < old+8<<20 {
				refs++
			}
		}
	}
	check(c.batchArgs[:cap(c.batchArgs)])
	for _, p := range c.batch[:cap(c.batch)] {
		check(p.args)
	}
	args, _, _ := c.parser.Next([]byte("*1\r\n$4\r\nPING\r\n"), 0)
	check(args[:cap(args)][1:])
	if refs > 0 {
		t.Errorf("%d argument slices still point into the dropped buffer", refs)
	}
}
