package report

// Calls groups a capture's legs into calls, each a list of leg IDs, in the order of the
// report's legs (a call's place is that of its first leg). Legs relayed by one TURN
// allocation are one call: the TURN leg (its relayed address) and, at the TURN server, the
// leg from that relayed address to the peer. Every other leg is a call of its own: a
// capture cannot join two direct legs into one call without signalling. The findings name
// their call by these legs, and the text report's summary lists these calls.
func Calls(c *Capture) [][]string {
	relayed := map[string]bool{}
	for _, l := range c.Legs {
		if l.Relayed != nil {
			relayed[*l.Relayed] = true
		}
	}
	var calls [][]string
	at := map[string]int{} // a call's key → its index in calls
	for _, l := range c.Legs {
		var key string
		switch {
		case l.Relayed != nil:
			key = "r " + *l.Relayed
		case relayed[l.Client]:
			key = "r " + l.Client
		case relayed[l.Server]:
			key = "r " + l.Server
		default:
			key = "l " + l.ID
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
