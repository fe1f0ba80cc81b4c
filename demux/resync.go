package demux

import "bytes"

// Reading a signalling connection the capture joined (Signalling.Joined): its first bytes
// may lie inside a message, and reading starts at the next one that begins.

// resync reads a direction whose first bytes begin no message: the capture began inside one
// (a signalling connection opened before it, as a page's WebSocket or a phone's SIP over
// TCP is). It returns the length of what comes before the next message's start (startAt),
// and reads the SDP in it (sdpAnywhere); 0 while b cannot tell, with the length it must
// reach; -1 when none starts in its first maxSignal bytes, their SDP read as far as its
// lines are whole. A tester's connections that began inside a message had their SDP, and
// the messages after it, left unread (protoNone). An SDP in the message the capture began
// inside is read only once a message follows it (or at the bound): read before, as the
// bytes come, it would be read in part.
func (s *Signalling) resync(b []byte, sink sdpSink) (n, need int) {
	// Positions before s.scan were told to begin none: b only grew since.
	for i := max(s.scan, 1); i < min(len(b), maxSignal); i++ {
		switch start, need := startAt(b, i); {
		case need > 0:
			s.scan = i
			return 0, need
		case start:
			sdpAnywhere(b[:i], sink)
			return i, 0
		}
	}
	if len(b) < maxSignal {
		s.scan = len(b)
		return 0, len(b) + 1
	}
	whole := b[:maxSignal]
	sdpAnywhere(whole[:bytes.LastIndexByte(whole, '\n')+1], sink)
	return -1, 0
}

// startAt says whether a message starts at b[i]: a SIP or HTTP start line at a line's
// start, or a WebSocket text frame (FIN or not) whose payload begins JSON. need is the
// length b must reach to tell, when it cannot yet: the first position that cannot be told
// stops the search, so that the answer does not depend on how the bytes came.
func startAt(b []byte, i int) (start bool, need int) {
	switch c := b[i]; {
	case c == 0x81 || c == 0x01: // no start line's first byte
		f, ok, bad := readWSFrame(b[i:])
		switch {
		case bad || ok && (f.op != wsText || f.deflated || f.n == 0):
			return false, 0
		case !ok || len(b) < i+f.hdr+1:
			return false, max(len(b)+1, i+f.hdr+1)
		}
		p := f.unmask(nil, b[i+f.hdr:i+f.hdr+1])
		return p[0] == '{' || p[0] == '[', 0
	case b[i-1] == '\n':
		line := b[i:min(len(b), i+maxStartLine)]
		nl := bytes.IndexByte(line, '\n')
		if nl < 0 {
			if len(line) < maxStartLine {
				return false, len(b) + 1
			}
			return false, 0
		}
		return IsSIP(line) || isHTTPStart(bytes.TrimSuffix(line[:nl], []byte("\r"))), 0
	}
	return false, 0
}

// sdpAnywhere reads the SDP in b, bytes from inside a message: from a line that starts it
// ("v=0"), else in the JSON strings that hold one (findSDP).
func sdpAnywhere(b []byte, sink sdpSink) {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte("v=0"))
		if i < 0 {
			break
		}
		if i += off; i == 0 || b[i-1] == '\n' {
			parseSDP(b[i:], sink)
			return
		}
		off = i + 3
	}
	findSDP(b, nil, sink)
}
