package server

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Behaviour the hot-path shortcuts must keep: writes still reach WATCH once
// anyone watches, and INFO commandstats/keyspace counts stay exact for the
// connection that asks.

func TestWatchSeesWritesFromOtherClients(t *testing.T) {
	s := harness.Start(t)
	a, b := s.Raw(t), s.Raw(t)
	b.Do("SET", "other", "1") // a write while nobody watches
	for _, write := range [][]string{{"SET", "w", "2"}, {"DEL", "x", "y", "w"}} {
		a.Do("SET", "w", "1")
		if got := a.Do("WATCH", "w"); got != harness.Status("OK") {
			t.Fatalf("WATCH: %#v", got)
		}
		b.Do(write...)
		a.Do("MULTI")
		a.Do("SET", "w", "mine")
		if got := a.Do("EXEC"); got != nil {
			t.Fatalf("after %v: EXEC = %#v, want nil (aborted)", write, got)
		}
	}
}

func TestCommandStatsCountsOwnPipeline(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Send(harness.Encode("SET", "k", "v") + harness.Encode("GET", "k") + harness.Encode("GET", "k") + harness.Encode("GET", "nokey") +
		harness.Encode("INFO", "commandstats") + harness.Encode("INFO", "commandstats") + harness.Encode("INFO", "stats"))
	for range 4 {
		r.Read()
	}
	first, second, stats := r.Read().(string), r.Read().(string), r.Read().(string)
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
	s := harness.Start(t)
	a, b := s.Raw(t), s.Raw(t)
	a.Send(harness.Encode("BLPOP", "q", "5"))
	for i := 0; !strings.Contains(b.Do("INFO", "clients").(string), "blocked_clients:1\r\n"); i++ {
		if i == 1000 {
			t.Fatal("BLPOP never blocked")
		}
		time.Sleep(time.Millisecond)
	}
	b.Do("RPUSH", "q", "x")
	if got := a.Read(); !reflect.DeepEqual(got, []any{"q", "x"}) {
		t.Fatalf("BLPOP: %#v", got)
	}
}
