package analysis

import (
	"bytes"
	"github.com/pion/rtcp"
	"net/netip"

	"github.com/callpcap/callpcap/demux"
	"github.com/callpcap/callpcap/rtpflow"
	"github.com/callpcap/callpcap/tcpframe"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// The message path: each datagram or unframed TCP message is classified, unwrapped from
// TURN, and its RTP handed to the media goroutine; STUN, SIP and the rest go to the demux.

func (a *analyzer) tcpMessage(m *transport.Message) {
	f := a.cur
	f.msgs.all++
	if f.conn.Framing() == tcpframe.FramingTLS {
		// A TLS record's fragment is encrypted (TURN over TLS, or any other TLS): its bytes
		// are no RTP, QUIC or anything else a first byte could say.
		f.saw(demux.ClassOther)
		s := &f.sides[f.dir(m.Src)]
		f.carriedMessage(s, &s.other, m)
		if f.tls.n < 4 && !f.tls.turnALPN {
			// A client hello offering TURN over TLS by name (RFC 7443), on any port.
			f.tls.turnALPN = tcpframe.OffersALPN(m.Payload, "stun.turn")
		}
		f.tls.add(m.Delivered)
		return
	}
	a.message(f, m, false)
}

// message demultiplexes one UDP datagram or unframed TCP message by its first byte.
func (a *analyzer) message(f *flow, m *transport.Message, udp bool) {
	cls := a.classify(m)
	if len(m.Payload) > 0 && wire.IsLegacyChannelByte(m.Payload[0]) {
		// RFC 5766's channels 0x5000-0x7FFF share their first byte with QUIC: the TURN
		// state says which (demux.Tracker.Refine).
		cls = a.turn.Refine(m, cls, !udp && f.conn != nil && f.conn.Framing() == tcpframe.FramingTURN)
	}
	if cls == demux.ClassOther && f.has(demux.ClassRTCP) && damagedRTCP(m.Payload) {
		cls = demux.ClassRTCP // counted by its header, said damaged (rtpflow)
	}
	if udp && len(a.opts.DecodeAs) > 0 && len(m.Payload) > 0 {
		if forced, ok := a.opts.forcedClass(m.Src.Port(), m.Dst.Port(), m.Payload[0]); ok {
			if forced == demux.ClassRTP && cls != demux.ClassRTP {
				// The first byte did not say RTP, so its header was not decoded.
				a.demux.DecodeRTP(m.Payload, m.Snapped)
			}
			cls = forced
		}
	}
	i := f.dir(m.Src)
	s := &f.sides[i]
	// SIP is text: its first byte falls in the ChannelData range (INVITE, ACK, BYE), which
	// fails validation, or in QUIC's (SIP/2.0 responses, UPDATE, PRACK).
	if (cls == demux.ClassOther || cls == demux.ClassQUIC) && demux.IsSIP(m.Payload) {
		f.sip = true
		f.carriedMessage(s, &s.other, m)
		a.sdp(m)
		return
	}
	f.saw(cls)
	if !udp {
		f.msgs.count(cls)
	}
	a.relay.udp(a, f, m, cls)
	if a.learn.active && cls == demux.ClassRTP && udp && !f.turn && a.learn.wants(a, f) {
		a.learn.datagram(a, m)
	}
	switch cls {
	case demux.ClassSTUN:
		f.turnMessage(i, m.FirstSeen)
		unwrapped := a.turn.STUN(m, &a.inner)
		a.relay.allocated(a)
		if unwrapped {
			a.turnFlow(f)
			a.wrapped(f, i, &a.inner)
			return
		}
		f.carriedMessage(s, &s.stun, m)
	case demux.ClassChannelData:
		if a.turn.ChannelData(m, &a.inner) {
			f.turnMessage(i, m.FirstSeen)
			a.turnFlow(f)
			a.wrapped(f, i, &a.inner)
			return
		}
		f.carriedMessage(s, &s.other, m)
	case demux.ClassRTP:
		switch ok, media := a.rtpPacket(f, rtpflow.Path{Leg: f.idx, Src: m.Src, Dst: m.Dst}, m); {
		case !ok:
			f.carriedMessage(s, &s.other, m)
		case media:
			f.anchorSeries(i, m.Delivered)
		}
	case demux.ClassRTCP:
		a.media.rtcp(rtpflow.Path{Leg: f.idx, Src: m.Src, Dst: m.Dst}, m)
		f.carriedMessage(s, &s.rtcp, m)
	case demux.ClassDTLS:
		f.dtls(m.Payload)
		fallthrough
	default:
		f.carriedMessage(s, &s.other, m)
	}
}

// damagedRTCP says whether b, which the demux took for no RTCP, is an RTCP report whose
// length runs past its datagram (h135): a sender or receiver report, SDES, BYE or APP
// header, types no RTP has (payload types 72-76 with the marker; RFC 5761, 4). Asked only
// on a flow that carried RTCP: elsewhere such bytes are more likely something else's.
func damagedRTCP(b []byte) bool {
	return len(b) >= wire.RTCPClearLen && b[0]>>6 == wire.RTPVersion &&
		b[1] >= byte(rtcp.TypeSenderReport) && b[1] <= byte(rtcp.TypeApplicationDefined) &&
		wire.RTCPLen(b) > len(b)
}

// rtpPacket hands an RTP message of flow f to the RTP analysis; false when the demux could
// not decode its header (a packet the snap length cut inside it), which the caller counts
// as other. media says it carried media, not padding only (a bandwidth probe): the first
// such packet anchors the side's series, as the first anchors its direction's (rtpflow),
// so that what the side carries besides falls in the direction's seconds (h131: probes a
// half second before the media had a second's RTCP shared between two).
//
// A flow that carried DTLS, in the clear or inside TURN (wrapped marks the outer flow), is
// DTLS-SRTP (RFC 5764): the handshake precedes the media, and the payload of its RTP is
// encrypted (RFC 3711, 3.1; wire.RTP.MarkSRTP): its padding count, not read even where it
// looks valid, and an RTX packet's OSN. A capture that starts after the handshake shows
// no DTLS: its SRTP is known by a count that cannot be one (wire.RTP.PaddingUnread), which
// rtpflow takes as unreadable padding for the whole stream.
func (a *analyzer) rtpPacket(f *flow, p rtpflow.Path, m *transport.Message) (ok, media bool) {
	h := a.demux.RTP()
	if h == nil {
		if m.Snapped {
			a.rtpCut++
		} else {
			a.rtpInvalid++
		}
		return false, false
	}
	media = !h.Padding || h.PaddingUnread || h.PayloadLen > 0 // as rtpflow.Packet's paddingOnly
	if h.ExtLenCut {
		a.rtpExtLenCut++
	}
	if f.has(demux.ClassDTLS) {
		h.MarkSRTP()
	}
	// A datagram is analysed as its packet is: a clock jump's time is this packet's.
	a.media.rtp(p, m, h, uint32(a.jumps), a.timeUnknown && m.Proto == transport.UDP)
	return true, media
}

// sdp passes what the SDP of a SIP message says about payload types and RTX SSRCs to the
// RTP tracker.
// A message cut by the snap length is read up to its last whole line.
func (a *analyzer) sdp(m *transport.Message) {
	b := m.Payload
	if m.Snapped {
		b = b[:bytes.LastIndexByte(b, '\n')+1]
	}
	demux.ParseSDP(b, a.hint, a.hintFID)
}

func (a *analyzer) hint(h demux.PayloadHint) { a.media.hint(rtpflow.PayloadHint(h)) }
func (a *analyzer) hintFID(h demux.FIDHint)  { a.media.hintFID(rtpflow.FIDHint(h)) }

// tcpText takes the bytes of a TCP direction that no framing explains (tcpframe's
// Config.Text) as they come in order, and reads the SDP of the signalling among them:
// SIP over TCP (listed as a SIP flow, as over UDP), HTTP and WebSocket (demux.Signalling).
func (a *analyzer) tcpText(f *flow, src netip.AddrPort, b []byte) {
	i := f.dir(src)
	if f.text[i] == nil {
		f.text[i] = &demux.Signalling{Joined: !f.conn.FromStart(i)}
	}
	s := f.text[i]
	n := s.TooLong()
	s.Feed(b, a.hint, a.hintFID)
	a.signalTooLong += int64(s.TooLong() - n)
	f.sip = f.sip || s.SIP()
}

// wrapped handles a datagram unwrapped from TURN, which flow f carried on its side i: its
// path runs between the TURN client and the peer, whichever way it travelled, and what is
// not RTP counts on that path (flow.peer).
func (a *analyzer) wrapped(f *flow, i int, m *transport.Message) {
	s := &f.sides[i]
	client := a.clientOf(f)
	path := rtpflow.Path{Leg: f.idx, Src: client, Dst: m.Peer}
	if m.Src != client {
		path.Src, path.Dst = m.Peer, client
	}
	cls := a.classify(m)
	f.saw(cls)
	if cls != demux.ClassSTUN {
		f.relayed++
	}
	switch cls {
	case demux.ClassRTP:
		if a.learn.active && (m.Via == transport.ChannelData && !m.Peer.IsValid() || !a.relay.hasRelayed(f, client)) {
			// A channel the capture never saw bound, or an allocation whose Allocate it
			// never saw (a ChannelBind refresh, or indications, name the peer only).
			a.learn.channelData(a, f, client, m)
		}
		a.relay.wrapped(a, f, client, path, m)
		if ok, media := a.rtpPacket(f, path, m); ok {
			if media {
				f.anchorSeries(i, m.Delivered)
			}
			return
		}
	case demux.ClassRTCP:
		a.media.rtcp(path, m)
		p := f.peer(path, m.Src, s)
		f.carriedMessage(p, &p.rtcp, m)
		return
	case demux.ClassSTUN:
		// ICE checks between the client and its peer, through the relay.
		a.turn.STUN(m, &a.nested)
		p := f.peer(path, m.Src, s)
		f.carriedMessage(p, &p.stun, m)
		return
	case demux.ClassDTLS:
		f.dtls(m.Payload)
	}
	p := f.peer(path, m.Src, s)
	f.carriedMessage(p, &p.other, m)
}

// turnFlow marks f as carrying TURN, and has the relay learner watch its server.
func (a *analyzer) turnFlow(f *flow) {
	if f.turn {
		return
	}
	f.turn = true
	a.relay.turnSeen = true
	server := f.a
	if server == a.clientOf(f) {
		server = f.b
	}
	a.learn.watch(server)
}

// clientOf says which end of a TURN flow is the client: the sender of an Allocate when the
// capture holds one, else the end that is not on a TURN port, else the end that spoke first.
// Only the Allocate's answer is kept: the flow's first TURN message may be read before its
// Allocate (tcpframe holds a message for its ACK), and a client may use a TURN port of its
// own (h133: a client on 3478 was taken for the server, its streams for the peer's).
func (a *analyzer) clientOf(f *flow) netip.AddrPort {
	if f.client.IsValid() {
		return f.client
	}
	switch {
	case a.turn.IsTURNServer(f.b):
		f.client = f.a
	case a.turn.IsTURNServer(f.a):
		f.client = f.b
	case turnPort(f.b.Port()) && !turnPort(f.a.Port()):
		return f.a
	case turnPort(f.a.Port()) && !turnPort(f.b.Port()):
		return f.b
	default:
		return f.a
	}
	return f.client
}

// classify demultiplexes by first byte; a message cut by the snap length is validated only
// as far as its captured bytes go. The RTP header it decodes is a.demux.RTP() until the
// next message.
func (a *analyzer) classify(m *transport.Message) demux.Class {
	return a.demux.Classify(m.Payload, m.Snapped)
}

// authTagOf is the length of the SRTP authentication tag that ends each packet of s, 0
// where it is not known. SRTP keyed by SDES has it from the SDP's a=crypto (with its MKI).
// For SRTP keyed by DTLS on s's flow (rtpPacket), its ServerHello names the protection
// profile (DTLS 1.2; flow.dtls), or, where it is not readable (DTLS 1.3 sends it
// encrypted), the leg's SRTCP shows the tag (rtpflow.Tracker.SRTCPTagLen). An SRTCP tag of
// 10 bytes is HMAC-SHA1, whose RTP tag is 10 bytes but for SRTP_AES128_CM_HMAC_SHA1_32's 4;
// WebRTC stacks no longer offer that profile (nor does JSEP, RFC 8829 5.1.3, require it),
// so 10 is taken.
func (a *analyzer) authTagOf(s *rtpflow.Stream) int {
	f := a.flowList[s.Path().Leg]
	switch {
	case !f.has(demux.ClassDTLS):
		return s.SRTPTrailer() // SDES: the SDP's a=crypto, where one suite was agreed
	case f.srtpTag > 0:
		return int(f.srtpTag)
	}
	n, _ := a.rtp().SRTCPTagLen(f.idx)
	return n
}
