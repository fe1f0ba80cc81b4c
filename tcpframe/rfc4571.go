package tcpframe

import "github.com/callpcap/callpcap/wire"

// RFC 4571, 2: each packet is preceded by a 16-bit length in network byte order.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	-----------------------------------------------------------------
//	|             LENGTH            |  STUN, DTLS, RTP or RTCP ...  |
//	-----------------------------------------------------------------
const rfc4571HeaderLen = 2

// SplitRFC4571 is the SplitFunc of RFC 4571 framing (ICE-TCP, RFC 6544). The message is the
// packet after the 2-byte length; the frame is rejected unless the packet's first byte is of
// a class ICE-TCP carries (RFC 7983): STUN with its magic cookie, DTLS, RTP or RTCP.
func SplitRFC4571(data []byte, atEOF bool) (advance int, msg []byte, err error) {
	return splitFixed(probeRFC4571, rfc4571HeaderLen, data, atEOF)
}

func probeRFC4571(b []byte) (size, alt int, r probeResult) {
	if len(b) < rfc4571HeaderLen+1 {
		return 0, 0, probeNeedMore
	}
	n := be16(b)
	if r := validContent(b[rfc4571HeaderLen:], n); r != probeValid {
		return 0, 0, r
	}
	return rfc4571HeaderLen + n, 0, probeValid
}

// validContent checks that b, the first bytes of a packet of n bytes, looks like a packet
// ICE-TCP carries, by its first byte (RFC 7983 as updated by RFC 9443).
func validContent(b []byte, n int) probeResult {
	if n == 0 || len(b) == 0 {
		if n == 0 {
			return probeInvalid
		}
		return probeNeedMore
	}
	switch c := b[0]; wire.FirstByte(c) {
	case wire.RangeSTUN:
		if n < wire.STUNHeaderLen || n%4 != 0 {
			return probeInvalid
		}
		if len(b) < wire.STUNCookieOffset+4 {
			return probeNeedMore
		}
		if be16(b[2:]) != n-wire.STUNHeaderLen || be32(b[wire.STUNCookieOffset:]) != wire.STUNMagicCookie {
			return probeInvalid
		}
	case wire.RangeDTLS:
		switch {
		case c <= 25: // DTLS 1.2 record, or DTLS 1.3 plaintext: content types 20-25
			if n < wire.DTLSRecordHeaderLen {
				return probeInvalid
			}
			if len(b) < 3 {
				return probeNeedMore
			}
			if b[1] != 0xFE || b[2] < 0xFC {
				return probeInvalid
			}
		case wire.IsDTLSUnified(c):
			if n < 4 {
				return probeInvalid
			}
		default:
			return probeInvalid
		}
	case wire.RangeRTP: // RTP or RTCP, version 2
		if len(b) < 2 {
			return probeNeedMore
		}
		if wire.IsRTCP(b) {
			if n < wire.RTCPHeaderLen {
				return probeInvalid
			}
		} else if n < wire.RTPFixedHeaderLen {
			return probeInvalid
		}
	default:
		return probeInvalid
	}
	return probeValid
}

// keyRFC4571 is the key of an RFC 4571 frame whose header probeRFC4571 accepted: the SSRC
// of RTP or RTCP; STUN (its magic cookie checked) is strong, DTLS weak.
func keyRFC4571(b []byte) (uint32, keyKind) {
	p := b[rfc4571HeaderLen:]
	switch wire.FirstByte(p[0]) {
	case wire.RangeSTUN:
		return 0, keyStrong
	case wire.RangeDTLS:
		return 0, keyWeak
	}
	ssrc, ok := carriedSSRC(p)
	if !ok {
		return 0, keyShort
	}
	return ssrc, keyID
}
