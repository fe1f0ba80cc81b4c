package tcpframe

import (
	"net/netip"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/quantile"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// dir is one direction of a connection. Stream offsets are int64, 0 being the first data
// byte (the byte after the SYN, or the first sequence number seen when the capture started
// mid-connection); sequence numbers are unwrapped against the highest offset seen.
//
// The stream is cut by four offsets, in order:
//
//	released <= framed <= delivered <= highest
//
// [released, framed) is unframed into messages held back (queue); [framed, delivered) is in
// order and waits for the rest of a frame; [delivered, highest) has holes. Only
// [released, highest) is buffered, at most window bytes.
type dir struct {
	c        *Conn
	idx      int
	src, dst netip.AddrPort
	iface    int

	init, synSeen bool
	base          uint32 // sequence number of offset 0
	finSeen       bool
	finOff        int64
	ended         bool
	win           uint16 // last window this side advertised
	winSeen       bool

	framed, delivered, highest int64
	lastDlv                    int64

	ackSeen bool
	ackHigh int64 // the peer's highest cumulative ACK of this direction

	cs     chunks
	buf    []byte
	bufOff int64
	q      []pending
	qh     int
	qBytes int64
	fr     framer

	farNext int64
	farRun  int

	borrowed int // messages queued since the last detach whose payload is in their packet
	qBuf     int // messages held back whose payload is in buf (ext nil)

	acks ackRing
	sent sentRing
	retx retxRing
	rtt  quantile.Hist
	hol  quantile.Hist
	vc   struct {
		n, r int64
		v    Vantage
	}

	st   stats
	rest Rest
}

type stats struct {
	segments, dataSegments, pureAcks, wireBytes, payloadBytes, streamBytes      int64
	retxSegments, retxBytes, spuriousBytes, uselessBytes, gapBytes, oooSegments int64
	zeroWindowProbes, keepalives, messages, framingBytes, resyncSkipped, other  int64
	holMessages                                                                 int64
}

// pending is a message unframed and held back until its delivery can be dated.
type pending struct {
	start, end   int64 // stream range, framing included
	pay, payLen  int64
	first        int64 // first-seen time of the first byte
	complete     int64 // latest first-seen time of any byte
	lastCopy     int64 // latest time any byte was seen
	dlv          int64 // time the last byte was delivered at the vantage
	hdr          int64
	xBytes, xHdr int64
	lateBytes    int64
	snapped      bool
	// ext is the payload in the packet it came in, when the segment was unframed without
	// copying it into the buffer (Config.BorrowPayload); Conn.Detach copies it in.
	ext []byte
}

func (d *dir) peer() *dir { return &d.c.dirs[1-d.idx] }

// rel unwraps a sequence number into a stream offset near the highest offset seen.
func (d *dir) rel(seq uint32) int64 {
	return d.highest + int64(int32(seq-(d.base+uint32(d.highest))))
}

func (d *dir) released() int64 {
	if d.qh < len(d.q) {
		return d.q[d.qh].start
	}
	return d.framed
}

// bytes returns the buffered stream bytes [x, y).
func (d *dir) bytes(x, y int64) []byte { return d.buf[x-d.bufOff : y-d.bufOff] }

func (d *dir) segment(p *capture.Packet) {
	h := &p.TCP
	t := p.Time
	pl := int64(max(p.PayloadLen, 0))
	w := max(int64(p.WireLen), pl)
	syn := h.Flags&capture.FlagSYN != 0
	fin := h.Flags&capture.FlagFIN != 0
	rst := h.Flags&capture.FlagRST != 0
	d.st.segments++
	d.st.wireBytes += w
	d.iface = p.Iface
	peer := d.peer()

	if syn && (!d.init || d.highest == 0 && d.cs.n() == 0 && d.framed == 0) {
		d.init, d.synSeen, d.base = true, true, h.Seq+1
	}
	if !d.init {
		d.init, d.base = true, h.Seq
	}
	d.c.handshake(d, p)
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
		case !syn && !fin && !rst && (off == d.highest-1 || d.ackSeen && off == d.ackHigh-1):
			// Keep-alive (RFC 9293 3.8.4) or, towards a zero window, a probe.
			d.probe(peerZeroWin)
			d.rest.Control += w
		case syn || fin || rst:
			d.rest.Control += w
		default:
			d.st.pureAcks++
			d.rest.ACKs += w
		}
	case pl == 1 && !syn && !fin && off == d.highest-1:
		// Keep-alive with one garbage byte (the byte below the next expected one).
		d.probe(peerZeroWin)
		d.st.payloadBytes += pl
		d.rest.Control += w
	default:
		if peerZeroWin && pl == 1 && off == d.highest {
			d.st.zeroWindowProbes++ // a probe with one byte of new data: kept as data
		}
		d.st.dataSegments++
		d.st.payloadBytes += pl
		payload := p.Payload
		if int64(len(payload)) > pl {
			payload = payload[:pl]
		}
		d.data(off, pl, w-pl, payload, t)
	}
	if fin && !d.finSeen {
		d.finSeen, d.finOff = true, off+pl
	}
	d.advance(t)
	if rst {
		d.end()
	}
}

