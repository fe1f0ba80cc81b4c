package demux

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// connectivityIgnored leaves out of a comparison of ICE figures the connectivity checks'
// counts (report.ICE.ConnectivityChecks), which TestICE checks.
var connectivityIgnored = cmpopts.IgnoreFields(report.ICE{}, "ConnectivityChecks", "ConnectivitySuccesses")

const (
	alice = "10.0.0.1:50000"
	bob   = "198.51.100.9:61000"
)

func TestICE(t *testing.T) {
	tr := NewTracker()
	var inner transport.Message
	feed := func(m *transport.Message) {
		t.Helper()
		if tr.STUN(m, &inner) {
			t.Fatalf("unexpected unwrap of %x", m.Payload)
		}
	}
	req := func(id uint32, user string, nominate bool) []byte {
		attrs := []stun.Setter{stun.NewUsername(user), u32Attr(stun.AttrPriority, 0x6E7F1EFF)}
		if nominate {
			attrs = append(attrs, useCandidate)
		}
		return build(t, stun.MethodBinding, stun.ClassRequest, id, attrs...)
	}
	ok := func(id uint32) []byte {
		return build(t, stun.MethodBinding, stun.ClassSuccessResponse, id, mappedAddr(alice))
	}

	// The capture is at alice: her two checks are answered 10 and 20 ms later; bob's check,
	// which nominates, she answers in 1 ms: not a round trip.
	feed(udp(req(1, "bobu:aliu", false), alice, bob, 0))
	feed(udp(req(2, "bobu:aliu", false), alice, bob, 5))
	feed(udp(req(3, "aliu:bobu", true), bob, alice, 7))
	feed(udp(ok(3), alice, bob, 8))
	feed(udp(ok(1), bob, alice, 10))
	feed(udp(ok(2), bob, alice, 25))
	// A request retransmitted before its answer: counted twice, no RTT sample (Karn).
	feed(udp(req(4, "bobu:aliu", false), alice, bob, 100))
	feed(udp(req(4, "bobu:aliu", false), alice, bob, 600))
	feed(udp(ok(4), bob, alice, 601))
	// A role conflict: a failure, and a round trip of 20 ms all the same.
	feed(udp(req(5, "bobu:aliu", false), alice, bob, 700))
	feed(udp(build(t, stun.MethodBinding, stun.ClassErrorResponse, 5, stun.CodeRoleConflict), bob, alice, 720))
	// A response to a request the capture missed: counted, no RTT.
	feed(udp(ok(99), bob, alice, 800))
	// A STUN server request: a check by the contract, but no ufrag pair.
	feed(udp(req(6, "longtermuser", false), alice, "203.0.113.7:3478", 900))

	got := tr.ICE()
	rtt := &report.Quantiles{Samples: 3, Min: 10, P50: 20, P95: 20, P99: 20, Max: 20}
	// Of connectivity checks (an ICE USERNAME): all but the STUN server's request, and the
	// successes of theirs; the answer without a request has no MESSAGE-INTEGRITY, so it is
	// not a check's.
	want := report.ICE{
		Checks: 7, Successes: 5, Failures: 1,
		RTTMS:              rtt,
		Ufrags:             []string{"aliu:bobu", "bobu:aliu"},
		Nominated:          []string{"198.51.100.9:61000 -> 10.0.0.1:50000"},
		RTTLegs:            []report.ICERTTLeg{{Leg: RTTLegHostPeer, RTTMS: rtt}},
		ConnectivityChecks: 6, ConnectivitySuccesses: 4,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ICE() mismatch (-want +got):\n%s", d)
	}
}

func TestICEEmpty(t *testing.T) {
	got := NewTracker().ICE()
	want := report.ICE{Ufrags: []string{}, Nominated: []string{}, RTTLegs: []report.ICERTTLeg{}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ICE() mismatch (-want +got):\n%s", d)
	}
}

// A check relayed through TURN nominates the pair (relayed address, peer).
func TestICENominatedThroughTURN(t *testing.T) {
	const client, server, relayed = "10.0.0.1:50000", "203.0.113.7:3478", "203.0.113.7:50012"
	tr := NewTracker()
	var inner transport.Message
	tr.STUN(udp(build(t, stun.MethodAllocate, stun.ClassRequest, 1), client, server, 0), &inner)
	tr.STUN(udp(build(t, stun.MethodAllocate, stun.ClassSuccessResponse, 1, relayedAddr(relayed), lifetime(600)),
		server, client, 20), &inner)

	check := build(t, stun.MethodBinding, stun.ClassRequest, 2, stun.NewUsername("b:a"), useCandidate)
	send := udp(build(t, stun.MethodSend, stun.ClassIndication, 3, peerAddr(bob), dataAttr(check)), client, server, 30)
	if !tr.STUN(send, &inner) {
		t.Fatal("Send indication not unwrapped")
	}
	var inner2 transport.Message
	tr.STUN(&inner, &inner2)
	answer := build(t, stun.MethodBinding, stun.ClassSuccessResponse, 2, mappedAddr(relayed))
	data := udp(build(t, stun.MethodData, stun.ClassIndication, 4, peerAddr(bob), dataAttr(answer)), server, client, 70)
	if !tr.STUN(data, &inner) {
		t.Fatal("Data indication not unwrapped")
	}
	tr.STUN(&inner, &inner2)

	got := tr.ICE()
	if d := cmp.Diff([]string{relayed + " -> " + bob}, got.Nominated); d != "" {
		t.Errorf("nominated (-want +got):\n%s", d)
	}
	if got.RTTMS == nil || got.RTTMS.Min != 40 {
		t.Errorf("RTT = %+v, want one sample of 40 ms", got.RTTMS)
	}
}

