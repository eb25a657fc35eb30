package lazyfree

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestCountsAndReleases(t *testing.T) {
	f := New()
	f.Drop(3, 100)
	if f.Pending() != 3 || f.Freed() != 0 {
		t.Fatalf("before Run: pending %d, freed %d", f.Pending(), f.Freed())
	}
	stop := make(chan struct{})
	ran := make(chan struct{})
	go func() { f.Run(stop); close(ran) }()
	waitFor(t, "the drop to be counted freed", func() bool { return f.Freed() == 3 && f.Pending() == 0 })
	select {
	case <-f.DropAndWait(2, 10): // small: released without a collection
	case <-time.After(5 * time.Second):
		t.Fatal("DropAndWait not released")
	}
	if f.Freed() != 5 {
		t.Fatalf("freed %d after the wait, want 5", f.Freed())
	}
	f.Drop(0, 0) // nothing: no job
	f.ResetStats()
	if f.Freed() != 0 {
		t.Fatalf("freed %d after ResetStats", f.Freed())
	}
	close(stop)
	<-ran
	// Run stopping leaves nobody waiting: those queued before, and those
	// that come after (a FLUSHALL as the server shuts down).
	f2 := New()
	done := f2.DropAndWait(1, 1)
	stop2 := make(chan struct{})
	close(stop2)
	f2.Run(stop2)
	select {
	case <-done:
	default:
		t.Fatal("a waiter queued before Run stopped was not released")
	}
	select { // and one queued after
	case <-f2.DropAndWait(1, 1):
	default:
		t.Fatal("a waiter queued after Run stopped was not released")
	}
}

// TestCollectsWhenWorthIt: a drop that is a large part of the live heap
// runs a collection before it is counted freed; a small one does not.
func TestCollectsWhenWorthIt(t *testing.T) {
	keep := make([]byte, 4<<20) // some live heap
	runtime.GC()
	f := New()
	stop := make(chan struct{})
	defer close(stop)
	go f.Run(stop)

	before := gcCycles()
	<-f.DropAndWait(1, 100<<10) // 100 KiB: below minGarbage
	if gcCycles() != before {
		// the runtime may collect on its own: only a forced one would be
		// certain here, so look again with nothing else allocating
		before = gcCycles()
		<-f.DropAndWait(1, 100<<10)
		if gcCycles() != before {
			t.Fatal("a 100 KiB drop ran a collection")
		}
	}
	before = gcCycles()
	<-f.DropAndWait(1, 8<<20) // 8 MiB: twice the live heap
	if gcCycles() == before {
		t.Fatal("an 8 MiB drop did not run a collection")
	}
	runtime.KeepAlive(keep)
}

func TestNilFreer(t *testing.T) {
	var f *Freer
	f.Drop(1, 1<<30)
	select {
	case <-f.DropAndWait(1, 1):
	default:
		t.Fatal("a nil Freer's wait is not released at once")
	}
}
