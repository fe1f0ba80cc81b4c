package demux

import (
	"bytes"
	"net/netip"
)

// PayloadHint is what one side's SDP (RFC 8866) says about one payload type of one media
// section: the media sent to Addr with payload type PT is Codec at ClockRate; or, when
// Addr is the zero AddrPort, the media of source SSRC with payload type PT is.
type PayloadHint struct {
	// Addr is where this side receives that media (sdpAddrs: the connection address
	// and m= port, its candidates, its BUNDLE group's), the destination of the RTP it
	// describes.
	Addr netip.AddrPort
	// SSRC is a source the SDP's author sends in this section (a=ssrc, RFC 5576, 4.1),
	// for a hint whose Addr is zero: WebRTC's offer and answer name the sources each side
	// sends, and both sides use the same payload type numbers (RFC 8829, 5.3.1), so the
	// section's payload types name its sources' codecs wherever the packets travel
	// (through TURN, across a NAT), and whatever address its candidates gave.
	SSRC uint32
	PT   uint8
	// Codec is the encoding name of a=rtpmap as written ("opus", "AMR", "telephone-event"),
	// or the RFC 3551 name of a static payload type without rtpmap; "" when neither.
	Codec string
	// ClockRate is the RTP clock of a=rtpmap, or of the static payload type; 0 when neither.
	ClockRate int
	Media     string // the m= media type: "audio", "video", "application", ...
	// RTX is set when a=fmtp gives this payload type an apt= parameter (RFC 4588, 8.1):
	// it carries retransmissions of payload type APT, of the same section.
	RTX bool
	APT uint8
	// SRTPTrailer is what SRTP keyed by SDES appends to each RTP packet of the section
	// (RFC 4568: a=crypto): the authentication tag of its one crypto suite and the MKI;
	// 0 when the section has no a=crypto, or offers several suites (the answer's one says).
	SRTPTrailer uint8
}

// FIDHint is an a=ssrc-group:FID line of one media section (RFC 5576, 4.2; RFC 4588, 8.2):
// the source RTX carries the retransmissions of the source Media. SSRC attributes describe
// what the SDP's author sends (RFC 5576, 4.1), so Addr, the section's receiving address
// like PayloadHint's, is also where that media comes from when RTP is symmetric (RFC 4961):
// the caller takes it on either end of a path. Addr is zero when the section names no
// address (WebRTC's SDP before its candidates are gathered): the pair then holds on any.
type FIDHint struct {
	Addr       netip.AddrPort
	Media, RTX uint32
}

const (
	// maxFormats bounds the payload types taken from one m= line.
	maxFormats = 64
	// maxClockDigits keeps a clock rate parse from overflowing.
	maxClockDigits = 9
	// maxFIDs bounds the ssrc-group:FID lines taken from one section: one per simulcast
	// layer (three is usual), and more than enough for one camera.
	maxFIDs = 8
	// maxSSRCs bounds the sources taken from one section's a=ssrc lines: a media and an
	// RTX source per simulcast layer.
	maxSSRCs = 8
)

// sdpSink receives what a body describes; fid may be nil.
type sdpSink struct {
	pt  func(h PayloadHint)
	fid func(h FIDHint)
}

// ParseSDP finds the SDP body of the SIP message b and calls fn for each payload type of
// each RTP media section at each address the section receives on (see sdpAddrs.read: its
// c= address and m= port unless unspecified or 0, its ICE candidates, and those of its
// BUNDLE group), then fid, unless nil, for each of the section's ssrc-group:FID pairs (at
// most maxFIDs a section) at each of those addresses.
//
// The body starts after the first empty line; it is taken when Content-Type (or its compact
// form c) is application/sdp, or is multipart with an application/sdp part (SIP-I/SIP-T
// carry ISUP beside the SDP). Content-Length (l) limits the body where present; without it
// (allowed over UDP, RFC 3261 20.14) the body runs to the end of b. A body that Content-Length
// says was cut short loses its unterminated last line, which could hold a cut number.
//
// ParseSDP never reads past b, does work linear in len(b), and allocates only the strings
// of the hints it reports.
func ParseSDP(b []byte, fn func(h PayloadHint), fid func(h FIDHint)) {
	body, ctype, ok := sipBody(b)
	if !ok {
		return
	}
	parseBody(body, ctype, sdpSink{fn, fid}, true)
}

