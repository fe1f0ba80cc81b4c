package analysis

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/render"
	"github.com/callpcap/callpcap/report"
)

// relayCall is turnCall seen at the TURN server: alice's audio arrives in ChannelData on the
// TURN leg and leaves, 2 ms later, as plain RTP from the relayed address to bob. Packets
// 100-102 never reach the server (lost before the relay); packets 7, 57, …, 457 (i%50 == 7)
// are not sent on (lost after it). An ICE check through the relay opens the peer leg first.
func relayCall(t *testing.T) []callgen.Packet { return relayCallWith(t, true) }

// relayCallWith is relayCall, without the ICE check unless withCheck.
func relayCallWith(t *testing.T, withCheck bool) []callgen.Packet {
	pkts := turnCall(t)
	beforeRelay := func(i int) bool { return i >= 100 && i <= 102 }
	in := audio()
	in.Dst, in.Channel, in.Start, in.Lose = turnServer, 0x4000, 200*time.Millisecond, beforeRelay
	kept := append(pkts[:6:6], in.Packets()...) // the allocation and the channel binding, then the media
	var tid [stun.TransactionIDSize]byte
	tid[0] = 9
	check := stun.New()
	if err := check.Build(stun.NewTransactionIDSetter(tid), stun.BindingRequest, stun.NewUsername("bob1:alice1")); err != nil {
		t.Fatal(err)
	}
	if withCheck {
		kept = append(kept,
			callgen.Packet{T: callgen.Epoch + int64(150*time.Millisecond), Frame: pcapgen.EtherUDP(alice, turnServer, callgen.ChannelData(0x4000, check.Raw))},
			callgen.Packet{T: callgen.Epoch + int64(152*time.Millisecond), Frame: pcapgen.EtherUDP(relayed, bob, check.Raw)})
	}
	out := audio()
	out.Src, out.Start = relayed, 202*time.Millisecond
	out.Lose = func(i int) bool { return beforeRelay(i) || i%50 == 7 }
	return append(kept, out.Packets()...)
}

func TestRelayCorrelation(t *testing.T) {
	c := analyze(t, pcapOf(t, relayCall(t)), Options{})
	if len(c.Legs) != 2 {
		t.Fatalf("legs %+v, want the TURN leg and the peer leg", c.Legs)
	}
	rel := relayed.String()
	if d := cmp.Diff(relayLegs("turn-udp", alice, turnServer, relayed, bob), c.Legs); d != "" {
		t.Errorf("legs (-want +got):\n%s", d)
	}
	// The same SSRC and sequence numbers on both legs: two streams, no duplicates.
	type st struct {
		Leg, Src, Dst       string
		Packets, Lost, Dups int64
		DroppedBeforeTCP    int64
	}
	var gotS []st
	for _, s := range c.Streams {
		gotS = append(gotS, st{s.Leg, s.Src, s.Dst, s.Packets, deref(s.Lost), s.Duplicates, deref(s.DroppedBeforeTCP)})
	}
	wantS := []st{
		{"l1", alice.String(), bob.String(), 497, 3, 0, 0},
		{"l2", rel, bob.String(), 487, 13, 0, 0},
	}
	if d := cmp.Diff(wantS, gotS); d != "" {
		t.Errorf("streams (-want +got):\n%s", d)
	}
	if len(c.Directions) != 2 {
		t.Fatalf("directions %d, want 2", len(c.Directions))
	}
	// 497 packets reached the relay, 487 of them left it 2 ms later; 10 vanished inside it
	// (or on its way out, before the capture), 3 before it.
	want := &report.Relay{Matched: 487, LostBeforeRelay: 3, LostAfterRelay: 10,
		LatencyMS: &report.Quantiles{Samples: 487, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}}
	if d := cmp.Diff(want, c.Directions[0].Relay); d != "" {
		t.Errorf("relay of %s -> %s (-want +got):\n%s", c.Directions[0].From, c.Directions[0].To, d)
	}
	if c.Directions[1].Relay != nil {
		t.Errorf("the peer leg's direction has relay %+v, want null", c.Directions[1].Relay)
	}
	// The call direction's loss is said once, split by where it happened (before: one
	// rtp_loss per leg, 3 and 13 of 500, the 3 said twice).
	var loss []report.Finding
	for _, f := range c.Findings {
		if f.Code == report.FindingRTPLoss {
			loss = append(loss, f)
		}
	}
	want1 := []report.Finding{{Code: report.FindingRTPLoss, Severity: report.SeverityWarn,
		Text: alice.String() + " -> " + bob.String() + " through the relay: 13 of 500 media packets were lost (2.6%): " +
			"3 before the relay, 10 that reached it and never left it.",
		Legs: []string{"l1", "l2"}, Directions: []string{"d1", "d2"},
		Figures: map[string]float64{"lost": 13, "expected": 500, "loss_pct": 2.6, "lost_before_relay": 3, "lost_after_relay": 10}}}
	if d := cmp.Diff(want1, loss); d != "" {
		t.Errorf("rtp_loss findings (-want +got):\n%s", d)
	}
}

// TestRelayWithoutICECheck: the relay of relayCall with no ICE check before the media, so
// that the first packet reaches the relay before the capture has seen the peer leg at all:
// it is matched all the same when it leaves. Before, the first packet's two copies were
// neither matched nor lost: matched 486.
func TestRelayWithoutICECheck(t *testing.T) {
	checkRelay(t, analyze(t, pcapOf(t, relayCallWith(t, false)), Options{}), 487)
}

// checkRelay checks the relay figures of relayCall's call direction: matched packets that
// left the relay 2 ms after they reached it, 3 lost before it and 10 after.
func checkRelay(t *testing.T, c report.Capture, matched int64) {
	t.Helper()
	want := &report.Relay{Matched: matched, LostBeforeRelay: 3, LostAfterRelay: 10,
		LatencyMS: &report.Quantiles{Samples: matched, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}}
	if len(c.Directions) != 2 {
		t.Fatalf("directions %d, want 2", len(c.Directions))
	}
	if d := cmp.Diff(want, c.Directions[0].Relay); d != "" {
		t.Errorf("relay of %s -> %s (-want +got):\n%s", c.Directions[0].From, c.Directions[0].To, d)
	}
}

// TestRelayIngressCopyMissed: the capture misses the ingress copy of packet 30 (an
// interface drop) but sees it leave the relay: the relay had it, so it is not lost before
// the relay, though the ingress stream counts it lost (4). Before, lost_before_relay read 4.
func TestRelayIngressCopyMissed(t *testing.T) {
	pkts := relayCall(t)
	pkts = slices.Delete(pkts, 6+30, 6+31) // the allocation and binding, then packets 0, 1, …
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Streams) != 2 || deref(c.Streams[0].Lost) != 4 {
		t.Fatalf("streams %d (first lost %d); want 2, and 4", len(c.Streams), deref(c.Streams[0].Lost))
	}
	checkRelay(t, c, 486)
}

// TestRelayCaptureEnds: the capture of relayCall ends as packet 499 reaches the relay, 2 ms
// before it would leave: whether it left is unknown, and it is not lost after the relay.
// Before, it was: 11 that reached it and never left it.
func TestRelayCaptureEnds(t *testing.T) {
	pkts := relayCall(t)
	pkts = pkts[:len(pkts)-1] // packet 499's egress copy
	checkRelay(t, analyze(t, pcapOf(t, pkts), Options{}), 486)
}

