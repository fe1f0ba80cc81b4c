package rtpflow

import "math/bits"

// maxStep is the largest sequence step between consecutive packets that still counts as
// continuing (a burst of up to maxStep−1 losses, or reordering within it).
const maxStep = 100

// continuity measures the steps between a candidate stream's consecutive packets, in
// arrival order, for the stream rule (Stream.qualifies): how many continue the sequence,
// how many go forward, how often the payload type changes. It also keeps the largest gap
// in arrival time (max_gap_ms).
type continuity struct {
	started   bool
	prevSeq   uint16
	prevPT    uint8
	prevAt    int64
	pairs     int64 // steps: packets after the first
	fwd       int64 // steps of 1..maxStep
	cont      int64 // steps within ±maxStep, repeats included
	repeats   int64 // steps that repeat the previous sequence number
	ptChanges int64
	pts       [2]uint64 // the payload types seen, a bit each
	gap       int64     // largest arrival gap, ns
	prevTimed bool      // the packet before's time was known
}

// add accounts one packet arriving at at; timed false for a packet whose time is not known
// (Packet.TimeUnknown): no arrival gap is measured to it or from it.
func (c *continuity) add(seq uint16, pt uint8, at int64, timed bool) {
	if c.started {
		c.pairs++
		switch d := int16(seq - c.prevSeq); {
		case d >= 1 && d <= maxStep:
			c.fwd++
			c.cont++
		case d == 0:
			// An exact repeat (a duplicate the network or the capture made) says nothing
			// about whether the stream moves: it is neither forward nor backward.
			c.cont++
			c.repeats++
		case d > -maxStep && d < 0:
			c.cont++
		}
		if pt != c.prevPT {
			c.ptChanges++
		}
		if g := at - c.prevAt; timed && c.prevTimed && g > c.gap {
			c.gap = g
		}
	}
	c.started = true
	c.prevSeq, c.prevPT, c.prevAt, c.prevTimed = seq, pt, at, timed
	c.pts[pt>>6&1] |= 1 << (pt & 63)
}

// continuing says whether the steps look like one RTP stream: at least 80% of them
// continuing, at least half of those that move going forward (a stream whose sequence
// number never moves is not RTP), and the payload type changing on at most 20% of them or
// taking at most maxPTs values: an audio SSRC carries DTMF events and comfort noise beside
// its codec, and a sender may interleave an event's packets with the audio's, one of each
// every 20 ms for as long as the key is held (baresip). Random payloads put a new SSRC on
// nearly every packet, and non-RTP traffic that keeps its bytes 8-11 fixed fails the
// sequence steps or takes many payload types. A single packet has no step and passes.
func (c *continuity) continuing() bool {
	if c.pairs == 0 {
		return true
	}
	pts := bits.OnesCount64(c.pts[0]) + bits.OnesCount64(c.pts[1])
	return c.cont*5 >= c.pairs*4 && c.fwd*2 >= c.pairs-c.repeats && (c.ptChanges*5 <= c.pairs || pts <= maxPTs)
}

// maxPTs is how many payload types a stream may change between at any rate: a codec,
// comfort noise (RFC 3389) and telephone events (RFC 4733).
const maxPTs = 3
