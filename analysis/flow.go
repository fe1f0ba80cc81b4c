package analysis

import (
	"net/netip"

	"github.com/callpcap/callpcap/demux"
	"github.com/callpcap/callpcap/internal/secmedian"
	"github.com/callpcap/callpcap/rtpflow"
	"github.com/callpcap/callpcap/tcpframe"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// flowCache holds the flows found last, one per slot, the slot chosen by a hash of the two
// endpoints that does not depend on their order: a capture of hundreds of calls interleaves
// their flows packet by packet, and a few recent flows (this replaced the four found last)
// no longer hold the one a packet belongs to.
type flowCache [1 << flowCacheBits]*flow

const flowCacheBits = 12

func (c *flowCache) slot(src, dst netip.AddrPort) **flow {
	return &c[transport.PairHash(src, dst)>>(64-flowCacheBits)]
}

// flowKey names a flow whichever way a packet travels: the lower endpoint comes first.
type flowKey struct {
	lo, hi netip.AddrPort
	proto  transport.Proto
}

func keyOf(src, dst netip.AddrPort, proto transport.Proto) flowKey {
	if src.Compare(dst) <= 0 {
		return flowKey{src, dst, proto}
	}
	return flowKey{dst, src, proto}
}

// side is what one direction of a flow carried besides RTP, for the wire accounting of the
// call direction it belongs to.
type side struct {
	packets, wire int64
	rtcp, stun    int64 // wire bytes of RTCP and STUN messages
	other         int64 // wire bytes of DTLS and unclassified messages
	// retransmitted is the TCP payload bytes that those messages' segments carried again
	// while they waited to be delivered (Wire.Retransmitted): no RTCP or STUN, as an RTP
	// message's are no media (carriedMessage).
	retransmitted int64
	anchored      bool // its seconds are anchored at anchorAt, its first media RTP message (anchorSeries)
	// sentHere and arrived say that the capture marked some of its packets as sent by the
	// capturing host, or as arrived there (capture.Packet.Outgoing): captureMarks.
	sentHere, arrived bool
	anchorAt          int64
	// The same by second, for the direction's wire series: made at the side's anchor or
	// first byte counted (carried). Out of line: the flow's fields that every packet updates
	// stay on few cache lines.
	secs *sideSeconds
}

// sideSeconds is what a side's messages besides RTP carried, by second. Over TCP, the
// bytes no message accounts for are by second in the Conn (RestSeconds).
type sideSeconds struct{ extra secmedian.Sums }

// seconds returns s.secs, made if need be.
func (s *side) seconds() *sideSeconds {
	if s.secs == nil {
		s.secs = &sideSeconds{}
	}
	return s.secs
}

// carried counts n wire bytes besides RTP that side s of f carried at at in c, its rtcp,
// stun or other; by second once the flow has carried RTP or RTCP. Before, they precede any
// media on it and so its directions' series, and the other flows (DNS, web, ICE checks
// never chosen, up to the flow cap) keep no seconds.
func (f *flow) carried(s *side, c *int64, at, n int64) {
	*c += n
	if f.content&(1<<demux.ClassRTP|1<<demux.ClassRTCP) != 0 {
		s.seconds().extra.Add(at, n)
	}
}

// carriedMessage counts message m, which side s of f carried, in c (its rtcp, stun or
// other) but for its bytes that TCP carried twice before it was delivered, which are
// retransmissions, as they are once it has been (tcpframe's Rest); by second, all of it.
func (f *flow) carriedMessage(s *side, c *int64, m *transport.Message) {
	s.retransmitted += m.Wire.Retransmitted
	*c += m.Wire.Total - m.Wire.Retransmitted
	if f.content&(1<<demux.ClassRTP|1<<demux.ClassRTCP) != 0 {
		s.seconds().extra.Add(m.Delivered, m.Wire.Total)
	}
}

// anchorSeries anchors the seconds of what side i carries besides RTP, and of the other
// side's pure ACKs, at at: its first RTP message that is not a probe (padding only),
// which is, but for a leg that started later, the first media packet of its call
// direction, whose series' grid starts there (secmedian.Sums).
func (f *flow) anchorSeries(i int, at int64) {
	if !f.sides[i].anchored { // inlined: every RTP message asks
		f.anchor(i, at)
	}
}

func (f *flow) anchor(i int, at int64) {
	f.sides[i].anchored, f.sides[i].anchorAt = true, at
	f.sides[i].seconds().extra.Anchor(at)
	if f.conn != nil {
		f.conn.CountRestSeconds()
		r := f.conn.RestSeconds(i)
		r.Other.Anchor(at)
		r.RetransmittedPayload.Anchor(at)
		f.conn.RestSeconds(1 - i).ACKs.Anchor(at)
	}
}

// flow is one UDP 5-tuple or TCP connection; a is the endpoint that sent first.
type flow struct {
	idx         int
	proto       transport.Proto
	a, b        netip.AddrPort
	first, last int64
	packets     int64
	wire        int64
	sides       [2]side // [0] a->b, [1] b->a
	content     uint16  // bit per demux.Class seen, directly or inside TURN
	turn        bool    // carried TURN (Allocate, ChannelData, indications)
	// turnFrom is when each side's STUN messages or ChannelData read so far were first
	// seen, the earliest (relayTracker.turnLegFrom); 0 before.
	turnFrom [2]int64
	// relayedKnown: the relayed address of its client's allocation is known
	// (relayTracker.hasRelayed).
	relayedKnown bool
	srtpTag      uint8 // SRTP tag length its DTLS ServerHello chose (dtls); 0 when none was read
	relayed      int64 // datagrams but STUN carried to or from a peer through TURN: checks are no media
	sip          bool  // carried SIP signalling
	closed       bool  // its TCP connection was closed: another reused its addresses (reopen)
	ended        bool  // a FIN or a RST of its TCP connection was seen (TURN's flows only)
	client       netip.AddrPort
	conn         *tcpframe.Conn
	msgs         tcpMessages // what the unframed messages of a TCP flow classified as
	tls          tlsRecords  // the times of a TLS connection's records (tlsMedia)
	// Over TCP, each side's signalling: SIP, HTTP or WebSocket (tcpText), made for a side
	// with text: a flow of another kind does not carry its 200 bytes.
	text [2]*demux.Signalling
	// The batches (analyzer.batchNo) in which conn was last fed and last detached.
	lentIn, detached int
	// Besides RTP, what TURN carried on each path to a peer (flow.peer).
	peers map[rtpflow.Path]*side
}

// rtcpFlowsOf returns the flows that carry the RTCP of f's RTP when it has flows of its own
// for it (no rtcp-mux, RFC 5761): linkRTCPFlows found them. None otherwise: with rtcp-mux
// the RTCP is f's.
func (a *analyzer) rtcpFlowsOf(f *flow) []*flow { return a.rtcpFlows[f] }

// linkRTCPFlows finds, once the streams are known, the flows that carry the RTCP of each
// UDP flow of RTP: UDP flows between the same two addresses that carried RTCP and nothing of
// a leg (no RTP, STUN or TURN), whose RTCP rtpflow gave to the flow's streams by their
// SSRCs (Tracker.RTCPLegs): on the ports above (RFC 3550 11: RTP on an even port, its RTCP
// on the next), on those SDP's a=rtcp names (RFC 3605) or a NAT chose, or one each way
// (GStreamer's rtpbin: sender reports from an ephemeral port). Then the flow on the ports
// above, whose RTCP named no stream (receiver reports with no blocks), if no RTP flow took
// it by its SSRCs. Each RTCP flow is one RTP flow's: by the SSRCs first, so that the ports
// above another call's RTP do not take a call's RTCP (h134).
func (a *analyzer) linkRTCPFlows(streams []*rtpflow.Stream) {
	a.rtcpFlows = map[*flow][]*flow{}
	taken := map[*flow]bool{}
	link := func(f, g *flow) {
		if g == nil || g == f || taken[g] || f.proto != transport.UDP || f.turn ||
			g.proto != transport.UDP || g.turn || !g.has(demux.ClassRTCP) || g.has(demux.ClassRTP) || g.has(demux.ClassSTUN) ||
			!(g.a.Addr() == f.a.Addr() && g.b.Addr() == f.b.Addr() || g.a.Addr() == f.b.Addr() && g.b.Addr() == f.a.Addr()) {
			return
		}
		a.rtcpFlows[f], taken[g] = append(a.rtcpFlows[f], g), true
	}
	for _, s := range streams {
		for _, leg := range a.rtp().RTCPLegs(s) {
			link(a.flowList[s.Path().Leg], a.flowList[leg])
		}
	}
	for _, f := range a.flowList {
		if f.a.Port() != 65535 && f.b.Port() != 65535 {
			up := func(ap netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(ap.Addr(), ap.Port()+1) }
			link(f, a.flows[keyOf(up(f.a), up(f.b), transport.UDP)])
		}
	}
}

// rtcpSide returns the side of f's RTCP flow g whose sender is the RTP sender of f's side
// sd: the one from the same address, or where both ends share one (a call on one host),
// from the port above.
func rtcpSide(f, g *flow, sd int) int {
	src := f.a
	if sd == 1 {
		src = f.b
	}
	if g.a.Addr() != g.b.Addr() {
		if g.a.Addr() == src.Addr() {
			return 0
		}
		return 1
	}
	return g.dir(netip.AddrPortFrom(src.Addr(), src.Port()+1))
}

func (f *flow) dir(src netip.AddrPort) int {
	if src == f.a {
		return 0
	}
	return 1
}

func (f *flow) saw(c demux.Class) { f.content |= 1 << c }

// turnMessage notes a STUN message or ChannelData read from side i, first seen at t: the
// earliest so far. Over TCP they are read in order, each once it is whole and the bytes
// before it too: the first read may have been first seen later than the next (a hole
// behind the Allocate response held the ChannelData seen before its resend).
func (f *flow) turnMessage(i int, t int64) {
	if f.turnFrom[i] == 0 || t < f.turnFrom[i] {
		f.turnFrom[i] = t
	}
}

// dtls reads a DTLS message of the flow, in the clear or inside TURN, for the SRTP
// protection profile its ServerHello chose (wire.SRTPAuthTagLen): the length of the tag
// of the SRTP it keys, on this flow (RFC 5764).
func (f *flow) dtls(b []byte) {
	if f.srtpTag == 0 {
		if n, ok := wire.SRTPAuthTagLen(b); ok {
			f.srtpTag = uint8(n)
		}
	}
}

func (f *flow) has(c demux.Class) bool { return f.content&(1<<c) != 0 }

// contentNames lists what the flow carried, in the order of demux's classes.
func (f *flow) contentNames() []string {
	names := []string{}
	for c := demux.Class(0); c < 16; c++ {
		if f.has(c) {
			names = append(names, c.String())
		}
	}
	if f.sip {
		names = append(names, "sip")
	}
	return names
}

// turnPorts are the ports TURN servers listen on by convention; used only to tell the client
// from the server when the capture holds no Allocate.
func turnPort(p uint16) bool {
	switch p {
	case 3478, 3479, 5349, 5350, 443, 80, 19302, 19305:
		return true
	}
	return false
}

// maxPeerPaths bounds flow.peers: what a flow carries on more paths through TURN (Send
// indications name any peer) counts on the flow's side, as if its peer had no direction.
const maxPeerPaths = 64

// peer returns what the flow carried besides RTP on path p, a path through TURN whose
// datagrams side via of the flow carried from src. The direction of that peer takes it, or
// else the flow's side (analyzer.ownPeerPaths). Its seconds are anchored as via's: the
// path's first RTP message is, but for a second peer, via's.
func (f *flow) peer(p rtpflow.Path, src netip.AddrPort, via *side) *side {
	s := f.peers[p]
	if s == nil {
		if len(f.peers) >= maxPeerPaths {
			return &f.sides[f.dir(src)]
		}
		if f.peers == nil {
			f.peers = map[rtpflow.Path]*side{}
		}
		s = &side{}
		f.peers[p] = s
	}
	if via.anchored && !s.anchored {
		s.anchored, s.anchorAt = true, via.anchorAt
		s.seconds().extra.Anchor(via.anchorAt)
	}
	return s
}

// flow finds or starts the flow of a packet; nil beyond the cap. The cache is asked before
// the map, whose key (two AddrPorts) takes longer to hash than the rest of a packet's
// bookkeeping.
func (a *analyzer) flow(src, dst netip.AddrPort, proto transport.Proto, t int64) *flow {
	slot := a.cache.slot(src, dst)
	if f := *slot; f != nil && f.proto == proto && (f.a == src && f.b == dst || f.a == dst && f.b == src) {
		return f
	}
	k := keyOf(src, dst, proto)
	f, ok := a.flows[k]
	if !ok {
		f = a.newFlow(k, src, dst, proto, t)
	}
	if f != nil {
		*slot = f
	}
	return f
}

func (a *analyzer) newFlow(k flowKey, src, dst netip.AddrPort, proto transport.Proto, t int64) *flow {
	if len(a.flowList) >= a.opts.maxFlows() {
		a.flowsOver++
		return nil
	}
	f := &flow{idx: len(a.flowList), proto: proto, a: src, b: dst, first: t, last: t}
	a.flows[k] = f
	a.flowList = append(a.flowList, f)
	return f
}
