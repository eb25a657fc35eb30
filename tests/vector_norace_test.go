//go:build !race

package tests

const vecRace = false
