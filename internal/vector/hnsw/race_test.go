//go:build race

package hnsw

// raceEnabled skips the large recall tests under the race detector, which
// makes them many times slower; the concurrency tests stay.
const raceEnabled = true
