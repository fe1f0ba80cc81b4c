package rtpflow

import (
	"cmp"
	"slices"
)

// staticPT is a payload type with a static assignment (RFC 3551, tables 4 and 5).
type staticPT struct {
	codec string
	clock int
	video bool
}

var staticPTs = [35]staticPT{
	0:  {"PCMU", 8000, false},
	3:  {"GSM", 8000, false},
	4:  {"G723", 8000, false},
	5:  {"DVI4", 8000, false},
	6:  {"DVI4", 16000, false},
	7:  {"LPC", 8000, false},
	8:  {"PCMA", 8000, false},
	9:  {"G722", 8000, false}, // the RTP clock is 8000 although G.722 samples at 16 kHz (RFC 3551 4.5.2)
	10: {"L16", 44100, false},
	11: {"L16", 44100, false},
	12: {"QCELP", 8000, false},
	13: {"CN", 8000, false},
	14: {"MPA", 90000, false},
	15: {"G728", 8000, false},
	16: {"DVI4", 11025, false},
	17: {"DVI4", 22050, false},
	18: {"G729", 8000, false},
	25: {"CelB", 90000, true},
	26: {"JPEG", 90000, true},
	28: {"nv", 90000, true},
	31: {"H261", 90000, true},
	32: {"MPV", 90000, true},
	33: {"MP2T", 90000, true},
	34: {"H263", 90000, true},
}

// static returns the static assignment of pt, if any.
func static(pt uint8) (staticPT, bool) {
	if int(pt) < len(staticPTs) && staticPTs[pt].clock != 0 {
		return staticPTs[pt], true
	}
	return staticPT{}, false
}

// clockCandidates are the rates an unknown payload type's clock is inferred among.
var clockCandidates = [...]int{8000, 16000, 24000, 32000, 44100, 48000, videoClock}

// videoClock is every video payload format's RTP clock rate (and MPEG audio's, RFC 3551).
const videoClock = 90000

// minInferSpan is the shortest arrival span (ns) over which a clock rate is inferred.
const minInferSpan = 100e6

