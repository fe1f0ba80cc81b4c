package analysis

import (
	"fmt"
	"strings"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/rtpflow"
)

// directions raises the findings each call direction makes on its own: retransmissions,
// lateness, loss, jitter, the ramp and the bitrate's stability, avoidable overhead.
func (f *finder) directions() {
	for i := range f.c.Directions {
		d := &f.c.Directions[i]
		name := d.From + " -> " + d.To
		legs, dirs := f.callLegs(d.Legs...), []string{d.ID}
		absorbed := f.absorbed[d.ID]
		// Timing leaving a relay is the timing it arrived with, said on the way in; a loss is
		// said on either side, as a relay may drop what it received.
		fwd := f.forwarded[d.ID]
		if p := d.TCPRetransmittedPct; !absorbed && p != nil && *p > 0 {
			// A direction over TCP outside any TCP leg: not built today, kept so that a
			// retransmission is never left unsaid.
			f.add(report.FindingTCPRetransmissions, grade(*p, tcpRetxWarnPct, tcpRetxBadPct), legs, dirs,
				map[string]float64{"tcp_retransmitted_pct": *p},
				fmt.Sprintf("%s: %s of the TCP payload bytes carrying this media were retransmissions.", name, fmtPct(*p)))
		}
		if l := d.Late; !absorbed && !fwd && l != nil && l.Packets > 0 {
			figs := map[string]float64{"late_packets": float64(l.Packets), "late_pct": l.Pct}
			// Against the fastest of their stream within the baseline's window, not of the
			// whole call (h159: "the stream's fastest" where a queue of 15 s was not late).
			text := fmt.Sprintf("%s: %s (%s) arrived more than %s later than their stream's fastest within %d s, too late to be played",
				name, count(l.Packets, "media packet", "media packets"), fmtPct(l.Pct), numfmt.ExactMS(l.BudgetMS),
				rtpflow.BaselineWindow/1e9)
			if l.HOLBlocked > 0 {
				figs["hol_blocked"] = float64(l.HOLBlocked)
				text += fmt.Sprintf("; %s of them were held behind a retransmitted TCP segment (head-of-line blocking)", thousands(l.HOLBlocked))
			}
			f.add(report.FindingLatePackets, grade(l.Pct, latePctWarn, latePctBad), legs, dirs, figs, text+".")
		}
		// Packets dropped before TCP are in Lost (the receiver never got them) but are no
		// loss of the network path: they have their own finding below.
		var dropped int64
		if d.Loss.DroppedBeforeTCP != nil {
			dropped = *d.Loss.DroppedBeforeTCP
		}
		// At a TURN server, a call direction's loss is said once, by the direction with the
		// relay's figures (relayLoss), not again by the other leg's.
		relay := d.Relay != nil && f.hasCounterpart(d.ID)
		counterpart := f.relayed[d.ID] != nil
		lost := f.networkLoss(d)
		if relay {
			f.relayLoss(d, legs)
		} else if !counterpart && lost == 0 {
			f.reportedLoss(d, name, legs, dirs)
		} else if !counterpart && d.Loss.Pct != nil && lost > 0 && d.Loss.Expected > 0 {
			pct := 100 * float64(lost) / float64(d.Loss.Expected)
			figs := map[string]float64{"lost": float64(lost), "expected": float64(d.Loss.Expected), "loss_pct": numfmt.Round(pct, 3)}
			text := fmt.Sprintf("%s: %s of %s media packets %s lost (%s)", name, thousands(lost),
				thousands(d.Loss.Expected), wasWere(lost), fmtPct(pct))
			if d.Loss.RecoveredByRTX > 0 {
				figs["recovered_by_rtx"] = float64(d.Loss.RecoveredByRTX)
				// The receiver got these back, late: say so, or the loss reads worse than it was.
				text += fmt.Sprintf(", %s of them repaired by retransmission (RTX)", thousands(d.Loss.RecoveredByRTX))
			}
			switch {
			case d.DelayMS.AtSender():
				// Taken at the sender, no network lay before the capture: the numbers missing
				// there were never sent, or the capture missed them (a tester's sender-side
				// capture read as network loss). The severity stays the loss's: a receiver
				// lacks them all the same.
				text = fmt.Sprintf("%s: %s of %s media packets (%s) are missing from this capture, taken at their sender: the sender skipped their numbers, or the capture missed them; no network lay before it to lose them",
					name, thousands(lost), thousands(d.Loss.Expected), fmtPct(pct))
			case f.c.InterfaceDrops != nil && *f.c.InterfaceDrops > 0:
				text += fmt.Sprintf("; the capture's interfaces dropped %s packets, which may be among them", thousands(*f.c.InterfaceDrops))
			}
			f.add(report.FindingRTPLoss, grade(pct, lossWarnPct, lossBadPct), legs, dirs, figs, text+".")
		}
		// Who dropped them: the sender into its connection, the client on its way up to a
		// relay, the TURN server on its way down. At the TURN server both legs say which:
		// of the gaps on the client's leg on the way down, those the relay never received
		// are the peer leg's loss, said by rtp_loss (relayLoss); seen from the client they
		// may be either.
		l := f.legByID[d.Legs[0]]
		why := "the sender dropped them when its TCP send buffer was full"
		n := dropped
		switch {
		case l == nil || !l.Transport.TURN():
		case l.Client == d.From:
			why = "the client dropped them when its TCP send buffer was full"
		case d.Relay != nil:
			why = "the TURN server dropped them when its TCP send buffer was full"
			n = min(n, d.Relay.LostAfterRelay)
		default:
			why = "the TURN server dropped them when its TCP send buffer was full, or they were lost on the way from the peer to it"
		}
		if n > 0 {
			f.add(report.FindingDroppedBeforeTCP, report.SeverityWarn, legs, dirs, map[string]float64{"dropped_before_tcp": float64(n)},
				fmt.Sprintf("%s: %s never entered the TCP connection (a gap in RTP sequence numbers where TCP lost nothing): %s.",
					name, count(n, "RTP packet", "RTP packets"), why))
		}
		if did, t90, ok := f.slowRamp(d); ok && !absorbed && !fwd {
			figs := map[string]float64{"ramp_target_kbps": d.Ramp.TargetKbps}
			if t90 != nil {
				figs["t90_s"] = *t90
			}
			f.add(report.FindingSlowRamp, report.SeverityWarn, legs, dirs, figs, fmt.Sprintf("%s: the media bitrate %s.", name, did))
		}
		if r := d.Ramp; !fwd && r != nil && d.ActiveS >= minRampDurationS && r.TargetKbps > 0 && r.Stable != nil && !*r.Stable &&
			r.T90S != nil && d.ActiveS-*r.T90S >= minStabilitySpanS && r.PlateauKbps >= minPlateauKbps && !pausedOnly(d) &&
			!heldAtPlateau(d) {
			f.unstable(d, name, legs, dirs)
		}
		f.overhead(d, legs, absorbed)
		for _, id := range d.Streams {
			s := f.streams[id]
			if fwd || s == nil || s.JitterMS == nil || s.Packets < minJitterPackets || s.Kind != "audio" || s.JitterMS.Mean <= jitterWarnMS {
				continue
			}
			if s.DelayMS.AtSender() {
				continue // its sender's own pacing, as its delay is its own queueing: no path's
			}
			f.add(report.FindingHighJitter, report.SeverityWarn, legs, dirs,
				map[string]float64{"jitter_mean_ms": s.JitterMS.Mean, "jitter_max_ms": s.JitterMS.Max},
				fmt.Sprintf("%s: audio stream %s had a mean interarrival jitter of %.1f ms (max %.1f ms).", name, s.SSRC, s.JitterMS.Mean, s.JitterMS.Max))
		}
	}
}

