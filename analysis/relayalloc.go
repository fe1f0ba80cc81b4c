package analysis

import (
	"net/netip"
	"slices"
)

// The lifetimes of a TURN server's allocations: which relayed addresses are live, and the
// times a client held none (deleted, not yet given again), so that a peer leg's packets go
// to the call of the allocation they were sent in.

// live says whether ap is a known relayed address whose last client has not deleted its
// allocation of it: a flow that opens to an address deleted waits (heldDatagrams) for the
// next allocation of it, whose call it is likelier to be (over TCP the server's Allocate
// response is read a round trip late, and the new call's first packets went to the old
// client's directions, matched nowhere).
func (r *relayTracker) live(ap netip.AddrPort) bool {
	c, ok := r.client[ap]
	if !ok {
		return false
	}
	ss := r.unallocated[[2]netip.AddrPort{ap, c}]
	return len(ss) == 0 || ss[len(ss)-1].until != maxTime
}

// allocated follows a STUN message of the capture's own flows: when the demux learnt a
// relayed address from it, the flows already decided not to be a peer leg are decided
// again (see the header comment: the response can come after the peer leg's first
// datagrams). It costs two compares unless an address was learnt or an allocation deleted.
func (r *relayTracker) allocated(a *analyzer) {
	if n := a.turn.Deletions(); n != r.deletions || len(r.unallocated) > 0 && a.turn.RelayedChanges() != r.known {
		r.deletions = n
		r.deleted(a) // a deletion, or an allocation that may hand a deleted address out again
	}
	if a.turn.RelayedChanges() == r.known {
		return
	}
	fresh := r.learn(a)
	if len(fresh) == 0 {
		return
	}
	// A flow decided no had no end at an address known then: any it has now is new. A
	// flow decided yes may have its other end learnt now (both ends of a call relayed
	// here): a peer leg of that allocation from now.
	for i, st := range r.state {
		f := a.flowList[i]
		// A packet from before from without its other copy is counted nowhere, neither lost
		// after the relay nor sent on with its ingress copy missed: that copy may have gone
		// unrecorded.
		from, turnLeg := a.prev, false
		switch {
		case st == relayNo && r.peerFlow(f):
			// Its RTP datagrams so far were held (heldDatagrams): recorded now, so that they
			// match their other copies. The peer leg is whole from when the ring holds all
			// of the flow's datagrams; the TURN leg as its next packet in the direction
			// tells (turnLegFrom), which over TCP may come after now, delivered late.
			r.state[i] = relayYes
			r.activate()
			from = r.held.replay(f, a.prev, func(d *heldDatagram) {
				r.peerDatagram(f, d.fromA, d.key, d.delivered, d.firstSeen, d.untimed)
			})
			turnLeg = true
		case st == relayYes && (slices.Contains(fresh, f.a) || slices.Contains(fresh, f.b)):
			// Its datagrams so far were recorded for the other end's allocation, or for the
			// address's earlier client, only.
		default:
			continue
		}
		r.allocationsOf(f, func(rel, peer, c netip.AddrPort) {
			if !slices.Contains(fresh, rel) {
				return
			}
			for _, k := range [2]dirKey{{c, peer}, {peer, c}} {
				d := r.dir(k)
				d.from = max(d.from, from)
				d.awaitTURN = d.awaitTURN || turnLeg
			}
		})
	}
}

// deleted notes the allocations deleted so far (a Refresh with LIFETIME 0, a TCP connection
// that ended) in r.unallocated and in their directions: what reached the relay after that,
// until the client was given the address again, had nothing to forward it and is not lost
// after the relay (a peer still sending as the call ends). Another client given the
// address has directions of its own. A peer-to-client direction with no ingress packet
// yet looks its address up at its first (peerDatagram).
func (r *relayTracker) deleted(a *analyzer) {
	if r.unallocated == nil {
		r.unallocated = map[[2]netip.AddrPort]spans{}
	}
	clear(r.unallocated)
	a.turn.EachDeletion(func(relayed, client netip.AddrPort, first int64, deleted bool, at int64) {
		k := [2]netip.AddrPort{relayed, client}
		ss := r.unallocated[k]
		if n := len(ss); n > 0 && ss[n-1].until == maxTime && first >= ss[n-1].from {
			ss[n-1].until = first // given again
		}
		if deleted {
			ss = append(ss, span{at, maxTime})
			if len(ss) > maxSpans {
				ss = ss[1:]
			}
		}
		r.unallocated[k] = ss
	})
	for _, k := range r.order {
		d := r.dirs[k]
		if !d.ingress.Src.IsValid() {
			continue
		}
		// Peer to client: the ingress leg ends at the relayed address; client to peer: the
		// egress leg starts there (a client that sent on after deleting its allocation).
		ss := r.unallocated[[2]netip.AddrPort{d.ingress.Dst, k.dst}]
		if ss == nil && d.egress.Src.IsValid() {
			ss = r.unallocated[[2]netip.AddrPort{d.egress.Src, k.src}]
		}
		d.unallocated = ss
	}
}

// span is the capture times from, until (not included; maxTime: not come).
type span struct{ from, until int64 }

// spans are the times a client had no allocation of a relayed address, oldest first, the
// last maxSpans of them: a packet waits for its copy 10 s at most (relayWindow), and a
// client that deletes and allocates again every second is none the real world sends.
type spans []span

const maxSpans = 8

// holds says whether t falls in a span: after its deletion (a packet at the same instant,
// as the client's last one in the TCP segment that carries its Refresh, came before it:
// h128 found it counted nowhere where it was lost after the relay), before it was given
// again.
func (ss spans) holds(t int64) bool {
	for _, s := range ss {
		if t > s.from && t < s.until {
			return true
		}
	}
	return false
}
