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

// maxChannels is how many channel numbers a connection remembers: a TURN client rarely
// talks to more than a few peers over one allocation; beyond it, the oldest is forgotten.
const maxChannels = 8

// channels is the set of channel numbers a connection carried in step, both directions.
type channels struct {
	n    int
	next int // where the next new number goes once the set is full
	ch   [maxChannels]uint16
}

// add records channel n; the usual case, the channel of the previous message, costs one
// comparison.
func (s *channels) add(n uint16) {
	if s.n > 0 && s.ch[0] == n {
		return
	}
	for i := 1; i < s.n; i++ {
		if s.ch[i] == n {
			s.ch[0], s.ch[i] = s.ch[i], s.ch[0] // the latest first
			return
		}
	}
	if s.n < maxChannels {
		s.ch[s.n] = n
		s.ch[0], s.ch[s.n] = s.ch[s.n], s.ch[0]
		s.n++
		return
	}
	// Full: replace one of the others in turn, keeping the latest first.
	i := 1 + s.next%(maxChannels-1)
	s.next++
	s.ch[i] = s.ch[0]
	s.ch[0] = n
}

func (s *channels) has(n uint16) bool {
	for i := range s.n {
		if s.ch[i] == n {
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

// resyncProbe returns the probe that resynchronises direction d's framing.
func (d *dir) resyncProbe() probeFunc {
	if d.fr.kind != FramingTURN {
		return probeOf(d.fr.kind)
	}
	if d.c.turnResync == nil {
		d.c.turnResync = d.c.probeTURNKnown // a method value allocates: once per connection
	}
	return d.c.turnResync
}

// carried records the channel of a TURN message cut in step.
func (d *dir) carried(msg []byte) {
	if d.fr.kind == FramingTURN && len(msg) >= channelDataHeaderLen && wire.IsAnyChannelByte(msg[0]) {
		d.c.chans.add(uint16(be16(msg)))
	}
}
