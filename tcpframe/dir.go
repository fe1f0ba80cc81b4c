package tcpframe

import (
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/quantile"
	"github.com/callpcap/callpcap/internal/secmedian"
	"github.com/callpcap/callpcap/report"
)

// dir is one direction of a connection: its sequence space, its byte store, and the
// policies that run over them, each in a file named for it:
//
//   - segment classification (this file): control, keep-alive, probe or data;
//   - retransmit.go: which of a segment's bytes are new, retransmitted or spurious;
//   - gap.go: when a hole the capture never fills is given up;
//   - ack.go: the peer's ACKs, RTT samples and the vantage;
//   - unframe.go: messages cut out of the in-order bytes;
//   - deliver.go: when each message was delivered, and handing it out.
//
// Stream offsets are int64, 0 being the first data byte (the byte after the SYN, or the
// first sequence number seen when the capture started mid-connection); sequence numbers
// are unwrapped against the highest offset seen. Messages held back (queue) lie below the
// store's framed offset; only [released, highest) is buffered, at most window bytes.
type dir struct {
	c        *Conn
	other    *dir // the peer direction: &c.dirs[1-idx], kept for the per-packet path
	idx      int
	src, dst netip.AddrPort
	iface    int

	init, synSeen bool
	base          uint32 // sequence number of offset 0
	finSeen       bool
	rstSeen       bool // a RST came this way: the connection ended (Conn.Reopens)
	finOff        int64
	ended         bool
	win           uint16 // last window this side advertised
	winSeen       bool

	st store
	fr framer
	// ssrcs are the SSRCs this direction carried in step in RFC 4571 framing, and
	// rfc4571Resync the probe that resynchronises on them (known.go), made once.
	ssrcs         known[uint32]
	rfc4571Resync probeFunc

	ackSeen bool
	ackHigh int64 // the peer's highest cumulative ACK of this direction
	ackAt   int64 // when the peer's last ACK of it was seen

	q      []pending
	qh     int
	qBytes int64
	qBuf   int // messages held back whose payload is in the store's buffer (ext nil)
	lent   int // messages held back whose payload may be in their packet

	farNext int64
	farRun  int
	zwp     heldProbe // the byte of the last zero-window probe, while its fate is open
	gaps    uint32    // capture gaps and resynchronisation skips so far (transport.StreamPos.Gaps)

	acks ackRing
	sent sentRing
	retx retxRing
	rw   rwnd
	rtt  quantile.Hist
	rtts secmedian.Series // the same samples by second, for the report's RTT series
	hol  quantile.Hist
	vc   struct {
		n, r int64
		v    Vantage
		gen  uint64 // Conn.rttGen when v was last asked for
		// early: a message waited maxHold for the vantage, which is then decided from
		// the samples there are (one will do) rather than minVantageSamples.
		early bool
	}

	stats stats
	rest  Rest
	// unrepaired counts the stream bytes behind a hole still being repaired at the end of
	// the capture (close): dropped, never delivered.
	unrepaired int64
	restSecs   *RestSeconds // the same by second, once asked for (Conn.CountRestSeconds)
}

type stats struct {
	segments, dataSegments, pureAcks, wireBytes, payloadBytes                   int64
	retxSegments, retxBytes, spuriousBytes, uselessBytes, gapBytes, oooSegments int64
	zeroWindowProbes, keepalives, messages, framingBytes, resyncSkipped, other  int64
	holMessages                                                                 int64
	farSegments, farBytes                                                       int64 // tooFar's
	endSegments, endBytes                                                       int64 // after the direction ended
	framedBytes, breaks, brokenBytes                                            int64 // Hold
}

func (d *dir) peer() *dir { return d.other }

// rel unwraps a sequence number into a stream offset near the highest offset seen.
func (d *dir) rel(seq uint32) int64 {
	return d.st.highest + int64(int32(seq-(d.base+uint32(d.st.highest))))
}

// released is the lowest offset whose bytes are still needed: the oldest message held back,
// else the store's framed offset.
func (d *dir) released() int64 {
	if d.qh < len(d.q) {
		return d.q[d.qh].start
	}
	return d.st.framed
}

// bufFrom is the lowest offset whose bytes the store's buffer keeps: the oldest message
// held back whose payload is in the buffer, or in a packet (Detach copies it into the
// buffer), else the store's framed offset. A message held as its head (HeadsOnly) needs
// none of its bytes.
func (d *dir) bufFrom() int64 {
	if d.qBuf+d.lent > 0 {
		for i := d.qh; i < len(d.q); i++ {
			if !d.q[i].byHead() {
				return d.q[i].start
			}
		}
	}
	return d.st.framed
}

