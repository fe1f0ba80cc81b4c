package rtpflow

import (
	"encoding/binary"
	"math/bits"
	"net/netip"

	"github.com/pion/rtcp"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/internal/quantile"
	"github.com/callpcap/callpcap/internal/secmedian"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// RTCP packet type keys (report.RTCP.Types).
const (
	tSR = iota
	tRR
	tSDES
	tBYE
	tAPP
	tNACK
	tPLI
	tFIR
	tREMB
	tTWCC
	tXR
	tOther
	nTypes
)

var typeKeys = [nTypes]string{"sr", "rr", "sdes", "bye", "app", "nack", "pli", "fir", "remb", "twcc", "xr", "other"}

// srRing is how many recent sender reports are remembered for RTT (RFC 3550 6.4.1: the
// receiver's LSR is the middle 32 bits of the SR's NTP timestamp).
const srRing = 256

type srEntry struct {
	leg  int
	ssrc uint32
	mid  uint32
	at   int64
}

// rtcpKey is one media SSRC on one leg (Path.Leg). RTCP about a stream travels on the
// stream's leg, both ways (reports from its receiver against it, SRs from its sender with
// it), so it is keyed by leg and SSRC, not by path: at an SFU or a TURN server the same SSRC
// crosses two legs, and each leg's receiver reports what it got (DESIGN: a stream is one
// SSRC in one direction of one leg).
type rtcpKey struct {
	leg  int
	ssrc uint32
}

// rtcpTracker holds what RTCP said about each media SSRC on each leg, across the whole
// capture.
type rtcpTracker struct {
	max       int
	byKey     map[rtcpKey]*rtcpState
	srs       [srRing]srEntry
	srNext    int
	packets   int64 // compound packets
	encrypted int64
	invalid   int64
	untracked int64
	scratch   []byte // the last packet of a compound without its padding (unpad)

	// lent gives a stream the RTCP of another leg, RTCP on a port of its own (lend).
	lent     map[rtcpKey]*rtcpState
	lendDone bool

	// Encrypted feedback (NACK, PLI, FIR) by the path of the media it is about (the reverse
	// of its own), attributed at the end (attributeFeedback).
	feedback     map[Path]*[nTypes]int64
	fbDone       bool
	unattributed int64
}

type rtcpState struct {
	a, b      netip.Addr // the addresses of the path it first came on (lend)
	packets   int64
	encrypted bool
	types     [nTypes]int64
	rtt       quantile.Hist
	rtts      secmedian.Series // the same round trips by second, for the report's RTT series
	hasRB     bool
	fraction  uint8
	cumLost   int32
	jitter    uint32
	nacked    int64
	pli, fir  int64
	hasREMB   bool
	remb      float64 // bps
}

func (r *rtcpTracker) init(max int) {
	r.max = max
	r.byKey = make(map[rtcpKey]*rtcpState)
}

// state returns what RTCP on p's leg said about ssrc; nil when MaxStreams (leg, SSRC) pairs
// are already tracked.
func (r *rtcpTracker) state(p Path, ssrc uint32) *rtcpState {
	k := rtcpKey{p.Leg, ssrc}
	st := r.byKey[k]
	if st == nil {
		if len(r.byKey) >= r.max {
			r.untracked++
			return nil
		}
		st = &rtcpState{a: p.Src.Addr(), b: p.Dst.Addr()}
		r.byKey[k] = st
	}
	return st
}

// RTCP accounts one message the demux classified as RTCP: a compound packet, parsed with
// pion/rtcp, whose figures go to the media SSRCs it is about on p's leg. A compound pion
// rejects whose headers still walk (compound) is plain RTCP all the same: its packets are
// parsed one by one (plainPacket), the last without its padding, which pion does not strip
// from every type (RFC 3550 6.4.1 lets the last packet of a compound carry it). Otherwise it
// is SRTCP, whose packets after the first 8 bytes are encrypted: the first packet is counted
// from its clear header: type, length and sender SSRC, attributed to that SSRC (for an SR,
// the stream it describes; for a receiver report, the reporter's own stream), except NACK,
// PLI and FIR: they are about a media SSRC the encryption hides, never the sender's own
// stream (encryptedFeedback).
func (t *Tracker) RTCP(p Path, m *transport.Message) {
	r := &t.rtcp
	b := m.Payload
	pkts, err := rtcp.Unmarshal(b)
	if err == nil {
		r.packets++
		for _, pk := range pkts {
			t.plain(p, pk, m.Delivered)
		}
		return
	}
	if compound(b) {
		r.packets++
		for off := 0; off < len(b); {
			n := (int(binary.BigEndian.Uint16(b[off+2:])) + 1) * 4
			t.plainPacket(p, b[off:off+n], m.Delivered)
			off += n
		}
		return
	}
	if len(b) < wire.RTCPClearLen || b[0]>>6 != wire.RTPVersion {
		r.invalid++
		return
	}
	r.packets++
	r.encrypted++
	if k := clearType(b[1], b[0]&0x1f); k == tNACK || k == tPLI || k == tFIR {
		media := Path{Leg: p.Leg, Src: p.Dst, Dst: p.Src}
		r.encryptedFeedback(media, k)
		if k == tNACK {
			// The clear length (words − 1) counts the header, the sender and media
			// SSRCs (3 words, so 2) and one word per FCI entry (RFC 4585 6.2.1).
			fci := int32(binary.BigEndian.Uint16(b[2:])) - 2
			if l := t.nackLedgerOf(media, true); l != nil {
				l.add(m.Delivered, fci)
			}
		}
		return
	}
	if st := r.state(p, binary.BigEndian.Uint32(b[4:])); st != nil {
		st.packets++
		st.encrypted = true
		st.types[clearType(b[1], b[0]&0x1f)]++
	}
}

// Fields of the RTCP common header (RFC 3550 6.4.1).
const (
	rtcpHeaderLen = 4
	rtcpPadBit    = 0x20
	rtcpTypeFirst = 192 // RFC 5761 4: RTCP packet types are 192-223
	rtcpTypeLast  = 223
)

// compound says whether b's headers walk exactly to its end, as plain RTCP's do (RFC 3550
// 6.1): each version 2, of an RTCP type, its length in 32-bit words − 1 within b, and only
// the last with the P bit, whose count (b's last octet) leaves the header whole. SRTCP
// fails it: after its first header come encrypted bytes, then the index and the
// authentication tag (RFC 3711 3.4).
func compound(b []byte) bool {
	off := 0
	for off < len(b) {
		if len(b)-off < rtcpHeaderLen || b[off]>>6 != wire.RTPVersion ||
			b[off+1] < rtcpTypeFirst || b[off+1] > rtcpTypeLast {
			return false
		}
		n := (int(binary.BigEndian.Uint16(b[off+2:])) + 1) * 4
		if n > len(b)-off {
			return false
		}
		if b[off]&rtcpPadBit != 0 {
			if pad := int(b[off+n-1]); off+n != len(b) || pad == 0 || pad > n-rtcpHeaderLen {
				return false
			}
		}
		off += n
	}
	return off > 0
}

// plainPacket accounts one packet b of a plain compound that pion rejected as a whole.
// One pion rejects alone, without its padding too (a PSFB of format 15 that is not REMB,
// say), is counted by its header (rawPacket).
func (t *Tracker) plainPacket(p Path, b []byte, at int64) {
	pkts, err := rtcp.Unmarshal(b)
	if err != nil && b[0]&rtcpPadBit != 0 {
		pkts, err = rtcp.Unmarshal(t.rtcp.unpad(b))
	}
	if err != nil {
		t.rtcp.rawPacket(p, b)
		return
	}
	for _, pk := range pkts {
		t.plain(p, pk, at)
	}
}

// unpad returns the padded packet b without its padding, in r's scratch buffer: the P bit
// cleared and the length cut to the words that hold the rest, the octets of padding that
// share its last word zeroed. compound checked the count.
func (r *rtcpTracker) unpad(b []byte) []byte {
	n := len(b) - int(b[len(b)-1])
	words := (n + 3) / 4
	r.scratch = append(r.scratch[:0], b[:words*4]...)
	u := r.scratch
	clear(u[n:])
	u[0] &^= rtcpPadBit
	binary.BigEndian.PutUint16(u[2:], uint16(words-1))
	return u
}

// rawPacket counts a plain packet pion could not read by its header's type, for the SSRC
// it names in the clear: a feedback message's media source (RFC 4585 6.1; 0 names none),
// else the first after the header. An AFB that is not REMB (RFC 4585 6.4) is "other".
func (r *rtcpTracker) rawPacket(p Path, b []byte) {
	if len(b) < wire.RTCPClearLen {
		return
	}
	k := clearType(b[1], b[0]&0x1f)
	ssrc := binary.BigEndian.Uint32(b[4:])
	switch rtcp.PacketType(b[1]) {
	case rtcp.TypeTransportSpecificFeedback, rtcp.TypePayloadSpecificFeedback:
		if len(b) < wire.RTCPClearLen+4 {
			return
		}
		if ssrc = binary.BigEndian.Uint32(b[8:]); ssrc == 0 {
			return
		}
		if k == tREMB {
			k = tOther
		}
	}
	if st := r.state(p, ssrc); st != nil {
		st.packets++
		st.types[k]++
	}
}

// plain applies one packet of plain RTCP, received on p at at.
func (t *Tracker) plain(p Path, pk rtcp.Packet, at int64) {
	r := &t.rtcp
	k := packetType(pk)
	if nack, ok := pk.(*rtcp.TransportLayerNack); ok {
		t.markNACK(p, nack, at)
	}
	if sr, ok := pk.(*rtcp.SenderReport); ok {
		r.srs[r.srNext] = srEntry{leg: p.Leg, ssrc: sr.SSRC, mid: uint32(sr.NTPTime >> 16), at: at}
		r.srNext = (r.srNext + 1) % srRing
	}
	var seen [16]uint32
	n := 0
	for _, ssrc := range pk.DestinationSSRC() {
		dup := false
		for _, x := range seen[:n] {
			if x == ssrc {
				dup = true
			}
		}
		if dup {
			continue
		}
		if n < len(seen) {
			seen[n] = ssrc
			n++
		}
		st := r.state(p, ssrc)
		if st == nil {
			continue
		}
		st.packets++
		st.types[k]++
		r.about(st, p.Leg, ssrc, pk, at)
	}
}

// about applies what packet pk says about media SSRC ssrc.
func (r *rtcpTracker) about(st *rtcpState, leg int, ssrc uint32, pk rtcp.Packet, at int64) {
	switch v := pk.(type) {
	case *rtcp.SenderReport:
		r.blocks(st, leg, ssrc, v.Reports, at)
	case *rtcp.ReceiverReport:
		r.blocks(st, leg, ssrc, v.Reports, at)
	case *rtcp.TransportLayerNack:
		for _, pair := range v.Nacks {
			st.nacked += 1 + int64(bits.OnesCount16(uint16(pair.LostPackets)))
		}
	case *rtcp.PictureLossIndication:
		st.pli++
	case *rtcp.FullIntraRequest:
		st.fir++
	case *rtcp.ReceiverEstimatedMaximumBitrate:
		st.hasREMB, st.remb = true, float64(v.Bitrate)
	}
}

// blocks applies the report blocks about ssrc: the last reported loss and jitter, and the
// RTT when LSR names a sender report seen earlier on the same leg: arrival of this report −
// DLSR − arrival of that SR (RFC 3550 6.4.1), at the capture's vantage.
func (r *rtcpTracker) blocks(st *rtcpState, leg int, ssrc uint32, rbs []rtcp.ReceptionReport,
	at int64) {
	for _, rb := range rbs {
		if rb.SSRC != ssrc {
			continue
		}
		st.hasRB = true
		st.fraction, st.cumLost, st.jitter = rb.FractionLost, int32(rb.TotalLost<<8)>>8, rb.Jitter
		if rb.LastSenderReport == 0 {
			continue
		}
		for i := 0; i < srRing; i++ {
			e := &r.srs[(r.srNext-1-i+srRing)%srRing]
			if e.at == 0 && e.mid == 0 {
				break
			}
			if e.ssrc == ssrc && e.leg == leg && e.mid == rb.LastSenderReport {
				dlsr := int64(rb.Delay) * 1e9 / 65536
				if rtt := at - dlsr - e.at; rtt >= 0 {
					st.rtt.Record(float64(rtt) / 1e6)
					st.rtts.Add(at, float64(rtt)/1e6)
				}
				break
			}
		}
	}
}

func packetType(pk rtcp.Packet) int {
	switch pk.(type) {
	case *rtcp.SenderReport:
		return tSR
	case *rtcp.ReceiverReport:
		return tRR
	case *rtcp.SourceDescription:
		return tSDES
	case *rtcp.Goodbye:
		return tBYE
	case *rtcp.ApplicationDefined:
		return tAPP
	case *rtcp.TransportLayerNack:
		return tNACK
	case *rtcp.PictureLossIndication:
		return tPLI
	case *rtcp.FullIntraRequest:
		return tFIR
	case *rtcp.ReceiverEstimatedMaximumBitrate:
		return tREMB
	case *rtcp.TransportLayerCC:
		return tTWCC
	case *rtcp.ExtendedReport:
		return tXR
	}
	return tOther
}

// clearType classifies a packet by its header's type and count/format field.
func clearType(pt, count uint8) int {
	switch rtcp.PacketType(pt) {
	case rtcp.TypeSenderReport:
		return tSR
	case rtcp.TypeReceiverReport:
		return tRR
	case rtcp.TypeSourceDescription:
		return tSDES
	case rtcp.TypeGoodbye:
		return tBYE
	case rtcp.TypeApplicationDefined:
		return tAPP
	case rtcp.TypeExtendedReport:
		return tXR
	case rtcp.TypeTransportSpecificFeedback:
		switch count {
		case rtcp.FormatTLN: // RFC 4585 6.2.1
			return tNACK
		case rtcp.FormatTCC: // draft-holmer-rmcat-transport-wide-cc-extensions-01
			return tTWCC
		}
	case rtcp.TypePayloadSpecificFeedback:
		switch count {
		case rtcp.FormatPLI: // RFC 4585 6.3.1
			return tPLI
		case rtcp.FormatFIR: // RFC 5104 4.3.1
			return tFIR
		case rtcp.FormatREMB: // RFC 4585 6.4 (AFB), draft-alvestrand-rmcat-remb
			return tREMB
		}
	}
	return tOther
}

// RTCPRTTSeries returns the round trips of the stream's rtcp.rtt_ms by second (the RTCP of
// its leg, as its summary); nil when RTCP measured none.
func (s *Stream) RTCPRTTSeries() *secmedian.Series {
	st := s.t.rtcp.of(s)
	if st == nil || st.rtts.Samples() == 0 {
		return nil
	}
	return &st.rtts
}

// of returns what RTCP said about stream s: on its own leg, else what lend gave it.
func (r *rtcpTracker) of(s *Stream) *rtcpState {
	k := rtcpKey{s.path.Leg, s.ssrc}
	if st := r.byKey[k]; st != nil {
		return st
	}
	return r.lent[k]
}

// summary is the report of what RTCP said about stream s; clock converts reported jitter.
func (r *rtcpTracker) summary(s *Stream, clock int) *report.RTCP {
	st := r.of(s)
	if st == nil {
		return nil
	}
	out := &report.RTCP{
		Packets:   st.packets,
		Encrypted: st.encrypted,
		Types:     make(map[string]int64, nTypes),
		RTTMS:     st.rtt.Summary(),
		PLI:       st.pli,
		FIR:       st.fir,
	}
	for i, k := range typeKeys {
		out.Types[k] = st.types[i]
	}
	if !st.encrypted {
		// SRTCP encrypts everything after the first header and sender SSRC: a NACK's list
		// of lost packets cannot be read, though the NACK is counted by type.
		n := st.nacked
		out.NACKedPackets = &n
	}
	if st.hasRB {
		f := numfmt.Round(float64(st.fraction)*100/256, 3)
		c := int64(st.cumLost)
		out.FractionLost, out.CumulativeLost = &f, &c
		if clock > 0 {
			j := numfmt.Round(float64(st.jitter)*1000/float64(clock), 3)
			out.JitterMS = &j
		}
	}
	if st.hasREMB {
		k := numfmt.Round(st.remb/1000, 3)
		out.REMBKbps = &k
	}
	return out
}

// markNACK notes in the media stream a NACK names which sequence numbers its receiver asked
// again for, so that an RTX packet resending one counts as a repair even when the capture
// saw the original (lost after the capture point). The media stream travels against the
// NACK on the same leg: first the reverse of p, else a stream of that SSRC on the leg sent
// from the NACK's destination address (RTCP on its own port, without rtcp-mux). The
// numbers named are also credits of the media path at at (nackLedger), for an RTX stream
// matched by timestamps.
func (t *Tracker) markNACK(p Path, nack *rtcp.TransportLayerNack, at int64) {
	s := t.streams[streamKey{Path{Leg: p.Leg, Src: p.Dst, Dst: p.Src}, nack.MediaSSRC}]
	if s == nil {
		for _, o := range t.order {
			if o.ssrc == nack.MediaSSRC && !o.evicted && o.path.Leg == p.Leg && o.path.Src.Addr() == p.Dst.Addr() {
				s = o
				break
			}
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
// video stream (not RTX) among out that travels it: WebRTC asks for retransmissions and
// key frames of video only. Where the path has no such stream or several, which one was
// meant cannot be told: they are counted in Counts.RTCPUnattributed. It runs once.
func (t *Tracker) attributeFeedback(out []*Stream) {
	r := &t.rtcp
	if r.fbDone {
		return
	}
	r.fbDone = true
	for p, c := range r.feedback {
		var v *Stream
		n := 0
		for _, s := range out {
			if s.path == p && s.IsMedia() && s.kind() == "video" {
				v = s
				n++
			}
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

// lend gives the RTCP that came on a leg carrying no stream of its SSRC to the one stream
// of that SSRC between the same two addresses that has no RTCP on its own leg: without
// rtcp-mux (RFC 5761), RTCP goes between other ports, a flow and so a leg of its own. It
// is given to no stream where it could be meant for several, or a stream could take it
// from several legs. It runs once.
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
	given := make(map[*Stream]*rtcpState)
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
		if n != 1 {
			continue
		}
		if _, dup := given[to]; dup {
			given[to] = nil
			continue
		}
		given[to] = st
	}
	for s, st := range given {
		if st != nil {
			if r.lent == nil {
				r.lent = make(map[rtcpKey]*rtcpState)
			}
			r.lent[rtcpKey{s.path.Leg, s.ssrc}] = st
		}
	}
}
