package rtpflow

import (
	"math"
	"slices"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// Ramp measures how fast a per-second media bitrate series (kbps, kbps[0] being the
// direction's first second) reached its target and whether it then held. target ≤ 0 means
// the plateau. Definitions, over n = len(kbps) seconds:
//
//   - plateau: the median of the second half of the active seconds, those in which the
//     direction sent media (kbps[i] > 0; for an odd count the middle one belongs to the
//     second half); the median of an even count is the mean of the two middle values. A
//     mute, a hold or an outage is no rate the call settled at: a direction that sent
//     1 Mbps for 15 s, nothing for 10 s and 600 kbps for 5 s read a plateau of 0 over the
//     second half of its span, and "t50 never";
//   - the 3-second moving average at second i, MA(i), is the mean of kbps[max(0,i−2) .. i]:
//     at the start, of the seconds available (MA(0) = kbps[0], MA(1) = mean of two);
//   - t50 and t90 are the index i of the first second whose MA(i) ≥ 50% (90%) of the
//     target, that is the offset in seconds of that second's start from the series' start;
//     nil when never reached (and when the target is 0);
//   - stable: over the seconds after t90 (i > t90), at least 80% have MA(i) within ±20% of
//     the plateau, which DESIGN makes the target when one is given (the report's
//     plateau_kbps still says where the bitrate settled); nil when there is no second
//     after t90;
//   - cv_after_t90: the population standard deviation of kbps[i] for i > t90 over their
//     mean; nil when there is no such second or their mean is 0.
func Ramp(kbps []float64, target float64) *report.Ramp {
	n := len(kbps)
	if n == 0 {
		return nil
	}
	r := &report.Ramp{TargetSource: report.TargetFromPlateau}
	var active []float64
	for _, v := range kbps {
		if v > 0 {
			active = append(active, v)
		}
	}
	plateau := median(active[len(active)/2:])
	r.PlateauKbps = numfmt.Round(plateau, 3)
	if target > 0 {
		r.TargetSource, r.TargetKbps = report.TargetFromOption, target
	} else {
		target = plateau
		r.TargetKbps = r.PlateauKbps
	}
	first := func(frac float64) int {
		if target <= 0 {
			return -1
		}
		for i := range kbps {
			if movingAvg(kbps, i) >= frac*target {
				return i
			}
		}
		return -1
	}
	t50, t90 := first(0.5), first(0.9)
	if t50 >= 0 {
		v := float64(t50)
		r.T50S = &v
	}
	if t90 >= 0 {
		v := float64(t90)
		r.T90S = &v
	}
	if t90 < 0 || t90 == n-1 {
		return r
	}
	after := kbps[t90+1:]
	stable := HeldAround(kbps, t90, target)
	r.Stable = &stable
	var sum, sq float64
	for _, v := range after {
		sum += v
	}
	mean := sum / float64(len(after))
	for _, v := range after {
		sq += (v - mean) * (v - mean)
	}
	if mean > 0 {
		cv := numfmt.Round(math.Sqrt(sq/float64(len(after)))/mean, 4)
		r.CVAfterT90 = &cv
	}
	return r
}

// HeldAround says whether, of the seconds after t90, at least 80% have their 3-second
// moving average within ±20% of level (Ramp's stable when level is its plateau).
func HeldAround(kbps []float64, t90 int, level float64) bool {
	if t90 < 0 || t90+1 >= len(kbps) {
		return false
	}
	within := 0
	for i := t90 + 1; i < len(kbps); i++ {
		if within20(movingAvg(kbps, i), level) {
			within++
		}
	}
	return within*5 >= (len(kbps)-t90-1)*4
}

// within20 says whether v is within ±20% of level, the bound included: a moving average of
// 25.6, 64 and 64 kbps is 51.2, exactly 20% under 64, though its floating-point sum reads
// 51.199999 (a tester's held call read unstable for it). The margin, a billionth of the
// level, is far below any rate the report shows.
func within20(v, level float64) bool { return math.Abs(v-level) <= 0.2*level*(1+1e-9) }

// movingAvg is the 3-second moving average at second i: the mean of kbps[max(0,i−2) .. i].
func movingAvg(kbps []float64, i int) float64 {
	lo := max(0, i-2)
	var s float64
	for _, v := range kbps[lo : i+1] {
		s += v
	}
	return s / float64(i+1-lo)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// StableBesidePauses says whether the per-second media bitrate kbps held after second t90
// once the seconds in which the sender all but stopped are left out (under a tenth of the
// highest second after t90: a call on hold, a mute with silence suppression), with the
// seconds next to them, which hold the pause's start or end: at least 80% of the others are
// within ±20% of their median. paused lists the indices in kbps of the seconds under the
// tenth. A direction on hold for a while goes between its rate and nothing, and by Ramp's
// definition is not stable; but that is a pause, not a bitrate that kept swinging.
func StableBesidePauses(kbps []float64, t90 int) (paused []int, stable bool) {
	if t90 < 0 || t90+1 >= len(kbps) {
		return nil, false
	}
	after := kbps[t90+1:]
	top := slices.Max(after)
	low := func(i int) bool { return i >= 0 && i < len(after) && after[i] < top/10 }
	var on []float64
	for i, v := range after {
		switch {
		case low(i):
			paused = append(paused, t90+1+i)
		case !low(i-1) && !low(i+1):
			on = append(on, v)
		}
	}
	level := median(on)
	within := 0
	for _, v := range on {
		if within20(v, level) {
			within++
		}
	}
	return paused, len(on) > 0 && within*5 >= len(on)*4
}

// minLevelSpan is the fewest seconds each side of a LevelStep holds its level.
const minLevelSpan = 3

// LevelStep says whether the per-second media bitrate kbps, after second t90, changed level
// once and held each level: split where the two sides' squared deviations from their means
// are least, at least 80% of each side's seconds are within ±20% of its mean, both sides
// last minLevelSpan seconds, and one mean is more than 20% off the other (as stability
// measures a second against the plateau: 605 then 500 kbps is no stable 500). at is the index
// in kbps of the first second of the new level. Such a direction is not stable by Ramp's
// definition (one plateau), but it did not keep swinging: a SIP call whose re-INVITE
// changed G.722 for Opus, or a sender that settled lower (a tester's, 2.06 Mbps for 20 s,
// then 0.56 Mbps for 40 s), was said to swing around the second.
func LevelStep(kbps []float64, t90 int) (at int, from, to float64, ok bool) {
	if t90 < 0 || t90+1 >= len(kbps) {
		return 0, 0, 0, false
	}
	after := kbps[t90+1:]
	n := len(after)
	if n < 2*minLevelSpan {
		return 0, 0, 0, false
	}
	sum, sq := make([]float64, n+1), make([]float64, n+1) // prefix sums
	for i, v := range after {
		sum[i+1], sq[i+1] = sum[i]+v, sq[i]+v*v
	}
	cost := func(lo, hi int) float64 { // squared deviations of after[lo:hi] from their mean
		s, m := sum[hi]-sum[lo], float64(hi-lo)
		return sq[hi] - sq[lo] - s*s/m
	}
	k, best := -1, math.Inf(1)
	for i := minLevelSpan; i <= n-minLevelSpan; i++ {
		if c := cost(0, i) + cost(i, n); c < best {
			k, best = i, c
		}
	}
	held := func(side []float64) (float64, bool) {
		var level float64 // the mean, as the split's deviations are from it
		for _, v := range side {
			level += v
		}
		level /= float64(len(side))
		within := 0
		for _, v := range side {
			if within20(v, level) {
				within++
			}
		}
		return level, level > 0 && within*5 >= len(side)*4
	}
	// The change falls inside one of the two seconds around the split, which holds part of
	// each level: each level is read without it (G.722 then Opus read 62 kbps for 64).
	left, right := after[:k], after[k:]
	if len(left) > minLevelSpan {
		left = left[:len(left)-1]
	}
	if len(right) > minLevelSpan {
		right = right[1:]
	}
	from, okA := held(left)
	to, okB := held(right)
	if !okA || !okB || within20(from, to) && within20(to, from) {
		return 0, 0, 0, false
	}
	return t90 + 1 + k, from, to, true
}
