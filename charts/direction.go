package charts

import (
	"fmt"
	"slices"

	"github.com/wcharczuk/go-chart/v2/drawing"

	"github.com/callpcap/callpcap/report"
)

// Missing is the note for directions without an RTT chart: none of the three sources
// measured a round trip in their seconds. The renderers print it beside the charts; Note
// says whether a direction's charts need it.
const Missing = "A direction without an RTT chart had no round trip measured in its time: no ICE check sent from the capture's side, no TCP leg captured at its sender, no RTCP receiver report naming a sender report."

// Note returns Missing when a direction's charts (ForDirection's) lack the RTT chart, and ""
// when it has one or has no charts at all.
func Note(cs []Chart) string {
	if len(cs) == 0 {
		return ""
	}
	for _, c := range cs {
		if c.Kind == KindRTT {
			return ""
		}
	}
	return Missing
}

// ForDirection returns the charts of one call direction that it has data for, in the
// order bitrate, loss, delay, RTT. budgetMS is the late budget, used when the direction has none
// of its own.
func ForDirection(d *report.Direction, budgetMS float64) []Chart {
	step := d.Series.StepS
	if step <= 0 {
		step = 1
	}
	s := trimmed(&d.Series, wholeSeconds(d, step))
	n := seriesLen(&s)
	if n == 0 {
		return nil
	}
	xEnd, xTicks := timeTicks(float64(n) * step)
	base := Chart{Direction: d.ID, xName: "seconds since this direction's first media packet", xEnd: xEnd, xTicks: xTicks}
	var out []Chart
	if (len(s.MediaKbps) > 0 || len(s.WireKbps) > 0) && d.GoodputKbps != nil {
		// A direction whose packets span too little time has no rate (goodput null, "n/a"):
		// no bitrate chart of its one second either.
		out = append(out, bitrate(base, d, &s, step))
	}
	if len(s.Lost) > 0 || len(s.RetransmittedKbps) > 0 {
		out = append(out, loss(base, d, &s, step))
	}
	if hasValue(s.DelayP50MS) || hasValue(s.DelayMaxMS) {
		out = append(out, delay(base, d, &s, step, budgetMS))
	}
	if r := &s.RTTMS; hasValue(r.ICE) || hasValue(r.TCP) || hasValue(r.RTCP) {
		out = append(out, rtt(base, &s, step))
	}
	return out
}

func seriesLen(s *report.Series) int {
	return max(len(s.MediaKbps), len(s.WireKbps), len(s.Lost), len(s.Late), len(s.RetransmittedKbps),
		len(s.DelayP50MS), len(s.DelayMaxMS), len(s.RTTMS.ICE), len(s.RTTMS.TCP), len(s.RTTMS.RTCP))
}

// wholeSeconds is how many seconds of d's rate series to draw: all but the last when the
// last is partial. The series runs to the second that holds the direction's last packet,
// so its last second usually ends before the call did, and its bytes over a whole second
// would draw a cliff at the end of every call (the text report's sparkline leaves it out
// too). It is left out rather than scaled by the part the media covered: a small part
// would scale to a spike. The last second [T0S+(n−1)·step, T0S+n·step) counts as whole
// when the direction's last media packet (LastS) came within one mean packet interval
// (ActiveS over the gaps between MediaPackets) of its end, as the next packet would then
// have fallen past it. A series whose times are unknown (LastS not after T0S: a report
// built by hand) is drawn whole.
func wholeSeconds(d *report.Direction, step float64) int {
	n := seriesLen(&d.Series)
	if n < 2 || !(d.LastS > d.Series.T0S) {
		return n
	}
	gap := step
	if d.MediaPackets > 1 && d.ActiveS > 0 {
		gap = d.ActiveS / float64(d.MediaPackets-1)
	}
	if d.Series.T0S+float64(n)*step-d.LastS > gap {
		return n - 1
	}
	return n
}

