package charts

import (
	"bytes"
	"image/png"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wcharczuk/go-chart/v2"

	"github.com/callpcap/callpcap/report"
)

func f64(v float64) *float64 { return &v }

func ptr[T any](v T) *T { return &v }

// stepDirection is a direction whose media bitrate steps from 1 to 2 Mbps at 10 s.
func stepDirection() *report.Direction {
	media := make([]float64, 20)
	for i := range media {
		media[i] = 1000
		if i >= 10 {
			media[i] = 2000
		}
	}
	return &report.Direction{ID: "d1", Transport: report.TransportUDP, GoodputKbps: f64(1500),
		Ramp:   &report.Ramp{T50S: f64(0), T90S: f64(10)},
		Series: report.Series{StepS: 1, MediaKbps: media}}
}

var pathRE = regexp.MustCompile(`<path\s*d="([^"]*)" style="stroke-width:2;stroke:rgba\(31,119,180,1.0\)`)

// corners reads the points of an SVG path "M x y L x y ...".
func corners(t *testing.T, d string) [][2]float64 {
	t.Helper()
	var pts [][2]float64
	f := strings.Fields(strings.NewReplacer("M", " ", "L", " ", ",", " ").Replace(d))
	for i := 0; i+1 < len(f); i += 2 {
		x, err1 := strconv.ParseFloat(f[i], 64)
		y, err2 := strconv.ParseFloat(f[i+1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("path %q: not numbers", d)
		}
		pts = append(pts, [2]float64{x, y})
	}
	return pts
}

// TestStepAtTenSeconds: the media line's only vertical edge is at x = 10 s, half way along an
// axis from 0 to 20 s, and its level doubles there.
func TestStepAtTenSeconds(t *testing.T) {
	cs := ForDirection(stepDirection(), 150)
	if len(cs) != 1 || cs[0].Kind != KindBitrate {
		t.Fatalf("charts %v, want one bitrate chart", cs)
	}
	var b bytes.Buffer
	if err := cs[0].SVG(&b); err != nil {
		t.Fatal(err)
	}
	m := pathRE.FindStringSubmatch(b.String())
	if m == nil {
		t.Fatalf("no media line in the SVG:\n%s", b.String())
	}
	pts := corners(t, m[1])
	if len(pts) != 40 {
		t.Fatalf("%d corners, want 40 (two per second)", len(pts))
	}
	x0, x20 := pts[0][0], pts[len(pts)-1][0]
	var edges []float64
	for i := 1; i < len(pts); i++ {
		if pts[i][1] != pts[i-1][1] {
			edges = append(edges, pts[i][0])
			if pts[i][0] != pts[i-1][0] {
				t.Errorf("edge from %v to %v is not vertical", pts[i-1], pts[i])
			}
		}
	}
	want := x0 + (x20-x0)*10/20
	if len(edges) != 1 || math.Abs(edges[0]-want) > 1 {
		t.Fatalf("vertical edges at x %v, want one at %.1f (10 s of 0..20 s from x %v to %v)", edges, want, x0, x20)
	}
	// The y axis runs 0..2 Mbit/s: the line at 1 is half way up from where 2 is drawn.
	bottom := pts[0][1] + (pts[0][1] - pts[len(pts)-1][1]) // y of 0 = y(1) + (y(1) − y(2))
	if y1, y2 := pts[0][1], pts[len(pts)-1][1]; math.Abs((bottom-y1)*2-(bottom-y2)) > 1 {
		t.Errorf("levels at y %v and %v are not 1 and 2 on a 0-based axis", y1, y2)
	}
	for _, want := range []string{"bitrate (Mbit/s)", "seconds since this direction", ">t90 = 10 s<", ">media<"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// TestSVGDeterministicAndSelfContained: drawing twice gives the same bytes, with nothing
// fetched from anywhere.
func TestSVGDeterministicAndSelfContained(t *testing.T) {
	d := stepDirection()
	d.Transport = report.TransportTURNTCP
	d.Series.Lost = make([]int64, 20)
	d.Series.Lost[3] = 7
	d.Series.RetransmittedKbps = make([]float64, 20)
	d.Series.DelayP50MS = []*float64{f64(3), nil, f64(5), f64(40)}
	d.Series.DelayMaxMS = []*float64{f64(9), nil, f64(30), f64(400)}
	zero, twelve := int64(0), int64(12)
	d.Series.Late = []*int64{&zero, nil, &zero, &twelve}
	cs := ForDirection(d, 150)
	if len(cs) != 3 {
		t.Fatalf("%d charts, want bitrate, loss and delay", len(cs))
	}
	for _, c := range cs {
		var a, b bytes.Buffer
		if err := c.SVG(&a); err != nil {
			t.Fatal(err)
		}
		if err := c.SVG(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two drawings differ", c.Kind)
		}
		s := a.String()
		for _, bad := range []string{"<script", "href", "http://www.w3.org/1999/xlink", "url(", "@import", "NaN"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s: SVG contains %q", c.Kind, bad)
			}
		}
		var p bytes.Buffer
		if err := c.PNG(&p); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&p)
		if err != nil {
			t.Fatalf("%s: PNG: %v", c.Kind, err)
		}
		if b := img.Bounds(); b.Dx() != Width || b.Dy() != Height {
			t.Errorf("%s: PNG is %v, want %dx%d", c.Kind, b, Width, Height)
		}
	}
	var delay bytes.Buffer
	if err := cs[2].SVG(&delay); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">late budget 150 ms<", ">late packets<", "delay (ms)", "late packets per second"} {
		if !strings.Contains(delay.String(), want) {
			t.Errorf("delay chart lacks %q", want)
		}
	}
}

