package stats

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/tick"
)

// Slowlog is SLOWLOG's log: commands that ran longer than
// slowlog-log-slower-than microseconds, newest first, at most
// slowlog-max-len of them, with Redis's entry format (arguments cut to 32,
// each to 128 bytes, credentials redacted). The time is the command's own,
// as Redis measures it: not the time spent waiting for a lock or blocked
// for data.
type Slowlog struct {
	// minTicks is a lower bound of the threshold in tick units (this one's
	// or the latency monitor's, the lower), so that the path of every
	// command compares one number; math.MaxInt64 when both are off.
	minTicks atomic.Int64
	us       atomic.Int64 // the threshold in microseconds, checked exactly

	mu      sync.Mutex
	entries []SlowEntry // oldest first
	maxLen  int
	nextID  int64
}

// SlowEntry is one command SLOWLOG GET shows.
type SlowEntry struct {
	ID, Time, Micros int64 // Time in unix seconds
	Args             [][]byte
	Addr, Name       string // the client's address and name
}

// Configure applies slowlog-log-slower-than (slowerUs, negative: off),
// slowlog-max-len and latency-monitor-threshold (monitorMs, 0: off), whose
// commands MinTicks lets through too.
func (l *Slowlog) Configure(slowerUs, maxLen, monitorMs int64) {
	l.us.Store(slowerUs)
	us := slowerUs
	if monitorMs > 0 && (us < 0 || monitorMs*1000 < us) {
		us = min(monitorMs, math.MaxInt64/1000) * 1000
	}
	if us < 0 {
		l.minTicks.Store(math.MaxInt64)
	} else {
		l.minTicks.Store(int64(float64(us) * 1000 / tick.NanosPerTick() * 0.9))
	}
	l.mu.Lock()
	l.maxLen = int(min(maxLen, math.MaxInt32))
	l.trim()
	l.mu.Unlock()
}

// MinTicks is the command path's one comparison: a command that ran fewer
// ticks is neither logged nor a latency sample.
func (l *Slowlog) MinTicks() int64 { return l.minTicks.Load() }

// Exceeds reports whether a command that ran us microseconds is logged.
func (l *Slowlog) Exceeds(us int64) bool {
	limit := l.us.Load()
	return limit >= 0 && us >= limit
}

func (l *Slowlog) trim() {
	if n := len(l.entries) - l.maxLen; n > 0 {
		l.entries = append(l.entries[:0:0], l.entries[n:]...)
	}
}

// Limits of an entry, as Redis's SLOWLOG_ENTRY_MAX_ARGC and _STRING.
const (
	slowMaxArgs   = 32
	slowMaxString = 128
)

// Add logs a command that ran us microseconds (the caller checked Exceeds)
// with its arguments, copied and cut to Redis's limits; those secret
// reports true for are shown as "(redacted)".
func (l *Slowlog) Add(us int64, args [][]byte, addr, name string, secret func(i int) bool) {
	n := min(len(args), slowMaxArgs)
	e := SlowEntry{Time: time.Now().Unix(), Micros: us, Args: make([][]byte, n), Addr: addr, Name: name}
	for i := range n {
		a := args[i]
		switch {
		case i == slowMaxArgs-1 && len(args) > slowMaxArgs:
			a = fmt.Appendf(nil, "... (%d more arguments)", len(args)-slowMaxArgs+1)
		case secret(i):
			a = []byte("(redacted)")
		case len(a) > slowMaxString:
			a = fmt.Appendf(append([]byte(nil), a[:slowMaxString]...), "... (%d more bytes)", len(a)-slowMaxString)
		default:
			a = append([]byte(nil), a...)
		}
		e.Args[i] = a
	}
	l.mu.Lock()
	e.ID = l.nextID
	l.nextID++
	if l.maxLen > 0 {
		l.entries = append(l.entries, e)
		l.trim()
	}
	l.mu.Unlock()
}

// Latest returns up to count entries (count < 0: all), newest first. The
// entries are never changed once logged: the caller may keep them.
func (l *Slowlog) Latest(count int64) []SlowEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.entries)
	if count >= 0 && int64(n) > count {
		n = int(count)
	}
	out := make([]SlowEntry, n)
	for i := range out {
		out[i] = l.entries[len(l.entries)-1-i]
	}
	return out
}

// Len is SLOWLOG LEN.
func (l *Slowlog) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// Reset is SLOWLOG RESET.
func (l *Slowlog) Reset() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}
