package demux

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// one is a single sample of ms.
func one(ms float64) *report.Quantiles {
	return &report.Quantiles{Samples: 1, Min: ms, P50: ms, P95: ms, P99: ms, Max: ms}
}

// At a TURN server each check is seen arriving on one leg and leaving on the other, its
// answer likewise: it counts once, its round trip covers the leg it left on, a
// retransmission seen on both legs counts once and gives no round trip (Karn), and an
// answer seen only on the first leg counts without a round trip.
func TestICERelayedAtTheCapture(t *testing.T) {
	const client, server, relayed, peer = "10.0.0.1:50000", "203.0.113.7:3478", "203.0.113.7:50012", "198.51.100.9:61000"
	tr := NewTracker()
	var inner transport.Message
	feed := func(m *transport.Message) { t.Helper(); tr.STUN(m, &inner) }
	wrapped := func(b []byte, src, dst string, ms float64) *transport.Message {
		m := udp(b, src, dst, ms)
		m.Via, m.Channel = transport.ChannelData, 0x4000
		return m
	}
	req := func(id uint32) []byte {
		return build(t, stun.MethodBinding, stun.ClassRequest, id, stun.NewUsername("p:c"))
	}
	ok := func(id uint32) []byte {
		return build(t, stun.MethodBinding, stun.ClassSuccessResponse, id, mappedAddr(relayed))
	}

	// Check 1, from the client: relayed 0.5 ms after it arrived; answered 60 ms later on the
	// peer leg, relayed back: one check, one success, relay_peer 60 ms.
	feed(wrapped(req(1), client, server, 0))
	feed(udp(req(1), relayed, peer, 0.5))
	feed(udp(ok(1), peer, relayed, 60.5))
	feed(wrapped(ok(1), server, client, 61))
	// Check 2, from the peer, answered by the client 41 ms after the server sent it on.
	feed(udp(req(2), peer, relayed, 100))
	feed(wrapped(req(2), server, client, 100.5))
	feed(wrapped(ok(2), client, server, 141.5))
	feed(udp(ok(2), relayed, peer, 142))
	// Check 3, from the client, retransmitted (both copies relayed): two checks, no RTT.
	feed(wrapped(req(3), client, server, 200))
	feed(udp(req(3), relayed, peer, 200.5))
	feed(wrapped(req(3), client, server, 300))
	feed(udp(req(3), relayed, peer, 300.5))
	feed(udp(ok(3), peer, relayed, 360.5))
	feed(wrapped(ok(3), server, client, 361))
	// Check 4: the peer's error, seen only on the client leg (its peer-leg copy missed).
	feed(wrapped(req(4), client, server, 400))
	feed(udp(req(4), relayed, peer, 400.5))
	feed(wrapped(build(t, stun.MethodBinding, stun.ClassErrorResponse, 4, stun.CodeRoleConflict), server, client, 461))
	// The client's own Binding request to the server, answered at once: the server is this
	// host (it relayed), so it is no round trip.
	feed(udp(build(t, stun.MethodBinding, stun.ClassRequest, 5), client, server, 500))
	feed(udp(build(t, stun.MethodBinding, stun.ClassSuccessResponse, 5, mappedAddr(client)), server, client, 500.1))

	got := tr.ICE()
	want := report.ICE{
		Checks: 6, Successes: 4, Failures: 1,
		RTTMS:     &report.Quantiles{Samples: 2, Min: 41, P50: 41, P95: 60, P99: 60, Max: 60},
		Ufrags:    []string{"p:c"},
		Nominated: []string{},
		RTTLegs:   []report.ICERTTLeg{{Leg: RTTLegRelayPeer, RTTMS: one(60)}, {Leg: RTTLegRelayClient, RTTMS: one(41)}},
	}
	if d := cmp.Diff(want, got, connectivityIgnored); d != "" {
		t.Errorf("ICE() mismatch (-want +got):\n%s", d)
	}
	// Counted once: a second call reports the same.
	if d := cmp.Diff(got, tr.ICE()); d != "" {
		t.Errorf("second ICE() differs (-first +second):\n%s", d)
	}
}

