package rtpflow

import (
	"slices"

	"github.com/pion/rtcp"
)

// Which stream each feedback message is about: NACKs marked in their media stream,
// encrypted feedback attributed once at the end, and RTCP lent across legs.

// markNACK notes in the media stream a NACK names which sequence numbers its receiver asked
// again for, so that an RTX packet resending one counts as a repair even when the capture
// saw the original (lost after the capture point). The media stream travels against the
// NACK: first the reverse of p, else a stream of that SSRC sent from the NACK's destination
// address on its leg, else the only one from that address to the NACK's source on another
// leg (RTCP on the port above the RTP's, RFC 3550 11, a flow of its own: GStreamer's
// rtpbin without rtcp-mux). The numbers named are also credits of the media path at at
// (nackLedger), for an RTX stream matched by timestamps.
func (t *Tracker) markNACK(p Path, nack *rtcp.TransportLayerNack, at int64) {
	s := t.streams[streamKey{Path{Leg: p.Leg, Src: p.Dst, Dst: p.Src}, nack.MediaSSRC}]
	if s == nil {
		var other *Stream
		others := 0
		for _, o := range t.order {
			if o.ssrc != nack.MediaSSRC || o.evicted || o.path.Src.Addr() != p.Dst.Addr() {
				continue
			}
			if o.path.Leg == p.Leg {
				s = o
				break
			}
			if o.path.Dst.Addr() == p.Src.Addr() {
				other = o
				others++
			}
		}
		if s == nil && others == 1 {
			s = other
		}
	}
	if s == nil {
		return
	}
	var named int32
	for _, pair := range nack.Nacks {
		pair.Range(func(seq uint16) bool {
			s.seq.markNACK(seq)
			named++
			return true
		})
	}
	if l := t.nackLedgerOf(s.path, true); l != nil {
		l.add(at, named)
	}
}

// encryptedFeedback keeps an encrypted NACK, PLI or FIR (SRTCP hides its media SSRC, RFC
// 3711 3.4) by the path of the media it is about, the reverse of the RTCP's own.
func (r *rtcpTracker) encryptedFeedback(media Path, k int) {
	c := r.feedback[media]
	if c == nil {
		if len(r.feedback) >= r.max {
			r.untracked++
			return
		}
		if r.feedback == nil {
			r.feedback = make(map[Path]*[nTypes]int64)
		}
		c = new([nTypes]int64)
		r.feedback[media] = c
	}
	c[k]++
}

// attributeFeedback gives the encrypted NACKs, PLIs and FIRs about each path to the one
// video stream (not RTX) among out that travels it, or without one, that travels between its
// two addresses: WebRTC asks for retransmissions and key frames of video only. Where the path has no such stream or several, which one was
// meant cannot be told: they are counted in Counts.RTCPUnattributed. It runs once.
func (t *Tracker) attributeFeedback(out []*Stream) {
	r := &t.rtcp
	if r.fbDone {
		return
	}
	r.fbDone = true
	for p, c := range r.feedback {
		v, n := oneVideo(out, func(q Path) bool { return q == p })
		if n == 0 {
			// Without rtcp-mux the RTCP has ports, and a leg, of its own (SIP with SDES
			// SRTP): the one video between the same two addresses, as lend gives plain
			// RTCP (h162: PLI and FIR on the RTCP ports counted on no stream).
			v, n = oneVideo(out, func(q Path) bool { return q.Src.Addr() == p.Src.Addr() && q.Dst.Addr() == p.Dst.Addr() })
		}
		var sum int64
		for _, x := range c {
			sum += x
		}
		if n != 1 {
			r.unattributed += sum
			continue
		}
		st := r.state(v.path, v.ssrc)
		if st == nil {
			continue
		}
		st.packets += sum
		st.encrypted = true
		for k, x := range c {
			st.types[k] += x
		}
		st.pli += c[tPLI]
		st.fir += c[tFIR]
	}
}

// oneVideo returns the video stream (not RTX) among out whose path on says, and how many
// there are.
func oneVideo(out []*Stream, on func(Path) bool) (v *Stream, n int) {
	for _, s := range out {
		if on(s.path) && s.IsMedia() && s.kind() == "video" {
			v = s
			n++
		}
	}
	return v, n
}

