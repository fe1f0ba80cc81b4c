package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/callpcap/callpcap/report"
)

// Headline says in one line how the media travelled.
func Headline(c *report.Capture) string {
	if len(c.Legs) == 0 {
		return "No RTP media found"
	}
	// At a TURN server the capture holds many calls: the headline counts them, the calls
	// block under it names them.
	relayedFor := relayedClients(c.Legs)
	between := func(l report.Leg) string {
		return hostOf(l.Client) + " <-> " + peersHosts(farEnds(l.Peers, relayedFor))
	}
	if calls := report.Calls(c); len(calls) > 1 {
		between = func(l report.Leg) string {
			k := 0 // calls with a leg of l's transport
			for _, legs := range calls {
				if slices.ContainsFunc(legs, func(id string) bool {
					i := slices.IndexFunc(c.Legs, func(x report.Leg) bool { return x.ID == id })
					return i >= 0 && c.Legs[i].Transport == l.Transport
				}) {
					k++
				}
			}
			if k == len(calls) {
				return fmt.Sprintf("%d calls", k)
			}
			return fmt.Sprintf("%d of %d calls", k, len(calls))
		}
	}
	for _, want := range []report.Transport{report.TransportTURNTCP, report.TransportTURNTLS} {
		for _, l := range c.Legs {
			if l.Transport == want {
				return fmt.Sprintf("Media relayed over TCP: TURN %s (%s) for %s",
					l.Server, strings.TrimPrefix(string(want), "turn-"), between(l))
			}
		}
	}
	for _, l := range c.Legs {
		switch t := l.Transport; {
		case t.TURN():
			return fmt.Sprintf("Media relayed over UDP: TURN %s for %s", l.Server, between(l))
		case t.OverTCP():
			return fmt.Sprintf("Media over TCP (%s): %s <-> %s", l.Transport, l.Client, l.Server)
		}
	}
	l := c.Legs[0]
	more := ""
	if len(c.Legs) > 1 {
		more = fmt.Sprintf(" (and %d more legs)", len(c.Legs)-1)
	}
	return fmt.Sprintf("Media direct over UDP: %s <-> %s%s", l.Client, l.Server, more)
}

func hostOf(addrPort string) string {
	if i := strings.LastIndexByte(addrPort, ':'); i > 0 {
		return strings.Trim(addrPort[:i], "[]")
	}
	return addrPort
}

// relayedClients maps each TURN leg's relayed address to its client.
func relayedClients(legs []report.Leg) map[string]string {
	out := map[string]string{}
	for _, l := range legs {
		if l.Transport.TURN() && l.Relayed != nil {
			out[*l.Relayed] = l.Client
		}
	}
	return out
}

// farEnds names a TURN leg's peers by the hosts at the far end of the call: a peer that is
// the relayed address of another allocation in the capture (both ends of the call relayed
// by one server) is that allocation's client.
func farEnds(peers []string, relayedFor map[string]string) []string {
	out := make([]string, len(peers))
	for i, p := range peers {
		out[i] = p
		if c, ok := relayedFor[p]; ok {
			out[i] = c
		}
	}
	return out
}

func peersHosts(peers []string) string {
	if len(peers) == 0 {
		return "unknown peer"
	}
	seen := map[string]bool{}
	var hosts []string
	for _, p := range peers {
		if h := hostOf(p); !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	return strings.Join(hosts, ", ")
}

func legParts(l *report.Leg) []string {
	if !l.Transport.TURN() {
		return []string{fmt.Sprintf("%s  %-8s  %s", l.ID, l.Transport, l.Client), "<-> " + l.Server}
	}
	// Joined by single spaces: the pieces carry their own wider gaps.
	parts := []string{fmt.Sprintf("%s  %-8s  %s", l.ID, l.Transport, l.Client), "-> TURN " + l.Server}
	if l.Relayed != nil {
		parts = append(parts, " relayed "+*l.Relayed)
	}
	if len(l.Peers) > 0 {
		peers := commaList(l.Peers)
		peers[0] = " peers " + peers[0]
		parts = append(parts, peers...)
	}
	return parts
}