// mediaSection is one m= section being read.
type mediaSection struct {
	media    []byte
	port     int  // the m= port: 0 for a rejected section, or one bundled with another
	rtp      bool // an RTP profile: the formats are payload types
	formats  [maxFormats]uint8
	nFormats int
	mapped   [2]uint64 // payload types with an rtpmap in this section
	rtpmap   [128]struct {
		name  []byte
		clock int
	}
	rtx   [2]uint64 // payload types with an fmtp apt= in this section
	apt   [128]uint8
	fids  [maxFIDs]FIDHint // Addr unset until emit
	nFIDs int
	ssrcs [maxSSRCs]uint32 // the sources of its a=ssrc lines, each once
	nSSRC int
	// crypto is the SRTP trailer of its a=crypto lines (cryptoTrailer), and how many
	// there were: a hint carries it only where there was one.
	crypto, nCrypto int
}

// parseSDP reads the session and media descriptions of an SDP body (RFC 8866, 5): where
// each media section receives (sdpAddrs.read, a first pass), then its m= line and the
// a=rtpmap, a=fmtp (for apt= only) and a=ssrc-group:FID attributes.
func parseSDP(body []byte, fn sdpSink) {
	var addrs sdpAddrs
	addrs.read(body)
	var sec mediaSection
	in := false
	n := 0 // sections so far
	for typ, v := range sdpLines(body) {
		switch typ {
		case 'm':
			if in {
				sec.emit(&addrs, n-1, fn)
			}
			sec.reset(v)
			in = true
			n++
		case 'a':
			switch {
			case !in:
			case bytes.HasPrefix(v, []byte("rtpmap:")):
				sec.rtpMap(v[len("rtpmap:"):])
			case bytes.HasPrefix(v, []byte("fmtp:")):
				sec.fmtp(v[len("fmtp:"):])
			case bytes.HasPrefix(v, []byte("ssrc-group:")):
				sec.ssrcGroup(v[len("ssrc-group:"):])
			case bytes.HasPrefix(v, []byte("ssrc:")):
				sec.ssrc(v[len("ssrc:"):])
			case bytes.HasPrefix(v, []byte("crypto:")):
				sec.crypto, _ = cryptoTrailer(v[len("crypto:"):])
				sec.nCrypto++
			}
		}
	}
	if in {
		sec.emit(&addrs, n-1, fn)
	}
}

// reset starts a section from an m= value: <media> <port>[/<count>] <proto> <fmt> ...
func (s *mediaSection) reset(v []byte) {
	s.media, s.port, s.rtp, s.nFormats, s.mapped = nil, 0, false, 0, [2]uint64{}
	s.rtx, s.nFIDs, s.nSSRC = [2]uint64{}, 0, 0
	s.crypto, s.nCrypto = 0, 0
	f := 0
	for len(v) > 0 {
		var tok []byte
		tok, v = nextField(v)
		if len(tok) == 0 {
			continue
		}
		switch f {
		case 0:
			s.media = tok
		case 1:
			port, ok := mPort(tok)
			if !ok {
				return
			}
			s.port = port
		case 2:
			// RTP/AVP, RTP/AVPF, RTP/SAVP, RTP/SAVPF, UDP/TLS/RTP/SAVPF, TCP/RTP/AVP...;
			// udptl (T.38) and others list formats that are not payload types.
			s.rtp = bytes.Contains(tok, []byte("RTP/"))
		default:
			n, ok := atoi(tok)
			if ok && n < 128 && s.nFormats < maxFormats {
				s.formats[s.nFormats] = uint8(n)
				s.nFormats++
			}
		}
		f++
	}
}

// rtpMap reads an rtpmap value: <payload type> <encoding name>/<clock rate>[/<parameters>].
func (s *mediaSection) rtpMap(v []byte) {
	sp := bytes.IndexByte(v, ' ')
	if sp < 0 {
		return
	}
	pt, ok := atoi(v[:sp])
	if !ok || pt >= 128 {
		return
	}
	enc := bytes.TrimSpace(v[sp+1:])
	slash := bytes.IndexByte(enc, '/')
	if slash <= 0 {
		return
	}
	rate := enc[slash+1:]
	if i := bytes.IndexByte(rate, '/'); i >= 0 {
		rate = rate[:i] // channels or other parameters
	}
	clock, ok := atoi(rate)
	if !ok || clock == 0 {
		return
	}
	s.rtpmap[pt].name, s.rtpmap[pt].clock = enc[:slash], clock
	s.mapped[pt>>6] |= 1 << (pt & 63)
}

