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
	srs       map[uint32]*srHistory // by sender SSRC
	packets   int64                 // compound packets
	encrypted int64
	invalid   int64
	// damaged counts plain RTCP that did not parse whole, on a leg whose RTCP parsed as
	// plain before (plainLegs): read up to the damage, not taken for SRTCP.
	damaged   int64
	plainLegs map[int]bool // bounded by the legs (flows) the analysis keeps
	snapped   int64        // cut by the snap length: counted, not read
	untracked int64
	// otherReporter counts report blocks about a stream from a receiver other than the
	// first that reported on it: counted, not used (blocks).
	otherReporter int64
	scratch       []byte // the last packet of a compound without its padding (unpad)

	// lent gives a stream the RTCP of another leg, RTCP on a port of its own (lend).
	lent     map[rtcpKey]*rtcpState
	lentLegs map[rtcpKey][]int // the legs lent from, for RTCPLegs
	lendDone bool
	// noStream counts by type the SRTCP packets whose sender SSRC, the only one SRTCP
	// leaves readable, sent no stream, on its leg or lent (lend): a receive-only endpoint's
	// receiver reports, REMB and transport-cc feedback (libwebrtc sends them as SSRC 1).
	noStream [nTypes]int64
	// plainNoStream counts by type the plain RTCP packets about no stream: those that name
	// no SSRC (a receiver report without report blocks, from a receiver that has received
	// nothing yet), and those whose SSRCs sent no stream, on their leg or lent (an SDES of a
	// receive-only endpoint's own SSRC, a report about an SSRC too short to be a stream).
	plainNoStream [nTypes]int64

	// Encrypted feedback (NACK, PLI, FIR) by the path of the media it is about (the reverse
	// of its own), attributed at the end (attributeFeedback).
	feedback     map[Path]*[nTypes]int64
	fbDone       bool
	unattributed int64

	// trailer is, by leg, the fewest bytes an SRTCP packet carried after its first RTCP
	// packet (noteTrailer, SRTCPTagLen).
	trailer map[int]int
}

