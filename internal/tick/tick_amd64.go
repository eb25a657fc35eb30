package tick

// counter: Now reads the time-stamp counter, which every x86-64 server CPU of
// the last fifteen years runs at a constant rate whatever the core's clock.
const counter = true

// Now returns the time-stamp counter (RDTSC).
func Now() int64
