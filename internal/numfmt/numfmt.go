// Package numfmt shapes the figures of a report: rounded for the JSON (Round), and formatted
// for people with thousands separators, rates, percentages and durations with the precision
// their size deserves. The text report and the findings' sentences share it so that a number
// reads the same everywhere.
package numfmt

import (
	"fmt"
	"math"
	"strconv"
)

// Round rounds v to d decimal places, so that the report's figures do not carry float noise
// (0.1+0.2 is 0.3 in the JSON).
func Round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// Thousands formats n with comma separators: 120345 -> "120,345".
func Thousands(n int64) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Count writes n with the singular or plural noun: "1 packet", "1,200 packets".
func Count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// Rate formats a bitrate given in kbit/s.
func Rate(kbps float64) string {
	if kbps >= 1000 {
		return fmt.Sprintf("%.2f Mbps", kbps/1000)
	}
	return fmt.Sprintf("%.0f kbps", kbps)
}

// Pct formats a percentage (0-100): two decimals below 0.1%, one below 10%, none above,
// chosen by the value as rounded (9.98% is "10%", as 10.06% is, not "10.0%"); one too small
// for two decimals is "<0.01%", never a "0.00%" that reads as none.
func Pct(p float64) string {
	switch {
	case p == 0:
		return "0%"
	case p < 0.01:
		return "<0.01%"
	case p < 0.0995:
		return fmt.Sprintf("%.2f%%", p)
	case p < 9.95:
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// MS formats milliseconds.
func MS(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + " ms"
	}
	return fmt.Sprintf("%.0f ms", v)
}

// ExactMS formats a duration in milliseconds that the user gave (a budget), as given:
// "75.5 ms", where MS would round it to "76 ms".
func ExactMS(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + " ms" }

// Seconds formats seconds.
func Seconds(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + " s"
	}
	return fmt.Sprintf("%.0f s", v)
}
