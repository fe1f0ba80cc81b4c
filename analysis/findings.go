package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// Thresholds of the findings: where a figure starts to matter to a person on the call.
const (
	lossWarnPct       = 1.0  // audio concealment becomes audible, video freezes begin
	lossBadPct        = 5.0  //
	latePctWarn       = 1.0  // share of packets too late to play
	latePctBad        = 5.0  //
	jitterWarnMS      = 30.0 // mean RFC 3550 jitter above a typical jitter buffer's comfort
	slowRampS         = 10.0 // t90 later than this is a slow ramp (GCC over UDP reaches it in < 5 s)
	lowEfficiency     = 0.6  // media payload under 60% of the wire bytes
	tcpRetxWarnPct    = 1.0
	tcpRetxBadPct     = 5.0
	minRampDurationS  = 10.0 // a direction shorter than this has no meaningful ramp
	minJitterPackets  = 50
	minStabilitySpanS = 10.0
)

// Findings diagnoses a capture's report: one sentence each, with the numbers in it, most
// severe first, and [] when there is nothing to say (never nil: a list in the report is never
// null). It reads the report model only, so it can be tested on a report built by hand.
func Findings(c *report.Capture) []report.Finding {
	fs := []report.Finding{}
	add := func(code report.FindingCode, sev report.Severity, format string, args ...any) {
		fs = append(fs, report.Finding{Code: code, Severity: sev, Text: fmt.Sprintf(format, args...)})
	}
	legs := map[string]*report.Leg{}
	for i := range c.Legs {
		legs[c.Legs[i].ID] = &c.Legs[i]
	}
	streams := map[string]*report.Stream{}
	for i := range c.Streams {
		streams[c.Streams[i].ID] = &c.Streams[i]
	}

	for _, l := range c.Legs {
		switch t := l.Transport; {
		case t.TURN() && t.OverTCP():
			add(report.FindingMediaOverTCP, report.SeverityWarn, "Media was relayed over TCP through TURN %s%s", l.Server, tcpCost(c, &l))
			add(report.FindingMediaOverTURN, report.SeverityInfo, "Media went through the TURN relay %s instead of a direct path.", l.Server)
		case t.OverTCP():
			add(report.FindingMediaOverTCP, report.SeverityWarn, "Media travelled over TCP (%s) between %s and %s%s",
				l.Transport, l.Client, l.Server, tcpCost(c, &l))
		case t.TURN():
			add(report.FindingMediaOverTURN, report.SeverityInfo, "Media was relayed over UDP through TURN %s instead of a direct path.", l.Server)
		}
	}

	for _, d := range c.Directions {
		name := d.From + " -> " + d.To
		if d.TCPRetransmittedPct != nil && *d.TCPRetransmittedPct > 0 {
			sev := report.SeverityInfo
			if *d.TCPRetransmittedPct >= tcpRetxBadPct {
				sev = report.SeverityBad
			} else if *d.TCPRetransmittedPct >= tcpRetxWarnPct {
				sev = report.SeverityWarn
			}
			// A segment lost before the capture point is seen once, as its retransmission:
			// it counts in the percentage but costs no extra bytes at this vantage.
			where := fmt.Sprintf("%s bytes of copies on the wire here", thousands(d.OverheadBytes.TCPRetransmissions))
			if d.OverheadBytes.TCPRetransmissions == 0 {
				where = "their first copies were lost before the capture point"
			}
			add(report.FindingTCPRetransmissions, sev, "%s: %s of the TCP payload bytes carrying this media were retransmissions (%s).",
				name, fmtPct(*d.TCPRetransmittedPct), where)
		}
		if l := d.Late; l != nil && l.Packets > 0 {
			sev := report.SeverityInfo
			if l.Pct >= latePctBad {
				sev = report.SeverityBad
			} else if l.Pct >= latePctWarn {
				sev = report.SeverityWarn
			}
			text := fmt.Sprintf("%s: %s media packets (%s) arrived more than %.0f ms later than the stream's fastest, too late to be played",
				name, thousands(l.Packets), fmtPct(l.Pct), l.BudgetMS)
			if l.HOLBlocked > 0 {
				text += fmt.Sprintf("; %s of them were held behind a retransmitted TCP segment (head-of-line blocking)", thousands(l.HOLBlocked))
			}
			if l.Causes != nil && l.Causes.Window > 0 {
				text += fmt.Sprintf("; %s waited for the receiver's full TCP window", thousands(l.Causes.Window))
			}
			add(report.FindingLatePackets, sev, "%s.", text)
		}
		// Packets dropped before TCP are in Lost (the receiver never got them) but are no
		// loss of the network path: they have their own finding below.
		if lost := d.Loss.Lost - d.Loss.DroppedBeforeTCP; d.Loss.Pct != nil && lost > 0 && d.Loss.Expected > 0 {
			pct := 100 * float64(lost) / float64(d.Loss.Expected)
			sev := report.SeverityInfo
			if pct >= lossBadPct {
				sev = report.SeverityBad
			} else if pct >= lossWarnPct {
				sev = report.SeverityWarn
			}
			text := fmt.Sprintf("%s: %s of %s media packets were lost (%s)", name, thousands(lost),
				thousands(d.Loss.Expected), fmtPct(pct))
			if d.Loss.RecoveredByRTX > 0 {
				text += fmt.Sprintf("; %s of them were recovered by retransmission (RTX), late", thousands(d.Loss.RecoveredByRTX))
			}
			add(report.FindingRTPLoss, sev, "%s.", text)
		}
		if d.Loss.DroppedBeforeTCP > 0 {
			add(report.FindingDroppedBeforeTCP, report.SeverityWarn, "%s: %s RTP packets never entered the TCP connection (a gap in RTP sequence numbers where TCP lost nothing): the sender or relay dropped them when its TCP send buffer was full.",
				name, thousands(d.Loss.DroppedBeforeTCP))
		}
		if r := d.Ramp; r != nil && d.ActiveS >= minRampDurationS && r.TargetKbps > 0 {
			switch {
			case r.T90S == nil:
				add(report.FindingSlowRamp, report.SeverityWarn, "%s: the media bitrate never reached 90%% of %s within %s.", name, fmtRate(r.TargetKbps), fmtSecs(d.ActiveS))
			case *r.T90S > slowRampS:
				add(report.FindingSlowRamp, report.SeverityWarn, "%s: the media bitrate took %s to reach 90%% of %s (a healthy call over UDP gets there in under 5 s).",
					name, fmtSecs(*r.T90S), fmtRate(r.TargetKbps))
			}
			if r.Stable != nil && !*r.Stable && r.T90S != nil && d.ActiveS-*r.T90S >= minStabilitySpanS && r.PlateauKbps > 0 {
				cv := ""
				if r.CVAfterT90 != nil {
					cv = fmt.Sprintf(" (coefficient of variation %.2f)", *r.CVAfterT90)
				}
				add(report.FindingUnstableBitrate, report.SeverityWarn, "%s: after ramping up, the media bitrate kept swinging more than 20%% around %s%s.",
					name, fmtRate(r.PlateauKbps), cv)
			}
		}
		if d.Efficiency != nil && *d.Efficiency < lowEfficiency && d.ActiveS >= minRampDurationS {
			add(report.FindingLowEfficiency, report.SeverityWarn, "%s: only %.0f%% of the %s bytes on the wire were media payload; the rest was headers, framing, retransmissions and control.",
				name, *d.Efficiency*100, thousands(d.WireBytes))
		}
		for _, id := range d.Streams {
			s := streams[id]
			if s == nil || s.JitterMS == nil || s.Packets < minJitterPackets || s.Kind != "audio" {
				continue
			}
			if s.JitterMS.Mean > jitterWarnMS {
				add(report.FindingHighJitter, report.SeverityWarn, "%s: audio stream %s had a mean interarrival jitter of %.1f ms (max %.1f ms).",
					name, s.SSRC, s.JitterMS.Mean, s.JitterMS.Max)
			}
		}
	}

	if ice := c.ICE; ice.Checks > 0 && ice.Successes == 0 {
		add(report.FindingICEFailed, report.SeverityBad, "ICE connectivity checks failed: %s Binding requests, no success response.", thousands(ice.Checks))
	}
	var errs []string
	for _, e := range c.TURN.Errors {
		if e.Code == 401 || e.Code == 438 { // the authentication challenge and a stale nonce are routine
			continue
		}
		errs = append(errs, fmt.Sprintf("%d (%d×)", e.Code, e.Count))
	}
	if len(errs) > 0 {
		add(report.FindingTURNErrors, report.SeverityWarn, "The TURN server answered with errors: %s.", strings.Join(errs, ", "))
	}
	var gap int64
	for _, f := range c.Flows {
		if f.TCP != nil {
			gap += f.TCP.AToB.CaptureGapBytes + f.TCP.BToA.CaptureGapBytes
		}
	}
	if gap > 0 {
		add(report.FindingCaptureGaps, report.SeverityWarn, "The capture missed %s bytes of TCP streams (never seen, though the peer acknowledged them): figures around those gaps are incomplete.", thousands(gap))
	}
	// Window stalls are their own finding: the receiver stopped the sender, which no
	// retransmission or loss figure shows.
	for _, f := range c.Flows {
		if f.TCP == nil {
			continue
		}
		for _, w := range []struct {
			from, to string
			d        *report.TCPDir
		}{{f.A, f.B, &f.TCP.AToB}, {f.B, f.A, &f.TCP.BToA}} {
			if s := w.d.WindowStalls; s.Count > 0 && s.LongestMS != nil {
				add(report.FindingWindowStalls, report.SeverityWarn, "TCP %s -> %s: the receiver's window filled %s times and stopped the sender, the longest stall %s ms.",
					w.from, w.to, thousands(s.Count), thousands(int64(math.Round(*s.LongestMS))))
			}
		}
	}
	if c.SnappedPackets > 0 {
		add(report.FindingSnappedPackets, report.SeverityInfo, "%s packets were cut by the capture's snap length: sizes come from the original lengths, payload checks from what was kept.", thousands(c.SnappedPackets))
	}
	encrypted := false
	for _, f := range c.Flows {
		for _, ct := range f.Content {
			if ct == "dtls" {
				encrypted = true
			}
		}
		if f.Framing != nil && *f.Framing == report.FramingTLS {
			encrypted = true
		}
	}
	if encrypted && len(c.Streams) > 0 {
		add(report.FindingEncryptedMedia, report.SeverityInfo, "The media is SRTP keyed by DTLS: payloads are hidden, so figures come from RTP headers and timing.")
	} else if encrypted {
		add(report.FindingEncryptedMedia, report.SeverityInfo, "The capture holds DTLS or TLS where media would be: its content is hidden.")
	}
	sortFindings(fs)
	return fs
}

