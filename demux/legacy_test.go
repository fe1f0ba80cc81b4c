package demux

import (
	"testing"

	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/transport"
)

// TestRefineLegacyChannel is the rule for RFC 5766's channels 0x5000-0x7FFF, whose first
// byte RFC 9443 gives to QUIC: over UDP ChannelData only on a flow where a ChannelBind
// success response for that exact number was seen; over TURN's TCP framing always.
func TestRefineLegacyChannel(t *testing.T) {
	const other = "198.51.100.20:6000" // a flow with no TURN at all
	tr := NewTracker()
	feedSTUN(t, tr,
		// 0x5001 bound and confirmed on client <-> server, over UDP and over TCP.
		udp(build(t, stun.MethodChannelBind, stun.ClassRequest, 1, channelNumber(0x5001), peerAddr(bob)), client, server, 0),
		udp(build(t, stun.MethodChannelBind, stun.ClassSuccessResponse, 1), server, client, 40),
		tcp(build(t, stun.MethodChannelBind, stun.ClassRequest, 2, channelNumber(0x7FFE), peerAddr(bob)), client, server, 0),
		tcp(build(t, stun.MethodChannelBind, stun.ClassSuccessResponse, 2), server, client, 40),
		// 0x6000 requested, never answered (the capture missed the response): provisional.
		udp(build(t, stun.MethodChannelBind, stun.ClassRequest, 3, channelNumber(0x6000), peerAddr(carol)), client, server, 50),
		// 0x6001 refused.
		udp(build(t, stun.MethodChannelBind, stun.ClassRequest, 4, channelNumber(0x6001), peerAddr(carol)), client, server, 60),
		udp(build(t, stun.MethodChannelBind, stun.ClassErrorResponse, 4, stun.CodeBadRequest), server, client, 100),
	)
	// ChannelData of 21 bytes and more is also long enough for a QUIC short header: the
	// first-byte class is ClassQUIC.
	data := func(ch uint16, n int) []byte {
		b := make([]byte, 4+n)
		b[0], b[1], b[2], b[3] = byte(ch>>8), byte(ch), byte(n>>8), byte(n)
		return b
	}
	tests := []struct {
		name       string
		m          *transport.Message
		cls        Class // what Classify said
		turnFramed bool
		want       Class
	}{
		{"udp bound, to the server", udp(data(0x5001, 160), client, server, 200), ClassQUIC, false, ClassChannelData},
		{"udp bound, from the server", udp(data(0x5001, 160), server, client, 200), ClassQUIC, false, ClassChannelData},
		{"udp bound, 3 bytes of padding", udp(append(data(0x5001, 161), 0, 0, 0), server, client, 200), ClassQUIC, false, ClassChannelData},
		{"udp bound, short (other by its first byte)", udp(data(0x5001, 2), client, server, 200), ClassOther, false, ClassChannelData},
		{"udp bound, length beyond the datagram", udp(data(0x5001, 160)[:100], client, server, 200), ClassQUIC, false, ClassQUIC},
		{"udp bound, more than the padding", udp(append(data(0x5001, 160), 0, 0, 0, 0), client, server, 200), ClassQUIC, false, ClassQUIC},
		{"udp, another number on the flow", udp(data(0x5002, 160), client, server, 200), ClassQUIC, false, ClassQUIC},
		{"udp, bound only over tcp", udp(data(0x7FFE, 160), client, server, 200), ClassQUIC, false, ClassQUIC},
		{"udp, binding unanswered", udp(data(0x6000, 160), client, server, 200), ClassQUIC, false, ClassQUIC},
		{"udp, binding refused", udp(data(0x6001, 160), client, server, 200), ClassQUIC, false, ClassQUIC},
		{"udp, a flow with no allocation", udp(data(0x5001, 160), other, server, 200), ClassQUIC, false, ClassQUIC},
		{"udp, turnFramed means nothing over udp", udp(data(0x5001, 160), other, server, 200), ClassQUIC, true, ClassQUIC},
		{"tcp framed, bound", tcp(data(0x7FFE, 160), client, server, 200), ClassQUIC, true, ClassChannelData},
		{"tcp framed, unbound: a channel of an unknown peer", tcp(data(0x7001, 160), other, server, 200), ClassQUIC, true, ClassChannelData},
		{"tcp framed, unpadded", tcp(data(0x7FFE, 3), client, server, 200), ClassOther, true, ClassChannelData},
		{"tcp not TURN-framed, bound", tcp(data(0x7FFE, 160), client, server, 200), ClassQUIC, false, ClassChannelData},
		{"tcp not TURN-framed, unbound", tcp(data(0x7001, 160), other, server, 200), ClassQUIC, false, ClassQUIC},
		{"RFC 8656 channel: the first byte decided", udp(data(0x4000, 160), other, server, 200), ClassChannelData, false, ClassChannelData},
		{"RTP is left alone", udp([]byte{0x80, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2}, client, server, 200), ClassRTP, true, ClassRTP},
		{"DTLS is left alone", udp([]byte{0x17, 0xFE, 0xFD, 0, 1}, client, server, 200), ClassOther, false, ClassOther},
		{"empty", udp(nil, client, server, 200), ClassOther, true, ClassOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.m.Payload); got != tt.cls {
				t.Fatalf("Classify = %v, want %v: the case is wrong", got, tt.cls)
			}
			if got := tr.Refine(tt.m, tt.cls, tt.turnFramed); got != tt.want {
				t.Errorf("Refine = %v, want %v", got, tt.want)
			}
		})
	}

	// The channel then unwraps with its peer.
	var inner transport.Message
	if !tr.ChannelData(udp(data(0x5001, 160), server, client, 200), &inner) || inner.Peer != ap(bob) ||
		inner.Channel != 0x5001 || len(inner.Payload) != 160 || inner.Wire.Framing != 4 {
		t.Errorf("inner = %+v, want 160 bytes from bob on 0x5001", inner)
	}
	if s := tr.Stats(); s.ChannelDataUnbound != 0 {
		t.Errorf("stats %+v, want no unbound ChannelData", s)
	}
}

func TestRefineAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not measured under -race")
	}
	tr := NewTracker()
	feedSTUN(t, tr,
		udp(build(t, stun.MethodChannelBind, stun.ClassRequest, 1, channelNumber(0x5001), peerAddr(bob)), client, server, 0),
		udp(build(t, stun.MethodChannelBind, stun.ClassSuccessResponse, 1), server, client, 40))
	bound := udp([]byte{0x50, 0x01, 0x00, 0x04, 0x80, 0x60, 0x00, 0x01}, client, server, 1)
	unbound := udp([]byte{0x50, 0x02, 0x00, 0x04, 0x80, 0x60, 0x00, 0x01}, carol, server, 1)
	rtp := udp([]byte{0x80, 0x60, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2}, carol, server, 1)
	if n := testing.AllocsPerRun(100, func() {
		tr.Refine(bound, ClassOther, false)
		tr.Refine(unbound, ClassOther, false)
		tr.Refine(rtp, ClassRTP, false)
	}); n != 0 {
		t.Errorf("Refine allocates %v times per run", n)
	}
}
