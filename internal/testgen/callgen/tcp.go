package callgen

import (
	"errors"
	"iter"
	"net/netip"
	"time"
)

// TCPCall is a TCP connection between a client and a server (a TURN server, or an ICE-TCP
// peer), captured next to the client: the whole round trip lies between the capture and the
// server, so the client's segments are seen when sent (the capture is at the sender of
// direction 0) and the server's when they arrive (at the receiver of direction 1).
//
// The model, so that every figure is known by construction:
//   - SYN at Start, the SYN/ACK seen RTT later, the client's ACK at that same instant.
//   - Each TCPWrite is cut into segments of at most MSS bytes, all sent at the write's time;
//     with Coalesce, writes share a send queue cut at the MSS instead (see Coalesce).
//   - A segment takes RTT/2 from the capture to the server and the server's segments RTT/2 to
//     the capture. Every arrival is acknowledged at once with a pure ACK carrying the
//     cumulative acknowledgment (no delayed ACK), and with SACK its SACK blocks: the server's
//     ACK is seen RTT/2 after its arrival, the client's in the same instant as the data.
//   - Data segments carry the sender's cumulative acknowledgment of the other direction (and
//     with SACK its SACK blocks).
//   - Impairments are chosen per data segment, by its index among the direction's first
//     transmissions (0-based). A lost segment is sent again RTO after its first transmission.
type TCPCall struct {
	Client, Server netip.AddrPort
	Start          time.Duration // the SYN, from the capture's start
	RTT            time.Duration // 0: 60 ms
	RTO            time.Duration // 0: 305 ms
	MSS            int           // 0: 1200
	ISN            [2]uint32     // initial sequence numbers of the client and the server

	// Passive makes the capture's end (Client) the one that accepted the connection, as a
	// TURN server does: the SYN comes from Server and is seen at Start, answered at once by
	// the SYN/ACK, and Server's ACK is seen RTT later. The rest of the model is unchanged.
	Passive bool

	// LoseAfter (client to server): the segment is seen at the capture, then lost on the way;
	// the capture sees it twice.
	LoseAfter func(seg int) bool
	// LoseBefore (server to client): the segment is lost before the capture, which sees only
	// its retransmission.
	LoseBefore func(seg int) bool
	// Spurious (client to server): the segment arrives, yet is sent again RTO later.
	Spurious func(seg int) bool
	// Miss: the capture misses every copy of this segment of direction dir (0 client to
	// server), though it travelled and was acknowledged: a capture gap.
	Miss func(dir, seg int) bool

	// Coalesce, when positive, makes both senders coalesce writes as a busy Linux sender
	// does (Nagle, autocorking): written bytes join the direction's send queue; whenever a
	// full MSS is queued it goes out at once as one segment, cut wherever the MSS falls (so
	// messages straddle segments), and a partial segment goes out, whole, when its oldest
	// byte has waited Coalesce. Every data segment is then MSS bytes long except those
	// flushes. 0: each write is cut into segments of its own at its own time.
	Coalesce time.Duration
	// SACK makes both receivers report SACK blocks (RFC 2018) while they hold data beyond a
	// hole, on every segment they send (pure ACKs and data), as Linux does: first the block
	// holding the segment that arrived last, then the others, most recently changed first, at
	// most 4 (the segments carry no timestamps option). No D-SACK: a copy of bytes already
	// acknowledged is acknowledged without blocks.
	SACK bool

	// RcvWindow, when positive, makes the server's receive window real (else every segment
	// advertises 65535 and nothing waits for it): the server advertises RcvWindow less the
	// bytes it received that its application has not read yet, and the client sends only
	// segments that fit whole below the right edge (ACK + window) of the server's last
	// segment it saw; one that does not fit waits, with those written after it, for a
	// segment that opens the window. The application reads each byte as it arrives, except
	// during Stalls. The SYN/ACK advertises min(RcvWindow, 65535), unscaled.
	RcvWindow int
	// WScale is the shift of the window scale option both SYNs carry when RcvWindow is set
	// (RFC 7323; the client's shift is 0): the server advertises its window >> WScale.
	WScale uint8
	// Stalls are times when the server's application reads nothing: the window fills (to
	// zero when the stall is long enough, though no zero-window probes are modelled), and at
	// the end it reads everything and sends a window update, a pure ACK. Only with RcvWindow.
	Stalls []TCPStall
}

// TCPStall is a time when the server's application stops reading: from At (from the
// capture's start, at the server) for For.
type TCPStall struct{ At, For time.Duration }

// TCPWrite is one write of the application: Data (already framed) sent in direction Dir (0
// client to server, 1 server to client) at T from the capture's start.
type TCPWrite struct {
	T    time.Duration
	Dir  int
	Data []byte
}

// Packets returns the frames of the connection carrying writes (sorted by T).
func (c TCPCall) Packets(writes []TCPWrite) []Packet {
	var out []Packet
	i := 0
	next := func() (TCPWrite, bool) {
		if i == len(writes) {
			return TCPWrite{}, false
		}
		i++
		return writes[i-1], true
	}
	// Collecting never fails.
	_ = c.Run(next, func(t int64, frame []byte) error {
		out = append(out, Packet{T: t, Frame: frame})
		return nil
	})
	return out
}

// Run simulates the connection, pulling writes from next (in order of T) and handing each
// captured frame to emit in capture order (t in ns since the Unix epoch). Memory is bounded
// by what is in flight, not by the number of writes. The writes must start after the
// handshake (RTT after Start), whose frames are emitted first.
func (c TCPCall) Run(next func() (TCPWrite, bool), emit func(t int64, frame []byte) error) error {
	s := newTCPSim(c, emit)
	return s.run(next)
}

// errStop ends a simulation whose consumer stopped.
var errStop = errors.New("callgen: stopped")

// Frames is Run as an iterator over the captured frames and their times, in capture order;
// breaking out of the loop ends the simulation. It pulls its writes from next, so it can be
// ranged over once.
func (c TCPCall) Frames(next func() (TCPWrite, bool)) iter.Seq2[int64, []byte] {
	return func(yield func(int64, []byte) bool) {
		// emit fails only with errStop: nothing to report.
		_ = c.Run(next, func(t int64, frame []byte) error {
			if !yield(t, frame) {
				return errStop
			}
			return nil
		})
	}
}
