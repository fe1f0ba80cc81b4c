package analysis

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/report"
)

// connectivityIgnored leaves out of a comparison of ICE figures the connectivity checks'
// counts (report.ICE.ConnectivityChecks), which demux's TestICE checks.
var connectivityIgnored = cmpopts.IgnoreFields(report.ICE{}, "ConnectivityChecks", "ConnectivitySuccesses")

// p2pChecks is a direct call on a 104.2 ms network round trip (52.1 ms each way) where each
// agent answers a check in 0.8 ms and sends five: its own checks take 105 ms, the peer's are
// answered next to the capture in 0.8 ms.
var p2pChecks = callgen.ICECall{
	A: netip.MustParseAddrPort("10.0.0.1:50000"), B: netip.MustParseAddrPort("198.51.100.9:61000"),
	OneWay: 52100 * time.Microsecond, Answer: [2]time.Duration{800 * time.Microsecond, 800 * time.Microsecond},
	Checks: 5, Interval: time.Second, Start: 100 * time.Millisecond,
}

// rtt is n samples of exactly ms.
func rtt(n int64, ms float64) *report.Quantiles {
	return &report.Quantiles{Samples: n, Min: ms, P50: ms, P95: ms, P99: ms, Max: ms}
}

// At either end of a P2P call the round trip is this host's checks only: 105 ms, not the
// 0.8 ms its own answers take.
func TestICERTTAtEitherEnd(t *testing.T) {
	for at, name := range []string{"A", "B"} {
		t.Run(name, func(t *testing.T) {
			c := analyze(t, pcapOf(t, p2pChecks.Packets(at)), Options{})
			want := report.ICE{
				Checks: 10, Successes: 10, RTTMS: rtt(5, 105),
				Ufrags:    []string{"aaaa:bbbb", "bbbb:aaaa"},
				Nominated: []string{},
				RTTLegs:   []report.ICERTTLeg{{Leg: "host_peer", RTTMS: rtt(5, 105)}},
			}
			if d := cmp.Diff(want, c.ICE, connectivityIgnored); d != "" {
				t.Errorf("ice (-want +got):\n%s", d)
			}
		})
	}
}

// Half-way between the agents (26.05 ms from each) both directions are answered 52.9 ms
// after the capture saw the request: neither left this host, each measures half the path,
// and no round trip is reported.
func TestICERTTBetweenTheAgents(t *testing.T) {
	mid := p2pChecks
	mid.Off = mid.OneWay / 2
	mid.A = netip.MustParseAddrPort("192.0.2.1:50000") // public: no NAT places the capture
	c := analyze(t, pcapOf(t, mid.Packets(0)), Options{})
	if c.ICE.RTTMS != nil || len(c.ICE.RTTLegs) != 0 || c.ICE.Checks != 10 {
		t.Errorf("ice %+v, want 10 checks and no round trip", c.ICE)
	}
}

// relayChecks: a TURN client 20 ms from the server, the peer 32 ms from the relay, the server
// relaying in 0.2 ms, the client answering in 1.1 ms and the peer in 0.6 ms, three checks
// each way. The client's round trip is 40 + 0.4 + 64 + 0.6 = 105 ms.
var relayChecks = callgen.ICERelayCall{
	Client: callgen.ExampleClient, Server: callgen.ExampleServer, Relayed: callgen.ExampleRelayed, Peer: callgen.ExamplePeer,
	Channel: 0x4000, ClientOneWay: 20 * time.Millisecond, PeerOneWay: 32 * time.Millisecond, Forward: 200 * time.Microsecond,
	Answer: [2]time.Duration{1100 * time.Microsecond, 600 * time.Microsecond},
	Checks: 3, Interval: time.Second, Start: 10 * time.Millisecond,
}

