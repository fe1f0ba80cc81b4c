package demux

import (
	"bytes"
	"iter"
)

// Tokenizing helpers for the text protocols read here (SIP headers, SDP lines): they
// point into their input and allocate nothing.

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

// sdpLines yields the type and value of each <type>=<value> line of an SDP body (RFC 8866,
// 5), passing over any other line.
func sdpLines(body []byte) iter.Seq2[byte, []byte] {
	return func(yield func(byte, []byte) bool) {
		for len(body) > 0 {
			var line []byte
			line, body = nextLine(body)
			if len(line) >= 2 && line[1] == '=' && !yield(line[0], line[2:]) {
				return
			}
		}
	}
}

// headerFields yields the name and value of each header field line of h (SIP's and HTTP's
// "name: value"), passing over continuation lines and lines without a colon.
func headerFields(h []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func(name, value []byte) bool) {
		for len(h) > 0 {
			var line []byte
			line, h = nextLine(h)
			colon := bytes.IndexByte(line, ':')
			if colon <= 0 || line[0] == ' ' || line[0] == '\t' {
				continue
			}
			if !yield(bytes.TrimSpace(line[:colon]), bytes.TrimSpace(line[colon+1:])) {
				return
			}
		}
	}
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
