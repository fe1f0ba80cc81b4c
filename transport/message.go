package transport

import "net/netip"

// Proto is the transport protocol a message travelled on.
type Proto uint8

const (
	UDP Proto = 17 // RFC 768
	TCP Proto = 6  // RFC 9293
)

func (p Proto) String() string {
	switch p {
	case UDP:
		return "udp"
	case TCP:
		return "tcp"
	}
	return "unknown"
}

// Via says how a message reached the transport flow it was seen on: directly, or wrapped in
// TURN (ChannelData or a Send/Data indication), in which case Message.Peer is the far end.
type Via uint8

const (
	Direct      Via = iota
	ChannelData     // RFC 8656, 12.4
	Indication      // RFC 8656, 11 (Send and Data indications)
)

// Hold is what held a TCP message up on its way, as far as the capture can tell. The rest
// of a late message's delay is the sender's own backlog: its bytes were queued at the sender
// before TCP sent them, for no reason the connection shows.
type Hold uint8

const (
	HoldNone Hold = iota
	// HoldRetransmission: it waited in order behind earlier bytes retransmitted after it was
	// first sent (head-of-line blocking): its delivery came after its completion.
	HoldRetransmission
	// HoldRetransmitted: its own bytes were retransmitted, and it waited for no earlier
	// ones: late by its own repair, not blocked at the head of the line.
	HoldRetransmitted
	// HoldWindow: it was first sent while the receiver's advertised window was full (a
	// window stall), or within the late budget after a window update opened it: a message
	// late by more than the budget, sent within the budget of the window opening, had been
	// ready while the window was shut.
	HoldWindow
)

// Wire is the share of captured wire bytes a message accounts for, split so that the parts
// add up exactly to Total: Total = Headers + Framing + Retransmitted + Message.Len().
// For a UDP datagram Headers is link, IP and UDP headers; for TCP messages it is the share of
// segment headers attributed to the message.
type Wire struct {
	Total         int64 // frame bytes (original length) attributed to this message
	Headers       int64 // link, IP and transport headers
	Framing       int64 // TURN/RFC 4571 framing and padding around the payload
	Retransmitted int64 // TCP payload bytes seen more than once
}

// Message is one application-level datagram: a UDP payload or one unframed TCP message.
//
// Payload points into a buffer that the producer reuses: it is valid until the next message
// is produced. Copy what must outlive it.
type Message struct {
	Payload []byte
	Proto   Proto
	Src     netip.AddrPort // sender of the transport flow (the TURN client or server for TURN)
	Dst     netip.AddrPort
	Iface   int // capture interface index

	// FirstSeen is when the first byte was first seen at this vantage. Complete is when all of
	// the message's own bytes had first arrived. Delivered is when it became available in order
	// to the receiving application. For UDP all three are the packet's capture time.
	FirstSeen, Complete, Delivered int64

	Wire Wire

	// Retransmitted is true when any byte of the message was carried more than once by TCP.
	Retransmitted bool
	// Hold is what TCP held the message up with, if anything (always HoldNone over UDP).
	Hold Hold
	// Snapped is true when the capture cut the message (snap length): Payload is shorter
	// than the message was on the wire.
	Snapped bool

	// Stream places a TCP message in its direction's byte stream (tcpframe's offsets: 0 is
	// the first data byte); zero for UDP. scrub finds the bytes of each segment by it.
	Stream StreamPos

	// Via and Peer describe TURN wrapping; Peer is the peer address from the channel binding
	// or the XOR-PEER-ADDRESS of the indication. Channel is the ChannelData channel number.
	Via     Via
	Peer    netip.AddrPort
	Channel uint16
}

// Len is the message's length on the wire: len(Payload), or more when the capture cut it.
func (m *Message) Len() int64 {
	return m.Wire.Total - m.Wire.Headers - m.Wire.Framing - m.Wire.Retransmitted
}

// StreamPos is where a TCP message lies in its direction's byte stream: its frame is
// [Start, End), framing included, and its Payload starts at Payload.
type StreamPos struct {
	Start, Payload, End int64
	// Gaps counts the times the direction gave bytes up before this message: capture gaps
	// and the bytes skipped to resynchronise after them or after garbage. Two messages with
	// the same count have every byte between them in the capture, framed.
	Gaps uint32
}