// lend gives the RTCP that came on legs carrying no stream of its SSRC to the one stream of
// that SSRC between the same two addresses that has no RTCP on its own leg: without
// rtcp-mux (RFC 5761), RTCP goes between other ports, a flow and so a leg of its own, and
// the sender's reports and the receiver's may each take one (GStreamer's defaults: SRs
// from an ephemeral port to RTP + 1, receiver reports between the receiver's RTP + 5 and
// the sender's). A stream that takes RTCP from several legs gets them merged (merged). RTCP
// is given to no stream where it could be meant for several. It runs once.
func (r *rtcpTracker) lend(out []*Stream) {
	if r.lendDone {
		return
	}
	r.lendDone = true
	own := make(map[rtcpKey]bool, len(out))
	wants := make(map[uint32][]*Stream) // streams without RTCP on their own leg, by SSRC
	for _, s := range out {
		k := rtcpKey{s.path.Leg, s.ssrc}
		own[k] = true
		if r.byKey[k] == nil {
			wants[s.ssrc] = append(wants[s.ssrc], s)
		}
	}
	given := make(map[*Stream][]rtcpKey)
	for k, st := range r.byKey {
		if own[k] {
			continue
		}
		var to *Stream
		n := 0
		for _, s := range wants[k.ssrc] {
			a, b := s.path.Src.Addr(), s.path.Dst.Addr()
			if st.a == a && st.b == b || st.a == b && st.b == a {
				to = s
				n++
			}
		}
		if n == 1 {
			given[to] = append(given[to], k)
		} else {
			to := &r.plainNoStream
			if st.encrypted {
				to = &r.noStream
			}
			for i, x := range st.types {
				to[i] += x
			}
		}
	}
	for s, ks := range given {
		if r.lent == nil {
			r.lent = make(map[rtcpKey]*rtcpState)
			r.lentLegs = make(map[rtcpKey][]int)
		}
		k := rtcpKey{s.path.Leg, s.ssrc}
		r.lent[k] = r.merged(ks) // sorts ks by leg
		for _, g := range ks {
			r.lentLegs[k] = append(r.lentLegs[k], g.leg)
		}
	}
}

// RTCPLegs returns the legs whose RTCP was given to stream s (lend): RTCP that went between
// ports of its own, in the order of the legs. Valid once Streams has run.
func (t *Tracker) RTCPLegs(s *Stream) []int {
	return t.rtcp.lentLegs[rtcpKey{s.path.Leg, s.ssrc}]
}

// merged is the RTCP of several legs about one stream, taken in the order of the legs: the
// counts of all; the report blocks' figures, and the round trips, of the first leg that has
// them (receiver reports travel one way: one leg has them). A single leg's state is itself.
func (r *rtcpTracker) merged(ks []rtcpKey) *rtcpState {
	if len(ks) == 1 {
		return r.byKey[ks[0]]
	}
	slices.SortFunc(ks, func(x, y rtcpKey) int { return x.leg - y.leg })
	sts := make([]*rtcpState, len(ks))
	for i, k := range ks {
		sts[i] = r.byKey[k]
	}
	m := *sts[0]
	for _, st := range sts {
		if st.hasRB {
			m.hasRB, m.fraction, m.cumLost, m.highest, m.jitter = true, st.fraction, st.cumLost, st.highest, st.jitter
			m.cumLost0, m.highest0, m.rbAgain, m.highestDown = st.cumLost0, st.highest0, st.rbAgain, st.highestDown
			break
		}
	}
	for _, st := range sts {
		if st.rtt.N() > 0 {
			m.rtt, m.rtts = st.rtt, st.rtts
			break
		}
	}
	for _, st := range sts[1:] {
		m.packets += st.packets
		m.encrypted = m.encrypted || st.encrypted
		for i := range m.types {
			m.types[i] += st.types[i]
		}
		m.nacked += st.nacked
		m.pli += st.pli
		m.fir += st.fir
		if st.hasREMB && !m.hasREMB {
			m.hasREMB, m.remb = true, st.remb
		}
	}
	return &m
}