// relayAtServer and relayAtClient are relayChecks' ICE figures at the TURN server and at
// the client, whether the client's leg is UDP or TCP.
var (
	relayAtServer = report.ICE{
		Checks: 6, Successes: 6,
		RTTMS:     &report.Quantiles{Samples: 6, Min: 41.1, P50: 41.1, P95: 64.6, P99: 64.6, Max: 64.6},
		Ufrags:    []string{"cccc:pppp", "pppp:cccc"},
		Nominated: []string{},
		RTTLegs: []report.ICERTTLeg{
			{Leg: "relay_peer", RTTMS: rtt(3, 64.6)},
			{Leg: "relay_client", RTTMS: rtt(3, 41.1)},
		},
	}
	relayAtClient = report.ICE{
		Checks: 6, Successes: 6, RTTMS: rtt(3, 105),
		Ufrags:    []string{"cccc:pppp", "pppp:cccc"},
		Nominated: []string{},
		RTTLegs:   []report.ICERTTLeg{{Leg: "host_relay_peer", RTTMS: rtt(3, 105)}},
	}
)

// At the TURN server each check is seen on both legs: it counts once, and its round trip
// covers the leg it left the server on: relay to peer 64.6 ms (2 × 32 + 0.6) for the
// client's checks, server to client 41.1 ms (2 × 20 + 1.1) for the peer's.
func TestICERTTAtTURNServer(t *testing.T) {
	c := analyze(t, pcapOf(t, relayChecks.Packets(callgen.AtServer)), Options{})
	if d := cmp.Diff(relayAtServer, c.ICE, connectivityIgnored); d != "" {
		t.Errorf("ice (-want +got):\n%s", d)
	}
}

// The same call at the client: its own checks, through the relay, 105 ms; the peer's, which
// it answers in 1.1 ms, are not round trips.
func TestICERTTAtTURNClient(t *testing.T) {
	c := analyze(t, pcapOf(t, relayChecks.Packets(callgen.AtClient)), Options{})
	if d := cmp.Diff(relayAtClient, c.ICE, connectivityIgnored); d != "" {
		t.Errorf("ice (-want +got):\n%s", d)
	}
	// Only checks went through the allocation: no leg, no media relayed (h139: a turn-udp
	// leg, and "Media relayed over UDP" in the text).
	if len(c.Legs) != 0 || len(c.TURN.Allocations) != 1 {
		t.Errorf("legs %+v, %d allocations; want none, 1", c.Legs, len(c.TURN.Allocations))
	}
}

// One way only between public addresses: where every answer took longer than an agent takes
// to answer one (minPathRTTMS), the checks were not answered here: captured at A, A's
// checks, answered in 105 ms, are its round trips (an unknown leg before). Captured at B,
// the same checks, answered there in 0.8 ms, may have been sent or answered here: the
// times are reported as an unknown leg, not as rtt_ms.
func TestICERTTOneWay(t *testing.T) {
	one := p2pChecks
	one.A = netip.MustParseAddrPort("192.0.2.1:50000")
	for _, tc := range []struct {
		at   int
		want []report.ICERTTLeg
	}{
		{0, []report.ICERTTLeg{{Leg: "host_peer", RTTMS: rtt(5, 105)}}},
		{1, []report.ICERTTLeg{{Leg: "unknown", RTTMS: rtt(5, 0.8)}}},
	} {
		var pkts []callgen.Packet
		for i, p := range one.Packets(tc.at) {
			if i%4 < 2 { // A's checks and their answers only
				pkts = append(pkts, p)
			}
		}
		c := analyze(t, pcapOf(t, pkts), Options{})
		if d := cmp.Diff(tc.want, c.ICE.RTTLegs); d != "" || (c.ICE.RTTMS != nil) != (tc.want[0].Leg == "host_peer") {
			t.Errorf("at %d: rtt_ms %+v, legs (-want +got):\n%s", tc.at, c.ICE.RTTMS, d)
		}
	}
}

