package tcpframe

// SplitFunc is one step of an unframer, in the shape of bufio.SplitFunc. Given the buffered
// in-order bytes of a stream (data) it returns:
//
//   - advance > 0, msg != nil: one message, msg pointing into data[:advance]; the other
//     advance-len(msg) bytes are framing (length prefix, record header, padding);
//   - advance > 0, msg == nil: skip advance bytes (a truncated frame at the end of the stream);
//   - advance == 0, err == nil: more data is needed;
//   - err == ErrBadHeader: data does not start with a valid header: resynchronise.
//
// Unlike bufio.Scanner, the caller (Conn) drives the function itself, so that a capture gap
// resets the unframer instead of ending the stream. A SplitFunc allocates nothing.
type SplitFunc func(data []byte, atEOF bool) (advance int, msg []byte, err error)

// probeResult says whether a candidate header validates.
type probeResult int8

const (
	probeInvalid probeResult = iota
	probeNeedMore
	probeValid
)

// probeFunc looks at a candidate header at data[0] and returns the size of the whole frame
// including framing and padding, and alt, another size that the frame may have (a TURN
// ChannelData message from a peer that does not pad), or 0.
type probeFunc func(data []byte) (size, alt int, r probeResult)

// head runs probe on data and settles what every SplitFunc answers alike: an invalid header
// (ErrBadHeader), or too few bytes to read one (need more data; at the end of the stream,
// skip what is left). ok is true when a header was read, with size and alt as probe gave them.
func head(probe probeFunc, data []byte, atEOF bool) (size, alt int, ok bool, advance int, err error) {
	size, alt, r := probe(data)
	switch r {
	case probeInvalid:
		return 0, 0, false, 0, ErrBadHeader
	case probeNeedMore:
		if atEOF && len(data) > 0 {
			return 0, 0, false, len(data), nil
		}
		return 0, 0, false, 0, nil
	}
	return size, alt, true, 0, nil
}

// splitFixed is the SplitFunc of a framing whose message follows a header of hdr bytes and
// fills the rest of the frame (RFC 4571, TLS records).
func splitFixed(probe probeFunc, hdr int, data []byte, atEOF bool) (advance int, msg []byte, err error) {
	size, _, ok, advance, err := head(probe, data, atEOF)
	if !ok {
		return advance, nil, err
	}
	if len(data) < size {
		if atEOF {
			return len(data), nil, nil // a frame cut by the end of the stream
		}
		return 0, nil, nil
	}
	return size, data[hdr:size], nil
}

// Resync looks for the first offset of data at which probe accepts a header whose successor
// (the header right after the frame) validates too. It returns the bytes that can be
// dropped now and whether data[skip:] starts with such a confirmed header. When found is false
// and skip < len(data), the candidate at skip needs more data to be confirmed. A frame that
// ends exactly at the end of data is confirmed without a successor when atEOF or exactOK (the
// caller knows data starts at a frame boundary).
//
// With a key function (detection, below), a header not known to be at a boundary is
// confirmed by a run of frames instead (confirmRun).
func resync(probe probeFunc, key keyFunc, data []byte, atEOF, exactOK bool) (skip int, found bool) {
	for i := 0; i < len(data); i++ {
		size, alt, r := probe(data[i:])
		switch r {
		case probeInvalid:
			continue
		case probeNeedMore:
			if atEOF {
				continue
			}
			return i, false
		}
		var ok, need bool
		if key == nil || exactOK && i == 0 {
			ok, need = confirm(probe, data[i:], size, alt, atEOF, exactOK && i == 0)
		} else {
			ok, need = confirmRun(probe, key, data[i:], size, alt, atEOF)
		}
		if ok {
			return i, true
		}
		if need {
			return i, false
		}
	}
	return len(data), false
}

