package rtpflow

import (
	"encoding/binary"

	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// Packet is what the analysis of a stream takes from one RTP packet: its header's fields,
// its sizes on the wire, when it was delivered, the wire bytes its message accounts for, and
// the only payload bytes it reads, the first two (an RTX packet's original sequence number).
// It refers to nothing of the message but ExtBody, so that, with ExtBody copied, a packet
// can be analysed after its message's buffer was reused (on another goroutine).
type Packet struct {
	Path       Path
	SSRC       uint32
	Timestamp  uint32
	Seq        uint16
	PT         uint8
	Marker     bool
	Extension  bool
	ExtProfile uint16
	// ExtBody is the header extension after its profile and length (wire.RTP.ExtensionBody):
	// the RFC 8285 elements.
	ExtBody    []byte
	HeaderLen  int
	PayloadLen int // on the wire: more than was captured when the snap length cut the packet
	PadLen     int
	OSN        uint16 // the first two payload bytes, when HasOSN
	HasOSN     bool
	// Padded is the P bit. With SRTP the padding count is encrypted (the last byte read as
	// one is the auth tag's), so a padded packet may be padding only whatever PadLen says:
	// libwebrtc pads its probes (and, as captured from Chromium, some audio packets).
	Padded bool
	// PadUnread says the padding count was not read (wire.RTP.PaddingUnread: an SRTP flow,
	// or a count that cannot be one): PadLen is 0 and PayloadLen holds the padding too.
	PadUnread bool
	// PadCut says the P bit is set but the snap length cut the padding count (the last
	// byte): PadLen is 0, and PayloadLen holds the padding, of unknown length.
	PadCut bool
	// Encrypted says the payload is known to be SRTP (wire.RTP.SRTP): an RTX packet's OSN
	// is not readable.
	Encrypted bool

	Delivered, Complete int64
	Retransmitted       bool // some of the message's bytes were carried twice by TCP
	TCP                 bool // the message came over TCP
	Hold                transport.Hold
	Gaps                uint32 // over TCP, the times its direction gave bytes up before it (transport.StreamPos.Gaps)
	Wire                transport.Wire
	Len                 int64 // the RTP packet's length on the wire (m.Len())
	// TimeSteps counts the steps of the capture's clock before the packet (a file merged
	// from captures taken apart, a clock set while capturing): the capture moved the times
	// after a step to follow the packet before it, so the interval across it is not known.
	TimeSteps uint32
	// TimeUnknown: the capture stamped the packet with a corrupt time (a clock jump: hours
	// from the packets around it), and it was given the time of the packet before. It is
	// counted, and takes no part in timing: arrival gaps, jitter, delay.
	TimeUnknown bool
}

// PacketOf fills pk with what the analysis of a stream takes from the message m of path p,
// whose RTP header the demux decoded as h. pk.ExtBody points into m.
func PacketOf(pk *Packet, p Path, m *transport.Message, h *wire.RTP) {
	payloadLen := h.PayloadLen
	if m.Snapped {
		// What the snap length cut was payload on the wire: sizes come from the original
		// length, as everywhere else.
		payloadLen += int(max(m.Len()-int64(len(m.Payload)), 0))
	}
	pk.Path = p
	pk.SSRC, pk.Timestamp, pk.Seq, pk.PT, pk.Marker = h.SSRC, h.Timestamp, h.SequenceNumber, h.PayloadType, h.Marker
	pk.Extension, pk.ExtProfile, pk.ExtBody = h.Extension, h.ExtensionProfile, h.ExtensionBody
	pk.HeaderLen, pk.PayloadLen, pk.PadLen, pk.Padded = h.HeaderLen, payloadLen, h.PaddingLen(), h.Padding
	pk.PadUnread, pk.Encrypted = h.PaddingUnread, h.SRTP
	pk.PadCut = m.Snapped && h.Padding
	// The captured bytes: a snapped packet may hold fewer than PayloadLen. A padding-only
	// packet (libwebrtc's RTX probe) has no OSN: its first bytes after the header are padding.
	// Nor has a padded packet whose count was not read: it may be padding only.
	pk.OSN, pk.HasOSN = 0, h.PayloadLen >= 2 && len(m.Payload) >= h.HeaderLen+2 && !h.PaddingUnread
	if m.Snapped && h.Padding && payloadLen < maxPadding+2 {
		// The snap length cut the padding count (the last byte), so where the padding begins
		// is unknown, and the packet may be padding only: its first bytes are no OSN. The
		// count is one byte (RFC 3550 5.1): with at least 257 bytes after the header on the
		// wire, two or more are payload, and the first two are an OSN.
		pk.HasOSN = false
	}
	if pk.HasOSN {
		pk.OSN = binary.BigEndian.Uint16(m.Payload[h.HeaderLen:])
	}
	pk.Delivered, pk.Complete, pk.Retransmitted = m.Delivered, m.Complete, m.Retransmitted
	pk.TCP, pk.Hold, pk.Gaps = m.Proto == transport.TCP, m.Hold, m.Stream.Gaps
	pk.Wire, pk.Len = m.Wire, m.Len()
	pk.TimeSteps, pk.TimeUnknown = 0, false // the capture's clock: the caller's to say
}

// maxPadding is the most padding an RTP packet carries: its count is one byte (RFC 3550 5.1).
const maxPadding = 255

// hold is what held a packet up on its way (transport.Hold), with whether it came over TCP
// at all: the late packets of a stream over TCP are split by cause, those over UDP are not.
type hold uint8

const (
	holdUDP            hold = iota // a datagram: nothing held it
	holdNone                       // over TCP, held by nothing the connection shows: the sender's backlog
	holdRetransmission             // behind a TCP retransmission (head-of-line blocking)
	holdRetransmitted              // by the retransmission of its own bytes
	holdWindow                     // by the receiver's full TCP window
)

func holdOf(pk *Packet) hold {
	switch {
	case !pk.TCP:
		return holdUDP
	case pk.Hold == transport.HoldRetransmission:
		return holdRetransmission
	case pk.Hold == transport.HoldRetransmitted:
		return holdRetransmitted
	case pk.Hold == transport.HoldWindow:
		return holdWindow
	}
	return holdNone
}

// maybePaddingOnly says the packet may carry padding only (a bandwidth probe): the P bit,
// and no payload beside the padding, or a padding count that was not read (SRTP).
func (pk *Packet) maybePaddingOnly() bool { return pk.Padded && (pk.PadUnread || pk.PayloadLen == 0) }

// paddingOnly says the packet carries padding only, by its padding count. Over SRTP the
// count cannot be read, and a sender may pad every packet of its media (Google Meet's, in
// the corpus): a packet that only may be padding is taken for media there.
func (pk *Packet) paddingOnly() bool { return pk.Padded && !pk.PadUnread && pk.PayloadLen == 0 }
