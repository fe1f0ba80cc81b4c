package analysis

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/callpcap/callpcap/transport"
)

// TestHeldDatagrams: the ring replays a flow's datagrams oldest first, only those among the
// last heldRing held, and tells the flow's ends apart; they are all there from the oldest
// it still has, or from the flow's first when it began later, or from now when it holds
// nothing.
func TestHeldDatagrams(t *testing.T) {
	a := netip.MustParseAddrPort("192.0.2.1:1000")
	b := netip.MustParseAddrPort("192.0.2.2:2000")
	f0, f1 := &flow{idx: 0, a: a, b: b}, &flow{idx: 1, a: a, b: b}
	var h heldDatagrams
	for i := range heldRing + 10 {
		f, src := f0, a
		if i%2 == 1 {
			f, src = f1, b
		}
		h.hold(f, &transport.Message{Src: src, Delivered: int64(i), FirstSeen: int64(i)}, uint64(i), i == 20)
	}
	for _, tt := range []struct {
		f     *flow
		first uint64 // the first key replayed: the ring dropped the 10 oldest
		fromA bool
	}{{f0, 10, true}, {f1, 11, false}} {
		var keys []uint64
		whole := h.replay(tt.f, 99999, func(d *heldDatagram) {
			if d.fromA != tt.fromA || d.delivered != int64(d.key) || d.untimed != (d.key == 20) {
				t.Errorf("flow %d: datagram %+v", tt.f.idx, *d)
			}
			keys = append(keys, d.key)
		})
		if len(keys) != heldRing/2 || keys[0] != tt.first || !slices.IsSorted(keys) {
			t.Errorf("flow %d: replayed %d keys from %d (sorted %v), want %d from %d", tt.f.idx, len(keys), keys[0], slices.IsSorted(keys), heldRing/2, tt.first)
		}
		if whole != 10 { // the oldest datagram the ring still has
			t.Errorf("flow %d: whole from %d, want 10", tt.f.idx, whole)
		}
	}
	var none int
	if whole := h.replay(&flow{idx: 2, first: 5000}, 99999, func(*heldDatagram) { none++ }); none != 0 || whole != 5000 {
		t.Errorf("flow 2: replayed %d, whole from %d; want none, from its first datagram (5000)", none, whole)
	}
	if whole := (&heldDatagrams{}).replay(f0, 99999, func(*heldDatagram) {}); whole != 99999 {
		t.Errorf("nothing held: whole from %d, want now (99999)", whole)
	}
}

// TestTurnMessageEarliest: a TURN leg is whole from its messages' earliest first sighting,
// not its first message read: over TCP a message first seen late (the Allocate response
// resent after a copy the capture missed) is read before those first seen earlier behind
// it. A tester's drops at the server in that while were counted nowhere (3 of 4 lost
// after the relay).
func TestTurnMessageEarliest(t *testing.T) {
	var f flow
	for _, at := range []int64{1000, 200, 220, 1040} {
		f.turnMessage(1, at)
	}
	if f.turnFrom != [2]int64{0, 200} {
		t.Errorf("turnFrom %v, want [0 200]", f.turnFrom)
	}
}

// TestPeerFlowToADeletedAddress: a flow that opens to a relayed address whose client
// deleted its allocation is no peer leg yet: it waits (heldDatagrams) for the address's
// next allocation. A tester's TURN/TCP server capture, the address given to another client
// whose Allocate response TCP held a round trip: the new call's first packet each way went
// to the old client's directions, matched nowhere (21 of 22). Given again, it is one.
func TestPeerFlowToADeletedAddress(t *testing.T) {
	carol := netip.MustParseAddrPort("192.0.2.77:40400")
	r := relayTracker{client: map[netip.AddrPort]netip.AddrPort{relayed: alice},
		unallocated: map[[2]netip.AddrPort]spans{{relayed, alice}: {{from: 10, until: maxTime}}}}
	f := &flow{a: bob, b: relayed, proto: transport.UDP}
	if r.peerFlow(f) {
		t.Error("a flow to a deleted address is a peer leg")
	}
	r.unallocated[[2]netip.AddrPort{relayed, alice}][0].until = 20 // alice's again
	if !r.peerFlow(f) {
		t.Error("a flow to an address given again to its client is no peer leg")
	}
	r.unallocated[[2]netip.AddrPort{relayed, alice}][0].until = maxTime
	r.client[relayed] = carol // carol's now
	if !r.peerFlow(f) {
		t.Error("a flow to an address given to another client is no peer leg")
	}
}
