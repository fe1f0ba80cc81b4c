//go:build race

package demux

const raceEnabled = true