// The same call with the client leg over TURN/TCP, at the TURN server: the capture is at the
// sender of the server-to-client direction, whose messages tcpframe holds until the client's
// ACK dates their delivery (20 ms + 20 ms later), while the peer leg's datagrams go through
// at once. So the demux gets a check's two copies, and its answer's, out of capture order:
// the client's check and its answer on the peer leg before the check on the client leg
// (held behind the server's earlier messages), and the answer to the peer's check on the
// peer leg before the client's answer on TCP. Counted by transaction, not by arrival order,
// each check is still one check and one success, with the round trip of its onward leg: the
// same figures as over UDP, 64.6 ms relay to peer, 41.1 ms server to client.
func TestICERTTAtTURNServerTCP(t *testing.T) {
	tcp := relayChecks
	tcp.ClientTCP = true
	c := analyze(t, pcapOf(t, tcp.Packets(callgen.AtServer)), Options{})
	if d := cmp.Diff(relayAtServer, c.ICE, connectivityIgnored); d != "" {
		t.Errorf("ice (-want +got):\n%s", d)
	}
	// Checks through the relay are no media: no leg (h139), the allocation over TCP.
	if len(c.Legs) != 0 || len(c.TURN.Allocations) != 1 || c.TURN.Allocations[0].Transport != "tcp" {
		t.Errorf("legs %+v, allocations %+v; want no leg, the allocation over TCP", c.Legs, c.TURN.Allocations)
	}
}

// At the client of the TURN/TCP leg: its own checks through the relay, 105 ms.
func TestICERTTAtTURNClientTCP(t *testing.T) {
	tcp := relayChecks
	tcp.ClientTCP = true
	c := analyze(t, pcapOf(t, tcp.Packets(callgen.AtClient)), Options{})
	if d := cmp.Diff(relayAtClient, c.ICE, connectivityIgnored); d != "" {
		t.Errorf("ice (-want +got):\n%s", d)
	}
}

// TestICERTTOverICETCPOnALAN: ICE-TCP between two private addresses 0.4 ms apart, captured
// at the client (the connection's vantage: sender of its data, receiver of the peer's).
// Both agents answer a check in 0.15 ms, so the client's checks take 0.55 ms and the
// peer's are answered here in 0.15 ms: too close for the answer times to say which end is
// this host, and no NAT between them. The connection's vantage says it: the client's five
// checks are the round trips (before: rtt_ms null, a real pion capture's 16 checks lost).
func TestICERTTOverICETCPOnALAN(t *testing.T) {
	client, server := netip.MustParseAddrPort("10.80.1.2:35869"), netip.MustParseAddrPort("10.80.2.2:8443")
	const rtt, answer = 400 * time.Microsecond, 150 * time.Microsecond
	msg := func(id byte, typ stun.MessageType, setters ...stun.Setter) []byte {
		return callgen.Frame4571(stunMsg(t, id, typ, setters...))
	}
	var writes []callgen.TCPWrite
	for k := range 5 {
		at := 100*time.Millisecond + time.Duration(k)*100*time.Millisecond
		id := byte(10 + 2*k)
		writes = append(writes,
			callgen.TCPWrite{T: at, Dir: 0, Data: msg(id, stun.BindingRequest, stun.NewUsername("b:a"))},
			callgen.TCPWrite{T: at + rtt/2 + answer, Dir: 1, Data: msg(id, stun.BindingSuccess)},
			callgen.TCPWrite{T: at + 50*time.Millisecond, Dir: 1, Data: msg(id+1, stun.BindingRequest, stun.NewUsername("a:b"))},
			callgen.TCPWrite{T: at + 50*time.Millisecond + rtt/2 + answer, Dir: 0, Data: msg(id+1, stun.BindingSuccess)})
	}
	call := callgen.TCPCall{Client: client, Server: server, RTT: rtt, ISN: [2]uint32{100, 900}}
	c := analyze(t, pcapOf(t, call.Packets(callgen.MergeWrites(writes))), Options{})
	if c.ICE.Checks != 10 || c.ICE.RTTMS == nil || c.ICE.RTTMS.Samples != 5 || c.ICE.RTTMS.P50 != 0.55 {
		t.Errorf("ice %+v, rtt %+v: want 10 checks, and the client's 5 round trips of 0.55 ms", c.ICE, c.ICE.RTTMS)
	}
}
