package analysis

import (
	"net/netip"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/rtpflow"
)

// A call direction's figures: its streams' aggregate, and its wire accounting, which takes
// from each leg it travelled what that leg carried for it besides its streams' RTP.

// sideClaims are the sides of the legs, as (flow, side), whose bytes besides RTP a direction
// took (taken: the first direction there), and those that send a stream (sends).
type sideClaims struct {
	taken, sends map[[2]int]bool
}

// direction aggregates the streams of one call direction and does its wire accounting.
func (a *analyzer) direction(id string, k dirKey, ss []*rtpflow.Stream, legOf map[int]string, claims sideClaims) report.Direction {
	m := a.rtp().Direction(ss, a.first)
	d := report.Direction{
		ID: id, From: addrString(k.src), To: addrString(k.dst), Legs: []string{}, Streams: []string{},
		MediaPackets: m.MediaPackets, MediaPayloadBytes: m.MediaPayloadBytes, GoodputKbps: m.GoodputKbps,
		Loss: m.Loss, Late: m.Late, DelayMS: m.Delay, Ramp: m.Ramp, Series: m.Series,
		FirstS: a.secs(m.FirstNs), LastS: a.secs(m.LastNs),
	}
	d.ActiveS = numfmt.Round(float64(m.LastNs-m.FirstNs)/1e9, 6)
	d.Series.RTTMS = a.rttSeries(ss, m.SeriesT0Ns, len(d.Series.MediaKbps))
	w := m.Wire
	o := report.Overhead{
		LinkIPTransport:    w.Headers,
		Framing:            w.Framing,
		RTPHeaders:         w.RTPHeaderBytes, // RTX headers included: rtx is the RTX payload
		Padding:            w.PaddingBytes,
		RTX:                w.RTXPayloadBytes,
		TCPRetransmissions: w.Retransmitted,
		// DESIGN's ten parts add up to the whole: RTP duplicates, what the capture cut
		// from RTP packets (snap length: on the wire, not seen), SRTP's authentication
		// tags where their length is known, and the payload of event, comfort noise and
		// FEC streams, no media (rtpflow.Stream.auxiliary), are other.
		Other: w.DuplicateBytes + w.AuthTagBytes + w.AuxPayloadBytes + w.Total - w.Headers - w.Framing - w.Retransmitted - w.RTPBytes,
	}
	// The bytes besides the streams' RTP that the direction takes below, by second of its
	// series: its wire series counts every frame attributed to it (DESIGN), as wire_bytes.
	extra := make([]float64, len(d.Series.WireKbps))
	inSeries := func(s *side) {
		if s.secs != nil {
			s.secs.extra.Spread(extra, m.SeriesT0Ns)
		}
	}
	// Over TCP, of direction i of f's connection, what no message accounts for: its pure
	// ACKs, or the rest.
	restInSeries := func(f *flow, i int, acks bool) {
		r := f.conn.RestSeconds(i)
		if r == nil {
			return
		}
		if acks {
			r.ACKs.Spread(extra, m.SeriesT0Ns)
			return
		}
		r.Other.Spread(extra, m.SeriesT0Ns)
	}
	// The retransmission series is the payload its TCP directions retransmitted, as their
	// retransmitted_bytes and tcp_retransmitted_pct count it: at a capture after the loss, a
	// segment seen once that filled a hole late is a retransmission too, though no copy of
	// it crossed the capture point (the RTP messages' Wire.Retransmitted counts copies).
	var retx []float64
	tcpRetxInSeries := func(f *flow, i int) {
		if r := f.conn.RestSeconds(i); r != nil {
			if retx == nil {
				retx = make([]float64, len(extra))
			}
			r.RetransmittedPayload.Spread(retx, m.SeriesT0Ns)
		}
	}
	seenLeg := map[int]bool{}
	var tcpPayload, tcpRetx int64
	for _, s := range ss {
		li := s.Path().Leg
		if seenLeg[li] {
			continue
		}
		seenLeg[li] = true
		// On the direction's own path: RTP of SSRCs that are no stream (fewer than
		// --min-packets, no continuity), frame bytes that carried this direction, as other;
		// and what TURN carried to or from its peer besides RTP.
		path := rtpflow.Path{Leg: li, Src: k.src, Dst: k.dst}
		u := a.unreported[path]
		o.LinkIPTransport += u.Headers
		o.Framing += u.Framing
		o.TCPRetransmissions += u.Retransmitted
		o.Other += u.RTPBytes
		if p := a.flowList[li].peers[path]; p != nil {
			o.RTCP += p.rtcp
			o.STUN += p.stun
			o.Other += p.other
			o.TCPRetransmissions += p.retransmitted
			inSeries(p)
		}
		d.Legs = append(d.Legs, legOf[li])
		f := a.flowList[li]
		if d.Transport == "" {
			d.Transport = a.legTransport(f)
		}
		sd := a.sideOf(f, s.Path().Src)
		if claims.taken[[2]int{li, sd}] {
			continue
		}
		claims.taken[[2]int{li, sd}] = true
		side := f.sides[sd]
		o.RTCP += side.rtcp
		o.STUN += side.stun
		o.Other += side.other
		o.TCPRetransmissions += side.retransmitted
		inSeries(&f.sides[sd])
		a.addRTCPFlow(&o, f, sd, inSeries)
		oneWay := false
		if back := [2]int{li, 1 - sd}; !claims.sends[back] && !claims.taken[back] {
			// Media one way: the receiver's RTCP and STUN on the leg are this direction's
			// (DESIGN: "RTCP and STUN of that leg"), as its ACKs are, and so is the rest it
			// sent: no direction of its own would count them.
			claims.taken[back] = true
			oneWay = true
			o.RTCP += f.sides[1-sd].rtcp
			o.STUN += f.sides[1-sd].stun
			o.Other += f.sides[1-sd].other
			o.TCPRetransmissions += f.sides[1-sd].retransmitted
			inSeries(&f.sides[1-sd])
			a.addRTCPFlow(&o, f, 1-sd, inSeries)
		}
		if f.conn != nil {
			rest, back := f.conn.Rest(sd), f.conn.Rest(1-sd)
			if n := f.conn.Unrepaired(sd); n > 0 {
				a.warnf("%s -> %s: %s lay behind a hole the receiver's ACK had not passed when the capture ended (a repair still on its way): never delivered in the capture, in no message",
					[2]netip.AddrPort{f.a, f.b}[sd], [2]netip.AddrPort{f.a, f.b}[1-sd], numfmt.Count(n, "TCP byte", "TCP bytes"))
			}
			o.TCPRetransmissions += rest.Retransmitted
			o.Other += rest.Control + rest.Unframed
			o.ACKs += back.ACKs
			restInSeries(f, sd, false)
			restInSeries(f, 1-sd, true)
			tcpRetxInSeries(f, sd)
			if oneWay {
				// And the rest of the receiver's side, and the sender's own pure ACKs of
				// it: the SYN/ACK, the handshake's last ACK, FINs. So the leg's frames add
				// up to its directions', as on a leg with media both ways.
				o.TCPRetransmissions += back.Retransmitted
				o.Other += back.Control + back.Unframed
				o.ACKs += rest.ACKs
				restInSeries(f, 1-sd, false)
				restInSeries(f, sd, true)
			}
			t := f.conn.Summary()
			dir := t.AToB
			if sd == 1 {
				dir = t.BToA
			}
			tcpPayload += dir.PayloadBytes
			tcpRetx += dir.RetransmittedBytes
		}
	}
	if tcpPayload > 0 {
		p := numfmt.Round(100*float64(tcpRetx)/float64(tcpPayload), 3)
		d.TCPRetransmittedPct = &p
	}
	d.OverheadBytes = o
	for j := range extra {
		d.Series.WireKbps[j] = numfmt.Round(d.Series.WireKbps[j]+extra[j]*8/1000, 3)
	}
	for j := range retx {
		d.Series.RetransmittedKbps[j] = numfmt.Round(retx[j]*8/1000, 3)
	}
	d.WireBytes = d.MediaPayloadBytes + o.Sum()
	d.WireKbps = m.Kbps(d.WireBytes)
	if m.Unmeasured != "" {
		a.warnf("%s -> %s: %s (goodput, wire rate, ramp, jitter and delay are null)", d.From, d.To, m.Unmeasured)
	}
	if d.WireBytes > 0 {
		e := numfmt.Round(float64(d.MediaPayloadBytes)/float64(d.WireBytes), 4)
		d.Efficiency = &e
	}
	return d
}

