package tcpframe

import (
	"bytes"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/wire"
)

// Framing is how a TCP direction carries its messages.
type Framing uint8

const (
	FramingNone    Framing = iota // no payload yet, or not yet recognised
	FramingRFC4571                // RFC 4571 length prefix (ICE-TCP, RFC 6544)
	FramingTURN                   // TURN over TCP, RFC 8656: STUN and ChannelData
	FramingTLS                    // TLS records (TURN over TLS): media hidden
	FramingUnknown                // payload that no framing explains: counted as other
)

// Report returns the framing's name in the report.
func (f Framing) Report() report.Framing {
	switch f {
	case FramingRFC4571:
		return report.FramingRFC4571
	case FramingTURN:
		return report.FramingTURN
	case FramingTLS:
		return report.FramingTLS
	case FramingUnknown:
		return report.FramingUnknown
	}
	return report.FramingNone
}

func (f Framing) String() string { return string(f.Report()) }

// detectLimit is how many bytes detection looks at before calling a direction unknown: two
// of the largest frames (a 16-bit length) and their headers.
const detectLimit = 2 * (1<<16 + wire.STUNHeaderLen + 4)

// detectOrder is the order in which framings are tried; an earlier one wins a tie.
var detectOrder = [...]Framing{FramingTURN, FramingRFC4571, FramingTLS}

// keyOf is the key function that confirms a framing's detection mid-stream (confirmRun);
// nil for TLS, whose record header (a content type and a version) random bytes seldom make.
func keyOf(f Framing) keyFunc {
	switch f {
	case FramingRFC4571:
		return keyRFC4571
	case FramingTURN:
		return keyTURN
	}
	return nil
}

func probeOf(f Framing) probeFunc {
	switch f {
	case FramingRFC4571:
		return probeRFC4571
	case FramingTURN:
		return probeTURN
	case FramingTLS:
		return probeTLS
	}
	return nil
}

// Detect recognises the framing of a direction from its first in-order bytes: the framing
// that finds, earliest in data, a header whose successor validates too (at data[0] when
// exactOK), or, mid-stream, whose run of frames confirms it (confirmRun). skip is the number
// of bytes before that header (a capture that starts mid-message). ok is false when more
// data is needed; FramingUnknown is returned once detectLimit bytes (or atEOF) gave no
// answer. exactOK says data starts at a frame boundary (the stream was seen from its SYN), so
// that a single frame that ends exactly at the end of data is accepted.
func Detect(data []byte, atEOF, exactOK bool) (f Framing, skip int, ok bool) {
	if exactOK && isTextLine(data) {
		return FramingUnknown, 0, true
	}
	best, bestAt, bestRank := FramingNone, len(data)+1, 0
	waitAt, waitRank := len(data)+1, 0
	for rank, k := range detectOrder {
		i, found := resync(probeOf(k), keyOf(k), data, atEOF, exactOK)
		switch {
		case found && i < bestAt:
			best, bestAt, bestRank = k, i, rank
		case !found && i < len(data) && i < waitAt:
			waitAt, waitRank = i, rank
		}
	}
	if best != FramingNone && (bestAt < waitAt || bestAt == waitAt && bestRank < waitRank) {
		return best, bestAt, true
	}
	if atEOF || len(data) >= detectLimit {
		if best != FramingNone {
			return best, bestAt, true
		}
		return FramingUnknown, 0, true
	}
	if best == FramingNone && holdsSDP(data) {
		return FramingUnknown, 0, true
	}
	return FramingNone, 0, false
}

// holdsSDP reports whether data holds the start of an SDP (RFC 8866 5: "v=0", then the
// "o=" line), its line ends as they are or JSON-escaped, "=" too (\u003d): signalling, in
// which no framing of media is. A direction seen from its start is known for text by its
// first line (isTextLine); one whose start the capture missed (a WebSocket or SIP over TCP
// connection opened before it) was known only after detectLimit bytes or at the end of
// the capture, and its SDP, which names payload types, clock rates and RTX pairs, came too
// late for the media after it (a tester's: four streams' clocks inferred, two RTX repairs
// of four credited).
func holdsSDP(data []byte) bool {
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte("v"))
		if i < 0 {
			return false
		}
		rest, ok := sdpEq(data[off+i+1:])
		off += i + 1
		if !ok || len(rest) == 0 || rest[0] != '0' {
			continue
		}
		rest = rest[1:]
		n0 := len(rest)
		for n := -1; n != len(rest); {
			n = len(rest)
			rest = cutLineEnd(rest)
		}
		if len(rest) < n0 && len(rest) > 0 && rest[0] == 'o' {
			if _, ok := sdpEq(rest[1:]); ok {
				return true
			}
		}
	}
}