func (d *dir) probe(zeroWin bool) {
	if zeroWin {
		d.st.zeroWindowProbes++
	} else {
		d.st.keepalives++
	}
}

// data handles the payload [s, s+P) of a segment with H header bytes.
func (d *dir) data(s, P, H int64, payload []byte, t int64) {
	e := s + P
	if d.ended || d.finSeen && s >= d.finOff {
		d.rest.Unframed += P + H
		return
	}
	if d.c.borrow && d.inOrder(s, P, H, payload, t) {
		return
	}
	// A segment wholly beyond the window: bogus, or the capture lost more than a window.
	if s >= d.released()+d.c.window {
		if s == d.farNext {
			d.farRun++
		} else {
			d.farRun = 1
		}
		d.farNext = e
		if d.farRun < farRunJump {
			d.rest.Unframed += P + H
			return
		}
		d.jump(s)
	}
	d.farRun = 0
	d.makeRoom(e)
	limit := d.released() + d.c.window
	if d.finSeen {
		limit = min(limit, d.finOff)
	}

	var seen int64 // bytes seen before
	lo := s
	if lo < d.framed {
		y := min(e, d.framed)
		d.oldCopy(lo, y, s, P, H, t)
		seen += y - lo
		lo = y
	}
	hi := max(min(e, limit), lo)

	// A segment that fills a hole is a retransmission when it comes more than one minimum
	// RTT after the first byte beyond the hole was seen, else it is out of order.
	var holeNew int64
	late := false
	if lo < hi && lo < d.highest {
		var firstNew int64
		holeNew, firstNew = d.uncovered(lo, min(hi, d.highest))
		if holeNew > 0 {
			late = t-d.earliestBeyond(firstNew) > d.c.minRTT()
		}
	}
	prevHighest := d.highest
	if lo < hi {
		seen += d.insert(lo, hi, s, P, H, payload, t, late)
	}
	if hi < e {
		d.rest.Unframed += e - hi + share(H, P, s, hi, e)
	}

	retx := seen > 0 || holeNew > 0 && late
	switch {
	case retx:
		d.st.retxSegments++
		d.st.retxBytes += seen
		if late {
			d.st.retxBytes += holeNew
		}
		var spurious int64
		if d.ackSeen && seen > 0 {
			spurious = min(seen, max(0, min(e, d.ackHigh)-s))
		}
		d.st.spuriousBytes += spurious
		// Karn: the ACKs of every segment beyond were held by the loss too.
		d.sent.markRetx(s, 1<<62)
		d.retx.push(s, e, spurious > 0)
	case holeNew > 0:
		d.st.oooSegments++
	}
	if e > prevHighest {
		d.sent.push(s, e, t, retx)
	}

	d.advanceDelivered(t, false)
	if d.cs.n() > d.maxChunks() && !d.cs.mergeContiguous() && d.delivered < d.highest {
		d.skipHole(d.highest)
	}
	// A hole with more than a bounded amount of later data piled up behind it is a capture
	// gap: TCP would have repaired it by now.
	for d.highest-d.delivered > d.c.window/2 && d.delivered < d.highest {
		d.skipHole(d.highest)
	}
}

func (d *dir) maxChunks() int { return int(max(1024, d.c.window/256)) }

