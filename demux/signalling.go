package demux

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// maxSignal bounds a signalling message over TCP kept while it is incomplete, and the body
// of one: no offer or answer comes near it.
const maxSignal = 64 << 10

// signalProto is what a direction of signalling speaks.
type signalProto uint8

const (
	protoUnknown signalProto = iota // nothing read yet
	protoSIP
	protoHTTP
	protoWebSocket // after an HTTP upgrade
	protoNone      // none of them, or a message out of bounds: not read further
)

// Signalling reads one direction of a TCP connection whose bytes no framing explains, as
// they come in order (tcpframe's Config.Text), for the SDP its messages carry: SIP over TCP
// (RFC 3261, 18.3; the CRLF keep-alives of RFC 5626, 4.4.1 between messages), HTTP/1.x
// (RFC 9112) and, after an upgrade, WebSocket (RFC 6455; compressed with permessage-deflate,
// RFC 7692, or not) carrying JSON (FindSDP) or SIP (RFC 7118), its upgrade in the capture or
// not (midWebSocket: JSON in plain text frames). Its first message says which;
// a direction that starts with none of them, holds one larger than maxSignal whose length
// its header does not say (one whose length it says is skipped: TooLong), or breaks the
// framing of its protocol is read no further. The zero value is ready to use.
//
// A message that comes in many segments is not parsed again for each: the search for the
// end of its header fields resumes where it stopped, and once they say how long it is,
// nothing is parsed until it is all there (a chunked body, once per chunk).
type Signalling struct {
	// Joined says the capture began inside the connection: its first bytes may be inside a
	// message, and are then read from the next message's start (resync). Set before Feed.
	Joined bool

	proto signalProto
	buf   []byte // bytes not yet a whole message (or frame)
	need  int    // len(buf) below which the message at its start cannot be whole
	scan  int    // where in buf the search for the end of the header fields (or resync) resumes
	msg   []byte // the WebSocket message being assembled from its frames
	skip  bool   // the message being assembled is too long: dropped
	// deflated says the message being assembled is compressed (permessage-deflate), and
	// inflate is the direction's decompression.
	deflated bool
	inflate  inflater
	chunks   chunks // a chunked HTTP body, as far as it was read
	sip      bool   // a whole SIP message was read
	tooLong  int    // messages not read for being longer than maxSignal (TooLong)
	rest     int64  // bytes still to come of such a message, whose length was known
}

// Feed takes the direction's next bytes and calls fn and fid (see ParseSDP and FindSDP)
// for the SDP of each message they complete.
func (s *Signalling) Feed(b []byte, fn func(h PayloadHint), fid func(h FIDHint)) {
	if s.proto == protoNone {
		return
	}
	if s.rest > 0 { // the rest of a message too long to read, whose length was known
		k := min(int64(len(b)), s.rest)
		b, s.rest = b[k:], s.rest-k
	}
	s.buf = append(s.buf, b...)
	sink := sdpSink{fn, fid}
	done := 0
	for s.proto != protoNone && len(s.buf)-done >= s.need {
		n, need := s.next(s.buf[done:], sink)
		if n < 0 || n == 0 && len(s.buf)-done > maxSignal {
			if n == 0 {
				s.tooLong++
			}
			*s = Signalling{Joined: s.Joined, proto: protoNone, sip: s.sip, tooLong: s.tooLong} // what it kept is freed
			return
		}
		if n == 0 {
			s.need = need
			break
		}
		done += n
		s.need, s.scan = 0, 0
		s.chunks.reset()
		if done > len(s.buf) { // a message too long, skipped to its end as it comes
			s.rest, done = int64(done-len(s.buf)), len(s.buf)
		}
	}
	if done > 0 {
		s.buf = append(s.buf[:0], s.buf[done:]...)
	}
}

// TooLong counts the messages the direction carried that were not read for being longer
// than 64 KiB. A SIP or HTTP message whose header says its length is skipped to its end and
// the next read; one whose length is unknown (chunks, header fields without end) ends the
// reading of the direction. After a WebSocket message the next is read, but for compressed
// ones, whose window the message's bytes broke.
func (s *Signalling) TooLong() int { return s.tooLong }

// SIP reports whether the direction carried a whole SIP message.
func (s *Signalling) SIP() bool { return s.sip }

