package analysis

import (
	"slices"

	"github.com/callpcap/callpcap/internal/quantile"
	"github.com/callpcap/callpcap/report"
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
	untimed bool // its time stamp was a clock jump: no latency sample (recordIn)
}

// relayDir matches one call direction's packets across the two legs of a relay (relay.go),
// and counts what became of those that waited too long.
type relayDir struct {
	pending map[uint64]relayEntry
	ring    []relaySlot // pending keys in order of arrival; its length a power of two, grown up to maxRelayPending
	head, n int
	matched int64
	// lostAfter, by SSRC: packets that reached the relay and never left it; forwarded, the
	// SSRCs of which the relay sent some packet on. A stream none of whose packets the
	// capture saw leave was not forwarded where the capture looks, not lost there.
	lostAfter  map[uint32]int64
	forwarded  map[uint32]bool
	egressOnly map[uint32]int64 // by SSRC, packets the relay sent on whose ingress copy the capture missed
	// ssrcs are the SSRCs of the packets recorded on the ingress leg (up to
	// maxRelaySSRCs), the last of them in lastSSRC: a peer leg that two calls shared, one
	// after the other (a relayed address handed out again), carries both calls' streams.
	ssrcs    []uint32
	lastSSRC uint32
	// egressSeq is, by SSRC, the last sequence number recorded on the egress leg;
	// unreached, the numbers missing between two of them there that the relay never
	// received (no ingress copy pending): lost before it, not dropped by it.
	egressSeq []ssrcSeq
	unreached map[uint32]int64
	lat       quantile.Hist
	ingress   rtpflow.Path // the ingress leg's stream path
	egress    rtpflow.Path
	// from is the capture time from which both legs are recorded, when decided late;
	// awaitTURN, that the next packet on the direction's TURN leg tells from when that leg
	// was (relayTracker.turnLegFrom), not known yet.
	from      int64
	awaitTURN bool
	// fwdIn is when the latest packet seen forwarded (matched) reached the relay.
	fwdIn int64
	// unallocated is when the direction's relayed address had no allocation of its client:
	// from each deletion until the client was given it again (relayTracker.unallocated).
	unallocated spans
}

// ssrcSeq is an SSRC's last sequence number on a leg, and over TCP the capture gaps of its
// direction before it (transport.StreamPos.Gaps).
type ssrcSeq struct {
	ssrc uint32
	gaps uint32
	seq  uint16
}

// maxEgressGap is the longest run of numbers missing on the egress leg that egressGap
// looks up one by one: longer, a restart or a stream the capture joined late.
const maxEgressGap = 100

// egressGap follows the sequence numbers of the egress leg, key being a packet's there and
// gaps its TCP direction's capture gaps before it: of the numbers it shows missing, it
// counts those whose ingress copy the relay never had (unreached). The relay forwards a
// packet within milliseconds of having it, so the ingress copy of a number missing here is
// still pending when the next number comes. Numbers missing across a capture gap of the
// egress leg may have left in it: neither unreached nor lost after the relay, their
// ingress copies are no longer pending (h138: a packet relayed into a segment the capture
// missed was lost after the relay).
func (d *relayDir) egressGap(key uint64, gaps uint32) {
	ssrc, seq := uint32(key>>16), uint16(key)
	i := slices.IndexFunc(d.egressSeq, func(x ssrcSeq) bool { return x.ssrc == ssrc })
	if i < 0 {
		if len(d.egressSeq) < maxRelaySSRCs {
			d.egressSeq = append(d.egressSeq, ssrcSeq{ssrc, gaps, seq})
		}
		return
	}
	last := &d.egressSeq[i]
	if gap := seq - last.seq - 1; gap > 0 && gap <= maxEgressGap {
		unseen := gaps != last.gaps
		for g := last.seq + 1; g != seq; g++ {
			k := uint64(ssrc)<<16 | uint64(g)
			e, ok := d.pending[k]
			switch {
			case unseen:
				if ok && e.ingress {
					delete(d.pending, k)
				}
			case !ok || !e.ingress:
				if d.unreached == nil {
					d.unreached = map[uint32]int64{}
				}
				d.unreached[ssrc]++
			}
		}
	}
	if int16(seq-last.seq) > 0 {
		last.seq, last.gaps = seq, gaps
	}
}

