package tcpframe

import "github.com/callpcap/callpcap/wire"

// HeadLen is how many of an RTP message's first bytes Config.HeadsOnly keeps: ChannelData's
// header, RTP's fixed header, a header extension of up to 30 bytes of elements (WebRTC's
// usual ones take 8-20) and the two bytes after it.
const HeadLen = 64

// keepHead makes m, a message just taken whose payload is msg, hold only its head and last
// byte when HeadsOnly allows it (see Config.HeadsOnly), and reports whether it did. The
// payload is then no longer read from the store or the packet: m.ext is dropped.
func (d *dir) keepHead(m *pending, msg []byte) bool {
	if m.snapped || len(msg) == 0 || len(msg) > HeadLen && !rtpHeadFits(d.fr.kind, msg) {
		return false
	}
	copy(m.head[:], msg)
	m.last = msg[len(msg)-1]
	m.compact, m.ext = true, nil
	return true
}

// rtpHeadFits says whether msg, a message of framing kind, is RTP (not RTCP) whose header
// and the two bytes after it lie within its first HeadLen bytes.
func rtpHeadFits(kind Framing, msg []byte) bool {
	o := 0
	switch kind {
	case FramingTURN:
		if len(msg) < channelDataHeaderLen || wire.FirstByte(msg[0]) != wire.RangeChannelData {
			return false
		}
		o = channelDataHeaderLen
	case FramingRFC4571:
	default:
		return false
	}
	b := msg[o:min(len(msg), HeadLen)]
	if len(b) < wire.RTPFixedHeaderLen || wire.FirstByte(b[0]) != wire.RangeRTP || wire.IsRTCP(b) {
		return false
	}
	return o+wire.RTPHeaderLen(b)+2 <= min(len(msg), HeadLen)
}

// expand returns the payload of a message held as its head (pending.compact): its head,
// zeros, its last byte, laid out in the Conn's scratch, valid until unexpand.
func (c *Conn) expand(m *pending) []byte {
	n := int(m.payLen)
	if len(c.expanded) < n {
		c.expanded = make([]byte, max(n, 2*len(c.expanded)))
	}
	b := c.expanded[:n]
	copy(b, m.head[:])
	b[n-1] = m.last
	return b
}

// unexpand zeroes again what expand wrote for a payload of n bytes.
func (c *Conn) unexpand(n int) {
	b := c.expanded[:n]
	clear(b[:min(n, HeadLen)])
	b[n-1] = 0
}
