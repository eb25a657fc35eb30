package stats

import (
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/tick"
)

// The buckets of the per-command latency histograms (see doc.go).
const (
	latExact      = 34 // one bucket per microsecond below this
	latFirstSplit = 6  // the first LATENCY HISTOGRAM bucket split in eighths (34-66 µs)
	latSubs       = 8
	latLevels     = 21 // LATENCY HISTOGRAM's buckets, 1 µs to 1 s
	latBuckets    = latExact + (latLevels-latFirstSplit)*latSubs
	latMaxUs      = 1_000_000 // Redis clamps durations to a second
)

// latLabels[k] is the label of LATENCY HISTOGRAM's k-th bucket, the highest
// microsecond it holds: HDR's highest nanosecond equivalent to 1024·2^k,
// 1024·2^k + 2^(k+3) - 1, in microseconds. The last one is where HDR's
// iteration stops, its last sub-bucket (2^30-1 ns), beyond the clamp.
var latLabels = func() (l [latLevels]int64) {
	for k := range latLevels - 1 {
		l[k] = (129<<(k+3) - 1) / 1000
	}
	l[latLevels-1] = (1<<30 - 1) / 1000
	return l
}()

// hist is one connection's histogram of one command: b[0] stays 0 (see
// doc.go); untracked counts the calls made with latency-tracking off.
type hist struct {
	b         [latBuckets]atomic.Uint64
	untracked atomic.Uint64
}

// Counts is a command's histogram summed over connections.
type Counts [latBuckets]uint64

// histTable holds a connection's histograms by command ID.
type histTable struct{ h []atomic.Pointer[hist] }

// ConnLatency is a connection's latency histograms. Only the connection's
// goroutine calls its methods; AddConn reads it from others.
type ConnLatency struct {
	// oneUs is a microsecond in ticks, rounded up: a call shorter is in
	// bucket 0. Set by Record and Hold: 0 until the first call (then
	// recorded).
	oneUs int64
	// pend counts the running command's calls of 1 to 33 µs since the last
	// Flush; mask has bit i set when pend[i] is not 0.
	pend [latExact]uint32
	mask uint64
	// held is the locked part, in ticks, of a command whose unlocked part
	// is still to run (Hold).
	held int64
	// cur is the histogram of command curID, the last one flushed.
	cur   *hist
	curID int
	table atomic.Pointer[histTable] // nil until a histogram is needed
}

// Fast reports whether a call of d ticks is in bucket 0, counted with the
// command's calls and not recorded. It is on the path of every command;
// if not, the caller records the call with Record.
func (l *ConnLatency) Fast(d int64) bool { return d < l.oneUs }

func (l *ConnLatency) calibrate() { l.oneUs = int64(math.Ceil(1000 / tick.NanosPerTick())) }

// Hold keeps d, the locked part of a call whose unlocked part is still to
// run: the caller records the two together, with Held.
func (l *ConnLatency) Hold(d int64) {
	l.calibrate()
	l.held = d
}

// Held is the locked part Hold kept.
func (l *ConnLatency) Held() int64 { return l.held }

// Record counts a call of command id that took d ticks: running says it
// is the connection's running command, whose calls Flush publishes with
// its pending counts; another one's (run by EXEC or a script) is counted
// in its histogram at once. tracking is latency-tracking.
func (l *ConnLatency) Record(id int, running bool, d int64, tracking bool) {
	nsPerTick := tick.NanosPerTick()
	l.oneUs = int64(math.Ceil(1000 / nsPerTick))
	us := int64(float64(d) * nsPerTick / 1000)
	if us <= 0 {
		us = 0
	}
	if running && us < latExact {
		if us > 0 {
			l.pend[us]++
			l.mask |= 1 << us
		}
		return
	}
	switch {
	case !tracking && !running: // the running command's are counted by Flush
		l.hist(id).untracked.Add(1)
	case tracking && us > 0:
		l.hist(id).b[latIndex(us)].Add(1)
	}
}

// Pending reports whether the running command has counts for Flush to
// publish (with latency-tracking off, Flush has its calls to count).
func (l *ConnLatency) Pending() bool { return l.mask != 0 }

// Flush publishes the running command's pending counts, once its calls
// are published. With latency-tracking off, its calls are untracked and the
// counts dropped: as in Redis, a command counts if tracking is on once it
// ran.
func (l *ConnLatency) Flush(id int, calls uint64, tracking bool) {
	if l.cur == nil || l.curID != id {
		l.cur, l.curID = l.hist(id), id
	}
	if !tracking {
		l.cur.untracked.Add(calls)
	}
	for mask := l.mask; mask != 0; mask &= mask - 1 {
		i := bits.TrailingZeros64(mask)
		if tracking {
			l.cur.b[i].Add(uint64(l.pend[i]))
		}
		l.pend[i] = 0
	}
	l.mask = 0
}

// hist returns the histogram of command id, making it if need be.
func (l *ConnLatency) hist(id int) *hist {
	t := l.table.Load()
	if t == nil {
		t = &histTable{h: make([]atomic.Pointer[hist], cmdtable.Count())}
		l.table.Store(t)
	}
	h := t.h[id].Load()
	if h == nil {
		h = new(hist)
		t.h[id].Store(h)
	}
	return h
}