// InferClockRate returns the candidate rate closest (absolute difference) to the ratio of
// timestamp advance dts to arrival-time advance dns (ns), or 0 when the advance is too short
// or not positive to tell, or the ratio is implausible (below half the lowest candidate or
// above 1.5 times the highest).
func InferClockRate(dts, dns int64) int {
	if dts <= 0 || dns < minInferSpan {
		return 0
	}
	r := float64(dts) / (float64(dns) / 1e9)
	if r < float64(clockCandidates[0])/2 || r > float64(clockCandidates[len(clockCandidates)-1])*3/2 {
		return 0 // no clock: the timestamps did not advance with time (a delivery burst)
	}
	best, bestD := 0, 0.0
	for _, c := range clockCandidates {
		d := r - float64(c)
		if d < 0 {
			d = -d
		}
		if best == 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// tsToNs converts a timestamp difference to nanoseconds at the clock rate, exactly (floor).
func tsToNs(d int64, clock int) int64 {
	c := int64(clock)
	q, r := d/c, d%c
	return q*1e9 + r*1e9/c
}

// astToNs converts an unwrapped abs-send-time (6.18 fixed-point seconds) to nanoseconds.
func astToNs(v int64) int64 {
	return (v>>18)*1e9 + ((v&(1<<18-1))*1e9)>>18
}

// inferEarly infers the clock from the buffered first packets: the median of the
// timestamp-to-arrival ratios of the pairs half the buffer apart (a Theil-Sen-like slope).
// A median, not the span from the first to the last packet, because over TCP the last
// packets may have waited behind a retransmission (a 300 ms hold at the end of a 1 s window
// reads 48 kHz as 32 kHz), and the first may have come in a burst: either spoils less than
// half of the pairs. Packets that TCP held up (behind a retransmission or a full window)
// take no part: a hold in the first second can cover more than half of it (a zero window
// read 48 kHz as 32 kHz, a retransmission's backlog as 44.1 kHz); those that came on time
// around it keep the sender's pace. Nor do packets bunched before the ones taken after
// them (bunched), while enough others are left: a sender's backlog delivered at once when
// its connection was ready (WebRTC over ICE-TCP: its first 56 Opus packets, 1.1 s of
// audio, in 50 ms) made half of the pairs read 97 kHz, and 48 kHz was taken for 90 kHz.
//
// close says whether the ratio the rate was taken from lies within steadyTol of it, and
// the pace held through the packets (steady): a rate taken otherwise is a guess, which a
// stream whose first second was spent queueing (a queue building up, 48 kHz read as 16
// kHz: h137) does better to wait on.
func inferEarly(early []early) (clock int, close bool) {
	var idx, all [earlyMax]uint16
	on, unheld := idx[:0], all[:0]
	// From the last packet back: a backlog's packets are bunched behind the on-time ones
	// that follow it, and its first packet, the most delayed, would make every packet after
	// it look bunched. next is the first packet taken of the earliest timestamp taken.
	next := -1
	for i := len(early) - 1; i >= 0; i-- {
		e := &early[i]
		if e.hd > holdNone {
			continue
		}
		unheld = append(unheld, uint16(i))
		if next >= 0 && e.ts != early[next].ts && bunched(e, &early[next]) {
			continue
		}
		next = i
		on = append(on, uint16(i))
	}
	if len(on) < minUnbunched {
		on = unheld
	}
	slices.Reverse(on)
	type pair struct{ dts, dns int64 }
	var buf [earlyMax / 2]pair
	ps := buf[:0]
	half := len(on) / 2
	for i := 0; i+half < len(on) && half > 0; i++ {
		a, b := &early[on[i]], &early[on[i+half]]
		if b.at-a.at >= minInferSpan && b.ts > a.ts {
			ps = append(ps, pair{b.ts - a.ts, b.at - a.at})
		}
	}
	if len(ps) == 0 {
		return 0, false
	}
	slices.SortFunc(ps, func(x, y pair) int {
		return cmp.Compare(float64(x.dts)/float64(x.dns), float64(y.dts)/float64(y.dns))
	})
	m := ps[len(ps)/2]
	c, dts, dns := fastest(early, on, InferClockRate(m.dts, m.dns), m.dts, m.dns)
	return c, c > 0 && within(dts, dns, c, steadyTol) && steady(early, on, c)
}

// steady says whether the sender's pace at clock holds through the packets on: from the
// fastest packet of their first third to that of the middle third, and from there to the
// fastest of the last third, each advance of timestamps against arrival reads clock within
// steadyTol. A queue that built up and had not drained reads slower in the one and faster
// in the other; one still building up at an even pace reads slower in both, by as much as
// it grows: 10% (h137's c26, taken for 44.1 kHz within 15%).
func steady(pk []early, on []uint16, clock int) bool {
	n := len(on)
	if n < 6 {
		return false
	}
	a, b, c := quickest(pk, on[:n/3], clock), quickest(pk, on[n/3:2*n/3], clock), quickest(pk, on[2*n/3:], clock)
	return within(b.ts-a.ts, b.at-a.at, clock, steadyTol) && within(c.ts-b.ts, c.at-b.at, clock, steadyTol)
}

// quickest returns the packet among on (indices into pk) that met the least delay at clock:
// the least arrival less send time, taking the first packet's timestamp as sent at 0.
func quickest(pk []early, on []uint16, clock int) *early {
	var best *early
	var bestT int64
	for _, i := range on {
		e := &pk[i]
		if t := e.at - tsToNs(e.ts-pk[0].ts, clock); best == nil || t < bestT {
			best, bestT = e, t
		}
	}
	return best
}

// bunched says whether packet b came so soon after packet a that no clock explains the
// step of their timestamps: more than maxClockRatio ticks a second, the bound above which
// InferClockRate finds no clock. inferEarly takes as b the first packet of a timestamp: a
// video frame's packets share one, and may take the frame's interval to arrive.
func bunched(a, b *early) bool {
	return b.ts > a.ts && float64(b.ts-a.ts)*1e9 > maxClockRatio*float64(b.at-a.at)
}

// maxClockRatio is the highest timestamp rate a clock is inferred from: 1.5 times the
// highest candidate's (InferClockRate).
const maxClockRatio = 1.5 * 90000

// minUnbunched is the fewest packets, bunched ones left out, that the inference runs on;
// with fewer it takes the bunched ones too.
const minUnbunched = 8

// fastest refines clock, a rate the median of the pairs chose, from the packets on
// (indices into pk, in order) that met the least delay: a packet cannot arrive before it
// was sent, so the fastest ones trace the sender's clock, and the slope from the fastest
// of the first third to the fastest of the last third is its rate, whatever delay the
// others met (the lower envelope, as clock skew is estimated from one-way delays). Over
// TCP with a long round trip the first second
// can be all bursts: slow start and a repaired loss delivered a video stream's first 256
// packets a round trip at a time, or from the sender's backlog at the link's rate, and the
// median read its 90 kHz as 44.1 kHz; the fastest packets, its first and its last, still
// read 90 kHz. Which packets are fastest depends on the rate, so the rate is taken again
// until it stays (two or three rounds). It returns the rate with the timestamp and
// arrival advances it was last taken on (dts, dns: the median pair's, given, when the
// envelope said nothing).
func fastest(pk []early, on []uint16, clock int, dts, dns int64) (int, int64, int64) {
	n := len(on)
	if clock == 0 || n < 3 {
		return clock, dts, dns
	}
	third := n / 3
	for range 3 {
		a, b := quickest(pk, on[:third], clock), quickest(pk, on[n-third:], clock)
		if a == nil || b == nil || b.at-a.at < minInferSpan || b.ts <= a.ts {
			return clock, dts, dns
		}
		next := InferClockRate(b.ts-a.ts, b.at-a.at)
		if next == 0 {
			return clock, dts, dns
		}
		dts, dns = b.ts-a.ts, b.at-a.at
		if next == clock {
			return clock, dts, dns
		}
		clock = next
	}
	return clock, dts, dns
}

// inferClose is InferClockRate accepting only a ratio within 15% of the candidate.
func inferClose(dts, dns int64) int {
	c := InferClockRate(dts, dns)
	if c == 0 || !within(dts, dns, c, 0.15) {
		return 0
	}
	return c
}

// steadyTol is how far from a rate the envelope may read and the early packets still
// settle on it: a sender's clock is exact to a fraction of a percent, and the least
// delayed packets of a third of a second or more trace it to a few milliseconds.
const steadyTol = 0.05

// within says whether dts ticks in dns nanoseconds read clock within tol (a fraction).
func within(dts, dns int64, clock int, tol float64) bool {
	if dns <= 0 || clock <= 0 {
		return false
	}
	r := float64(dts) / (float64(dns) / 1e9)
	d := r - float64(clock)
	return d <= tol*float64(clock) && d >= -tol*float64(clock)
}