func TestPendingBound(t *testing.T) {
	tr := NewTracker()
	var inner transport.Message
	for i := range maxPending + 1 {
		tr.STUN(udp(build(t, stun.MethodBinding, stun.ClassRequest, uint32(i)), alice, bob, float64(i)), &inner)
	}
	// The first request was dropped to make room: its answer gives no RTT.
	tr.STUN(udp(build(t, stun.MethodBinding, stun.ClassSuccessResponse, 0), bob, alice, 1e4), &inner)
	tr.STUN(udp(build(t, stun.MethodBinding, stun.ClassSuccessResponse, 1), bob, alice, 1e4), &inner)
	if got := tr.Stats().Untracked.Pending; got != 1 {
		t.Errorf("Untracked.Pending = %d, want 1", got)
	}
	// Checks one way only, from alice's private address: hers.
	if got := tr.ICE().RTTLegs; len(got) != 1 || got[0].Leg != RTTLegHostPeer || got[0].RTTMS.Samples != 1 {
		t.Errorf("RTT legs = %+v, want 1 sample of host_peer", got)
	}
	// Answered transactions stay until the ring drops them (counted then, or at ICE()).
	if len(tr.pending) != maxPending {
		t.Errorf("%d pending, want %d", len(tr.pending), maxPending)
	}
}

func TestUfragBound(t *testing.T) {
	tr := NewTracker()
	var inner transport.Message
	for i := range maxUfrags + 10 {
		u := string(rune('A'+i%26)) + string(rune('a'+i/26)) + ":x"
		tr.STUN(udp(build(t, stun.MethodBinding, stun.ClassRequest, uint32(i), stun.NewUsername(u)), alice, bob, 0), &inner)
	}
	if got := len(tr.ICE().Ufrags); got != maxUfrags {
		t.Errorf("%d ufrags, want %d", got, maxUfrags)
	}
	if got := tr.Stats().Untracked.Ufrags; got != 10 {
		t.Errorf("Untracked.Ufrags = %d, want 10", got)
	}
}

func TestSTUNNotSTUN(t *testing.T) {
	tr := NewTracker()
	var inner transport.Message
	classic := cat([]byte{0x00, 0x01, 0x00, 0x00}, tid16)
	for _, b := range [][]byte{nil, {0x80, 0x60}, classic, cat([]byte{0x00, 0x01, 0x00, 0x08}, cookie, tid)} {
		if tr.STUN(udp(b, alice, bob, 0), &inner) {
			t.Errorf("%x unwrapped", b)
		}
	}
	want := Stats{Classic: 1, Malformed: 3}
	if d := cmp.Diff(want, tr.Stats()); d != "" {
		t.Errorf("Stats (-want +got):\n%s", d)
	}
	if tr.ICE().Checks != 0 {
		t.Error("a check was counted")
	}
}

func BenchmarkBindingTransaction(b *testing.B) {
	tr := NewTracker()
	req := udp(build(b, stun.MethodBinding, stun.ClassRequest, 1, stun.NewUsername("bobu:aliu"), useCandidate), alice, bob, 0)
	res := udp(build(b, stun.MethodBinding, stun.ClassSuccessResponse, 1, mappedAddr(alice)), bob, alice, 10)
	var inner transport.Message
	b.ReportAllocs()
	for b.Loop() {
		tr.STUN(req, &inner)
		tr.STUN(res, &inner)
	}
}

// A nominating check relayed on a channel whose ChannelBind the capture missed (it began
// mid-call) names no pair: its peer is not known (before: "10.0.0.1:50000 -> invalid
// AddrPort"). It is still a check, answered.
func TestICENominatedOnUnboundChannel(t *testing.T) {
	const client, server = "10.0.0.1:50000", "203.0.113.7:3478"
	tr := NewTracker()
	check := build(t, stun.MethodBinding, stun.ClassRequest, 2, stun.NewUsername("b:a"), useCandidate)
	cd := binary.BigEndian.AppendUint16([]byte{0x40, 0x00}, uint16(len(check)))
	var inner, inner2 transport.Message
	if !tr.ChannelData(udp(append(cd, check...), client, server, 30), &inner) {
		t.Fatal("ChannelData not unwrapped")
	}
	tr.STUN(&inner, &inner2)
	answer := build(t, stun.MethodBinding, stun.ClassSuccessResponse, 2)
	cd = binary.BigEndian.AppendUint16([]byte{0x40, 0x00}, uint16(len(answer)))
	if !tr.ChannelData(udp(append(cd, answer...), server, client, 70), &inner) {
		t.Fatal("ChannelData not unwrapped")
	}
	tr.STUN(&inner, &inner2)
	if got := tr.ICE(); got.Checks != 1 || got.Successes != 1 || len(got.Nominated) != 0 {
		t.Errorf("checks %d, successes %d, nominated %q: want 1 answered check and no pair", got.Checks, got.Successes, got.Nominated)
	}
}
