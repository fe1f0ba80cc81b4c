//go:build !race

package tcpframe

const raceEnabled = false
