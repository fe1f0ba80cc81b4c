package callgen

import (
	"encoding/binary"
	"time"
)

// RTXSend is one packet of an RFC 4588 retransmission stream.
type RTXSend struct {
	I   int           // the media packet it resends: OSN StartSeq+I and packet I's timestamp
	At  time.Duration // capture time, from the capture's start
	Seq uint16        // the RTX packet's own sequence number
	// Pad, when > 0, makes a padding-only packet of Pad bytes (libwebrtc's bandwidth probe
	// before it has media to resend): no OSN, packet I's timestamp.
	Pad int
}

// RTX is the retransmission stream of a Stream (RFC 4588, 4): each packet carries the
// original's timestamp, and its payload is the original's sequence number (OSN) followed
// by the original's payload. Its own sequence numbers are the sender's choice (Seq): pion
// numbers every buffered packet, libwebrtc every RTX packet.
type RTX struct {
	SSRC  uint32
	PT    uint8
	Sends []RTXSend
	// Fill, when set, writes the bytes after the header of Sends[k] (OSN and payload, or
	// padding and its count) in place of the clear ones: random bytes stand for SRTP, where
	// the OSN and the padding count are encrypted (the analysis reads the last byte, an auth
	// tag's, as the count: Fill keeps it between 1 and the bytes after the header, or the
	// packet is no valid RTP).
	Fill func(k int, b []byte)
}

// RTXPackets returns the frames of r, which retransmits s, over s's path.
func (s *Stream) RTXPackets(r RTX) []Packet {
	out := make([]Packet, 0, len(r.Sends))
	for k, x := range r.Sends {
		payload := s.RTXPacket(r, k)
		if s.Channel != 0 {
			payload = ChannelData(s.Channel, payload)
		}
		out = append(out, Packet{T: Epoch + int64(x.At), Frame: etherUDP(s.Src, s.Dst, payload)})
	}
	return out
}

// RTXPacket returns the RTP packet of r.Sends[k], which retransmits a packet of s.
func (s *Stream) RTXPacket(r RTX, k int) []byte {
	x := r.Sends[k]
	orig := s.RTP(x.I)
	var b []byte
	if x.Pad > 0 {
		b = make([]byte, 12, 12+x.Pad)
		copy(b, orig[:12])
		b[0] |= 0x20 // padding
		b = append(b, make([]byte, x.Pad-1)...)
		b = append(b, byte(x.Pad))
	} else {
		b = make([]byte, 12, 14+len(orig)-12)
		copy(b, orig[:12])
		b = binary.BigEndian.AppendUint16(b, s.StartSeq+uint16(x.I))
		b = append(b, orig[12:]...)
	}
	if r.Fill != nil {
		r.Fill(k, b[12:])
	}
	b[1] = b[1]&0x80 | r.PT&0x7f
	binary.BigEndian.PutUint16(b[2:], x.Seq)
	binary.BigEndian.PutUint32(b[8:], r.SSRC)
	return b
}

// RTCPNACK is a plain RTCP generic NACK (RFC 4585, 6.2.1) from sender about media SSRC
// media, asking again for the sequence numbers seqs (each its own FCI, no bitmask).
func RTCPNACK(sender, media uint32, seqs ...uint16) []byte {
	b := []byte{0x80 | 1, 205, 0, 0}
	binary.BigEndian.PutUint16(b[2:], uint16(2+len(seqs)))
	b = binary.BigEndian.AppendUint32(b, sender)
	b = binary.BigEndian.AppendUint32(b, media)
	for _, q := range seqs {
		b = binary.BigEndian.AppendUint16(b, q)
		b = append(b, 0, 0)
	}
	return b
}

// RTCPPLI is a plain RTCP Picture Loss Indication (RFC 4585, 6.3.1) from sender about
// media SSRC media.
func RTCPPLI(sender, media uint32) []byte {
	b := []byte{0x80 | 1, 206, 0, 2}
	b = binary.BigEndian.AppendUint32(b, sender)
	return binary.BigEndian.AppendUint32(b, media)
}

// RTCPRR is a plain RTCP receiver report (RFC 3550, 6.4.2) from sender with one empty
// report block about media: the head of a compound packet.
func RTCPRR(sender, media uint32) []byte {
	b := []byte{0x80 | 1, 201, 0, 7}
	b = binary.BigEndian.AppendUint32(b, sender)
	b = binary.BigEndian.AppendUint32(b, media)
	return append(b, make([]byte, 20)...)
}

// RTCPAt is an RTCP compound packet of parts sent over src's path back to the sender of
// s at at: from s.Dst to s.Src.
func (s *Stream) RTCPAt(at time.Duration, parts ...[]byte) Packet {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	if s.Channel != 0 {
		b = ChannelData(s.Channel, b)
	}
	return Packet{T: Epoch + int64(at), Frame: etherUDP(s.Dst, s.Src, b)}
}