// confirm says whether the frame at b[0] of the given size (or alt) is followed by a valid
// header, or needs more data to tell.
func confirm(probe probeFunc, b []byte, size, alt int, atEOF, exactOK bool) (ok, need bool) {
	for _, s := range [2]int{size, alt} {
		if s <= 0 {
			continue
		}
		if len(b) == s && (atEOF || exactOK) {
			return true, false
		}
		if len(b) <= s {
			need = true
			continue
		}
		switch _, _, r := probe(b[s:]); r {
		case probeValid:
			return true, false
		case probeNeedMore:
			need = true
		}
	}
	return false, need && !atEOF
}

// Detecting the framing of a capture that starts mid-stream. The bytes before the first
// frame boundary are the tail of a message: under SRTP, random bytes, among which one in
// four reads as an RFC 4571 header of RTP (a length, and a first byte of version 2) and
// one in sixteen as TURN ChannelData. A false header confirmed by one valid successor
// (about one time in three for RFC 4571) starts a false frame of up to 64 KiB, and the
// unframer, chaining false frames, lost most such connections (7 captures in 10, each
// starting at another byte of the first message). Nor does a run of valid frames prove
// its first: a false frame that happens to end on a true boundary is followed by the real
// ones. What proves a header is a later frame that repeats its stream's identifier (the
// SSRC of RTP and RTCP, a TURN channel), which random bytes do not make: detection follows
// the candidate's frames until one repeats the candidate's key. A candidate that is a STUN
// message (its magic cookie) needs a valid successor only, as before; a legacy channel's,
// which its probe already holds to a successor on the same channel, a run of runFrames
// valid frames; a DTLS record, one in eight random bytes by its first (RFC 7983's 20-63),
// cannot be told from them and is never a first frame here (the next RTP frame is).
const (
	runFrames = 8
	runMax    = 64       // a keyed candidate whose key no frame repeats this far is refused
	runSpan   = 32 << 10 // and so is a run that needs bytes beyond this to go on
)

// keyKind is what one frame tells of the stream it belongs to.
type keyKind int8

const (
	keyNone   keyKind = iota // nothing to compare (a legacy TURN channel, an empty datagram)
	keyWeak                  // nothing to compare, and random bytes often make it (DTLS)
	keyID                    // key identifies its stream (SSRC, channel)
	keyStrong                // a message random bytes do not make (STUN)
	keyShort                 // too few bytes to tell yet
	keyBad                   // content the framing does not carry: not a frame
)

// keyFunc reads a frame's key; b starts at its header, which the framing's probe accepted.
type keyFunc func(b []byte) (key uint32, kind keyKind)

// confirmRun follows the frames from b[0], whose header the probe accepted with size (or
// alt), and says whether they confirm b[0] as a frame boundary, or need more data to tell.
func confirmRun(probe probeFunc, key keyFunc, b []byte, size, alt int, atEOF bool) (ok, need bool) {
	k0, kind0 := key(b)
	switch kind0 {
	case keyShort:
		return false, !atEOF
	case keyBad, keyWeak:
		return false, false
	}
	pos := 0
	for n := 1; n < runMax; n++ {
		// The next frame; short: the run needs bytes beyond data to go on. At the end of
		// the stream a run without proof is refused: a few frames that end where the
		// capture does are what random bytes make too.
		next, short := -1, false
		for _, s := range [2]int{size, alt} {
			switch {
			case s <= 0:
				continue
			case pos+s >= len(b):
				short = short || pos+s <= runSpan
				continue
			}
			ns, na, r := probe(b[pos+s:])
			if r == probeValid {
				next, size, alt = pos+s, ns, na
				break
			}
			short = short || r == probeNeedMore && pos+s <= runSpan
		}
		if next < 0 {
			return false, short && !atEOF
		}
		pos = next
		k, kind := key(b[pos:])
		switch kind {
		case keyShort:
			return false, !atEOF && pos <= runSpan
		case keyBad:
			return false, false
		}
		switch kind0 {
		case keyStrong:
			return true, false
		case keyID:
			if kind == keyID && k == k0 {
				return true, false
			}
		case keyNone:
			if kind == keyStrong || n+1 >= runFrames {
				return true, false
			}
		}
	}
	return false, false
}

func be16(b []byte) int { return int(b[0])<<8 | int(b[1]) }
func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