// The same relay captured on two interfaces: the TURN leg in full, the peer leg cut to its
// Ethernet, IPv4 and UDP headers and the 12-byte RTP header (snap length 42 + 12). The peer
// leg's packets still give SSRC and sequence number: the relay matches as before, sizes come
// from the original lengths, and a warning says how many packets were cut.
func TestRelayWithSnappedPeerLeg(t *testing.T) {
	pkts := relayCall(t)
	var buf bytes.Buffer
	w := pcapgen.NewPcapNG(&buf, []pcapgen.Iface{{Link: capture.LinkEthernet}, {Link: capture.LinkEthernet, SnapLen: 42 + 12}})
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	snapped := 0
	for _, p := range pkts {
		iface := 0
		if [4]byte(p.Frame[26:30]) == relayed.Addr().As4() && binary.BigEndian.Uint16(p.Frame[34:]) == relayed.Port() {
			// From the relayed address: the peer leg.
			iface = 1
			snapped++
		}
		if err := w.Write(p.T, iface, p.Frame, 0); err != nil {
			t.Fatal(err)
		}
	}
	c := analyze(t, buf.Bytes(), Options{})
	if c.SnappedPackets != int64(snapped) || snapped != 487+1 {
		t.Errorf("snapped packets %d, want %d (487 RTP and the ICE check)", c.SnappedPackets, snapped)
	}
	want := &report.Relay{Matched: 487, LostBeforeRelay: 3, LostAfterRelay: 10,
		LatencyMS: &report.Quantiles{Samples: 487, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}}
	if len(c.Directions) != 2 {
		t.Fatalf("directions %d, want 2", len(c.Directions))
	}
	if d := cmp.Diff(want, c.Directions[0].Relay); d != "" {
		t.Errorf("relay (-want +got):\n%s", d)
	}
	s := c.Streams[1]
	if s.Leg != "l2" || s.Packets != 487 || s.PayloadBytes != 487*160 || deref(s.Lost) != 13 {
		t.Errorf("peer leg stream %s packets %d payload %d lost %d; want l2 487 %d 13", s.Leg, s.Packets, s.PayloadBytes,
			deref(s.Lost), 487*160)
	}
	found, which := false, false
	for _, w := range c.Warnings {
		found = found || strings.Contains(w, "488 packets were cut by the snap length")
		which = which || w == "interface 1: 488 packets cut by its snap length"
	}
	if !found || !which {
		t.Errorf("warnings %q lack the snapped packets, or the interface that cut them", c.Warnings)
	}
	checkFindings(t, c.Findings, map[string][]string{"snapped_packets": {"488 packets"}})
}

// relayTCPCall is a relay captured at the TURN server with the client's leg over TCP (TURN
// over TCP, the server accepting; RTT 80 ms between the server and the client), the peer's
// over UDP. The server's segments are captured when it sends them, the client's when they
// arrive, each acknowledged at once.
//
// The client allocates and binds channel 0x4000 to bob (each request answered 1 ms after
// it arrives). Then, shift later than the times below: with ice, at 260 ms tcpClient's ICE
// check reaches the server through the channel and leaves on the peer leg 1 ms later,
// answered 20 ms after that; and the media:
//   - up, tcpClient to bob (SSRC 0xa0a0a0a0, 100 packets): packet i reaches the server at
//     400 ms + 20 ms·i, except 30 and 31, which the client never sends (lost before the
//     relay); the server sends it on after 3 ms, 12 ms for i%10 == 4, 21 ms for i == 66,
//     except 50 and 98 (lost after the relay).
//   - down, bob to tcpClient (SSRC 0xb0b0b0b0): packet i reaches the relayed address at
//     390 ms + 20 ms·i, except 7, 8 and 60; the server sends it on after 5 ms, 9 ms for
//     i%25 == 0, 22 ms for i == 33, except 20, 45, 80 and 81.
//
// Latencies stay below 20 ms plus the least one, so that the relay keeps each direction's
// order.
func relayTCPCall(t *testing.T, shift time.Duration, ice bool) []callgen.Packet {
	t.Helper()
	return relayTCPCallFrom(t, shift, ice, true)
}

// relayTCPCallFrom is relayTCPCall, without the Allocate and the ChannelBind unless
// signalled (a capture that began after them).
func relayTCPCallFrom(t *testing.T, shift time.Duration, ice, signalled bool) []callgen.Packet {
	t.Helper()
	return relayTCPCallDropping(t, shift, ice, signalled, nil, nil)
}

// relayTCPCallDropping is relayTCPCallFrom, the server also dropping bob's packets of
// index in drop (they reach the relay and never leave it), and those in lose lost before
// the relay too.
func relayTCPCallDropping(t *testing.T, shift time.Duration, ice, signalled bool, drop, lose []int) []callgen.Packet {
	t.Helper()
	const rtt = 80 * time.Millisecond
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	msg := func(id byte, typ stun.MessageType, setters ...stun.Setter) []byte {
		return stunMsg(t, id, typ, setters...)
	}
	var pkts []callgen.Packet
	var writes []callgen.TCPWrite
	// Direction 0 of the connection is the server's, seen when sent; direction 1 the
	// client's, seen RTT/2 after it was sent.
	up := func(seen time.Duration, b []byte) {
		writes = append(writes, callgen.TCPWrite{T: seen - rtt/2, Dir: 1, Data: b})
	}
	down := func(sent time.Duration, b []byte) {
		writes = append(writes, callgen.TCPWrite{T: sent, Dir: 0, Data: b})
	}
	peer := func(at time.Duration, src, dst netip.AddrPort, b []byte) {
		pkts = append(pkts, callgen.Packet{T: callgen.Epoch + int64(at), Frame: pcapgen.EtherUDP(src, dst, b)})
	}
	ch := raw(stun.AttrChannelNumber, 0x40, 0x00, 0, 0)
	if signalled {
		up(ms(100), msg(1, stun.NewType(stun.MethodAllocate, stun.ClassRequest)))
		down(ms(101), msg(1, stun.NewType(stun.MethodAllocate, stun.ClassSuccessResponse),
			xorAddr(stun.AttrXORRelayedAddress, tcpRelayed), raw(stun.AttrLifetime, 0, 0, 2, 0x58)))
		up(ms(182), msg(2, stun.NewType(stun.MethodChannelBind, stun.ClassRequest), ch, xorAddr(stun.AttrXORPeerAddress, bob)))
		down(ms(183), msg(2, stun.NewType(stun.MethodChannelBind, stun.ClassSuccessResponse)))
	}
	check := msg(3, stun.BindingRequest, stun.NewUsername("bob1:tcp1"))
	answer := msg(3, stun.BindingSuccess, xorAddr(stun.AttrXORMappedAddress, tcpRelayed))
	if ice {
		up(shift+ms(260), callgen.ChannelData(channel, check))
		peer(shift+ms(261), tcpRelayed, bob, check)
		peer(shift+ms(281), bob, tcpRelayed, answer)
		down(shift+ms(282), callgen.ChannelData(channel, answer))
	}

	stream := func(ssrc uint32) callgen.Stream {
		return callgen.Stream{SSRC: ssrc, PT: 0, ClockRate: 8000, Interval: 20 * time.Millisecond, PayloadSize: 160,
			StartSeq: 1000, StartTS: 5000}
	}
	upS, downS := stream(0xa0a0a0a0), stream(0xb0b0b0b0)
	for i := range 100 {
		if i != 30 && i != 31 {
			at := shift + ms(400+20*i)
			up(at, callgen.ChannelData(channel, upS.RTP(i)))
			lat := ms(3)
			switch {
			case i%10 == 4:
				lat = ms(12)
			case i == 66:
				lat = ms(21)
			}
			if i != 50 && i != 98 {
				peer(at+lat, tcpRelayed, bob, upS.RTP(i))
			}
		}
		if i != 7 && i != 8 && i != 60 && !slices.Contains(lose, i) {
			at := shift + ms(390+20*i)
			peer(at, bob, tcpRelayed, downS.RTP(i))
			lat := ms(5)
			switch {
			case i%25 == 0:
				lat = ms(9)
			case i == 33:
				lat = ms(22)
			}
			if i != 20 && i != 45 && i != 80 && i != 81 && !slices.Contains(drop, i) {
				down(at+lat, callgen.ChannelData(channel, downS.RTP(i)))
			}
		}
	}
	c := callgen.TCPCall{Client: tcpServer, Server: tcpClient, Passive: true, RTT: rtt, ISN: [2]uint32{1000, 5000}}
	return append(pkts, c.Packets(callgen.MergeWrites(writes))...)
}

