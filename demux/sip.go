package demux

import "bytes"

// SIP messages (RFC 3261) as far as the SDP they carry: the start line that tells a SIP
// message from other text, the header fields that say where the body is and what it is,
// and the parts of a multipart body.

const (
	// maxStartLine bounds the bytes IsSIP reads for the start line.
	maxStartLine = 1024
	// maxMethod bounds a request's method name (the longest registered is SUBSCRIBE).
	maxMethod = 16
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

// SIPMessageLen returns the length of the SIP message at the start of b, a stream of them
// (SIP over TCP, RFC 3261 18.3: the start line and headers up to the empty line, then
// Content-Length bytes of body, none without the header): 0 while b does not hold all of
// it yet, -1 when b does not start with a SIP message.
func SIPMessageLen(b []byte) int {
	nl := bytes.IndexByte(b[:min(len(b), maxStartLine)], '\n')
	switch {
	case nl < 0 && len(b) >= maxStartLine:
		return -1
	case nl < 0:
		return 0
	case !IsSIP(b):
		return -1
	}
	h, body, ok := splitHeaders(b[nl+1:])
	if !ok {
		return 0
	}
	_, clen := headerValues(h)
	n, _ := atoi(clen)
	if n > len(body) {
		return 0
	}
	return len(b) - len(body) + n
}

// parseBody handles a body of type ctype; a multipart body's parts are searched once, not
// recursively.
func parseBody(body, ctype []byte, fn sdpSink, multipart bool) {
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
	for name, value := range headerFields(h) {
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