// addRTCPFlow adds to o, and to the series by inSeries, what side sd of leg flow f sent on
// its RTCP flows (no rtcp-mux, rtcpFlowsOf): the leg's RTCP too.
func (a *analyzer) addRTCPFlow(o *report.Overhead, f *flow, sd int, inSeries func(*side)) {
	for _, g := range a.rtcpFlowsOf(f) {
		gs := &g.sides[rtcpSide(f, g, sd)]
		o.RTCP += gs.rtcp
		o.Other += gs.stun + gs.other
		inSeries(gs)
	}
}

// ownPeerPaths leaves to each TURN path that carried media (a direction of streams) what
// TURN carried on it besides RTP (flow.peers), and moves the rest, paths to peers without
// a direction, to the side of the flow that carried them, for the first direction there.
func (a *analyzer) ownPeerPaths(streams []*rtpflow.Stream) {
	owned := map[rtpflow.Path]bool{}
	for _, s := range streams {
		owned[s.Path()] = true
	}
	for _, f := range a.flowList {
		for p, s := range f.peers {
			if owned[p] {
				continue
			}
			sd := &f.sides[a.sideOf(f, p.Src)]
			sd.rtcp += s.rtcp
			sd.stun += s.stun
			sd.other += s.other
			sd.retransmitted += s.retransmitted
			if s.secs != nil {
				sd.seconds().extra.Merge(&s.secs.extra)
			}
			delete(f.peers, p)
		}
	}
}

