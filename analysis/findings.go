package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
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
