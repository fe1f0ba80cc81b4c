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
