package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/callpcap/callpcap/report"
)

// callSummary is one call of a capture of several (report.Calls), as its summary line
// tells it.
type callSummary struct {
	n        int // 1-based, in the report's order of legs
	legs     []string
	severity report.Severity // of its worst finding; "" without one
	lossPct  float64         // the worst of its directions'
	// reportedPct is the worst loss its directions' receivers reported in RTCP where the
	// capture saw none (report.ReceiverReportedLoss)
	reportedPct float64
	latePct     float64
	retxPct     *float64
	measured    struct{ loss, late bool } // whether any direction measured them
}

// callLine is one call's summary, as the text and the pages show it: the mark of its worst
// finding ("" without one), "call N", its two ends and transport, its legs and what went
// wrong (or what was measured to be fine).
type callLine struct {
	Severity report.Severity
	Name     string
	Ends     string
	Legs     string
	What     string
	legIDs   []string
}

// callLines returns one line per call of c, worst first: the worst finding's severity, then
// the larger of the worst direction's loss and late shares (both are media a listener
// missed), then the TCP retransmitted share. Calls are numbered in the report's order,
// which the details follow, so a line's number and legs find its details. Nil for a capture
// of one call: its report needs no such summary.
func callLines(c *report.Capture) []callLine {
	calls := report.Calls(c)
	if len(calls) < 2 {
		return nil
	}
	sums := make([]callSummary, len(calls))
	callOf := map[string]int{}
	for i, legs := range calls {
		sums[i] = callSummary{n: i + 1, legs: legs}
		for _, l := range legs {
			callOf[l] = i
		}
	}
	for _, f := range c.Findings {
		seen := map[int]bool{}
		for _, l := range f.Legs {
			i, ok := callOf[l]
			if !ok || seen[i] {
				continue
			}
			seen[i] = true
			if s := &sums[i]; s.severity == "" || f.Severity.Rank() < s.severity.Rank() {
				s.severity = f.Severity
			}
		}
	}
	streams := report.StreamsByID(c)
	for _, d := range c.Directions {
		seen := map[int]bool{}
		for _, l := range d.Legs {
			i, ok := callOf[l]
			if !ok || seen[i] {
				continue
			}
			seen[i] = true
			s := &sums[i]
			if d.Loss.Pct != nil {
				s.lossPct = max(s.lossPct, *d.Loss.Pct)
				s.measured.loss = true
			}
			if p, _, _, ok := receiverLossPct(&d, streams); ok {
				s.reportedPct = max(s.reportedPct, p)
			}
			if d.Late != nil {
				s.latePct = max(s.latePct, d.Late.Pct)
				s.measured.late = true
			}
			if r := d.TCPRetransmittedPct; r != nil && (s.retxPct == nil || *r > *s.retxPct) {
				s.retxPct = r
			}
		}
	}
	rank := func(s report.Severity) int {
		if s == "" {
			return 3 // no finding: after info
		}
		return s.Rank()
	}
	retx := func(s *callSummary) float64 {
		if s.retxPct == nil {
			return 0
		}
		return *s.retxPct
	}
	slices.SortStableFunc(sums, func(a, b callSummary) int {
		return cmp.Or(cmp.Compare(rank(a.severity), rank(b.severity)),
			cmp.Compare(max(b.lossPct, b.latePct), max(a.lossPct, a.latePct)),
			cmp.Compare(retx(&b), retx(&a)), cmp.Compare(a.n, b.n))
	})

	legs := map[string]*report.Leg{}
	for i := range c.Legs {
		legs[c.Legs[i].ID] = &c.Legs[i]
	}
	lines := make([]callLine, len(sums))
	for i := range sums {
		s := &sums[i]
		var figs []string
		if s.latePct > 0 {
			figs = append(figs, pct(s.latePct)+" late")
		}
		if s.lossPct > 0 {
			figs = append(figs, pct(s.lossPct)+" lost")
		}
		if s.reportedPct > 0 {
			figs = append(figs, pct(s.reportedPct)+" lost by the receiver's RTCP")
		}
		if r := s.retxPct; r != nil && *r > 0 {
			figs = append(figs, pct(*r)+" TCP retransmitted")
		}
		// Nothing to tell: say what was measured to be fine, so that an unmeasured share
		// never reads as none.
		if len(figs) == 0 {
			switch m := s.measured; {
			case m.loss && m.late:
				figs = append(figs, "nothing lost or late")
			case m.loss:
				figs = append(figs, "nothing lost")
			case m.late:
				figs = append(figs, "nothing late")
			default:
				figs = append(figs, "loss and lateness not measured")
			}
		}
		lines[i] = callLine{Severity: s.severity, Name: fmt.Sprintf("call %d", s.n), Ends: callEnds(s.legs, legs),
			Legs: strings.Join(s.legs, ", "), What: strings.Join(figs, ", "), legIDs: s.legs}
	}
	return lines
}

// calls writes the capture's call lines (callLines) under a heading.
func (t *textWriter) calls(lines []callLine) {
	t.line("%s, worst first", count(int64(len(lines)), "call", "calls"))
	for _, l := range lines {
		mark := "  "
		if l.Severity != "" {
			mark = severityMark(l.Severity)
		}
		// The ends and legs word by word, so that a call between IPv6 hosts wraps rather
		// than run past the width; the figures whole. A piece that starts with a space
		// keeps the two-space gap between the three.
		pieces := strings.Fields(l.Ends)
		legs := strings.Fields("(" + l.Legs + ")")
		legs[0] = " " + legs[0]
		pieces = append(append(pieces, legs...), " "+l.What)
		t.parts(fmt.Sprintf("  %s %-8s ", mark, l.Name), "             ", " ", pieces...)
	}
}

// callEnds names a call by its two ends and how its media travelled: for a relayed call
// the TURN client and its peers (what the call was, rather than the relay's own
// addresses; a peer relayed by the same server is its allocation's client), and each
// transport of its TURN legs (both ends relayed, one over TCP and one over UDP: "TURN/TCP
// and TURN/UDP"), otherwise its first leg's two ends.
func callEnds(ids []string, legs map[string]*report.Leg) string {
	var first, turn *report.Leg
	var turnVia []string // the transports of the call's TURN legs, once each
	relayedFor := map[string]string{}
	for _, id := range ids {
		l := legs[id]
		if l == nil {
			continue
		}
		if first == nil {
			first = l
		}
		if !l.Transport.TURN() {
			continue
		}
		if turn == nil {
			turn = l
		}
		if l.Relayed != nil {
			relayedFor[*l.Relayed] = l.Client
		}
		if via := transportName(l.Transport); !slices.Contains(turnVia, via) {
			turnVia = append(turnVia, via)
		}
	}
	if turn != nil {
		return fmt.Sprintf("%s <-> %s via %s", hostOf(turn.Client), peersHosts(farEnds(turn.Peers, relayedFor)), strings.Join(turnVia, " and "))
	}
	if first == nil {
		return "no leg"
	}
	return fmt.Sprintf("%s <-> %s via %s", hostOf(first.Client), hostOf(first.Server), transportName(first.Transport))
}

// transportName is a transport as a person writes it: TURN/TCP, ICE-TCP, UDP.
func transportName(t report.Transport) string {
	return strings.ReplaceAll(strings.ToUpper(string(t)), "TURN-", "TURN/")
}
