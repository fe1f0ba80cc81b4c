package wire

// Range is what RFC 7983, 7 (as updated by RFC 9443, 3) assigns a packet's first byte to,
// when several protocols share one transport address:
//
//	  0-3    STUN
//	  4-15   unassigned (dropped)
//	 16-19   ZRTP
//	 20-63   DTLS
//	 64-79   TURN ChannelData
//	 80-127  QUIC (short header); also RFC 5766's channels 0x5000-0x7FFF (IsLegacyChannelByte)
//	128-191  RTP and RTCP
//	192-255  QUIC (long header)
type Range uint8

const (
	RangeNone        Range = iota // 4-15: no protocol
	RangeSTUN                     // 0-3 (RFC 8489)
	RangeZRTP                     // 16-19 (RFC 6189)
	RangeDTLS                     // 20-63 (RFC 9147)
	RangeChannelData              // 64-79 (RFC 8656, 12)
	RangeQUICShort                // 80-127 (RFC 9000, 17.3; RFC 9443)
	RangeRTP                      // 128-191: RTP, or RTCP when IsRTCP (RFC 5761, 4)
	RangeQUICLong                 // 192-255 (RFC 9000, 17.2; RFC 9443)
)

// FirstByte returns the range of a packet whose first byte is b.
func FirstByte(b byte) Range { return firstByte[b] }

// IsDTLSUnified reports whether b, a first byte in DTLS's range, starts a DTLS 1.3 record
// with the unified header (RFC 9147, 4: 001CSLEE, 32-63) rather than a classic one: any
// byte of an eighth of the space, which random bytes make as often.
func IsDTLSUnified(b byte) bool { return b&0xE0 == 0x20 }

// firstByte is the table of RFC 7983, 7: one load per packet, where the demux runs for
// every datagram.
var firstByte = func() (t [256]Range) {
	for b := range t {
		switch {
		case b <= 3:
			t[b] = RangeSTUN
		case b < 16:
			t[b] = RangeNone
		case b < 20:
			t[b] = RangeZRTP
		case b < 64:
			t[b] = RangeDTLS
		case b < 80:
			t[b] = RangeChannelData
		case b < 128:
			t[b] = RangeQUICShort
		case b < 192:
			t[b] = RangeRTP
		default:
			t[b] = RangeQUICLong
		}
	}
	return t
}()

// IsRTCP reports whether b, a packet in the RTP range, is RTCP: its second byte is an RTCP
// packet type, 192-223 (RFC 5761, 4). As an RTP header that byte would be the marker bit
// and payload types 64-95, which RFC 5761 keeps out of use where RTP and RTCP share a port.
func IsRTCP(b []byte) bool { return len(b) >= 2 && b[1] >= rtcpTypeMin && b[1] <= rtcpTypeMax }

const (
	rtcpTypeMin = 192
	rtcpTypeMax = 223
)
