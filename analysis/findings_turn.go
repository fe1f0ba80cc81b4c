package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// Findings about TURN: the server's refusals, and at a TURN server whose capture holds both
// legs of a call, the media leaving the relay is the media that arrived, so its timing is
// said once, on the way in, and a call direction's loss once, split by where it happened.

// relayCounterparts maps each direction that carries the same media (an SSRC) on another
// leg of the same call than a direction with relay figures to that direction (two calls may
// carry the same SSRCs).
func (f *finder) relayCounterparts() map[string]*report.Direction {
	c := f.c
	sameCall := func(a, b []string) bool {
		return len(a) > 0 && len(b) > 0 && f.call[a[0]] == f.call[b[0]]
	}
	out := map[string]*report.Direction{}
	ssrcs := map[string][]string{} // direction ID → its streams' SSRCs
	for _, s := range c.Streams {
		ssrcs[s.Direction] = append(ssrcs[s.Direction], s.SSRC)
	}
	for i := range c.Directions {
		d := &c.Directions[i]
		if d.Relay == nil {
			continue
		}
		for j := range c.Directions {
			e := &c.Directions[j]
			if e.ID == d.ID || e.Relay != nil || !sameCall(e.Legs, d.Legs) ||
				slices.ContainsFunc(e.Legs, func(l string) bool { return slices.Contains(d.Legs, l) }) {
				continue
			}
			if slices.ContainsFunc(ssrcs[e.ID], func(s string) bool { return slices.Contains(ssrcs[d.ID], s) }) {
				out[e.ID] = d
			}
		}
	}
	return out
}

// forwardedDirections returns the directions whose media a TURN relay in the capture
// forwards: they start at a leg's relayed address and carry an SSRC that another direction
// carries too (the same packets on their way in).
func forwardedDirections(c *report.Capture) map[string]bool {
	relayed := map[string]bool{}
	for _, l := range c.Legs {
		if l.Relayed != nil {
			relayed[*l.Relayed] = true
		}
	}
	out := map[string]bool{}
	if len(relayed) == 0 {
		return out
	}
	dirOf := map[string][]string{} // SSRC → the directions carrying it
	for _, s := range c.Streams {
		dirOf[s.SSRC] = append(dirOf[s.SSRC], s.Direction)
	}
	for _, d := range c.Directions {
		if !relayed[d.From] {
			continue
		}
		for _, s := range c.Streams {
			if s.Direction == d.ID && len(dirOf[s.SSRC]) > 1 {
				out[d.ID] = true
				break
			}
		}
	}
	return out
}

// hasCounterpart says whether a direction with relay figures has its other leg's direction.
func (f *finder) hasCounterpart(id string) bool {
	for _, d := range f.relayed {
		if d.ID == id {
			return true
		}
	}
	return false
}

// overTCP says whether any of the legs is over TCP.
func (f *finder) overTCP(legs []string) bool {
	return slices.ContainsFunc(legs, func(id string) bool { l := f.legByID[id]; return l != nil && l.Transport.OverTCP() })
}

// relayLoss states the loss of one call direction through a TURN relay whose two legs the
// capture holds (a TURN server's): once, as the packets lost before the relay (never
// reached it) and after it (reached it, never left it), with both legs' directions. Where
// the client's leg is TCP, the packets that never entered it are dropped_before_tcp's, said
// apart: those the client's sender dropped (before the relay, on the way up) and those the
// relay dropped when its TCP send buffer was full (after it, on the way down).
func (f *finder) relayLoss(d *report.Direction, legs []string) {
	r := d.Relay
	before, after := r.LostBeforeRelay, r.LostAfterRelay
	l := f.legByID[d.Legs[0]]
	up := l != nil && l.Client == d.From // from the client: d is the relay's way in
	var dropped int64
	if f.overTCP(d.Legs) {
		// Those the direction on the client's leg counts as never having entered TCP
		// (dropped_before_tcp's); the rest stay where they were lost. Before, every packet
		// lost on that side was taken for one, and the figure said 6 where the direction
		// and dropped_before_tcp's finding said 5 (h141).
		if d.Loss.DroppedBeforeTCP != nil {
			dropped = *d.Loss.DroppedBeforeTCP
		}
		if up {
			before = max(before-dropped, 0)
		} else {
			after = max(after-dropped, 0)
		}
	}
	lost := before + after
	// Of the packets that left the relay's way out: on the peer's leg on the way up (the
	// other direction), on the client's on the way down (d).
	dirs := []string{d.ID}
	var expected int64
	if !up {
		expected = d.Loss.Expected
	}
	for id, rd := range f.relayed {
		if rd.ID != d.ID {
			continue
		}
		dirs = append(dirs, id)
		for i := range f.c.Directions {
			if e := &f.c.Directions[i]; e.ID == id && up {
				expected = max(expected, e.Loss.Expected)
			}
		}
	}
	slices.Sort(dirs)
	if lost <= 0 || expected <= 0 {
		return
	}
	pct := 100 * float64(lost) / float64(expected)
	// The relay's figures as the direction's relay object has them: the sentence's loss
	// leaves out the packets that never entered TCP, said by dropped_before_tcp's finding.
	figs := map[string]float64{"lost": float64(lost), "expected": float64(expected), "loss_pct": numfmt.Round(pct, 3)}
	for k, v := range map[string]int64{"lost_before_relay": r.LostBeforeRelay, "lost_after_relay": r.LostAfterRelay,
		"dropped_before_tcp": dropped} {
		if v > 0 {
			figs[k] = float64(v)
		}
	}
	var where []string
	if before > 0 {
		where = append(where, fmt.Sprintf("%s before the relay", thousands(before)))
	}
	if after > 0 {
		where = append(where, fmt.Sprintf("%s that reached it and never left it", thousands(after)))
	}
	f.add(report.FindingRTPLoss, grade(pct, lossWarnPct, lossBadPct), legs, dirs, figs,
		fmt.Sprintf("%s -> %s through the relay: %s of %s media packets %s lost (%s): %s.", d.From, d.To,
			thousands(lost), thousands(expected), wasWere(lost), fmtPct(pct), strings.Join(where, ", ")))
}