// A pair checked one way only is placed by what another pair showed: alice answered bob's
// checks on the first pair at once, so her checks to carol on the second count, and a
// check carol sent to alice's other port, answered here, does not.
func TestICESettledByKnownAddress(t *testing.T) {
	// Public addresses all: no end is known to be behind a NAT.
	const alice, bob, carol = "192.0.2.1:50000", "198.51.100.9:61000", "203.0.113.5:7000"
	tr := NewTracker()
	var inner transport.Message
	feed := func(m *transport.Message) { t.Helper(); tr.STUN(m, &inner) }
	req := func(id uint32) []byte { return build(t, stun.MethodBinding, stun.ClassRequest, id) }
	ok := func(id uint32) []byte { return build(t, stun.MethodBinding, stun.ClassSuccessResponse, id) }
	feed(udp(req(1), alice, carol, 0))
	feed(udp(ok(1), carol, alice, 70))
	feed(udp(req(2), carol, "192.0.2.1:50002", 80))
	feed(udp(ok(2), "192.0.2.1:50002", carol, 80.5))
	feed(udp(req(9), "198.51.100.7:9", carol, 90)) // one way between two other hosts: unknown
	feed(udp(ok(9), carol, "198.51.100.7:9", 99))
	feed(udp(req(3), alice, bob, 100))
	feed(udp(ok(3), bob, alice, 150))
	feed(udp(req(4), bob, alice, 200))
	feed(udp(ok(4), alice, bob, 201))

	got := tr.ICE()
	want := []report.ICERTTLeg{{Leg: RTTLegHostPeer, RTTMS: &report.Quantiles{Samples: 2, Min: 50, P50: 50, P95: 70, P99: 70, Max: 70}},
		{Leg: RTTLegUnknown, RTTMS: one(9)}}
	if d := cmp.Diff(want, got.RTTLegs); d != "" {
		t.Errorf("RTT legs (-want +got):\n%s", d)
	}
	// ICE settles once: a second call reports the same.
	if d := cmp.Diff(got, tr.ICE()); d != "" {
		t.Errorf("second ICE() differs (-first +second):\n%s", d)
	}
}

// Timing that does not decide (checks both ways, answered in comparable times) is decided by
// the addresses: the end behind a NAT, facing a public one, is on the capture's side. (A
// real capture: a Skype client answering in 31-37 ms and measuring 62-114 ms.)
func TestICEDecidedBehindNAT(t *testing.T) {
	const lan, public = "192.168.2.20:49282", "104.46.40.49:60642"
	tr := NewTracker()
	var inner transport.Message
	feed := func(m *transport.Message) { t.Helper(); tr.STUN(m, &inner) }
	feed(udp(build(t, stun.MethodBinding, stun.ClassRequest, 1), lan, public, 0))
	feed(udp(build(t, stun.MethodBinding, stun.ClassRequest, 2), public, lan, 7))
	feed(udp(build(t, stun.MethodBinding, stun.ClassSuccessResponse, 2), lan, public, 44))
	feed(udp(build(t, stun.MethodBinding, stun.ClassSuccessResponse, 1), public, lan, 62))
	want := []report.ICERTTLeg{{Leg: RTTLegHostPeer, RTTMS: one(62)}}
	if d := cmp.Diff(want, tr.ICE().RTTLegs); d != "" {
		t.Errorf("RTT legs (-want +got):\n%s", d)
	}
}

// A relayed check's four messages reach the Tracker in any order in which each flow's
// request comes before its response (at a TURN server the TCP leg's messages wait in
// tcpframe while the UDP leg's do not): every order gives one check, one success and the
// round trip of the leg the check left on. Before (matching by arrival order) only the
// capture's order was right: an answer ahead of the other leg's request copy made two checks
// and two successes ({1 2 0 3}, {0 3 1 2}), the onward copy first or the relay's answer
// first two successes ({1 0 2 3}, {0 1 3 2}), and {1 0 3 2} a relay_client round trip.
func TestICERelayedAnyOrder(t *testing.T) {
	const client, server, relayed, peer = "10.0.0.1:50000", "203.0.113.7:3478", "203.0.113.7:50012", "198.51.100.9:61000"
	req := build(t, stun.MethodBinding, stun.ClassRequest, 1, stun.NewUsername("p:c"))
	ok := build(t, stun.MethodBinding, stun.ClassSuccessResponse, 1, mappedAddr(relayed))
	wrapped := func(b []byte, src, dst string, ms float64) *transport.Message {
		m := udp(b, src, dst, ms)
		m.Proto, m.Via, m.Channel = transport.TCP, transport.ChannelData, 0x4000
		return m
	}
	// The client's check over TURN/TCP, relayed to the peer 0.5 ms later, answered 60 ms after.
	msgs := []func() *transport.Message{
		func() *transport.Message { return wrapped(req, client, server, 0) },
		func() *transport.Message { return udp(req, relayed, peer, 0.5) },
		func() *transport.Message { return udp(ok, peer, relayed, 60.5) },
		func() *transport.Message { return wrapped(ok, server, client, 61) },
	}
	orders := [][4]int{{0, 1, 2, 3}, {0, 1, 3, 2}, {1, 0, 2, 3}, {1, 2, 0, 3}, {1, 0, 3, 2}, {0, 3, 1, 2}}
	for _, order := range orders {
		tr := NewTracker()
		var inner transport.Message
		for _, i := range order {
			tr.STUN(msgs[i](), &inner)
		}
		got := tr.ICE()
		want := report.ICE{Checks: 1, Successes: 1, RTTMS: one(60), Ufrags: []string{"p:c"}, Nominated: []string{},
			RTTLegs: []report.ICERTTLeg{{Leg: RTTLegRelayPeer, RTTMS: one(60)}}}
		if d := cmp.Diff(want, got, connectivityIgnored); d != "" {
			t.Errorf("order %v: ICE() mismatch (-want +got):\n%s", order, d)
		}
	}
}

