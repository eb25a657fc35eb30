//go:build race

package tests

// raceEnabled: the race detector slows CPU-bound commands tenfold or more.
const raceEnabled = true