// oldCopy accounts for a copy of bytes [x, y) below framed: they belong to a message held
// back, or were already handed out or skipped.
func (d *dir) oldCopy(x, y, s, P, H, t int64) {
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
			m.xHdr += share(H, P, s, pos, ye)
			m.lastCopy = max(m.lastCopy, t)
			pos = ye
			i++
			continue
		}
		ye := y
		if i < len(q) {
			ye = min(y, q[i].start)
		}
		d.rest.Retransmitted += ye - pos + share(H, P, s, pos, ye)
		pos = ye
	}
}

// uncovered returns how many bytes of [x, y) are not present, and the first of them.
func (d *dir) uncovered(x, y int64) (n, first int64) {
	l := d.cs.live()
	first = -1
	pos := x
	for i := d.cs.search(x); pos < y; i++ {
		next := y
		if i < len(l) && l[i].start < y {
			next = max(l[i].start, pos)
		}
		if next > pos {
			if first < 0 {
				first = pos
			}
			n += next - pos
		}
		if i >= len(l) || l[i].start >= y {
			break
		}
		pos = max(pos, l[i].end)
	}
	return n, first
}

// earliestBeyond returns the earliest first-seen time of the bytes beyond off.
func (d *dir) earliestBeyond(off int64) int64 {
	l := d.cs.live()
	t := int64(1<<63 - 1)
	for i := d.cs.search(off); i < len(l); i++ {
		t = min(t, l[i].first)
	}
	return t
}

// insert stores the bytes [lo, hi) of a segment starting at s, within the window and at or
// beyond framed, and returns how many were present already.
func (d *dir) insert(lo, hi, s, P, H int64, payload []byte, t int64, late bool) (seen int64) {
	d.ensureBuf(hi)
	i := d.cs.n() // no chunk ends beyond highest: an in-order segment needs no search
	if lo < d.highest {
		i = d.cs.search(lo)
	}
	pos := lo
	for pos < hi {
		l := d.cs.live()
		if i < len(l) && l[i].start <= pos {
			if l[i].start < pos {
				d.cs.splitAt(pos)
				i++
			}
			if d.cs.live()[i].end > hi {
				d.cs.splitAt(hi)
			}
			ch := &d.cs.live()[i]
			ch.xBytes += ch.end - ch.start
			ch.xHdr += share(H, P, s, ch.start, ch.end)
			ch.lastCopy = t
			seen += ch.end - ch.start
			pos = ch.end
			i++
			continue
		}
		nx := hi
		if i < len(l) && l[i].start < nx {
			nx = l[i].start
		}
		if late && pos < d.highest && nx > d.highest {
			nx = d.highest // only the bytes of the hole are late
		}
		ch := chunk{start: pos, end: nx, first: t, last: t, lastCopy: t, segStart: s, segP: P, segH: H}
		if late && pos < d.highest {
			ch.lateBytes = nx - pos
		}
		dst := d.bytes(pos, nx)
		a, b := pos-s, nx-s
		avail := int64(len(payload))
		if a < avail {
			copy(dst, payload[a:min(b, avail)])
		}
		if b > avail {
			clear(dst[max(avail-a, 0):])
			ch.snapped = true
		}
		d.cs.insert(i, ch)
		d.st.streamBytes += nx - pos
		pos = nx
		i++
	}
	d.highest = max(d.highest, hi)
	return seen
}

// ensureBuf makes the buffer hold [released, hi).
func (d *dir) ensureBuf(hi int64) {
	if hi-d.bufOff <= int64(len(d.buf)) {
		return
	}
	// Only chunks and the messages held back in buf hold bytes that matter: without them
	// (in-order segments unframed from their packets) there is nothing to move.
	live := d.cs.n() > 0 || d.qBuf > 0
	rel := d.released()
	if rel > d.bufOff {
		if live && d.highest > rel {
			copy(d.buf, d.buf[rel-d.bufOff:d.highest-d.bufOff])
		}
		d.bufOff = rel
	}
	if need := hi - d.bufOff; need > int64(len(d.buf)) {
		n := max(int64(2*len(d.buf)), need, 4096)
		n = min(n, d.c.window)
		nb := make([]byte, n)
		if live && d.highest > d.bufOff {
			copy(nb, d.buf[:d.highest-d.bufOff])
		}
		d.buf = nb
	}
}

