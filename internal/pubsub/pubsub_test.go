package pubsub

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/resp"
)

// conn is a Conn that records what its queue writes.
type conn struct {
	ep    Endpoint
	h     *Hub
	proto int
	limit int64 // QueueOver past this many bytes; 0: none

	mu      sync.Mutex
	written []byte
	closed  bool
}

func (c *conn) Proto() int       { return c.proto }
func (c *conn) Subscribed() bool { return c.ep.Subscribed() }
func (c *conn) Push(b []byte)    { c.h.Push(&c.ep, b) }
func (c *conn) QueueOver(size int64, _ *int64) bool {
	return c.limit > 0 && size > c.limit
}
func (c *conn) WriteOut(b []byte) error {
	c.mu.Lock()
	c.written = append(c.written, b...)
	c.mu.Unlock()
	return nil
}
func (c *conn) CloseConn() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
}

// got waits for the queue's writer to have written want.
func (c *conn) got(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		c.mu.Lock()
		w := string(c.written)
		c.mu.Unlock()
		if w == want {
			return
		}
		if time.Now().After(deadline) || len(w) > len(want) {
			t.Fatalf("written %q, want %q", w, want)
		}
		time.Sleep(time.Millisecond)
	}
}

func newConn(h *Hub, proto int) *conn { return &conn{h: h, proto: proto} }

func subscribe(h *Hub, c *conn, kind Kind, names ...string) {
	var bs [][]byte
	for _, n := range names {
		bs = append(bs, []byte(n))
	}
	w := &resp.Writer{Proto: c.proto}
	h.Subscribe(h.Open(&c.ep, c), kind, bs, w, false)
}

func TestPublishReachesChannelsAndPatterns(t *testing.T) {
	h := NewHub(1<<10, 1<<20)
	a, b, s := newConn(h, 2), newConn(h, 3), newConn(h, 2)
	subscribe(h, a, Channel, "news")
	subscribe(h, b, Pattern, "n*")
	subscribe(h, s, Shard, "news")
	a.got(t, "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n")
	b.got(t, ">3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:1\r\n")
	if !a.ep.Subscribed() || a.ep.Count(Channel) != 1 || b.ep.Count(Pattern) != 1 || s.ep.Count(Shard) != 1 {
		t.Fatal("subscription counts not kept")
	}

	if n := h.Publish(Channel, []byte("news"), []byte("hi")); n != 2 {
		t.Fatalf("PUBLISH reached %d, want 2", n)
	}
	a.got(t, "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n")
	b.got(t, ">3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:1\r\n>4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nhi\r\n")
	if n := h.Publish(Shard, []byte("news"), []byte("x")); n != 1 {
		t.Fatalf("SPUBLISH reached %d, want 1 (patterns do not match shard channels)", n)
	}
	if got := h.Channels(Channel, nil); len(got) != 1 || got[0] != "news" {
		t.Fatalf("Channels = %q", got)
	}
	if h.NumSub(Channel, []byte("news")) != 1 || h.NumPat() != 1 {
		t.Fatal("NumSub/NumPat wrong")
	}
}

func TestUnsubscribeAllConfirmsSorted(t *testing.T) {
	h := NewHub(1<<10, 1<<20)
	c := newConn(h, 2)
	var w resp.Writer
	h.Unsubscribe(&c.ep, Channel, nil, &w) // never subscribed: one null confirmation
	if got := string(w.B); got != "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n" {
		t.Fatalf("got %q", got)
	}
	subscribe(h, c, Channel, "b", "a")
	subscribe(h, c, Pattern, "p")
	w.B = nil
	h.Unsubscribe(&c.ep, Channel, nil, &w)
	want := "*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:2\r\n*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:1\r\n"
	if got := string(w.B); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	h.UnsubscribeAll(&c.ep)
	if c.ep.Subscribed() || h.NumPat() != 0 || len(h.Channels(Channel, nil)) != 0 {
		t.Fatal("subscriptions left after UnsubscribeAll")
	}
	h.Leave(&c.ep)
	if h.Load(&c.ep) != nil {
		t.Fatal("Leave kept the queue")
	}
}

// Held pushes follow the replies released ahead of them.
func TestHoldKeepsRepliesFirst(t *testing.T) {
	h := NewHub(1<<10, 1<<20)
	c := newConn(h, 2)
	p := h.Open(&c.ep, c)
	p.Hold()
	c.Push([]byte("pushed;"))
	if !p.Release([]byte("reply;")) {
		t.Fatal("Release on a live queue failed")
	}
	c.got(t, "reply;pushed;")
	p.Stop()
}

func TestQueueOverLimitKillsQueue(t *testing.T) {
	h := NewHub(1<<10, 1<<20)
	c := newConn(h, 2)
	c.limit = 4
	p := h.Open(&c.ep, c)
	p.Hold() // nothing drains
	if !p.Enqueue([]byte("abc")) {
		t.Fatal("under the limit refused")
	}
	if p.Enqueue([]byte("de")) || p.Enqueue([]byte("f")) {
		t.Fatal("queue over its limit still accepts")
	}
	if p.Queued() != 5 {
		t.Fatalf("Queued = %d, want 5", p.Queued())
	}
}

func TestWaitRoomWaitsForWriter(t *testing.T) {
	h := NewHub(4, 1<<20)
	c := newConn(h, 2)
	p := h.Open(&c.ep, c)
	p.Enqueue([]byte(strings.Repeat("x", 100)))
	p.WaitRoom() // returns once the writer has taken the queue
	c.got(t, strings.Repeat("x", 100))
}