// Reset empties the histograms (CONFIG RESETSTAT).
func (l *ConnLatency) Reset() {
	t := l.table.Load()
	if t == nil {
		return
	}
	for id := range t.h {
		if h := t.h[id].Load(); h != nil {
			for i := range h.b {
				h.b[i].Store(0)
			}
			h.untracked.Store(0)
		}
	}
}

// AddConn adds a connection's histograms to out (by command ID, made as
// needed), for the commands want selects (nil: all): calls are its
// commandstats counts by command ID, published before the histograms.
func AddConn(out []*Counts, l *ConnLatency, calls []atomic.Uint64, want []bool) {
	t := l.table.Load()
	for id := range calls {
		if want != nil && !want[id] {
			continue
		}
		var h *hist
		if t != nil {
			h = t.h[id].Load()
		}
		if h == nil && calls[id].Load() == 0 {
			continue
		}
		if out[id] == nil {
			out[id] = new(Counts)
		}
		out[id].addConn(h, &calls[id])
	}
}

// addConn adds a connection's calls of a command to h: hist is its
// histogram of the command (nil if it has none), calls its commandstats
// count. The count is read last: the owner publishes it first, so it
// covers the buckets read, and bucket 0 never goes negative.
func (h *Counts) addConn(hist *hist, calls *atomic.Uint64) {
	var untracked, explicit uint64
	var b Counts
	if hist != nil {
		untracked = hist.untracked.Load()
		for i := 1; i < latBuckets; i++ {
			b[i] = hist.b[i].Load()
			explicit += b[i]
		}
	}
	n := calls.Load()
	total := max(n-min(n, untracked), explicit) // a RESETSTAT may be under way
	b[0] = total - explicit
	for i := range b {
		h[i] += b[i]
	}
}

// latIndex is the bucket of a call of us microseconds.
func latIndex(us int64) int {
	if us < latExact {
		return int(max(us, 0))
	}
	us = min(us, latMaxUs)
	k := bits.Len64(uint64(us)) - 1 // 2^k <= us; latLabels[k-1] < 2^k <= latLabels[k] < 2^(k+1)
	if us > latLabels[k] {
		k++
	}
	lo, hi := latLabels[k-1], min(latLabels[k], latMaxUs)
	return latExact + (k-latFirstSplit)*latSubs + int((us-lo-1)*latSubs/(hi-lo))
}

// latRange is the lowest and highest microsecond bucket i holds.
func latRange(i int) (lo, hi int64) {
	if i < latExact {
		return int64(i), int64(i)
	}
	k := latFirstSplit + (i-latExact)/latSubs
	sub := int64((i - latExact) % latSubs)
	base, w := latLabels[k-1]+1, min(latLabels[k], latMaxUs)-latLabels[k-1]
	// us is in sub when (us-base)*latSubs/w == sub
	lo = base + (sub*w+latSubs-1)/latSubs
	hi = base + ((sub+1)*w+latSubs-1)/latSubs - 1
	return lo, hi
}

// latLevel is the LATENCY HISTOGRAM bucket of bucket i.
func latLevel(i int) int {
	if i >= latExact {
		return latFirstSplit + (i-latExact)/latSubs
	}
	for k, l := range latLabels {
		if int64(i) <= l {
			return k
		}
	}
	return latLevels - 1
}

// hdrRange is the range of nanoseconds equivalent to ns in Redis's HDR
// histogram (1 ns to 1 s, two significant digits: 256 sub-buckets).
func hdrRange(ns int64) (lo, hi int64) {
	size := int64(1) << (bits.Len64(uint64(ns)|255) - 8)
	lo = ns &^ (size - 1)
	return lo, lo + size - 1
}

// usToHDR is the value Redis records for a call of us microseconds.
func usToHDR(us int64) int64 { return max(us*1000, 1) }

// Total is the number of calls.
func (h *Counts) Total() uint64 {
	var n uint64
	for _, x := range h {
		n += x
	}
	return n
}

// Percentile is HDR's hdr_value_at_percentile, in microseconds, of total
// calls (h.Total()).
func (h *Counts) Percentile(p float64, total uint64) float64 {
	want := max(int64(min(p, 100)/100*float64(total)+0.5), 1)
	var cum int64
	for i, n := range h {
		cum += int64(n)
		if cum < want {
			continue
		}
		lo, hi := latRange(i)
		if p == 0 {
			v, _ := hdrRange(usToHDR(lo))
			return float64(v) / 1000
		}
		_, v := hdrRange(usToHDR(hi))
		return float64(v) / 1000
	}
	return 0
}

// Bucket is one of LATENCY HISTOGRAM's: the calls that took at most UpTo
// microseconds.
type Bucket struct {
	UpTo  int64
	Calls uint64
}

// Cumulative is Redis's fillCommandCDF: the number of calls, and the
// cumulative count at each LATENCY HISTOGRAM bucket that adds calls.
func (h *Counts) Cumulative() (calls uint64, buckets []Bucket) {
	var cum [latLevels]uint64
	for i, n := range h {
		cum[latLevel(i)] += n
	}
	var prev uint64
	for k, n := range cum {
		calls += n
		if calls > prev {
			buckets = append(buckets, Bucket{latLabels[k], calls})
		}
		prev = calls
	}
	return calls, buckets
}
