//go:build race

package vstore

// raceEnabled skips the tests that build indexes of thousands of vectors,
// many times slower under the race detector; the concurrency test stays.
const raceEnabled = true
