package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// bytesSI formats a byte count in decimal units, as file sizes are usually given.
func bytesSI(n int64) string {
	f := float64(n)
	switch {
	case f >= 1e9:
		return fmt.Sprintf("%.2f GB", f/1e9)
	case f >= 1e6:
		return fmt.Sprintf("%.1f MB", f/1e6)
	case f >= 1e3:
		return fmt.Sprintf("%.1f kB", f/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// Short names for the shared formatters.
var (
	thousands = numfmt.Thousands
	rate      = numfmt.Rate
	pct       = numfmt.Pct
	ms        = numfmt.MS
	exactMS   = numfmt.ExactMS
	seconds   = numfmt.Seconds
	count     = numfmt.Count
)

// relayFigures are a relay's figures for one call direction, in pieces: how many packets
// were seen on both legs, the relay's latency, and where the others were lost.
func relayFigures(r *report.Relay) []string {
	pieces := []string{thousands(r.Matched) + " matched"}
	if l := r.LatencyMS; l != nil {
		pieces = append(pieces, fmt.Sprintf("latency p50 %s, p95 %s, max %s", ms(l.P50), ms(l.P95), ms(l.Max)))
	}
	return append(pieces, fmt.Sprintf("lost %s before it, %s after", thousands(r.LostBeforeRelay), thousands(r.LostAfterRelay)))
}

// optRate formats a rate that may not have been measured, as the text report writes a
// figure it has not ("loss n/a").
func optRate(kbps *float64) string {
	if kbps == nil {
		return "n/a"
	}
	return rate(*kbps)
}

var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values as block characters, averaging groups so that at most width marks
// are drawn; it returns the line and how many values each mark stands for.
func sparkline(values []float64, width int) (string, int) {
	if len(values) == 0 || width <= 0 {
		return "", 0
	}
	per := (len(values) + width - 1) / width
	var marks []float64
	max := 0.0
	for i := 0; i < len(values); i += per {
		end := min(i+per, len(values))
		sum := 0.0
		for _, v := range values[i:end] {
			sum += v
		}
		m := sum / float64(end-i)
		marks = append(marks, m)
		max = math.Max(max, m)
	}
	var b strings.Builder
	for _, m := range marks {
		lvl := 0
		if max > 0 {
			lvl = int(math.Round(m / max * float64(len(sparkLevels)-1)))
		}
		b.WriteRune(sparkLevels[lvl])
	}
	return b.String(), per
}
