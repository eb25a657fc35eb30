//go:build !race

package harness

// RaceEnabled: see race.go.
const RaceEnabled = false
