//go:build !race

package rtpflow

const raceEnabled = false
