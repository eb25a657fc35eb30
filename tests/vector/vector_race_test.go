//go:build race

package vector

// vecRace: the recall tests build graphs of thousands of vectors, far too
// slow under the race detector; the concurrency tests cover -race.
const vecRace = true