// segment classifies one segment of this direction: a pure ACK, a control segment (SYN,
// FIN, RST), a keep-alive or zero-window probe (RFC 9293 3.8.4: one byte, or none, below
// the next expected one), or data; the ACK it carries is the peer direction's business.
func (d *dir) segment(p *capture.Packet) {
	h := &p.TCP
	t := p.Time
	pl := int64(max(p.PayloadLen, 0))
	w := max(int64(p.WireLen), pl)
	syn := h.Flags&capture.FlagSYN != 0
	fin := h.Flags&capture.FlagFIN != 0
	rst := h.Flags&capture.FlagRST != 0
	d.stats.segments++
	d.stats.wireBytes += w
	d.iface = p.Iface
	peer := d.peer()

	if syn && (!d.init || d.st.highest == 0 && d.st.cs.n() == 0 && d.st.framed == 0) {
		d.init, d.synSeen, d.base = true, true, h.Seq+1
		d.rw.syn(h)
	}
	if !d.init {
		d.init, d.base = true, h.Seq
	}
	if !d.c.hs.done {
		d.c.handshake(d, p)
	}
	if h.Flags&capture.FlagACK != 0 {
		peer.onAck(h, t)
	}
	d.win, d.winSeen = h.Window, true

	off := d.rel(h.Seq)
	if syn {
		off++
	}
	peerZeroWin := peer.winSeen && peer.win == 0
	switch {
	case pl == 0:
		switch {
		case !syn && !fin && !rst && (off == d.st.highest-1 || d.ackSeen && off == d.ackHigh-1):
			d.probe(peerZeroWin)
			d.addRest(&d.rest.Control, w)
		case syn || fin || rst:
			d.addRest(&d.rest.Control, w)
		default:
			d.stats.pureAcks++
			d.rest.ACKs += w
			if d.restSecs != nil {
				d.restSecs.ACKs.Add(d.c.now, w)
			}
		}
	case pl == 1 && !syn && !fin && off == d.st.highest-1:
		// Keep-alive with one garbage byte (the byte below the next expected one).
		d.probe(peerZeroWin)
		d.stats.payloadBytes += pl
		d.addRest(&d.rest.Control, w)
	case peerZeroWin && pl == 1 && !syn && !fin && off == d.st.highest:
		// A zero-window probe with the next byte (BSD, Windows; Linux's has none): counted,
		// not delivered (DESIGN). Its byte is held aside (heldProbe), in case the receiver
		// took it after all.
		d.probe(true)
		d.stats.payloadBytes += pl
		d.addRest(&d.rest.Control, w)
		d.zwp = heldProbe{set: true, off: off, w: w, t: t}
		d.zwp.n = copy(d.zwp.b[:], p.Payload)
	default:
		if d.zwp.set {
			d.settleProbe(off)
		}
		d.stats.dataSegments++
		d.stats.payloadBytes += pl
		payload := p.Payload
		if int64(len(payload)) > pl {
			payload = payload[:pl]
		}
		d.data(&dataSeg{start: off, size: pl, hdr: w - pl, payload: payload, t: t, gen: d.c.gen})
		d.dataSent(pl, t)
	}
	if fin && !d.finSeen {
		d.finSeen, d.finOff = true, off+pl
	}
	d.advance()
	if rst {
		d.rstSeen = true
		d.end()
	}
}

// heldProbe is a zero-window probe's byte, held aside rather than delivered: the receiver,
// its window shut, drops it, and the sender sends the byte again once the window opens
// (settleProbe). b[:n] is the byte as captured (none when the snap length cut it), copied:
// the packet's buffer is reused.
type heldProbe struct {
	set  bool
	off  int64
	w, t int64 // the probe's wire bytes and time
	b    [1]byte
	n    int
}

// settleProbe decides the held probe's byte before a data segment from off: one that sends
// the byte again ends it (the probe was dropped, this is its first delivery); one that
// starts after it says the receiver took the probe's byte after all (its window had opened
// unseen, as the ACK that moves past it then shows), and the byte is delivered from the
// probe first, as data: its wire bytes move from control to its header share.
func (d *dir) settleProbe(off int64) {
	z := d.zwp
	d.zwp = heldProbe{}
	if off != z.off+1 || d.st.highest != z.off {
		return
	}
	d.rest.Control -= z.w
	d.stats.dataSegments++
	d.data(&dataSeg{start: z.off, size: 1, hdr: z.w - 1, payload: append([]byte(nil), z.b[:z.n]...), t: z.t, gen: d.c.gen})
	d.dataSent(1, z.t)
}

func (d *dir) probe(zeroWin bool) {
	if zeroWin {
		d.stats.zeroWindowProbes++
	} else {
		d.stats.keepalives++
	}
}

// advance unframes what became in order and ends the direction after its FIN.
func (d *dir) advance() {
	d.frame(stopMore)
	if d.finSeen && !d.ended && d.st.delivered >= d.finOff {
		d.frame(stopEnd)
		d.ended = true
	}
}