// TestRelayOverTCP checks relayTCPCall's figures: up, 96 packets matched (85 after 3 ms, 10
// after 12, one after 21), 2 lost before the relay and 2 after; down, 93 (88 after 5 ms, 4
// after 9, one after 22), 3 before and 4 after. The latency toward the client is the send
// time of the segment, not its delivery (which the server's capture dates half a round
// trip later), and the peer leg counts though its first datagram comes before the server's
// Allocate response is delivered out of the TCP connection (the connection's timing is
// not known yet, and holds it back).
//
// Without the ICE check through the relay, the media opens the peer leg, and the response
// is delivered only once the vantage of its direction is known, at the third ACK of its
// segments (the Allocate and ChannelBind responses', then that of bob's packet 0, sent at
// 399 ms): 479 ms. The peer leg's datagrams before that, bob's packets 0-4 (390-470 ms)
// and the egress copies of tcpClient's 0-3 (406-463 ms), are recorded then from those held
// (heldDatagrams): the figures are the same. Before, they were neither matched nor lost
// (92 and 88 matched).
func TestRelayOverTCP(t *testing.T) {
	for _, tt := range []struct {
		name  string
		shift time.Duration
		ice   bool
	}{
		{"peer leg before the allocation is delivered", 0, true},
		{"media 3 s later", 3 * time.Second, true},
		{"no ICE check through the relay", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := analyze(t, pcapOf(t, relayTCPCall(t, tt.shift, tt.ice)), Options{})
			want := map[[2]string]*report.Relay{
				{tcpClient.String(), bob.String()}: {Matched: 96, LostBeforeRelay: 2, LostAfterRelay: 2,
					LatencyMS: &report.Quantiles{Samples: 96, Min: 3, P50: 3, P95: 12, P99: 21, Max: 21}},
				{bob.String(), tcpClient.String()}: {Matched: 93, LostBeforeRelay: 3, LostAfterRelay: 4,
					LatencyMS: &report.Quantiles{Samples: 93, Min: 5, P50: 5, P95: 9, P99: 22, Max: 22}},
				{bob.String(), tcpRelayed.String()}: nil,
				{tcpRelayed.String(), bob.String()}: nil,
			}
			if d := cmp.Diff(want, relaysOf(c)); d != "" {
				t.Errorf("relay by direction (-want +got):\n%s", d)
			}
			if d := cmp.Diff(relayLegs("turn-tcp", tcpClient, tcpServer, tcpRelayed, bob), c.Legs); d != "" {
				t.Errorf("legs (-want +got):\n%s", d)
			}
			// Loss, once per call direction, by where it happened: up, the client's 30 and 31
			// never entered its connection (dropped before TCP, by the client), 50 and 98
			// reached the relay and never left it; down, 7, 8 and 60 never reached the relay,
			// 20, 45, 80 and 81 never entered the connection (by the server; the client's leg
			// misses 7, but 3 of them never reached the server). Before, the peer leg's
			// direction said up's 4 as network loss, and down's 7 were all the relay's.
			var got []string
			for _, f := range c.Findings {
				if f.Code == report.FindingRTPLoss || f.Code == report.FindingDroppedBeforeTCP {
					got = append(got, f.Text)
				}
			}
			wantF := []string{
				tcpClient.String() + " -> " + bob.String() + " through the relay: 2 of 100 media packets were lost (2.0%): 2 that reached it and never left it.",
				tcpClient.String() + " -> " + bob.String() + ": 2 RTP packets never entered the TCP connection (a gap in RTP sequence numbers where TCP lost nothing): the client dropped them when its TCP send buffer was full.",
				bob.String() + " -> " + tcpClient.String() + " through the relay: 3 of 100 media packets were lost (3.0%): 3 before the relay.",
				bob.String() + " -> " + tcpClient.String() + ": 4 RTP packets never entered the TCP connection (a gap in RTP sequence numbers where TCP lost nothing): the TURN server dropped them when its TCP send buffer was full.",
			}
			slices.Sort(got)
			slices.Sort(wantF)
			if d := cmp.Diff(wantF, got); d != "" {
				t.Errorf("loss findings (-want +got):\n%s", d)
			}
			// The same in the figures: down's client leg misses 7, of which the 3 that never
			// reached the relay were not dropped before TCP (it read 7 before).
			dropped := map[[2]string]int64{}
			for _, d := range c.Directions {
				if d.Loss.DroppedBeforeTCP != nil && *d.Loss.DroppedBeforeTCP > 0 {
					dropped[[2]string{d.From, d.To}] = *d.Loss.DroppedBeforeTCP
				}
			}
			wantD := map[[2]string]int64{{tcpClient.String(), bob.String()}: 2, {bob.String(), tcpClient.String()}: 4}
			if d := cmp.Diff(wantD, dropped); d != "" {
				t.Errorf("dropped_before_tcp by direction (-want +got):\n%s", d)
			}
		})
	}
}

// TestRelayOverTCPLostEarly: relayTCPCall without the ICE check, without the egress copy
// of tcpClient's packet 2 (443 ms on the peer leg), and without the ChannelData of bob's
// packets 0 and 2 (395 and 435 ms): each reached the relay and never left it, before the
// Allocate response was delivered (479 ms). The peer leg's datagrams held until then and
// the TURN leg, read whole from its first message (the Allocate), tell it: up loses 3
// after the relay, not 2, and matches 95; down 6, not 4, and matches 91 (before: the
// packets from before 479 ms without their other copy were counted nowhere; then, for a
// while, those before the TURN leg's first copy in the direction: bob's 0).
func TestRelayOverTCPLostEarly(t *testing.T) {
	pkts := slices.DeleteFunc(relayTCPCallDropping(t, 0, false, true, []int{0, 2}, nil), func(p callgen.Packet) bool {
		return p.T == callgen.Epoch+int64(443*time.Millisecond) &&
			bytes.Equal(p.Frame, pcapgen.EtherUDP(tcpRelayed, bob, p.Frame[len(p.Frame)-172:]))
	})
	c := analyze(t, pcapOf(t, pkts), Options{})
	for _, w := range []struct {
		from, to                       netip.AddrPort
		matched, lostAfter, lostBefore int64
	}{{tcpClient, bob, 95, 3, 2}, {bob, tcpClient, 91, 6, 3}} {
		r := relaysOf(c)[[2]string{w.from.String(), w.to.String()}]
		if r == nil || r.Matched != w.matched || r.LostAfterRelay != w.lostAfter || r.LostBeforeRelay != w.lostBefore {
			t.Errorf("%v -> %v: relay %+v, want %d matched, %d lost after, %d before", w.from, w.to, r, w.matched, w.lostAfter, w.lostBefore)
		}
	}
}