// TestSVGEscapesText: go-chart writes text into the SVG as given; a chart's text is escaped.
func TestSVGEscapesText(t *testing.T) {
	c := ForDirection(stepDirection(), 150)[0]
	c.xName = `</svg><script>alert(1)</script>`
	c.lines[0].name = `<img src=x onerror=alert(1)>`
	var b bytes.Buffer
	if err := c.SVG(&b); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "<script") || strings.Contains(s, "<img") ||
		!strings.Contains(s, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("text not escaped:\n%s", s)
	}
}

func TestNiceMax(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{{0, 1}, {0.7, 0.8}, {1.06, 1.2}, {2, 2}, {2.1, 2.5}, {3, 3}, {420, 500}, {2400, 2500}, {9000, 10000}} {
		if got := niceMax(tc.in); got != tc.want {
			t.Errorf("niceMax(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestPiecesLeaveHoles(t *testing.T) {
	p := pieces([]*float64{f64(1), nil, f64(2), f64(3)}, 1)
	if len(p) != 2 || len(p[0][0]) != 2 || p[1][0][0] != 2 || p[1][0][3] != 4 || p[1][1][2] != 3 {
		t.Errorf("pieces = %v", p)
	}
}

// callDirection is the shape of turn-tcp-call's directions: media from 0.34 s to 20.62 s of
// the capture, 3,000 packets, 21 series seconds of which the last holds 0.28 s of media.
func callDirection() *report.Direction {
	media := make([]float64, 21)
	late := make([]*int64, 21)
	for i := range media {
		media[i], late[i] = 912, ptr(int64(23))
	}
	media[20], late[0], late[20] = 18.24, ptr(int64(0)), ptr(int64(3))
	return &report.Direction{ID: "d1", Transport: report.TransportTURNTCP, MediaPackets: 3000,
		FirstS: 0.34, LastS: 20.62, ActiveS: 20.28, GoodputKbps: f64(899),
		Ramp: &report.Ramp{T50S: f64(0), T90S: f64(0)},
		Series: report.Series{T0S: 0.34, StepS: 1, MediaKbps: media, Late: late,
			DelayP50MS: []*float64{f64(0), f64(0)}, DelayMaxMS: []*float64{f64(300), f64(300)}}}
}

// TestPartialLastSecondLeftOut: the last second, 0.28 s of media, is not drawn as a rate
// (no cliff to 18 kbit/s at the end); a last second whose media ran to within one packet
// interval (20.28 s / 2,999 = 6.8 ms) of its end is. Its counts are drawn either way.
func TestPartialLastSecondLeftOut(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lastS   float64
		seconds int
	}{{"partial", 20.62, 20}, {"whole", 21.335, 21}, {"unknown times", 0, 21}} {
		t.Run(tc.name, func(t *testing.T) {
			d := callDirection()
			d.LastS = tc.lastS
			c := ForDirection(d, 150)[0]
			xs := c.lines[0].xs
			if len(xs) != 2*tc.seconds || xs[len(xs)-1] != float64(tc.seconds) || c.xEnd < xs[len(xs)-1] {
				t.Errorf("%d corners to %v s on an axis to %v s; want %d to %d s", len(xs), xs[len(xs)-1], c.xEnd, 2*tc.seconds, tc.seconds)
			}
			// Counts are no rates: the 3 packets late in the last second are drawn, whole
			// or partial (they were not).
			for _, c := range ForDirection(d, 150) {
				for _, l := range c.lines {
					if l.name == "late packets" && (l.xs[len(l.xs)-1] != 21 || l.ys[len(l.ys)-1] != 3) {
						t.Errorf("late packets end at %v s with %v, want 21 s with 3", l.xs[len(l.xs)-1], l.ys[len(l.ys)-1])
					}
				}
			}
		})
	}
}

// TestRampMarkers: t50 and t90 at the same second are one marker; at 0 s, on the Y axis,
// none, and the title says so.
func TestRampMarkers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		t50, t90  float64
		markers   []string
		titleTail string
	}{
		{"both 0", 0, 0, nil, "; t50 = t90 = 0 s (on the axis, not marked)"},
		{"same", 3, 3, []string{"t50 = t90 = 3 s"}, "overhead"},
		{"t50 0", 0, 4, []string{"t90 = 4 s"}, "; t50 = 0 s (on the axis, not marked)"},
		{"apart", 2, 5, []string{"t50 = 2 s", "t90 = 5 s"}, "overhead"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := callDirection()
			d.Ramp = &report.Ramp{T50S: f64(tc.t50), T90S: f64(tc.t90)}
			c := ForDirection(d, 150)[0]
			var got []string
			for _, l := range c.lines {
				if l.color == colorGrey {
					got = append(got, l.name)
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.markers, "|") || !strings.HasSuffix(c.Title, tc.titleTail) {
				t.Errorf("markers %q, title %q; want %q, title ending %q", got, c.Title, tc.markers, tc.titleTail)
			}
		})
	}
}

