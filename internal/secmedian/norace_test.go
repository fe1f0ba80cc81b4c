//go:build !race

package secmedian

const raceEnabled = false
