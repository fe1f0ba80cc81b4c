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
// at A: each agent answers a check in 0.15 ms and sends five, so A's checks take 0.55 ms
// and B's are answered here in 0.15 ms, too close for the answer times to say which end
// is this host, and no NAT between them. Each end sends 500 packets of PCMU; A's packet
// 100 left 200 ms late (its own queue), B's packet 200 was held 200 ms on the way.
func lanCall() []callgen.Packet {
	ice := callgen.ICECall{
		A: netip.MustParseAddrPort("10.80.1.2:50000"), B: netip.MustParseAddrPort("10.80.2.2:61000"),
		OneWay: 200 * time.Microsecond, Answer: [2]time.Duration{150 * time.Microsecond, 150 * time.Microsecond},
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
	ba.Src, ba.Dst, ba.Start, ba.Delay, ba.SSRC = ice.B, ice.A, time.Second+5*time.Millisecond, held(200), 0x5e5e5e5e
	pkts := append(ice.Packets(0), ab.Packets()...)
	pkts = append(pkts, ba.Packets()...)
	slices.SortStableFunc(pkts, func(x, y callgen.Packet) int { return int(x.T - y.T) })
	return pkts
}

// sll2Of writes packets as tcpdump -i any does (SLL2), each marked as sent by the capture
// host when its IPv4 source is host, as arrived otherwise. forwarded writes every packet
// twice, arriving on interface 2 and sent on interface 3 a microsecond later, as a host
// that forwards them (a router, a bridge) captures them.
func sll2Of(t *testing.T, pkts []callgen.Packet, host netip.Addr, forwarded bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkLinuxSLL2, true, false, 0)
	for _, p := range pkts {
		ip := p.Frame[14:]
		if forwarded {
			w.Write(p.T, 0, pcapgen.SLL2Typed(ip, pcapgen.EtherTypeIPv4, 2, pcapgen.PacketHost), 0)
			w.Write(p.T+1000, 0, pcapgen.SLL2Typed(ip, pcapgen.EtherTypeIPv4, 3, pcapgen.PacketOutgoing), 0)
			continue
		}
		typ := byte(pcapgen.PacketHost)
		if netip.AddrFrom4([4]byte(ip[12:16])) == host {
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
// sender, late not measured. B's packet held on the way is late either way. Unmarked, or
// marked as a forwarding host marks every packet, nothing changes.
func TestMarkedHost(t *testing.T) {
	a := netip.MustParseAddr("10.80.1.2")
	tests := []struct {
		name      string
		data      []byte
		rtt       bool  // A's five round trips of 0.55 ms
		lateAtoB  int64 // -1: null
		vantageAB string
	}{
		{"unmarked", pcapOf(t, lanCall()), false, 1, ""},
		{"marked", sll2Of(t, lanCall(), a, false), true, -1, "sender"},
		{"forwarded", sll2Of(t, lanCall(), a, true), false, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := analyze(t, tt.data, Options{})
			if tt.rtt {
				if r := c.ICE.RTTMS; r == nil || r.Samples != 5 || r.P50 != 0.55 || r.Max != 0.55 {
					t.Errorf("ice rtt %+v, want 5 samples of 0.55 ms", r)
				}
			} else if c.ICE.RTTMS != nil {
				t.Errorf("ice rtt %+v, want null", c.ICE.RTTMS)
			}
			if len(c.Directions) != 2 {
				t.Fatalf("%d directions, want 2", len(c.Directions))
			}
			for _, d := range c.Directions {
				want, vantage := int64(1), ""
				if d.From == "10.80.1.2:50000" {
					want, vantage = tt.lateAtoB, tt.vantageAB
				}
				got := int64(-1)
				if d.Late != nil {
					got = d.Late.Packets
				}
				if got != want || d.DelayMS == nil || d.DelayMS.Vantage != vantage {
					t.Errorf("%s -> %s: late %d, delay %+v; want late %d (-1: null), vantage %q", d.From, d.To, got, d.DelayMS, want, vantage)
				}
			}
			late := 0
			for _, f := range c.Findings {
				if f.Code == "late_packets" {
					late++
				}
			}
			if want := map[bool]int{true: 1, false: 2}[tt.lateAtoB < 0]; late != want {
				t.Errorf("%d late_packets findings, want %d: %+v", late, want, c.Findings)
			}
		})
	}
}
