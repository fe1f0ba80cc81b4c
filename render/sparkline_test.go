package render

import (
	"bytes"
	"strings"
	"testing"
)

// TestSparklinePartialLastSecond: the last second of a direction, cut short by the end of its
// media (here 0.28 s of it, at 2% of the rate), is no drop at the end of the sparkline,
// whether a mark stands for one second or several.
func TestSparklinePartialLastSecond(t *testing.T) {
	for _, tc := range []struct {
		name    string
		seconds int
		want    string
	}{
		{"1 s per mark", 20, "\n  " + strings.Repeat("█", 20) + "  media bitrate, 1 s per mark\n"},
		{"2 s per mark", 120, "\n  " + strings.Repeat("█", 60) + "  media bitrate, 2 s per mark\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := handMade()
			d := &r.Captures[0].Directions[0]
			media := make([]float64, tc.seconds+1)
			for i := range tc.seconds {
				media[i] = 912
			}
			media[tc.seconds] = 18.24
			d.Series.T0S, d.FirstS, d.LastS = 0.34, 0.34, 0.34+float64(tc.seconds)+0.28
			d.Series.MediaKbps = media
			var b bytes.Buffer
			if err := Text(&b, r); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("text lacks %q:\n%s", tc.want, b.String())
			}
		})
	}
}
