package tcpframe

import (
	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// pending is a message unframed and held back until its delivery can be dated: the stream
// range [start, end) with its framing, the payload's payLen bytes at pay, and what its
// bytes carried (piece). Its payload is its head and last byte when byHead (HeadsOnly),
// else piece.ext while that still points into its packet, else in the store's buffer,
// which keeps every byte from the oldest such message held back (bufFrom).
type pending struct {
	start, end  int64
	pay, payLen int64
	piece
	headN uint8 // the bytes of head held: not 0 when the message is held by them (HeadsOnly)
	last  byte
	gaps  uint32 // dir.gaps when it was framed (transport.StreamPos.Gaps)
	head  [HeadLen]byte
}

// byHead says whether the message is held as its head and last byte (HeadsOnly), with no
// bytes in the store or its packet.
func (m *pending) byHead() bool { return m.headN > 0 }

// payload returns the message's payload bytes; those of one held by its head until
// unexpand.
func (m *pending) payload(d *dir) []byte {
	switch {
	case m.byHead():
		return d.c.expand(m)
	case m.ext != nil:
		return m.ext
	}
	return d.st.bytes(m.pay, m.pay+m.payLen)
}

// compactQueue is how many emitted messages the queue's front may leave behind before the
// ones still held move to its start. A queue held back for a round trip rarely empties, so
// the array grows until a compaction: kept small, the part of it in use stays in the cache
// (a direction holds about as many messages as a round trip carries).
const compactQueue = 32

// enqueue returns a new message at the end of the queue, zeroed, to be filled in place and
// then given to queued.
func (d *dir) enqueue() *pending {
	if d.qh > 0 && d.qh == len(d.q) {
		d.q, d.qh = d.q[:0], 0
	} else if d.qh > compactQueue && d.qh > len(d.q)/2 {
		n := copy(d.q, d.q[d.qh:])
		d.q, d.qh = d.q[:n], 0
	}
	d.q = append(d.q, pending{})
	return &d.q[len(d.q)-1]
}

// queued holds back the message m that enqueue gave, now filled: it ends at the store's
// framed offset.
func (d *dir) queued(m *pending) {
	d.qBytes += m.end - m.start
	switch {
	case m.byHead():
	case m.ext == nil:
		d.qBuf++
	default:
		d.lent++
	}
	if len(d.q)-d.qh > maxQueued {
		d.emitHead()
	}
}

// detachQueue copies into the store's buffer the payloads of the messages held back that
// still point into packets given before Detach call number before.
func (d *dir) detachQueue(before uint32) {
	if d.lent == 0 {
		return
	}
	d.lent = 0
	for i := d.qh; i < len(d.q); i++ {
		m := &d.q[i]
		switch {
		case m.ext == nil: // in the buffer, or held by its head
		case m.gen < before:
			copy(d.st.bytes(m.pay, m.pay+m.payLen), m.ext)
			m.ext = nil
			d.qBuf++
		default:
			d.lent++
		}
	}
}

// oldCopy accounts for a copy of bytes [x, y) below the store's framed offset (of segment
// g): they belong to a message held back, or were already handed out or skipped.
func (d *dir) oldCopy(x, y int64, g *dataSeg) {
	q := d.q[d.qh:]
	lo, hi := 0, len(q)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if q[m].end <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i, pos := lo, x
	for pos < y {
		if i < len(q) && q[i].start <= pos {
			m := &q[i]
			ye := min(y, m.end)
			m.xBytes += ye - pos
			m.xHdr += share(g.hdr, g.size, g.start, pos, ye)
			m.lastCopy = max(m.lastCopy, g.t)
			pos = ye
			i++
			continue
		}
		ye := y
		if i < len(q) {
			ye = min(y, q[i].start)
		}
		d.addRest(&d.rest.Retransmitted, ye-pos+share(g.hdr, g.size, g.start, pos, ye))
		pos = ye
	}
}

// emitReady emits the held-back messages whose delivery can be dated (all of them if force)
// and reports whether it emitted any. At a sender vantage a message waits for the first ACK
// covering its last byte; while the vantage is unknown it waits for it to be known; and it
// waits while the other direction holds back a message first seen before it, so that the
// two directions come out in the order the capture saw them (a TURN ChannelBind request
// before its response, before the ChannelData it enables). Never longer than maxHold, nor
// beyond half the window; and what is let go then lets the other direction's older
// messages go first.
func (d *dir) emitReady(force bool) bool {
	if d.qh == len(d.q) {
		return false
	}
	return d.emitQueued(force)
}

func (d *dir) emitQueued(force bool) bool {
	emitted := false
	o := d.peer()
	v := d.vantage() // emitting changes none of what it depends on
	for d.qh < len(d.q) {
		first := d.q[d.qh].first
		older := o.qh < len(o.q) && o.q[o.qh].first < first
		if !force {
			m := &d.q[d.qh]
			wait := older
			switch v {
			case VantageSender:
				// The ring's newest entry is ackHigh: some remembered ACK covers m exactly
				// when ackHigh does, and which one is looked up only once, by emitHead.
				wait = wait || !d.ackSeen || d.ackHigh < m.end
			case VantageUnknown:
				if !d.vc.early && d.c.now-m.complete > maxHold {
					// Waited long enough for a third sample (a round trip near a second,
					// or a sparse start): decide from what there is, so that the message
					// is dated as the ones after it will be. Dated at its capture time at
					// a sender, it set the stream's delay baseline half a round trip early
					// (h151: 62 of 63 packets late on a clean 400 ms path whose first
					// packets came 0.6 s apart).
					d.vc.early, d.vc.gen = true, d.c.rttGen-1
					if v = d.vantage(); v != VantageUnknown {
						continue
					}
				}
				wait = true
			}
			if wait && d.c.now-m.complete <= maxHold && d.qBytes <= d.c.window/2 {
				return emitted // maxHold, every hold's least, answers for most
			}
			if wait && d.c.now-m.complete <= d.holdLimit(v) && d.qBytes <= d.c.window/2 {
				return emitted
			}
		}
		// Whatever lets the head go (maxHold, the window, the end), the other direction's
		// messages seen before it go first, having waited longer: a Binding request held
		// while its connection's vantage was unknown came out after its response, which was
		// released first by a segment of its own direction, and the check was unanswered.
		for older {
			o.emitHead()
			older = o.qh < len(o.q) && o.q[o.qh].first < first
		}
		d.emitHead()
		emitted = true
	}
	return emitted
}

// holdLimit is how long (capture time) the head may wait, at vantage v: maxHold; at a
// sender, or behind one (the other direction's older messages wait for their ACK),
// maxAckHold: the message whose ACK comes last (a repair after timeouts) is the latest of
// all, and let go at maxHold it read on time (h160: 61 late of 109, max 1.26 s, on a repair
// of 2.2 s); while the vantage is unknown, two round trips at least, time for a sample to
// come (h157: 145 of 150 late on a clean 1.1 s path).
func (d *dir) holdLimit(v Vantage) int64 {
	switch {
	case v == VantageSender || d.peer().vantage() == VantageSender:
		return maxAckHold
	case v == VantageUnknown:
		return max(maxHold, 2*d.c.rtt())
	}
	return maxHold
}

// windowLag is rwnd.held's lag: a round trip unless the capture is next to the sender (at
// a receiver, the data the window update released arrives a round trip after it; in the
// middle or not known, at most that).
func (d *dir) windowLag(sender bool) int64 {
	if sender {
		return 0
	}
	return d.c.rtt()
}

// emitHead emits the oldest held-back message.
func (d *dir) emitHead() {
	c := d.c
	m := &d.q[d.qh]
	complete, delivered := m.complete, m.dlv
	sender := d.vantage() == VantageSender
	spuriousCopy := false // the last copy of its bytes was not the one the receiver took
	if sender {
		// The receiver's delivery: the first ACK covering the last byte less half the minimum
		// RTT; its completion: the copy that reached the receiver plus half the minimum RTT.
		// That copy is the last one sent, unless the ACK came well within a round trip of
		// it (under 80% of the minimum RTT, the vantage rule's bound: an ACK a hair under
		// the minimum, which a handshake's can set, still answers the last copy): then it
		// answers an earlier copy and the last was spurious, and the message was complete
		// when the sender first had it all. A message whose ACK the capture never
		// shows (its end, or a hold cut short) is dated on the same clock, half an RTT after
		// the sender had it all, or, let go by a hold's limit, half an RTT before now if
		// later: mixing in sender-side times would move the stream's delay baseline by
		// half an RTT.
		rtt := c.rtt()
		half := rtt / 2
		at, acked := d.acks.firstCovering(m.end)
		sent := m.lastCopy
		if acked && at-sent < rtt*4/5 {
			sent, spuriousCopy = m.complete, true
		}
		complete = sent + half
		if acked {
			delivered = max(at-half, complete)
		} else {
			delivered = max(m.dlv+half, complete)
			if !c.closing && !d.ended {
				// No ACK covers it yet: the receiver had it no sooner than half a round
				// trip before now, or an ACK would be here. At the capture's end one may
				// still have been on its way, and at a RST none will come.
				delivered = max(delivered, c.now-half)
			}
		}
	}
	delivered = max(delivered, complete)
	framing := m.end - m.start - m.payLen
	retr := m.xBytes + m.xHdr
	// Field by field: a composite literal would be built aside and copied with its pointers.
	msg := &c.msg
	msg.Payload = m.payload(d)
	msg.Src, msg.Dst, msg.Iface = d.src, d.dst, d.iface
	msg.FirstSeen, msg.Complete, msg.Delivered = m.first, complete, delivered
	msg.Wire = transport.Wire{Total: m.hdr + framing + retr + m.payLen, Headers: m.hdr, Framing: framing,
		Retransmitted: retr}
	msg.Retransmitted = m.xBytes > 0 || m.lateBytes > 0
	// What held it up (transport.Hold): a retransmission first, since a message behind one
	// waits whatever the window: of earlier bytes, when it waited for them (head-of-line
	// blocking), else of its own; the window after.
	msg.Hold = transport.HoldNone
	switch {
	case delivered > complete && d.retx.heldBehind(m.first, c.now, m.start):
		msg.Hold = transport.HoldRetransmission
	case msg.Retransmitted && !spuriousCopy && !d.retx.spuriousOver(m.start, m.end):
		// Its own bytes were resent; a resend the receiver did not need (its ACK answered
		// an earlier copy, or a D-SACK said it had them) held nothing up.
		msg.Hold = transport.HoldRetransmitted
	case d.rw.stalled() && d.rw.held(m.first, c.late, d.windowLag(sender)):
		msg.Hold = transport.HoldWindow
	}
	msg.Snapped = m.snapped
	msg.Stream = transport.StreamPos{Start: m.start, Payload: m.pay, End: m.end, Gaps: m.gaps}
	d.stats.messages++
	d.stats.framingBytes += framing
	if d.fr.kind == FramingTURN && len(msg.Payload) >= channelDataHeaderLen && wire.IsAnyChannelByte(msg.Payload[0]) {
		// The report's framing_bytes counts ChannelData headers too; the message carries its
		// header (the demux unwraps it and accounts the header as framing there).
		d.stats.framingBytes += channelDataHeaderLen
	}
	// Head-of-line delay is the wait for earlier bytes only. At a sender vantage both ends
	// of it are estimates from the ACKs, whose own delay (a delayed ACK, queueing on the
	// way back) reads as a wait: there, a message waited only when a retransmission of
	// earlier bytes held it (a real TURN server counted 738 of 749 messages with no loss
	// on the connection, p50 4.8 ms).
	if hol := delivered - complete; hol > 0 && (!sender || msg.Hold == transport.HoldRetransmission) {
		d.stats.holMessages++
		d.hol.Record(float64(hol) / 1e6)
	}
	if rb := m.xBytes + m.lateBytes; rb > 0 && delivered-m.first > c.late {
		d.stats.uselessBytes += rb
	}
	if m.ext == nil && !m.byHead() {
		d.qBuf--
	}
	d.qh++
	d.qBytes -= m.end - m.start
	if c.emit != nil {
		c.emit(msg)
	}
	if m.byHead() {
		c.unexpand(m)
	}
}
