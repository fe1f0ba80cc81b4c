package demux

import (
	"bytes"
	"net/netip"
)

// PayloadHint is what one side's SDP (RFC 8866) says about one payload type of one media
// section: the media sent to Addr with payload type PT is Codec at ClockRate.
type PayloadHint struct {
	// Addr is the connection address (c=, media- or session-level) and the m= port: where
	// this side receives that media, the destination of the RTP it describes.
	Addr netip.AddrPort
	PT   uint8
	// Codec is the encoding name of a=rtpmap as written ("opus", "AMR", "telephone-event"),
	// or the RFC 3551 name of a static payload type without rtpmap; "" when neither.
	Codec string
	// ClockRate is the RTP clock of a=rtpmap, or of the static payload type; 0 when neither.
	ClockRate int
	Media     string // the m= media type: "audio", "video", "application", ...
}

const (
	// maxStartLine bounds the bytes IsSIP reads for the start line.
	maxStartLine = 1024
	// maxMethod bounds a request's method name (the longest registered is SUBSCRIBE).
	maxMethod = 16
	// maxFormats bounds the payload types taken from one m= line.
	maxFormats = 64
	// maxClockDigits keeps a clock rate parse from overflowing.
	maxClockDigits = 9
)

// IsSIP reports whether b starts with a SIP start line (RFC 3261, 7.1 and 7.2): a
// request line "METHOD sip:... SIP/2.0" (sips: and tel: URIs too) or a status line
// "SIP/2.0 NNN ...". It reads at most the first 1 KiB of b and allocates nothing.
func IsSIP(b []byte) bool {
	if bytes.HasPrefix(b, []byte("SIP/2.0 ")) {
		// Status-Line = SIP-Version SP Status-Code SP Reason-Phrase CRLF
		if len(b) < 11 {
			return false
		}
		for _, c := range b[8:11] {
			if c < '0' || c > '9' {
				return false
			}
		}
		return len(b) == 11 || b[11] == ' ' || b[11] == '\r' || b[11] == '\n'
	}
	// Request-Line = Method SP Request-URI SP SIP-Version CRLF
	i := 0
	for i < len(b) && i <= maxMethod && b[i] >= 'A' && b[i] <= 'Z' {
		i++
	}
	if i == 0 || i > maxMethod || i >= len(b) || b[i] != ' ' {
		return false
	}
	uri := b[i+1:]
	if !hasPrefixFold(uri, "sip:") && !hasPrefixFold(uri, "sips:") && !hasPrefixFold(uri, "tel:") {
		return false
	}
	line := b[:min(len(b), maxStartLine)]
	end := bytes.IndexByte(line, '\n')
	if end < 0 {
		return false
	}
	line = bytes.TrimSuffix(line[:end], []byte("\r"))
	return bytes.HasSuffix(line, []byte(" SIP/2.0"))
}

// ParseSDP finds the SDP body of the SIP message b and calls fn for each payload type of
// each RTP media section (m= with an RTP profile, a non-zero port and a connection address
// that is not unspecified).
//
// The body starts after the first empty line; it is taken when Content-Type (or its compact
// form c) is application/sdp, or is multipart with an application/sdp part (SIP-I/SIP-T
// carry ISUP beside the SDP). Content-Length (l) limits the body where present; without it
// (allowed over UDP, RFC 3261 20.14) the body runs to the end of b. A body that Content-Length
// says was cut short loses its unterminated last line, which could hold a cut number.
//
// ParseSDP never reads past b, does work linear in len(b), and allocates only the strings
// of the hints it reports.
func ParseSDP(b []byte, fn func(h PayloadHint)) {
	body, ctype, ok := sipBody(b)
	if !ok {
		return
	}
	parseBody(body, ctype, fn, true)
}