// TestRelayOverTCPEgressCaptureGap: relayTCPCall without the segment that carried bob's
// packet 40 to the client (the capture missed it; the client's ACK passes it): the relay
// forwarded it, into a capture gap of the leg to the client. Down matches 92, and loses 3
// before the relay and 4 after it, as in TestRelayOverTCP; its 4 dropped before TCP stay
// 4. Before, packet 40 was lost after the relay too (h138: 5).
func TestRelayOverTCPEgressCaptureGap(t *testing.T) {
	bobS := callgen.Stream{SSRC: 0xb0b0b0b0, PT: 0, ClockRate: 8000, Interval: 20 * time.Millisecond, PayloadSize: 160,
		StartSeq: 1000, StartTS: 5000}
	rtp := bobS.RTP(40)
	n := 0
	pkts := slices.DeleteFunc(relayTCPCall(t, 0, true), func(p callgen.Packet) bool {
		hit := bytes.Contains(p.Frame, rtp) && p.Frame[14+9] == 6 // TCP, on the leg to the client
		if hit {
			n++
		}
		return hit
	})
	if n != 1 {
		t.Fatalf("%d frames carry bob's packet 40 to the client, want 1", n)
	}
	c := analyze(t, pcapOf(t, pkts), Options{})
	i := slices.IndexFunc(c.Directions, func(d report.Direction) bool { return d.From == bob.String() && d.To == tcpClient.String() })
	if i < 0 {
		t.Fatalf("no direction %v -> %v", bob, tcpClient)
	}
	d := c.Directions[i]
	if r := d.Relay; r == nil || r.Matched != 92 || r.LostBeforeRelay != 3 || r.LostAfterRelay != 4 {
		t.Errorf("relay %+v, want 92 matched, 3 lost before, 4 after", r)
	}
	if d.Loss.DroppedBeforeTCP == nil || *d.Loss.DroppedBeforeTCP != 4 {
		t.Errorf("dropped_before_tcp %d, want 4", deref(d.Loss.DroppedBeforeTCP))
	}
}

// TestRelayDroppedBeforeTCPFromItsFirst: relayTCPCall without the ICE check, bob's packets
// 1 and 4 lost before the relay and 0, 2 and 3 dropped by it, so that the stream on the
// leg to the client begins at 5. Its gaps where TCP lost nothing are 7, 8 and 60, which
// never reached the relay, and 20, 45, 80 and 81, which it dropped: 4 dropped before TCP,
// as in TestRelayOverTCP. Before, every packet the ingress leg lost (5) was taken off its
// 7 gaps, 1 and 4 among them though they lie before its first packet: 2. The relay
// figures: 88 matched, 5 lost before it, 7 after it.
func TestRelayDroppedBeforeTCPFromItsFirst(t *testing.T) {
	c := analyze(t, pcapOf(t, relayTCPCallDropping(t, 0, false, true, []int{0, 2, 3}, []int{1, 4})), Options{})
	i := slices.IndexFunc(c.Directions, func(d report.Direction) bool { return d.From == bob.String() && d.To == tcpClient.String() })
	if i < 0 {
		t.Fatalf("no direction %v -> %v", bob, tcpClient)
	}
	d := c.Directions[i]
	if d.Loss.DroppedBeforeTCP == nil || *d.Loss.DroppedBeforeTCP != 4 {
		t.Errorf("dropped_before_tcp %d, want 4", deref(d.Loss.DroppedBeforeTCP))
	}
	if r := d.Relay; r == nil || r.Matched != 88 || r.LostBeforeRelay != 5 || r.LostAfterRelay != 7 {
		t.Errorf("relay %+v, want 88 matched, 5 lost before, 7 after", r)
	}
	// The loss finding says the 4 dropped before TCP apart, as the direction and
	// dropped_before_tcp's finding do, and the other 3 the relay never sent (0, 2, 3) as
	// lost after it. Before, all 7 were taken for drops before TCP: neither sentence had
	// those 3, and its figure said 7 (h141).
	for _, f := range c.Findings {
		if f.Code == report.FindingRTPLoss && slices.Contains(f.Directions, d.ID) {
			if !strings.HasSuffix(f.Text, ": 5 before the relay, 3 that reached it and never left it.") ||
				f.Figures["dropped_before_tcp"] != 4 || f.Figures["lost"] != 8 {
				t.Errorf("rtp_loss %q, figures %v; want 8 lost (5 before, 3 after), 4 dropped before TCP", f.Text, f.Figures)
			}
		}
	}
}

// TestRelayClockJump: relayCall with the egress copy of alice's packet 250 stamped 3 hours
// ahead (a clock jump: it is given the time of the packet before it). It is still matched,
// and gives no latency sample: 487 matched, 486 samples, all 2 ms (before, 487 samples,
// the least 0 ms: its time was its own ingress copy's, written just before it).
func TestRelayClockJump(t *testing.T) {
	pkts := relayCall(t)
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	at := callgen.Epoch + int64(202*time.Millisecond) + 250*int64(20*time.Millisecond)
	jumped := false
	for i, p := range pkts {
		if p.T == at && bytes.HasPrefix(p.Frame[26:], relayed.Addr().AsSlice()) {
			pkts[i].T += int64(3 * time.Hour)
			jumped = true
		}
	}
	if !jumped {
		t.Fatal("no datagram of packet 250 on the peer leg")
	}
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, 0)
	for _, p := range pkts { // in file order, the jumped one among them
		if err := w.Write(p.T, 0, p.Frame, 0); err != nil {
			t.Fatal(err)
		}
	}
	c := analyze(t, buf.Bytes(), Options{})
	r := relaysOf(c)[[2]string{alice.String(), bob.String()}]
	want := &report.Relay{Matched: 487, LostBeforeRelay: 3, LostAfterRelay: 10,
		LatencyMS: &report.Quantiles{Samples: 486, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}}
	if d := cmp.Diff(want, r); d != "" || c.ClockJumps != 1 {
		t.Errorf("clock_jumps %d; relay (-want +got):\n%s", c.ClockJumps, d)
	}
}

