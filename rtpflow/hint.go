package rtpflow

import (
	"net/netip"
	"strings"
)

// PayloadHint is what signalling (the SDP of a SIP message, or of WebRTC's offer and
// answer) says about one payload type at one receiving address, or of one source. It has
// the fields of demux.PayloadHint, so the caller converts one into the other; this
// package stays free of the demux.
type PayloadHint struct {
	Addr      netip.AddrPort // where the media is received: a stream's Path.Dst
	SSRC      uint32         // the source, for a hint whose Addr is zero
	PT        uint8
	Codec     string // encoding name; "" when unknown
	ClockRate int    // 0 when unknown
	Media     string // SDP media type: "audio", "video", ...
	// RTX says that PT carries RFC 4588 retransmissions of payload type APT (fmtp apt=).
	RTX bool
	APT uint8
	// SRTPTrailer is the authentication tag and MKI that SRTP keyed by SDES appends to
	// each packet (a=crypto); 0 when not signalled.
	SRTPTrailer uint8
}

// FIDHint is an SDP ssrc-group:FID pair (RFC 5576; RFC 4588, 8.2): RTX is the
// retransmission stream of Media. Addr is the SDP section's address, which its author
// receives on and, RTP being symmetric (RFC 4961), sends from: the pair applies to streams
// from or to it; to any stream when Addr is zero (a section that named no address). It
// has the fields of demux.FIDHint.
type FIDHint struct {
	Addr       netip.AddrPort
	Media, RTX uint32
}

// maxHints bounds the hints kept: beyond it the oldest (address, payload type) is
// forgotten, so that a long capture of many calls keeps the hints of its recent ones.
const maxHints = 1024

// hintKey is a hint's receiving address and payload type, or, with addr zero, its source
// and payload type.
type hintKey struct {
	addr netip.AddrPort
	ssrc uint32
	pt   uint8
}

// hintTable holds the hints of one capture, allocated with the first hint: most captures
// have no SIP.
type hintTable struct {
	m     map[hintKey]PayloadHint
	ring  []hintKey // keys in the order first given, for eviction; len ≤ maxHints
	next  int       // the oldest key once ring is full
	taken map[*Stream]PayloadHint

	fid     map[uint32]FIDHint // by RTX SSRC
	fidRing []uint32
	fidNext int
}

// Hint records what signalling says about payload type h.PT at h.Addr, or of source
// h.SSRC when h.Addr is zero; a later hint for the same address (or source) and payload
// type (a re-INVITE) replaces it.
//
// A stream whose destination (Path.Dst) and first payload type match a hint, or else whose
// SSRC and first payload type do, when its clock is decided (after its first packets, see
// Stream.Summary) takes the hint's clock rate, not inferred, so jitter and delay use it
// from the first packet; signalling precedes its media in a capture, so this is the usual
// case. A hint that comes after that decision
// still gives the stream its codec name and kind at Summary, but the clock decided by
// inference stays (clock_rate_inferred true): jitter and delay were computed with it.
func (t *Tracker) Hint(h PayloadHint) {
	if h.PT >= 128 || h.ClockRate < 0 {
		return
	}
	ht := &t.hints
	if ht.m == nil {
		ht.m = make(map[hintKey]PayloadHint)
		ht.taken = make(map[*Stream]PayloadHint)
	}
	k := hintKey{addr: h.Addr, pt: h.PT}
	if !h.Addr.IsValid() {
		k = hintKey{ssrc: h.SSRC, pt: h.PT}
	}
	if _, ok := ht.m[k]; !ok {
		if len(ht.ring) < maxHints {
			ht.ring = append(ht.ring, k)
		} else {
			delete(ht.m, ht.ring[ht.next])
			ht.ring[ht.next] = k
			ht.next = (ht.next + 1) % maxHints
		}
	}
	ht.m[k] = h
}

// HintFID records an SDP ssrc-group:FID pair; a later pair naming the same RTX SSRC
// replaces it. A stream with SSRC h.RTX is then the RTX stream of the stream of the same
// sender with SSRC h.Media, without waiting for its OSNs (rtxmatcher.go), wherever it
// travels: the pair of SSRCs names it (two random 32-bit numbers), where h.Addr, an
// address the SDP gave, need be neither end of the path the capture sees (a candidate
// behind a NAT, or one the agent was told to advertise: a real pion call's FID groups
// linked nothing at the sender's side, and its RTX stream read as video with 9 lost).
func (t *Tracker) HintFID(h FIDHint) {
	if h.Media == h.RTX {
		return
	}
	ht := &t.hints
	if ht.fid == nil {
		ht.fid = make(map[uint32]FIDHint)
	}
	if _, ok := ht.fid[h.RTX]; !ok {
		if len(ht.fidRing) < maxHints {
			ht.fidRing = append(ht.fidRing, h.RTX)
		} else {
			delete(ht.fid, ht.fidRing[ht.fidNext])
			ht.fidRing[ht.fidNext] = h.RTX
			ht.fidNext = (ht.fidNext + 1) % maxHints
		}
	}
	ht.fid[h.RTX] = h
}