// next handles the message (or frame) at the start of b and returns its length: 0 while
// b does not hold all of it, with the length b must reach before it can (need), or -1
// when the direction cannot be read further.
func (s *Signalling) next(b []byte, sink sdpSink) (n, need int) {
	if s.proto == protoSIP || s.proto == protoUnknown {
		if n := len(b) - len(bytes.TrimLeft(b, "\r\n")); n > 0 {
			return n, 0 // keep-alives, or the CRLF after a message
		}
	}
	switch s.proto {
	case protoUnknown:
		if ws, need := midWebSocket(b); ws {
			s.proto = protoWebSocket
			return s.next(b, sink)
		} else if need > 0 {
			return 0, need
		}
		nl := bytes.IndexByte(b[:min(len(b), maxStartLine)], '\n')
		switch {
		case nl < 0 && s.Joined && (len(b) >= maxStartLine || b[0] < 'A' || b[0] > 'Z'):
			return s.resync(b, sink) // no start line begins so
		case nl < 0 && len(b) >= maxStartLine:
			return -1, 0
		case nl < 0:
			return 0, len(b) + 1
		case IsSIP(b):
			s.proto = protoSIP
		case isHTTPStart(bytes.TrimSuffix(b[:nl], []byte("\r"))):
			s.proto = protoHTTP
		case s.Joined:
			return s.resync(b, sink)
		default:
			return -1, 0
		}
		return s.next(b, sink)
	case protoSIP:
		if !s.headersEnd(b) {
			return 0, len(b) + 1
		}
		n := SIPMessageLen(b)
		switch {
		case n > maxSignal:
			s.tooLong++
			return n, 0
		case n == 0:
			need := sipNeed(b)
			if need > maxSignal {
				// Its length is known: skipped to its end, the messages after it read.
				s.tooLong++
				return need, 0
			}
			return 0, need
		case n > 0:
			s.sip = true
			if body, ctype, ok := sipBody(b[:n]); ok {
				parseBody(body, ctype, sink, true)
			}
		}
		return n, 0
	case protoHTTP:
		if !s.headersEnd(b) {
			return 0, len(b) + 1
		}
		m, n, need := readHTTP(b, &s.chunks)
		if m.tooLong {
			s.tooLong++
			if m.n > 0 { // its length is known: skipped to its end
				return m.n, 0
			}
		}
		if n > 0 {
			findSDP(m.body, m.ctype, sink)
			if m.upgrade {
				s.proto = protoWebSocket
			}
		}
		return n, need
	case protoWebSocket:
		f, ok, bad := readWSFrame(b)
		switch {
		case bad:
			return -1, 0
		case !ok:
			return 0, len(b) + 1
		case len(b) < f.hdr+f.n:
			return 0, f.hdr + f.n
		}
		s.frame(f, b[f.hdr:f.hdr+f.n], sink)
		return f.hdr + f.n, 0
	}
	return -1, 0
}

// midWebSocket says whether b, the first bytes of a direction, begin a WebSocket
// connection whose upgrade the capture missed (a page's signalling socket is opened when
// it loads, a call's offer and answer come later): a text frame, not compressed (a
// deflated message may refer to the ones before it), whose payload is JSON. need is how
// long b must be to tell, when it is not yet. No text protocol's first line reads so: a
// request or status line's first letter has a reserved opcode or RSV bit, or is a
// fragmented control frame, or a binary or compressed frame (ACK, BYE).
func midWebSocket(b []byte) (ws bool, need int) {
	f, ok, bad := readWSFrame(b)
	switch {
	case bad:
		return false, 0
	case !ok:
		return false, len(b) + 1
	case f.op != wsText || f.deflated:
		return false, 0
	case len(b) < f.hdr+f.n:
		return false, f.hdr + f.n
	}
	p := bytes.TrimLeft(f.unmask(nil, b[f.hdr:f.hdr+f.n]), " \t\r\n")
	return len(p) > 0 && (p[0] == '{' || p[0] == '['), 0
}

// headersEnd reports whether b holds the empty line that ends a message's header fields,
// searching from where the last search stopped: b only grew since.
func (s *Signalling) headersEnd(b []byte) bool {
	from := max(s.scan, 0)
	if bytes.Contains(b[from:], []byte("\n\r\n")) || bytes.Contains(b[from:], []byte("\n\n")) {
		return true
	}
	s.scan = max(len(b)-2, 0)
	return false
}

