package analysis

import (
	"bytes"
	"encoding/binary"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/report"
)

// relayCall is turnCall seen at the TURN server: alice's audio arrives in ChannelData on the
// TURN leg and leaves, 2 ms later, as plain RTP from the relayed address to bob. Packets
// 100-102 never reach the server (lost before the relay); packets 7, 57, …, 457 (i%50 == 7)
// are not sent on (lost after it). An ICE check through the relay opens the peer leg first.
func relayCall(t *testing.T) []callgen.Packet {
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
	kept = append(kept,
		callgen.Packet{T: callgen.Epoch + int64(150*time.Millisecond), Frame: pcapgen.EtherUDP(alice, turnServer, callgen.ChannelData(0x4000, check.Raw))},
		callgen.Packet{T: callgen.Epoch + int64(152*time.Millisecond), Frame: pcapgen.EtherUDP(relayed, bob, check.Raw)})
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
	wantLegs := []report.Leg{
		{ID: "l1", Transport: "turn-udp", Client: alice.String(), Server: turnServer.String(), Relayed: &rel,
			Peers: []string{bob.String()}, Flows: []string{"f1"}},
		{ID: "l2", Transport: "udp", Client: bob.String(), Server: rel, Relayed: &rel,
			Peers: []string{bob.String()}, Flows: []string{"f2"}},
	}
	if d := cmp.Diff(wantLegs, c.Legs); d != "" {
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