// sawIngress notes that a packet of ssrc was recorded on the ingress leg.
func (d *relayDir) sawIngress(ssrc uint32) {
	if (ssrc != d.lastSSRC || len(d.ssrcs) == 0) && !slices.Contains(d.ssrcs, ssrc) && len(d.ssrcs) < maxRelaySSRCs {
		d.ssrcs = append(d.ssrcs, ssrc)
	}
	d.lastSSRC = ssrc
}

// expire evicts the pending packets older than relayWindow before t.
func (d *relayDir) expire(t int64) {
	for d.n > 0 && t-d.ring[d.head].t > relayWindow {
		d.evict(true)
	}
}

// push adds a pending packet, growing the ring, or at maxRelayPending pushing the oldest
// out.
func (d *relayDir) push(x relaySlot) {
	if d.n == len(d.ring) {
		if len(d.ring) < maxRelayPending {
			ring := make([]relaySlot, max(2*len(d.ring), 64))
			for i := range d.n {
				ring[i] = d.ring[(d.head+i)&(len(d.ring)-1)]
			}
			d.ring, d.head = ring, 0
		} else {
			d.evict(false)
		}
	}
	d.ring[(d.head+d.n)&(len(d.ring)-1)] = x
	d.n++
}

// evict gives up the oldest pending packet. One that waited relayWindow (waited), seen on
// ingress only, was lost after the relay, unless it reached the relay before from, when
// its egress copy may have gone unrecorded. One pushed out by the bound before that counts
// nowhere: its copy may yet have come.
func (d *relayDir) evict(waited bool) {
	x := d.ring[d.head]
	d.head = (d.head + 1) & (len(d.ring) - 1)
	d.n--
	if e, ok := d.pending[x.key]; ok && e.t == x.t {
		switch {
		case e.t < d.from || !waited: // its other copy may have gone unrecorded, or come later
		case e.ingress && d.unallocated.holds(e.t):
			// It reached the relay after the allocation was deleted: nothing was there to
			// forward it (a peer still sending as the call ends).
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

// settle settles the pending packets at the end of the capture: one seen on ingress whose
// fate showed (shown) is evicted as one that waited, the others seen on ingress count
// nowhere; one seen on egress only is counted as ever (its ingress copy came before it,
// unseen). Each is looked at: the ring is in order of recording, and over TCP an ingress
// message is recorded when delivered, after egress copies of later packets (a tester's
// relay lost 7 packets where 2 were said, the settling stopping at the first it could not
// settle).
func (d *relayDir) settle(shown func(t int64) bool) {
	for d.n > 0 {
		x := d.ring[d.head]
		if e, ok := d.pending[x.key]; ok && e.t == x.t && e.ingress && !shown(e.t) {
			delete(d.pending, x.key)
		}
		d.evict(true)
	}
}

// record records an RTP packet of call direction k seen on one of its legs (recordIn).
func (r *relayTracker) record(k dirKey, path rtpflow.Path, key uint64, t int64, ingress, untimed bool) {
	r.recordIn(r.dir(k), path, key, t, ingress, untimed, 0)
}

// recordIn records an RTP packet of direction d seen on one of its legs (path, ingress or
// not) at t: it matches the copy pending on the other leg, or waits for it. One untimed,
// stamped with a clock jump (its time is the packet before's), is matched, and gives no
// latency sample.
func (r *relayTracker) recordIn(d *relayDir, path rtpflow.Path, key uint64, t int64, ingress, untimed bool, gaps uint32) {
	if ingress {
		d.ingress = path
		d.sawIngress(uint32(key >> 16))
	} else {
		d.egressGap(key, gaps)
		d.egress = path
	}
	d.expire(t)
	if e, ok := d.pending[key]; ok {
		if e.ingress == ingress {
			return // a duplicate on the same leg
		}
		in, out := e.t, t
		if ingress {
			in, out = t, e.t
		}
		d.matched++
		d.fwdIn = max(d.fwdIn, in)
		if ssrc := uint32(key >> 16); !d.forwarded[ssrc] && len(d.forwarded) < maxRelaySSRCs {
			if d.forwarded == nil {
				d.forwarded = map[uint32]bool{}
			}
			d.forwarded[ssrc] = true
		}
		if !e.untimed && !untimed {
			d.lat.Record(float64(max(out-in, 0)) / 1e6)
		}
		delete(d.pending, key)
		return
	}
	d.pending[key] = relayEntry{t: t, ingress: ingress, untimed: untimed}
	d.push(relaySlot{key, t})
}

// dir returns the relayDir of k, made on first use.
func (r *relayTracker) dir(k dirKey) *relayDir {
	d := r.dirs[k]
	if d == nil {
		if r.dirs == nil {
			r.dirs = map[dirKey]*relayDir{}
		}
		d = &relayDir{pending: make(map[uint64]relayEntry, 256)}
		r.dirs[k] = d
		r.order = append(r.order, k)
	}
	return d
}

// relayFigures is a call direction's relay figures, with what the direction's streams on the
// egress leg need: by SSRC, the numbers missing on that leg that the relay never received
// (relayDir.egressGap), gaps there that were lost before it.
type relayFigures struct {
	rel       *report.Relay
	egress    rtpflow.Path
	unreached map[uint32]int64
}

// relays returns the relay figures of each TURN-leg call direction whose two legs were both
// seen, given the capture's streams (for the ingress legs' RTP-level loss).
//
// A packet still waiting when the capture ended, which reached the relay less than the
// longest relay latency seen before the end (relayWindow before any was), may have left
// after it: its fate is unknown, and it is lost after the relay only if it had waited
// longer (a tester's packet that arrived 0.5 ms before the end, through a relay taking
// 1 ms, was said to have reached it and never left it), or if a packet that reached the
// relay after it left it (fwdIn): a relay forwards a direction's packets in order (one
// stall of 9.5 s made every drop of the capture's last 9.5 s unknown).
func (r *relayTracker) relays(streams []*rtpflow.Stream, t0, end int64) map[dirKey]relayFigures {
	out := map[dirKey]relayFigures{}
	for _, k := range r.order {
		d := r.dirs[k]
		if !d.egress.Src.IsValid() || !d.ingress.Src.IsValid() {
			continue
		}
		grace := relayWindow
		if d.lat.N() > 0 {
			grace = min(grace, int64(d.lat.Max()*1e6))
		}
		d.settle(func(t int64) bool { return end-t > grace || t < d.fwdIn })
		rel := &report.Relay{Matched: d.matched}
		if d.lat.N() > 0 {
			rel.LatencyMS = d.lat.Summary()
		}
		// Loss on either side is of media streams, as the direction's: an RTX packet the
		// relay dropped is no media lost (h153: "1 of 100 media packets was lost" where
		// the one was an RTX probe). Matched counts every RTP packet.
		for _, s := range streams {
			if s.Path() == d.ingress && s.IsMedia() && slices.Contains(d.ssrcs, s.SSRC()) {
				if l := s.Summary(t0).Lost; l != nil {
					rel.LostBeforeRelay += max(*l-d.egressOnly[s.SSRC()], 0)
				}
				if d.forwarded[s.SSRC()] {
					rel.LostAfterRelay += d.lostAfter[s.SSRC()]
				}
			}
		}
		out[k] = relayFigures{rel: rel, egress: d.egress, unreached: d.unreached}
	}
	return out
}
