package rtpflow

import (
	"encoding/binary"

	"github.com/pion/rtcp"

	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// RTCP as it lies on the wire: a compound's headers walked, its packets that pion rejects
// read by their clear headers, and each packet's type key.

// rtcpPadBit is the P bit of the RTCP common header (RFC 3550 6.4.1).
const rtcpPadBit = 0x20

// compound says whether b's headers walk exactly to its end, as plain RTCP's do (RFC 3550
// 6.1; wholeLen). SRTCP fails it: after its first header come encrypted bytes, then the
// index and the authentication tag (RFC 3711 3.4).
func compound(b []byte) bool {
	n := wholeLen(b)
	return n > 0 && n == len(b)
}

// wholeLen is how far b's RTCP packets walk whole from its start: each version 2, of an
// RTCP type, its length in 32-bit words − 1 within b, and only the last of b with the P
// bit, whose count (b's last octet) leaves the header whole.
func wholeLen(b []byte) int {
	off := 0
	for off < len(b) {
		if len(b)-off < wire.RTCPHeaderLen || b[off]>>6 != wire.RTPVersion || !wire.IsRTCP(b[off:]) {
			break
		}
		n := wire.RTCPLen(b[off:])
		if n > len(b)-off {
			break
		}
		if b[off]&rtcpPadBit != 0 {
			if pad := int(b[off+n-1]); off+n != len(b) || pad == 0 || pad > n-wire.RTCPHeaderLen {
				break
			}
		}
		off += n
	}
	return off
}

// plainPackets accounts the packets of b, which walk whole (wholeLen).
func (t *Tracker) plainPackets(p Path, b []byte, m *transport.Message) {
	for off := 0; off < len(b); {
		n := wire.RTCPLen(b[off:])
		t.plainPacket(p, b[off:off+n], m)
		off += n
	}
}

// plainPacket accounts one packet b of a plain compound that pion rejected as a whole.
// One pion rejects alone, without its padding too (a PSFB of format 15 that is not REMB,
// say), is counted by its header (rawPacket).
func (t *Tracker) plainPacket(p Path, b []byte, m *transport.Message) {
	pkts, err := rtcp.Unmarshal(b)
	if err != nil && b[0]&rtcpPadBit != 0 {
		pkts, err = rtcp.Unmarshal(t.rtcp.unpad(b))
	}
	if err != nil {
		t.rtcp.rawPacket(p, b)
		return
	}
	for _, pk := range pkts {
		t.plain(p, pk, m)
	}
}

// unpad returns the padded packet b without its padding, in r's scratch buffer: the P bit
// cleared and the length cut to the words that hold the rest, the octets of padding that
// share its last word zeroed. compound checked the count.
func (r *rtcpTracker) unpad(b []byte) []byte {
	n := len(b) - int(b[len(b)-1])
	words := (n + 3) / 4
	r.scratch = append(r.scratch[:0], b[:words*4]...)
	u := r.scratch
	clear(u[n:])
	u[0] &^= rtcpPadBit
	binary.BigEndian.PutUint16(u[2:], uint16(words-1))
	return u
}

// rawPacket counts a plain packet pion could not read by its header's type, for the SSRC
// it names in the clear: a feedback message's media source (RFC 4585 6.1; 0 names none),
// else the first after the header. An AFB that is not REMB (RFC 4585 6.4) is "other".
func (r *rtcpTracker) rawPacket(p Path, b []byte) {
	if len(b) < wire.RTCPClearLen {
		return
	}
	k := clearType(b[1], b[0]&0x1f)
	ssrc := binary.BigEndian.Uint32(b[4:])
	switch rtcp.PacketType(b[1]) {
	case rtcp.TypeTransportSpecificFeedback, rtcp.TypePayloadSpecificFeedback:
		if len(b) < wire.RTCPClearLen+4 {
			return
		}
		if ssrc = binary.BigEndian.Uint32(b[8:]); ssrc == 0 {
			return
		}
		if k == tREMB {
			k = tOther
		}
	}
	if st := r.state(p, ssrc); st != nil {
		st.packets++
		st.types[k]++
	}
}

func packetType(pk rtcp.Packet) int {
	switch pk.(type) {
	case *rtcp.SenderReport:
		return tSR
	case *rtcp.ReceiverReport:
		return tRR
	case *rtcp.SourceDescription:
		return tSDES
	case *rtcp.Goodbye:
		return tBYE
	case *rtcp.ApplicationDefined:
		return tAPP
	case *rtcp.TransportLayerNack:
		return tNACK
	case *rtcp.PictureLossIndication:
		return tPLI
	case *rtcp.FullIntraRequest:
		return tFIR
	case *rtcp.ReceiverEstimatedMaximumBitrate:
		return tREMB
	case *rtcp.TransportLayerCC:
		return tTWCC
	case *rtcp.ExtendedReport:
		return tXR
	}
	return tOther
}

// clearType classifies a packet by its header's type and count/format field.
func clearType(pt, count uint8) int {
	switch rtcp.PacketType(pt) {
	case rtcp.TypeSenderReport:
		return tSR
	case rtcp.TypeReceiverReport:
		return tRR
	case rtcp.TypeSourceDescription:
		return tSDES
	case rtcp.TypeGoodbye:
		return tBYE
	case rtcp.TypeApplicationDefined:
		return tAPP
	case rtcp.TypeExtendedReport:
		return tXR
	case rtcp.TypeTransportSpecificFeedback:
		switch count {
		case rtcp.FormatTLN: // RFC 4585 6.2.1
			return tNACK
		case rtcp.FormatTCC: // draft-holmer-rmcat-transport-wide-cc-extensions-01
			return tTWCC
		}
	case rtcp.TypePayloadSpecificFeedback:
		switch count {
		case rtcp.FormatPLI: // RFC 4585 6.3.1
			return tPLI
		case rtcp.FormatFIR: // RFC 5104 4.3.1
			return tFIR
		case rtcp.FormatREMB: // RFC 4585 6.4 (AFB), draft-alvestrand-rmcat-remb
			return tREMB
		}
	}
	return tOther
}
