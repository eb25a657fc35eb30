//go:build !race

package vector

const vecRace = false
