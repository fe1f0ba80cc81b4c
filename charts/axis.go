package charts

import (
	"fmt"
	"math"

	chart "github.com/wcharczuk/go-chart/v2"
)

// niceSteps are the tops an axis rounds up to (times a power of ten), each with the number
// of ticks that divides it into round steps: 1.2 in 6 steps of 0.2, 1.6 in 4 of 0.4. They
// are close together so that the highest value fills most of the plot.
var niceSteps = []struct{ top, ticks float64 }{
	{1, 5}, {1.2, 6}, {1.6, 4}, {2, 4}, {2.5, 5}, {3, 6}, {4, 4}, {5, 5}, {6, 6}, {8, 4}, {10, 5},
}

// niceMax rounds max up to a top of niceSteps, so that the axis' ticks are round numbers; an
// axis over nothing but zeros still spans 0..1.
func niceMax(max float64) float64 {
	top, _ := niceAxis(max)
	return top
}

// niceAxis is niceMax and how many ticks divide the axis into round steps.
func niceAxis(max float64) (top float64, count int) {
	if !(max > 0) || math.IsInf(max, 0) {
		return 1, 5
	}
	p := math.Pow(10, math.Floor(math.Log10(max)))
	for _, m := range niceSteps {
		if m.top*p >= max*(1-1e-12) {
			return m.top * p, int(m.ticks)
		}
	}
	return 10 * p, 5
}

// axisTicks are the ticks of an axis from 0 to top, top a niceMax.
func axisTicks(top float64) []chart.Tick {
	_, count := niceAxis(top)
	return ticks(top, count, number)
}

// headroom keeps a line at a series' highest value off the plot's top border, where it
// would merge with the frame (a delay max of 300 ms is drawn on an axis to 400, not 300).
const headroom = 1.04

// dataTop is the top of an axis whose highest value is max.
func dataTop(max float64) float64 {
	return niceMax(max * headroom)
}

// countTop is dataTop for an axis of counts (packets per second): at least 5, so that its
// ticks are whole numbers.
func countTop(max float64) float64 {
	return math.Max(5, dataTop(max))
}

// ticks returns count+1 evenly spaced ticks from 0 to top, labelled by format.
func ticks(top float64, count int, format func(float64) string) []chart.Tick {
	t := make([]chart.Tick, 0, count+1)
	for i := 0; i <= count; i++ {
		v := top * float64(i) / float64(count)
		t = append(t, chart.Tick{Value: v, Label: format(v)})
	}
	return t
}

// timeTicks labels the time axis every 1, 2, 5, 10, 20, 30, 60... seconds, at most about 12
// labels, and returns the axis' end (a whole number of steps at or past seconds).
func timeTicks(seconds float64) (end float64, t []chart.Tick) {
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600} {
		step = s
		if seconds/s <= 12 {
			break
		}
	}
	end = math.Max(step, math.Ceil(seconds/step)*step)
	for v := 0.0; v <= end+step/2; v += step {
		t = append(t, chart.Tick{Value: v, Label: fmt.Sprintf("%g", v)})
	}
	return end, t
}

// number formats a tick value without trailing zeros ("2.5", "100").
func number(v float64) string {
	return fmt.Sprintf("%.4g", v)
}
