package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/rtpflow"
)

// Thresholds of the findings: where a figure starts to matter to a person on the call. A
// figure under its warn threshold may still be stated (as info, or as a figure of its
// cause's finding), but a figure of 0 is never a finding.
const (
	lossWarnPct = 1.0 // audio concealment becomes audible, video freezes begin
	lossBadPct  = 5.0 //
	latePctWarn = 1.0 // share of packets too late to play: a glitch every 2 s of audio at 1%
	latePctBad  = 5.0 //
	// One retransmitted byte in a hundred is about one lost segment in a hundred: each one
	// holds every later message for an RTO or more; at 5% the connection is rarely not
	// recovering.
	tcpRetxWarnPct = 1.0
	tcpRetxBadPct  = 5.0
	jitterWarnMS   = 30.0 // mean RFC 3550 jitter above a typical jitter buffer's comfort
	slowRampS      = 10.0 // t90 later than this is a slow ramp (GCC over UDP reaches it in < 5 s)
	// Avoidable overhead: the wire bytes a direct UDP path would not have spent on the same
	// media (TCP retransmissions, the TCP ACKs of the other side and the TCP framing, RTP
	// padding), as a share of the direction's wire bytes. Headers are not avoidable: Opus at
	// 20 ms (~100-byte payloads) is ~57% payload on any path, and judging efficiency against
	// 100% would flag every audio call. A fifth of the bandwidth spent for nothing is what a
	// protocol engineer would act on; TCP's ACKs alone cost that on audio-only media.
	avoidableWarnPct  = 20.0
	minRampDurationS  = 10.0 // a direction shorter than this has no meaningful ramp or overhead share
	minJitterPackets  = 50
	minStabilitySpanS = 10.0
	// A plateau below this is no media rate: no codec sends so little while active (AMR-NB's
	// lowest mode is 4.75 kbps, Opus's 6); the direction sent silence, comfort noise or
	// nothing in its second half (a SIP call switched to T.38 fax), and a ramp towards it or
	// a swing around it says nothing of the path.
	minPlateauKbps = 1.0
)

// Findings diagnoses a capture's report: one finding per cause, its symptoms as its figures,
// the most severe first, and [] when there is nothing to say (never nil: a list in the
// report is never null). It reads the report model only, so it can be tested on a report
// built by hand.
//
// Media over TCP is one cause: its retransmissions, the packets held behind them (late,
// head-of-line blocking), a slow ramp and the bytes TCP cost (ACKs, framing, copies) are the
// figures of its one media_over_tcp finding per leg, whose severity is the worst of theirs,
// so the cause ranks before whatever else the call shows; they are no findings of their own
// (tcp_retransmissions, late_packets and slow_ramp are left for media that did not ride TCP).
// Each finding names its call: the call's legs (at a TURN server the client's leg and the
// peer's, joined by the relayed address) and, where it is about one direction, that
// direction, in the sentence and in Legs and Directions.
func Findings(c *report.Capture) []report.Finding {
	f := newFinder(c)
	f.legs()
	f.directions()
	f.capture()
	sortFindings(f.fs)
	return f.fs
}

type finder struct {
	c        *report.Capture
	fs       []report.Finding
	legByID  map[string]*report.Leg
	streams  map[string]*report.Stream
	call     map[string]int  // leg ID → its call (report.Calls)
	absorbed map[string]bool // direction IDs whose symptoms are figures of a media_over_tcp finding
	// forwarded: direction IDs of media leaving a TURN relay that the capture also saw
	// arrive at it (a TURN server's capture): its lateness, jitter and bitrate are the
	// arriving direction's, said once, there.
	forwarded map[string]bool
	// relayed: at a TURN server, the direction on the other leg of a direction whose relay
	// figures the capture has (report.Relay), by its ID, to that direction: one call
	// direction's loss is said once, split by where it happened.
	relayed map[string]*report.Direction
}

func newFinder(c *report.Capture) *finder {
	f := &finder{c: c, fs: []report.Finding{}, legByID: map[string]*report.Leg{}, streams: report.StreamsByID(c),
		call: map[string]int{}, absorbed: map[string]bool{}}
	for i := range c.Legs {
		f.legByID[c.Legs[i].ID] = &c.Legs[i]
	}
	for i, legs := range report.Calls(c) {
		for _, id := range legs {
			f.call[id] = i
		}
	}
	f.forwarded = forwardedDirections(c)
	f.relayed = f.relayCounterparts()
	return f
}

// networkLoss is the part of a direction's lost packets that the network path lost: all
// but those of its streams on legs over TCP. TCP loses nothing it was given: a stream over
// TCP lost packets its sender or relay dropped before TCP (dropped_before_tcp says so) or
// that the capture missed (capture_gaps: the peer acknowledged them).
func (f *finder) networkLoss(d *report.Direction) int64 {
	lost := d.Loss.Lost
	for _, id := range d.Streams {
		s := f.streams[id]
		if s == nil || s.Lost == nil {
			continue
		}
		if l := f.legByID[s.Leg]; l != nil && l.Transport.OverTCP() {
			lost -= *s.Lost
		}
	}
	return max(lost, 0)
}

// callLegs returns the legs of the calls of the given legs, in the report's order.
func (f *finder) callLegs(ids ...string) []string {
	keys := map[int]bool{}
	for _, id := range ids {
		if k, ok := f.call[id]; ok {
			keys[k] = true
		}
	}
	out := []string{}
	for _, l := range f.c.Legs {
		if keys[f.call[l.ID]] {
			out = append(out, l.ID)
		}
	}
	return out
}

