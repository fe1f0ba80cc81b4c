package charts

import (
	"github.com/wcharczuk/go-chart/v2/drawing"

	"github.com/callpcap/callpcap/report"
)

// KindRamps is the comparison's chart: several captures' media bitrate on one time axis.
const KindRamps Kind = "ramps"

// RampsID is the Direction of the Ramps chart, which belongs to no one direction.
const RampsID = "comparison"

// palette tells the captures of the Ramps chart apart (the category colours of the other
// charts, then more).
var palette = []drawing.Color{colorBlue, colorOrange, colorGreen, colorRed, colorPurple,
	drawing.ColorFromHex("8c564b"), drawing.ColorFromHex("e377c2"), colorGrey,
	drawing.ColorFromHex("bcbd22"), drawing.ColorFromHex("17becf")}

// Ramps overlays the media bitrate of several captures, one line each named by labels[i],
// on one time axis: seconds since each capture's first media packet, the origin of its
// direction's series (dirs[i], its busiest direction; nil draws no line). The
// ramps then start together, whatever each capture's own start. Each line leaves out its
// partial last second as the direction's own chart does. ok is false when no direction
// has a media series.
func Ramps(labels []string, dirs []*report.Direction) (c Chart, ok bool) {
	c = Chart{Kind: KindRamps, Direction: RampsID,
		Title: "Media bitrate of each capture's busiest direction, from its first media packet",
		xName: "seconds since each direction's first media packet"}
	var series [][]float64
	var steps_ []float64
	seconds, top := 0.0, 0.0
	for _, d := range dirs {
		var media []float64
		step := 1.0
		if d != nil {
			if d.Series.StepS > 0 {
				step = d.Series.StepS
			}
			media = trimmed(&d.Series, wholeSeconds(d, step)).MediaKbps
		}
		series, steps_ = append(series, media), append(steps_, step)
		seconds = max(seconds, float64(len(media))*step)
		top = max(top, maxOf(media))
		ok = ok || len(media) > 0
	}
	if !ok {
		return c, false
	}
	unit, div := "kbit/s", 1.0
	if top >= 1000 {
		unit, div = "Mbit/s", 1000
	}
	c.y.top = dataTop(top / div)
	c.y.name, c.y.ticks = "media bitrate ("+unit+")", axisTicks(c.y.top)
	c.xEnd, c.xTicks = timeTicks(seconds)
	for i, media := range series {
		if len(media) == 0 {
			continue
		}
		xs, ys := steps(scaled(media, div), steps_[i])
		c.lines = append(c.lines, line{name: labels[i], xs: xs, ys: ys, color: palette[i%len(palette)]})
	}
	return c, true
}
