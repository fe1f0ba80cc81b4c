package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// mediaOverTCP states the one cause, media over TCP on leg l, with its symptoms on the
// leg's directions as figures: the retransmitted share of the connection's bytes, the media
// packets that came late (and how many waited behind a retransmission), a slow ramp, and
// the wire bytes TCP cost beyond what UDP would have.
func (f *finder) mediaOverTCP(l *report.Leg) {
	var payload, retx int64
	for _, fl := range f.c.Flows {
		if fl.TCP != nil && slices.Contains(l.Flows, fl.ID) {
			payload += fl.TCP.AToB.PayloadBytes + fl.TCP.BToA.PayloadBytes
			retx += fl.TCP.AToB.RetransmittedBytes + fl.TCP.BToA.RetransmittedBytes
		}
	}
	figs := map[string]float64{}
	sev := report.SeverityInfo
	var symptoms, dirs []string
	if payload > 0 && retx > 0 {
		pct := 100 * float64(retx) / float64(payload)
		figs["tcp_retransmitted_pct"] = numfmt.Round(pct, 3)
		figs["retransmitted_bytes"] = float64(retx)
		sev = worse(sev, grade(pct, tcpRetxWarnPct, tcpRetxBadPct))
		symptoms = append(symptoms, fmt.Sprintf("%s of the bytes on that connection were retransmissions", fmtPct(pct)))
	}

	var media, late, hol, lateRetx, win, backlog, wire int64
	var acks, framing, retrans int64 // what TCP cost beyond what UDP would have
	budget := 0.0
	var slowest string // the slowest ramp's clause
	slowT90, never := 0.0, false
	for i := range f.c.Directions {
		d := &f.c.Directions[i]
		if !d.Transport.OverTCP() || !slices.Contains(d.Legs, l.ID) {
			continue
		}
		f.absorbed[d.ID] = true
		dirs = append(dirs, d.ID)
		if d.Late != nil {
			// Of the packets whose lateness was measured: a direction captured at its
			// sender has none (h141: 45 late read 23% of two directions, 46% of its own).
			media += d.MediaPackets
			late += d.Late.Packets
			hol += d.Late.HOLBlocked
			if d.Late.Causes != nil {
				lateRetx += d.Late.Causes.Retransmission
				win += d.Late.Causes.Window
				backlog += d.Late.Causes.Backlog
			}
			budget = d.Late.BudgetMS
		}
		o := d.OverheadBytes
		wire += d.WireBytes
		acks, framing, retrans = acks+o.ACKs, framing+o.Framing, retrans+o.TCPRetransmissions
		if did, t90, ok := f.slowRamp(d); ok && !never && (t90 == nil || *t90 > slowT90) {
			slowest = "the media bitrate " + d.From + " -> " + d.To + " " + did
			if t90 == nil {
				never = true
				delete(figs, "t90_s")
			} else {
				slowT90 = *t90
				figs["t90_s"] = *t90
			}
			figs["ramp_target_kbps"] = d.Ramp.TargetKbps
		}
	}
	if late > 0 && media > 0 {
		pct := 100 * float64(late) / float64(media)
		figs["late_packets"], figs["late_pct"] = float64(late), numfmt.Round(pct, 3)
		sev = worse(sev, grade(pct, latePctWarn, latePctBad))
		s := fmt.Sprintf("%s (%s) arrived more than %s late", count(late, "media packet", "media packets"), fmtPct(pct), numfmt.ExactMS(budget))
		if hol > 0 {
			figs["hol_blocked"] = float64(hol)
			s += fmt.Sprintf(", %s of them held behind a retransmitted segment (head-of-line blocking)", thousands(hol))
		}
		if own := lateRetx - hol; own > 0 {
			// Late by their own repair: retransmitted, but waiting for no earlier byte.
			figs["late_retransmitted"] = float64(own)
			s += fmt.Sprintf(", %s whose own bytes were retransmitted", thousands(own))
		}
		if win > 0 {
			figs["late_window"] = float64(win)
			s += fmt.Sprintf(", %s waiting for the receiver's full TCP window", thousands(win))
		}
		if backlog > 0 && (lateRetx > 0 || win > 0) {
			figs["late_backlog"] = float64(backlog)
			s += fmt.Sprintf(", %s queued at the sender before TCP sent them", thousands(backlog))
		} else if backlog > 0 {
			figs["late_backlog"] = float64(backlog)
			s += ", all queued at the sender before TCP sent them (no retransmission or full window held them)"
		}
		symptoms = append(symptoms, s)
	}
	if slowest != "" {
		sev = worse(sev, report.SeverityWarn)
		symptoms = append(symptoms, slowest)
	}
	var cost string // what TCP cost on the wire, said last
	if tcpCost := acks + framing + retrans; wire > 0 && tcpCost > 0 {
		// What TCP cost on the wire is said whatever it was (a figure is a number of the
		// sentence: a tester's 8.8% was a figure the sentence did not say); from
		// avoidableWarnPct on it is a warning.
		pct := 100 * float64(tcpCost) / float64(wire)
		figs["avoidable_overhead_pct"] = numfmt.Round(pct, 3)
		if pct >= avoidableWarnPct {
			sev = worse(sev, report.SeverityWarn)
		}
		// Name only the parts that cost something: a call with no loss retransmitted nothing.
		var parts []string
		for _, c := range []struct {
			name  string
			bytes int64
		}{{"ACKs", acks}, {"framing", framing}, {"retransmissions", retrans}} {
			if c.bytes > 0 {
				parts = append(parts, c.name)
			}
		}
		cost = fmt.Sprintf("TCP's %s took %s of the wire bytes", andList(parts), fmtPct(pct))
	}

	var text string
	if l.Transport.TURN() {
		text = fmt.Sprintf("Media between %s and %s was relayed over TCP through TURN %s", l.Client, f.peersOf(l), l.Server)
	} else {
		text = fmt.Sprintf("Media travelled over TCP (%s) between %s and %s", l.Transport, l.Client, l.Server)
	}
	switch {
	case len(symptoms) == 0 && len(dirs) == 0:
		// Inside TLS no packet is seen, so none is known to be late: only TCP's own figures.
		symptoms = append(symptoms, "nothing was retransmitted in this capture, but on that path every loss turns into delay")
	case len(symptoms) == 0:
		symptoms = append(symptoms, "nothing was retransmitted or late in this capture, but on that path every loss turns into delay")
	}
	if cost != "" {
		symptoms = append(symptoms, cost)
	}
	text += ": " + strings.Join(symptoms, "; ") + "."
	f.add(report.FindingMediaOverTCP, sev, f.callLegs(l.ID), dirs, figs, text)
}

