package analysis

import (
	"bytes"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// lanCall is a direct call between two private addresses on a LAN, 0.2 ms apart, captured
// at A: B answers a check in 0.15 ms, A in answerA, and each sends five. With A as quick
// as B, A's checks take 0.55 ms and B's are answered here in 0.15 ms, too close for the
// answer times to say which end is this host, and no NAT between them. Each end sends 500
// packets of PCMU; A's packet 100 left 200 ms late (its own queue), B's packet 200 was
// held 200 ms on the way. B sends under ssrcB.
func lanCall(answerA time.Duration, ssrcB uint32) []callgen.Packet {
	ice := callgen.ICECall{
		A: netip.MustParseAddrPort("10.80.1.2:50000"), B: netip.MustParseAddrPort("10.80.2.2:61000"),
		OneWay: 200 * time.Microsecond, Answer: [2]time.Duration{answerA, 150 * time.Microsecond},
		Checks: 5, Interval: 100 * time.Millisecond, Start: 10 * time.Millisecond,
	}
	held := func(at int) func(int) time.Duration {
		return func(i int) time.Duration {
			if i == at {
				return 200 * time.Millisecond
			}
			return 0
		}
	}
	ab, ba := audio(), audio()
	ab.Src, ab.Dst, ab.Start, ab.Delay = ice.A, ice.B, time.Second, held(100)
	ba.Src, ba.Dst, ba.Start, ba.Delay, ba.SSRC = ice.B, ice.A, time.Second+5*time.Millisecond, held(200), ssrcB
	pkts := append(ice.Packets(0), ab.Packets()...)
	pkts = append(pkts, ba.Packets()...)
	slices.SortStableFunc(pkts, func(x, y callgen.Packet) int { return int(x.T - y.T) })
	return pkts
}

// How sll2Of captures: at the host, at a router or a bridge forwarding every packet, or at
// a NAT forwarding A's packets from its own address.
const (
	atHost = iota
	forwarding
	natting
)

// natAddr is the address a NAT in front of A sends A's packets from.
var natAddr = [4]byte{10, 80, 2, 1}

// sll2Of writes packets as tcpdump -i any does (SLL2). At the host, each is marked as sent
// by it when its IPv4 source is host, as arrived otherwise. A forwarding host writes every
// packet twice, arriving on interface 2 and sent on interface 3 a microsecond later; a NAT
// sends host's packets on from natAddr (their source rewritten; checksums are not read).
func sll2Of(t *testing.T, pkts []callgen.Packet, host netip.Addr, at int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkLinuxSLL2, true, false, 0)
	for _, p := range pkts {
		ip := p.Frame[14:]
		fromHost := netip.AddrFrom4([4]byte(ip[12:16])) == host
		switch {
		case at == forwarding || at == natting && fromHost:
			out := ip
			if at == natting {
				out = bytes.Clone(ip)
				copy(out[12:16], natAddr[:])
			}
			w.Write(p.T, 0, pcapgen.SLL2Typed(ip, pcapgen.EtherTypeIPv4, 2, pcapgen.PacketHost), 0)
			w.Write(p.T+1000, 0, pcapgen.SLL2Typed(out, pcapgen.EtherTypeIPv4, 3, pcapgen.PacketOutgoing), 0)
			continue
		case at == natting:
			w.Write(p.T, 0, pcapgen.SLL2Typed(ip, pcapgen.EtherTypeIPv4, 3, pcapgen.PacketHost), 0)
			continue
		}
		typ := byte(pcapgen.PacketHost)
		if fromHost {
			typ = pcapgen.PacketOutgoing
		}
		w.Write(p.T, 0, pcapgen.SLL2Typed(ip, pcapgen.EtherTypeIPv4, 2, typ), 0)
	}
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMarkedHost: tcpdump -i any marks the packets the capture host sent. On lanCall, the
// answer times place neither end (before: no ICE round trip, and A's own queueing read as
// a late packet, with a late_packets finding, at the sender); the marks say A is this host:
// its five checks are the round trips (0.55 ms), and its media was captured at its
// sender, late not measured. B's packet held on the way is late either way. The marks
// decide before the answer times: with A slow to answer (30 ms), the times take B for this
// host and its checks for the round trips, and A's media as measured at its receiver.
// Unmarked, nothing changes. At a router, which writes what it forwards both ways, neither
// end is this host's: both directions measured, no round trip (the capture is between the
// agents). At a NAT that sends A's packets on from its own address, that address is this
// host's but what it sends arrived from A: it is not the media's sender.
// (Real agents answer in about a millisecond; 30 ms stands for a loaded one.)
func TestMarkedHost(t *testing.T) {
	a := netip.MustParseAddr("10.80.1.2")
	quick, slow := 150*time.Microsecond, 30*time.Millisecond
	tests := []struct {
		name     string
		data     []byte
		rttMS    float64 // five round trips of rttMS; 0: none of this host's
		atSender string  // the source of the direction taken as captured at its sender (late null)
	}{
		{"unmarked", pcapOf(t, lanCall(quick, 0x5e5e5e5e)), 0, ""},
		{"marked", sll2Of(t, lanCall(quick, 0x5e5e5e5e), a, atHost), 0.55, "10.80.1.2:50000"},
		// A's own answers, 30 ms, read as B's round trips, and B as this host.
		{"unmarked, A slow to answer", pcapOf(t, lanCall(slow, 0x5e5e5e5e)), 30, "10.80.2.2:61000"},
		{"marked, A slow to answer", sll2Of(t, lanCall(slow, 0x5e5e5e5e), a, atHost), 0.55, "10.80.1.2:50000"},
		{"router", sll2Of(t, lanCall(slow, 0x5e5e5e5e), a, forwarding), 0, ""},
		{"NAT", sll2Of(t, lanCall(quick, 0x5e5e5e5e), a, natting), 0, ""},
		// B echoes A's SSRC (SIPp's echo, a relay's loop): it arrives after A sent it, and
		// A is its sender all the same.
		{"echo", sll2Of(t, lanCall(quick, audio().SSRC), a, atHost), 0.55, "10.80.1.2:50000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := analyze(t, tt.data, Options{})
			if r := c.ICE.RTTMS; tt.rttMS > 0 && (r == nil || r.Samples != 5 || r.P50 != tt.rttMS || r.Max != tt.rttMS) {
				t.Errorf("ice rtt %+v, want 5 samples of %v ms", r, tt.rttMS)
			} else if tt.rttMS == 0 && r != nil && len(c.ICE.RTTLegs) > 0 && c.ICE.RTTLegs[0].Leg == "host_peer" {
				t.Errorf("ice rtt %+v on %+v, want none of this host's", r, c.ICE.RTTLegs)
			}
			lateFindings := 0
			for _, d := range c.Directions {
				want, vantage := int64(1), ""
				if d.From == tt.atSender {
					want, vantage = -1, "sender"
				}
				got := int64(-1)
				if d.Late != nil {
					got = d.Late.Packets
					lateFindings++
				}
				if got != want || d.DelayMS == nil || d.DelayMS.Vantage != vantage {
					t.Errorf("%s -> %s: late %d, delay %+v; want late %d (-1: null), vantage %q", d.From, d.To, got, d.DelayMS, want, vantage)
				}
			}
			n := 0
			for _, f := range c.Findings {
				if f.Code == "late_packets" {
					n++
				}
			}
			if n != lateFindings {
				t.Errorf("%d late_packets findings, want %d: %+v", n, lateFindings, c.Findings)
			}
		})
	}
}
