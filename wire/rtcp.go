package wire

// RTCP header sizes (RFC 3550, 6.4.1). Packet types and feedback formats come from
// pion/rtcp (rtcp.TypeSenderReport, rtcp.FormatPLI, ...).
//
//	|V=2|P|    RC   |   PT=SR=200   |             length            |
//	|                         SSRC of sender                        |
const (
	RTCPHeaderLen = 4
	// RTCPClearLen is the header and the sender's SSRC: the smallest RTCP packet, and all
	// that SRTCP leaves readable of it (RFC 3711, 3.4).
	RTCPClearLen = 8
)

// RTCPLen is the length in bytes that the RTCP header at the start of b declares (RFC 3550,
// 6.4.1: its length field counts 32-bit words, less one). b holds the header's 4 bytes.
func RTCPLen(b []byte) int { return (int(b[2])<<8 | int(b[3]) + 1) * 4 }
