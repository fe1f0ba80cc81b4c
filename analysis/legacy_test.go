package analysis

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
)

// RFC 5766 channel numbers 0x5000-0x7FFF, which RFC 8656 no longer allows but RFC 5766
// servers and libwebrtc still bind. Their first byte, 0x50-0x7F, is QUIC's by RFC 9443.
const (
	legacyUDPChannel = 0x5001
	legacyTCPChannel = 0x7FFE
)

// Over UDP, a ChannelBind for 0x5001 that succeeded makes the flow's 0x50 datagrams
// ChannelData: alice's 500 audio packets are reported, relayed, exactly as on 0x4000.
func TestTURNOverUDPLegacyChannel(t *testing.T) {
	c := analyze(t, pcapOf(t, turnCallOn(t, legacyUDPChannel)), Options{})
	if len(c.Legs) != 1 || len(c.Flows) != 1 || len(c.Directions) != 1 {
		t.Fatalf("legs %d flows %d directions %d; want 1 1 1", len(c.Legs), len(c.Flows), len(c.Directions))
	}
	if l := c.Legs[0]; l.Transport != "turn-udp" || len(l.Peers) != 1 || l.Peers[0] != bob.String() {
		t.Errorf("leg = %+v, want turn-udp to %v", l, bob)
	}
	if got, want := c.Flows[0].Content, []string{"stun", "channeldata", "rtp"}; !sameSet(got, want) {
		t.Errorf("flow content %v, want %v", got, want)
	}
	st := onlyStream(t, c)
	if st.Src != alice.String() || st.Dst != bob.String() || st.Packets != 500 || deref(st.Lost) != 0 ||
		st.PayloadBytes != 500*160 {
		t.Errorf("stream %s -> %s packets %d lost %d payload %d, want %v -> %v 500 0 80000",
			st.Src, st.Dst, st.Packets, deref(st.Lost), st.PayloadBytes, alice, bob)
	}
	d := c.Directions[0]
	if d.Transport != "turn-udp" || d.MediaPackets != 500 || d.OverheadBytes.Framing != 500*4 ||
		d.OverheadBytes.LinkIPTransport != 500*42 || d.OverheadBytes.Other != 0 {
		t.Errorf("direction %s packets %d overhead %+v; want turn-udp, 500, framing 2000, headers 21000, other 0",
			d.Transport, d.MediaPackets, d.OverheadBytes)
	}
	want := []report.Channel{{Number: legacyUDPChannel, Peer: bob.String()}}
	if len(c.TURN.Allocations) != 1 {
		t.Fatalf("allocations %+v", c.TURN.Allocations)
	}
	if diff := cmp.Diff(want, c.TURN.Allocations[0].Channels); diff != "" {
		t.Errorf("channels (-want +got):\n%s", diff)
	}
}

// The same datagrams on a 5-tuple with no ChannelBind are not ChannelData: their first byte
// says QUIC (RFC 9443), and they are counted as such: a flow with nothing real-time in it,
// not listed but counted in other_flows, its bytes in the capture's total, with no stream,
// leg or direction. carol sends them to the same server while alice's flow has 0x5001
// bound: the binding belongs to alice's 5-tuple only.
func TestLegacyChannelWithoutBinding(t *testing.T) {
	carol := netip.MustParseAddrPort("10.0.0.3:40000")
	s := audio()
	s.Src, s.Dst, s.SSRC, s.Channel = carol, turnServer, 0x0c0c0c0c, legacyUDPChannel
	unbound := s.Packets()
	bound := turnCallOn(t, legacyUDPChannel)
	var boundWire int64
	for _, p := range bound {
		boundWire += int64(len(p.Frame))
	}

	for _, tt := range []struct {
		name             string
		pkts             []callgen.Packet
		streams, flows   int
		wire, otherFlows int64
	}{
		// 500 datagrams of 42 header bytes and 4 + 172 bytes of ChannelData-shaped bytes.
		{"alone", unbound, 0, 0, 500 * (42 + 176), 1},
		{"beside a bound flow", append(bound, unbound...), 1, 1, boundWire + 500*(42+176), 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := analyze(t, pcapOf(t, tt.pkts), Options{})
			if len(c.Streams) != tt.streams || len(c.Flows) != tt.flows || c.OtherFlows != tt.otherFlows ||
				c.WireBytes != tt.wire {
				t.Errorf("streams %d flows %d other flows %d wire %d; want %d %d %d %d", len(c.Streams), len(c.Flows),
					c.OtherFlows, c.WireBytes, tt.streams, tt.flows, tt.otherFlows, tt.wire)
			}
			for _, st := range c.Streams {
				if st.SSRC == "0x0c0c0c0c" {
					t.Errorf("stream %+v read from unbound channel bytes", st)
				}
			}
			for _, fl := range c.Flows {
				if fl.A == carol.String() || fl.B == carol.String() {
					t.Errorf("flow %+v of the unbound bytes listed", fl)
				}
			}
			if tt.streams == 1 && c.Streams[0].Packets != 500 {
				t.Errorf("the bound flow's stream has %d packets, want 500", c.Streams[0].Packets)
			}
		})
	}
}