// unstable raises unstable_bitrate for a direction whose bitrate was not stable after t90:
// it changed level once and held each (rtpflow.LevelStep: a codec change, a sender that
// settled lower), said as such, or it kept swinging around its plateau.
func (f *finder) unstable(d *report.Direction, name string, legs, dirs []string) {
	r := d.Ramp
	if at, from, to, ok := rtpflow.LevelStep(d.Series.MediaKbps, int(*r.T90S)); ok {
		f.add(report.FindingUnstableBitrate, report.SeverityWarn, legs, dirs,
			map[string]float64{"from_kbps": numfmt.Round(from, 3), "to_kbps": numfmt.Round(to, 3), "step_s": float64(at)},
			fmt.Sprintf("%s: the media bitrate changed level once, from %s to %s at %d s, and held there.", name, fmtRate(from), fmtRate(to), at))
		return
	}
	figs := map[string]float64{"plateau_kbps": r.PlateauKbps}
	cv := ""
	if r.CVAfterT90 != nil {
		figs["cv_after_t90"] = *r.CVAfterT90
		cv = fmt.Sprintf(" (coefficient of variation %.2f)", *r.CVAfterT90)
	}
	f.add(report.FindingUnstableBitrate, report.SeverityWarn, legs, dirs, figs,
		fmt.Sprintf("%s: after ramping up, the media bitrate kept swinging more than 20%% around %s%s.", name, fmtRate(r.PlateauKbps), cv))
}

// heldAtPlateau says whether a direction measured against --ramp-target, and so not stable
// around it, held around its own plateau all the same: it settled steadily elsewhere than
// the target (a slow ramp's matter, or none), and did not keep swinging.
func heldAtPlateau(d *report.Direction) bool {
	r := d.Ramp
	return r.TargetSource == report.TargetFromOption && rtpflow.HeldAround(d.Series.MediaKbps, int(*r.T90S), r.PlateauKbps)
}