// slowRamp says whether direction d ramped slowly: what its media bitrate did, for a
// sentence, and its t90 (nil when it never reached 90% of the target). A target the user
// gave (--ramp-target) is a video rate: a direction without video (the other side's audio)
// is not said to ramp slowly for falling short of it, though its ramp figures are kept.
func (f *finder) slowRamp(d *report.Direction) (did string, t90 *float64, ok bool) {
	r := d.Ramp
	if r == nil || d.ActiveS < minRampDurationS || r.TargetKbps <= 0 ||
		r.TargetSource == report.TargetFromPlateau && r.PlateauKbps < minPlateauKbps {
		return "", nil, false
	}
	if r.TargetSource == report.TargetFromOption && !f.hasVideo(d) {
		return "", nil, false
	}
	switch {
	case r.T90S == nil:
		return fmt.Sprintf("never reached 90%% of %s within %s", fmtRate(r.TargetKbps), fmtSecs(d.ActiveS)), nil, true
	case *r.T90S > slowRampS:
		return fmt.Sprintf("took %s to reach 90%% of %s (a healthy call over UDP gets there in under 5 s)",
			fmtSecs(*r.T90S), fmtRate(r.TargetKbps)), r.T90S, true
	}
	return "", nil, false
}

// hasVideo says whether direction d carries a video stream.
func (f *finder) hasVideo(d *report.Direction) bool {
	for _, s := range f.c.Streams {
		if s.Direction == d.ID && s.Kind == "video" {
			return true
		}
	}
	return false
}

// andList joins names as a sentence does: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