// sipNeed is the length of the SIP message at the start of b, whose header fields are
// whole and whose body is not: its Content-Length says.
func sipNeed(b []byte) int {
	nl := bytes.IndexByte(b, '\n')
	h, body, _ := splitHeaders(b[nl+1:])
	_, clen := headerValues(h)
	n, _ := atoi(clen)
	return len(b) - len(body) + n
}

// frame takes a WebSocket frame with payload p: a text or binary message, whole or in
// fragments, is searched for SDP once complete; control frames are passed over.
func (s *Signalling) frame(f wsFrame, p []byte, sink sdpSink) {
	switch f.op {
	case wsText, wsBinary:
		s.msg, s.skip, s.deflated = s.msg[:0], false, f.deflated
	case wsContinuation:
	default:
		return
	}
	if !s.skip && len(s.msg)+len(p) <= maxSignal {
		s.msg = f.unmask(s.msg, p)
	} else {
		s.skip = true
	}
	if !f.fin {
		return
	}
	msg := s.msg
	if s.deflated {
		msg = s.inflate.message(msg, s.skip)
	}
	if s.skip {
		s.tooLong++
	}
	switch {
	case s.skip || msg == nil:
	case IsSIP(msg): // SIP over WebSocket (RFC 7118): a message per WebSocket message
		s.sip = true
		if body, ctype, ok := sipBody(msg); ok {
			parseBody(body, ctype, sink, true)
		}
	default:
		findSDP(msg, nil, sink)
	}
	s.msg, s.skip = s.msg[:0], false
}

// FindSDP calls fn and fid (as ParseSDP does) for the session descriptions in body, the
// body of a message of signalling that is not SIP, of Content-Type ctype (nil if none):
// the body itself when it is one (application/sdp, as WHIP and WHEP post it, or text that
// starts with "v=0"), else each JSON string (RFC 8259, 7) whose value starts with "v=0",
// as WebRTC applications send an RTCSessionDescription: {"type":"offer","sdp":"v=0\r\n..."}.
func FindSDP(body, ctype []byte, fn func(h PayloadHint), fid func(h FIDHint)) {
	findSDP(body, ctype, sdpSink{fn, fid})
}

func findSDP(body, ctype []byte, sink sdpSink) {
	mt, _ := splitParam(ctype)
	if bytes.EqualFold(mt, []byte("application/sdp")) || bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("v=0")) {
		parseSDP(body, sink)
		return
	}
	var buf, inner []byte
	for {
		i := jsonSDPStart(body)
		if i < 0 {
			return
		}
		s, n, ok := jsonString(body[i+1:], buf[:0])
		buf = s
		// JSON in a JSON string (an object stringified into another, as Socket.IO and
		// some relays send it): the SDP's line ends are still escaped, once more.
		for k := 0; ok && k < 2 && bytes.IndexByte(s, '\n') < 0 && bytes.Contains(s, []byte(`\n`)); k++ {
			inner, _, _ = jsonString(s, inner[:0])
			s, inner = inner, s
		}
		if ok {
			parseSDP(s, sink)
		}
		body = body[i+1+n:]
	}
}

// jsonSDPStart returns the index in b of the opening quote of the first JSON string that
// starts with "v=0", its "=" as it is or escaped (Gson, Java's JSON library, writes it
// \u003d), or -1.
func jsonSDPStart(b []byte) int {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(`"v`))
		if i < 0 {
			return -1
		}
		i += off
		rest := b[i+2:]
		if bytes.HasPrefix(rest, []byte("=0")) || len(rest) >= 7 && bytes.EqualFold(rest[:7], []byte(`\u003d0`)) {
			return i
		}
		off = i + 2
	}
}

// jsonString unescapes the JSON string whose characters start b (after its opening
// quote) into out, up to its closing quote. It returns the string, how many bytes of b it
// took (its closing quote included), and false when b ends first or an escape is invalid.
// An escaped UTF-16 surrogate pair becomes its character, a lone surrogate U+FFFD.
func jsonString(b, out []byte) (s []byte, n int, ok bool) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			return out, i + 1, true
		case c != '\\':
			out = append(out, c)
			continue
		}
		i++
		if i == len(b) {
			return out, i, false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b[i+1:])
			if !ok {
				return out, i, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(0), false
				if i+2 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					r2, ok2 = hex4(b[i+3:])
				}
				if d := utf16.DecodeRune(r, r2); ok2 && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return out, i, false
		}
	}
	return out, len(b), false
}

// hex4 reads the four hexadecimal digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, ok := atoiHex(b[:4])
	return rune(n), ok
}
