// Package wire holds the wire-format facts that several stages share, each declared once
// with the RFC it comes from: the first-byte ranges by which RFC 7983 (updated by RFC 9443)
// lets STUN, ZRTP, DTLS, TURN ChannelData, QUIC and RTP share one transport address; the
// RFC 5761 rule that tells RTCP from RTP in that range; STUN's header size and magic
// cookie; TURN's channel numbers and ChannelData header; the RTCP header sizes; and the
// decoding of RTP headers.
//
// RTP headers are decoded by pion/rtp's Header.Unmarshal, the decoder most Go RTP code
// runs on. RTP wraps it with what the accounting needs and pion's Header does not give:
// the header, payload and padding lengths, and the reading of a packet that the capture's
// snap length cut. The demux decodes each RTP header once, and rtpflow takes the decoded
// header from it instead of decoding the packet again.
//
// Contract: wire imports only the standard library and pion, so that every stage can
// import it. Nothing here allocates per packet once an RTP value is reused: its CSRC and
// extension lists keep their capacity from one packet to the next.
//
//	var h wire.RTP
//	if wire.FirstByte(b[0]) == wire.RangeRTP && !wire.IsRTCP(b) && h.Unmarshal(b, snapped) == nil {
//		it, ok := wire.NewExtIter(h.ExtensionProfile, h.ExtensionBody) // RFC 8285 elements, if any
//	}
package wire