// trimmed is s with its rates cut to their first n seconds. The counts (lost, late) and
// the delays and round trips of a partial last second are what they are, not a share of a
// second: a tester's call lost 30 packets in its last second, which the loss chart drew
// flat.
func trimmed(s *report.Series, n int) report.Series {
	t := *s
	t.MediaKbps = t.MediaKbps[:min(n, len(t.MediaKbps))]
	t.WireKbps = t.WireKbps[:min(n, len(t.WireKbps))]
	t.RTXKbps = t.RTXKbps[:min(n, len(t.RTXKbps))]
	t.RetransmittedKbps = t.RetransmittedKbps[:min(n, len(t.RetransmittedKbps))]
	return t
}

func bitrate(c Chart, d *report.Direction, s *report.Series, step float64) Chart {
	c.Kind, c.Title = KindBitrate, "Bitrate: media (RTP payload) and on the wire; the gap between them is the overhead"
	top := max(maxOf(s.MediaKbps), maxOf(s.WireKbps))
	if r := d.Ramp; r != nil {
		top = max(top, r.TargetKbps)
	}
	unit, div := "kbit/s", 1.0
	if top >= 1000 {
		unit, div = "Mbit/s", 1000
	}
	c.y.top = dataTop(top / div)
	c.y.name, c.y.ticks = "bitrate ("+unit+")", axisTicks(c.y.top)
	if len(s.WireKbps) > 0 {
		xs, ys := steps(scaled(s.WireKbps, div), step)
		c.lines = append(c.lines, line{name: "wire", xs: xs, ys: ys, color: colorOrange})
	}
	if len(s.MediaKbps) > 0 {
		xs, ys := steps(scaled(s.MediaKbps, div), step)
		c.lines = append(c.lines, line{name: "media", xs: xs, ys: ys, color: colorBlue})
	}
	if r := d.Ramp; r != nil {
		if r.TargetKbps > 0 {
			// What t50 and t90 are of: the plateau, or --ramp-target (h154: with the
			// option, the markers had no reference on the chart).
			from := "plateau"
			if r.TargetSource == report.TargetFromOption {
				from = "--ramp-target"
			}
			y := r.TargetKbps / div
			c.lines = append(c.lines, line{name: fmt.Sprintf("target %.3g %s (%s)", y, unit, from),
				xs: []float64{0, c.xEnd}, ys: []float64{y, y}, color: colorGreen, dashed: true})
		}
		c.lines, c.Title = rampMarkers(c.lines, c.Title, r, c.y.top)
	}
	return c
}

func loss(c Chart, d *report.Direction, s *report.Series, step float64) Chart {
	c.Kind, c.Title = KindLoss, "Loss: RTP packets lost per second"
	lost := ints(s.Lost)
	c.y.top = countTop(maxOf(lost))
	c.y.name, c.y.ticks = "RTP packets lost per second", axisTicks(c.y.top)
	xs, ys := steps(lost, step)
	c.lines = append(c.lines, line{name: "RTP lost", xs: xs, ys: ys, color: colorRed})
	if len(s.RetransmittedKbps) > 0 && (d.Transport.OverTCP() || maxOf(s.RetransmittedKbps) > 0) {
		c.y2.top = dataTop(maxOf(s.RetransmittedKbps))
		c.Title = "Loss: RTP packets lost and TCP bytes retransmitted, per second"
		c.y2.name, c.y2.ticks = "TCP retransmitted (kbit/s)", axisTicks(c.y2.top)
		xs, ys := steps(s.RetransmittedKbps, step)
		c.lines = append(c.lines, line{name: "TCP retransmitted", xs: xs, ys: ys, color: colorPurple, secondary: true})
	}
	return c
}

