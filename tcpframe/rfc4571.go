package tcpframe

// RFC 4571, 2: each packet is preceded by a 16-bit length in network byte order.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	-----------------------------------------------------------------
//	|             LENGTH            |  STUN, DTLS, RTP or RTCP ...  |
//	-----------------------------------------------------------------
const rfc4571HeaderLen = 2

// STUN, RFC 8489 5 and 6.
const (
	stunHeaderLen   = 20
	stunMagicCookie = 0x2112A442
	stunCookieOff   = 4
)

// DTLS record header, RFC 9147 4: type(1) version(2) epoch(2) seq(6) length(2).
const dtlsHeaderLen = 13

// RTP fixed header (RFC 3550 5.1) and the smallest RTCP packet (RFC 3550 6.4).
const (
	rtpHeaderLen = 12
	rtcpMinLen   = 4
)

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
	switch c := b[0]; {
	case c <= 3: // STUN
		if n < stunHeaderLen || n%4 != 0 {
			return probeInvalid
		}
		if len(b) < stunCookieOff+4 {
			return probeNeedMore
		}
		if b[0]&0xC0 != 0 || be16(b[2:]) != n-stunHeaderLen || be32(b[stunCookieOff:]) != stunMagicCookie {
			return probeInvalid
		}
	case c >= 20 && c <= 25: // DTLS 1.2 record, or DTLS 1.3 plaintext
		if n < dtlsHeaderLen {
			return probeInvalid
		}
		if len(b) < 3 {
			return probeNeedMore
		}
		if b[1] != 0xFE || b[2] < 0xFC {
			return probeInvalid
		}
	case c >= 32 && c <= 63: // DTLS 1.3 unified header (RFC 9147 4)
		if n < 4 {
			return probeInvalid
		}
	case c >= 128 && c <= 191: // RTP or RTCP, version 2
		if len(b) < 2 {
			return probeNeedMore
		}
		if b[1] >= 192 && b[1] <= 223 { // RTCP, RFC 5761 4
			if n < rtcpMinLen {
				return probeInvalid
			}
		} else if n < rtpHeaderLen {
			return probeInvalid
		}
	default:
		return probeInvalid
	}
	return probeValid
}
