package charts

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/callpcap/callpcap/report"
)

// yTickRE matches a tick mark of the Y axis (a horizontal stroke) and its label.
var yTickRE = regexp.MustCompile(`<path\s*d="M [\d.]+ ([\d.]+)\s*L [\d.]+ ([\d.]+)" style="[^"]*"/><text [^>]*>([\d.]+)</text>`)

// lineRE matches a series line of a colour (width 2: the line, not its dots).
func lineRE(rgb string) *regexp.Regexp {
	return regexp.MustCompile(`<path\s*d="([^"]*)" style="stroke-width:2;stroke:rgba\(` + rgb + `,1.0\)`)
}

// TestRTTChart: TCP round trips of 80 ms in seconds 0-9 but 4 (a hole), ICE ones of 105 ms
// in seconds 0-1, no RTCP: an RTT chart on an axis to 120 ms, the TCP line in two pieces
// level with the 80 ms tick, the ICE line a quarter of the way from the 100 to the 120 tick.
func TestRTTChart(t *testing.T) {
	d := stepDirection()
	tcp := make([]*float64, 10)
	for i := range tcp {
		if i != 4 {
			tcp[i] = f64(80)
		}
	}
	d.Series.RTTMS = report.RTTSeries{ICE: []*float64{f64(105), f64(105)}, TCP: tcp, RTCP: []*float64{}}
	cs := ForDirection(d, 150)
	if len(cs) != 2 || cs[1].Kind != KindRTT {
		t.Fatalf("charts %v, want bitrate and RTT", cs)
	}
	if Note(cs) != "" || Note(cs[:1]) != Missing || Note(nil) != "" {
		t.Errorf("notes %q, %q, %q; want none with the RTT chart, Missing without, none without charts",
			Note(cs), Note(cs[:1]), Note(nil))
	}
	c := cs[1]
	if c.y.top != 120 || c.y.name != "round-trip time (ms)" {
		t.Errorf("y axis %q to %v, want round-trip time (ms) to 120", c.y.name, c.y.top)
	}
	var names []string
	for _, l := range c.lines {
		names = append(names, l.name)
	}
	if got := strings.Join(names, ","); got != "ICE,TCP," {
		t.Errorf("lines %q, want ICE, TCP and TCP's second piece unnamed", got)
	}
	var b bytes.Buffer
	if err := c.SVG(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	tickY := map[string]float64{}
	for _, m := range yTickRE.FindAllStringSubmatch(svg, -1) {
		if m[1] == m[2] {
			tickY[m[3]], _ = strconv.ParseFloat(m[1], 64)
		}
	}
	y80, y100, y120 := tickY["80"], tickY["100"], tickY["120"]
	if y80 == 0 || y100 == 0 || y120 == 0 {
		t.Fatalf("Y ticks %v, want 80, 100 and 120", tickY)
	}
	for _, tc := range []struct {
		name, rgb string
		pieces    int
		y         float64
	}{{"TCP", "148,103,189", 2, y80}, {"ICE", "31,119,180", 1, y100 + (y120-y100)/4}} {
		// The series' pieces, not the legend's swatch (a stroke of two points).
		var lines [][][2]float64
		for _, m := range lineRE(tc.rgb).FindAllStringSubmatch(svg, -1) {
			if pts := corners(t, m[1]); len(pts) > 2 {
				lines = append(lines, pts)
			}
		}
		if len(lines) != tc.pieces {
			t.Errorf("%s: %d lines, want %d", tc.name, len(lines), tc.pieces)
			continue
		}
		for _, pts := range lines {
			for _, p := range pts {
				if math.Abs(p[1]-tc.y) > 1 {
					t.Errorf("%s drawn at y %v, want %.1f", tc.name, p[1], tc.y)
					break
				}
			}
		}
	}
	for _, want := range []string{">ICE<", ">TCP<", "round-trip time (ms)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(svg, ">RTCP<") {
		t.Error("legend names RTCP, which has no sample")
	}
}

// TestNoRTTChartWithoutSamples: series of nulls draw no RTT chart.
func TestNoRTTChartWithoutSamples(t *testing.T) {
	d := stepDirection()
	d.Series.RTTMS = report.RTTSeries{TCP: []*float64{nil, nil}}
	for _, c := range ForDirection(d, 150) {
		if c.Kind == KindRTT {
			t.Error("an RTT chart without a sample")
		}
	}
}
