package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// thousands formats n with comma separators: 120345 -> "120,345".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 && !(neg && b.Len() == 1) {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

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

// rate formats a bitrate given in kbit/s.
func rate(kbps float64) string {
	if kbps >= 1000 {
		return fmt.Sprintf("%.2f Mbps", kbps/1000)
	}
	return fmt.Sprintf("%.0f kbps", kbps)
}

// pct formats a percentage with the precision its size deserves.
func pct(p float64) string {
	switch {
	case p == 0:
		return "0%"
	case p < 0.1:
		return fmt.Sprintf("%.2f%%", p)
	case p < 10:
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// ms formats milliseconds.
func ms(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + " ms"
	}
	return fmt.Sprintf("%.0f ms", v)
}

// seconds formats seconds compactly.
func seconds(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + " s"
	}
	return fmt.Sprintf("%.0f s", v)
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
