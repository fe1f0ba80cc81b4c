package demux

import "bytes"

// HTTP/1.x messages (RFC 9112) as far as the SDP they carry: WebRTC applications often
// signal over plain HTTP (an offer POSTed as JSON, the answer long-polled), and WHIP and
// WHEP (RFC 9725) post the SDP itself.

// httpMessage is an HTTP/1.x message cut from the start of a stream.
type httpMessage struct {
	n    int    // its length in the stream
	body []byte // its body, dechunked when it was chunked
	// tooLong: readHTTP refused the message for being longer than maxSignal (its header,
	// Content-Length, or chunks).
	tooLong bool
	ctype   []byte // its Content-Type value
	// upgrade is set on a request that asks for a WebSocket (RFC 6455, 4.1) and on the 101
	// response that grants it: the bytes after it in its direction are WebSocket frames.
	upgrade bool
}

// isHTTPStart reports whether line (without its line end) is an HTTP/1.x request line,
// "METHOD target HTTP/1.x", or status line, "HTTP/1.x NNN reason" (RFC 9112, 3 and 4).
func isHTTPStart(line []byte) bool {
	if rest, ok := bytes.CutPrefix(line, []byte("HTTP/1.")); ok {
		return len(rest) >= 5 && rest[0] >= '0' && rest[0] <= '9' && rest[1] == ' ' && isDigits(rest[2:5]) &&
			(len(rest) == 5 || rest[5] == ' ')
	}
	i := 0
	for i < len(line) && i <= maxMethod && line[i] >= 'A' && line[i] <= 'Z' {
		i++
	}
	if i == 0 || i > maxMethod || i >= len(line) || line[i] != ' ' {
		return false
	}
	v, ok := bytes.CutPrefix(line[bytes.LastIndexByte(line, ' ')+1:], []byte("HTTP/1."))
	return ok && len(v) == 1 && v[0] >= '0' && v[0] <= '9' && bytes.LastIndexByte(line, ' ') > i
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// readHTTP cuts the HTTP/1.x message at the start of b. It returns n == 0 while b does
// not hold all of it yet, with the length b must reach before it can (need), n < 0 when b
// does not start with one (or its length cannot be told). A chunked body is joined in c
// (RFC 9112, 7.1), which keeps what it read of an incomplete one, and its memory, for the
// next call. Without Content-Length or chunking a request has no body (RFC 9112, 6.3),
// and so has a 1xx, 204 or 304 response; any other response's body would run to the end
// of the connection, which the stream does not say: n < 0.
func readHTTP(b []byte, c *chunks) (m httpMessage, n, need int) {
	nl := bytes.IndexByte(b[:min(len(b), maxStartLine)], '\n')
	switch {
	case nl < 0 && len(b) >= maxStartLine:
		return m, -1, 0
	case nl < 0:
		return m, 0, len(b) + 1
	}
	start := bytes.TrimSuffix(b[:nl], []byte("\r"))
	if !isHTTPStart(start) {
		return m, -1, 0
	}
	h, body, ok := splitHeaders(b[nl+1:])
	switch {
	case !ok:
		return m, 0, len(b) + 1
	case len(b)-len(body) > maxSignal:
		m.tooLong = true
		return m, -1, 0
	}
	status := 0
	if rest, ok := bytes.CutPrefix(start, []byte("HTTP/1.")); ok {
		status, _ = atoi(rest[2:5])
	}
	hd := httpHeaders(h)
	m.ctype = hd.ctype
	m.upgrade = hd.websocket && (status == 0 || status == 101)
	head := len(b) - len(body)
	switch {
	case status >= 100 && status < 200 || status == 204 || status == 304:
		m.n = head
	case hd.chunked:
		size, more, ok := c.read(body)
		if !ok {
			m.tooLong = c.tooLong
			return m, -1, 0
		}
		if size == 0 {
			return m, 0, head + more
		}
		m.n, m.body = head+size, c.data
	case hd.clen != nil:
		cl, ok := atoi(hd.clen)
		if !ok || cl > maxSignal {
			if m.tooLong = ok; ok {
				m.n = head + cl // for the caller to skip it whole
			}
			return m, -1, 0
		}
		if cl > len(body) {
			return m, 0, head + cl
		}
		m.n, m.body = head+cl, body[:cl]
	case status == 0:
		m.n = head
	default:
		return m, -1, 0
	}
	return m, m.n, 0
}

// headers is what readHTTP takes from a message's header fields.
type headers struct {
	ctype, clen        []byte
	chunked, websocket bool
}

// httpHeaders reads the header fields h (the first of each wins).
func httpHeaders(h []byte) headers {
	var hd headers
	for name, value := range headerFields(h) {
		switch {
		case hd.ctype == nil && bytes.EqualFold(name, []byte("Content-Type")):
			hd.ctype = value
		case hd.clen == nil && bytes.EqualFold(name, []byte("Content-Length")):
			hd.clen = value
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			hd.chunked = hd.chunked || containsFold(value, "chunked")
		case bytes.EqualFold(name, []byte("Upgrade")):
			hd.websocket = hd.websocket || containsFold(value, "websocket")
		}
	}
	return hd
}

// chunks is a chunked body (RFC 9112, 7.1) being read: chunks of a hexadecimal size
// line, the data and CRLF, a last chunk of size 0 and the trailer fields up to an empty
// line. pos is where in the body the next chunk starts, data the chunks' data before it.
type chunks struct {
	pos     int
	data    []byte
	tooLong bool // read refused a chunk that took the data beyond maxSignal
}

// reset starts a new body, keeping the memory.
func (c *chunks) reset() { c.pos, c.data, c.tooLong = 0, c.data[:0], false }

// read reads on in b, the body so far. It returns the body's length in b, its data being
// c.data; size 0 while b does not hold all of it, with the length b must reach before it
// can (need); ok false when it is no chunked body or its data would exceed maxSignal.
func (c *chunks) read(b []byte) (size, need int, ok bool) {
	for {
		pos := c.pos
		nl := bytes.IndexByte(b[pos:min(len(b), pos+maxStartLine)], '\n')
		if nl < 0 {
			return 0, len(b) + 1, len(b)-pos < maxStartLine
		}
		line := bytes.TrimSuffix(b[pos:pos+nl], []byte("\r"))
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i] // chunk extensions
		}
		n, ok := atoiHex(bytes.TrimSpace(line))
		if !ok || len(c.data)+n > maxSignal {
			c.tooLong = ok
			return 0, 0, false
		}
		pos += nl + 1
		if n == 0 {
			// The trailer section: field lines up to an empty line.
			for {
				nl := bytes.IndexByte(b[pos:], '\n')
				if nl < 0 {
					return 0, len(b) + 1, len(b)-pos < maxSignal
				}
				empty := nl == 0 || nl == 1 && b[pos] == '\r'
				pos += nl + 1
				if empty {
					return pos, 0, true
				}
			}
		}
		if len(b)-pos < n+1 {
			return 0, pos + n + 1, true
		}
		data := b[pos : pos+n]
		pos += n
		switch {
		case b[pos] == '\n': // a lenient sender's bare LF
			pos++
		case b[pos] != '\r':
			return 0, 0, false
		case len(b)-pos < 2:
			return 0, pos + 2, true
		case b[pos+1] != '\n':
			return 0, 0, false
		default:
			pos += 2
		}
		c.data = append(c.data, data...)
		c.pos = pos
	}
}

// atoiHex parses a chunk size: hexadecimal digits, as many as the sender wrote (some pad
// them with zeros to 8); a size beyond 7 significant digits (256 MiB) reads as 1<<28, more
// than any signalling body is read to.
func atoiHex(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if n >= 1<<24 {
			n = 1 << 24 // 1<<28 once shifted below
		}
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

// containsFold reports whether v contains s, ASCII case-insensitively.
func containsFold(v []byte, s string) bool {
	for i := 0; i+len(s) <= len(v); i++ {
		if bytes.EqualFold(v[i:i+len(s)], []byte(s)) {
			return true
		}
	}
	return false
}