// tcpCost ends the media_over_tcp sentence with what TCP cost on that leg: the share of its
// payload bytes that were retransmissions, and the media packets that came too late, held
// behind a retransmitted segment.
func tcpCost(c *report.Capture, l *report.Leg) string {
	var payload, retx int64
	for _, f := range c.Flows {
		if f.TCP != nil && slices.Contains(l.Flows, f.ID) {
			payload += f.TCP.AToB.PayloadBytes + f.TCP.BToA.PayloadBytes
			retx += f.TCP.AToB.RetransmittedBytes + f.TCP.BToA.RetransmittedBytes
		}
	}
	var media, late, hol int64
	budget := 0.0
	for _, d := range c.Directions {
		if !slices.Contains(d.Legs, l.ID) {
			continue
		}
		media += d.MediaPackets
		if d.Late != nil {
			late += d.Late.Packets
			hol += d.Late.HOLBlocked
			budget = d.Late.BudgetMS
		}
	}
	if payload == 0 {
		return ": every loss on that path turns into delay."
	}
	s := fmt.Sprintf(": %s of the bytes on that connection were retransmissions", fmtPct(100*float64(retx)/float64(payload)))
	if late > 0 && media > 0 {
		s += fmt.Sprintf(", and %s media packets (%s) arrived more than %.0f ms late, %s of them held behind a retransmitted segment",
			thousands(late), fmtPct(100*float64(late)/float64(media)), budget, thousands(hol))
	}
	return s + "."
}

func sortFindings(fs []report.Finding) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].Severity.Rank() < fs[j-1].Severity.Rank(); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

var (
	thousands = numfmt.Thousands
	fmtPct    = numfmt.Pct
	fmtRate   = numfmt.Rate
	fmtSecs   = numfmt.Seconds
)