// TestRelayHeldSeconds: relayCall with alice's packets 200-349 (4.2-7.18 s on the TURN leg)
// held by the relay and sent on at 7.3 s, as a relay does while its way out stalls: each
// is still matched, its latency up to 3,100 ms, and the 10 packets lost after the relay
// are counted (with a 2 s window: 433 matched, 62 lost after, and 0 before, the egress
// copies of those called lost taken for packets whose ingress copy the capture missed).
// The 3 that reached it in the capture's last 3.1 s (7.34, 8.34 and 9.34 s) count though
// the relay took up to 3.1 s: packets that reached it after them left it (before, they
// counted nowhere, as if they might have left after the end).
func TestRelayHeldSeconds(t *testing.T) {
	pkts := relayCall(t)
	epoch := callgen.Epoch
	for i, p := range pkts {
		if p.T >= epoch+int64(4202*time.Millisecond) && p.T < epoch+int64(7200*time.Millisecond) &&
			bytes.HasPrefix(p.Frame[26:], relayed.Addr().AsSlice()) { // the peer leg, from the relayed address
			pkts[i].T = epoch + int64(7300*time.Millisecond)
		}
	}
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	c := analyze(t, pcapOf(t, pkts), Options{})
	r := relaysOf(c)[[2]string{alice.String(), bob.String()}]
	if r == nil || r.Matched != 487 || r.LostAfterRelay != 10 || r.LostBeforeRelay != 3 || r.LatencyMS == nil || r.LatencyMS.Max != 3100 {
		t.Errorf("relay %+v (latency %+v), want 487 matched, 10 lost after, 3 before, latency up to 3,100 ms", r, r.LatencyMS)
	}
}

// relayLegs are the two legs of a relay at its TURN server: the client's TURN leg of the
// given transport (flow f1), and the peer leg from the relayed address (f2).
func relayLegs(transport report.Transport, client, server, relayed, peer netip.AddrPort) []report.Leg {
	rel := relayed.String()
	return []report.Leg{
		{ID: "l1", Transport: transport, Client: client.String(), Server: server.String(), Relayed: &rel,
			Peers: []string{peer.String()}, Flows: []string{"f1"}},
		{ID: "l2", Transport: "udp", Client: peer.String(), Server: rel, Relayed: &rel,
			Peers: []string{peer.String()}, Flows: []string{"f2"}},
	}
}

// relaysOf returns each direction's relay figures by its (from, to).
func relaysOf(c report.Capture) map[[2]string]*report.Relay {
	got := map[[2]string]*report.Relay{}
	for _, d := range c.Directions {
		got[[2]string{d.From, d.To}] = d.Relay
	}
	return got
}

// TestRelayBothEnds: both ends of a call relayed by one TURN server, whose capture holds
// the two allocations (alice's, relayed, and carol's, relayedC), each the other's peer, and
// the leg between the two relayed addresses. Alice's audio reaches the server in
// ChannelData, leaves relayed for relayedC 2 ms later, and leaves the server for carol 2 ms
// after that. It is one call (before: two, alice's and carol's), and each allocation's
// direction has its relay figures: the leg between the relayed addresses is the egress of
// alice's allocation and the ingress of carol's (before: carol's only).
//
// Captured from the middle of the call, without the Allocates and ChannelBinds, the same:
// the first packet's two copies on the leg between the relayed addresses teach both
// allocations (one before only the first), and both directions match all but that packet.
func TestRelayBothEnds(t *testing.T) {
	for _, signalled := range []bool{true, false} {
		t.Run(fmt.Sprint("signalled ", signalled), func(t *testing.T) { relayBothEnds(t, signalled) })
	}
}

func relayBothEnds(t *testing.T, signalled bool) {
	carol := netip.MustParseAddrPort("10.0.0.3:40000")
	relayedC := netip.MustParseAddrPort("203.0.113.7:50020")
	ms := func(n int) int64 { return callgen.Epoch + int64(n)*int64(time.Millisecond) }
	allocOK := stun.NewType(stun.MethodAllocate, stun.ClassSuccessResponse)
	bindReq := stun.NewType(stun.MethodChannelBind, stun.ClassRequest)
	bindOK := stun.NewType(stun.MethodChannelBind, stun.ClassSuccessResponse)
	var pkts []callgen.Packet
	for i, a := range []struct {
		client, relayed, peer netip.AddrPort
		ch                    uint16
	}{{alice, relayed, relayedC, 0x4000}, {carol, relayedC, relayed, 0x4001}} {
		tid := func(b int) (id [stun.TransactionIDSize]byte) { id[0] = byte(10*i + b); return id }
		at := 10 * i
		if !signalled {
			continue
		}
		pkts = append(pkts,
			callgen.Packet{T: ms(at), Frame: stunFrame(t, a.client, turnServer, tid(1), stun.NewType(stun.MethodAllocate, stun.ClassRequest))},
			callgen.Packet{T: ms(at + 40), Frame: stunFrame(t, turnServer, a.client, tid(1), allocOK,
				xorAddr(stun.AttrXORRelayedAddress, a.relayed), raw(stun.AttrLifetime, 0, 0, 2, 0x58))},
			callgen.Packet{T: ms(at + 100), Frame: stunFrame(t, a.client, turnServer, tid(2), bindReq,
				raw(stun.AttrChannelNumber, byte(a.ch>>8), byte(a.ch), 0, 0), xorAddr(stun.AttrXORPeerAddress, a.peer))},
			callgen.Packet{T: ms(at + 140), Frame: stunFrame(t, turnServer, a.client, tid(2), bindOK)})
	}
	in := audio()
	in.Dst, in.Channel, in.Start = turnServer, 0x4000, 200*time.Millisecond
	across := audio()
	across.Src, across.Dst, across.Start = relayed, relayedC, 202*time.Millisecond
	out := audio()
	out.Src, out.Dst, out.Channel, out.Start = turnServer, carol, 0x4001, 204*time.Millisecond
	pkts = append(append(append(pkts, in.Packets()...), across.Packets()...), out.Packets()...)
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	c := analyze(t, pcapOf(t, pkts), Options{})
	if calls := report.Calls(&c); len(calls) != 1 || len(calls[0]) != 3 {
		t.Errorf("calls %q, want one of three legs", calls)
	}
	// The far end is named by the client of the allocation that relays it.
	if h := render.Headline(&c); h != "Media relayed over UDP: TURN 203.0.113.7:3478 for 10.0.0.1 <-> 10.0.0.3" {
		t.Errorf("headline %q", h)
	}
	n := int64(500)
	if !signalled {
		n = 499
	}
	lat := &report.Quantiles{Samples: n, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}
	want := map[[2]string]*report.Relay{
		{alice.String(), relayedC.String()}:   {Matched: n, LatencyMS: lat},
		{relayed.String(), relayedC.String()}: nil,
		{relayed.String(), carol.String()}:    {Matched: n, LatencyMS: lat},
	}
	if d := cmp.Diff(want, relaysOf(c)); d != "" {
		t.Errorf("relays by direction (-want +got):\n%s", d)
	}
}

// midCallRelay is relayCall's media at its TURN server, captured from the middle of the
// call (TestRelayLearnedMidCall), after the packets before, in time order.
func midCallRelay(before []callgen.Packet) []callgen.Packet {
	in := audio()
	in.Dst, in.Channel, in.Start = turnServer, 0x4000, 200*time.Millisecond
	out := audio()
	out.Src, out.Start = relayed, 202*time.Millisecond
	back := audio()
	back.Src, back.Dst, back.SSRC, back.Start = bob, relayed, 0xB0B, 210*time.Millisecond
	down := back
	down.Src, down.Dst, down.Channel, down.Start = turnServer, alice, 0x4000, 212*time.Millisecond
	pkts := append(append(append(append(before, in.Packets()...), out.Packets()...), back.Packets()...), down.Packets()...)
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	return pkts
}

