// Package demux says what each UDP datagram or unframed TCP message carries and follows the
// STUN, ICE and TURN exchanges of a capture.
//
// A Classifier decides by the first byte, as RFC 7983 (updated by RFC 9443) assigns the
// ranges (wire.FirstByte), then validates the candidate's header (STUN magic cookie,
// ChannelData channel and length, RTP header): what fails is ClassOther. An RTP packet is
// validated by decoding its header (wire.RTP, pion/rtp), and the Classifier keeps that
// header for rtpflow, so that each RTP header is decoded once. A Tracker, fed every STUN
// and ChannelData message of one capture with the capture time inside it, counts ICE
// checks and the round trips of those this host sent or relayed (icertt.go), follows TURN allocations, permissions and channel
// bindings, and unwraps ChannelData and Send/Data indications into the inner
// transport.Message, tagged with the peer and with the TURN bytes moved to Wire.Framing so
// that the wire accounting still adds up. The caller demuxes the inner message again.
// Everything the Tracker keeps is bounded (transactions, allocations, channels, peers,
// ufrags), what goes beyond is counted in Stats. Tracker.Refine reads as ChannelData the
// channels 0x5000-0x7FFF that RFC 5766 allowed, whose first byte is QUIC's: over UDP where
// a ChannelBind success for that number was seen on the flow, always in TURN's TCP
// framing. A reused Classifier and Tracker.ChannelData allocate nothing; decoders point into
// their input, which stays the caller's. The payload types and RTX pairs (apt=,
// ssrc-group:FID) that SDP names are read here too: in SIP messages (IsSIP, ParseSDP), in
// the signalling of a TCP direction (Signalling: SIP, HTTP/1.x and WebSocket, RFC 6455),
// and in the JSON or application/sdp bodies of WebRTC's offers and answers (FindSDP).
//
//	var c demux.Classifier
//	tr := demux.NewTracker()
//	var inner transport.Message
//	cls := c.Classify(m.Payload, m.Snapped)
//	cls = tr.Refine(&m, cls, turnFramed) // RFC 5766 channels 0x5000-0x7FFF, bound or TCP-framed
//	switch cls {
//	case demux.ClassSTUN:
//		if tr.STUN(&m, &inner) {
//			// inner is the datagram a Send or Data indication carried
//		}
//	case demux.ClassChannelData:
//		if tr.ChannelData(&m, &inner) {
//			// inner.Peer is the far end, inner.Payload the relayed datagram
//		}
//	case demux.ClassRTP:
//		rtpTracker.RTP(path, &m, c.RTP()) // the header Classify decoded
//	}
//	rep.ICE, rep.TURN = tr.ICE(), tr.TURN()
package demux