// TestICEOverTCPAnsweredHere: checks both ways on an ICE-TCP connection captured at alice,
// 41 ms from bob (webrtcbin). bob's check, answered by alice 0.3 ms after it arrived: its
// response left alice, and tcpframe dates its delivery at bob from the ACK, half a round
// trip on (Delivered 20.8 ms after the request). alice's check: 45 ms, the round trip. The
// direction answered at the capture is told by when the capture saw the answer (FirstSeen):
// by Delivered, 20.8 against 45 ms decided nothing, and neither counted.
func TestICEOverTCPAnsweredHere(t *testing.T) {
	const alice, bob = "10.24.0.1:59551", "10.24.0.2:48481"
	tr := NewTracker()
	var inner transport.Message
	feed := func(m *transport.Message) { t.Helper(); tr.STUN(m, &inner) }
	at := func(m *transport.Message, delivered float64) *transport.Message {
		m.Delivered = int64(delivered * float64(time.Millisecond))
		return m
	}
	feed(tcp(build(t, stun.MethodBinding, stun.ClassRequest, 1), bob, alice, 0))
	feed(at(tcp(build(t, stun.MethodBinding, stun.ClassSuccessResponse, 1), alice, bob, 0.3), 20.8))
	feed(tcp(build(t, stun.MethodBinding, stun.ClassRequest, 2), alice, bob, 3))
	feed(tcp(build(t, stun.MethodBinding, stun.ClassSuccessResponse, 2), bob, alice, 48))
	want := []report.ICERTTLeg{{Leg: RTTLegHostPeer, RTTMS: one(45)}}
	if d := cmp.Diff(want, tr.ICE().RTTLegs); d != "" {
		t.Errorf("RTT legs (-want +got):\n%s", d)
	}
}

// On a LAN both agents answer in a fraction of a millisecond: A's checks take 0.3 ms, B's
// are answered in 0.1 ms, too close for the answer times to say which end is this host,
// and two private addresses are no NAT: the capture is taken for one between the agents
// and no round trip counts. Told that A's address is this host's (an ICE-TCP connection's
// vantage, HostEnd), A's three checks are its round trips.
func TestICERTTHostAddr(t *testing.T) {
	const a, b = "10.80.1.2:35869", "10.80.2.2:8443"
	for _, told := range []bool{false, true} {
		tr := NewTracker()
		var inner transport.Message
		for i := range uint32(3) {
			at := float64(100 * i)
			tr.STUN(tcpMsg(build(t, stun.MethodBinding, stun.ClassRequest, 10+i, stun.NewUsername("b:a")), a, b, at), &inner)
			tr.STUN(tcpMsg(build(t, stun.MethodBinding, stun.ClassSuccessResponse, 10+i, mappedAddr(a)), b, a, at+0.3), &inner)
			tr.STUN(tcpMsg(build(t, stun.MethodBinding, stun.ClassRequest, 20+i, stun.NewUsername("a:b")), b, a, at+50), &inner)
			tr.STUN(tcpMsg(build(t, stun.MethodBinding, stun.ClassSuccessResponse, 20+i, mappedAddr(b)), a, b, at+50.1), &inner)
		}
		if told {
			tr.HostEnd(netip.MustParseAddrPort(a))
		}
		got := tr.ICE()
		switch {
		case !told && got.RTTMS != nil:
			t.Errorf("not told: rtt %+v, want none", got.RTTMS)
		case told && (got.RTTMS == nil || got.RTTMS.Samples != 3 || got.RTTMS.P50 != 0.3):
			t.Errorf("told: rtt %+v, want 3 samples of 0.3 ms", got.RTTMS)
		}
	}
}

// tcpMsg is udp's message over TCP.
func tcpMsg(payload []byte, src, dst string, ms float64) *transport.Message {
	m := udp(payload, src, dst, ms)
	m.Proto = transport.TCP
	return m
}
