package rtpflow

import (
	"github.com/pion/rtcp"

	"github.com/callpcap/callpcap/internal/secmedian"
)

// Receiver reports' round trips (RFC 3550 6.4.1) and their loss and jitter: the sender
// reports each source sent, and the report blocks that name them.

// srRing is how many recent sender reports of each source are remembered for RTT (RFC
// 3550 6.4.1: the receiver's LSR is the middle 32 bits of the SR's NTP timestamp). A
// receiver names the last it got, held DLSR before it reports (seconds at most), and a
// source sends one every few seconds or, on a busy link, one or two a second; the same SR
// seen on two legs (a TURN server's capture) takes two. Kept per source: a media server's
// hundreds of sources send more SRs in a DLSR than one ring of all would hold (h132). At
// most Config.MaxStreams sources are remembered (hostile input: 16 × 24 bytes each).
const srRing = 16

type srEntry struct {
	leg int
	mid uint32
	at  int64
}

// srHistory is one source's last sender reports, a ring.
type srHistory struct {
	e    [srRing]srEntry
	next int
}

// senderReport remembers sr, received on leg at at, for the receiver reports that name it.
func (r *rtcpTracker) senderReport(leg int, sr *rtcp.SenderReport, at int64) {
	h := r.srs[sr.SSRC]
	if h == nil {
		if r.srs == nil {
			r.srs = make(map[uint32]*srHistory)
		}
		if len(r.srs) >= r.max {
			return
		}
		h = &srHistory{}
		r.srs[sr.SSRC] = h
	}
	h.e[h.next] = srEntry{leg: leg, mid: uint32(sr.NTPTime >> 16), at: at}
	h.next = (h.next + 1) % srRing
}

// blocks applies the report blocks about ssrc sent by reporter: the last reported loss and
// jitter, and the RTT when LSR names a sender report seen earlier on the same leg: arrival of
// this report − DLSR − arrival of that SR (RFC 3550 6.4.1), at the capture's vantage. The
// loss and jitter are one receiver's, the first to report: blocks of other receivers (a
// conference's, or a forwarder's and its receiver's) are counted, not mixed in, for a
// difference of two receivers' counters means nothing. Every receiver's round trip counts.
func (r *rtcpTracker) blocks(st *rtcpState, leg int, reporter, ssrc uint32, rbs []rtcp.ReceptionReport,
	at int64) {
	for _, rb := range rbs {
		if rb.SSRC != ssrc {
			continue
		}
		cum := int32(rb.TotalLost<<8) >> 8
		switch {
		case !st.hasRB:
			st.reporter, st.cumLost0, st.highest0 = reporter, cum, rb.LastSequenceNumber
		case reporter != st.reporter:
			r.otherReporter++
		default:
			st.rbAgain = true
			st.highestDown = st.highestDown || int32(rb.LastSequenceNumber-st.highest) < 0
		}
		if reporter == st.reporter {
			st.fraction, st.cumLost, st.highest, st.jitter = rb.FractionLost, cum, rb.LastSequenceNumber, rb.Jitter
		}
		st.hasRB = true
		if rb.LastSenderReport == 0 {
			continue
		}
		// The SR the block names: on its own leg first (at a TURN server the same SR is seen
		// on both legs, and the round trip is the leg's), else on another (a sender whose
		// RTCP leaves from one port and comes back to another, as GStreamer's rtpbin does:
		// each way is a flow of its own).
		var sr *srEntry
		h := r.srs[ssrc]
		for i := 0; h != nil && i < srRing; i++ {
			e := &h.e[(h.next-1-i+srRing)%srRing]
			if e.at == 0 && e.mid == 0 {
				break
			}
			if e.mid == rb.LastSenderReport {
				if e.leg == leg {
					sr = e
					break
				}
				if sr == nil {
					sr = e
				}
			}
		}
		if sr != nil {
			dlsr := int64(rb.Delay) * 1e9 / 65536
			if rtt := at - dlsr - sr.at; rtt >= 0 {
				st.rtt.Record(float64(rtt) / 1e6)
				st.rtts.Add(at, float64(rtt)/1e6)
			}
		}
	}
}

// RTCPRTTSeries returns the round trips of the stream's rtcp.rtt_ms by second (the RTCP of
// its leg, as its summary); nil when RTCP measured none.
func (s *Stream) RTCPRTTSeries() *secmedian.Series {
	st := s.t.rtcp.of(s)
	if st == nil || st.rtts.Samples() == 0 {
		return nil
	}
	return &st.rtts
}

// RTCPRTTMedianMS returns the median receiver-report round trip of the stream's
// rtcp.rtt_ms, and false when RTCP measured none.
func (s *Stream) RTCPRTTMedianMS() (float64, bool) {
	st := s.t.rtcp.of(s)
	if st == nil || st.rtt.N() == 0 {
		return 0, false
	}
	return st.rtt.Quantile(0.5), true
}
