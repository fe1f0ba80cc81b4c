package analysis

import (
	"net/netip"
	"slices"

	"github.com/callpcap/callpcap/transport"
)

// Learning a relay from its traffic, at a TURN server whose capture began mid-call. The
// Allocate success response names an allocation's relayed address and the ChannelBind
// request a channel's peer; a capture of a minute on a busy server holds neither for most
// of its calls (allocations are refreshed without naming the address, channels every few
// minutes). Without them the peer leg is a call of its own, the TURN leg's media goes to
// an unknown peer, and no relay figure can be had. But a relay forwards each RTP packet
// unchanged: one that reached the server in ChannelData on a channel it does not know and
// left it, within learnWindow, as a UDP datagram from an address on the server's IP says
// that this address is the allocation's relayed address and the datagram's destination the
// channel's peer; so does a datagram from a peer to an address on the server's IP that
// the server sends on to a client on a channel it does not know. The two copies are
// analysed in either order (tcpframe holds TCP messages back until an ACK dates them), so
// whichever comes first waits for the other. An RTP packet is known by its SSRC and
// sequence number (relayKey), which two unrelated packets share within a second once in
// 2^48.
//
// The learner watches from the first TURN flow on, and then only the RTP datagrams of
// flows with an end on a TURN server's IP that is no known relayed address (wants): in a
// capture with its Allocates that is none, and each allocation it learns teaches it once
// (its channel is bound after). A flow between two relayed addresses (both ends of a call
// relayed by one server) teaches both allocations, one from each copy of the packet.
// Candidates wait in two generations of maps of at most maxLearn entries each, swapped
// every learnWindow, so memory is bounded whatever the capture holds.
type relayLearner struct {
	active   bool         // a TURN flow was seen
	servers  []netip.Addr // the IPs of the TURN servers seen
	cur, old map[uint64]learnCand
	gen      int64 // when cur began
	// looked counts, by flow index, the packets the learner looked at; maxLook of them, or
	// every end on a server's IP known (settled), and it looks no more.
	looked []uint16
}

// learnCand is one copy of a forwarded packet: ChannelData on a channel not known, or for an
// allocation whose relayed address is not (client, server, ch, and its peer when known),
// or a datagram between an address on a server's IP (relayed) and another (peer). Candidates are keyed by the packet and their role (learnKey): ChannelData to the
// server is matched by a datagram from its relayed address, a datagram to a relayed address
// by ChannelData from the server. A datagram between two relayed addresses of one server
// (both ends of a call relayed there) plays both roles.
type learnCand struct {
	client, server netip.AddrPort
	proto          transport.Proto
	ch             uint16
	relayed, peer  netip.AddrPort
	t              int64
}

// The roles of a candidate (learnKey).
const (
	toRelay   uint64 = iota // ChannelData to the server: its datagram leaves the relayed address
	fromRelay               // a datagram from a relayed address: its ChannelData reached the server
	toPeerEnd               // a datagram to a relayed address: the server sends it on to its client
	toClient                // ChannelData from the server: its datagram reached the relayed address
)

// learnKey is a candidate's key: the packet (relayKey, 48 bits) and its role.
func learnKey(key, role uint64) uint64 { return key<<2 | role }

const (
	learnWindow    = int64(1e9) // a relay forwards within this; TCP delivers late
	maxLearn       = 8192       // candidates a generation holds
	maxLearnServer = 16         // server IPs watched
	// maxLook is how many packets of a flow the learner looks at: a relay's first packet
	// teaches it, so a flow that taught nothing by then has no other copy in the capture (a
	// TURN client's capture that began mid-call, a server's of one interface), and looking
	// on would cost its every packet a candidate.
	maxLook = 1024
)

// spent says whether the learner looked at maxLook packets of flow f, and counts one more.
func (l *relayLearner) spent(f *flow) bool {
	for f.idx >= len(l.looked) {
		l.looked = append(l.looked, 0)
	}
	if l.looked[f.idx] >= maxLook {
		return true
	}
	l.looked[f.idx]++
	return false
}

// watch starts watching for the relay of a TURN flow's server.
func (l *relayLearner) watch(server netip.AddrPort) {
	l.active = true
	if !slices.Contains(l.servers, server.Addr()) && len(l.servers) < maxLearnServer {
		l.servers = append(l.servers, server.Addr())
	}
}