// parseBody handles a body of type ctype; a multipart body's parts are searched once, not
// recursively.
func parseBody(body, ctype []byte, fn func(h PayloadHint), multipart bool) {
	mt, params := splitParam(ctype)
	switch {
	case bytes.EqualFold(mt, []byte("application/sdp")):
		parseSDP(body, fn)
	case multipart && hasPrefixFold(mt, "multipart/"):
		boundary := param(params, "boundary")
		if len(boundary) == 0 {
			return
		}
		eachPart(body, boundary, func(part []byte) {
			h, pbody, ok := splitHeaders(part)
			if !ok {
				return
			}
			pt, _ := headerValues(h)
			parseBody(pbody, pt, fn, false)
		})
	}
}

// sipBody returns the body of the SIP message b and its Content-Type.
func sipBody(b []byte) (body, ctype []byte, ok bool) {
	// Skip the start line: headers follow it.
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil, nil, false
	}
	h, body, ok := splitHeaders(b[nl+1:])
	if !ok {
		return nil, nil, false
	}
	ctype, clen := headerValues(h)
	if n, ok := atoi(clen); ok {
		if n <= len(body) {
			body = body[:n]
		} else if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
			body = body[:i+1] // cut short: drop the unterminated last line
		} else {
			body = nil
		}
	}
	return body, ctype, true
}

// splitHeaders splits b at its first empty line (CRLF CRLF, or LF LF from lenient senders).
func splitHeaders(b []byte) (headers, body []byte, ok bool) {
	if bytes.HasPrefix(b, []byte("\r\n")) {
		return nil, b[2:], true
	}
	if bytes.HasPrefix(b, []byte("\n")) {
		return nil, b[1:], true
	}
	i := bytes.Index(b, []byte("\n\r\n"))
	j := bytes.Index(b, []byte("\n\n"))
	switch {
	case i >= 0 && (j < 0 || i < j):
		return b[:i+1], b[i+3:], true
	case j >= 0:
		return b[:j+1], b[j+2:], true
	}
	return nil, nil, false
}

// headerValues returns the Content-Type and Content-Length values among the header lines h
// (full or compact names, RFC 3261 7.3.3; the first of each wins).
func headerValues(h []byte) (ctype, clen []byte) {
	for len(h) > 0 {
		var line []byte
		line, h = nextLine(h)
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || line[0] == ' ' || line[0] == '\t' {
			continue // a continuation line or no header
		}
		name := bytes.TrimSpace(line[:colon])
		value := bytes.TrimSpace(line[colon+1:])
		switch {
		case ctype == nil && (bytes.EqualFold(name, []byte("Content-Type")) || bytes.EqualFold(name, []byte("c"))):
			ctype = value
		case clen == nil && (bytes.EqualFold(name, []byte("Content-Length")) || bytes.EqualFold(name, []byte("l"))):
			clen = value
		}
	}
	return ctype, clen
}

// eachPart calls fn with each body part of a multipart body (RFC 2046, 5.1.1): the bytes
// between one "--boundary" delimiter line and the CRLF before the next.
func eachPart(body, boundary []byte, fn func(part []byte)) {
	delim := make([]byte, 0, 2+len(boundary))
	delim = append(append(delim, '-', '-'), boundary...)
	i := bytes.Index(body, delim)
	for i >= 0 {
		rest := body[i+len(delim):]
		if bytes.HasPrefix(rest, []byte("--")) {
			return // the close delimiter
		}
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return
		}
		rest = rest[nl+1:]
		j := bytes.Index(rest, delim)
		part := rest
		if j >= 0 {
			part = rest[:j]
			part = bytes.TrimSuffix(part, []byte("\n"))
			part = bytes.TrimSuffix(part, []byte("\r"))
		}
		fn(part)
		if j < 0 {
			return
		}
		body, i = rest, j
	}
}

// mediaSection is one m= section being read.
type mediaSection struct {
	media    []byte
	port     uint16
	rtp      bool // an RTP profile: the formats are payload types
	addr     netip.Addr
	formats  [maxFormats]uint8
	nFormats int
	mapped   [2]uint64 // payload types with an rtpmap in this section
	rtpmap   [128]struct {
		name  []byte
		clock int
	}
}

