package analysis

import (
	"github.com/callpcap/callpcap/transport"
)

// heldDatagrams keeps the last RTP datagrams of the UDP flows not known to be a peer leg,
// so that a flow found to be one later has its first packets recorded after all.
//
// Over TCP, tcpframe holds the server's messages back until it can tell the vantage of
// their direction, and the Allocate success response naming the relayed address is
// delivered a round trip or more after the peer leg's first datagrams (without ICE checks
// through the relay, the media itself: 3 to 16 packets a direction were neither matched
// nor lost). The ring is written at one slot a datagram on any capture; a TURN server's
// peer legs are the only flows it holds long, the others being decided yes at their
// first datagram once their allocation is known.
type heldDatagrams struct {
	ring []heldDatagram // made at the first datagram held
	n    int64          // datagrams ever held; ring[n%heldRing] is the next slot
}

// heldRing is the ring's size (512 KiB): seconds of the peer legs of a TURN server's new
// calls (a tester's 60 calls, each stalled 1.5 s before its Allocate response, at 500
// packets a second, overflowed 4,096).
const heldRing = 16384

type heldDatagram struct {
	flow      int32
	fromA     bool // sent by the flow's end a
	untimed   bool // stamped with a clock jump (relayTracker.recordIn)
	key       uint64
	delivered int64
	firstSeen int64
}

// hold keeps datagram m of flow f, of relay key key; untimed if stamped with a clock jump.
func (h *heldDatagrams) hold(f *flow, m *transport.Message, key uint64, untimed bool) {
	if h.ring == nil {
		h.ring = make([]heldDatagram, heldRing)
	}
	h.ring[h.n%heldRing] = heldDatagram{int32(f.idx), m.Src == f.a, untimed, key, m.Delivered, m.FirstSeen}
	h.n++
}

// replay calls fn with each datagram held of flow f, oldest first, and returns the capture
// time from which they are all there: f's first datagram's, unless the ring began after
// it or has since dropped some datagrams of any flow, then the ring's oldest; now, when
// the ring never held one.
func (h *heldDatagrams) replay(f *flow, now int64, fn func(d *heldDatagram)) (whole int64) {
	if h.n == 0 {
		return now
	}
	start := max(h.n-heldRing, 0)
	whole = f.first
	if d := &h.ring[start%heldRing]; start > 0 || d.delivered > f.first {
		whole = max(whole, d.delivered)
	}
	for i := start; i < h.n; i++ {
		if d := &h.ring[i%heldRing]; int(d.flow) == f.idx {
			fn(d)
		}
	}
	return whole
}
