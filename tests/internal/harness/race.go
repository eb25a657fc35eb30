//go:build race

package harness

// RaceEnabled: the race detector slows CPU-bound commands tenfold or more.
const RaceEnabled = true
