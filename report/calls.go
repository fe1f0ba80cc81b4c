package report

// Calls groups a capture's legs into calls, each a list of leg IDs, in the order of the
// report's legs (a call's place is that of its first leg). Legs relayed by one TURN
// allocation are one call: the TURN leg (its relayed address) and, at the TURN server, the
// leg from that relayed address to the peer. Two allocations whose peers are each other's
// relayed addresses (both ends of a call relayed by one server, which a TURN server's
// capture often holds) relay one call: their legs, and the leg between the two relayed
// addresses, are one. Every other leg is a call of its own: a capture cannot join two
// direct legs into one call without signalling. The findings name their call by these
// legs, and the text report's summary lists these calls.
func Calls(c *Capture) [][]string {
	relayed := map[string]bool{}
	for _, l := range c.Legs {
		if l.Relayed != nil {
			relayed[*l.Relayed] = true
		}
	}
	// Relayed addresses that one leg touches relay one call (union-find by address).
	parent := map[string]string{}
	var find func(a string) string
	find = func(a string) string {
		p, ok := parent[a]
		if !ok || p == a {
			return a
		}
		r := find(p)
		parent[a] = r
		return r
	}
	touched := func(l *Leg) []string {
		var out []string
		if l.Relayed != nil {
			out = append(out, *l.Relayed)
		}
		for _, a := range append([]string{l.Client, l.Server}, l.Peers...) {
			if relayed[a] {
				out = append(out, a)
			}
		}
		return out
	}
	for i := range c.Legs {
		as := touched(&c.Legs[i])
		for _, a := range as[min(1, len(as)):] {
			if ra, r0 := find(a), find(as[0]); ra != r0 {
				parent[ra] = r0
			}
		}
	}
	var calls [][]string
	at := map[string]int{} // a call's key → its index in calls
	for i := range c.Legs {
		l := &c.Legs[i]
		key := "l " + l.ID
		if as := touched(l); len(as) > 0 {
			key = "r " + find(as[0])
		}
		i, ok := at[key]
		if !ok {
			i = len(calls)
			at[key] = i
			calls = append(calls, nil)
		}
		calls[i] = append(calls[i], l.ID)
	}
	return calls
}

// StreamsByID returns c's streams by their IDs, for the directions that name them.
func StreamsByID(c *Capture) map[string]*Stream {
	m := make(map[string]*Stream, len(c.Streams))
	for i := range c.Streams {
		m[c.Streams[i].ID] = &c.Streams[i]
	}
	return m
}

// ReceiverReportedLoss sums, over the media streams of direction d (streams by their IDs),
// the loss their receivers reported in RTCP during the capture: rtcp.reported_lost and
// rtcp.reported_expected, what a capture taken before the loss (at the sender) cannot see.
func ReceiverReportedLoss(d *Direction, streams map[string]*Stream) (lost, expected int64) {
	for _, id := range d.Streams {
		s := streams[id]
		if s == nil || s.Lost == nil || s.RTCP == nil || s.RTCP.ReportedLost == nil || s.RTCP.ReportedExpected == nil {
			continue
		}
		lost += max(*s.RTCP.ReportedLost, 0)
		expected += *s.RTCP.ReportedExpected
	}
	return lost, expected
}
