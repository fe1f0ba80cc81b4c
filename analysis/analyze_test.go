package analysis

import (
	"bytes"
	"context"
	"net/netip"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/report"
)

var (
	alice = netip.MustParseAddrPort("10.0.0.1:40000")
	bob   = netip.MustParseAddrPort("198.51.100.9:50000")
)

// audio is 500 PCMU packets, 20 ms apart, from alice to bob.
func audio() callgen.Stream {
	return callgen.Stream{Src: alice, Dst: bob, SSRC: 0x1a2b3c4d, PT: 0, ClockRate: 8000,
		Interval: 20 * time.Millisecond, PayloadSize: 160, Count: 500, StartSeq: 1000, StartTS: 5000}
}

// pcapOf writes packets as an Ethernet pcap in memory.
func pcapOf(t *testing.T, pkts []callgen.Packet) []byte { return snappedPcapOf(t, pkts, 0) }

// snappedPcapOf is pcapOf with a snap length (0: none).
func snappedPcapOf(t *testing.T, pkts []callgen.Packet, snap int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgen.NewPcap(&buf, capture.LinkEthernet, false, false, snap)
	if err := callgen.Write(w, pkts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// analyze analyses a capture and checks its report against the JSON contract, and its wire
// bytes against those counted without the analyzer (checkWire).
func analyze(t *testing.T, data []byte, opts Options) report.Capture {
	t.Helper()
	c, err := Analyze(context.Background(), "test.pcap", bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	schematest.CheckCapture(t, c)
	checkWire(t, data, c)
	return c
}

func onlyStream(t *testing.T, c report.Capture) report.Stream {
	t.Helper()
	if len(c.Streams) != 1 {
		t.Fatalf("got %d streams, want 1: %+v", len(c.Streams), c.Streams)
	}
	return c.Streams[0]
}

func TestUDPStreamLossDuplicatesReordering(t *testing.T) {
	s := audio()
	lost := map[int]bool{10: true, 11: true, 200: true, 201: true, 202: true, 203: true, 204: true}
	s.Lose = func(i int) bool { return lost[i] }
	s.Dup = func(i int) bool { return i == 50 }
	// Packet 100 is held 30 ms: it arrives after packet 101, which is then not reordered.
	s.Delay = func(i int) time.Duration {
		if i == 100 {
			return 30 * time.Millisecond
		}
		return 0
	}
	c := analyze(t, pcapOf(t, s.Packets()), Options{})
	st := onlyStream(t, c)
	type figures struct {
		Packets, Expected, Lost, Duplicates, Reordered, PayloadBytes, HeaderBytes int64
		LossPct                                                                   float64
		Kind, SSRC, Src, Dst                                                      string
		ClockRate                                                                 int
	}
	got := figures{st.Packets, st.Expected, deref(st.Lost), st.Duplicates, st.Reordered, st.PayloadBytes,
		st.HeaderBytes, derefF(st.LossPct), st.Kind, st.SSRC, st.Src, st.Dst, derefI(st.ClockRate)}
	want := figures{Packets: 494, Expected: 500, Lost: 7, Duplicates: 1, Reordered: 1,
		PayloadBytes: 494 * 160, HeaderBytes: 494 * 12, LossPct: 1.4, Kind: "audio", SSRC: "0x1a2b3c4d",
		Src: alice.String(), Dst: bob.String(), ClockRate: 8000}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stream figures (-want +got):\n%s", d)
	}
	if len(c.Legs) != 1 || c.Legs[0].Transport != "udp" {
		t.Errorf("legs = %+v, want one udp leg", c.Legs)
	}
	if len(c.Directions) != 1 {
		t.Fatalf("directions = %d, want 1", len(c.Directions))
	}
	d := c.Directions[0]
	if d.Loss.Expected != 500 || d.Loss.Lost != 7 {
		t.Errorf("direction loss = %+v, want expected 500 lost 7", d.Loss)
	}
	// DESIGN's ten parts add up to wire_bytes − media payload: the duplicate, whole (12 + 160
	// bytes of RTP), is other; its link, IP and UDP headers are with everyone's.
	wo := report.Overhead{LinkIPTransport: 494 * 42, RTPHeaders: 493 * 12, Other: 172}
	if diff := cmp.Diff(wo, d.OverheadBytes); diff != "" {
		t.Errorf("overhead (-want +got):\n%s", diff)
	}
	if d.MediaPayloadBytes != 493*160 || d.WireBytes != d.MediaPayloadBytes+d.OverheadBytes.Sum() {
		t.Errorf("media payload %d, wire %d, overhead %d: want 493×160 and wire = payload + overhead",
			d.MediaPayloadBytes, d.WireBytes, d.OverheadBytes.Sum())
	}
}

// TestShortSSRCInDirectionWire: beside the call's 500 packets, 5 packets of another SSRC
// (fewer than --min-packets: no stream) on the same path, 100 payload bytes each. They carried
// the direction all the same: its wire_bytes are every frame of the capture, their headers
// with everyone's and their RTP (12 + 100 bytes each) other.
func TestShortSSRCInDirectionWire(t *testing.T) {
	s, short := audio(), audio()
	short.SSRC, short.PayloadSize, short.Count, short.Start = 0x5eed, 100, 5, 3*time.Second
	pkts := append(s.Packets(), short.Packets()...)
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	c := analyze(t, pcapOf(t, pkts), Options{})
	onlyStream(t, c)
	d := c.Directions[0]
	want := report.Overhead{LinkIPTransport: 505 * 42, RTPHeaders: 500 * 12, Other: 5 * (12 + 100)}
	if diff := cmp.Diff(want, d.OverheadBytes); diff != "" {
		t.Errorf("overhead (-want +got):\n%s", diff)
	}
	if d.MediaPayloadBytes != 500*160 || d.WireBytes != c.WireBytes {
		t.Errorf("media payload %d, wire %d; want %d and the capture's %d", d.MediaPayloadBytes, d.WireBytes, 500*160, c.WireBytes)
	}
}

// TestWireAccountingUDP checks the overhead breakdown of a plain UDP call over Ethernet and
// IPv4: 42 bytes of link, IP and UDP headers and 12 of RTP header per 160-byte payload.
func TestWireAccountingUDP(t *testing.T) {
	s := audio()
	c := analyze(t, pcapOf(t, s.Packets()), Options{})
	d := c.Directions[0]
	const n = 500
	if d.MediaPayloadBytes != n*160 || d.MediaPackets != n {
		t.Errorf("media = %d packets %d bytes, want %d and %d", d.MediaPackets, d.MediaPayloadBytes, n, n*160)
	}
	want := report.Overhead{LinkIPTransport: n * 42, RTPHeaders: n * 12}
	if diff := cmp.Diff(want, d.OverheadBytes); diff != "" {
		t.Errorf("overhead (-want +got):\n%s", diff)
	}
	if d.WireBytes != n*(42+12+160) || d.WireBytes != c.WireBytes {
		t.Errorf("wire bytes = %d, want %d (the capture's %d)", d.WireBytes, n*(42+12+160), c.WireBytes)
	}
	if got, want := derefF(d.Efficiency), 0.7477; got != want {
		t.Errorf("efficiency = %v, want %v", got, want)
	}
	// 499 intervals of 20 ms: 9.98 s of activity.
	if d.ActiveS != 9.98 {
		t.Errorf("active = %v s, want 9.98", d.ActiveS)
	}
}

// TestLinkTypesAndFormatsAgree writes the same call in every container and link type the
// reader supports; every one must give the same stream figures.
func TestLinkTypesAndFormatsAgree(t *testing.T) {
	s := audio()
	s.Lose = func(i int) bool { return i%50 == 7 } // 10 lost
	ref := onlyStream(t, analyze(t, pcapOf(t, s.Packets()), Options{}))
	if deref(ref.Lost) != 10 {
		t.Fatalf("reference lost = %d, want 10", deref(ref.Lost))
	}
	ipOf := func(frame []byte) []byte { return frame[14:] } // strip Ethernet
	cases := []struct {
		name  string
		write func(w *bytes.Buffer, pkts []callgen.Packet)
	}{
		{"pcap-ns-bigendian", func(b *bytes.Buffer, pkts []callgen.Packet) {
			w := pcapgen.NewPcap(b, capture.LinkEthernet, true, true, 0)
			callgen.Write(w, pkts)
		}},
		{"pcapng", func(b *bytes.Buffer, pkts []callgen.Packet) {
			w := pcapgen.NewPcapNG(b, []pcapgen.Iface{{Link: capture.LinkEthernet, TSResol: 9}})
			callgen.Write(w, pkts)
		}},
		{"sll2", func(b *bytes.Buffer, pkts []callgen.Packet) {
			w := pcapgen.NewPcap(b, capture.LinkLinuxSLL2, false, false, 0)
			for _, p := range pkts {
				w.Write(p.T, 0, pcapgen.SLL2(ipOf(p.Frame), pcapgen.EtherTypeIPv4, 3), 0)
			}
		}},
		{"sll", func(b *bytes.Buffer, pkts []callgen.Packet) {
			w := pcapgen.NewPcap(b, capture.LinkLinuxSLL, false, false, 0)
			for _, p := range pkts {
				w.Write(p.T, 0, pcapgen.SLL(ipOf(p.Frame), pcapgen.EtherTypeIPv4), 0)
			}
		}},
		{"raw", func(b *bytes.Buffer, pkts []callgen.Packet) {
			w := pcapgen.NewPcap(b, capture.LinkRaw, false, false, 0)
			for _, p := range pkts {
				w.Write(p.T, 0, ipOf(p.Frame), 0)
			}
		}},
		{"null", func(b *bytes.Buffer, pkts []callgen.Packet) {
			w := pcapgen.NewPcap(b, capture.LinkNull, false, false, 0)
			for _, p := range pkts {
				w.Write(p.T, 0, pcapgen.Null(ipOf(p.Frame), 2), 0)
			}
		}},
		{"vlan-qinq", func(b *bytes.Buffer, pkts []callgen.Packet) {
			w := pcapgen.NewPcap(b, capture.LinkEthernet, false, false, 0)
			for _, p := range pkts {
				w.Write(p.T, 0, pcapgen.Ether(ipOf(p.Frame), pcapgen.EtherTypeIPv4, 100, 200), 0)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.write(&b, s.Packets())
			got := onlyStream(t, analyze(t, b.Bytes(), Options{}))
			if diff := cmp.Diff(lossFigures(ref), lossFigures(got)); diff != "" {
				t.Errorf("(-pcap +%s):\n%s", tc.name, diff)
			}
		})
	}
}

func lossFigures(s report.Stream) []int64 {
	return []int64{s.Packets, s.Expected, deref(s.Lost), s.Duplicates, s.Reordered, s.PayloadBytes}
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func derefI(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func derefF(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}