// channelData looks at an RTP packet that TURN flow f carried between client and the
// server, in ChannelData on a channel whose peer is not known, or for an allocation whose
// relayed address is not (in ChannelData or an indication, to or from a known peer: the
// datagram that matches it must have that peer).
func (l *relayLearner) channelData(a *analyzer, f *flow, client netip.AddrPort, m *transport.Message) {
	key, ok := relayKey(m.Payload)
	if !ok || l.spent(f) {
		return
	}
	server := f.a
	if server == client {
		server = f.b
	}
	// To the server: the relay had it whole (Delivered), and sends it on from the relayed
	// address. From it: the relay sent it (its first copy out), having had it at the
	// relayed address.
	mine, theirs, t := toRelay, fromRelay, m.Delivered
	if m.Src != client {
		mine, theirs, t = toClient, toPeerEnd, m.FirstSeen
	}
	if c, ok := l.find(learnKey(key, theirs), t); ok && c.relayed.Addr() == server.Addr() && (!m.Peer.IsValid() || c.peer == m.Peer) {
		l.learn(a, client, server, f.proto, c.relayed, m.Channel, c.peer, t)
		return
	}
	l.put(learnKey(key, mine), learnCand{client: client, server: server, proto: f.proto, ch: m.Channel, peer: m.Peer, t: t})
}

// wants says whether the learner has something to learn from the RTP datagrams of UDP
// flow f: an end of it on a TURN server's IP that is no known relayed address, and fewer
// than maxLook of its packets looked at. Once every such end is known (or it has none),
// the flow is settled and costs one look a datagram.
func (l *relayLearner) wants(a *analyzer, f *flow) bool {
	if l.spent(f) {
		return false
	}
	for _, e := range [2]netip.AddrPort{f.a, f.b} {
		if slices.Contains(l.servers, e.Addr()) && !a.relay.knownRelayed(e) {
			return true
		}
	}
	l.looked[f.idx] = maxLook // settled
	return false
}

// datagram looks at an RTP datagram of a UDP flow the learner wants: from an address on a
// server's IP that may be a relayed address (the ChannelData it came in as reached the
// server before), or to one (the server sends it on to a client after).
func (l *relayLearner) datagram(a *analyzer, m *transport.Message) {
	key, ok := relayKey(m.Payload)
	if !ok {
		return
	}
	t := m.Delivered
	if slices.Contains(l.servers, m.Src.Addr()) && !a.relay.knownRelayed(m.Src) {
		if w, ok := l.find(learnKey(key, toRelay), t); ok && w.server.Addr() == m.Src.Addr() && (!w.peer.IsValid() || w.peer == m.Dst) {
			l.learn(a, w.client, w.server, w.proto, m.Src, w.ch, m.Dst, t)
		} else {
			l.put(learnKey(key, fromRelay), learnCand{relayed: m.Src, peer: m.Dst, t: t})
		}
	}
	if slices.Contains(l.servers, m.Dst.Addr()) && !a.relay.knownRelayed(m.Dst) {
		if w, ok := l.find(learnKey(key, toClient), t); ok && w.server.Addr() == m.Dst.Addr() && (!w.peer.IsValid() || w.peer == m.Src) {
			l.learn(a, w.client, w.server, w.proto, m.Dst, w.ch, m.Src, t)
		} else {
			l.put(learnKey(key, toPeerEnd), learnCand{relayed: m.Dst, peer: m.Src, t: t})
		}
	}
}

// learn tells the TURN state what the traffic showed, and the relay tracker to look at the
// flows again.
func (l *relayLearner) learn(a *analyzer, client, server netip.AddrPort, proto transport.Proto, relayed netip.AddrPort, ch uint16, peer netip.AddrPort, at int64) {
	a.turn.LearnRelay(client, server, proto, relayed, ch, peer, at)
	a.relay.allocated(a)
}

func (l *relayLearner) put(key uint64, c learnCand) {
	if l.cur == nil || c.t-l.gen > learnWindow {
		l.old, l.cur, l.gen = l.cur, make(map[uint64]learnCand), c.t
	}
	if len(l.cur) < maxLearn {
		l.cur[key] = c
	}
}

// find returns the candidate of key seen within learnWindow of t.
func (l *relayLearner) find(key uint64, t int64) (learnCand, bool) {
	for _, m := range [2]map[uint64]learnCand{l.cur, l.old} {
		if c, ok := m[key]; ok && abs(t-c.t) <= learnWindow {
			return c, true
		}
	}
	return learnCand{}, false
}