// turnErrors states the TURN server's error responses that are failures (see
// report.TURNErrorRoutine); the routine ones (401 challenge, 438 stale nonce, 300 redirect)
// only when no allocation attempted in the capture was granted, since then they are why.
func (f *finder) turnErrors() {
	granted := false
	for _, a := range f.c.TURN.Allocations {
		granted = granted || a.Relayed != nil
	}
	failedAll := len(f.c.TURN.Allocations) > 0 && !granted
	var errs, clients []string
	figs := map[string]float64{}
	routine := true // every error said is routine: the cause is what did not follow them
	again := false  // a client was answered so more than once: its retry was refused too
	for _, e := range f.c.TURN.Errors {
		if e.Count == 0 || report.TURNErrorRoutine(e.Code) && !failedAll {
			continue
		}
		n := len(e.Clients) // all of them, when fewer than the bound
		again = again || n > 0 && n < report.MaxTURNErrorClients && e.Count > int64(n)
		for _, c := range e.Clients {
			if !slices.Contains(clients, c) {
				clients = append(clients, c)
			}
		}
		routine = routine && report.TURNErrorRoutine(e.Code)
		figs[fmt.Sprintf("error_%d", e.Code)] = float64(e.Count)
		s := fmt.Sprint(e.Code)
		if r := report.TURNErrorReason(e.Code); r != "" {
			s += " " + r
		}
		errs = append(errs, fmt.Sprintf("%s (%d×)", s, e.Count))
	}
	// The calls refused, by their clients: their legs, and in the sentence (at a TURN
	// server, which of its calls).
	slices.Sort(clients)
	var legs []string
	for _, l := range f.c.Legs {
		if slices.Contains(clients, l.Client) {
			legs = append(legs, l.ID)
		}
	}
	legs = f.callLegs(legs...)
	to, from := "", ""
	if len(clients) > 0 {
		to, from = " to "+strings.Join(clients, ", "), " from "+strings.Join(clients, ", ")
	}
	switch {
	case failedAll && len(errs) > 0 && routine && again:
		// The retry came, and was answered the same (h139: "that request, or its answer,
		// is not in the capture" where both were); whether it carried credentials the
		// report does not say (h142: a client that sent none twice).
		f.add(report.FindingTURNErrors, report.SeverityBad, legs, nil, figs,
			fmt.Sprintf("No TURN allocation was granted%s in the capture: the server answered only %s, which a client answers with a new request carrying its credentials; challenged again, the client sent none, or the server refused them.", to, strings.Join(errs, ", ")))
	case failedAll && len(errs) > 0 && routine:
		// A 401 is the challenge a client answers with its credentials: not why nothing
		// was granted, but the last thing the capture shows.
		f.add(report.FindingTURNErrors, report.SeverityBad, legs, nil, figs,
			fmt.Sprintf("No TURN allocation was granted%s in the capture: the server answered only %s, which a client answers with a new request; that request, or its answer, is not in the capture.", to, strings.Join(errs, ", ")))
	case failedAll && len(errs) > 0:
		f.add(report.FindingTURNErrors, report.SeverityBad, legs, nil, figs,
			fmt.Sprintf("No TURN allocation was granted%s: the server answered %s.", to, strings.Join(errs, ", ")))
	case len(errs) > 0:
		f.add(report.FindingTURNErrors, report.SeverityWarn, legs, nil, figs,
			fmt.Sprintf("The TURN server refused requests%s: %s.", from, strings.Join(errs, ", ")))
	}
}
