// Package scrub writes a copy of a capture with the content of its media rewritten to zeros,
// keeping every header, every length and every timestamp, so that the analysis of the copy
// reports what the analysis of the original does: a capture that can be shared without what
// was said or shown, and that compresses (SRTP does not).
//
// What is zeroed:
//
//   - the RTP payload, everything after the fixed header, the CSRCs and the header extension
//     (for SRTP the auth tag too), in direct UDP, inside TURN ChannelData and Send/Data
//     indications, and inside TCP streams (TURN over TCP, ICE-TCP's RFC 4571 framing);
//     except the padding count (the last byte when the P bit is set: the analysis reads it
//     as padding_bytes, and a padding-only packet is one whose count covers the payload) and,
//     in RTX streams only, the two bytes of the original sequence number (RFC 4588, 4: the
//     analysis matches RTX packets to what they repair by it; it is a header, not media);
//   - the fragment of DTLS application_data records (content type 23, classic 13-byte
//     header), where the data channels travel.
//
// Everything else is kept byte for byte: RTCP and SRTCP (the analysis reads the reports),
// STUN and TURN control, the DTLS handshake, SIP and SDP, flows that carry no media, TLS.
// The container is copied as it is (pcap header, pcapng blocks and options, several
// sections, a record cut by the end of the file): only bytes of packet data change.
//
// TCP is placed by stream offset: the first pass follows each media connection with
// tcpframe, and every message it unframes says where it lies in its direction's stream
// (transport.Message.Stream); each segment is then zeroed over the ranges of RTP payload its
// stream range covers, so a retransmission gets the same bytes zeroed as the original, and a
// segment that straddles messages gets each part right. Bytes between two messages that no
// message carried (what the unframer skipped to resynchronise after a capture gap: the tail
// of a message whose start the capture missed, or a header whose successor did not
// validate) are zeroed too: the unframer accepted no header in such a run, and zeros make
// none (an RFC 4571 length of 0 is invalid, a zero first byte is STUN's range and zeros are
// no magic cookie), so it skips the same bytes in the copy. The bytes before a connection's first message (a
// capture that starts mid-message) and after its last (a message cut by the end) are kept:
// the unframer reads them as headers, and zeroing a header would change what it counts.
// Connections the analysis does not take for media (signalling, TLS) are kept whole.
//
// Checksums: UDP over IPv4 gets checksum 0, "no checksum" (RFC 768); TCP, and UDP over IPv6
// (where 0 is not allowed, RFC 8200 8.1), get the checksum recomputed over the rewritten
// segment when the whole segment is in the capture; a segment the snap length cut keeps its
// old checksum, now wrong, as nothing can compute the right one. Packets that are not
// rewritten keep their checksums, right or wrong (offload). An IP-fragmented datagram is
// kept as it is: its payload spans several records (counted in Stats.Fragmented).
//
// Cost: the capture is read three times (the analysis, which names the RTX streams and the
// media connections; the plan; the copy), so standard input must be spooled to a file by
// the caller. The plan holds one entry per rewritten packet until the copy: memory grows
// with the number of media messages, unlike the analysis. None of this is on the analysis'
// per-packet path.
//
//	st, err := scrub.Scrub(ctx, name, func() (io.ReadCloser, error) { return os.Open(name) }, out)
package scrub