// TestSecondaryAxisHoldsItsMax: 23 late packets a second on an axis to 25, ticked every 5,
// while the delay axis runs to 400 ms (300 ms max, with headroom) (the late budget, 150 ms, is on it): every line drawn
// stays inside the plot.
func TestSecondaryAxisHoldsItsMax(t *testing.T) {
	c := ForDirection(callDirection(), 150)[1]
	if c.Kind != KindDelay || c.y.top != 400 || c.y2.top != 25 {
		t.Fatalf("%s chart, axes to %v and %v; want delay, 400 and 25", c.Kind, c.y.top, c.y2.top)
	}
	ch := c.build(func(s string) string { return s })
	var labels []string
	for _, tk := range ch.YAxisSecondary.Ticks {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "0 5 10 15 20 25" {
		t.Errorf("late axis ticks %q", got)
	}
	for _, s := range ch.Series {
		cs := s.(interface{ GetName() string })
		vs := s.(interface {
			Len() int
			GetValues(int) (float64, float64)
		})
		top := 0.0
		for i := range vs.Len() {
			_, y := vs.GetValues(i)
			if y < 0 || y > c.y.top {
				t.Errorf("%s: value %v outside 0..%v", cs.GetName(), y, c.y.top)
			}
			top = max(top, y)
		}
		// Drawn in the delay axis' units: 23 of 25 is 368 of 400, at 92% of the height.
		if cs.GetName() == "late packets" && math.Abs(top-368) > 1e-9 {
			t.Errorf("late packets drawn up to %v on the 0..400 range, want 368", top)
		}
	}
	for _, l := range c.lines {
		if strings.HasPrefix(l.name, "late budget") && (l.secondary || l.ys[0] != 150) {
			t.Errorf("late budget line %+v, want at 150 on the delay axis", l)
		}
	}
}

// TestRampsOverlay: two captures' first directions, whose media starts 2 s and 7.5 s into
// their captures, are drawn from 0 s each, named by their labels; the first leaves out its
// partial last second (media to 5.4 s of a series to 6 s), the second has unknown times.
func TestRampsOverlay(t *testing.T) {
	a := &report.Direction{MediaPackets: 200, ActiveS: 3.4, LastS: 5.4,
		Series: report.Series{T0S: 2, StepS: 1, MediaKbps: []float64{500, 1000, 1000, 1000}}}
	b := &report.Direction{Series: report.Series{T0S: 7.5, StepS: 1, MediaKbps: []float64{300, 900, 900}}}
	c, ok := Ramps([]string{"rtt50", "rtt100"}, []*report.Direction{a, b})
	if !ok || c.Kind != KindRamps || len(c.lines) != 2 {
		t.Fatalf("ok %v, kind %s, %d lines; want a ramps chart of 2", ok, c.Kind, len(c.lines))
	}
	for i, want := range []struct {
		name    string
		seconds int
	}{{"rtt50", 3}, {"rtt100", 3}} {
		l := c.lines[i]
		if l.name != want.name || l.xs[0] != 0 || len(l.xs) != 2*want.seconds || l.xs[len(l.xs)-1] != float64(want.seconds) {
			t.Errorf("line %d: %s from %v s to %v s (%d corners); want %s from 0 to %d s", i, l.name, l.xs[0], l.xs[len(l.xs)-1], len(l.xs), want.name, want.seconds)
		}
	}
	if c.y.top != 1.2 || c.y.name != "media bitrate (Mbit/s)" {
		t.Errorf("y axis %q to %v, want media bitrate (Mbit/s) to 1.2 (1 with headroom)", c.y.name, c.y.top)
	}
	if _, ok := Ramps([]string{"A"}, []*report.Direction{nil}); ok {
		t.Error("a chart without any media series")
	}
}

// TestNoBitrateChartWithoutARate: a direction whose packets span too little time for a rate
// (goodput null, "n/a" in the reports) has no bitrate chart of the one second its series
// holds; its other charts stay.
func TestNoBitrateChartWithoutARate(t *testing.T) {
	d := callDirection()
	d.GoodputKbps = nil
	for _, c := range ForDirection(d, 150) {
		if c.Kind == KindBitrate {
			t.Errorf("a bitrate chart for a direction without a rate")
		}
	}
	if n := len(ForDirection(d, 150)); n == 0 {
		t.Error("no chart at all: the delay chart is gone too")
	}
}

// TestLeftAxisNameClearOfItsTicks: the delay chart's left axis (late packets) is named
// once, rotated a quarter turn, with its glyphs (12 px over the baseline at 10 points) and a margin
// left of its widest tick label ("25"). go-chart drew it a margin from the labels, and the
// rotated glyphs reached over them (h154).
func TestLeftAxisNameClearOfItsTicks(t *testing.T) {
	c := ForDirection(callDirection(), 150)[1]
	var b bytes.Buffer
	if err := c.SVG(&b); err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`<text x="(\d+)" y="(\d+)"[^>]*?( transform="rotate[^"]*")?>([^<]*)</text>`)
	nameX, labelX := -1, 1<<30
	for _, m := range text.FindAllStringSubmatch(b.String(), -1) {
		x, _ := strconv.Atoi(m[1])
		switch {
		case m[4] == "late packets per second" && m[3] != "":
			if nameX >= 0 {
				t.Errorf("the left axis is named twice")
			}
			nameX = x
		case x < Width/2 && m[3] == "" && slices.Contains([]string{"0", "5", "10", "15", "20", "25"}, m[4]):
			y, _ := strconv.Atoi(m[2])
			if y < Height-30 { // not the time axis' labels
				labelX = min(labelX, x)
			}
		}
	}
	if nameX < 0 || labelX == 1<<30 || nameX+12+chart.DefaultYAxisMargin > labelX {
		t.Errorf("left axis name at x %d, its tick labels from x %d: want 12 px and a margin between", nameX, labelX)
	}
}