// TestRelayLearnedMidCall: relayCall's relay captured from the middle of the call, without
// the Allocate and the ChannelBind that name the relayed address and the channel's peer:
// alice's audio reaches the server in ChannelData on channel 0x4000 and leaves it 2 ms
// later from relayed to bob; bob's reaches relayed and leaves the server for alice 2 ms
// later. The first forwarded packet teaches the relayed address and the channel's peer
// (before: a TURN leg to an unknown peer and a peer leg as a call of their own, no relay
// figure). The ChannelData of that first packet was analysed before it was learnt, on a
// path to no peer, and its datagram before the peer leg was one: both directions but that
// packet's are matched whole.
func TestRelayLearnedMidCall(t *testing.T) {
	c := analyze(t, pcapOf(t, midCallRelay(nil)), Options{})
	rel := relayed.String()
	if d := cmp.Diff(relayLegs("turn-udp", alice, turnServer, relayed, bob), c.Legs); d != "" {
		t.Errorf("legs (-want +got):\n%s", d)
	}
	lat := &report.Quantiles{Samples: 499, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}
	want := map[[2]string]*report.Relay{
		{alice.String(), bob.String()}: {Matched: 499, LatencyMS: lat},
		{rel, bob.String()}:            nil,
		{bob.String(), rel}:            nil,
		{bob.String(), alice.String()}: {Matched: 500, LatencyMS: &report.Quantiles{Samples: 500, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}},
	}
	if d := cmp.Diff(want, relaysOf(c)); d != "" {
		t.Errorf("relays by direction (-want +got):\n%s", d)
	}
	if calls := report.Calls(&c); len(calls) != 1 {
		t.Errorf("calls %q, want one", calls)
	}
}

// TestRelayLearnedWithItsChannelBound: TestRelayLearnedMidCall's capture with a ChannelBind
// refresh for channel 0x4000 to bob at 100 ms, as a capture of a minute holds for most
// calls: the channel's peer is known, the relayed address still is not. Before, the
// relayed address was learnt only from ChannelData on a channel not known: the call had no
// relay figures. Now every packet is matched, both ways: the capture has both copies.
func TestRelayLearnedWithItsChannelBound(t *testing.T) {
	ms := func(n int) int64 { return callgen.Epoch + int64(n)*int64(time.Millisecond) }
	var tid [stun.TransactionIDSize]byte
	tid[0] = 31
	pkts := midCallRelay([]callgen.Packet{
		{T: ms(100), Frame: stunFrame(t, alice, turnServer, tid, stun.NewType(stun.MethodChannelBind, stun.ClassRequest),
			raw(stun.AttrChannelNumber, 0x40, 0x00, 0, 0), xorAddr(stun.AttrXORPeerAddress, bob))},
		{T: ms(101), Frame: stunFrame(t, turnServer, alice, tid, stun.NewType(stun.MethodChannelBind, stun.ClassSuccessResponse))},
	})
	c := analyze(t, pcapOf(t, pkts), Options{})
	if d := cmp.Diff(relayLegs("turn-udp", alice, turnServer, relayed, bob), c.Legs); d != "" {
		t.Errorf("legs (-want +got):\n%s", d)
	}
	lat := &report.Quantiles{Samples: 500, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}
	want := map[[2]string]*report.Relay{
		{alice.String(), bob.String()}:   {Matched: 500, LatencyMS: lat},
		{relayed.String(), bob.String()}: nil,
		{bob.String(), relayed.String()}: nil,
		{bob.String(), alice.String()}:   {Matched: 500, LatencyMS: lat},
	}
	if d := cmp.Diff(want, relaysOf(c)); d != "" {
		t.Errorf("relays by direction (-want +got):\n%s", d)
	}
}

// TestRelayOverTCPLearnedMidCall: relayTCPCall captured from after its Allocate and
// ChannelBind. The first packet up teaches the relayed address and the channel's peer, as
// TestRelayLearnedMidCall's, and the legs are TestRelayOverTCP's (before: a TURN leg to an
// unknown peer, the peer leg a call of its own, no relay figure). tcpframe delivers the
// ChannelData of packet 0 up only once the ACK that dates it came, after the datagrams of
// packets 0-4 left the relay: those were held, and are recorded then (before, up matched
// 91 and down 87), so up matches TestRelayOverTCP's 96, and down 92 of its 93: the
// ChannelData of bob's packet 0 (395 ms) went to no known peer. What reached the relay and
// never left it is the same (2 and 4); lost before the relay can only be fewer, of fewer
// packets.
func TestRelayOverTCPLearnedMidCall(t *testing.T) {
	c := analyze(t, pcapOf(t, relayTCPCallFrom(t, 0, true, false)), Options{})
	if d := cmp.Diff(relayLegs("turn-tcp", tcpClient, tcpServer, tcpRelayed, bob), c.Legs); d != "" {
		t.Errorf("legs (-want +got):\n%s", d)
	}
	got := relaysOf(c)
	for _, w := range []struct {
		from, to                      netip.AddrPort
		matched, lostAfter, maxBefore int64
	}{{tcpClient, bob, 96, 2, 2}, {bob, tcpClient, 92, 4, 3}} {
		r := got[[2]string{w.from.String(), w.to.String()}]
		if r == nil || r.Matched != w.matched || r.LostAfterRelay != w.lostAfter || r.LostBeforeRelay > w.maxBefore {
			t.Errorf("%v -> %v: relay %+v, want %d matched, %d lost after, at most %d before", w.from, w.to, r, w.matched, w.lostAfter, w.maxBefore)
		}
	}
	if calls := report.Calls(&c); len(calls) != 1 {
		t.Errorf("calls %q, want one", calls)
	}
}