func (f *finder) add(code report.FindingCode, sev report.Severity, legs, dirs []string, figs map[string]float64, text string) {
	if dirs == nil {
		dirs = []string{}
	}
	if legs == nil {
		legs = []string{}
	}
	if figs == nil {
		figs = map[string]float64{}
	}
	f.fs = append(f.fs, report.Finding{Code: code, Severity: sev, Text: text, Legs: legs, Directions: dirs, Figures: figs})
}

// grade is the severity of a figure against its warn and bad thresholds.
func grade(v, warn, bad float64) report.Severity {
	switch {
	case v >= bad:
		return report.SeverityBad
	case v >= warn:
		return report.SeverityWarn
	}
	return report.SeverityInfo
}

func worse(a, b report.Severity) report.Severity {
	if b.Rank() < a.Rank() {
		return b
	}
	return a
}

func (f *finder) legs() {
	for i := range f.c.Legs {
		l := &f.c.Legs[i]
		switch t := l.Transport; {
		case t.OverTCP():
			f.mediaOverTCP(l)
		case t.TURN():
			if !f.relayedBeyondSTUN(l) {
				// Nothing but STUN went through this allocation, checks that went unanswered:
				// no media was relayed (a tester's second call was said to have been).
				continue
			}
			f.add(report.FindingMediaOverTURN, report.SeverityInfo, f.callLegs(l.ID), nil, nil,
				fmt.Sprintf("Media between %s and %s was relayed over UDP through TURN %s instead of a direct path.",
					l.Client, f.peersOf(l), l.Server))
		}
	}
}

// relayedBeyondSTUN says whether a TURN leg carried anything but STUN: a call direction, or
// on its flows anything else inside the ChannelData (DTLS, RTCP, a messenger's own media).
func (f *finder) relayedBeyondSTUN(l *report.Leg) bool {
	if slices.ContainsFunc(f.c.Directions, func(d report.Direction) bool { return slices.Contains(d.Legs, l.ID) }) {
		return true
	}
	for _, fl := range f.c.Flows {
		if slices.Contains(l.Flows, fl.ID) && slices.ContainsFunc(fl.Content, func(c string) bool { return c != "stun" && c != "channeldata" }) {
			return true
		}
	}
	return false
}

// mediaPeers lists the ends of a TURN leg's call directions other than its client, in the
// order of the directions: the peers media went to or came from.
func (f *finder) mediaPeers(l *report.Leg) []string {
	var out []string
	for i := range f.c.Directions {
		d := &f.c.Directions[i]
		if !slices.Contains(d.Legs, l.ID) {
			continue
		}
		for _, e := range []string{d.From, d.To} {
			if e != l.Client && e != "unknown" && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// peersOf names a TURN leg's peers: those media went to or came from, else those the
// allocation named (a permission names an address that may never carry anything).
func (f *finder) peersOf(l *report.Leg) string {
	if p := f.mediaPeers(l); len(p) > 0 {
		return strings.Join(p, ", ")
	}
	if len(l.Peers) == 0 {
		return "its peer"
	}
	return strings.Join(l.Peers, ", ")
}

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
			text := fmt.Sprintf("%s: %s (%s) arrived more than %s later than the stream's fastest, too late to be played",
				name, count(l.Packets, "media packet", "media packets"), fmtPct(l.Pct), numfmt.ExactMS(l.BudgetMS))
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
			case d.DelayMS != nil && d.DelayMS.Vantage == "sender":
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
			figs := map[string]float64{"plateau_kbps": r.PlateauKbps}
			cv := ""
			if r.CVAfterT90 != nil {
				figs["cv_after_t90"] = *r.CVAfterT90
				cv = fmt.Sprintf(" (coefficient of variation %.2f)", *r.CVAfterT90)
			}
			f.add(report.FindingUnstableBitrate, report.SeverityWarn, legs, dirs, figs,
				fmt.Sprintf("%s: after ramping up, the media bitrate kept swinging more than 20%% around %s%s.", name, fmtRate(r.PlateauKbps), cv))
		}
		f.overhead(d, legs, absorbed)
		for _, id := range d.Streams {
			s := f.streams[id]
			if fwd || s == nil || s.JitterMS == nil || s.Packets < minJitterPackets || s.Kind != "audio" || s.JitterMS.Mean <= jitterWarnMS {
				continue
			}
			f.add(report.FindingHighJitter, report.SeverityWarn, legs, dirs,
				map[string]float64{"jitter_mean_ms": s.JitterMS.Mean, "jitter_max_ms": s.JitterMS.Max},
				fmt.Sprintf("%s: audio stream %s had a mean interarrival jitter of %.1f ms (max %.1f ms).", name, s.SSRC, s.JitterMS.Mean, s.JitterMS.Max))
		}
	}
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

func sortFindings(fs []report.Finding) {
	slices.SortStableFunc(fs, func(a, b report.Finding) int { return a.Severity.Rank() - b.Severity.Rank() })
}

// wasWere is the verb for n things: "1 of 20 was", "3 of 20 were".
func wasWere(n int64) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// times says how many times something happened: once, twice, 3 times.
func times(n int64) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return thousands(n) + " times"
}

var (
	count     = numfmt.Count
	thousands = numfmt.Thousands
	fmtPct    = numfmt.Pct
	fmtRate   = numfmt.Rate
	fmtSecs   = numfmt.Seconds
)

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