// makeRoom makes [released, e) fit in the window: it hands out held-back messages, then
// skips holes (capture gaps) so that what is behind them can be unframed.
func (d *dir) makeRoom(e int64) {
	for e-d.released() > d.c.window {
		switch {
		case d.qh < len(d.q):
			d.emitHead()
		case d.delivered < d.highest:
			d.skipHole(d.highest)
		default:
			return
		}
	}
}

// advanceDelivered moves the in-order frontier over present bytes. Bytes delivered because a
// capture gap was skipped are dated by their own arrival (the receiver had the missing
// bytes; the capture did not).
func (d *dir) advanceDelivered(t int64, own bool) {
	l := d.cs.live()
	for i := d.cs.search(d.delivered); i < len(l) && l[i].start == d.delivered; i++ {
		if l[i].dlv == 0 {
			dt := t
			if own {
				dt = l[i].last
			}
			l[i].dlv = max(dt, d.lastDlv)
			d.lastDlv = l[i].dlv
		}
		d.delivered = l[i].end
	}
}

// skipHole skips the hole at delivered as a capture gap, up to the next present byte or to
// (an ACK that passed part of the hole).
func (d *dir) skipHole(to int64) {
	l := d.cs.live()
	i := d.cs.search(d.delivered)
	next := d.highest
	if i < len(l) {
		next = l[i].start
	}
	to = min(to, next)
	if to <= d.delivered {
		return
	}
	d.gap()
	d.st.gapBytes += to - d.delivered
	d.framed, d.delivered = to, to
	d.advanceDelivered(0, true)
	d.frame(false)
}

// skipHolesTo skips every hole below up.
func (d *dir) skipHolesTo(up int64) {
	for d.delivered < min(up, d.highest) {
		before := d.delivered
		d.skipHole(up)
		if d.delivered == before {
			return
		}
	}
}

// gap ends the in-order bytes before a capture gap: the unframer finishes what it can, the
// rest of a frame cut by the gap is skipped, and the unframer resynchronises after it.
func (d *dir) gap() {
	if d.fr.kind != FramingNone {
		d.frame(true)
	}
	if d.delivered > d.framed {
		d.discard(d.delivered-d.framed, d.fr.kind == FramingUnknown)
	}
	d.fr.sync = false
}

// jump moves the stream to s after the capture lost more than a window.
func (d *dir) jump(s int64) {
	d.skipHolesTo(d.highest)
	d.gap()
	for d.qh < len(d.q) {
		d.emitHead()
	}
	if s > d.highest {
		d.st.gapBytes += s - d.highest
	}
	for d.cs.n() > 0 { // defensive: nothing is pending after skipping every hole
		d.cs.pop()
	}
	d.framed, d.delivered, d.highest = s, s, s
	d.bufOff = s
}

// advance unframes what became in order and ends the direction after its FIN.
func (d *dir) advance(t int64) {
	d.frame(false)
	if d.finSeen && !d.ended && d.delivered >= d.finOff {
		d.frame(true)
		d.ended = true
	}
}

// end ends the direction (RST): what cannot come any more is given up.
func (d *dir) end() {
	if d.ended {
		return
	}
	d.skipHolesTo(d.highest)
	d.frame(true)
	d.ended = true
	d.emitReady(true)
}

// close gives up what cannot come any more; Conn.Close then emits what is held back.
func (d *dir) close() {
	d.skipHolesTo(d.highest)
	d.frame(true)
}

// onAck handles the peer's acknowledgment of this direction's data.
func (d *dir) onAck(h *capture.TCPHeader, t int64) {
	if !d.init {
		return
	}
	a := d.rel(h.Ack)
	if a-d.highest > d.c.window || a < d.released()-d.c.window {
		return // not plausibly an acknowledgment of this stream
	}
	if !d.ackSeen || a > d.ackHigh {
		d.ackSeen, d.ackHigh = true, a
		d.acks.push(a, t)
		if smp, ok := d.sent.ack(a, t); ok {
			d.rtt.Record(float64(smp) / 1e6)
		}
	}
	// The receiver has bytes the capture never saw: a capture gap.
	if up := min(a, d.highest); up > d.delivered {
		d.skipHolesTo(up)
	}
	// D-SACK (RFC 2883 4): the first block reports a duplicate when it lies below the
	// cumulative ACK or inside the second block.
	if h.NSACK > 0 {
		l, r := d.rel(h.SACK[0].Left), d.rel(h.SACK[0].Right)
		dup := r <= a
		if h.NSACK > 1 {
			l1, r1 := d.rel(h.SACK[1].Left), d.rel(h.SACK[1].Right)
			dup = dup || l >= l1 && r <= r1
		}
		if r > l && dup {
			d.st.spuriousBytes += d.retx.dsack(l, r)
		}
	}
}