// fmtp reads the apt= parameter of an fmtp value: <payload type> <parameters>, where the
// parameters of rtx are ;-separated name=value pairs (RFC 4588, 8.1: apt, rtx-time).
// Other formats' parameters are not read.
func (s *mediaSection) fmtp(v []byte) {
	sp := bytes.IndexAny(v, " \t")
	if sp < 0 {
		return
	}
	pt, ok := atoi(v[:sp])
	if !ok || pt >= 128 {
		return
	}
	apt, ok := atoi(param(v[sp+1:], "apt"))
	if !ok || apt >= 128 || apt == pt {
		return
	}
	s.apt[pt] = uint8(apt)
	s.rtx[pt>>6] |= 1 << (pt & 63)
}

// cryptoTrailer reads an a=crypto value, <tag> <crypto-suite> <key-params>
// [<session-params>] (RFC 4568, 9.1), for the bytes SRTP appends to each RTP packet: the
// suite's authentication tag (RFC 4568 6.2, RFC 6188, RFC 7714) and the MKI its first key
// gives (inline:<key>[|<lifetime>][|<MKI>:<length>]). ok is false for a suite of unknown
// tag, or with UNAUTHENTICATED_SRTP (no tag at all).
func cryptoTrailer(v []byte) (n int, ok bool) {
	_, v = nextField(v) // the tag, which the answer repeats
	suite, v := nextField(v)
	switch string(suite) {
	case "AES_CM_128_HMAC_SHA1_80", "F8_128_HMAC_SHA1_80", "AES_192_CM_HMAC_SHA1_80", "AES_256_CM_HMAC_SHA1_80":
		n = 10
	case "AES_CM_128_HMAC_SHA1_32", "AES_192_CM_HMAC_SHA1_32", "AES_256_CM_HMAC_SHA1_32":
		n = 4
	case "AEAD_AES_128_GCM", "AEAD_AES_256_GCM":
		n = 16
	default:
		return 0, false
	}
	key, v := nextField(v)
	if bytes.Contains(v, []byte("UNAUTHENTICATED_SRTP")) {
		return 0, false
	}
	key, _, _ = bytes.Cut(key, []byte(";")) // the first of several keys
	for part := range bytes.SplitSeq(key, []byte("|")) {
		if _, l, isMKI := bytes.Cut(part, []byte(":")); isMKI && !bytes.HasPrefix(part, []byte("inline")) {
			if mki, ok := atoi(l); ok && mki <= 128 {
				n += mki
			}
		}
	}
	return n, true
}

// ssrcGroup reads an ssrc-group value: <semantics> <ssrc-id> ... (RFC 5576, 4.2). Only FID
// groups of exactly two SSRCs are taken, the first the media, the second its RTX (RFC
// 4588, 8.2); other semantics (SIM, FEC-FR) name no RTX.
func (s *mediaSection) ssrcGroup(v []byte) {
	sem, v := nextField(v)
	if !bytes.Equal(sem, []byte("FID")) || s.nFIDs == maxFIDs {
		return
	}
	var ids [2]uint32
	n := 0
	for len(v) > 0 {
		var tok []byte
		tok, v = nextField(v)
		if len(tok) == 0 {
			continue
		}
		id, ok := parseSSRC(tok)
		if !ok || n == len(ids) {
			return
		}
		ids[n] = id
		n++
	}
	if n != 2 || ids[0] == ids[1] {
		return
	}
	s.fids[s.nFIDs] = FIDHint{Media: ids[0], RTX: ids[1]}
	s.nFIDs++
}

// ssrc reads the source of an ssrc value: <ssrc-id> <attribute>[:<value>] (RFC 5576, 4.1).
func (s *mediaSection) ssrc(v []byte) {
	tok, _ := nextField(v)
	id, ok := parseSSRC(tok)
	if !ok {
		return
	}
	for _, o := range s.ssrcs[:s.nSSRC] {
		if o == id {
			return
		}
	}
	if s.nSSRC < maxSSRCs {
		s.ssrcs[s.nSSRC] = id
		s.nSSRC++
	}
}

// parseSSRC reads an ssrc-id: a decimal number below 2^32 (RFC 5576, 4.1).
func parseSSRC(b []byte) (uint32, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > 1<<32-1 {
		return 0, false
	}
	return uint32(n), true
}

