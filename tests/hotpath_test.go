package tests

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Behaviour the hot-path shortcuts must keep: writes still reach WATCH once
// anyone watches, and INFO commandstats/keyspace counts stay exact for the
// connection that asks.

func TestWatchSeesWritesFromOtherClients(t *testing.T) {
	s := start(t)
	a, b := s.raw(t), s.raw(t)
	b.do("SET", "other", "1") // a write while nobody watches
	for _, write := range [][]string{{"SET", "w", "2"}, {"DEL", "x", "y", "w"}} {
		a.do("SET", "w", "1")
		if got := a.do("WATCH", "w"); got != Status("OK") {
			t.Fatalf("WATCH: %#v", got)
		}
		b.do(write...)
		a.do("MULTI")
		a.do("SET", "w", "mine")
		if got := a.do("EXEC"); got != nil {
			t.Fatalf("after %v: EXEC = %#v, want nil (aborted)", write, got)
		}
	}
}

func TestCommandStatsCountsOwnPipeline(t *testing.T) {
	s := start(t)
	r := s.raw(t)
	r.send(encode("SET", "k", "v") + encode("GET", "k") + encode("GET", "k") + encode("GET", "nokey") +
		encode("INFO", "commandstats") + encode("INFO", "commandstats") + encode("INFO", "stats"))
	for range 4 {
		r.read()
	}
	first, second, stats := r.read().(string), r.read().(string), r.read().(string)
	calls := func(info, cmd string) int {
		m := regexp.MustCompile(`cmdstat_` + cmd + `:calls=(\d+),usec=\d+,usec_per_call=[\d.]+,`).FindStringSubmatch(info)
		if m == nil {
			t.Fatalf("no cmdstat_%s in %q", cmd, info)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if calls(first, "get") != 3 || calls(first, "set") != 1 || strings.Contains(first, "cmdstat_info") {
		t.Fatalf("first INFO: %q", first)
	}
	if calls(second, "info") != 1 {
		t.Fatalf("second INFO does not count the first: %q", second)
	}
	if !strings.Contains(stats, "keyspace_hits:2\r\n") || !strings.Contains(stats, "keyspace_misses:1\r\n") {
		t.Fatalf("INFO stats: %q", stats)
	}
}

// Writes skip Touch while nothing is watched or waited on; a blocked client
// counts as waiting, so the write that gives it data must still wake it.
func TestWriteWakesBlockedClientWhileNothingIsWatched(t *testing.T) {
	s := start(t)
	a, b := s.raw(t), s.raw(t)
	a.send(encode("BLPOP", "q", "5"))
	for i := 0; !strings.Contains(b.do("INFO", "clients").(string), "blocked_clients:1\r\n"); i++ {
		if i == 1000 {
			t.Fatal("BLPOP never blocked")
		}
		time.Sleep(time.Millisecond)
	}
	b.do("RPUSH", "q", "x")
	if got := a.read(); !reflect.DeepEqual(got, []any{"q", "x"}) {
		t.Fatalf("BLPOP: %#v", got)
	}
}