// TestRelayedAddressGivenAgain: relayCall's allocation ends with the call (alice deletes it
// at 10.5 s); 11 s in, the server gives the same relayed address to another client, carol,
// who calls bob through it (packets 5, 105, ... lost after the relay). Carol's direction
// has its own relay figures: the address is the newest allocation's. Before, it kept its
// first client, and carol's call had no relay figures at all. Bob answers each call on the
// same peer leg (one 5-tuple), with a stream of its own: alice's (0xb1, 1-3 s) loses packet
// 10 before the relay, carol's (0xb2, 12-14 s) packets 20 and 21, and its packet 50 after
// it. Each direction's lost_before_relay is its own call's (before, both read 3); carol's
// packet 50 is lost after the relay, alice's allocation's deletion being no longer the
// address's (for a while it was: 0).
func TestRelayedAddressGivenAgain(t *testing.T) {
	carol := netip.MustParseAddrPort("192.0.2.77:40400")
	ms := func(n int) int64 { return callgen.Epoch + int64(n)*int64(time.Millisecond) }
	tid := func(b byte) (id [stun.TransactionIDSize]byte) { id[0] = b; return id }
	pkts := append(relayCall(t),
		callgen.Packet{T: ms(10500), Frame: stunFrame(t, alice, turnServer, tid(20), stun.NewType(stun.MethodRefresh, stun.ClassRequest), raw(stun.AttrLifetime, 0, 0, 0, 0))},
		callgen.Packet{T: ms(10501), Frame: stunFrame(t, turnServer, alice, tid(20), stun.NewType(stun.MethodRefresh, stun.ClassSuccessResponse), raw(stun.AttrLifetime, 0, 0, 0, 0))})
	pkts = append(pkts, allocateAndBind(t, carol, 0x4001, 11000, 40, 21)...)
	in := audio()
	in.Src, in.Dst, in.SSRC, in.Channel, in.Start = carol, turnServer, 0xc0c0c0c0, 0x4001, 11200*time.Millisecond
	out := audio()
	out.Src, out.SSRC, out.Start, out.Lose = relayed, 0xc0c0c0c0, 11202*time.Millisecond, func(i int) bool { return i%100 == 5 }
	pkts = append(append(pkts, in.Packets()...), out.Packets()...)
	for _, b := range []struct {
		ssrc    uint32
		client  netip.AddrPort
		channel uint16
		start   time.Duration
		lost    []int
		after   []int
	}{{0xb1, alice, 0x4000, time.Second, []int{10}, nil}, {0xb2, carol, 0x4001, 12 * time.Second, []int{20, 21}, []int{50}}} {
		back := audio()
		back.Src, back.Dst, back.SSRC, back.Start, back.Count = bob, relayed, b.ssrc, b.start, 100
		back.Lose = func(i int) bool { return slices.Contains(b.lost, i) }
		down := back
		down.Src, down.Dst, down.Channel, down.Start = turnServer, b.client, b.channel, b.start+2*time.Millisecond
		down.Lose = func(i int) bool { return slices.Contains(b.lost, i) || slices.Contains(b.after, i) }
		pkts = append(append(pkts, back.Packets()...), down.Packets()...)
	}
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	c := analyze(t, pcapOf(t, pkts), Options{})
	lat := func(n int64) *report.Quantiles {
		return &report.Quantiles{Samples: n, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}
	}
	rel := relayed.String()
	want := map[[2]string]*report.Relay{
		{alice.String(), bob.String()}: {Matched: 487, LostBeforeRelay: 3, LostAfterRelay: 10, LatencyMS: lat(487)}, // as before
		{carol.String(), bob.String()}: {Matched: 495, LostAfterRelay: 5, LatencyMS: lat(495)},
		{bob.String(), alice.String()}: {Matched: 99, LostBeforeRelay: 1, LatencyMS: lat(99)},
		{bob.String(), carol.String()}: {Matched: 97, LostBeforeRelay: 2, LostAfterRelay: 1, LatencyMS: lat(97)},
		{rel, bob.String()}:            nil, // the peer leg's directions, both calls' (one 5-tuple)
		{bob.String(), rel}:            nil,
	}
	if d := cmp.Diff(want, relaysOf(c)); d != "" {
		t.Errorf("relays by direction (-want +got):\n%s", d)
	}
}

// TestRelayAfterDeletion: bob's stream (0xb1 from 1 s) reaches the relayed address of
// relayCall; at 3.01 s alice deletes her allocation (Refresh, LIFETIME 0), and the packets
// bob sends after it reach the server and are not forwarded: nothing was there to forward
// them, and they are not lost after the relay (before, 49 were). Refused, the deletion did
// not happen, and they are. Given the address again at 4 s (a new Allocate and
// ChannelBind), alice's direction counts again: of bob's packets after it, 200 and 201 are
// not forwarded (before, the deletion outlived it: 0). Deleted again at 5.01 s, both spans
// without an allocation count nowhere (before, the first was forgotten: 50). So do alice's
// own packets that the relay did not send on (relayCall's 7, 57, ..., 457, at 0.34, 1.34,
// ..., 9.34 s), sent after she deleted her allocation: 3 of 10 count when it is deleted
// for good, 9 when it is given again at 4 s, 4 when deleted again (before, 10 each time).
// Deleted at 3.34 s, the instant of alice's packet 307 and bob's 117, which came before it
// (in a TCP segment, the packet ahead of the Refresh): they count, lost after the relay
// (h128: they counted nowhere).
func TestRelayAfterDeletion(t *testing.T) {
	ms := func(n int) int64 { return callgen.Epoch + int64(n)*int64(time.Millisecond) }
	tid := func(b byte) (id [stun.TransactionIDSize]byte) { id[0] = b; return id }
	refresh := func(class stun.MessageClass, setters ...stun.Setter) []byte {
		return stunFrame(t, turnServer, alice, tid(31), stun.NewType(stun.MethodRefresh, class), setters...)
	}
	lifetime0 := raw(stun.AttrLifetime, 0, 0, 0, 0)
	for _, tt := range []struct {
		name                 string
		at                   int // ms: the Refresh
		answer               []byte
		again, twice         bool
		count                int
		matched, lost, alice int64
	}{
		{"deleted", 3010, refresh(stun.ClassSuccessResponse, lifetime0), false, false, 150, 101, 0, 3},
		{"refused", 3010, refresh(stun.ClassErrorResponse, raw(stun.AttrErrorCode, 0, 0, 4, 37)), false, false, 150, 101, 49, 10},
		{"given again", 3010, refresh(stun.ClassSuccessResponse, lifetime0), true, false, 250, 198, 2, 9},
		{"deleted again", 3010, refresh(stun.ClassSuccessResponse, lifetime0), true, true, 250, 151, 0, 4},
		{"deleted as packets went", 3340, refresh(stun.ClassSuccessResponse, lifetime0), false, false, 150, 101, 17, 4},
	} {
		pkts := append(relayCall(t),
			callgen.Packet{T: ms(tt.at), Frame: stunFrame(t, alice, turnServer, tid(31), stun.NewType(stun.MethodRefresh, stun.ClassRequest), lifetime0)},
			callgen.Packet{T: ms(tt.at + 1), Frame: tt.answer})
		if tt.again {
			pkts = append(pkts, allocateAndBind(t, alice, 0x4000, 4000, 1, 32)...)
		}
		if tt.twice {
			pkts = append(pkts,
				callgen.Packet{T: ms(5010), Frame: stunFrame(t, alice, turnServer, tid(34), stun.NewType(stun.MethodRefresh, stun.ClassRequest), lifetime0)},
				callgen.Packet{T: ms(5011), Frame: stunFrame(t, turnServer, alice, tid(34), stun.NewType(stun.MethodRefresh, stun.ClassSuccessResponse), lifetime0)})
		}
		back := audio()
		back.Src, back.Dst, back.SSRC, back.Start, back.Count = bob, relayed, 0xb1, time.Second, tt.count
		down := back
		down.Src, down.Dst, down.Channel, down.Start = turnServer, alice, 0x4000, back.Start+2*time.Millisecond
		down.Lose = func(i int) bool {
			switch {
			case i <= 100:
				return false
			case tt.twice:
				return i < 151 || i > 200
			case tt.again:
				return i < 151 || i == 200 || i == 201
			}
			return true
		}
		pkts = append(append(pkts, back.Packets()...), down.Packets()...)
		sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
		c := analyze(t, pcapOf(t, pkts), Options{})
		lat := &report.Quantiles{Samples: tt.matched, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}
		want := &report.Relay{Matched: tt.matched, LostAfterRelay: tt.lost, LatencyMS: lat}
		if d := cmp.Diff(want, relaysOf(c)[[2]string{bob.String(), alice.String()}]); d != "" {
			t.Errorf("%s: relay of bob -> alice (-want +got):\n%s", tt.name, d)
		}
		if d := cmp.Diff(tt.alice, relaysOf(c)[[2]string{alice.String(), bob.String()}].LostAfterRelay); d != "" {
			t.Errorf("%s: lost after the relay alice -> bob (-want +got):\n%s", tt.name, d)
		}
	}
}

