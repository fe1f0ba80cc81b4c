package tcpframe

import "github.com/callpcap/callpcap/wire"

// HeadLen bounds what Config.HeadsOnly keeps of an RTP message's first bytes: ChannelData's
// header, RTP's fixed header, a header extension of up to 30 bytes of elements (WebRTC's
// usual ones take 8-20) and the two bytes after it. A message of at most HeadLen bytes is
// kept whole.
const HeadLen = 64

// MaxHeadsOnly is the longest message HeadsOnly holds as its head: a Conn lays each one out
// whole to emit it (expand), in a scratch as long as the longest, and a connection's
// memory should not follow the lengths its frames claim. RTP over TCP carries a datagram:
// longer ones are held whole.
const MaxHeadsOnly = 2048

// headOf says how HeadsOnly holds a message of framing kind and n bytes, given head, at
// least its first min(n, HeadLen) bytes: by its first keep bytes, and by its last byte
// when last (the padding count of RTP with its P bit set; a message kept whole has its
// last byte among the first). ok is false when it is held whole as before: not RTP (or
// RTCP) of more than HeadLen bytes whose header and the two bytes after it lie within its
// first HeadLen, or longer than MaxHeadsOnly. The last byte is read only where RTP says
// it counts: the line it lies in is seldom one the analysis reads otherwise, and read for
// every message it was a cache miss each (25% slower on one TURN/TCP call).
func headOf(kind Framing, head []byte, n int) (keep int, last, ok bool) {
	if n <= HeadLen {
		return n, true, n > 0
	}
	if n > MaxHeadsOnly {
		return 0, false, false
	}
	o := 0
	switch kind {
	case FramingTURN:
		if len(head) < channelDataHeaderLen || wire.FirstByte(head[0]) != wire.RangeChannelData {
			return 0, false, false
		}
		o = channelDataHeaderLen
	case FramingRFC4571:
	default:
		return 0, false, false
	}
	b := head[o:min(len(head), HeadLen)]
	if len(b) < wire.RTPFixedHeaderLen || wire.FirstByte(b[0]) != wire.RangeRTP || wire.IsRTCP(b) {
		return 0, false, false
	}
	keep = o + wire.RTPHeaderLen(b) + 2
	return keep, b[0]&rtpPaddingBit != 0, keep <= HeadLen
}

// rtpPaddingBit is RTP's P bit, in its first byte (RFC 3550, 5.1).
const rtpPaddingBit = 0x20

// holdHead makes m hold its payload as head, its first bytes (at least one), and last, its
// last byte (zero when it does not count): no longer read from the store or the packet.
func (m *pending) holdHead(head []byte, last byte) {
	m.headN = uint8(copy(m.head[:], head))
	m.last = last
	m.ext = nil
}

// expand returns the payload of a message held as its head (pending.byHead): its head,
// zeros, its last byte, laid out in the Conn's scratch, valid until unexpand.
func (c *Conn) expand(m *pending) []byte {
	n := int(m.payLen)
	if len(c.expanded) < n {
		c.expanded = make([]byte, max(n, 2*len(c.expanded)))
	}
	b := c.expanded[:n]
	copy(b, m.head[:m.headN])
	b[n-1] = m.last
	return b
}

// unexpand zeroes again what expand wrote for m.
func (c *Conn) unexpand(m *pending) {
	b := c.expanded[:m.payLen]
	clear(b[:m.headN])
	b[len(b)-1] = 0
}

// headsAcross says whether the unframer may take the frame at framed by its head when it
// runs past the first run of in-order bytes (takeAcross): with HeadsOnly, in sync, in a
// framing whose frames' lengths their headers give (measure).
func (d *dir) headsAcross() bool {
	return d.c.headsOnly && d.fr.sync && (d.fr.kind == FramingRFC4571 || d.fr.kind == FramingTURN)
}

// across is what takeAcross did.
type across uint8

const (
	acrossTaken across = iota // the frame was taken
	acrossWait                // the frame is not all in order yet
	acrossNo                  // not a frame to take by its head: join the runs
)

// takeAcross takes the frame at framed, which runs past the first run of in-order bytes, as
// split would cut it from all of them, when HeadsOnly holds its message as its head: the
// head and last byte are read where they lie, and the runs are not joined into the buffer.
func (d *dir) takeAcross() across {
	st := &d.st
	var g [channelDataHeaderLen + HeadLen]byte // a frame header and the message's head
	n := st.gather(g[:])
	adv, off, payLen, ok := d.fr.measure(g[:n])
	switch {
	case !ok:
		return acrossNo
	case st.framed+int64(adv) > st.delivered:
		return acrossWait
	}
	head := g[off:min(n, off+payLen)] // the message's first min(payLen, HeadLen) bytes at least
	keep, withLast, ok := headOf(d.fr.kind, head, payLen)
	if !ok || st.snappedBefore(st.framed+int64(adv)) {
		return acrossNo
	}
	var last byte
	if withLast {
		last = st.byteAt(st.framed + int64(off+payLen-1)) // before taken drops the runs
	}
	d.carried(head)
	m := d.taken(int64(adv), int64(off), int64(payLen))
	m.holdHead(head[:keep], last)
	d.queued(m)
	return acrossTaken
}

// measure reads the frame at the start of b, the first in-order bytes of a direction in
// sync, as split cuts it from all of them: its length (adv), and its message's offset and
// length. It reads only the frame's header, and answers for RFC 4571 and TURN, unless the
// frame is a ChannelData message whose padding TURN has yet to decide (TURNSplitter), which
// split decides by the header after it: ok is false then, for the other framings, or when
// b does not start with a valid header.
func (f *framer) measure(b []byte) (adv, off, n int, ok bool) {
	switch f.kind {
	case FramingRFC4571:
		size, _, r := probeRFC4571(b)
		return size, rfc4571HeaderLen, size - rfc4571HeaderLen, r == probeValid
	case FramingTURN:
		size, alt, r := probeTURNInSync(b)
		adv, n = size, size
		if alt != 0 {
			n = alt
			switch f.turn.mode {
			case 0:
				return 0, 0, 0, false
			case -1:
				adv = alt
			}
		}
		return adv, 0, n, r == probeValid
	}
	return 0, 0, 0, false
}
