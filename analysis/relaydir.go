package analysis

import (
	"github.com/callpcap/callpcap/internal/quantile"
	"github.com/callpcap/callpcap/rtpflow"
)

// relaySlot is a pending packet in a relayDir's ring, in order of arrival.
type relaySlot struct {
	key uint64
	t   int64
}

// relayEntry is a pending packet, waiting for its copy on the other leg: when, and on which
// leg, it was seen.
type relayEntry struct {
	t       int64
	ingress bool
}

// relayDir matches one call direction's packets across the two legs of a relay (relay.go),
// and counts what became of those that waited too long.
type relayDir struct {
	pending map[uint64]relayEntry
	ring    [maxRelayPending]relaySlot // pending keys in order of arrival
	head, n int
	matched int64
	// lostAfter, by SSRC: packets that reached the relay and never left it; forwarded, the
	// SSRCs of which the relay sent some packet on. A stream none of whose packets the
	// capture saw leave was not forwarded where the capture looks, not lost there.
	lostAfter  map[uint32]int64
	forwarded  map[uint32]bool
	egressOnly map[uint32]int64 // by SSRC, packets the relay sent on whose ingress copy the capture missed
	lat        quantile.Hist
	ingress    rtpflow.Path // the ingress leg's stream path
	egress     rtpflow.Path
	// from is the capture time from which both legs are recorded, when decided late;
	// awaiting, when not 0, the leg whose first record, still to come, moves it there
	// (1 ingress, 2 egress); firstAt the time of each leg's first record.
	from     int64
	awaiting int8
	firstAt  [2]int64
}

// startFrom moves from to when leg (1 ingress, 2 egress) was first recorded, or to when
// it will be.
func (d *relayDir) startFrom(from int64, leg int8) {
	d.from = max(d.from, from)
	if t := d.firstAt[leg-1]; t != 0 {
		d.from = max(d.from, t)
	} else {
		d.awaiting = leg
	}
}

// expire evicts the pending packets older than relayWindow before t.
func (d *relayDir) expire(t int64) {
	for d.n > 0 && t-d.ring[d.head].t > relayWindow {
		d.evict()
	}
}

// evict gives up the oldest pending packet: seen on ingress only, it was lost after the relay,
// unless it reached the relay before from, when its egress copy may have gone unrecorded.
func (d *relayDir) evict() {
	x := d.ring[d.head]
	d.head = (d.head + 1) % maxRelayPending
	d.n--
	if e, ok := d.pending[x.key]; ok && e.t == x.t {
		switch {
		case e.t < d.from: // its other copy may have gone unrecorded
		case e.ingress:
			if d.lostAfter == nil {
				d.lostAfter = map[uint32]int64{}
			}
			if ssrc := uint32(x.key >> 16); d.lostAfter[ssrc] > 0 || len(d.lostAfter) < maxRelaySSRCs {
				d.lostAfter[ssrc]++
			}
		default:
			if d.egressOnly == nil {
				d.egressOnly = map[uint32]int64{}
			}
			if ssrc := uint32(x.key >> 16); d.egressOnly[ssrc] > 0 || len(d.egressOnly) < maxRelaySSRCs {
				d.egressOnly[ssrc]++
			}
		}
		delete(d.pending, x.key)
	}
}

// drop settles the pending packets when the capture ended before the fate of those seen on
// ingress showed: they count nowhere. One seen on egress only is counted as ever (its
// ingress copy came before it, unseen).
func (d *relayDir) drop() {
	for d.n > 0 {
		x := d.ring[d.head]
		if e, ok := d.pending[x.key]; ok && e.t == x.t && e.ingress {
			delete(d.pending, x.key)
		}
		d.evict()
	}
}
