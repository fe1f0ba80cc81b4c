package analysis

import "github.com/callpcap/callpcap/report"

// Compare sets the call directions of several captures side by side, one entry per capture
// and direction, in the order given (a capture that could not be read has none). It
// returns nil for fewer than two captures given.
func Compare(caps []report.Capture) *report.Comparison {
	if len(caps) < 2 {
		return nil
	}
	cmp := &report.Comparison{Entries: []report.ComparisonEntry{}}
	for _, c := range caps {
		for _, d := range c.Directions {
			e := report.ComparisonEntry{
				File: c.File, Direction: d.From + " -> " + d.To, Transport: d.Transport,
				GoodputKbps: d.GoodputKbps, WireKbps: d.WireKbps, Efficiency: d.Efficiency,
				RTPLossPct: d.Loss.Pct, TCPRetransmittedPct: d.TCPRetransmittedPct,
			}
			if r := d.Ramp; r != nil {
				e.T50S, e.T90S, e.Stable = r.T50S, r.T90S, r.Stable
			}
			if l := d.Late; l != nil {
				n, p := l.Packets, l.Pct
				e.LatePackets, e.LatePct = &n, &p
			}
			if d.DelayMS != nil {
				p := d.DelayMS.P95
				e.DelayP95MS = &p
			}
			cmp.Entries = append(cmp.Entries, e)
		}
	}
	return cmp
}
