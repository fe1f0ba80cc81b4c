package tcpframe

import "github.com/callpcap/callpcap/wire"

// Resynchronising TURN over TCP after a capture gap. The bytes after the hole are in order
// once it is given up, and the next frame boundary lies among them, usually within one
// message of the hole's end; the bytes before it are the tail of a message cut by the gap:
// media payload, random-looking bytes under SRTP. Any byte 0x40-0x4F reads as a ChannelData
// header (one in 16 random bytes), its length as any size up to 64 KiB, and the frame after
// it is checked by the same one-byte test: a false header is confirmed about one time in 16,
// and each one read before the true boundary is another try. Cut into segments at arbitrary
// places (a sender coalescing writes), a gap is nearly always followed by such a tail, and
// the unframer would take a false frame of tens of kilobytes over the real messages behind
// it, then another, until chance brought it back in step; each candidate with a large
// length also waited for its successor, up to 64 KiB later.
//
// A protocol engineer reads the channel number instead: a TURN connection carries
// ChannelData on the few channels bound on its allocation (RFC 8656 12), the same numbers
// both ways. So once the connection has carried ChannelData in step, resynchronisation
// accepts a ChannelData header only on one of those channels (or a STUN message, magic
// cookie and all), and the frame after it must be one too: a false header then needs two
// random 16-bit matches. Detection, with no channel known yet, keeps the weaker rule
// (probeTURN). A channel bound while the capture was blind is seen again once the
// unframer is back in step on a known one; its frames before that are skipped.

// maxKnown is how many channel numbers (per connection) or SSRCs (per direction) are
// remembered: a TURN client rarely talks to more than a few peers over one allocation, and
// an ICE-TCP connection carries a few streams each way (audio, video, their RTX, simulcast
// layers); beyond it, the oldest is forgotten.
const maxKnown = 16

// known is a set of the numbers carried in step (channels or SSRCs), the latest first.
type known[T uint16 | uint32] struct {
	n    int
	next int // where the next new number goes once the set is full
	v    [maxKnown]T
}

// add records x; the usual case, the number of the previous message, costs one comparison.
func (s *known[T]) add(x T) {
	if s.n > 0 && s.v[0] == x {
		return
	}
	for i := 1; i < s.n; i++ {
		if s.v[i] == x {
			s.v[0], s.v[i] = s.v[i], s.v[0] // the latest first
			return
		}
	}
	if s.n < maxKnown {
		s.v[s.n] = x
		s.v[0], s.v[s.n] = s.v[s.n], s.v[0]
		s.n++
		return
	}
	// Full: replace one of the others in turn, keeping the latest first.
	i := 1 + s.next%(maxKnown-1)
	s.next++
	s.v[i] = s.v[0]
	s.v[0] = x
}

func (s *known[T]) has(x T) bool {
	for i := range s.n {
		if s.v[i] == x {
			return true
		}
	}
	return false
}

// probeTURNKnown is the probe that resynchronises a TURN direction of c: probeTURN until
// the connection carried ChannelData in step, then a ChannelData header only on a channel
// it carried.
func (c *Conn) probeTURNKnown(b []byte) (size, alt int, r probeResult) {
	if c.chans.n == 0 || len(b) < 1 || !wire.IsAnyChannelByte(b[0]) {
		return probeTURN(b)
	}
	if len(b) < channelDataHeaderLen {
		return 0, 0, probeNeedMore
	}
	if !c.chans.has(uint16(be16(b))) {
		return 0, 0, probeInvalid
	}
	return probeTURNInSync(b)
}

// Resynchronising RFC 4571 (ICE-TCP) after a capture gap has the same weakness: a header
// is a 16-bit length and a first byte of the classes ICE-TCP carries, and one random byte in
// four is in RTP's range. Its rule is the SSRC: once a direction carried RTP or RTCP in step,
// an RTP header counts only with an SSRC the direction carried, an RTCP header only with a
// sender SSRC it carried (an endpoint reports from its own SSRCs), and so must the frame
// after it. Unlike channels, SSRCs are a direction's own: the other one sends others. STUN
// (the magic cookie) and DTLS (its version) stay as they are.

// probeRFC4571Known is the probe that resynchronises direction d in RFC 4571 framing.
func (d *dir) probeRFC4571Known(b []byte) (size, alt int, r probeResult) {
	size, alt, r = probeRFC4571(b)
	if r != probeValid || d.ssrcs.n == 0 {
		return size, alt, r
	}
	switch c := b[rfc4571HeaderLen]; {
	case wire.IsDTLSUnified(c):
		return 0, 0, probeInvalid // random bytes make one as often as a header
	case wire.FirstByte(c) != wire.RangeRTP:
		return size, alt, r
	}
	ssrc, ok := carriedSSRC(b[rfc4571HeaderLen:])
	switch {
	case !ok:
		return 0, 0, probeNeedMore
	case !d.ssrcs.has(ssrc):
		return 0, 0, probeInvalid
	}
	return size, alt, r
}

// carriedSSRC returns the SSRC that identifies the RTP or RTCP packet starting b: an RTP
// packet's own, an RTCP packet's sender's; false when b is too short to hold it.
func carriedSSRC(b []byte) (uint32, bool) {
	at := 8 // RTP: after V/P/X/CC, M/PT, sequence number and timestamp
	if wire.IsRTCP(b) {
		at = 4 // RTCP: after V/P/count, PT and length
	}
	if len(b) < at+4 {
		return 0, false
	}
	return be32(b[at:]), true
}

// resyncProbe returns the probe that resynchronises direction d's framing.
func (d *dir) resyncProbe() probeFunc {
	c := d.c
	switch d.fr.kind {
	case FramingTURN:
		if c.turnResync == nil {
			c.turnResync = c.probeTURNKnown // a method value allocates: once per connection
		}
		return c.turnResync
	case FramingRFC4571:
		if d.rfc4571Resync == nil {
			d.rfc4571Resync = d.probeRFC4571Known
		}
		return d.rfc4571Resync
	}
	return probeOf(d.fr.kind)
}

// carried records the channel of a TURN message, or the SSRC of an RTP or RTCP packet in
// RFC 4571 framing, cut in step.
func (d *dir) carried(msg []byte) {
	switch d.fr.kind {
	case FramingTURN:
		if len(msg) >= channelDataHeaderLen && wire.IsAnyChannelByte(msg[0]) {
			d.c.chans.add(uint16(be16(msg)))
		}
	case FramingRFC4571:
		if len(msg) > 0 && wire.FirstByte(msg[0]) == wire.RangeRTP {
			if ssrc, ok := carriedSSRC(msg); ok {
				d.ssrcs.add(ssrc)
			}
		}
	}
}
