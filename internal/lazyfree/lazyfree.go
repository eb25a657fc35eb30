// Package lazyfree reclaims the memory of values the server drops, in the
// background, and counts them as Redis's lazy-free thread does.
//
// A value a command deletes is the garbage collector's at once, but an
// idle server may not collect for minutes: used_memory would stay up after
// an UNLINK or a FLUSHALL, where Redis's fall as its lazy-free thread frees.
// The Freer runs a collection when what was dropped since the last one is a
// large part of the heap, and counts the objects Redis would have freed
// lazily (INFO lazyfree_pending_objects until that collection, then
// lazyfreed_objects).
package lazyfree

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Threshold is Redis's LAZYFREE_THRESHOLD: a value whose free effort (the
// allocations it is made of) is above it is freed lazily, and counted.
const Threshold = 64

const (
	// minGarbage is the least that is worth a collection of its own.
	minGarbage = 1 << 20
	// heapShare: a collection is run once what was dropped is at least
	// this share of the heap live at the last one, so that a forced
	// collection marks at most a few times what it reclaims (the Go
	// runtime's own pace, GOGC=100, marks about as much as was allocated).
	heapShare = 8
	// minGap keeps forced collections apart under a stream of deletions:
	// at most a few a second, each running beside the commands. A client
	// waiting for one (a blocking FLUSHALL) does not wait for the gap.
	minGap = 200 * time.Millisecond
)

// Freer is the server's lazy free. The zero value is not usable: see New.
type Freer struct {
	// UserDel and UserFlush are lazyfree-lazy-user-del (DEL frees as
	// UNLINK does) and lazyfree-lazy-user-flush (FLUSHALL, FLUSHDB, SCRIPT
	// FLUSH and FUNCTION FLUSH without SYNC or ASYNC free as with ASYNC).
	UserDel, UserFlush atomic.Bool
	// ServerDel is lazyfree-lazy-server-del: a deletion a command makes
	// implicitly (SPOP of the whole set) propagates as UNLINK, not DEL.
	ServerDel atomic.Bool

	pending, freed atomic.Int64

	mu      sync.Mutex
	stopped bool // Run has returned: nobody is left to wait for
	jobs    []job
	garbage int64            // bytes dropped since the collection numbered cycles
	cycles  uint64           // the collection count when garbage started
	count   []metrics.Sample // the collection count, read under mu

	wake chan struct{}
	live []metrics.Sample // the live heap, read by Run
}

type job struct {
	objects int64
	done    chan struct{} // nil: nobody waits
}

// New returns a Freer; Run does its work.
func New() *Freer {
	return &Freer{
		wake:  make(chan struct{}, 1),
		count: []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}},
		live:  []metrics.Sample{{Name: "/gc/heap/live:bytes"}},
	}
}

// Drop notes that values of about bytes were dropped, of which objects are
// values Redis would free lazily (counted in INFO). A nil Freer (a
// keyspace of the loaders' own) does nothing.
func (f *Freer) Drop(objects, bytes int64) {
	if f != nil && (objects > 0 || bytes > 0) {
		f.add(job{objects: objects}, bytes)
	}
}

// DropAndWait is Drop, with a channel closed once the values are reclaimed
// (at once, when they were not worth a collection), as a blocking FLUSHALL
// replies once Redis's lazy-free thread has freed the data.
func (f *Freer) DropAndWait(objects, bytes int64) <-chan struct{} {
	done := make(chan struct{})
	if f == nil {
		close(done)
		return done
	}
	f.add(job{objects, done}, bytes)
	return done
}

func (f *Freer) add(j job, bytes int64) {
	f.pending.Add(j.objects)
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		f.finish([]job{j})
		return
	}
	f.jobs = append(f.jobs, j)
	if metrics.Read(f.count); f.count[0].Value.Uint64() != f.cycles {
		// A collection ran since the last drops: they are reclaimed.
		f.cycles, f.garbage = f.count[0].Value.Uint64(), 0
	}
	f.garbage += bytes
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Pending is INFO's lazyfree_pending_objects.
func (f *Freer) Pending() int64 { return f.pending.Load() }

// Freed is INFO's lazyfreed_objects.
func (f *Freer) Freed() int64 { return f.freed.Load() }

// ResetStats is CONFIG RESETSTAT's part: lazyfreed_objects starts again.
func (f *Freer) ResetStats() { f.freed.Store(0) }

// Run does the Freer's work until stop is closed, then releases whoever
// waits.
func (f *Freer) Run(stop <-chan struct{}) {
	var last time.Time
	for {
		select {
		case <-stop:
			f.mu.Lock()
			f.stopped = true
			f.mu.Unlock()
			f.finish(f.take())
			return
		case <-f.wake:
		}
		jobs, collect := f.take(), f.worthCollecting()
		if collect {
			if !slices.ContainsFunc(jobs, func(j job) bool { return j.done != nil }) {
				select { // nobody waits: keep to the gap
				case <-stop:
				case <-time.After(time.Until(last.Add(minGap))):
				}
			}
			runtime.GC()
			last = time.Now()
		}
		f.finish(jobs)
	}
}

func (f *Freer) take() []job {
	f.mu.Lock()
	defer f.mu.Unlock()
	jobs := f.jobs
	f.jobs = nil
	return jobs
}

// worthCollecting reports whether what was dropped since the last
// collection is worth one now, and if so starts counting afresh.
func (f *Freer) worthCollecting() bool {
	metrics.Read(f.live)
	live := int64(f.live[0].Value.Uint64())
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.garbage < minGarbage || f.garbage*heapShare < live {
		return false
	}
	f.garbage = 0
	return true
}

func (f *Freer) finish(jobs []job) {
	for _, j := range jobs {
		f.pending.Add(-j.objects)
		f.freed.Add(j.objects)
		if j.done != nil {
			close(j.done)
		}
	}
}