// frame runs the unframer over the in-order bytes.
func (d *dir) frame(atEOF bool) {
	for d.framed < d.delivered {
		data := d.bytes(d.framed, d.delivered)
		switch d.fr.kind {
		case FramingNone:
			exactOK := d.synSeen && d.framed == 0
			if pk := d.peer().fr.kind; pk != FramingNone && pk != FramingUnknown {
				d.fr.kind, d.fr.sync = pk, exactOK
				continue
			}
			k, skip, ok := Detect(data, atEOF, exactOK)
			if !ok {
				return
			}
			d.fr.kind, d.fr.sync = k, k != FramingUnknown
			if skip > 0 {
				d.discard(int64(skip), false)
			}
			continue
		case FramingUnknown:
			d.discard(int64(len(data)), true)
			continue
		}
		resynced := false
		if !d.fr.sync {
			skip, found := resync(probeOf(d.fr.kind), data, atEOF, false)
			if skip > 0 {
				d.discard(int64(skip), false)
				continue
			}
			if !found {
				return
			}
			d.fr.sync, resynced = true, true
		}
		adv, msg, err := d.fr.split(data, atEOF)
		switch {
		case err != nil:
			d.fr.sync = false
			if resynced { // cannot happen with a split that agrees with its probe; never loop
				d.discard(1, false)
			}
		case adv == 0:
			return
		case msg == nil:
			d.discard(int64(adv), false)
		default:
			off := int64(cap(data) - cap(msg))
			d.take(int64(adv), d.framed+off, int64(len(msg)))
		}
	}
}

// discard drops n in-order bytes that no message carries.
func (d *dir) discard(n int64, other bool) {
	y := d.framed + n
	d.cs.splitAt(y)
	for d.cs.n() > 0 && d.cs.live()[0].start < y {
		ch := &d.cs.live()[0]
		d.rest.Unframed += ch.end - ch.start + ch.hdr() + ch.xBytes + ch.xHdr
		d.cs.pop()
	}
	if other {
		d.st.other += n
	} else {
		d.st.resyncSkipped += n
	}
	d.framed = y
}

// take turns the in-order bytes [framed, framed+adv) into a held-back message.
func (d *dir) take(adv, pay, payLen int64) {
	y := d.framed + adv
	d.cs.splitAt(y)
	m := pending{start: d.framed, end: y, pay: pay, payLen: payLen}
	for i := 0; d.cs.n() > 0 && d.cs.live()[0].start < y; i++ {
		ch := &d.cs.live()[0]
		if i == 0 {
			m.first = ch.first
		}
		m.complete = max(m.complete, ch.last)
		m.lastCopy = max(m.lastCopy, ch.lastCopy)
		m.dlv = max(m.dlv, ch.dlv)
		m.hdr += ch.hdr()
		m.xBytes += ch.xBytes
		m.xHdr += ch.xHdr
		m.lateBytes += ch.lateBytes
		m.snapped = m.snapped || ch.snapped
		d.cs.pop()
	}
	d.framed = y
	d.queue(m)
}

// queue holds back the message m, which ends at framed.
func (d *dir) queue(m pending) {
	if d.qh > 0 && d.qh == len(d.q) {
		d.q, d.qh = d.q[:0], 0
	} else if d.qh > 256 && d.qh > len(d.q)/2 {
		n := copy(d.q, d.q[d.qh:])
		d.q, d.qh = d.q[:n], 0
	}
	d.q = append(d.q, m)
	d.qBytes += m.end - m.start
	if m.ext == nil {
		d.qBuf++
	}
	if len(d.q)-d.qh > maxQueued {
		d.emitHead()
	}
}

