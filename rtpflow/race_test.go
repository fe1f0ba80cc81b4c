//go:build race

package rtpflow

const raceEnabled = true
