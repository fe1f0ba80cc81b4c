package charts

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"

	chart "github.com/wcharczuk/go-chart/v2"
	"github.com/wcharczuk/go-chart/v2/drawing"
)

// Kind names what a chart shows; it is part of the chart files' names.
type Kind string

const (
	KindBitrate Kind = "bitrate" // media and wire bitrate, t50 and t90 marked
	KindLoss    Kind = "loss"    // RTP packets lost, TCP bytes retransmitted
	KindDelay   Kind = "delay"   // delay above baseline (p50, max), the late budget, late packets
	KindRTT     Kind = "rtt"     // round-trip time per second: ICE, TCP, RTCP
)

// Size of a chart: the width of a ticket's column, where text stays readable unscaled.
const (
	Width  = 800
	Height = 300
)

// Chart is one chart of one call direction, ready to draw as SVG or PNG.
type Chart struct {
	Kind      Kind
	Direction string // the direction's ID
	Title     string // what the chart shows, in words of the report's own (no capture text)

	xName  string
	xEnd   float64
	xTicks []chart.Tick
	y, y2  yAxis // y2 is unused when it has no name
	lines  []line
}

type yAxis struct {
	name  string
	top   float64
	ticks []chart.Tick
}

// line is one series to draw: a step line, a marker or a threshold.
type line struct {
	name      string // "" leaves it out of the legend (a later piece of a broken line)
	xs, ys    []float64
	color     drawing.Color
	dashed    bool
	dots      bool // draws its points too: a piece of one second would be invisible otherwise
	secondary bool // on the secondary axis (go-chart draws it on the left)
}

var (
	colorBlue   = drawing.ColorFromHex("1f77b4")
	colorOrange = drawing.ColorFromHex("ff7f0e")
	colorRed    = drawing.ColorFromHex("d62728")
	colorPurple = drawing.ColorFromHex("9467bd")
	colorGrey   = drawing.ColorFromHex("7f7f7f")
	colorGreen  = drawing.ColorFromHex("2ca02c")
)

// SVG writes the chart as a standalone SVG document that refers to nothing outside itself;
// it scales to the width of its container (a viewBox, no fixed size).
func (c *Chart) SVG(w io.Writer) error {
	var b bytes.Buffer
	if err := c.build(html.EscapeString).Render(chart.SVG, &b); err != nil {
		return fmt.Errorf("charts: %s %s: %w", c.Direction, c.Kind, err)
	}
	// The xlink namespace is declared but never used: drop the one outside address.
	svg := strings.Replace(b.String(), ` xmlns:xlink="http://www.w3.org/1999/xlink"`, "", 1)
	_, err := io.WriteString(w, svg)
	return err
}

// PNG writes the chart as a PNG image, for Markdown, which cannot inline SVG.
func (c *Chart) PNG(w io.Writer) error {
	if err := c.build(func(s string) string { return s }).Render(chart.PNG, w); err != nil {
		return fmt.Errorf("charts: %s %s: %w", c.Direction, c.Kind, err)
	}
	return nil
}