// vantage classifies the median delay from a data segment to the ACK covering it against
// the connection RTT. It is recomputed as samples come, then every 16 samples.
func (d *dir) vantage() Vantage {
	n, r := d.rtt.N(), d.c.rtt()
	if n < minVantageSamples || r <= 0 {
		return VantageUnknown
	}
	if r == d.vc.r && (n == d.vc.n || n > 32 && n-d.vc.n < 16) {
		return d.vc.v
	}
	ratio := d.rtt.Quantile(50) * 1e6 / float64(r)
	v := VantageMiddle
	switch {
	case ratio < 0.2:
		v = VantageReceiver
	case ratio > 0.8:
		v = VantageSender
	}
	d.vc.n, d.vc.r, d.vc.v = n, r, v
	return v
}

// emitReady emits the held-back messages whose delivery can be dated (all of them if force)
// and reports whether it emitted any. At a sender vantage a message waits for the first ACK
// covering its last byte; while the vantage is unknown it waits for it to be known; and it
// waits while the other direction holds back a message first seen before it, so that the
// two directions come out in the order the capture saw them (a TURN ChannelBind request
// before its response, before the ChannelData it enables). Never longer than maxHold, nor
// beyond half the window.
func (d *dir) emitReady(force bool) bool {
	emitted := false
	if d.qh == len(d.q) {
		return false
	}
	o := &d.c.dirs[1-d.idx]
	v := d.vantage() // emitting changes none of what it depends on
	for d.qh < len(d.q) {
		if !force {
			m := &d.q[d.qh]
			wait := o.qh < len(o.q) && o.q[o.qh].first < m.first
			switch v {
			case VantageSender:
				// The ring's newest entry is ackHigh: some remembered ACK covers m exactly
				// when ackHigh does, and which one is looked up only once, by emitHead.
				wait = wait || !d.ackSeen || d.ackHigh < m.end
			case VantageUnknown:
				wait = true
			}
			if wait && d.c.now-m.complete <= maxHold && d.qBytes <= d.c.window/2 {
				return emitted
			}
		}
		d.emitHead()
		emitted = true
	}
	return emitted
}

// emitHead emits the oldest held-back message.
func (d *dir) emitHead() {
	c := d.c
	m := &d.q[d.qh]
	complete, delivered := m.complete, m.dlv
	if d.vantage() == VantageSender {
		// The receiver's delivery: the first ACK covering the last byte less half the minimum
		// RTT; its completion: the last copy sent plus half the minimum RTT. A message whose
		// ACK the capture never shows (its end, or a hold cut short) is dated on the same
		// clock, half an RTT after the sender had it all: mixing in sender-side times would
		// move the stream's delay baseline by half an RTT.
		half := c.rtt() / 2
		complete = m.lastCopy + half
		if at, ok := d.acks.firstCovering(m.end); ok {
			delivered = max(at-half, complete)
		} else {
			delivered = max(m.dlv+half, complete)
		}
	}
	delivered = max(delivered, complete)
	framing := m.end - m.start - m.payLen
	retr := m.xBytes + m.xHdr
	msg := &c.msg
	*msg = transport.Message{
		Payload:   m.payload(d),
		Proto:     transport.TCP,
		Src:       d.src,
		Dst:       d.dst,
		Iface:     d.iface,
		FirstSeen: m.first,
		Complete:  complete,
		Delivered: delivered,
		Wire: transport.Wire{
			Total:         m.hdr + framing + retr + m.payLen,
			Headers:       m.hdr,
			Framing:       framing,
			Retransmitted: retr,
		},
		Retransmitted: m.xBytes > 0 || m.lateBytes > 0,
		Snapped:       m.snapped,
	}
	d.st.messages++
	d.st.framingBytes += framing
	if d.fr.kind == FramingTURN && len(msg.Payload) >= channelDataHeaderLen &&
		msg.Payload[0] >= channelMin && msg.Payload[0] <= channelMax {
		// The report's framing_bytes counts ChannelData headers too; the message carries its
		// header (the demux unwraps it and accounts the header as framing there).
		d.st.framingBytes += channelDataHeaderLen
	}
	if hol := delivered - complete; hol > 0 {
		d.st.holMessages++
		d.hol.Record(float64(hol) / 1e6)
	}
	if rb := m.xBytes + m.lateBytes; rb > 0 && delivered-m.first > c.late {
		d.st.uselessBytes += rb
	}
	if m.ext == nil {
		d.qBuf--
	}
	d.qh++
	d.qBytes -= m.end - m.start
	if c.emit != nil {
		c.emit(msg)
	}
}