// parseSDP reads the session and media descriptions of an SDP body (RFC 8866, 5): c=
// lines at session level and in media sections, m= lines and a=rtpmap attributes.
func parseSDP(body []byte, fn func(h PayloadHint)) {
	var session netip.Addr
	var sec mediaSection
	in := false
	for len(body) > 0 {
		var line []byte
		line, body = nextLine(body)
		if len(line) < 2 || line[1] != '=' {
			continue
		}
		v := line[2:]
		switch line[0] {
		case 'm':
			if in {
				sec.emit(session, fn)
			}
			sec.reset(v)
			in = true
		case 'c':
			a, ok := connAddr(v)
			if !ok {
				continue
			}
			if in {
				sec.addr = a
			} else {
				session = a
			}
		case 'a':
			if in && bytes.HasPrefix(v, []byte("rtpmap:")) {
				sec.rtpMap(v[len("rtpmap:"):])
			}
		}
	}
	if in {
		sec.emit(session, fn)
	}
}

// reset starts a section from an m= value: <media> <port>[/<count>] <proto> <fmt> ...
func (s *mediaSection) reset(v []byte) {
	s.media, s.port, s.rtp, s.addr, s.nFormats, s.mapped = nil, 0, false, netip.Addr{}, 0, [2]uint64{}
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
			if i := bytes.IndexByte(tok, '/'); i >= 0 {
				tok = tok[:i] // a port count: the first port is the RTP port
			}
			n, ok := atoi(tok)
			if !ok || n <= 0 || n > 65535 {
				return // 0 is a rejected or disabled stream (RFC 3264, 6)
			}
			s.port = uint16(n)
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

// emit reports the section's payload types.
func (s *mediaSection) emit(session netip.Addr, fn func(h PayloadHint)) {
	addr := s.addr
	if !addr.IsValid() {
		addr = session
	}
	if !s.rtp || s.port == 0 || len(s.media) == 0 || !addr.IsValid() || addr.IsUnspecified() {
		return // c=0.0.0.0 is an old-style hold (RFC 3264, 8.4): nothing is received there
	}
	ap := netip.AddrPortFrom(addr, s.port)
	media := mediaName(s.media)
	for _, pt := range s.formats[:s.nFormats] {
		h := PayloadHint{Addr: ap, PT: pt, Media: media}
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
		fn(h)
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

// nextLine splits b at its first LF, dropping the CR of a CRLF.
func nextLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		line, rest = b, nil
	} else {
		line, rest = b[:i], b[i+1:]
	}
	return bytes.TrimSuffix(line, []byte("\r")), rest
}

// nextField splits v at its first space or tab.
func nextField(v []byte) (tok, rest []byte) {
	i := bytes.IndexAny(v, " \t")
	if i < 0 {
		return v, nil
	}
	return v[:i], v[i+1:]
}

// splitParam splits a header value into its first token and its ;-separated parameters.
func splitParam(v []byte) (token, params []byte) {
	if i := bytes.IndexByte(v, ';'); i >= 0 {
		return bytes.TrimSpace(v[:i]), v[i+1:]
	}
	return bytes.TrimSpace(v), nil
}

// param returns the value of parameter name among ;-separated params, unquoted.
func param(params []byte, name string) []byte {
	for len(params) > 0 {
		var p []byte
		if i := bytes.IndexByte(params, ';'); i >= 0 {
			p, params = params[:i], params[i+1:]
		} else {
			p, params = params, nil
		}
		eq := bytes.IndexByte(p, '=')
		if eq < 0 || !bytes.EqualFold(bytes.TrimSpace(p[:eq]), []byte(name)) {
			continue
		}
		v := bytes.TrimSpace(p[eq+1:])
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		return v
	}
	return nil
}

// atoi parses a non-empty run of at most maxClockDigits decimal digits.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > maxClockDigits {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && bytes.EqualFold(b[:len(prefix)], []byte(prefix))
}
