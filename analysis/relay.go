package analysis

import (
	"encoding/binary"
	"net/netip"

	"github.com/callpcap/callpcap/demux"
	"github.com/callpcap/callpcap/rtpflow"
	"github.com/callpcap/callpcap/transport"
)

// Relay correlation at a TURN server capture (DESIGN, "Legs, directions, relay").
//
// The capture holds both legs of the relay: the TURN leg between the client and the server
// (TCP or UDP, media wrapped in ChannelData or indications) and the peer leg, plain UDP
// between the allocation's relayed address and the peer. Every RTP packet (SSRC, sequence
// number) of a call direction is looked for on both legs: on its ingress leg (where it
// reached the relay: the TURN leg for client to peer, the peer leg for peer to client) and its
// egress leg (where the relay sent it on).
//
//   - matched: packets seen on both legs; latency_ms is the time the relay sent the packet
//     on minus the time it had it. The relay had it when it was delivered to it on the
//     ingress leg (Delivered): on UDP the capture time; on TCP the server is the receiver,
//     and it can forward a message only once it holds it whole and in order, which its
//     capture dates as the segment that completed it (a retransmission filling a hole
//     delays what waits behind it). The relay sent it when the egress copy first left
//     (FirstSeen): on TCP the server is the sender and its capture sees each segment as it
//     goes out, while Delivered dates the receiver's application, half a round trip later
//     (the covering ACK less RTT/2), and would add that to the relay's latency.
//   - lost_after_relay: packets seen on the ingress leg and never on the egress leg (within
//     relayWindow of capture time, or before the end of the capture).
//   - lost_before_relay: packets missing on the ingress leg though its sequence numbers show
//     they were sent: the ingress streams' RTP-level lost count, less the packets seen on
//     the egress leg only (the relay had them: the capture missed their ingress copy).
//     They never reach the egress leg either, and are not in lost_after_relay.
//
// Packets seen only on the egress leg are in no figure but that one.
// The same SSRC and sequence numbers on both legs are the relay, not duplication: the legs are
// different flows, so their streams are different streams.
//
// Bounds: each direction keeps at most maxRelayPending unmatched packets, evicted in order
// of arrival and after relayWindow, so memory does not grow with the packet count. The
// window is long: a relay whose TCP connection to the client stalls holds its packets for
// seconds (a tester's send queue blocked 2.5 s: 27 packets it forwarded were called lost
// with a 2 s window); a packet pushed out by the bound before it counts nowhere. Packets
// are recorded only once a peer-leg flow has been seen (at a client's capture nothing is
// recorded, and the per-packet cost is one slice lookup). At a server capture ICE checks
// through the relay open the peer leg before the media, unless the capture has none: then
// the first packets reach the relay before the peer leg's first datagram, their own copy
// leaving it. So the last earlyPackets packets from clients are kept aside until a peer leg
// is first seen, and recorded then; after earlyLimit of them with no peer leg, the capture
// is taken for a client's and none is kept.
//
// A UDP flow is a peer leg when one of its ends is the relayed address of an allocation,
// decided at its first datagram. When both are (both ends of the call relayed by this
// server), it is the peer leg of both allocations: each datagram leaves one and reaches
// the other, the egress of one call direction and the ingress of the other's next hop.
// That datagram may come before the Allocate success
// response that names the relayed address: over TCP, tcpframe holds the server's messages
// back while it cannot yet tell the vantage of their direction (up to a second), and the
// peer leg's first datagrams, the ICE checks, come a round trip after the response. So a
// "no" is decided again whenever the demux learns a relayed address (allocated, on STUN
// messages only); a datagram costs the one state lookup still. The flow's RTP datagrams
// analysed before that were held (heldDatagrams, the last few thousand of any flow not a
// peer leg) and are recorded then, matching their copies on the TURN leg. A packet without
// its other copy counts (lost after the relay, or sent on with its ingress copy missed)
// only from when both legs were recorded whole (relayDir.from): the peer leg from the
// ring's oldest datagram (its own first when the ring has them all), the TURN leg from its
// first STUN message or ChannelData, unless one of its RTP packets went unrecorded since
// (turnLegFrom: no peer leg seen yet, a channel whose peer was not known).
//
// Figures go on the call direction of the TURN leg (from and to the two endpoints); the peer
// leg's own direction (relayed address and peer) has relay null. The peer leg is a "udp" leg
// whose client is the peer, whose server and relayed address are the relayed address.
const (
	maxRelayPending = 16384
	relayWindow     = int64(10e9) // 10 s of capture time
	earlyPackets    = 64
	earlyLimit      = 4096
	maxRelaySSRCs   = 64 // SSRCs a direction counts egress-only, forwarded and lost-after packets of
)

// Flow relay states.
const (
	relayUnchecked int8 = iota
	relayNo
	relayYes
)