// end ends the direction (RST): what cannot come any more is given up.
func (d *dir) end() {
	if d.ended {
		return
	}
	d.skipHolesTo(d.st.highest)
	d.frame(stopEnd)
	d.ended = true
	d.emitReady(true)
}

// close ends the capture. A hole the peer's ACK passed is a capture gap, given up; a hole it
// did not pass was still being repaired when the capture ended (a retransmission on its
// way): the bytes behind it never reached the receiver in the capture and are dropped, not
// delivered, and no capture gap is counted (but they are, as unrepaired). Without the
// peer's ACKs of data (a capture of one direction, whose only ACK from the peer is the
// SYN/ACK's), or when they stopped (acksStopped), every hole is taken for a capture gap.
// Conn.Close then emits what is held back.
func (d *dir) close() {
	if d.rw.on {
		d.rw.end(d.c.now)
	}
	if d.ackSeen && d.ackHigh > 0 && d.ackHigh < d.st.highest && !d.acksStopped() {
		d.skipHolesTo(d.ackHigh)
		d.frame(stopEnd)
		w, n := d.st.dropBeyond()
		d.addRest(&d.rest.Unframed, w)
		d.unrepaired += n
		return
	}
	d.skipHolesTo(d.st.highest)
	d.frame(stopEnd)
}

// ackSilence is how long data may go on with no ACK of the peer's before its ACKs are taken
// to be missing from the capture: a receiver acknowledges every second segment, or within
// its delayed-ACK timer (500 ms at most, RFC 9293 3.8.6.3), and a segment beyond a hole at
// once with a duplicate ACK (RFC 5681 4.2).
const ackSilence = int64(time.Second)

// acksStopped says whether the peer's ACKs stopped while this direction's data went on
// (the capture lost the reverse path, or one direction of it from some point): the last
// segment that extended the stream came ackSilence after the peer's last ACK, so the ACK
// that stayed below a hole says nothing of it (h138: 46,800 bytes behind a hole, 9 s of
// audio, were dropped as "a repair still on its way").
func (d *dir) acksStopped() bool {
	t, ok := d.sent.newest()
	return ok && t-d.ackAt > ackSilence
}

// detach copies what the direction still holds of the packets given before Detach call
// number before.
func (d *dir) detach(before uint32) {
	d.detachQueue(before)
	d.st.detach(before)
}

// rttSummary is the direction's round trip from its data/ACK pairs, reported only at a
// sender vantage: there the delay from a data segment to the ACK that covers it spans the
// whole path and back. Next to the receiver the ACK leaves as the data arrives, so the
// delay is the receiver's ACK time (near 0 however long the path is); in the middle it is
// the part of the round trip beyond the capture; with the vantage unknown nobody can say
// which. Those are not the RTT, and a 0 there would read as a measurement: null. The
// handshake's RTT (handshake_rtt_ms, on the connection) is the full round trip at any
// vantage, so it is not repeated here. The samples still decide the vantage (ack.go).
func (d *dir) rttSummary(v Vantage) *report.Quantiles {
	if v != VantageSender {
		return nil
	}
	return d.rtt.Summary()
}

// spurious is the retransmitted bytes the peer's cumulative ACK or a D-SACK already
// covered; nil when there were retransmissions and no ACK of the peer's was captured.
func (d *dir) spurious() *int64 {
	if d.stats.retxBytes > 0 && !d.ackSeen {
		return nil
	}
	n := d.stats.spuriousBytes
	return &n
}

func (d *dir) summary() report.TCPDir {
	s := &d.stats
	v := d.vantage()
	return report.TCPDir{
		Vantage:                    v.Report(),
		Segments:                   s.segments,
		DataSegments:               s.dataSegments,
		PureAcks:                   s.pureAcks,
		WireBytes:                  s.wireBytes,
		PayloadBytes:               s.payloadBytes,
		StreamBytes:                d.st.bytesIn,
		RetransmittedSegments:      s.retxSegments,
		RetransmittedBytes:         s.retxBytes,
		SpuriousRetransmittedBytes: d.spurious(),
		UselessRetransmittedBytes:  s.uselessBytes,
		CaptureGapBytes:            s.gapBytes,
		OutOfOrderSegments:         s.oooSegments,
		ZeroWindowProbes:           s.zeroWindowProbes,
		Keepalives:                 s.keepalives,
		RTTMS:                      d.rttSummary(v),
		Messages:                   s.messages,
		FramingBytes:               s.framingBytes,
		ResyncSkippedBytes:         s.resyncSkipped,
		HOLDelayedMessages:         s.holMessages,
		HOLDelayMS:                 d.hol.Summary(),
		WindowStalls:               d.rw.summary(),
	}
}

// addRest counts n bytes no message accounts for in c, one of d.rest's but ACKs, and by
// second (when counted) at the time of the segment being read.
func (d *dir) addRest(c *int64, n int64) {
	*c += n
	if d.restSecs != nil {
		d.restSecs.Other.Add(d.c.now, n)
	}
}
