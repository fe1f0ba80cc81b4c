package tcpframe

import (
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/internal/secmedian"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// Config bounds a Conn. The zero value means the documented defaults.
type Config struct {
	// Window is the most bytes a direction keeps pending: received but not yet handed out in
	// messages (out-of-order data, a partial frame, messages waiting for the ACK that dates
	// their delivery). 0 means DefaultWindow; values below MinWindow are raised to it.
	Window int
	// LateBudget is how long after FirstSeen a message may be delivered before its
	// retransmitted bytes count as useless (they arrived too late anyway). 0 means
	// report.DefaultLateBudget.
	LateBudget time.Duration
	// Framing, when RFC 4571, TURN or TLS, is imposed on both directions instead of being
	// detected from their first bytes (--decode-as). Headers are still validated: the
	// unframer starts by scanning for one, as after a capture gap.
	Framing Framing
	// BorrowPayload lets Segment keep pointing into the payloads of the packets it is given
	// instead of copying them. The caller calls Detach from time to time (after each batch
	// of packets) and promises that the packets given since the previous call to Detach stay
	// valid until the next one: each call copies what is still held of the packets given
	// before the previous call, whose bytes may then be reused. Segments in order are then
	// unframed without a copy, and most messages are handed out before their packet goes.
	BorrowPayload bool
	// HeadsOnly keeps of each RTP message (RFC 4571 framed, or in a TURN ChannelData
	// message; not RTCP, not one the snap length cut) of more than HeadLen bytes and at most
	// MaxHeadsOnly only its bytes up to the end of its RTP header and the two after it (an
	// RTX packet's original sequence number), when they lie within its first HeadLen, and
	// its last byte when its P bit makes that the padding count: in the Payload it is
	// emitted with, the other bytes read as zeros. Messages of at most HeadLen bytes are
	// kept whole. A caller that reads no more of RTP than that (the analysis) lets the
	// messages held back for the ACK that dates them keep no bytes: none to copy out of the
	// packets (Detach), none to buffer, and a frame that straddles two segments is read
	// where it lies, not joined in the buffer.
	HeadsOnly bool
	// Text, when set, is given the in-order bytes of a direction no framing explains
	// (FramingUnknown) before they are dropped, with the direction's sender: SIP over TCP,
	// whose SDP names payload types and clock rates, is such a direction. b is valid only
	// during the call.
	Text func(src netip.AddrPort, b []byte)
}

const (
	DefaultWindow = 4 << 20
	MinWindow     = 256 << 10 // two of the largest frames must fit to resynchronise

	// defaultMinRTT stands for the minimum RTT while none is known (hole-filling rule).
	defaultMinRTT = int64(3 * time.Millisecond)
	// maxHold is the longest (capture time) a message waits for the vantage to be known,
	// and maxAckHold for the ACK that dates its delivery at a sender vantage (dir.holdLimit).
	maxHold    = int64(time.Second)
	maxAckHold = int64(8 * time.Second)
	// maxQueued bounds the messages a direction holds back.
	maxQueued = 4096
	// minVantageSamples is the fewest data/ACK samples a vantage is decided from.
	minVantageSamples = 3
	// farRunJump is how many contiguous segments beyond the window make the stream jump
	// there (the capture lost more than a window); fewer are ignored as bogus.
	farRunJump = 3
)

// Vantage is where the capture was taken relative to one direction's sender and receiver.
type Vantage uint8

const (
	VantageUnknown  Vantage = iota
	VantageReceiver         // data is ACKed within 20% of the RTT: next to the receiver
	VantageMiddle
	VantageSender // data is ACKed after more than 80% of the RTT: next to the sender
)

// Report returns the vantage's name in the report.
func (v Vantage) Report() report.Vantage {
	switch v {
	case VantageReceiver:
		return report.VantageReceiver
	case VantageMiddle:
		return report.VantageMiddle
	case VantageSender:
		return report.VantageSender
	}
	return report.VantageUnknown
}

func (v Vantage) String() string { return string(v.Report()) }

// Rest is the wire bytes of a direction that no message accounts for. After Close, the
// Wire.Total of every message emitted for the direction plus ACKs + Control + Retransmitted +
// Unframed is exactly the direction's wire_bytes.
type Rest struct {
	ACKs          int64 // segments without payload, SYN, FIN or RST: pure ACKs
	Control       int64 // SYN, FIN and RST segments without payload, keep-alives, zero-window probes without data
	Retransmitted int64 // copies of bytes already handed out (or skipped), with their header share
	Unframed      int64 // payload no message carried (unknown framing, resync, after FIN, beyond the window) with its header share and copies
}

// Conn reassembles one TCP connection, both directions, and unframes its messages.
// It is not safe for concurrent use.
type Conn struct {
	window, late int64
	borrow       bool
	headsOnly    bool
	expanded     []byte // where HeadsOnly payloads are laid out to be emitted: zeros between uses
	dirs         [2]dir
	hs           handshake
	now          int64
	rttGen       uint64 // counts the RTT samples and the handshake RTT: what vantage depends on
	gen          uint32 // calls to Detach: what is borrowed is tagged with it
	emit         func(m *transport.Message)
	msg          transport.Message
	chans        known[uint16]                      // TURN channels carried in step, both ways (known.go)
	turnResync   probeFunc                          // probeTURNKnown, made once
	text         func(src netip.AddrPort, b []byte) // Config.Text

	// closing: the capture ended (Close), and what is held back goes out though an ACK
	// may still have been on its way.
	closing bool
}

// handshake measures the handshake round trip: (first SYN/ACK − the last SYN before it) +
// (first ACK of the SYN/ACK − the last SYN/ACK before it), which without retransmission is
// the time from the SYN to the ACK that completes the handshake: the full round trip at any
// vantage.
type handshake struct {
	client               int // index of the direction that sent the SYN, -1 unknown
	synT, part1, synAckT int64
	synAckSeen           bool
	serverISN            uint32
	done                 bool // the ACK of the SYN/ACK was seen
	// rtt is the round trip in ns; 0 until the handshake was seen, and when its packets
	// share one capture time (a capture whose clock did not move): not measured, for no
	// round trip takes no time.
	rtt int64
}

// NewConn returns the state of a connection between a (the side seen first) and b.
func NewConn(cfg Config, a, b netip.AddrPort) *Conn {
	w := int64(cfg.Window)
	if w <= 0 {
		w = DefaultWindow
	}
	w = max(w, MinWindow)
	late := int64(cfg.LateBudget)
	if late <= 0 {
		late = int64(report.DefaultLateBudget)
	}
	c := &Conn{window: w, late: late, borrow: cfg.BorrowPayload, headsOnly: cfg.HeadsOnly, text: cfg.Text,
		msg: transport.Message{Proto: transport.TCP}}
	c.hs.client = -1
	c.dirs[0] = dir{c: c, idx: 0, src: a, dst: b, st: store{window: w}}
	c.dirs[1] = dir{c: c, idx: 1, src: b, dst: a, st: store{window: w}}
	c.dirs[0].other, c.dirs[1].other = &c.dirs[1], &c.dirs[0]
	if probeOf(cfg.Framing) != nil {
		c.dirs[0].fr.kind, c.dirs[1].fr.kind = cfg.Framing, cfg.Framing
	}
	return c
}

// Segment processes one TCP segment of this connection, in either direction, and emits every
// message that became deliverable, in order per direction. Segments of other connections are
// ignored. emit's message and its payload are valid until emit returns.
func (c *Conn) Segment(p *capture.Packet, emit func(m *transport.Message)) {
	src, dst := p.SrcAddrPort(), p.DstAddrPort()
	var d *dir
	switch {
	case src == c.dirs[0].src && dst == c.dirs[0].dst:
		d = &c.dirs[0]
	case src == c.dirs[1].src && dst == c.dirs[1].dst:
		d = &c.dirs[1]
	default:
		return
	}
	c.now = max(c.now, p.Time)
	c.emit = emit
	d.segment(p)
	// One direction's messages may be waiting for the other's to go first: after the first
	// has emitted what it can, and the second too, the first is asked again only when the
	// second emitted something (nothing else changed for it), and so on.
	a, b := &c.dirs[0], &c.dirs[1]
	a.emitReady(false)
	for b.emitReady(false) && a.emitReady(false) {
	}
	c.emit = nil
}

// Reopens reports whether p, a SYN without ACK, opens another connection on this one's
// addresses and ports (a client that reused its port once the first ended). A SYN with
// another sequence number than its side's SYN before does; one with the same does once
// this connection carried data and ended (a FIN or a RST either way: a client may reuse
// its ISN too), not before (a retransmission, or the retry of a SYN a RST refused, as
// tshark reads them). Without a SYN seen from its side, any SYN does once data flowed or
// the connection ended. The caller closes this Conn and starts another for p, as tshark's
// conversations do.
func (c *Conn) Reopens(p *capture.Packet) bool {
	if p.TCP.Flags&(capture.FlagSYN|capture.FlagACK) != capture.FlagSYN {
		return false
	}
	data := c.dirs[0].stats.payloadBytes+c.dirs[1].stats.payloadBytes > 0
	ended := c.dirs[0].finSeen || c.dirs[0].rstSeen || c.dirs[1].finSeen || c.dirs[1].rstSeen
	src := p.SrcAddrPort()
	for i := range c.dirs {
		d := &c.dirs[i]
		if d.src != src {
			continue
		}
		if d.synSeen {
			return p.TCP.Seq+1 != d.base || ended && data
		}
		return data || ended
	}
	return false
}

// SegmentOffset says where the payload of p, a segment Segment was just given, starts in its
// direction's byte stream (the offsets of Message.Stream), and which direction that is (0:
// from the side seen first). ok is false for a segment of another connection. It is for
// tools that map segments to messages (scrub), not for the per-packet path.
func (c *Conn) SegmentOffset(p *capture.Packet) (dir int, off int64, ok bool) {
	src, dst := p.SrcAddrPort(), p.DstAddrPort()
	for i := range c.dirs {
		d := &c.dirs[i]
		if src != d.src || dst != d.dst {
			continue
		}
		off = d.rel(p.TCP.Seq)
		if p.TCP.Flags&capture.FlagSYN != 0 {
			off++
		}
		return i, off, true
	}
	return 0, 0, false
}

// Detach copies what the connection still holds of the packets given to Segment before the
// previous call to Detach, so that their bytes may be reused (Config.BorrowPayload); what it
// holds of the packets given since then it keeps pointing into until the next call. It is
// cheap when nothing is held.
func (c *Conn) Detach() {
	before := c.gen
	c.gen++
	c.dirs[0].detach(before)
	c.dirs[1].detach(before)
}

// Close ends the capture: holes never filled are skipped as capture gaps, partial frames
// dropped, and every message held back is emitted.
func (c *Conn) Close(emit func(m *transport.Message)) {
	c.emit, c.closing = emit, true
	a, b := &c.dirs[0], &c.dirs[1]
	a.close()
	b.close()
	// Both directions in the order their messages were first seen.
	for a.qh < len(a.q) || b.qh < len(b.q) {
		if b.qh == len(b.q) || a.qh < len(a.q) && a.q[a.qh].first <= b.q[b.qh].first {
			a.emitHead()
		} else {
			b.emitHead()
		}
	}
	c.emit = nil
}

// FromStart says whether direction i (0: a to b) was seen from its SYN: its bytes begin
// at the stream's first, not inside a message the capture joined.
func (c *Conn) FromStart(i int) bool { return c.dirs[i&1].synSeen }

// Framing returns the connection's framing: a framing recognised in either direction wins
// over unknown.
func (c *Conn) Framing() Framing {
	a, b := c.dirs[0].fr.kind, c.dirs[1].fr.kind
	switch {
	case a != FramingNone && a != FramingUnknown:
		return a
	case b != FramingNone && b != FramingUnknown:
		return b
	case a == FramingUnknown || b == FramingUnknown:
		return FramingUnknown
	}
	return FramingNone
}

// Rest returns, for direction 0 (a to b) or 1 (b to a), the wire bytes no message accounts for.
func (c *Conn) Rest(i int) Rest { return c.dirs[i&1].rest }

// Unrepaired returns the stream bytes of direction i that lay behind a hole the peer's ACK
// had not passed when the capture ended: still being repaired, never delivered in the
// capture, carried by no message (on the wire in Rest.Unframed).
func (c *Conn) Unrepaired(i int) int64 { return c.dirs[i&1].unrepaired }

// Far returns the segments of both directions, and their payload bytes, that lay wholly
// beyond the window of their stream and were taken for bogus (fewer than farRunJump in a
// row): on the wire (Rest.Unframed), in payload_bytes, in no stream byte nor message.
func (c *Conn) Far() (segments, bytes int64) {
	for i := range c.dirs {
		segments += c.dirs[i].stats.farSegments
		bytes += c.dirs[i].stats.farBytes
	}
	return segments, bytes
}

// AfterEnd returns the segments of both directions, and their payload bytes, that came
// after their direction ended (its FIN delivered, or a RST) beyond what it had framed: on
// the wire (Rest.Unframed), in payload_bytes, in no stream byte nor message.
func (c *Conn) AfterEnd() (segments, bytes int64) {
	for i := range c.dirs {
		segments += c.dirs[i].stats.endSegments
		bytes += c.dirs[i].stats.endBytes
	}
	return segments, bytes
}

// RestSeconds is a direction's Rest by second, at the capture of the segments that made it:
// its pure ACKs, and the rest (Retransmitted, Control and Unframed); and beside them the
// payload bytes its summary counts retransmitted (RetransmittedBytes), copies and the bytes
// of holes filled late alike.
type RestSeconds struct{ ACKs, Other, RetransmittedPayload secmedian.Sums }

// CountRestSeconds makes the connection count its Rest by second from now on, both ways
// (RestSeconds). A connection asks it itself when a direction's framing is a media
// framing (dir.framed), a caller when it finds media there; the others (web traffic, up to
// the flow cap) keep no seconds.
func (c *Conn) CountRestSeconds() {
	for i := range c.dirs {
		if c.dirs[i].restSecs == nil {
			c.dirs[i].restSecs = &RestSeconds{}
		}
	}
}

// RestSeconds returns Rest(i) by second since CountRestSeconds; nil before. The caller may
// anchor its sums (secmedian.Sums.Anchor).
func (c *Conn) RestSeconds(i int) *RestSeconds { return c.dirs[i&1].restSecs }

// RTTSeries returns the round trips of direction 0 (a to b) or 1 (b to a) by second, the
// samples of its rtt_ms: nil unless the direction was captured at its sender (see
// dir.rttSummary), where alone they measure the path.
func (c *Conn) RTTSeries(i int) *secmedian.Series {
	d := &c.dirs[i&1]
	if d.vantage() != VantageSender {
		return nil
	}
	return &d.rtts
}

// rtt is the connection's minimum round trip in ns: the smaller of the handshake's and the
// sum of both directions' minimum data/ACK delays (each is the part of the round trip on
// one side of the vantage, whichever it is); 0 when neither is known. The handshake alone
// can read high: a forwarder or a server that was slow to answer the SYN made a real TURN
// server's connections 33-93 ms where their data said 20, and with it the vantage rule
// read its sender's direction as in the middle and the hole rule its repairs as out of
// order.
func (c *Conn) rtt() int64 {
	r := c.hs.rtt
	a, b := &c.dirs[0].rtt, &c.dirs[1].rtt
	if a.N() > 0 && b.N() > 0 {
		if d := int64((a.Min() + b.Min()) * 1e6); d > 0 && (r <= 0 || d < r) {
			r = d
		}
	}
	return r
}

// minRTT is the RTT the hole-filling rule uses: 95% of the connection's. DESIGN says one
// minimum RTT; the margin is for the RTT's own noise. A repair cannot reach any vantage
// sooner than a round trip after the first byte beyond its hole (the receiver must report
// the hole, the sender resend), but it comes right at it when the sender answers the first
// SACK (fast retransmit, RACK), and the RTT this connection measured is a sample, not the
// path's floor: a Linux receiver 80 ms away got 17 of 150 repairs 80.2-80.68 ms after the
// bytes beyond, under its handshake's 80.681 ms, and a TURN server 30 ms away 7 of 40 under
// its own. It was 80% (the vantage rule's bound) until a tester's hole, filled 90 ms after
// the bytes beyond on a path of 100.3 ms, read as a repair where DESIGN says out of order.
// A repair sent on a timer (RTO) may come sooner after the bytes beyond: one that also
// carries bytes seen before is a repair of all of them whenever it comes (dir.data).
func (c *Conn) minRTT() int64 {
	if r := c.rtt(); r > 0 {
		return r * 95 / 100
	}
	return defaultMinRTT
}

func (c *Conn) handshake(d *dir, p *capture.Packet) {
	h, t := &c.hs, p.Time
	f := p.TCP.Flags
	syn, ack := f&capture.FlagSYN != 0, f&capture.FlagACK != 0
	switch {
	case h.done:
	case syn && !ack:
		if !h.synAckSeen {
			h.client, h.synT = d.idx, t
		}
	case syn && ack:
		if h.client == 1-d.idx {
			if !h.synAckSeen {
				h.part1, h.synAckSeen = t-h.synT, true
			}
			h.synAckT, h.serverISN = t, p.TCP.Seq
		}
	case ack && d.idx == h.client && h.synAckSeen && p.TCP.Ack == h.serverISN+1:
		h.done, h.rtt = true, max(h.part1+t-h.synAckT, 0)
		c.rttGen++
	}
}

// Summary returns the connection's TCP figures.
func (c *Conn) Summary() report.FlowTCP {
	var s report.FlowTCP
	if c.hs.rtt > 0 {
		v := numfmt.Round(float64(c.hs.rtt)/1e6, 3)
		s.HandshakeRTTMS = &v
	}
	s.AToB = c.dirs[0].summary()
	s.BToA = c.dirs[1].summary()
	return s
}