// emit reports the payload types of section i, whose addresses are in a, at each of its
// addresses and for each of its sources, then its FID pairs at each of its addresses (at
// none when it has none). A rejected section (port 0, in no BUNDLE group) has none of them.
func (s *mediaSection) emit(a *sdpAddrs, i int, sink sdpSink) {
	if !s.rtp || len(s.media) == 0 || !a.live(i, s.port) {
		return
	}
	addrs := a.of(i)
	for _, ap := range addrs {
		s.emitFor(PayloadHint{Addr: ap}, sink)
	}
	for _, id := range s.ssrcs[:s.nSSRC] {
		s.emitFor(PayloadHint{SSRC: id}, sink)
	}
	if sink.fid == nil {
		return
	}
	for _, f := range s.fids[:s.nFIDs] {
		for _, ap := range addrs {
			f.Addr = ap
			sink.fid(f)
		}
		if len(addrs) == 0 {
			sink.fid(f)
		}
	}
}

// emitFor reports the section's payload types with key's Addr or SSRC.
func (s *mediaSection) emitFor(key PayloadHint, sink sdpSink) {
	media := mediaName(s.media)
	for _, pt := range s.formats[:s.nFormats] {
		h := PayloadHint{Addr: key.Addr, SSRC: key.SSRC, PT: pt, Media: media}
		var st staticPayloadType
		if int(pt) < len(staticPayloadTypes) {
			st = staticPayloadTypes[pt]
		}
		if m := s.rtpmap[pt]; s.mapped[pt>>6]&(1<<(pt&63)) != 0 {
			h.Codec, h.ClockRate = string(m.name), m.clock
			if st.clock != 0 && bytes.EqualFold(m.name, []byte(st.name)) {
				// Encoding names are case-insensitive (RFC 4855, 3): "pcmu/8000" is PCMU.
				h.Codec = st.name
			}
		} else if st.clock != 0 {
			h.Codec, h.ClockRate = st.name, st.clock
		}
		if s.rtx[pt>>6]&(1<<(pt&63)) != 0 {
			h.RTX, h.APT = true, s.apt[pt]
		}
		if s.nCrypto == 1 {
			h.SRTPTrailer = uint8(s.crypto)
		}
		sink.pt(h)
	}
}

// mediaName returns the media type as a string, the registered ones in lower case and
// without allocating.
func mediaName(b []byte) string {
	for _, m := range [...]string{"audio", "video", "application", "text", "image", "message"} {
		if bytes.EqualFold(b, []byte(m)) {
			return m
		}
	}
	return string(b)
}

// connAddr reads a c= value: <nettype> <addrtype> <connection-address>, the address
// possibly followed by /ttl and /count for multicast (RFC 8866, 5.7). Names that are not
// literal addresses are not resolved.
func connAddr(v []byte) (netip.Addr, bool) {
	var f [3][]byte
	n := 0
	for len(v) > 0 && n < 3 {
		var tok []byte
		tok, v = nextField(v)
		if len(tok) > 0 {
			f[n] = tok
			n++
		}
	}
	if n < 3 || !bytes.Equal(f[0], []byte("IN")) {
		return netip.Addr{}, false
	}
	a := f[2]
	if i := bytes.IndexByte(a, '/'); i >= 0 {
		a = a[:i]
	}
	addr, err := netip.ParseAddr(string(a))
	if err != nil {
		return netip.Addr{}, false
	}
	return addr.WithZone(""), true
}

type staticPayloadType struct {
	name  string
	clock int
}

// staticPayloadTypes are the static payload types of RFC 3551, tables 4 and 5 (the same
// table as rtpflow's, which this package does not import).
var staticPayloadTypes = [35]staticPayloadType{
	0: {"PCMU", 8000}, 3: {"GSM", 8000}, 4: {"G723", 8000}, 5: {"DVI4", 8000},
	6: {"DVI4", 16000}, 7: {"LPC", 8000}, 8: {"PCMA", 8000}, 9: {"G722", 8000},
	10: {"L16", 44100}, 11: {"L16", 44100}, 12: {"QCELP", 8000}, 13: {"CN", 8000},
	14: {"MPA", 90000}, 15: {"G728", 8000}, 16: {"DVI4", 11025}, 17: {"DVI4", 22050},
	18: {"G729", 8000}, 25: {"CelB", 90000}, 26: {"JPEG", 90000}, 28: {"nv", 90000},
	31: {"H261", 90000}, 32: {"MPV", 90000}, 33: {"MP2T", 90000}, 34: {"H263", 90000},
}