type rtcpState struct {
	a, b      netip.Addr // the addresses of the path it first came on (lend)
	packets   int64
	encrypted bool
	types     [nTypes]int64
	rtt       quantile.Hist
	rtts      secmedian.Series // the same round trips by second, for the report's RTT series
	hasRB     bool
	reporter  uint32 // the SSRC whose blocks give the figures below: the first to report
	fraction  uint8
	cumLost   int32
	highest   uint32 // extended highest sequence number received
	// The first report block's cumulative lost and extended highest sequence number, and
	// whether a later one came: the loss reported during the capture.
	cumLost0 int32
	highest0 uint32
	rbAgain  bool
	// highestDown: a block's extended highest sequence number was below the one before
	// (the receiver restarted, or its reports came out of order): the span's difference
	// means nothing, even if a later one went up again.
	highestDown bool
	jitter      uint32
	nacked      int64
	pli, fir    int64
	hasREMB     bool
	remb        float64 // bps
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
	if m.Snapped {
		// Cut by the snap length, the bytes kept cannot tell plain RTCP from SRTCP, whose
		// first packet is as clear: counted, by the clear header of its first packet, as a
		// packet pion could not read is (rawPacket), and not read further.
		r.packets++
		r.snapped++
		if len(b) > 0 && b[0]>>6 == wire.RTPVersion {
			r.rawPacket(p, b)
		}
		return
	}
	pkts, err := rtcp.Unmarshal(b)
	if err == nil {
		r.packets++
		r.plainOn(p.Leg)
		for _, pk := range pkts {
			t.plain(p, pk, m)
		}
		return
	}
	if compound(b) {
		r.packets++
		r.plainOn(p.Leg)
		t.plainPackets(p, b, m)
		return
	}
	if r.plainLegs[p.Leg] && len(b) >= wire.RTCPHeaderLen && b[0]>>6 == wire.RTPVersion {
		// Damaged plain RTCP, not SRTCP: its leg's RTCP is plain, and one endpoint's RTCP
		// is encrypted or not for the whole call (RFC 3711 3.4). The packets before the
		// damage are read; the rest is counted damaged.
		r.packets++
		r.damaged++
		n := wholeLen(b)
		t.plainPackets(p, b[:n], m)
		if n == 0 {
			r.rawPacket(p, b) // the damage in its first packet: counted by its header
		}
		return
	}
	if len(b) < wire.RTCPClearLen || b[0]>>6 != wire.RTPVersion {
		r.invalid++
		return
	}
	if wire.RTCPLen(b) > len(b) && wire.IsRTCP(b) {
		// Its first packet claims more than the datagram holds: no SRTCP, whose first
		// packet is whole, but damaged RTCP, counted by its clear header (h134: a damaged
		// first sender report was in no count).
		r.packets++
		r.damaged++
		r.rawPacket(p, b)
		return
	}
	if len(b)-wire.RTCPLen(b) < srtcpMinTrailer {
		r.invalid++
		return
	}
	r.packets++
	r.encrypted++
	r.noteTrailer(p.Leg, len(b)-wire.RTCPLen(b))
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

// plainOn notes that leg carried plain RTCP (plainLegs).
func (r *rtcpTracker) plainOn(leg int) {
	if !r.plainLegs[leg] {
		if r.plainLegs == nil {
			r.plainLegs = make(map[int]bool)
		}
		r.plainLegs[leg] = true
	}
}

// srtcpMinTrailer is the fewest bytes SRTCP carries after its first packet: the E flag and
// index (4) and an authentication tag, mandatory for SRTCP and 80 bits in every profile
// that uses HMAC-SHA1 (RFC 3711 3.4, RFC 4568 6.2), 16 bytes with AES-GCM (RFC 7714). RTCP
// that does not parse and leaves fewer is damaged, not encrypted.
const srtcpMinTrailer = 4 + 10

// noteTrailer keeps the fewest bytes an SRTCP packet of leg carried after its first RTCP
// packet: the E flag and SRTCP index (4 bytes), the authentication tag and, in a compound,
// the encrypted packets after the first. Bounded by the legs (flows) the analysis keeps.
func (r *rtcpTracker) noteTrailer(leg, n int) {
	if r.trailer == nil {
		r.trailer = map[int]int{}
	}
	if m, ok := r.trailer[leg]; !ok || n < m {
		r.trailer[leg] = n
	}
}

// SRTCPTagLen says how long the authentication tag of leg's SRTCP is, where one of its
// packets held a single RTCP packet (RFC 5506's reduced size, as WebRTC sends its
// feedback): after that packet come only the 4 bytes of E flag and index (RFC 3711 3.4)
// and the tag, 10 bytes for the HMAC-SHA1 profiles, 16 for AES-GCM (RFC 7714 9.3). A leg
// whose SRTCP packets are all compound says nothing (ok false): the fewest bytes after the
// first packet then hold an encrypted packet too.
func (t *Tracker) SRTCPTagLen(leg int) (n int, ok bool) {
	switch m, seen := t.rtcp.trailer[leg]; {
	case !seen:
		return 0, false
	case m == 4+10 || m == 4+16:
		return m - 4, true
	}
	return 0, false
}

// plain applies one packet of plain RTCP, of message m received on p: at its delivery,
// but for a sender report, kept for the RTT, at its first sight. At a TCP sender's vantage
// delivery is the receiver's, estimated half a round trip on, where RFC 3550 6.4.1 takes
// the SR's sending: its RTT read half the path's short (h162: 24.95 ms on a 50 ms path).
// Over UDP the two are one.
func (t *Tracker) plain(p Path, pk rtcp.Packet, m *transport.Message) {
	r := &t.rtcp
	at := m.Delivered
	k := packetType(pk)
	if nack, ok := pk.(*rtcp.TransportLayerNack); ok {
		t.markNACK(p, nack, at)
	}
	if sr, ok := pk.(*rtcp.SenderReport); ok {
		r.senderReport(p.Leg, sr, m.FirstSeen)
	}
	var seen [16]uint32
	n := 0
	about := pk.DestinationSSRC()
	if rr, ok := pk.(*rtcp.ReceiverReport); ok && len(rr.Reports) == 0 {
		// A receiver report without blocks says only who sent it: like an SR, it is
		// counted on the sender's own stream, where it sends one.
		about = []uint32{rr.SSRC}
	}
	if len(about) == 0 {
		r.plainNoStream[k]++
	}
	for _, ssrc := range about {
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
		r.blocks(st, leg, v.SSRC, ssrc, v.Reports, at)
	case *rtcp.ReceiverReport:
		r.blocks(st, leg, v.SSRC, ssrc, v.Reports, at)
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

// of returns what RTCP said about stream s: on its own leg, else what lend gave it.
func (r *rtcpTracker) of(s *Stream) *rtcpState {
	k := rtcpKey{s.path.Leg, s.ssrc}
	if st := r.byKey[k]; st != nil {
		return st
	}
	return r.lent[k]
}

// typeCounts returns the types with a count, in the report's order of types.
func typeCounts(counts *[nTypes]int64) []TypeCount {
	var out []TypeCount
	for i, x := range counts {
		if x > 0 {
			out = append(out, TypeCount{typeKeys[i], x})
		}
	}
	return out
}

// TypeCount is how many RTCP packets of one type ("rr", "remb", ...) were counted.
type TypeCount struct {
	Type string
	N    int64
}

// Beyond these a receiver's figure is no measurement (a damaged or hostile report: jitter
// 0xFFFFFFFF, a REMB of 2^63 bps): null, not absurd. A jitter of a minute is already no
// call's; 1 Tbps is no link's.
const (
	maxReportedJitterMS = 60e3
	maxREMB             = 1e12 // bps
)

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
		// The difference of the wrapping 32-bit sequence number, and of the signed 24-bit
		// count, which RFC 3550 (A.3) clamps rather than wraps. An extended highest
		// sequence number that went down at any block (the receiver restarted, or its
		// reports came out of order) leaves nothing to subtract: null, not a wrapped 4
		// billion. Nor does more lost than expected, which no receiver's counters give
		// (its lost is what it expected less what it received): damaged, or clamped; nor
		// a fall of more than expected, as if every packet had come twice and more (h162:
		// -8,388,618 of 100, a count clamped at its least).
		lost := int64(st.cumLost) - int64(st.cumLost0)
		if exp := int64(int32(st.highest - st.highest0)); st.rbAgain && !st.highestDown && exp >= 0 && lost <= exp && lost >= -exp {
			out.ReportedLost, out.ReportedExpected = &lost, &exp
		}
		if j := float64(st.jitter) * 1000 / float64(clock); clock > 0 && j <= maxReportedJitterMS {
			j = numfmt.Round(j, 3)
			out.JitterMS = &j
		}
	}
	if st.hasREMB && st.remb <= maxREMB {
		k := numfmt.Round(st.remb/1000, 3)
		out.REMBKbps = &k
	}
	return out
}