type relayTracker struct {
	state   []int8                            // per flow index
	client  map[netip.AddrPort]netip.AddrPort // relayed address → TURN client
	clients map[netip.AddrPort]bool           // the TURN clients in client
	newest  map[netip.AddrPort]netip.AddrPort // learn's scratch: the newest client of each address
	known   int64                             // demux.Tracker.RelayedChanges when client was filled
	active  bool                              // a peer-leg flow was seen
	dirs    map[dirKey]*relayDir              // keyed by the TURN-leg path
	order   []dirKey
	// early holds the last packets from TURN clients seen before any peer leg (see the
	// header comment), earlyN how many there were.
	early  [earlyPackets]earlyPacket
	earlyN int
	// skipped is the capture time of the TURN legs' latest RTP packet not recorded (see
	// turnLegFrom).
	skipped int64
	// held keeps the RTP datagrams of flows not yet known to be peer legs, from when a TURN
	// flow was seen (turnSeen): without one, no relayed address is to be learnt.
	held     heldDatagrams
	turnSeen bool
	// unallocated holds, by relayed address and client, when the client had no allocation
	// of the address after one was deleted (a Refresh with LIFETIME 0, its TCP
	// connection's end), as of demux.Tracker.Deletions deletions and RelayedChanges
	// allocations (known).
	unallocated map[[2]netip.AddrPort]spans
	deletions   int64
}

// earlyPacket is what record needs of an ingress packet on a TURN leg.
type earlyPacket struct {
	path    rtpflow.Path
	key     uint64
	t       int64
	untimed bool
}

// udp looks at a datagram of a UDP flow: on a peer-leg flow its RTP packets are recorded.
func (r *relayTracker) udp(a *analyzer, f *flow, m *transport.Message, cls demux.Class) {
	if f.proto != transport.UDP {
		return
	}
	for f.idx >= len(r.state) {
		r.state = append(r.state, relayUnchecked)
	}
	st := r.state[f.idx]
	if st == relayUnchecked {
		st = r.check(a, f)
		r.state[f.idx] = st
	}
	if cls != demux.ClassRTP || f.turn || st != relayYes && !r.turnSeen {
		return
	}
	key, ok := relayKey(m.Payload)
	switch {
	case !ok:
	case st == relayYes:
		r.peerDatagram(f, m.Src == f.a, key, m.Delivered, m.FirstSeen, a.timeUnknown)
	default:
		r.held.hold(f, m, key, a.timeUnknown)
	}
}

// peerDatagram records an RTP packet of peer-leg flow f, sent by its end a or b, for each
// allocation it is the peer leg of; untimed when stamped with a clock jump (recordIn).
func (r *relayTracker) peerDatagram(f *flow, fromA bool, key uint64, delivered, firstSeen int64, untimed bool) {
	src := f.b
	if fromA {
		src = f.a
	}
	r.allocationsOf(f, func(rel, peer, c netip.AddrPort) {
		if src == peer { // peer to client: this leg is the ingress
			d := r.dir(dirKey{peer, c})
			if !d.ingress.Src.IsValid() { // its first: was the allocation deleted already?
				d.unallocated = r.unallocated[[2]netip.AddrPort{rel, c}]
			}
			r.recordIn(d, rtpflow.Path{Leg: f.idx, Src: peer, Dst: rel}, key, delivered, true, untimed, 0)
		} else {
			r.record(dirKey{c, peer}, rtpflow.Path{Leg: f.idx, Src: rel, Dst: peer}, key, firstSeen, false, untimed)
		}
	})
}

// allocationsOf calls fn for each end of flow f that is a known relayed address, with the
// other end (its peer) and the allocation's client. Both ends are, when both ends of the
// call are relayed by this server: the flow is the peer leg of both allocations.
func (r *relayTracker) allocationsOf(f *flow, fn func(relayed, peer, client netip.AddrPort)) {
	for _, rel := range [2]netip.AddrPort{f.a, f.b} {
		if c, ok := r.client[rel]; ok {
			peer := f.a
			if rel == f.a {
				peer = f.b
			}
			fn(rel, peer, c)
		}
	}
}

// check says whether flow f runs between a relayed address and a peer, from the relayed
// addresses known so far.
func (r *relayTracker) check(a *analyzer, f *flow) int8 {
	r.learn(a)
	if !r.peerFlow(f) {
		return relayNo
	}
	r.activate()
	return relayYes
}

// activate marks a peer leg seen, and records the packets kept aside until then.
func (r *relayTracker) activate() {
	if r.active {
		return
	}
	r.active = true
	for i := max(r.earlyN-earlyPackets, 0); i < r.earlyN; i++ {
		e := &r.early[i%earlyPackets]
		r.record(dirKey{e.path.Src, e.path.Dst}, e.path, e.key, e.t, true, e.untimed)
	}
}

// peerFlow says whether f is a UDP flow, not TURN's own, with an end at a known relayed
// address.
func (r *relayTracker) peerFlow(f *flow) bool {
	if f.proto != transport.UDP || f.turn {
		return false
	}
	return r.live(f.a) || r.live(f.b)
}

// ends returns the relayed address and the peer of a peer-leg flow.
func (r *relayTracker) ends(f *flow) (relayed, peer netip.AddrPort) {
	if _, ok := r.client[f.a]; ok {
		return f.a, f.b
	}
	return f.b, f.a
}

