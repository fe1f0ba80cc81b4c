package rtpflow

import (
	"fmt"
	"time"

	"github.com/callpcap/callpcap/internal/numfmt"
)

// The rule for every rate the report divides by an active time (a stream's mean bitrate, a
// direction's goodput and wire rate, and through them the ramp): the packets' arrival times
// must span a time over which a media rate means something. Without it, 13 packets of one
// video frame captured within 1 ms read as a goodput of 135 Mbps, and a capture whose
// timestamps were stripped (all equal) or rewritten to a counter (1 µs apart) as 0 or
// 1.3 Gbps. Such a rate is null, with a warning; the 1-second series are not affected: they
// divide by their step, never by less.
const (
	// minRateSpan is the shortest active time a rate is measured over: 20 ms is the usual
	// packet interval of real-time audio and a video frame interval at 50 fps, so packets
	// within less can all be one frame sent in a burst, whose rate is the link's, not the
	// media's.
	minRateSpan = 20 * time.Millisecond
	// minMeanSpacing is the shortest mean interval between the packets of a rate: one
	// stream or call direction averaging more than 100,000 packets a second (1 Gbps of
	// full-size packets) is not real-time media but capture times that do not tell when
	// the packets arrived. An SFU's bundle to one client carries 11,000 a second for 100
	// participants (h163: its goodput null at 100 µs).
	minMeanSpacing = 10 * time.Microsecond
)

// RateSpan says whether a rate can be measured over packets that arrived within span (last
// minus first arrival, ns); when it cannot, why is the reason in words for a warning:
// "13 packets within 0.9 ms: too short to measure a rate".
func RateSpan(packets, span int64) (ok bool, why string) {
	n := numfmt.Count(packets, "packet", "packets")
	switch {
	case packets < 2 || span <= 0:
		return false, n + " at one capture time: no time to measure a rate over"
	case span < int64(minRateSpan):
		return false, fmt.Sprintf("%s within %s: too short to measure a rate", n, numfmt.MS(float64(span)/1e6))
	case span < (packets-1)*int64(minMeanSpacing):
		return false, fmt.Sprintf("%s within %s, one every %s on average: capture times too close together to measure a rate",
			n, numfmt.MS(float64(span)/1e6), spacing(span/(packets-1)))
	}
	return true, ""
}

// Kbps is bytes over span (ns) in kbit/s, as every rate of the report is rounded, or nil
// when RateSpan says packets within span cannot measure a rate.
func Kbps(bytes, packets, span int64) *float64 {
	if ok, _ := RateSpan(packets, span); !ok {
		return nil
	}
	return ptr(numfmt.Round(float64(bytes)*8e6/float64(span), 3))
}

// spacing formats an interval below a millisecond in microseconds.
func spacing(ns int64) string {
	if ns < 1000 {
		return fmt.Sprintf("%d ns", ns)
	}
	return fmt.Sprintf("%d µs", ns/1000)
}