// sdpEq cuts "=" (or its JSON escape \u003d) from the start of b.
func sdpEq(b []byte) ([]byte, bool) {
	switch {
	case len(b) > 0 && b[0] == '=':
		return b[1:], true
	case len(b) >= 6 && bytes.EqualFold(b[:6], []byte(`\u003d`)):
		return b[6:], true
	}
	return b, false
}

// cutLineEnd cuts one line-end character from the start of b: CR or LF, as they are or
// JSON-escaped (\r, \n, \u000d, \u000a).
func cutLineEnd(b []byte) []byte {
	switch {
	case len(b) > 0 && (b[0] == '\r' || b[0] == '\n'):
		return b[1:]
	case len(b) >= 2 && b[0] == '\\' && (b[1] == 'r' || b[1] == 'n'):
		return b[2:]
	case len(b) >= 6 && (bytes.EqualFold(b[:6], []byte(`\u000d`)) || bytes.EqualFold(b[:6], []byte(`\u000a`))):
		return b[6:]
	}
	return b
}

// textLineMin and textLineMax bound the first line that makes a stream text.
const (
	textLineMin = 8
	textLineMax = 1024
)

// isTextLine reports whether a stream seen from its first byte starts with a line of text:
// textLineMin to textLineMax printable ASCII characters, then CRLF or LF, as SIP, HTTP and
// other text protocols start (after empty lines: SIP's keep-alives, RFC 5626 4.4.1). No
// framing here does: their first bytes hold a STUN type, a length or a TLS content type
// below 0x20. Such a stream is FramingUnknown at once, so that its bytes reach Config.Text
// as they come rather than after detectLimit of them.
func isTextLine(data []byte) bool {
	for len(data) > 0 && (data[0] == '\r' || data[0] == '\n') {
		data = data[1:]
	}
	for i, c := range data[:min(len(data), textLineMax+2)] {
		switch {
		case c == '\n':
			n := i
			if n > 0 && data[n-1] == '\r' {
				n--
			}
			return n >= textLineMin && n <= textLineMax
		case c == '\r' && i+1 < len(data) && data[i+1] == '\n':
		case c < 0x20 || c > 0x7e:
			return false
		}
	}
	return false
}

// IsWholeFrame reports whether a segment's payload is one whole frame of TURN over TCP,
// RFC 4571 or TLS (a message per segment, as TURN clients and ICE-TCP usually send):
// its frame's head is then at its start, while in a segment that joins frames which
// straddle it the heads may lie anywhere. It is a guess from the bytes alone, for
// reading ahead (analysis.touchBatch), never for unframing. It names the probes of
// detectOrder rather than loop over probeOf: called for every TCP payload, the calls then
// inline (3% faster on the TCP captures, side by side); TestIsWholeFrame holds the two to
// the same answers.
func IsWholeFrame(payload []byte) bool {
	whole := func(size, alt int, r probeResult) bool {
		return r == probeValid && (size == len(payload) || alt == len(payload))
	}
	return whole(probeTURN(payload)) || whole(probeRFC4571(payload)) || whole(probeTLS(payload))
}

// framer is the unframing state of one direction.
type framer struct {
	kind Framing
	sync bool // the next byte is a frame boundary; false after a gap or garbage
	// broke: sync was lost where a frame boundary was due (a header that did not validate),
	// not at a capture gap or the start of the capture: what is skipped until the framing
	// is found again counts against it (Hold).
	broke bool
	turn  TURNSplitter
	// tried is how many bytes the last Detect that needed more was given: it runs again
	// only once they grew by a quarter (detectAgain), or at the end, so that bytes that come
	// one at a time (zero-window probes, tinygrams) are not scanned over and over up to
	// detectLimit: a tester's 25,000 probes behind 128 KB took more than a minute.
	tried int
}

// detectAgain says whether Detect, given tried bytes the last time it needed more, is worth
// running on n: a quarter more (at least one byte). Over a stream the scans then add up to
// a few times detectLimit, while a frame's header and its successor, which detection
// waits for, come with the next segment or soon after.
func detectAgain(n, tried int) bool { return n >= tried+max(1, tried/4) }

// split cuts the next message; chans are the TURN channels the connection carried in step.
func (f *framer) split(data []byte, atEOF bool, chans *known[uint16]) (int, []byte, error) {
	switch f.kind {
	case FramingRFC4571:
		return SplitRFC4571(data, atEOF)
	case FramingTURN:
		return f.turn.split(data, atEOF, chans)
	case FramingTLS:
		return SplitTLS(data, atEOF)
	}
	return len(data), nil, nil
}
