package stats

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/tick"
)

// Two commands for the tests: the command table is empty without the
// packages that register the real ones.
var testA, testB = &cmdtable.Cmd{Name: "stats-test-a"}, &cmdtable.Cmd{Name: "stats-test-b"}

func init() { cmdtable.Register(testA, testB) }

// A connection's histograms: bucket 0 is implied by the calls, the running
// command's slower calls wait for Flush, another command's are counted at
// once, and with latency-tracking off calls are untracked.
func TestConnLatency(t *testing.T) {
	var l ConnLatency
	calls := make([]atomic.Uint64, cmdtable.Count())
	ticks := func(us float64) int64 { return int64(us * 1000 / tick.NanosPerTick()) }
	a, b := testA.ID, testB.ID
	call := func(id int, running bool, us float64, tracking bool) {
		calls[id].Add(1) // published first, as the server does
		if d := ticks(us); !l.Fast(d) {
			l.Record(id, running, d, tracking)
		}
	}
	buckets := func(id int) string {
		out := make([]*Counts, cmdtable.Count())
		AddConn(out, &l, calls, nil)
		if out[id] == nil {
			return "none"
		}
		s := ""
		for i, n := range out[id] {
			if n > 0 {
				s += fmt.Sprintf("%d:%d ", i, n)
			}
		}
		return s
	}
	call(a, true, 2.5, true) // the first call calibrates Fast
	call(a, true, 0.3, true)
	call(a, true, 2.2, true)
	call(b, false, 40, true) // run by EXEC: counted at once
	if got := buckets(a); got != "0:3 " {
		t.Errorf("before Flush: %s", got)
	}
	if !l.Pending() {
		t.Fatal("nothing pending")
	}
	l.Flush(a, 3, true)
	if got := buckets(a); got != "0:1 2:2 " {
		t.Errorf("after Flush: %s", got)
	}
	if got, want := buckets(b), fmt.Sprintf("%d:1 ", latIndex(40)); got != want {
		t.Errorf("EXEC's call: %s, want %s", got, want)
	}
	call(a, true, 5.5, false)
	call(b, false, 7.5, false)
	l.Flush(a, 1, false)
	if got := buckets(a); got != "0:1 2:2 " || buckets(b) != fmt.Sprintf("%d:1 ", latIndex(40)) {
		t.Errorf("untracked calls counted: a %s, b %s", got, buckets(b))
	}
	l.Reset()
	calls[a].Store(0)
	if got := buckets(a); got != "" { // the histogram is kept, empty
		t.Errorf("after Reset: %s", got)
	}
}

// Commandstats: error codes, failures and refusals by command, and a
// closing connection's counts folded in until Reset.
func TestCommands(t *testing.T) {
	var st Commands
	get := testA
	st.CountError("ERR syntax error")
	st.Failed(get, []byte("WRONGTYPE Operation\r\n"))
	st.Failed(get, nil)
	st.Rejected(get)
	if got := fmt.Sprint(st.Errors(), st.ErrorTotal()); got != "[{ERR 1} {WRONGTYPE 1}] 2" {
		t.Errorf("errors %s", got)
	}
	if rej, fail := st.Refusals(); rej[get.ID] != 1 || fail[get.ID] != 2 {
		t.Errorf("rejected %d failed %d", rej[get.ID], fail[get.ID])
	}
	c := Conn{Calls: make([]atomic.Uint64, cmdtable.Count()), Nanos: make([]atomic.Uint64, cmdtable.Count()), Hits: 3, Latency: new(ConnLatency)}
	c.Calls[get.ID].Store(4)
	c.Nanos[get.ID].Store(5000)
	st.AddClosed(c)
	calls, nanos, hits, _ := st.Totals()
	if calls[get.ID] != 4 || nanos[get.ID] != 5000 || hits != 3 {
		t.Errorf("closed: calls %d nanos %d hits %d", calls[get.ID], nanos[get.ID], hits)
	}
	if h := st.LatencyTotals(nil)[get.ID]; h == nil || h[0] != 4 {
		t.Errorf("closed histogram %v", h)
	}
	st.Reset()
	calls, _, hits, _ = st.Totals()
	if calls[get.ID] != 0 || hits != 0 || st.ErrorTotal() != 0 || st.LatencyTotals(nil)[get.ID] != nil {
		t.Error("Reset left counts")
	}
}
