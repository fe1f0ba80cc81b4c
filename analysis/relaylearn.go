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
// The learner watches from the first TURN flow on, and then only RTP datagrams to or from
// a TURN server's IP on flows that are no known peer leg: in a capture with its Allocates
// that is none, and each allocation it learns teaches it once (its channel is bound after).
// Candidates wait in two generations of maps of at most maxLearn entries each, swapped
// every learnWindow, so memory is bounded whatever the capture holds.
type relayLearner struct {
	active   bool         // a TURN flow was seen
	servers  []netip.Addr // the IPs of the TURN servers seen
	cur, old map[uint64]learnCand
	gen      int64 // when cur began
}

// learnCand is one copy of a forwarded packet: ChannelData on a channel not known (wrapped:
// client, server, ch; in when to the server), or a datagram between an address on a
// server's IP (relayed) and another (peer; in when to the relayed address).
type learnCand struct {
	wrapped, in    bool
	client, server netip.AddrPort
	proto          transport.Proto
	ch             uint16
	relayed, peer  netip.AddrPort
	t              int64
}

const (
	learnWindow    = int64(1e9) // a relay forwards within this; TCP delivers late
	maxLearn       = 8192       // candidates a generation holds
	maxLearnServer = 16         // server IPs watched
)

// watch starts watching for the relay of a TURN flow's server.
func (l *relayLearner) watch(server netip.AddrPort) {
	l.active = true
	if !slices.Contains(l.servers, server.Addr()) && len(l.servers) < maxLearnServer {
		l.servers = append(l.servers, server.Addr())
	}
}

// channelData looks at an RTP packet that TURN flow f carried in ChannelData between client
// and the server on a channel whose peer is not known.
func (l *relayLearner) channelData(a *analyzer, f *flow, client netip.AddrPort, m *transport.Message) {
	key, ok := relayKey(m.Payload)
	if !ok {
		return
	}
	server := f.a
	if server == client {
		server = f.b
	}
	in := m.Src == client
	t := m.FirstSeen // the relay sent it on: its first copy out
	if in {
		t = m.Delivered // the relay had it whole
	}
	// The datagram the relay sent it on as (in), or received it as (out).
	if c, ok := l.find(key, t); ok && !c.wrapped && c.in != in && c.relayed.Addr() == server.Addr() {
		l.learn(a, client, server, f.proto, c.relayed, m.Channel, c.peer, t)
		return
	}
	l.put(key, learnCand{wrapped: true, in: in, client: client, server: server, proto: f.proto, ch: m.Channel, t: t})
}

// datagram looks at an RTP datagram of a UDP flow that is neither TURN's nor a known peer
// leg.
func (l *relayLearner) datagram(a *analyzer, m *transport.Message) {
	var c learnCand
	switch {
	case slices.Contains(l.servers, m.Src.Addr()):
		c = learnCand{relayed: m.Src, peer: m.Dst}
	case slices.Contains(l.servers, m.Dst.Addr()):
		c = learnCand{in: true, relayed: m.Dst, peer: m.Src}
	default:
		return
	}
	key, ok := relayKey(m.Payload)
	if !ok {
		return
	}
	c.t = m.Delivered
	if w, ok := l.find(key, c.t); ok && w.wrapped && w.in != c.in && w.server.Addr() == c.relayed.Addr() {
		l.learn(a, w.client, w.server, w.proto, c.relayed, w.ch, c.peer, c.t)
		return
	}
	l.put(key, c)
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
