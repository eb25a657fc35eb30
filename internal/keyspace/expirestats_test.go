package keyspace

import (
	"fmt"
	"testing"
	"time"
)

// TestExpireStats: Redis's bookkeeping of its cycle. The stale estimate is
// a running average to which a cycle counts for 5%; a cycle stopped by its
// budget counts in CapHits.
func TestExpireStats(t *testing.T) {
	ks := New(1)
	now := time.Now().UnixMilli()
	for i := 0; i < 5000; i++ {
		k := []byte(fmt.Sprint("{tag}", i)) // one shard, drained over many cycles
		ks.DBs[0].ShardFor(k).SetString(k, []byte("v"), now-1, false)
	}
	x := NewExpirer(ks)
	for n := 0; n == 0; {
		n = x.Cycle(0)
	}
	if got := x.Stats.StalePerc(); got != 5 {
		t.Fatalf("stale %% after a cycle that found only expired keys: %v, want 5", got)
	}
	if x.Stats.CapHits.Load() == 0 {
		t.Fatal("a cycle stopped by its budget was not counted")
	}
	for ks.DBs[0].Size() > 0 {
		x.Cycle(time.Second)
	}
	before := x.Stats.StalePerc()
	x.Cycle(time.Second) // samples nothing: the estimate decays
	if got := x.Stats.StalePerc(); got >= before || got < before*0.95-1e-9 {
		t.Fatalf("stale %% went from %v to %v after an empty cycle, want 95%%", before, got)
	}
	x.Stats.Reset()
	if x.Stats.StalePerc() != 0 || x.Stats.CapHits.Load() != 0 || x.Stats.UsedMicro.Load() != 0 {
		t.Fatal("Reset left statistics")
	}
}