// TestRampTargetLine: the bitrate chart draws what t50 and t90 are of, dashed across the
// plot: the plateau (2 Mbps), or --ramp-target above every second (2.5 Mbps, which raises
// the axis to hold it). Before, with the option, the markers had no reference (h154).
func TestRampTargetLine(t *testing.T) {
	for _, tc := range []struct {
		target float64
		source report.RampTarget
		name   string
		y, top float64
	}{
		{2000, report.TargetFromPlateau, "target 2 Mbit/s (plateau)", 2, 2.5},
		{2500, report.TargetFromOption, "target 2.5 Mbit/s (--ramp-target)", 2.5, 3},
	} {
		d := stepDirection()
		d.Ramp.TargetKbps, d.Ramp.TargetSource = tc.target, tc.source
		c := ForDirection(d, 150)[0]
		i := slices.IndexFunc(c.lines, func(l line) bool { return strings.HasPrefix(l.name, "target") })
		if c.Kind != KindBitrate || i < 0 {
			t.Fatalf("%s chart, lines %+v; want a bitrate chart with a target line", c.Kind, c.lines)
		}
		l := c.lines[i]
		if l.name != tc.name || !l.dashed || l.ys[0] != tc.y || l.ys[1] != tc.y || l.xs[0] != 0 || l.xs[1] != c.xEnd || c.y.top < tc.top {
			t.Errorf("target line %+v, axis to %v; want %q at %v across, axis to %v or more", l, c.y.top, tc.name, tc.y, tc.top)
		}
	}
}
