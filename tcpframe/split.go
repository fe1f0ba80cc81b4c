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
func resync(probe probeFunc, data []byte, atEOF, exactOK bool) (skip int, found bool) {
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
		ok, need := confirm(probe, data[i:], size, alt, atEOF, exactOK && i == 0)
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

func be16(b []byte) int { return int(b[0])<<8 | int(b[1]) }
func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
