//go:build race

package secmedian

const raceEnabled = true
