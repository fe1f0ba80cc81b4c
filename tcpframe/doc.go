// Package tcpframe reassembles TCP connections with per-byte timing and unframes the
// messages they carry: RFC 4571 (ICE-TCP), TURN over TCP (STUN and ChannelData, RFC 8656)
// and TLS records. It is the package that measures what TCP costs real-time media: every
// loss becomes delay.
//
// Contract. A Conn takes the segments of one connection in capture order (Segment) and
// emits, in order per direction, every message that became deliverable: a transport.Message
// whose Payload is valid until emit returns, with FirstSeen (first byte first seen),
// Complete (all its bytes had arrived), Delivered (its last byte was in order at the
// receiver: at a capture next to the sender, the first ACK covering it less half the
// minimum RTT) and Wire, the share of captured frame bytes it accounts for. Over a
// direction, the messages' Wire.Total plus Rest (pure ACKs, control segments, copies of bytes
// already handed out, bytes no message carried) is exactly the direction's wire bytes. Each
// direction buffers at most Config.Window bytes; holes the capture never fills are skipped
// as capture gaps (when the peer's ACK passes them, or half a window of data piles up behind
// them) and the unframer resynchronises after them, on what the connection carried (TURN: a
// channel; RFC 4571: an SSRC; known.go). Retransmissions are bytes seen before,
// or a segment filling a hole more than one minimum RTT after the bytes beyond it; they are
// spurious when the peer had ACKed them (or a D-SACK says so). Close flushes everything at the
// end of the capture; Summary gives the report's figures.
//
// Inside, each direction (dir) keeps its bytes in a store (store.go): the runs of bytes not
// yet unframed, with the time each was first seen, and the in-order frontier; an in-order
// segment is kept in its packet rather than copied. The policies that run over the store
// each have a file: classification of segments (dir.go) and of their bytes (retransmit.go),
// capture gaps (gap.go), ACKs, RTT and vantage (ack.go), the receiver's window and its
// stalls (window.go), the unframe driver (unframe.go) and delivery dating (deliver.go), which
// also says what held each message up (transport.Hold: a retransmission, the window, or
// nothing the connection shows: the sender's backlog). The in-order path allocates
// nothing once the buffers have grown, provided emit is a func value made once (a method
// value written at each call allocates). Segment copies the payload bytes it keeps, unless
// Config.BorrowPayload: then it points into the packets until the second call to Detach
// after them (the caller keeps a batch of packets one batch longer), and in-order messages
// emitted before that are never copied.
//
// Unframers have the shape of bufio.SplitFunc (SplitRFC4571, TURNSplitter.Split, SplitTLS)
// and are driven by the Conn, so that a gap resets the unframer instead of ending the stream.
// Detection reads the first bytes only; Conn.Hold says afterwards whether the framing held
// across the connection, so that the caller can tell media framing from other bytes that
// happened to look like it at the start.
//
//	c := tcpframe.NewConn(tcpframe.Config{}, first.SrcAddrPort(), first.DstAddrPort())
//	emit := func(m *transport.Message) { demux.Handle(m) }
//	for p := range segments {
//		c.Segment(p, emit)
//	}
//	c.Close(emit)
//	flow.Framing, flow.TCP = c.Framing(), c.Summary()
package tcpframe
