package persistence

import (
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// TestRegistriesKeptAcrossDataSwaps: the named vector indexes and the AI
// layer are server-wide, not keys. FLUSHALL, SWAPDB, DEBUG RELOAD and
// DEBUG LOADAOF replace the keys and leave them as they were; LOADAOF
// replays the log's writes to them into registries it drops, so none is
// applied a second time (an AMEM.ADD twice, a PCACHE.CREATE refused).
func TestRegistriesKeptAcrossDataSwaps(t *testing.T) {
	s := harness.Start(t, "--dir", t.TempDir(), "--appendonly", "yes", "--appendfsync", "no")
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "PCACHE.CREATE", "chat")
	r.Expect(int64(1), "PCACHE.SET", "chat", "q", "a")
	r.Expect(harness.Status("OK"), "AMEM.CREATE", "mem", "DIM", "3", "DEDUP", "OFF")
	r.Do("AMEM.ADD", "mem", "fact", "VALUES", "3", "1", "0", "0")
	r.Expect(harness.Status("OK"), "VSIM.CREATEINDEX", "ix", "DIM", "3")
	r.Expect(int64(1), "VSIM.SET", "ix", "e", "VALUES", "3", "1", "0", "0")
	r.Expect(harness.Status("OK"), "SET", "k", "v")
	field := func(reply any, name string) any {
		a, _ := reply.([]any)
		for i := 0; i+1 < len(a); i += 2 {
			if a[i] == name {
				return a[i+1]
			}
		}
		t.Fatalf("no %s in %#v", name, reply)
		return nil
	}
	for _, cmd := range [][]string{{"DEBUG", "LOADAOF"}, {"DEBUG", "RELOAD"}, {"SWAPDB", "0", "1"}, {"FLUSHALL"}, {"DEBUG", "LOADAOF"}} {
		r.Expect(harness.Status("OK"), cmd...)
		if got := r.Do("PCACHE.GET", "chat", "q"); got != "a" {
			t.Fatalf("after %v: PCACHE.GET = %#v", cmd, got)
		}
		if got := field(r.Do("AMEM.INFO", "mem"), "memories"); got != int64(1) {
			t.Fatalf("after %v: %v memories", cmd, got)
		}
		if got := field(r.Do("VSIM.INFO", "ix"), "size"); got != int64(1) {
			t.Fatalf("after %v: index size %v", cmd, got)
		}
	}
	r.Expect(int64(0), "DBSIZE")
	if n := harness.InfoFields(t, r, "stats")["unexpected_error_replies"]; n != "0" {
		t.Fatalf("unexpected_error_replies %s: the log's replay hit the live registries", n)
	}
}