// build makes the go-chart chart; esc escapes every text for the output format (go-chart
// writes text into SVG as it is).
func (c *Chart) build(esc func(string) string) chart.Chart {
	tickStyle := chart.Style{FontSize: 9}
	escTicks := func(t []chart.Tick) []chart.Tick {
		out := make([]chart.Tick, len(t))
		for i, tk := range t {
			out[i] = chart.Tick{Value: tk.Value, Label: esc(tk.Label)}
		}
		return out
	}
	ch := chart.Chart{
		Width:      Width,
		Height:     Height,
		Background: chart.Style{Padding: chart.Box{Top: 40, Left: 24, Right: 10, Bottom: 10}},
		XAxis: chart.XAxis{
			Name:      esc(c.xName),
			NameStyle: chart.Style{FontSize: 10},
			Style:     tickStyle,
			Range:     &chart.ContinuousRange{Min: 0, Max: c.xEnd},
			Ticks:     escTicks(c.xTicks),
		},
		YAxis: chart.YAxis{
			Name:           esc(c.y.name),
			NameStyle:      chart.Style{FontSize: 10},
			Style:          tickStyle,
			Range:          &chart.ContinuousRange{Min: 0, Max: c.y.top},
			Ticks:          escTicks(c.y.ticks),
			GridMajorStyle: chart.Style{StrokeColor: drawing.ColorFromHex("dddddd"), StrokeWidth: 1},
		},
	}
	ch.YAxis.GridLines = gridLines(c.y.ticks)
	// Without a secondary axis, go-chart still lays out one over an empty range: its tick
	// labels land at y = -9.2e18 (NaN made an integer), off the canvas but in the SVG.
	ch.YAxisSecondary = chart.YAxis{Style: chart.Hidden()}
	var leftName chart.Renderable
	if c.y2.name != "" {
		// go-chart v2.1.2 takes the secondary axis' range from the primary axis' ticks once
		// it is given ticks of its own, so the secondary axis is drawn in the primary's
		// units: its ticks stand where their value falls on the primary range, labelled in
		// their own unit, and its lines are scaled the same way (see line.secondary).
		ticks := escTicks(onPrimary(c.y2.ticks, c.y.top/c.y2.top))
		ch.YAxisSecondary = chart.YAxis{
			NameStyle: chart.Style{Hidden: true}, // drawn by leftAxisName, in room made here
			Style:     tickStyle,
			Ticks:     ticks,
		}
		ch.Background.Padding.Left += leftNameRoom
		leftName = leftAxisName(esc(c.y2.name), ticks, tickStyle.FontSize, 10)
	}
	for _, l := range c.lines {
		st := chart.Style{StrokeColor: l.color, StrokeWidth: 2}
		if l.dashed {
			st.StrokeDashArray = []float64{5, 3}
			st.StrokeWidth = 1.5
		}
		if l.dots {
			st.DotColor, st.DotWidth = l.color, 2
		}
		s := chart.ContinuousSeries{Name: esc(l.name), Style: st, XValues: l.xs, YValues: l.ys}
		if l.secondary {
			s.YAxis = chart.YAxisSecondary
			s.YValues = scaled(l.ys, c.y2.top/c.y.top)
		}
		ch.Series = append(ch.Series, s)
	}
	legend := chart.LegendThin(&ch, chart.Style{FontSize: 9})
	ch.Elements = []chart.Renderable{func(r chart.Renderer, b chart.Box, d chart.Style) {
		// The SVG renderer keeps the rotation of the last axis name it drew (the secondary
		// axis' is drawn last) and measures text rotated: the legend would take a label's
		// width for its height and put the labels below their swatches.
		r.ClearTextRotation()
		legend(r, b, d)
		if leftName != nil {
			leftName(r, b, d)
		}
	}}
	return ch
}

// leftNameRoom is the room made left of the secondary axis' tick labels for its name: a
// margin and the rotated name's height, at 10 points.
const leftNameRoom = chart.DefaultYAxisMargin + 14

// leftAxisName draws the secondary (left) axis' name, rotated as go-chart draws it, a
// margin left of its tick labels plus its own height. go-chart put it a margin from the
// labels, but rotated a quarter turn the glyphs reach right of where the text begins, by
// their height: they ran over the labels (h154, in a browser, whose fallback font for
// Roboto is wider).
func leftAxisName(name string, ticks []chart.Tick, tickSize, nameSize float64) chart.Renderable {
	return func(r chart.Renderer, canvas chart.Box, d chart.Style) {
		r.SetFont(d.GetFont())
		r.SetFontSize(tickSize)
		labels := 0
		for _, tk := range ticks {
			labels = max(labels, r.MeasureText(tk.Label).Width())
		}
		r.SetFontSize(nameSize)
		r.SetFontColor(chart.DefaultTextColor)
		tb := r.MeasureText(name)
		x := canvas.Left - 1 - 2*chart.DefaultYAxisMargin - labels - tb.Height()
		y := canvas.Top + canvas.Height()/2 - tb.Width()/2
		r.SetTextRotation(chart.DegreesToRadians(90))
		r.Text(name, x, y)
		r.ClearTextRotation()
	}
}

// onPrimary moves ticks of a secondary axis to where their value stands on the primary
// axis: perSecondary is the primary axis' units per secondary unit.
func onPrimary(t []chart.Tick, perSecondary float64) []chart.Tick {
	out := make([]chart.Tick, len(t))
	for i, tk := range t {
		out[i] = chart.Tick{Value: tk.Value * perSecondary, Label: tk.Label}
	}
	return out
}

// gridLines draws a horizontal line at every tick but the axis itself.
func gridLines(t []chart.Tick) []chart.GridLine {
	var g []chart.GridLine
	for _, tk := range t[min(1, len(t)):] {
		g = append(g, chart.GridLine{Value: tk.Value})
	}
	return g
}
