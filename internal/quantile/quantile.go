// Package quantile summarises a distribution of durations in constant memory: percentiles
// from an HDR histogram with two significant digits (at most 1% relative error), minimum,
// maximum and count exact. Memory does not grow with the number of samples.
//
// Percentiles are nearest-rank: the smallest recorded value with at least p% of the samples
// at or below it. Up to exactSamples samples they are exact (kept in a fixed array), so that
// small distributions, such as a handful of ICE round trips, read as they were measured.
package quantile

import (
	"math"
	"sort"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// maxMicros is the largest value the histogram resolves (one hour); larger values are
// recorded at the cap, with Max still exact.
const maxMicros = 3600 * 1e6

// Hist records durations in milliseconds. The zero value is ready to use and costs
// nothing: the first exactSamples samples are kept as they are, and the histogram is
// allocated only when one more comes (with them recorded in it), so that the many
// distributions that stay small (a connection's head-of-line delays, a handful of ICE
// round trips) never hold one: about 28 KB each, which a TURN server's capture of
// hundreds of connections felt.
type Hist struct {
	h        *hdrhistogram.Histogram // from the sample after exactSamples on
	n        int64
	min, max float64
	exact    *[exactSamples]float64 // the first samples, while n <= exactSamples
}

// exactSamples is how many samples are kept for exact percentiles.
const exactSamples = 256

// Record adds one sample in milliseconds. Negative values are recorded as 0.
func (q *Hist) Record(ms float64) {
	if math.IsNaN(ms) {
		return
	}
	if ms < 0 {
		ms = 0
	}
	switch {
	case q.n < exactSamples:
		if q.exact == nil {
			q.exact = new([exactSamples]float64)
		}
		q.exact[q.n] = ms
	case q.h == nil:
		q.h = hdrhistogram.New(1, maxMicros, 2)
		for _, v := range q.exact {
			_ = q.h.RecordValue(micros(v))
		}
		q.exact = nil
		fallthrough
	default:
		_ = q.h.RecordValue(micros(ms))
	}
	if q.n == 0 || ms < q.min {
		q.min = ms
	}
	if q.n == 0 || ms > q.max {
		q.max = ms
	}
	q.n++
}

// micros is a sample as the histogram records it: whole microseconds within its range
// (the lowest discernible value is 1; Min and Max stay exact).
func micros(ms float64) int64 {
	return min(max(int64(math.Round(ms*1000)), 1), maxMicros)
}

// N is the number of samples recorded.
func (q *Hist) N() int64 { return q.n }

// Min is exact.
func (q *Hist) Min() float64 { return q.min }

// Max returns the largest value recorded, in milliseconds; 0 before the first.
func (q *Hist) Max() float64 { return q.max }

// Quantile returns the p-th percentile (0-100) in milliseconds, clamped to [Min, Max].
func (q *Hist) Quantile(p float64) float64 {
	if q.n == 0 {
		return 0
	}
	if q.n <= exactSamples {
		s := make([]float64, q.n)
		copy(s, q.exact[:q.n])
		sort.Float64s(s)
		rank := int(math.Ceil(p / 100 * float64(q.n)))
		return s[min(max(rank-1, 0), len(s)-1)]
	}
	v := float64(q.h.ValueAtQuantile(p)) / 1000
	return math.Min(math.Max(v, q.min), q.max)
}

// Summary returns the report's quantiles, or nil without samples.
func (q *Hist) Summary() *report.Quantiles {
	if q.n == 0 {
		return nil
	}
	return &report.Quantiles{
		Samples: q.n,
		Min:     numfmt.Round(q.min, 3),
		P50:     numfmt.Round(q.Quantile(50), 3),
		P95:     numfmt.Round(q.Quantile(95), 3),
		P99:     numfmt.Round(q.Quantile(99), 3),
		Max:     numfmt.Round(q.max, 3),
	}
}
