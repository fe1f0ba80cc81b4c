package demux

import (
	"net/netip"
	"slices"

	"github.com/callpcap/callpcap/internal/quantile"
	"github.com/callpcap/callpcap/internal/secmedian"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// ICE round trips: which checks measure one.
//
// A Binding request and its response are paired by transaction ID. The time between them
// is a round trip only when the request left the capture's host: a request that arrived
// here was answered next to the capture, and its response time is this host's processing
// time (about a millisecond), not the path. So:
//
//   - At a TURN server the same request (same transaction ID) is seen twice, arriving on one
//     leg and leaving on the other, in whatever order the two legs' copies reach the Tracker
//     (ice.go: the copy first seen in capture time arrived). It is one check, counted once
//     when it is done with (Tracker.finalize), its answer likewise; its round trip runs from
//     the copy that left the relay to the response that came back on that leg, and covers
//     that leg only: relayed address to peer (RTTLegRelayPeer) or server to client
//     (RTTLegRelayClient). Any other forwarder seen on both sides (a NAT captured on both
//     interfaces) gives RTTLegForwarded the same way.
//   - A check wrapped in TURN (ChannelData, Send/Data) on an allocation the capture saw, and
//     not seen leaving the relay, was captured on the client's side: the client's checks
//     (towards the server) are its own, the full round trip to the peer through the relay
//     (RTTLegHostRelayPeer); the peer's checks (from the server) were answered here.
//   - Direct checks (and wrapped ones on an unseen allocation): ICE agents check a
//     candidate pair in both directions (RFC 8445, 7.3.1.4, triggered checks). Per pair,
//     the direction whose fastest answer took less than vantageRatio of the other
//     direction's fastest answer was answered next to the capture: its responder is this
//     host, and the other direction's checks are this host's, each a full round trip
//     (RTTLegHostPeer).
//   - A pair that timing does not decide (checked one way only, or both ways with answers
//     of comparable speed) is decided by its addresses: an end the rules above showed to be
//     this host's (it answered at once elsewhere, or it ran the relay) is this host; else an
//     end behind a NAT (RFC 1918, RFC 4193, link-local, RFC 6598) facing a public one is on
//     the capture's side, since the capture sees that address, which never crosses the NAT.
//     This host's checks count, the checks it answered do not.
//   - Otherwise, checked both ways: the capture sits between the agents and each direction
//     measures part of the path: neither counts. Checked one way, with every answer slower
//     than an agent answers (minPathRTTMS), where no address is known to be this host's:
//     they were not answered here, so this host sent them (a browser's checks to an ICE-lite
//     server, which sends none). Else the capture cannot tell whether it sent the checks or
//     answered them, or, knowing this host's addresses at neither end, saw two other hosts:
//     their times go to RTTLegUnknown, not into the round trip.
//
// Pairs are decided when the capture ends (Tracker.ICE), or earlier once one direction has
// held maxHeld round trips. Retransmitted requests give no sample (Karn's rule).

// minPathRTTMS is the fastest answer of checks made one way only above which they were not
// answered next to the capture: an ICE agent answers a check in about a millisecond (a
// loaded one in a few), so checks whose every answer took longer were sent here, and each
// is a round trip to the responder. Below it (a LAN's round trips too) the pair stays
// undecided by timing.
const minPathRTTMS = 5.0

// vantageRatio is the fraction of the other direction's answer time under which a direction
// counts as answered at the capture, as the TCP vantage rule (DESIGN.md) uses 20% of the RTT.
const vantageRatio = 0.2

// Bounds on the round trips held while a pair's vantage is undecided.
const (
	maxICEPairs = 64   // candidate pairs whose samples are held
	maxHeld     = 256  // samples held per direction of a pair until its vantage is decided
	maxLocal    = 16   // addresses known to be this host's
	maxMarked   = 4096 // ends marked by the capture's packet types (MarkEnd)
)

// The legs an ICE round trip covers (report.ICERTTLeg.Leg).
const (
	RTTLegHostPeer      = "host_peer"       // this host to the peer and back
	RTTLegHostRelayPeer = "host_relay_peer" // this host through its TURN relay to the peer and back
	RTTLegRelayPeer     = "relay_peer"      // at a TURN server: relayed address to the peer and back
	RTTLegRelayClient   = "relay_client"    // at a TURN server: server to the client and back
	RTTLegForwarded     = "forwarded"       // a forwarder seen on both sides: it to the responder and back
	RTTLegUnknown       = "unknown"         // who sent these checks cannot be told: not in rtt_ms
)

// rttLegs orders the legs in the report.
var rttLegs = [...]string{RTTLegHostPeer, RTTLegHostRelayPeer, RTTLegRelayPeer, RTTLegRelayClient,
	RTTLegForwarded, RTTLegUnknown}

func legIndex(leg string) int {
	for i, l := range rttLegs {
		if l == leg {
			return i
		}
	}
	return len(rttLegs) - 1
}

// icePairKey is a candidate pair as the capture sees it: the two outer transport addresses
// in a fixed order, and the peer for a check wrapped in TURN.
type icePairKey struct {
	lo, hi, peer netip.AddrPort
}

// Vantage of a pair.
const (
	undecided int8 = iota
	loSends        // lo is this host: its checks count
	hiSends        // hi is this host
	between        // the capture is between the agents: neither counts
	settled        // undecided at the end of the capture, its samples placed by ICE
)

// icePair holds a pair's round trips until the pair's vantage is known. Direction 0 is
// lo's requests (answered by hi), direction 1 hi's.
type icePair struct {
	n       [2]int64
	min     [2]float64 // the fastest answer as the capture saw it (seenMS)
	held    [2][]heldRTT
	wrapped bool            // the checks travel wrapped in TURN (the round trip runs through the relay)
	proto   transport.Proto // of the flow the checks travel on
	vantage int8
}

// heldRTT is a round trip held until its pair's vantage is known, and when it completed.
type heldRTT struct {
	ms float64
	at int64
}

// rttFlow is the flow (outer transport addresses in a fixed order, and protocol) a round
// trip was measured on: a report leg's flow, so that the analysis can put its round trips in
// the series of the directions over that leg.
type rttFlow struct {
	lo, hi netip.AddrPort
	proto  transport.Proto
}

func newRTTFlow(a, b netip.AddrPort, proto transport.Proto) rttFlow {
	if b.Compare(a) < 0 {
		a, b = b, a
	}
	return rttFlow{a, b, proto}
}

// iceRTT is the Tracker's round-trip state.
type iceRTT struct {
	all  quantile.Hist // every round trip of a check this host (or its relay) sent
	legs [len(rttLegs)]quantile.Hist
	// byFlow holds the round trips of all by second, per flow (at most maxICEPairs flows:
	// later ones are in all only).
	byFlow map[rttFlow]*secmedian.Series
	pairs  map[icePairKey]*icePair
	order  []*icePair // by first seen, to settle them deterministically
	keys   []icePairKey
	local  []netip.Addr // addresses shown to be this host's
	// ends are transport addresses something other than the checks showed to be this
	// host's (Tracker.HostEnd): they decide their own pairs only.
	ends []netip.AddrPort
	// marked are the ends a Linux cooked capture marked (Tracker.MarkEnd): +1 this host's,
	// -1 another's. They decide their pairs before the answer times do.
	marked map[netip.AddrPort]int8
	// clients are this host's ends of TURN allocations whose own checks it sent (wrapped,
	// not seen relayed): the capture is on the client's side.
	clients []netip.AddrPort
}

// record adds a round trip covering leg, completed at time at on flow f.
func (r *iceRTT) record(leg string, ms float64, at int64, f rttFlow) {
	i := legIndex(leg)
	r.legs[i].Record(ms)
	if leg == RTTLegUnknown {
		return
	}
	r.all.Record(ms)
	s := r.byFlow[f]
	if s == nil {
		if len(r.byFlow) >= maxICEPairs {
			return
		}
		if r.byFlow == nil {
			r.byFlow = make(map[rttFlow]*secmedian.Series)
		}
		s = new(secmedian.Series)
		r.byFlow[f] = s
	}
	s.Add(at, ms)
}

// addLocal remembers an address of this host.
func (r *iceRTT) addLocal(a netip.Addr) {
	if !a.IsValid() || r.isLocal(a) || len(r.local) >= maxLocal {
		return
	}
	r.local = append(r.local, a)
}

func (r *iceRTT) isLocal(a netip.Addr) bool {
	for _, l := range r.local {
		if l == a {
			return true
		}
	}
	return false
}

// sample places the round trip ms of a matched, unretransmitted, unrelayed check e, whose
// answer came at time at; seenMS is the same as the capture saw it (from the request to
// the response's FirstSeen), which tells where the check was answered.
func (t *Tracker) sample(e *bindLeg, ms, seenMS float64, at int64) {
	r := &t.ice
	f := newRTTFlow(e.src, e.dst, e.proto)
	if e.via != transport.Direct {
		if a := t.lookup(e.src, e.dst, e.proto); a != nil {
			if a.key.client == e.src {
				r.record(RTTLegHostRelayPeer, ms, at, f)
				if len(r.clients) < maxLocal && !slices.Contains(r.clients, e.src) {
					r.clients = append(r.clients, e.src)
				}
			}
			return // else the peer's check, answered by the client here
		}
	}
	k := icePairKey{lo: e.src, hi: e.dst, peer: e.peer}
	dir := 0
	if k.hi.Compare(k.lo) < 0 {
		k.lo, k.hi, dir = k.hi, k.lo, 1
	}
	p, ok := r.pairs[k]
	if !ok {
		if len(r.pairs) >= maxICEPairs {
			t.stats.Untracked.ICEPairs++
			r.record(RTTLegUnknown, ms, at, f)
			return
		}
		if r.pairs == nil {
			r.pairs = make(map[icePairKey]*icePair)
		}
		p = &icePair{wrapped: e.via != transport.Direct, proto: e.proto}
		r.pairs[k] = p
		r.order = append(r.order, p)
		r.keys = append(r.keys, k)
	}
	if p.vantage != undecided {
		r.place(k, p, dir, heldRTT{ms, at})
		return
	}
	if p.n[dir] == 0 || seenMS < p.min[dir] {
		p.min[dir] = seenMS
	}
	p.n[dir]++
	p.held[dir] = append(p.held[dir], heldRTT{ms, at})
	if len(p.held[dir]) >= maxHeld {
		// Enough to judge by: decide now, and place the rest as they come.
		r.decide(k, p, true)
	}
}

// place records a round trip of direction dir of a decided pair, if it is this host's.
func (r *iceRTT) place(k icePairKey, p *icePair, dir int, h heldRTT) {
	f := newRTTFlow(k.lo, k.hi, p.proto)
	leg := RTTLegHostPeer
	if p.wrapped {
		leg = RTTLegHostRelayPeer
	}
	switch p.vantage {
	case loSends, hiSends:
		if (dir == 0) == (p.vantage == loSends) {
			r.record(leg, h.ms, h.at, f)
		}
	case settled: // one way only, placed by what is known of its ends
		from, to := k.lo, k.hi
		if dir == 1 {
			from, to = to, from
		}
		switch {
		case r.isLocal(from.Addr()):
			r.record(leg, h.ms, h.at, f)
		case !r.isLocal(to.Addr()):
			r.record(RTTLegUnknown, h.ms, h.at, f)
		}
	}
}

// decide sets a pair's vantage and places the round trips it held. byTiming uses only the
// answer times (the first pass, whose results place the other pairs); otherwise the
// addresses decide what timing could not.
func (r *iceRTT) decide(k icePairKey, p *icePair, byTiming bool) {
	if p.vantage = r.byMarks(k); p.vantage != undecided {
		switch p.vantage {
		case loSends:
			r.addLocal(k.lo.Addr())
		case hiSends:
			r.addLocal(k.hi.Addr())
		}
	} else if p.n[0] > 0 && p.n[1] > 0 {
		// Both directions answered: the one answered much faster was answered here.
		switch {
		case p.min[0] < vantageRatio*p.min[1]:
			p.vantage = hiSends
			r.addLocal(k.hi.Addr())
		case p.min[1] < vantageRatio*p.min[0]:
			p.vantage = loSends
			r.addLocal(k.lo.Addr())
		}
	}
	if p.vantage == undecided && !byTiming {
		lo, hi := k.lo.Addr(), k.hi.Addr()
		switch {
		case slices.Contains(r.ends, k.lo) && !slices.Contains(r.ends, k.hi):
			p.vantage = loSends
		case slices.Contains(r.ends, k.hi) && !slices.Contains(r.ends, k.lo):
			p.vantage = hiSends
		case r.isLocal(lo) && !r.isLocal(hi):
			p.vantage = loSends
		case r.isLocal(hi) && !r.isLocal(lo):
			p.vantage = hiSends
		case behindNAT(lo) && !behindNAT(hi):
			p.vantage = loSends
		case behindNAT(hi) && !behindNAT(lo):
			p.vantage = hiSends
		case p.n[0] > 0 && p.n[1] > 0:
			p.vantage = between
		case len(r.local) == 0 && p.n[0] > 0 && p.min[0] >= minPathRTTMS:
			p.vantage = loSends
		case len(r.local) == 0 && p.n[1] > 0 && p.min[1] >= minPathRTTMS:
			p.vantage = hiSends
		default:
			p.vantage = settled
		}
	}
	if p.vantage == undecided {
		return
	}
	for dir, held := range p.held {
		for _, v := range held {
			r.place(k, p, dir, v)
		}
	}
	p.held = [2][]heldRTT{}
}

// byMarks decides a pair by what the capture marked of its ends (MarkEnd): one end this
// host's and the other another's, the host's checks count; both another's (a router's or a
// bridge's capture, which writes what it forwards as arrived), the capture is between the
// agents. Marks are what the capture saw, where answer times are only a sign: an agent
// slow to answer made the far end look like this host.
func (r *iceRTT) byMarks(k icePairKey) int8 {
	lo, hi := r.marked[k.lo], r.marked[k.hi]
	switch {
	case lo > 0 && hi < 0:
		return loSends
	case hi > 0 && lo < 0:
		return hiSends
	case lo < 0 && hi < 0:
		return between
	}
	return undecided
}

// behindNAT reports whether a is an address seen only on a private network's side of a
// NAT (RFC 1918, RFC 4193, link-local, RFC 6598 shared space): a capture that sees it as an
// end of a check against a public address was taken on its side.
func behindNAT(a netip.Addr) bool {
	return a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLoopback() || sharedSpace.Contains(a.Unmap())
}

var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// settle decides the pairs still undecided at the end of the capture: by their answer
// times first, then by addresses, using what the first pass showed to be this host's.
func (r *iceRTT) settle() {
	for _, byTiming := range []bool{true, false} {
		for i, p := range r.order {
			if p.vantage == undecided {
				r.decide(r.keys[i], p, byTiming)
			}
		}
	}
}

// relayLeg names the leg a check relayed at the capture was measured on: the leg its
// onward copy travelled.
func relayLeg(in, out transport.Via) string {
	switch {
	case in != transport.Direct && out == transport.Direct:
		return RTTLegRelayPeer
	case in == transport.Direct && out != transport.Direct:
		return RTTLegRelayClient
	}
	return RTTLegForwarded
}

// hostEndpoints returns the transport addresses that the checks showed to be this host's
// ICE endpoints (the sending end of a pair decided loSends or hiSends, a client's own end
// for checks wrapped in TURN): media sent from one of them was captured at its sender.
// Checks relayed at the capture are left out: a relay forwards media, it does not send it.
func (r *iceRTT) hostEndpoints() []netip.AddrPort {
	r.settle()
	eps := slices.Clone(r.clients)
	for i, p := range r.order {
		k := r.keys[i]
		var ep netip.AddrPort
		switch p.vantage {
		case loSends:
			ep = k.lo
		case hiSends:
			ep = k.hi
		default:
			continue
		}
		if !slices.Contains(eps, ep) {
			eps = append(eps, ep)
		}
	}
	return eps
}

// RTTSeries returns the round trips of ice.rtt_ms measured on the flow between a and b
// (either order) over proto, by second; nil when none was. The capture must have ended:
// pairs still undecided are settled first, as for the summary.
func (t *Tracker) RTTSeries(a, b netip.AddrPort, proto transport.Proto) *secmedian.Series {
	t.finalizeAll()
	t.ice.settle()
	return t.ice.byFlow[newRTTFlow(a, b, proto)]
}

// summary returns the round trips for the report: all of them, and per leg.
func (r *iceRTT) summary() (*report.Quantiles, []report.ICERTTLeg) {
	r.settle()
	legs := []report.ICERTTLeg{}
	for i := range r.legs {
		if q := r.legs[i].Summary(); q != nil {
			legs = append(legs, report.ICERTTLeg{Leg: rttLegs[i], RTTMS: q})
		}
	}
	return r.all.Summary(), legs
}
