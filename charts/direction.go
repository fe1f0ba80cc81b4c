package charts

import (
	"fmt"

	"github.com/wcharczuk/go-chart/v2/drawing"

	"github.com/callpcap/callpcap/report"
)

// Missing names a chart the issue asks for that the report model cannot draw: it has no
// per-second RTT (ICE, TCP and RTCP round trips are summarised as quantiles only), so there
// is no RTT chart; the renderers say so beside the figures.
const Missing = "RTT over time is not charted: the report keeps round-trip times as quantiles, not per second."

// ForDirection returns the charts of one call direction that it has data for, in the
// order bitrate, loss, delay. budgetMS is the late budget, used when the direction has none
// of its own.
func ForDirection(d *report.Direction, budgetMS float64) []Chart {
	s := &d.Series
	step := s.StepS
	if step <= 0 {
		step = 1
	}
	n := max(len(s.MediaKbps), len(s.WireKbps), len(s.Lost), len(s.Late), len(s.RetransmittedKbps),
		len(s.DelayP50MS), len(s.DelayMaxMS))
	if n == 0 {
		return nil
	}
	xEnd, xTicks := timeTicks(float64(n) * step)
	base := Chart{Direction: d.ID, xName: "seconds since this direction's first media packet", xEnd: xEnd, xTicks: xTicks}
	var out []Chart
	if len(s.MediaKbps) > 0 || len(s.WireKbps) > 0 {
		out = append(out, bitrate(base, d, step))
	}
	if len(s.Lost) > 0 || len(s.RetransmittedKbps) > 0 {
		out = append(out, loss(base, d, step))
	}
	if hasValue(s.DelayP50MS) || hasValue(s.DelayMaxMS) {
		out = append(out, delay(base, d, step, budgetMS))
	}
	return out
}

func bitrate(c Chart, d *report.Direction, step float64) Chart {
	s := &d.Series
	c.Kind, c.Title = KindBitrate, "Bitrate: media (RTP payload) and on the wire; the gap between them is the overhead"
	top := max(maxOf(s.MediaKbps), maxOf(s.WireKbps))
	unit, div := "kbit/s", 1.0
	if top >= 1000 {
		unit, div = "Mbit/s", 1000
	}
	c.y.top = niceMax(top / div)
	c.y.name, c.y.ticks = "bitrate ("+unit+")", ticks(c.y.top, 5, number)
	if len(s.WireKbps) > 0 {
		xs, ys := steps(scaled(s.WireKbps, div), step)
		c.lines = append(c.lines, line{name: "wire", xs: xs, ys: ys, color: colorOrange})
	}
	if len(s.MediaKbps) > 0 {
		xs, ys := steps(scaled(s.MediaKbps, div), step)
		c.lines = append(c.lines, line{name: "media", xs: xs, ys: ys, color: colorBlue})
	}
	if r := d.Ramp; r != nil {
		for _, m := range []struct {
			name string
			t    *float64
		}{{"t50", r.T50S}, {"t90", r.T90S}} {
			if m.t != nil {
				c.lines = append(c.lines, line{name: fmt.Sprintf("%s %g s", m.name, *m.t),
					xs: []float64{*m.t, *m.t}, ys: []float64{0, c.y.top}, color: colorGrey, dashed: true})
			}
		}
	}
	return c
}

func loss(c Chart, d *report.Direction, step float64) Chart {
	s := &d.Series
	c.Kind, c.Title = KindLoss, "Loss: RTP packets lost and TCP bytes retransmitted, per second"
	lost := ints(s.Lost)
	c.y.top = niceMax(maxOf(lost))
	c.y.name, c.y.ticks = "RTP packets lost per second", ticks(c.y.top, 5, number)
	xs, ys := steps(lost, step)
	c.lines = append(c.lines, line{name: "RTP lost", xs: xs, ys: ys, color: colorRed})
	if len(s.RetransmittedKbps) > 0 && (d.Transport.OverTCP() || maxOf(s.RetransmittedKbps) > 0) {
		c.y2.top = niceMax(maxOf(s.RetransmittedKbps))
		c.y2.name, c.y2.ticks = "TCP retransmitted (kbit/s)", ticks(c.y2.top, 5, number)
		xs, ys := steps(s.RetransmittedKbps, step)
		c.lines = append(c.lines, line{name: "TCP retransmitted", xs: xs, ys: ys, color: colorPurple, secondary: true})
	}
	return c
}

func delay(c Chart, d *report.Direction, step, budgetMS float64) Chart {
	s := &d.Series
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
	c.y.top = niceMax(top)
	c.y.name, c.y.ticks = "delay (ms)", ticks(c.y.top, 5, number)
	for _, ser := range []struct {
		name   string
		values []*float64
		color  drawing.Color
	}{{"max", s.DelayMaxMS, colorOrange}, {"p50", s.DelayP50MS, colorBlue}} {
		for i, p := range pieces(ser.values, step) {
			name := ser.name
			if i > 0 {
				name = ""
			}
			c.lines = append(c.lines, line{name: name, xs: p[0], ys: p[1], color: ser.color, dots: true})
		}
	}
	if !atSender && budgetMS > 0 {
		c.lines = append(c.lines, line{name: fmt.Sprintf("late budget %g ms", budgetMS),
			xs: []float64{0, c.xEnd}, ys: []float64{budgetMS, budgetMS}, color: colorRed, dashed: true})
	}
	if len(s.Late) > 0 && !atSender {
		late := ints(s.Late)
		c.y2.top = niceMax(maxOf(late))
		c.y2.name, c.y2.ticks = "late packets per second", ticks(c.y2.top, 5, number)
		xs, ys := steps(late, step)
		c.lines = append(c.lines, line{name: "late packets", xs: xs, ys: ys, color: colorGreen, secondary: true})
	}
	return c
}

func hasValue(values []*float64) bool {
	for _, v := range values {
		if v != nil {
			return true
		}
	}
	return false
}