// Over TURN's TCP framing a channel of 0x7FFE is framed as ChannelData: every message is
// read, nothing is skipped to resynchronise, and the four streams are reported exactly.
func TestTURNOverTCPLegacyChannel(t *testing.T) {
	call := callgen.TCPCall{Client: tcpClient, Server: tcpServer, ISN: [2]uint32{1000, 900000}}
	c := analyze(t, pcapOf(t, call.Packets(turnTCPWritesOn(legacyTCPChannel, nil))), Options{})
	if len(c.Legs) != 1 || len(c.Flows) != 1 || len(c.Directions) != 2 || len(c.Streams) != 4 {
		t.Fatalf("legs %d flows %d directions %d streams %d; want 1 1 2 4", len(c.Legs), len(c.Flows),
			len(c.Directions), len(c.Streams))
	}
	fl := c.Flows[0]
	if fl.Framing == nil || *fl.Framing != "turn" || fl.TCP == nil {
		t.Fatalf("flow framing %v tcp %v, want turn", fl.Framing, fl.TCP)
	}
	// Each way: the two STUN messages of the setup and 300 ChannelData messages (150 ticks of
	// audio and video), 4 header bytes each and no padding (176 and 1,116 bytes).
	for name, d := range map[string]report.TCPDir{"a_to_b": fl.TCP.AToB, "b_to_a": fl.TCP.BToA} {
		if d.Messages != 302 || d.FramingBytes != 300*4 || d.ResyncSkippedBytes != 0 || d.CaptureGapBytes != 0 {
			t.Errorf("%s: messages %d framing %d resync skipped %d capture gap %d; want 302, 1200, 0, 0",
				name, d.Messages, d.FramingBytes, d.ResyncSkippedBytes, d.CaptureGapBytes)
		}
	}
	if l := c.Legs[0]; l.Transport != "turn-tcp" || len(l.Peers) != 1 || l.Peers[0] != bob.String() {
		t.Errorf("leg = %+v, want turn-tcp to %v", l, bob)
	}
	for _, s := range c.Streams {
		if s.Packets != 150 || deref(s.Lost) != 0 || s.Leg != "l1" {
			t.Errorf("stream %s %s: packets %d lost %d leg %s; want 150, 0, l1", s.ID, s.SSRC, s.Packets, deref(s.Lost), s.Leg)
		}
	}
	pay := int64(tcpTicks * (160 + 1100))
	for _, d := range c.Directions {
		if d.Transport != "turn-tcp" || d.MediaPackets != 300 || d.MediaPayloadBytes != pay ||
			d.OverheadBytes.Framing != 300*4 || d.OverheadBytes.Other != 58 { // the SYN or SYN/ACK
			t.Errorf("direction %s %s: packets %d payload %d overhead %+v; want turn-tcp, 300, %d, framing 1200, other 58",
				d.ID, d.Transport, d.MediaPackets, d.MediaPayloadBytes, d.OverheadBytes, pay)
		}
	}
	want := []report.Channel{{Number: legacyTCPChannel, Peer: bob.String()}}
	if len(c.TURN.Allocations) != 1 {
		t.Fatalf("allocations %+v", c.TURN.Allocations)
	}
	if diff := cmp.Diff(want, c.TURN.Allocations[0].Channels); diff != "" {
		t.Errorf("channels (-want +got):\n%s", diff)
	}
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