// fidOf returns the media SSRC an FID pair names for the RTX stream s.
func (ht *hintTable) fidOf(s *Stream) (uint32, bool) {
	if ht.fid == nil {
		return 0, false
	}
	h, ok := ht.fid[s.ssrc]
	return h.Media, ok
}

// namesRTX reports whether signalling names s an RTX stream: an FID pair with its SSRC on
// the RTX side, or an apt= for its payload type pt.
func (ht *hintTable) namesRTX(s *Stream, pt uint8) bool {
	if _, ok := ht.fidOf(s); ok {
		return true
	}
	h, ok := ht.lookupPT(s, pt)
	return ok && h.RTX
}

// namesOther reports whether signalling names s's first payload type a codec other than
// rtx, and no FID pair names s an RTX stream.
func (ht *hintTable) namesOther(s *Stream) bool {
	if _, ok := ht.fidOf(s); ok {
		return false
	}
	h, ok := ht.lookup(s)
	return ok && !h.RTX && h.Codec != ""
}

// lookup returns the hint for a stream's first payload type.
func (ht *hintTable) lookup(s *Stream) (PayloadHint, bool) { return ht.lookupPT(s, s.pt) }

// lookupPT returns the hint for payload type pt of stream s: what the SDP of its
// destination says (the types it receives, RFC 3264 5.1), else what SDP says of its SSRC,
// else what the sender's own SDP names it. Senders number both ways alike, as RFC 3264
// 6.1 recommends; one that sends a type named only in its own offer (an answer that
// dropped it, a gateway's re-INVITE) still means what it named.
func (ht *hintTable) lookupPT(s *Stream, pt uint8) (PayloadHint, bool) {
	if ht.m == nil {
		return PayloadHint{}, false
	}
	if h, ok := ht.m[hintKey{addr: s.path.Dst, pt: pt}]; ok {
		return h, true
	}
	if h, ok := ht.m[hintKey{ssrc: s.ssrc, pt: pt}]; ok {
		return h, true
	}
	h, ok := ht.m[hintKey{addr: s.path.Src, pt: pt}]
	return h, ok
}

// SRTPTrailer is the authentication tag and MKI that SRTP keyed by SDES appends to each
// packet of s, as an a=crypto of one suite says (PayloadHint.SRTPTrailer): the SDP of its
// destination, else of its SSRC, else its sender's own. An offer of several suites says
// nothing; the answer's one, sent by either end, does: the suite is the same both ways. 0
// when no SDP says.
func (s *Stream) SRTPTrailer() int {
	ht := &s.t.hints
	if ht.m == nil {
		return 0
	}
	for _, k := range [...]hintKey{{addr: s.path.Dst, pt: s.pt}, {ssrc: s.ssrc, pt: s.pt}, {addr: s.path.Src, pt: s.pt}} {
		if h, ok := ht.m[k]; ok && h.SRTPTrailer > 0 {
			return int(h.SRTPTrailer)
		}
	}
	return 0
}

// payloadKind is "event" for an RFC 4733 telephone-event payload, "comfort_noise" for
// RFC 3389 comfort noise (static payload type 13, or "CN" in SDP) and "fec" for forward
// error correction (ulpfec, RFC 5109; flexfec, RFC 8627: "flexfec-03" as libwebrtc names
// it), by payload type and the codec name SDP gave it; "" for anything else. None of them
// is media with timing of its own: a FEC packet's timestamp is that of packets it protects.
func payloadKind(pt uint8, codec string) string {
	switch {
	case strings.EqualFold(codec, "telephone-event"):
		return "event"
	case strings.EqualFold(codec, "CN"), codec == "" && pt == 13:
		return "comfort_noise"
	case strings.EqualFold(codec, "ulpfec"), len(codec) >= 7 && strings.EqualFold(codec[:7], "flexfec"):
		return "fec"
	}
	return ""
}

// take applies the hint of s, if any, at the clock decision: its clock rate replaces
// inference. The hint is kept for s, so that a later eviction from the table does not
// take the codec name back.
func (ht *hintTable) take(s *Stream) bool {
	h, ok := ht.lookup(s)
	if !ok {
		return false
	}
	ht.taken[s] = h
	if h.ClockRate > 0 {
		s.clock, s.clockInferred = h.ClockRate, false
		return true
	}
	return false
}

// of returns the hint that applies to s at Summary: the one taken at its clock decision,
// else the current one.
func (ht *hintTable) of(s *Stream) (PayloadHint, bool) {
	if h, ok := ht.taken[s]; ok {
		return h, true
	}
	return ht.lookup(s)
}

// forget drops what was kept for an evicted stream.
func (ht *hintTable) forget(s *Stream) {
	if ht.taken != nil {
		delete(ht.taken, s)
	}
}