// reportedLoss raises rtp_loss from what the receiver of a direction reported in its RTCP
// receiver reports during the capture, where the capture itself saw no loss: it was taken
// before the loss, at the sender or on the way (the loss counters of a capture at the
// sender read zero). The figures are the growth of the reported cumulative lost and of
// the extended highest sequence number, summed over the direction's media streams.
func (f *finder) reportedLoss(d *report.Direction, name string, legs, dirs []string) {
	lost, expected := report.ReceiverReportedLoss(d, f.streams)
	if lost == 0 || expected <= 0 {
		return
	}
	pct := 100 * float64(lost) / float64(expected)
	f.add(report.FindingRTPLoss, grade(pct, lossWarnPct, lossBadPct), legs, dirs,
		map[string]float64{"receiver_reported_lost": float64(lost), "receiver_reported_expected": float64(expected),
			"loss_pct": numfmt.Round(pct, 3)},
		fmt.Sprintf("%s: the receiver reported %s of %s media packets lost (%s) in its RTCP receiver reports; the capture saw none of them lost, so they were lost after this point.",
			name, thousands(lost), thousands(expected), fmtPct(pct)))
}

// overhead raises low_efficiency for the avoidable part of a direction's overhead only
// (see avoidableWarnPct): RTP padding, and over TCP outside a media_over_tcp finding the
// retransmissions, ACKs and framing. Headers are what the packet sizes cost on any path;
// RTX is a repair of loss, which rtp_loss states.
func (f *finder) overhead(d *report.Direction, legs []string, absorbed bool) {
	if d.WireBytes <= 0 || d.ActiveS < minRampDurationS {
		return
	}
	o := d.OverheadBytes
	type part struct {
		name, figure string
		bytes        int64
	}
	parts := []part{{"RTP padding", "padding_bytes", o.Padding}}
	if !absorbed && d.Transport.OverTCP() {
		parts = append(parts, part{"TCP retransmissions", "tcp_retransmissions_bytes", o.TCPRetransmissions},
			part{"TCP ACKs", "acks_bytes", o.ACKs}, part{"TCP framing", "framing_bytes", o.Framing})
	}
	var sum int64
	for _, p := range parts {
		sum += p.bytes
	}
	pct := 100 * float64(sum) / float64(d.WireBytes)
	if pct < avoidableWarnPct {
		return
	}
	figs := map[string]float64{"avoidable_overhead_pct": numfmt.Round(pct, 3)}
	var what []string
	for _, p := range parts {
		if p.bytes > 0 {
			figs[p.figure] = float64(p.bytes)
			what = append(what, fmt.Sprintf("%s %s", fmtPct(100*float64(p.bytes)/float64(d.WireBytes)), p.name))
		}
	}
	f.add(report.FindingLowEfficiency, report.SeverityWarn, legs, []string{d.ID}, figs,
		fmt.Sprintf("%s: %s of the %s bytes on the wire were avoidable overhead (%s); headers, which any path needs, are not counted.",
			d.From+" -> "+d.To, fmtPct(pct), thousands(d.WireBytes), strings.Join(what, ", ")))
}

// pausedOnly says whether what made d's bitrate unstable after t90 was pauses alone: seconds
// in which the sender all but stopped (a call on hold, by re-INVITE with a=sendonly), with
// the bitrate holding in the others (rtpflow.StableBesidePauses). A path that stopped
// delivering is no pause of the sender's: a TCP stall delivers the seconds' backlog late
// after it, an outage's packets are lost, so a pause with half a second's packets lost or
// late in it and the seconds around it is the path's (a loss a second, as a lossy path has
// anywhere, is not). Three SIP calls with a hold each were said to keep "swinging more
// than 20% around 64 kbps".
func pausedOnly(d *report.Direction) bool {
	paused, stable := rtpflow.StableBesidePauses(d.Series.MediaKbps, int(*d.Ramp.T90S))
	if len(paused) == 0 || !stable || d.ActiveS <= 0 {
		return false
	}
	halfSecond := float64(d.MediaPackets) / d.ActiveS / 2
	at := func(v []int64, i int) int64 {
		if i < 0 || i >= len(v) {
			return 0
		}
		return v[i]
	}
	for _, i := range paused {
		var held int64
		for j := i - 1; j <= i+1; j++ {
			held += at(d.Series.Lost, j)
			if j >= 0 && j < len(d.Series.Late) && d.Series.Late[j] != nil {
				held += *d.Series.Late[j]
			}
		}
		if float64(held) >= halfSecond {
			return false
		}
	}
	return true
}