func (d *dir) summary() report.TCPDir {
	s := &d.st
	return report.TCPDir{
		Vantage:                    d.vantage().String(),
		Segments:                   s.segments,
		DataSegments:               s.dataSegments,
		PureAcks:                   s.pureAcks,
		WireBytes:                  s.wireBytes,
		PayloadBytes:               s.payloadBytes,
		StreamBytes:                s.streamBytes,
		RetransmittedSegments:      s.retxSegments,
		RetransmittedBytes:         s.retxBytes,
		SpuriousRetransmittedBytes: s.spuriousBytes,
		UselessRetransmittedBytes:  s.uselessBytes,
		CaptureGapBytes:            s.gapBytes,
		OutOfOrderSegments:         s.oooSegments,
		ZeroWindowProbes:           s.zeroWindowProbes,
		Keepalives:                 s.keepalives,
		RTTMS:                      d.rtt.Summary(),
		Messages:                   s.messages,
		FramingBytes:               s.framingBytes,
		ResyncSkippedBytes:         s.resyncSkipped,
		HOLDelayedMessages:         s.holMessages,
		HOLDelayMS:                 d.hol.Summary(),
	}
}

// payload returns the message's payload bytes.
func (m *pending) payload(d *dir) []byte {
	if m.ext != nil {
		return m.ext
	}
	return d.bytes(m.pay, m.pay+m.payLen)
}

// inOrder handles a whole segment [s, s+P) that starts where the in-order bytes end, with
// nothing buffered beyond them and the framing in sync, the common case, and reports whether
// it did. It does what insert, advanceDelivered and frame would, with the same figures, but
// takes the messages whole within the segment straight from the packet (pending.ext) instead
// of copying them into the buffer; only the rest of a frame the segment leaves unfinished is
// copied. Conn.Detach copies the messages still held back before the packet goes.
func (d *dir) inOrder(s, P, H int64, payload []byte, t int64) bool {
	e := s + P
	if s != d.highest || s != d.delivered || s != d.framed || d.cs.n() != 0 || int64(len(payload)) != P ||
		d.finSeen || e-d.released() > d.c.window ||
		d.fr.kind == FramingNone || d.fr.kind == FramingUnknown || !d.fr.sync {
		return false
	}
	d.farRun = 0
	d.ensureBuf(e) // where insert would: the buffer's layout stays the same
	d.st.streamBytes += P
	d.highest = e
	d.sent.push(s, e, t, false)
	dlv := max(t, d.lastDlv)
	d.lastDlv, d.delivered = dlv, e
	for d.framed < e {
		data := payload[d.framed-s:]
		adv, msg, err := d.fr.split(data, false)
		if err != nil || adv == 0 || msg == nil {
			break // frame, run by advance, takes it from here over the same bytes
		}
		off := int64(cap(data) - cap(msg))
		y := d.framed + int64(adv)
		m := pending{start: d.framed, end: y, pay: d.framed + off, payLen: int64(len(msg)),
			first: t, complete: t, lastCopy: t, dlv: dlv, hdr: share(H, P, s, d.framed, y),
			ext: msg[:len(msg):len(msg)]}
		d.framed = y
		d.borrowed++
		d.queue(m)
	}
	if d.framed < e {
		copy(d.bytes(d.framed, e), payload[d.framed-s:])
		d.cs.insert(0, chunk{start: d.framed, end: e, first: t, last: t, lastCopy: t, dlv: dlv,
			segStart: s, segP: P, segH: H})
	}
	return true
}

// detach copies the payloads of the messages held back that still point into their packets.
func (d *dir) detach() {
	if d.borrowed == 0 {
		return
	}
	for i := d.qh; i < len(d.q); i++ {
		if m := &d.q[i]; m.ext != nil {
			copy(d.bytes(m.pay, m.pay+m.payLen), m.ext)
			m.ext = nil
		}
	}
	d.borrowed = 0
	d.qBuf = len(d.q) - d.qh
}
