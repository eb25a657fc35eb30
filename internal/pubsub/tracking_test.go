package pubsub

import (
	"testing"

	"github.com/hotkv/hotkv/internal/keyspace"
)

// trackers is a Tracker over connections 1..n, each with its queue open.
func trackers(t *testing.T, n int, proto int) (*Tracker, []*conn, []*Tracking) {
	h := NewHub(1<<10, 1<<20)
	conns := make([]*conn, n+1)
	tr := NewTracker(keyspace.New(1), func(id int64) Conn {
		if id > 0 && int(id) <= n {
			return conns[id]
		}
		return nil
	})
	ts := make([]*Tracking, n+1)
	for i := 1; i <= n; i++ {
		conns[i] = newConn(h, proto)
		h.Open(&conns[i].ep, conns[i])
		ts[i] = &Tracking{}
	}
	t.Cleanup(func() {
		for _, c := range conns[1:] {
			c.ep.Subscriber().Stop()
		}
	})
	return tr, conns, ts
}

const inv = ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"

func TestModifiedInvalidatesReadersOnce(t *testing.T) {
	tr, conns, ts := trackers(t, 2, 3)
	tr.Set(ts[1], 1, conns[1], &Mode{})
	tr.Set(ts[2], 2, conns[2], &Mode{NoLoop: true})
	if !tr.Active() || tr.Clients() != 2 {
		t.Fatal("tracking not on")
	}
	tr.Remember(1, []byte("k"))
	tr.Remember(1, []byte("k"))
	tr.Remember(2, []byte("k"))
	if tr.Keys() != 1 || tr.Items() != 2 {
		t.Fatalf("keys %d items %d, want 1 and 2", tr.Keys(), tr.Items())
	}
	conns[2].ep.Subscriber().Hold() // what it is sent stays counted in Queued
	tr.Modified("k", 2)             // 2 asked for NOLOOP
	tr.Modified("k", 0)             // forgotten: nobody hears again
	conns[1].got(t, inv)
	if n := conns[2].ep.Subscriber().Queued(); n != 0 {
		t.Fatalf("NOLOOP client sent %d bytes", n)
	}
	if tr.InUse() != true || tr.Keys() != 0 || tr.Items() != 0 {
		t.Fatal("table not emptied")
	}
	tr.Set(ts[1], 1, conns[1], nil)
	tr.Set(ts[2], 2, conns[2], nil)
	if tr.Active() || tr.InUse() {
		t.Fatal("tracking still on")
	}
}

func TestBroadcastWaitsForBatch(t *testing.T) {
	tr, conns, ts := trackers(t, 2, 3)
	tr.Set(ts[1], 1, conns[1], &Mode{BCast: true, Prefixes: []string{"a"}})
	p := conns[1].ep.Subscriber()
	p.Hold()
	if tr.Prefixes() != 1 {
		t.Fatal("prefix not registered")
	}
	tr.Modified("b", 2)
	tr.Modified("a2", 2)
	tr.Modified("a1", 2)
	if !tr.Pending() {
		t.Fatal("keys of a batch not gathered")
	}
	if p.Queued() != 0 {
		t.Fatal("BCAST message sent before the batch ended")
	}
	tr.SendBroadcast(2)
	p.Release(nil)
	conns[1].got(t, ">2\r\n$10\r\ninvalidate\r\n*2\r\n$2\r\na1\r\n$2\r\na2\r\n")
	if tr.Pending() {
		t.Fatal("still pending after SendBroadcast")
	}
}

func TestRedirectAndBrokenRedirect(t *testing.T) {
	tr, conns, ts := trackers(t, 2, 3)
	tr.Set(ts[1], 1, conns[1], &Mode{Redirect: 2})
	tr.Remember(1, []byte("k"))
	conns[1].ep.Subscriber().Hold()
	tr.Modified("k", 0)
	conns[2].got(t, inv)
	if conns[1].ep.Subscriber().Queued() != 0 {
		t.Fatal("redirected invalidation also sent to the tracking client")
	}
	conns[1].ep.Subscriber().Release(nil)

	tr.Set(ts[1], 1, conns[1], &Mode{Redirect: 9})
	tr.Remember(1, []byte("k"))
	tr.Modified("k", 0)
	conns[1].got(t, ">2\r\n$21\r\ntracking-redir-broken\r\n:9\r\n")
	if !ts[1].BrokenRedirect() {
		t.Fatal("broken redirect not recorded")
	}
}

// A flush's null invalidation to the flushing client itself goes before
// its reply; Limit's to the client about to run a command into its replies.
func TestFlushedAndLimitReachSelfFirst(t *testing.T) {
	tr, conns, ts := trackers(t, 1, 3)
	tr.Set(ts[1], 1, conns[1], &Mode{})
	tr.Remember(1, []byte("k"))
	out := []byte("before;+OK\r\n")
	tr.Flushed(conns[1], &out, len("before;"), true)
	if got := string(out); got != "before;>2\r\n$10\r\ninvalidate\r\n_\r\n+OK\r\n" {
		t.Fatalf("got %q", got)
	}
	if tr.Keys() != 0 {
		t.Fatal("flush kept keys")
	}

	tr.Remember(1, []byte("k"))
	tr.Remember(1, []byte("j"))
	out = nil
	tr.Limit(1, conns[1], &out)
	if tr.Keys() != 1 || len(out) == 0 {
		t.Fatalf("Limit left %d keys, wrote %q", tr.Keys(), out)
	}
}