// sideOf returns which side of flow f carries media sent by src: src's own side when it is an
// endpoint of the flow, else (a TURN peer) the side the server sends on.
func (a *analyzer) sideOf(f *flow, src netip.AddrPort) int {
	if src == f.a || src == f.b {
		return f.dir(src)
	}
	return 1 - f.dir(a.clientOf(f))
}

// droppedBeforeTCP is how many of a stream's lost packets never entered TCP (DESIGN, "Drops
// before TCP"): on a TCP leg, a gap in RTP sequence numbers where the direction carrying
// the stream lost nothing the capture could not account for (no capture gap, no bytes the
// unframer skipped, between the packets on either side of it: rtpflow's tcpLoss) is a
// packet the sender (libwebrtc's full TCP send buffer) or the relay feeding the connection
// (a TURN server's full write buffer, or, seen from the client, loss on the relay's UDP
// side: at the TURN server, whose capture shows both legs, those are left out in build)
// dropped before TCP.
// Those packets stay in Lost, the RTP-level count (expected − received: the receiver never
// had them); DroppedBeforeTCP says where they vanished, and the rtp_loss finding leaves
// them to the dropped_before_tcp finding. A gap across a capture gap may be either, and is
// left to Lost alone. Null for an RTX stream (Lost null); 0 for a stream that lost
// nothing, or did not travel over TCP.
func (a *analyzer) droppedBeforeTCP(s *rtpflow.Stream, rs *report.Stream) *int64 {
	if rs.Lost == nil {
		return nil
	}
	n := s.DroppedBeforeTCP() // 0 off TCP: only packets over TCP count drops
	return &n
}
