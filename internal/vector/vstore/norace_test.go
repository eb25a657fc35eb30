//go:build !race

package vstore

const raceEnabled = false
