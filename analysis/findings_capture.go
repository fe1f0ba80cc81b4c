package analysis

import (
	"fmt"
	"math"
	"slices"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// Findings about the capture as a whole, said of the legs they concern: ICE that never
// connected, TURN's refusals, bytes the capture missed, receive windows that stopped a
// sender, packets cut short, and media whose content is hidden.

func (f *finder) capture() {
	c := f.c
	// Checks with no answer while media flows failed nothing: their answers are not in the
	// capture (one side of an asymmetric path, a consent check as the capture ends).
	// Of connectivity checks (with an ICE USERNAME) where the capture has them: a STUN
	// server's answer to the address lookup is no check's success (h139: none said).
	checks, successes := c.ICE.ConnectivityChecks, c.ICE.ConnectivitySuccesses
	if checks == 0 {
		checks, successes = c.ICE.Checks, c.ICE.Successes
	}
	if checks > 0 && successes == 0 && len(c.Streams) == 0 {
		f.add(report.FindingICEFailed, report.SeverityBad, nil, nil, map[string]float64{"checks": float64(checks)},
			fmt.Sprintf("ICE connectivity checks failed: %s, no success response, and no media.",
				numfmt.Count(checks, "Binding request", "Binding requests")))
	}
	f.turnErrors()
	// Capture gaps, per leg: which call's figures they make incomplete.
	for _, l := range c.Legs {
		var gap int64
		for _, fl := range c.Flows {
			if fl.TCP != nil && slices.Contains(l.Flows, fl.ID) {
				gap += fl.TCP.AToB.CaptureGapBytes + fl.TCP.BToA.CaptureGapBytes
			}
		}
		if gap > 0 {
			f.add(report.FindingCaptureGaps, report.SeverityWarn, f.callLegs(l.ID), nil, map[string]float64{"capture_gap_bytes": float64(gap)},
				fmt.Sprintf("The capture missed %s of the TCP connection between %s and %s (never seen, though the peer acknowledged them or the connection went on past them): figures around those gaps are incomplete.",
					count(gap, "byte", "bytes"), l.Client, l.Server))
		}
	}
	// Window stalls, per TCP direction of each leg: their own finding, for the receiver
	// held the sender back, which no retransmission or loss figure shows.
	for _, l := range c.Legs {
		for _, fl := range c.Flows {
			if fl.TCP == nil || !slices.Contains(l.Flows, fl.ID) {
				continue
			}
			for _, w := range []struct {
				from, to string
				d        *report.TCPDir
			}{{fl.A, fl.B, &fl.TCP.AToB}, {fl.B, fl.A, &fl.TCP.BToA}} {
				if s := w.d.WindowStalls; s.Count > 0 && s.LongestMS != nil {
					longest := math.Round(*s.LongestMS)
					f.add(report.FindingWindowStalls, report.SeverityWarn, f.callLegs(l.ID), nil,
						map[string]float64{"window_stalls": float64(s.Count), "longest_stall_ms": longest},
						fmt.Sprintf("TCP %s -> %s: the receiver's window filled %s and held the sender back, the longest stall %s ms.",
							w.from, w.to, times(s.Count), thousands(int64(longest))))
				}
			}
		}
	}
	if c.SnappedPackets > 0 {
		f.add(report.FindingSnappedPackets, report.SeverityInfo, nil, nil, map[string]float64{"snapped_packets": float64(c.SnappedPackets)},
			fmt.Sprintf("%s cut by the capture's snap length: sizes come from the original lengths, payload checks from what was kept.",
				count(c.SnappedPackets, "packet was", "packets were")))
	}
	// TLS records are a leg's only where media would be (tlsMedia): said of that leg.
	for _, l := range c.Legs {
		var between string
		switch l.Transport {
		case report.TransportTURNTLS:
			between = fmt.Sprintf("%s and TURN %s travels inside TLS (TURN over TLS)", l.Client, l.Server)
		case report.TransportTLS:
			between = fmt.Sprintf("%s and %s travels inside TLS", l.Client, l.Server)
		default:
			continue
		}
		f.add(report.FindingEncryptedMedia, report.SeverityInfo, f.callLegs(l.ID), nil, nil,
			"The media between "+between+": its RTP, loss and timing are hidden, and only TCP's own figures can be measured.")
	}
	// DTLS keys the SRTP of the flow it runs on (RFC 5764): said of the legs whose flows
	// carried both; DTLS on a flow with no media says nothing of the media elsewhere.
	dtls := map[string]bool{}
	anyDTLS := false
	for _, fl := range c.Flows {
		dtls[fl.ID] = slices.Contains(fl.Content, "dtls")
		anyDTLS = anyDTLS || dtls[fl.ID]
	}
	media := map[string]bool{}
	for _, s := range c.Streams {
		media[s.Leg] = true
	}
	var keyed []string
	for _, l := range c.Legs {
		if media[l.ID] && slices.ContainsFunc(l.Flows, func(id string) bool { return dtls[id] }) {
			keyed = append(keyed, l.ID)
		}
	}
	switch {
	case len(keyed) > 0:
		f.add(report.FindingEncryptedMedia, report.SeverityInfo, f.callLegs(keyed...), nil, nil, "The media is SRTP keyed by DTLS: payloads are hidden, so figures come from RTP headers and timing.")
	case anyDTLS && len(c.Streams) == 0:
		f.add(report.FindingEncryptedMedia, report.SeverityInfo, nil, nil, nil, "The capture holds DTLS where media would be: its content is hidden.")
	}
	// SRTCP about a stream no DTLS in the capture keyed: its media is SRTP all the same,
	// keyed in the signalling (SDES, RFC 4568: a=crypto in SIP's SDP) or by a DTLS handshake
	// before the capture began. Said of those legs, so that no payload figure is read as
	// plain media's.
	var sdes []string
	for _, s := range c.Streams {
		if s.RTCP != nil && s.RTCP.Encrypted && !slices.Contains(keyed, s.Leg) && !slices.Contains(sdes, s.Leg) {
			sdes = append(sdes, s.Leg)
		}
	}
	if len(sdes) > 0 {
		f.add(report.FindingEncryptedMedia, report.SeverityInfo, f.callLegs(sdes...), nil, nil,
			"The media is SRTP (its RTCP is encrypted), keyed where the capture does not show (SDES in the signalling, or a DTLS handshake before the capture): payloads are hidden, so figures come from RTP headers and timing.")
	}
}