func delay(c Chart, d *report.Direction, s *report.Series, step, budgetMS float64) Chart {
	atSender := d.DelayMS != nil && d.DelayMS.Vantage == "sender"
	c.Kind, c.Title = KindDelay, "Delay above the stream's baseline per second, the late budget, and late packets"
	if atSender {
		c.Title = "Queueing at the sender per second (captured there: no packet counts late)"
	}
	if d.Late != nil {
		budgetMS = d.Late.BudgetMS
	}
	top := 0.0
	for _, v := range append(append([]*float64{}, s.DelayP50MS...), s.DelayMaxMS...) {
		if v != nil {
			top = max(top, *v)
		}
	}
	if !atSender && budgetMS > 0 {
		top = max(top, budgetMS)
	}
	c.y.top = dataTop(top)
	c.y.name, c.y.ticks = "delay (ms)", axisTicks(c.y.top)
	for _, ser := range []struct {
		name   string
		values []*float64
		color  drawing.Color
	}{{"max", s.DelayMaxMS, colorOrange}, {"p50", s.DelayP50MS, colorBlue}} {
		c.lines = brokenLine(c.lines, ser.name, ser.values, ser.color, step)
	}
	if !atSender && budgetMS > 0 {
		c.lines = append(c.lines, line{name: fmt.Sprintf("late budget %g ms", budgetMS),
			xs: []float64{0, c.xEnd}, ys: []float64{budgetMS, budgetMS}, color: colorRed, dashed: true})
	}
	if len(s.Late) > 0 && !atSender {
		late := counts(s.Late)
		c.y2.top = countTop(maxOf(late))
		c.y2.name, c.y2.ticks = "late packets per second", axisTicks(c.y2.top)
		xs, ys := steps(late, step)
		c.lines = append(c.lines, line{name: "late packets", xs: xs, ys: ys, color: colorGreen, secondary: true})
	}
	return c
}

// rtt draws the round-trip time of each source per second (the median of its samples),
// each a broken line with its points: a second without a sample is a hole, not zero.
func rtt(c Chart, s *report.Series, step float64) Chart {
	c.Kind, c.Title = KindRTT, "Round-trip time per second (median of each source's samples)"
	r := &s.RTTMS
	top := 0.0
	for _, v := range slices.Concat(r.ICE, r.TCP, r.RTCP) {
		if v != nil {
			top = max(top, *v)
		}
	}
	c.y.top = dataTop(top)
	c.y.name, c.y.ticks = "round-trip time (ms)", axisTicks(c.y.top)
	for _, src := range []struct {
		name   string
		values []*float64
		color  drawing.Color
	}{{"ICE", r.ICE, colorBlue}, {"TCP", r.TCP, colorPurple}, {"RTCP", r.RTCP, colorGreen}} {
		c.lines = brokenLine(c.lines, src.name, src.values, src.color, step)
	}
	return c
}

// brokenLine adds a per-second series with points, one line per run of seconds that have
// a value (a second without one is a hole, not zero), the legend naming the first only.
func brokenLine(lines []line, name string, values []*float64, color drawing.Color, step float64) []line {
	for i, p := range pieces(values, step) {
		if i > 0 {
			name = ""
		}
		lines = append(lines, line{name: name, xs: p[0], ys: p[1], color: color, dots: true})
	}
	return lines
}

// rampMarkers adds t50 and t90 as vertical lines, one line named for both when they are
// the same second. A marker at 0 s would lie on the Y axis, hidden, with a legend entry
// pointing at nothing: it is not drawn, and the title says it instead.
func rampMarkers(lines []line, title string, r *report.Ramp, top float64) ([]line, string) {
	type marker struct {
		name string
		t    float64
	}
	var ms []marker
	switch {
	case r.T50S != nil && r.T90S != nil && *r.T50S == *r.T90S:
		ms = []marker{{"t50 = t90", *r.T50S}}
	default:
		if r.T50S != nil {
			ms = append(ms, marker{"t50", *r.T50S})
		}
		if r.T90S != nil {
			ms = append(ms, marker{"t90", *r.T90S})
		}
	}
	for _, m := range ms {
		if m.t <= 0 {
			title += fmt.Sprintf("; %s = 0 s (on the axis, not marked)", m.name)
			continue
		}
		lines = append(lines, line{name: fmt.Sprintf("%s = %g s", m.name, m.t), xs: []float64{m.t, m.t}, ys: []float64{0, top}, color: colorGrey, dashed: true})
	}
	return lines, title
}

func hasValue(values []*float64) bool {
	for _, v := range values {
		if v != nil {
			return true
		}
	}
	return false
}
