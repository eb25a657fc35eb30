// Package tick is a cheap clock for timing commands. Reading the monotonic
// clock costs 70-110 ns on a virtual machine (kvm-clock through the vDSO),
// as much as running a GET; the CPU's time-stamp counter costs about 20 ns.
// Ticks are only for durations: Nanos converts a count of them.
package tick

import (
	"math"
	"sync/atomic"
	"time"
)

var (
	startTicks = Now()
	startTime  = time.Now()
	nsPerTick  atomic.Uint64 // float64 bits; 0 until first calibrated
)

// Nanos converts a duration in ticks to nanoseconds.
func Nanos(ticks int64) int64 {
	if !counter {
		return ticks
	}
	r := math.Float64frombits(nsPerTick.Load())
	if r == 0 {
		r = Calibrate()
	}
	return int64(float64(ticks) * r)
}

// Calibrate measures the counter's rate against the monotonic clock over the
// whole life of the process (the longer the span, the finer the estimate) and
// returns nanoseconds per tick. The server's cron calls it periodically.
func Calibrate() float64 {
	if !counter {
		return 1
	}
	ns := time.Since(startTime).Nanoseconds()
	t := Now() - startTicks
	if ns <= 0 || t <= 0 {
		return 1
	}
	r := float64(ns) / float64(t)
	nsPerTick.Store(math.Float64bits(r))
	return r
}

// NanosPerTick is the current conversion rate (1 where ticks are
// nanoseconds).
func NanosPerTick() float64 {
	if !counter {
		return 1
	}
	if r := math.Float64frombits(nsPerTick.Load()); r != 0 {
		return r
	}
	return Calibrate()
}
