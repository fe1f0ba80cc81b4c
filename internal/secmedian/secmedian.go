// Package secmedian keeps samples of a measure (round-trip times) per second of capture time
// in bounded memory, and gives their median per second of any 1-second grid, such as a call
// direction's, whose origin is known only when the report is built; and, the same way, sums
// (wire bytes) per second (Sums).
//
// Each second of the clock (Unix seconds) holds at most binSize samples with their times.
// When a second has had more, it keeps an even spread of them: every 2nd, then every 4th...
// sample of that second (halving what it holds when full), so memory is bounded per second
// and the series, like the other per-second series, grows with the capture's span only.
// A median over a kept spread is the median of the second's samples when it had binSize or
// fewer, and an estimate from evenly spaced ones otherwise.
//
// Medians are nearest-rank, as internal/quantile's p50: the smallest kept sample with at
// least half of them at or below it.
//
//	var s secmedian.Series
//	s.Add(t, 80)             // a round trip of 80 ms completed at t (ns)
//	ms := secmedian.Medians(t0, n, &s) // n seconds from t0: nil where no sample
package secmedian

import (
	"slices"

	"github.com/callpcap/callpcap/internal/numfmt"
)

// Bounds, as rtpflow's series: a series spans at most maxSeconds, and a jump of more than
// breakSeconds away from the seconds it holds (files merged from captures taken far apart)
// is not recorded: it would be hours of empty seconds.
const (
	binSize      = 8
	maxSeconds   = 6 * 3600
	breakSeconds = 3600
)

type sample struct {
	off int32   // ns into its second
	ms  float32 // the value
}

type bin struct {
	n      uint8  // samples kept
	stride uint32 // keep every stride-th sample of the second (0 before the first)
	seen   uint32 // samples of the second so far
	s      [binSize]sample
}

// Series is a measure's samples by second. The zero value is ready to use; it allocates
// only when a sample comes in a second it does not yet hold.
type Series struct {
	base int64 // Unix second of bins[0]
	bins []bin
	n    int64 // samples added (kept or not)
}

// Add records the value ms measured at capture time at (ns since the Unix epoch).
func (s *Series) Add(at int64, ms float64) {
	sec, off := floorDiv(at, 1e9), at-floorDiv(at, 1e9)*1e9
	i, ok := hold(&s.bins, &s.base, sec)
	if !ok {
		return
	}
	s.n++
	s.bins[i].add(sample{off: int32(off), ms: float32(ms)})
}

func (b *bin) add(x sample) {
	if b.stride == 0 {
		b.stride = 1
	}
	k := b.seen
	b.seen++
	if k%b.stride != 0 {
		return
	}
	if int(b.n) == binSize {
		// Full: keep every other sample, and from now on every other one of those to come.
		for j := 0; j < binSize/2; j++ {
			b.s[j] = b.s[2*j]
		}
		b.n = binSize / 2
		b.stride *= 2
		if k%b.stride != 0 {
			return
		}
	}
	b.s[b.n] = x
	b.n++
}

// Samples is how many samples were added (in its span), kept or not.
func (s *Series) Samples() int64 {
	if s == nil {
		return 0
	}
	return s.n
}

// Medians returns, for each of the n seconds [t0+i s, t0+(i+1) s) (t0 in ns since the Unix
// epoch), the median of the kept samples of every series in that second, rounded to the
// microsecond; nil for a second without one. It returns nil when no second has one. Nil
// series are skipped.
func Medians(t0 int64, n int, series ...*Series) []*float64 {
	if n <= 0 {
		return nil
	}
	vals := make([][]float32, n)
	any := false
	for _, s := range series {
		if s == nil {
			continue
		}
		for bi := range s.bins {
			b := &s.bins[bi]
			for _, x := range b.s[:b.n] {
				at := (s.base+int64(bi))*1e9 + int64(x.off)
				j := floorDiv(at-t0, 1e9)
				if j < 0 || j >= int64(n) {
					continue
				}
				vals[j] = append(vals[j], x.ms)
				any = true
			}
		}
	}
	if !any {
		return nil
	}
	out := make([]*float64, n)
	for i, v := range vals {
		if len(v) == 0 {
			continue
		}
		slices.Sort(v)
		m := numfmt.Round(float64(v[(len(v)+1)/2-1]), 3)
		out[i] = &m
	}
	return out
}

// hold grows secs, whose first is second *base, either way to hold second k, and returns
// its index; false when k lies beyond the bounds (maxSeconds, breakSeconds).
func hold[T any](secs *[]T, base *int64, k int64) (int, bool) {
	if len(*secs) == 0 {
		*base = k
	}
	i, n := k-*base, int64(len(*secs))
	switch {
	case i < 0:
		// An earlier second (unsorted input).
		if -i > breakSeconds || n-i > maxSeconds {
			return 0, false
		}
		*secs = slices.Insert(*secs, 0, make([]T, -i)...)
		*base, i = k, 0
	case i >= n:
		if i-n > breakSeconds || i >= maxSeconds {
			return 0, false
		}
		*secs = slices.Grow(*secs, int(i+1-n))[:i+1]
		clear((*secs)[n:])
	}
	return int(i), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