// learn adds the relayed addresses the demux learnt since it last looked to r.client, and
// returns them. A relayed address given again to another client (its first allocation
// ended, and the server handed the address out anew) is the newest allocation's from then
// on, and fresh too: the packets of its peer leg are the new call's.
func (r *relayTracker) learn(a *analyzer) (fresh []netip.AddrPort) {
	n := a.turn.RelayedChanges()
	if n == r.known {
		return nil
	}
	r.known = n
	// The newest client of each address: the allocations come in the order met. The map
	// is kept from one call to the next: a TURN server's capture learns its hundreds of
	// addresses one at a time (a map made per call cost 10 MB over 250 calls).
	if r.newest == nil {
		r.newest = map[netip.AddrPort]netip.AddrPort{}
	}
	clear(r.newest)
	a.turn.EachRelayed(func(relayed, client netip.AddrPort) { r.newest[relayed] = client })
	a.turn.EachRelayed(func(relayed, _ netip.AddrPort) {
		client := r.newest[relayed]
		if c, ok := r.client[relayed]; ok && c == client {
			return
		}
		if r.client == nil {
			r.client, r.clients = map[netip.AddrPort]netip.AddrPort{}, map[netip.AddrPort]bool{}
		}
		r.client[relayed], r.clients[client] = client, true
		fresh = append(fresh, relayed)
	})
	return fresh
}

// hasRelayed says whether the relayed address of an allocation of TURN client c, of TURN
// flow f, is known. Once it is, f remembers (flow.relayedKnown): one load a packet.
func (r *relayTracker) hasRelayed(f *flow, c netip.AddrPort) bool {
	if !f.relayedKnown {
		f.relayedKnown = r.clients[c]
	}
	return f.relayedKnown
}

// knownRelayed says whether ap is the relayed address of an allocation known so far.
func (r *relayTracker) knownRelayed(ap netip.AddrPort) bool {
	_, ok := r.client[ap]
	return ok
}

// wrapped looks at an RTP packet unwrapped from the TURN leg, on path (client to peer or
// peer to client): from the client it reached the relay (Delivered), to it the relay sent
// it (FirstSeen).
func (r *relayTracker) wrapped(a *analyzer, f *flow, client netip.AddrPort, path rtpflow.Path, m *transport.Message) {
	untimed := a.timeUnknown && m.Proto == transport.UDP // a datagram is analysed as its packet is
	if !r.active && (r.earlyN >= earlyLimit || path.Src != client) {
		r.skipped = m.Delivered
		return // a client's capture, after its first packets: one compare a packet
	}
	if !path.Src.IsValid() || !path.Dst.IsValid() {
		r.skipped = m.Delivered
		return // on a channel whose peer is not known: no direction to match it in
	}
	key, ok := relayKey(m.Payload)
	if !ok {
		return
	}
	if !r.active {
		e := &r.early[r.earlyN%earlyPackets]
		if r.earlyN >= earlyPackets {
			r.skipped = max(r.skipped, e.t) // the oldest kept aside, given up
		}
		*e = earlyPacket{path, key, m.Delivered, untimed}
		r.earlyN++
		return
	}
	k := dirKey{path.Src, path.Dst}
	d := r.dir(k)
	ingress := path.Src == client
	if d.awaitTURN { // every packet here is on the direction's TURN leg
		d.from, d.awaitTURN = max(d.from, r.turnLegFrom(f, m.Src)), false
	}
	if ingress {
		r.recordIn(d, path, key, m.Delivered, true, untimed, 0)
	} else {
		r.recordIn(d, path, key, m.FirstSeen, false, untimed, m.Stream.Gaps)
	}
}

// turnLegFrom returns the capture time from which the RTP packets that TURN flow f carried
// from src were all recorded: the earliest first sighting of its TURN messages from src
// (flow.turnFrom; the capture may begin in the middle of a connection, or tcpframe find
// its framing late), unless
// a packet was not recorded since (skipped: no peer leg seen yet, a channel whose peer
// was not known, kept aside and given up).
func (r *relayTracker) turnLegFrom(f *flow, src netip.AddrPort) int64 {
	return max(f.turnFrom[f.dir(src)], r.skipped)
}

// relayKey is what identifies an RTP packet across the legs: its SSRC and sequence number.
func relayKey(b []byte) (uint64, bool) {
	if len(b) < 12 {
		return 0, false
	}
	return uint64(binary.BigEndian.Uint32(b[8:]))<<16 | uint64(binary.BigEndian.Uint16(b[2:])), true
}

// peerLeg says whether flow f is the peer leg of a relay, and its relayed address and peer.
func (r *relayTracker) peerLeg(f *flow) (relayed, peer netip.AddrPort, ok bool) {
	if f.idx >= len(r.state) || r.state[f.idx] != relayYes {
		return relayed, peer, false
	}
	relayed, peer = r.ends(f)
	return relayed, peer, true
}
