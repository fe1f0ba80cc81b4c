package analysis

import (
	"github.com/callpcap/callpcap/internal/secmedian"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/rtpflow"
)

// rttSeries fills a direction's round-trip series on its grid (n seconds from t0, capture
// time) with the samples of the summaries, each where it measures the path:
//
//   - ICE: this host's (or its relay's) checks on the flow of each of the direction's legs,
//     as counted in ice.rtt_ms (demux.Tracker.RTTSeries);
//   - TCP: the data/ACK round trips of each TCP leg's directions captured at their sender,
//     as counted in their rtt_ms (tcpframe.Conn.RTTSeries). Either TCP direction's round
//     trip is the leg's path there and back, so both call directions over the leg show it;
//   - RTCP: the receiver-report round trips about the direction's own streams, but not
//     where the reports were captured at their sender (reportsAtSender).
//
// A source without a sample in the direction's seconds stays empty.
func (a *analyzer) rttSeries(ss []*rtpflow.Stream, t0 int64, n int) report.RTTSeries {
	var ice, tcp, rtcp []*secmedian.Series
	seen := map[int]bool{}
	for _, s := range ss {
		if r := s.RTCPRTTSeries(); r != nil && !a.reportsHere[s] {
			rtcp = append(rtcp, r)
		}
		li := s.Path().Leg
		if seen[li] {
			continue
		}
		seen[li] = true
		f := a.flowList[li]
		ice = append(ice, a.turn.RTTSeries(f.a, f.b, f.proto))
		if f.conn != nil {
			tcp = append(tcp, f.conn.RTTSeries(0), f.conn.RTTSeries(1))
		}
	}
	return report.RTTSeries{
		ICE:  secmedian.Medians(t0, n, ice...),
		TCP:  secmedian.Medians(t0, n, tcp...),
		RTCP: secmedian.Medians(t0, n, rtcp...),
	}
}
