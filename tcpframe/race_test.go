//go:build race

package tcpframe

const raceEnabled = true
