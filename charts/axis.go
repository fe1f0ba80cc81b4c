package charts

import (
	"fmt"
	"math"

	chart "github.com/wcharczuk/go-chart/v2"
)

// niceMax rounds max up to 1, 2, 2.5 or 5 times a power of ten, so that the axis' ticks are
// round numbers; an axis over nothing but zeros still spans 0..1.
func niceMax(max float64) float64 {
	if !(max > 0) || math.IsInf(max, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(max)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= max*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
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