// TestRelayAfterConnectionEnds: relayTCPCall's client closes its TCP connection (a FIN, at
// 2.5 s) and with it its allocation (RFC 6062, 5.1); bob goes on sending to the relayed
// address (44 packets from 2.51 s), which the server does not forward. Bob's direction is
// as in TestRelayOverTCP. Before, those 44 were lost after the relay, but for the last two,
// too near the capture's end to tell (46).
func TestRelayAfterConnectionEnds(t *testing.T) {
	pkts := relayTCPCall(t, 0, true)
	// The client's next sequence number and its ACK, from its last segment.
	var seq, ack uint32
	var last int64
	for _, p := range pkts {
		b := p.Frame
		if len(b) < 14+20+20 || binary.BigEndian.Uint16(b[12:]) != 0x0800 || b[14+9] != 6 {
			continue
		}
		ip := b[14:]
		tcp := ip[int(ip[0]&15)*4:]
		src := netip.AddrPortFrom(netip.AddrFrom4([4]byte(ip[12:16])), binary.BigEndian.Uint16(tcp))
		if src != tcpClient {
			continue
		}
		payload := int(binary.BigEndian.Uint16(ip[2:])) - int(ip[0]&15)*4 - int(tcp[12]>>4)*4
		seq, ack = binary.BigEndian.Uint32(tcp[4:])+uint32(payload), binary.BigEndian.Uint32(tcp[8:])
		last = max(last, p.T)
	}
	fin := callgen.Epoch + int64(2500*time.Millisecond)
	if last >= fin {
		t.Fatalf("the client's last segment at %d, after the FIN", last)
	}
	pkts = append(pkts, callgen.Packet{T: fin, Frame: pcapgen.EtherTCP(tcpClient, tcpServer, seq, ack, capture.FlagFIN|capture.FlagACK, 65535, nil)})
	more := callgen.Stream{SSRC: 0xb0b0b0b0, PT: 0, ClockRate: 8000, Interval: 20 * time.Millisecond, PayloadSize: 160,
		StartSeq: 1000, StartTS: 5000}
	for i := 100; i < 144; i++ { // from 2.51 s
		pkts = append(pkts, callgen.Packet{T: callgen.Epoch + int64(time.Duration(2510+20*(i-100))*time.Millisecond),
			Frame: pcapgen.EtherUDP(bob, tcpRelayed, more.RTP(i))})
	}
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	c := analyze(t, pcapOf(t, pkts), Options{})
	want := &report.Relay{Matched: 93, LostBeforeRelay: 3, LostAfterRelay: 4,
		LatencyMS: &report.Quantiles{Samples: 93, Min: 5, P50: 5, P95: 9, P99: 22, Max: 22}}
	if d := cmp.Diff(want, relaysOf(c)[[2]string{bob.String(), tcpClient.String()}]); d != "" {
		t.Errorf("relay of bob -> client (-want +got):\n%s", d)
	}
}

// TestRelayOverTCPCaptureEnds: relayTCPCall's capture ends at 2.39 s, 7 ms after the relay
// sent on the client's packet 99. Its packet 98 reached the relay before 99 and never left:
// lost after the relay, as in the whole capture (2 with packet 50). Before, it counted
// nowhere (1): the settling at the end went through the pending packets in the order they
// were recorded and stopped at the first it could not settle, 99's egress copy, recorded
// before 98's ingress message, which TCP delivered after it.
func TestRelayOverTCPCaptureEnds(t *testing.T) {
	var kept []callgen.Packet
	for _, p := range relayTCPCall(t, 0, true) {
		if p.T <= callgen.Epoch+int64(2390*time.Millisecond) {
			kept = append(kept, p)
		}
	}
	c := analyze(t, pcapOf(t, kept), Options{})
	r := relaysOf(c)[[2]string{tcpClient.String(), bob.String()}]
	if r == nil || r.Matched != 96 || r.LostBeforeRelay != 2 || r.LostAfterRelay != 2 {
		t.Errorf("relay of the client's direction %+v, want 96 matched, 2 lost before and 2 after", r)
	}
}

// allocateAndBind is client's Allocate of the relayed address ms milliseconds into the
// capture, and its ChannelBind of channel ch to bob, on transactions tid and tid+1: each
// message step milliseconds after the one before.
func allocateAndBind(t *testing.T, client netip.AddrPort, ch uint16, ms, step int, tid byte) []callgen.Packet {
	at := func(n int) int64 { return callgen.Epoch + int64(ms+n*step)*int64(time.Millisecond) }
	id := func(b byte) (x [stun.TransactionIDSize]byte) { x[0] = b; return x }
	return []callgen.Packet{
		{T: at(0), Frame: stunFrame(t, client, turnServer, id(tid), stun.NewType(stun.MethodAllocate, stun.ClassRequest))},
		{T: at(1), Frame: stunFrame(t, turnServer, client, id(tid), stun.NewType(stun.MethodAllocate, stun.ClassSuccessResponse),
			xorAddr(stun.AttrXORRelayedAddress, relayed), raw(stun.AttrLifetime, 0, 0, 2, 0x58))},
		{T: at(2), Frame: stunFrame(t, client, turnServer, id(tid+1), stun.NewType(stun.MethodChannelBind, stun.ClassRequest),
			raw(stun.AttrChannelNumber, byte(ch>>8), byte(ch), 0, 0), xorAddr(stun.AttrXORPeerAddress, bob))},
		{T: at(3), Frame: stunFrame(t, turnServer, client, id(tid+1), stun.NewType(stun.MethodChannelBind, stun.ClassSuccessResponse))},
	}
}

// TestRelayRTXDropped: relayCall with alice's RTX stream for the audio (PT 97, 12 probes,
// one every 200 ms, each resending the packet sent just before), relayed as the audio is;
// the relay drops the sixth. Matched counts every RTP packet (487 + 11), but an RTX packet
// lost is no media lost: 10 after the relay, as before. Before, it read 11, and rtp_loss
// said "14 of 500 media packets" (h153).
func TestRelayRTXDropped(t *testing.T) {
	pkts := relayCall(t)
	rtx := func(start time.Duration) callgen.Stream {
		return callgen.Stream{Src: alice, Dst: bob, SSRC: 0x5e5e5e5e, PT: 97, ClockRate: 8000,
			Interval: 200 * time.Millisecond, PayloadSize: 162, Count: 12, StartSeq: 50, Start: start,
			TS:   func(i int) uint32 { return 5000 + 160*uint32(4+10*i) },
			Fill: func(i int, b []byte) { binary.BigEndian.PutUint16(b, uint16(1000+4+10*i)) }}
	}
	in := rtx(300 * time.Millisecond)
	in.Dst, in.Channel = turnServer, 0x4000
	out := rtx(302 * time.Millisecond)
	out.Src, out.Lose = relayed, func(i int) bool { return i == 5 }
	pkts = append(append(pkts, in.Packets()...), out.Packets()...)
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	c := analyze(t, pcapOf(t, pkts), Options{})
	if s := streamBySSRC(c, 0x5e5e5e5e); s == nil || s.Kind != "rtx" {
		t.Fatalf("rtx stream %+v", s)
	}
	want := &report.Relay{Matched: 498, LostBeforeRelay: 3, LostAfterRelay: 10,
		LatencyMS: &report.Quantiles{Samples: 498, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2}}
	if d := cmp.Diff(want, c.Directions[0].Relay); d != "" {
		t.Errorf("relay of %s -> %s (-want +got):\n%s", c.Directions[0].From, c.Directions[0].To, d)
	}
}
