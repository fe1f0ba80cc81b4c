package analysis

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/rtcp"
	"github.com/pion/stun/v3"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/report"
)

func TestGzipGivesTheSameReport(t *testing.T) {
	s := audio()
	s.Lose = func(i int) bool { return i == 9 }
	raw := pcapOf(t, s.Packets())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	c := analyze(t, gz.Bytes(), Options{})
	if c.Compression != "gzip" || c.Format != "pcap" {
		t.Errorf("format %q compression %q, want pcap gzip", c.Format, c.Compression)
	}
	if got, want := lossFigures(onlyStream(t, c)), lossFigures(onlyStream(t, analyze(t, raw, Options{}))); !cmp.Equal(got, want) {
		t.Errorf("gzip %v, plain %v", got, want)
	}
}

// TestIPv6Headers: over IPv6 each packet carries 14+40+8 bytes of headers.
func TestIPv6Headers(t *testing.T) {
	s := audio()
	s.Src = netip.MustParseAddrPort("[2001:db8::1]:40000")
	s.Dst = netip.MustParseAddrPort("[2001:db8::2]:50000")
	c := analyze(t, pcapOf(t, s.Packets()), Options{})
	st := onlyStream(t, c)
	if st.Src != "[2001:db8::1]:40000" || st.Packets != 500 {
		t.Errorf("stream %s packets %d", st.Src, st.Packets)
	}
	if got := c.Directions[0].OverheadBytes.LinkIPTransport; got != 500*62 {
		t.Errorf("headers = %d, want %d", got, 500*62)
	}
}

// TestIPv4Fragments: 100 video packets of 2,000 payload bytes, each sent as two IPv4
// fragments (1,480 + 540 bytes of UDP datagram), reassembled into one RTP packet each.
func TestIPv4Fragments(t *testing.T) {
	s := audio()
	s.PT, s.ClockRate, s.PayloadSize, s.Count = 96, 90000, 2000, 100
	var pkts []callgen.Packet
	for i, p := range s.Packets() {
		udp := pcapgen.UDP(s.Src, s.Dst, s.RTP(i))
		for j, frag := range pcapgen.IPv4Fragments(s.Src.Addr(), s.Dst.Addr(), pcapgen.ProtoUDP, uint16(i), udp, 1480) {
			pkts = append(pkts, callgen.Packet{T: p.T + int64(j)*1000, Frame: pcapgen.Ether(frag, pcapgen.EtherTypeIPv4)})
		}
	}
	c := analyze(t, pcapOf(t, pkts), Options{})
	st := onlyStream(t, c)
	if st.Packets != 100 || st.PayloadBytes != 100*2000 || deref(st.Lost) != 0 {
		t.Errorf("stream packets %d payload %d lost %d, want 100, 200000, 0", st.Packets, st.PayloadBytes, deref(st.Lost))
	}
	// 200 frames: 100 × (14+20+1480) and 100 × (14+20+540).
	if c.Packets != 200 || c.WireBytes != 100*(1514+574) {
		t.Errorf("capture packets %d wire %d, want 200 and %d", c.Packets, c.WireBytes, 100*(1514+574))
	}
	d := c.Directions[0]
	if d.WireBytes != c.WireBytes || d.OverheadBytes.LinkIPTransport != 100*(14+20+8+14+20) {
		t.Errorf("direction wire %d headers %d, want %d and %d", d.WireBytes, d.OverheadBytes.LinkIPTransport, c.WireBytes, 100*76)
	}
}

// fragmentedPcap writes a pcap of link type link holding the 100 datagrams of
// TestIPv4Fragments as write lays out each one's two fragments, from its capture time.
func fragmentedPcap(link capture.LinkType, write func(w *pcapgen.Writer, frags [][]byte, at int64)) []byte {
	s := audio()
	s.PT, s.ClockRate, s.PayloadSize, s.Count = 96, 90000, 2000, 100
	var b bytes.Buffer
	w := pcapgen.NewPcap(&b, link, false, false, 0)
	for i, p := range s.Packets() {
		udp := pcapgen.UDP(s.Src, s.Dst, s.RTP(i))
		write(w, pcapgen.IPv4Fragments(s.Src.Addr(), s.Dst.Addr(), pcapgen.ProtoUDP, uint16(i), udp, 1480), p.T)
	}
	return b.Bytes()
}

// TestTURNSendIndications: media in Send indications (client to server) and Data
// indications (server to client), the peer from XOR-PEER-ADDRESS; every STUN byte around
// the data is framing.
func TestTURNSendIndications(t *testing.T) {
	s := audio()
	s.Count = 100
	var pkts []callgen.Packet
	framing := 0
	for i, p := range s.Packets() {
		var id [stun.TransactionIDSize]byte
		id[0], id[1] = byte(i), byte(i>>8)
		rtp := s.RTP(i)
		src, dst, typ := alice, turnServer, stun.NewType(stun.MethodSend, stun.ClassIndication)
		if i%2 == 1 {
			src, dst, typ = turnServer, alice, stun.NewType(stun.MethodData, stun.ClassIndication)
		}
		frame := stunFrame(t, src, dst, id, typ, xorAddr(stun.AttrXORPeerAddress, bob), raw(stun.AttrData, rtp...))
		if i%2 == 0 {
			framing += len(frame) - 42 - len(rtp)
		}
		pkts = append(pkts, callgen.Packet{T: p.T, Frame: frame})
	}
	c := analyze(t, pcapOf(t, pkts), Options{MinPackets: 10})
	if len(c.Streams) != 2 {
		t.Fatalf("streams = %d, want 2 (one each way)", len(c.Streams))
	}
	var out *struct{ src, dst string }
	for _, st := range c.Streams {
		if st.Src == alice.String() {
			out = &struct{ src, dst string }{st.Src, st.Dst}
			if st.Dst != bob.String() || st.Packets != 50 {
				t.Errorf("outgoing stream to %s with %d packets, want %v and 50", st.Dst, st.Packets, bob)
			}
		}
	}
	if out == nil {
		t.Fatal("no stream from alice")
	}
	if c.Legs[0].Transport != "turn-udp" {
		t.Errorf("leg transport %q", c.Legs[0].Transport)
	}
	for _, d := range c.Directions {
		if d.From == alice.String() && d.OverheadBytes.Framing != int64(framing) {
			t.Errorf("framing = %d, want %d", d.OverheadBytes.Framing, framing)
		}
	}
}

// TestCaptureDuplicates: tcpdump -i any on a forwarding host records each packet on the
// way in and out (SLL2 interface index 2, then 3): one copy is analysed, the others counted.
// The copy written second may carry the earlier time (a file merged from two interfaces'
// captures, or clocks a few microseconds apart): it is the same packet.
func TestCaptureDuplicates(t *testing.T) {
	for _, after := range []int64{7000, -5000} {
		s := audio()
		var b bytes.Buffer
		w := pcapgen.NewPcap(&b, capture.LinkLinuxSLL2, false, false, 0)
		for _, p := range s.Packets() {
			ip := p.Frame[14:]
			w.Write(p.T, 0, pcapgen.SLL2(ip, pcapgen.EtherTypeIPv4, 2), 0)
			w.Write(p.T+after, 0, pcapgen.SLL2(ip, pcapgen.EtherTypeIPv4, 3), 0)
		}
		c := analyze(t, b.Bytes(), Options{})
		st := onlyStream(t, c)
		// Times count from the capture's earliest packet: the copy, when it is stamped first.
		first := float64(max(0, -after)) / 1e9
		if c.CaptureDuplicates != 500 || st.Packets != 500 || st.Duplicates != 0 || c.Packets != 1000 || st.FirstS != first {
			t.Errorf("copy %d ns after: capture duplicates %d, stream packets %d duplicates %d, capture packets %d, first %v s; want 500, 500, 0, 1000, %v",
				after, c.CaptureDuplicates, st.Packets, st.Duplicates, c.Packets, st.FirstS, first)
		}
	}
}

// TestCaptureDuplicatesInBursts: the copies of TestCaptureDuplicates written as a
// forwarding host's capture interleaves them: a burst in and then out (in n, in n+1, out n,
// out n+1), or a packet of another flow, whose SSRC shares the audio's first byte, between
// a packet and its copy. Every copy is a capture duplicate. Before, a copy was recognised
// only right after its original: the digest's slot was its low bits, the same for every
// packet of a stream (an audit helper's captures: 0 capture duplicates of 20, 20 RTP ones).
func TestCaptureDuplicatesInBursts(t *testing.T) {
	other := netip.MustParseAddrPort("10.9.0.1:7000")
	for _, layout := range []string{"burst", "between"} {
		s := audio()
		o := audio()
		o.Src, o.SSRC = other, s.SSRC&0xff000000|1
		ps, po := s.Packets(), o.Packets()
		var b bytes.Buffer
		w := pcapgen.NewPcap(&b, capture.LinkLinuxSLL2, false, false, 0)
		write := func(p callgen.Packet, iface uint32, dt int64) {
			w.Write(p.T+dt, 0, pcapgen.SLL2(p.Frame[14:], pcapgen.EtherTypeIPv4, iface), 0)
		}
		for i := 0; i < len(ps); i += 2 {
			switch layout {
			case "burst":
				write(ps[i], 2, 0)
				write(ps[i+1], 2, 1000)
				write(ps[i], 3, 3000)
				write(ps[i+1], 3, 4000)
			case "between":
				for _, k := range []int{i, i + 1} {
					write(ps[k], 2, 0)
					write(po[k], 2, 1000)
					write(ps[k], 3, 2000)
				}
			}
		}
		c := analyze(t, b.Bytes(), Options{})
		for _, st := range c.Streams {
			if st.Src == s.Src.String() && (st.Packets != 500 || st.Duplicates != 0) {
				t.Errorf("%s: stream packets %d, duplicates %d; want 500 and 0", layout, st.Packets, st.Duplicates)
			}
		}
		if c.CaptureDuplicates != 500 {
			t.Errorf("%s: capture duplicates %d, want 500", layout, c.CaptureDuplicates)
		}
	}
}

// TestSnappedPackets: a snap length of 54 keeps Ethernet, IPv4, UDP and the RTP header
// (14+20+8+12): streams are still found, every packet is counted as snapped, and the sizes
// come from the original lengths.
func TestSnappedPackets(t *testing.T) {
	s := audio()
	c := analyze(t, snappedPcapOf(t, s.Packets(), 54), Options{})
	st := onlyStream(t, c)
	if c.SnappedPackets != 500 || st.Packets != 500 || deref(st.Lost) != 0 {
		t.Errorf("snapped %d, stream packets %d lost %d", c.SnappedPackets, st.Packets, deref(st.Lost))
	}
	if c.WireBytes != 500*214 || c.Directions[0].WireBytes != 500*214 {
		t.Errorf("wire %d, direction %d, want %d", c.WireBytes, c.Directions[0].WireBytes, 500*214)
	}
	// The payload the snap length cut was on the wire: it counts as payload, not as other.
	d := c.Directions[0]
	if st.PayloadBytes != 500*160 || d.MediaPayloadBytes != 500*160 || d.OverheadBytes.Other != 0 {
		t.Errorf("payload %d, media %d, other %d; want %d, %d, 0", st.PayloadBytes, d.MediaPayloadBytes,
			d.OverheadBytes.Other, 500*160, 500*160)
	}
	found := false
	for _, f := range c.Findings {
		found = found || f.Code == "snapped_packets"
	}
	if !found {
		t.Errorf("no snapped_packets finding in %+v", c.Findings)
	}
}

// TestEarliestPacketNotFirst: the capture's first record is the 12th packet of the call,
// 220 ms after the one written second (a file merged from two captures, a record written
// late): times count from the earliest packet (DESIGN: seconds since the capture's first
// packet), so the stream and its flow start at 0 and the capture at the earliest packet.
// Before, the stream started at -0.22 s and its flow at 0.
func TestEarliestPacketNotFirst(t *testing.T) {
	s := audio()
	pkts := s.Packets()
	t0 := pkts[0].T
	var b bytes.Buffer
	w := pcapgen.NewPcap(&b, capture.LinkEthernet, false, false, 0)
	w.Write(pkts[11].T, 0, pkts[11].Frame, 0)
	for i, p := range pkts {
		if i != 11 {
			w.Write(p.T, 0, p.Frame, 0)
		}
	}
	c := analyze(t, b.Bytes(), Options{})
	st := onlyStream(t, c)
	start := time.Unix(0, t0).UTC().Format("2006-01-02T15:04:05.000000Z")
	if c.Start == nil || c.DurationS == nil {
		t.Fatalf("start %v, duration %v", c.Start, c.DurationS)
	}
	if *c.Start != start || st.FirstS != 0 || c.Flows[0].FirstS != 0 || *c.DurationS != 9.98 {
		t.Errorf("start %s, stream first_s %v, flow first_s %v, duration %v; want %s, 0, 0, 9.98",
			*c.Start, st.FirstS, c.Flows[0].FirstS, *c.DurationS, start)
	}
}

// TestTruncatedCapture: a file cut in the middle of its last record gives the packets
// before it, truncated, a warning, and no error.
func TestTruncatedCapture(t *testing.T) {
	s := audio()
	data := pcapOf(t, s.Packets())
	data = data[:len(data)-100]
	c, err := Analyze(context.Background(), "cut.pcap", bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	schematest.CheckCapture(t, c)
	if !c.Truncated || len(c.Warnings) == 0 || c.Packets != 499 {
		t.Errorf("truncated %v warnings %q packets %d, want true, one, 499", c.Truncated, c.Warnings, c.Packets)
	}
}

func TestNotACapture(t *testing.T) {
	c, err := Analyze(context.Background(), "x", bytes.NewReader([]byte("hello, this is not a capture")), Options{})
	schematest.CheckCapture(t, c) // {file, error} alone
	if !errors.Is(err, ErrUnreadable) || c.Error == "" || c.File != "x" {
		t.Errorf("err %v, capture %+v", err, c)
	}
}

// TestLateAndDelay: five packets held 250 ms, the rest on time: exactly five late at the
// 150 ms budget, and at 50, 100 and 200 ms; none at 400 ms; delay max 250 ms.
func TestLateAndDelay(t *testing.T) {
	s := audio()
	held := map[int]bool{100: true, 101: true, 300: true, 301: true, 302: true}
	s.Delay = func(i int) time.Duration {
		if held[i] {
			return 250 * time.Millisecond
		}
		return 0
	}
	st := onlyStream(t, analyze(t, pcapOf(t, s.Packets()), Options{}))
	want := map[string]int64{"50": 5, "100": 5, "200": 5, "400": 0, "1000": 0}
	if st.Late == nil || st.Late.Packets != 5 || st.Late.HOLBlocked != 0 || !cmp.Equal(st.Late.OverMS, want) {
		t.Errorf("late = %+v, want 5 late, over %v", st.Late, want)
	}
	if st.DelayMS == nil || st.DelayMS.Max != 250 || st.DelayMS.Min != 0 || st.DelayMS.P50 != 0 {
		t.Errorf("delay = %+v, want min 0 p50 0 max 250", st.DelayMS)
	}
	// The budget is an option: at 300 ms nothing is late.
	st = onlyStream(t, analyze(t, pcapOf(t, s.Packets()), Options{LateBudget: 300 * time.Millisecond}))
	if st.Late.Packets != 0 || st.Late.BudgetMS != 300 {
		t.Errorf("late at 300 ms = %+v", st.Late)
	}
}

// TestKnownJitter: every other packet arrives 10 ms late, so every transit difference is
// 10 ms and RFC 3550's J follows J += (10 − J)/16 from zero.
func TestKnownJitter(t *testing.T) {
	s := audio()
	s.Delay = func(i int) time.Duration { return time.Duration(i%2) * 10 * time.Millisecond }
	st := onlyStream(t, analyze(t, pcapOf(t, s.Packets()), Options{}))
	j, sum, mx := 0.0, 0.0, 0.0
	for i := 1; i < 500; i++ {
		j += (10 - j) / 16
		sum += j
		mx = math.Max(mx, j)
	}
	want := [3]float64{numfmt.Round(sum/499, 3), numfmt.Round(mx, 3), numfmt.Round(j, 3)}
	got := [3]float64{st.JitterMS.Mean, st.JitterMS.Max, st.JitterMS.Last}
	if got != want {
		t.Errorf("jitter mean/max/last = %v, want %v", got, want)
	}
}

// TestWrapArounds: sequence numbers from 65,500 and timestamps from 2^32 − 4,000 both wrap
// within the stream; two packets lost across the sequence wrap.
func TestWrapArounds(t *testing.T) {
	s := audio()
	s.StartSeq, s.StartTS = 65500, math.MaxUint32-4000
	s.Lose = func(i int) bool { return i == 35 || i == 36 } // sequence numbers 65535 and 0
	st := onlyStream(t, analyze(t, pcapOf(t, s.Packets()), Options{}))
	if st.Expected != 500 || deref(st.Lost) != 2 || st.Reordered != 0 || st.JitterMS.Max != 0 || st.DelayMS.Max != 0 {
		t.Errorf("expected %d lost %d reordered %d jitter max %v delay max %v; want 500 2 0 0 0",
			st.Expected, deref(st.Lost), st.Reordered, st.JitterMS.Max, st.DelayMS.Max)
	}
}

// TestDecodeAs: payload type 77 with the marker bit makes a second byte of 205, which RFC
// 5761 reads as RTCP (SR..); no stream is found until --decode-as rtp names the port.
func TestDecodeAs(t *testing.T) {
	s := audio()
	s.PT = 77
	var pkts []callgen.Packet
	for i, p := range s.Packets() {
		rtp := s.RTP(i)
		rtp[1] |= 0x80 // marker
		pkts = append(pkts, callgen.Packet{T: p.T, Frame: pcapgen.EtherUDP(s.Src, s.Dst, rtp)})
	}
	data := pcapOf(t, pkts)
	if c := analyze(t, data, Options{}); len(c.Streams) != 0 {
		t.Errorf("without --decode-as: %d streams, want 0", len(c.Streams))
	}
	c := analyze(t, data, Options{DecodeAs: []DecodeAs{{Proto: "rtp", Port: bob.Port()}}})
	if st := onlyStream(t, c); st.Packets != 500 || st.PayloadType != 77 || st.Markers != 500 {
		t.Errorf("stream packets %d pt %d markers %d, want 500 77 500", st.Packets, st.PayloadType, st.Markers)
	}
}

// TestFragmentCaptureDuplicates: the datagrams of TestIPv4Fragments recorded by tcpdump -i
// any on a forwarding host, each fragment on the way in and out (SLL2 interface index 2,
// then 3), one copy right after the other or each interface's fragments together. Each
// interface's copy is rebuilt from its own fragments, and the second datagram is a capture
// duplicate: one copy analysed, none left incomplete. Packets are frames: the 100 duplicate
// datagrams are 200 duplicate frames, and the flow carried the other 200.
func TestFragmentCaptureDuplicates(t *testing.T) {
	for _, interleaved := range []bool{true, false} {
		data := fragmentedPcap(capture.LinkLinuxSLL2, func(w *pcapgen.Writer, frags [][]byte, at int64) {
			copyOf := func(j int, ifindex uint32) {
				w.Write(at, 0, pcapgen.SLL2(frags[j], pcapgen.EtherTypeIPv4, ifindex), 0)
				at += 1000
			}
			if interleaved {
				copyOf(0, 2)
				copyOf(0, 3)
				copyOf(1, 2)
				copyOf(1, 3)
			} else {
				copyOf(0, 2)
				copyOf(1, 2)
				copyOf(0, 3)
				copyOf(1, 3)
			}
		})
		c := analyze(t, data, Options{})
		st := onlyStream(t, c)
		if c.Packets != 400 || c.CaptureDuplicates != 200 || st.Packets != 100 || st.Duplicates != 0 || deref(st.Lost) != 0 {
			t.Errorf("interleaved %v: capture packets %d duplicates %d, stream packets %d duplicates %d lost %d; want 400, 200, 100, 0, 0",
				interleaved, c.Packets, c.CaptureDuplicates, st.Packets, st.Duplicates, deref(st.Lost))
		}
		if len(c.Flows) != 1 || c.Flows[0].Packets != 200 {
			t.Errorf("interleaved %v: flows %+v, want one of 200 packets", interleaved, c.Flows)
		}
		if len(c.Warnings) != 0 {
			t.Errorf("interleaved %v: warnings %q, want none", interleaved, c.Warnings)
		}
	}
}

// TestRepeatedFragments: the datagrams of TestFragmentCaptureDuplicates with each fragment
// written twice on the same interface, one copy right after the other (a network that
// duplicated them, or mergecap of a capture with itself). A receiver files each fragment
// once and rebuilds each datagram once, so the stream has 100 packets and no duplicates, and
// nothing is a capture duplicate; but every frame was on the wire: the flow and the
// direction count all 400 and their bytes (the repeats as other). Before, the repeats of the
// first fragments were in no flow's bytes, and each repeat of the last began a datagram that
// never completed: 100 "could not be rebuilt" at the end, and a direction short of 200
// frames.
func TestRepeatedFragments(t *testing.T) {
	var frames, repeats int64
	data := fragmentedPcap(capture.LinkEthernet, func(w *pcapgen.Writer, frags [][]byte, at int64) {
		for _, f := range frags {
			frame := pcapgen.Ether(f, pcapgen.EtherTypeIPv4)
			for range 2 {
				w.Write(at, 0, frame, 0)
				at += 1000
				frames += int64(len(frame))
			}
			repeats += int64(len(frame))
		}
	})
	c := analyze(t, data, Options{})
	st := onlyStream(t, c)
	if c.Packets != 400 || c.CaptureDuplicates != 0 || c.WireBytes != frames || st.Packets != 100 || st.Duplicates != 0 || deref(st.Lost) != 0 {
		t.Errorf("capture packets %d duplicates %d wire %d, stream packets %d duplicates %d lost %d; want 400, 0, %d, 100, 0, 0",
			c.Packets, c.CaptureDuplicates, c.WireBytes, st.Packets, st.Duplicates, deref(st.Lost), frames)
	}
	if len(c.Flows) != 1 || c.Flows[0].Packets != 400 || c.Flows[0].WireBytes != frames {
		t.Errorf("flows %+v, want one of 400 packets and %d bytes", c.Flows, frames)
	}
	if d := c.Directions[0]; d.WireBytes != frames || d.OverheadBytes.Other != repeats {
		t.Errorf("direction wire %d, other %d; want %d and %d", d.WireBytes, d.OverheadBytes.Other, frames, repeats)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %q, want none", c.Warnings)
	}
}

// TestOneWayLegRTCP: audio one way, alice to bob, and bob's receiver reports back on the
// same 5-tuple every 100 ms. The reports are RTCP of the leg, which carries this direction
// only: its wire bytes hold them (DESIGN, "Goodput and overhead"). Before, no direction
// counted them: bob's side sends no stream, so no direction of its own took them.
func TestOneWayLegRTCP(t *testing.T) {
	s := audio()
	pkts := s.Packets()
	var media, rtcp int64
	for _, p := range pkts {
		media += int64(len(p.Frame))
	}
	for i := range 100 {
		f := pcapgen.EtherUDP(bob, alice, callgen.RTCPRR(0x55667788, s.SSRC))
		rtcp += int64(len(f))
		pkts = append(pkts, callgen.Packet{T: callgen.Epoch + int64(i)*int64(100*time.Millisecond) + 1e6, Frame: f})
	}
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Directions) != 1 {
		t.Fatalf("%d directions, want 1", len(c.Directions))
	}
	d := c.Directions[0]
	if d.OverheadBytes.RTCP != rtcp || d.WireBytes != media+rtcp || c.WireBytes != media+rtcp {
		t.Errorf("direction rtcp %d, wire %d (capture %d); want %d and %d", d.OverheadBytes.RTCP, d.WireBytes, c.WireBytes, rtcp, media+rtcp)
	}
}

// TestOneWayLegAddsUp: media one way adds up to its leg's frames. Over ICE-TCP (RFC 4571)
// from alice to bob the direction counts bob's SYN/ACK, alice's last ACK of the handshake
// (the media sender's own pure ACK) and bob's pure ACKs; over UDP, bob's RTCP and the
// datagrams he sends that are neither (other). Before, the SYN/ACK, that ACK and bob's
// other datagrams were in no direction.
func TestOneWayLegAddsUp(t *testing.T) {
	s := audio()
	s.Start = 200 * time.Millisecond
	call := callgen.TCPCall{Client: alice, Server: bob, RTT: 20 * time.Millisecond, ISN: [2]uint32{100, 900}}
	tcp := call.Packets(callgen.MediaWrites(callgen.Frame4571, func(*callgen.Stream) int { return 0 }, s))
	udp := s.Packets()
	for i := range 20 {
		at := callgen.Epoch + int64(i)*int64(250*time.Millisecond) + 1e6
		udp = append(udp, callgen.Packet{T: at, Frame: pcapgen.EtherUDP(bob, alice, callgen.RTCPRR(0x55667788, s.SSRC))},
			callgen.Packet{T: at + 1e6, Frame: pcapgen.EtherUDP(bob, alice, []byte("keepalive"))})
	}
	for name, pkts := range map[string][]callgen.Packet{"ice-tcp": tcp, "udp": udp} {
		c := analyze(t, pcapOf(t, pkts), Options{})
		if len(c.Directions) != 1 || len(c.Flows) != 1 {
			t.Fatalf("%s: %d directions, %d flows; want 1 and 1", name, len(c.Directions), len(c.Flows))
		}
		if d, f := c.Directions[0], c.Flows[0]; d.WireBytes != f.WireBytes || d.WireBytes != c.WireBytes {
			t.Errorf("%s: direction %d wire bytes, its flow %d, the capture %d", name, d.WireBytes, f.WireBytes, c.WireBytes)
		}
	}
}

// TestSnappedInsideHeaders: a snap length of 34 keeps Ethernet and IPv4 and cuts the UDP
// header: the packets are undecodable, in no flow, and a warning says why (DESIGN: what the
// captured bytes did not allow is said in warnings). Before, only that they were snapped.
func TestSnappedInsideHeaders(t *testing.T) {
	s := audio()
	s.Count = 20
	c := analyze(t, snappedPcapOf(t, s.Packets(), 34), Options{})
	if c.SnappedPackets != 20 || c.UndecodablePackets != 20 || len(c.Flows) != 0 {
		t.Errorf("snapped %d, undecodable %d, %d flows; want 20, 20, 0", c.SnappedPackets, c.UndecodablePackets, len(c.Flows))
	}
	found := false
	for _, w := range c.Warnings {
		found = found || strings.Contains(w, "20 packets were cut inside their link, IP or transport headers")
	}
	if !found {
		t.Errorf("warnings %q: none says the headers were cut", c.Warnings)
	}
}

// TestRepeatedDatagram: the datagrams of TestRepeatedFragments sent whole twice on the same
// interface, the second copy's fragments 1 ms after the first's, with the same
// identification (a network that duplicated the datagram): a receiver rebuilds and delivers
// both, so the stream has 200 packets, 100 of them duplicates, and nothing is a capture
// duplicate. The same in reverse order of fragments (as some stacks send them), and, with
// each fragment written twice in a row in that order, a repeat of fragments as in
// TestRepeatedFragments: 100 packets, no duplicate, nothing left incomplete. Before, the
// second copy's fragments were taken for repeats of the first's: 100 packets, no duplicate.
// In every order each frame is the flow's: a repeat of the last fragment that came before
// the first had told the ports was in no flow, and a repeat of the first fragment after the
// datagram was rebuilt (h130) began a copy that never completed, in no flow, and was
// reported incomplete.
func TestRepeatedDatagram(t *testing.T) {
	for _, tc := range []struct {
		name          string
		order         []int // fragment indexes, in the order written
		packets, dups int
	}{
		{"whole, in order", []int{0, 1, 0, 1}, 200, 100},
		{"each twice, reversed", []int{1, 1, 0, 0}, 100, 0},
		{"whole, reversed", []int{1, 0, 1, 0}, 200, 100},
		{"whole, the second reversed", []int{0, 1, 1, 0}, 200, 100},
		{"the first again", []int{0, 1, 0}, 100, 0},
		{"the first again, reversed", []int{1, 0, 1}, 100, 0},
		{"the last twice first", []int{1, 1, 0}, 100, 0},
	} {
		data := fragmentedPcap(capture.LinkEthernet, func(w *pcapgen.Writer, frags [][]byte, at int64) {
			for _, j := range tc.order {
				w.Write(at, 0, pcapgen.Ether(frags[j], pcapgen.EtherTypeIPv4), 0)
				at += 500_000
			}
		})
		c := analyze(t, data, Options{})
		st := onlyStream(t, c)
		frames := int64(100 * len(tc.order))
		if c.Packets != frames || c.CaptureDuplicates != 0 || st.Packets != int64(tc.packets) || st.Duplicates != int64(tc.dups) || deref(st.Lost) != 0 {
			t.Errorf("%s: capture packets %d duplicates %d, stream packets %d duplicates %d lost %d; want %d, 0, %d, %d, 0",
				tc.name, c.Packets, c.CaptureDuplicates, st.Packets, st.Duplicates, deref(st.Lost), frames, tc.packets, tc.dups)
		}
		if len(c.Flows) != 1 || c.Flows[0].Packets != frames || c.Flows[0].WireBytes != c.WireBytes || len(c.Warnings) != 0 {
			t.Errorf("%s: flows %+v, warnings %q; want one flow of all %d frames and %d bytes, no warning",
				tc.name, c.Flows, c.Warnings, frames, c.WireBytes)
		}
	}
}

// TestNothingIP: a BSD loopback capture whose 40 packets name an address family that is
// not IP (99), and the same with one ARP frame among RTP over Ethernet. The first says why
// its report is empty; the second, whose IP packets were analysed, says nothing of its ARP.
func TestNothingIP(t *testing.T) {
	var b bytes.Buffer
	w := pcapgen.NewPcap(&b, capture.LinkNull, false, false, 0)
	s := audio()
	for i, p := range s.Packets()[:40] {
		w.Write(p.T, 0, pcapgen.Null(pcapgen.IPv4(s.Src.Addr(), s.Dst.Addr(), pcapgen.ProtoUDP, pcapgen.UDP(s.Src, s.Dst, s.RTP(i))), 99), 0)
	}
	c := analyze(t, b.Bytes(), Options{})
	want := []string{"none of the 40 decoded packets carried IP (link headers that name another protocol or address family): nothing to analyse"}
	if c.Packets != 40 || len(c.Flows) != 0 || !slices.Equal(c.Warnings, want) {
		t.Errorf("packets %d, flows %d, warnings %q; want 40, 0, %q", c.Packets, len(c.Flows), c.Warnings, want)
	}
	pkts := append(s.Packets(), callgen.Packet{T: callgen.Epoch, Frame: pcapgen.Ether(make([]byte, 28), pcapgen.EtherTypeARP)})
	if c := analyze(t, pcapOf(t, pkts), Options{}); c.Packets != 501 || len(c.Warnings) != 0 {
		t.Errorf("with ARP: packets %d, warnings %q; want 501, none", c.Packets, c.Warnings)
	}
}

// TestWarningsBounded: the warnings listed stop at 50; a last one counts the others, which
// were dropped without a word before (a tester's 10,000 streams of a table's refusals).
func TestWarningsBounded(t *testing.T) {
	var a analyzer
	for i := range 60 {
		a.warnf("warning %d", i)
	}
	w := a.listedWarnings()
	if len(w) != 51 || w[49] != "warning 49" || w[50] != "10 more warnings not listed" {
		t.Errorf("%d warnings, ending %q", len(w), w[len(w)-2:])
	}
}

// TestSnappedInsideRTPHeader: 50 PCMU packets (one lost) with two CSRCs and an 8-byte
// header extension, a 32-byte RTP header, cut by the snap length at four places. Cut after
// the header, or inside the extension's body, the stream and its sizes are whole. Cut
// inside the CSRC list, its sequence numbers and SSRC are still captured: the stream is
// counted (it was not: "a header that does not parse"), its header as the least it can be
// (24 bytes), the other 8 as payload, and a warning says so. Cut inside the fixed header,
// before the SSRC, no stream can have the packets: a warning says they are counted in none.
func TestSnappedInsideRTPHeader(t *testing.T) {
	const n, payload = 50, 160
	write := func(snap int) []byte {
		var b bytes.Buffer
		w := pcapgen.NewPcap(&b, capture.LinkEthernet, false, false, snap)
		for i := range n {
			if i == 10 {
				continue
			}
			rtp := []byte{0x92, 0, 0, 0, 0, 0, 0, 0, 0x1a, 0x2b, 0x3c, 0x4d, // v=2, x=1, cc=2, PT 0
				0, 0, 0, 1, 0, 0, 0, 2, // CSRCs
				0xbe, 0xde, 0, 2, 0x10, 0xaa, 0, 0, 0, 0, 0, 0} // one-byte extension, 2 words
			binary.BigEndian.PutUint16(rtp[2:], uint16(1000+i))
			binary.BigEndian.PutUint32(rtp[4:], uint32(160*i))
			rtp = append(rtp, make([]byte, payload)...)
			w.Write(int64(i)*20e6, 0, pcapgen.EtherUDP(alice, bob, rtp), 0)
		}
		return b.Bytes()
	}
	has := func(c report.Capture, s string) bool {
		for _, w := range c.Warnings {
			if strings.Contains(w, s) {
				return true
			}
		}
		return false
	}
	const cutExt, cutFixed = "inside their header extension's length", "inside the RTP fixed header"
	for _, tc := range []struct {
		name            string
		snap            int
		header, payload int64 // of the stream, per packet
		warn            string
	}{
		{"after the header", 42 + 32, 32, payload, ""},
		{"inside the extension's body", 42 + 26, 32, payload, ""},
		{"inside the CSRC list", 42 + 16, 24, payload + 8, "49 RTP packets were cut by the snap length " + cutExt},
	} {
		c := analyze(t, write(tc.snap), Options{})
		st := onlyStream(t, c)
		if st.Packets != n-1 || deref(st.Lost) != 1 || st.HeaderBytes != (n-1)*tc.header || st.PayloadBytes != (n-1)*tc.payload {
			t.Errorf("%s: packets %d lost %d header %d payload %d; want %d, 1, %d, %d", tc.name, st.Packets, deref(st.Lost),
				st.HeaderBytes, st.PayloadBytes, n-1, (n-1)*tc.header, (n-1)*tc.payload)
		}
		if tc.warn != "" && !has(c, tc.warn) || tc.warn == "" && (has(c, cutExt) || has(c, cutFixed)) {
			t.Errorf("%s: warnings %q, want one saying %q", tc.name, c.Warnings, tc.warn)
		}
	}
	c := analyze(t, write(42+8), Options{})
	if len(c.Streams) != 0 || !has(c, "49 messages in RTP's range were cut by the snap length "+cutFixed) {
		t.Errorf("inside the fixed header: %d streams, warnings %q; want none, and a warning", len(c.Streams), c.Warnings)
	}
}

// TestSimplePacketBlocksOnly: a pcapng whose packets all came in Simple Packet Blocks, which
// carry no time stamp: when the capture began and how long it lasted cannot be measured
// (null), where they read 1970-01-01 and 0 s. The packets are still analysed.
func TestSimplePacketBlocksOnly(t *testing.T) {
	s := audio()
	s.Count = 20
	var b bytes.Buffer
	w := pcapgen.NewPcapNG(&b, []pcapgen.Iface{{Link: capture.LinkEthernet}})
	for _, p := range s.Packets() {
		w.WriteSPB(p.Frame, 0)
	}
	c := analyze(t, b.Bytes(), Options{})
	if c.Start != nil || c.DurationS != nil || c.Packets != 20 || len(c.Streams) != 1 {
		t.Errorf("start %v, duration %v, %d packets, %d streams; want null, null, 20, 1", c.Start, c.DurationS, c.Packets, len(c.Streams))
	}
}

// TestWireSeriesAfterProbes: 12 padding-only probes on the media SSRC at 0-11 ms, PCMU from
// 0.5 s for 10 s, and 3 sender reports a second on the same 5-tuple from 0.6 s (h131). The
// direction's series runs from the first media packet; the reports' seconds must be on that
// grid. Before, the probe anchored the flow's side at 0 s, and each second of three reports
// was shared out between two of the direction's: 62.832 and 63.728 kbps where 63.28.
func TestWireSeriesAfterProbes(t *testing.T) {
	s := audio()
	s.Start = 500 * time.Millisecond
	pkts := s.Packets()
	for i := range 12 {
		rtp := make([]byte, 12+200)
		rtp[0], rtp[1], rtp[2] = 0xa0, s.PT, byte(i) // P bit; sequence numbers 0-11, before StartSeq
		binary.BigEndian.PutUint32(rtp[8:], s.SSRC)
		rtp[len(rtp)-1] = 200
		pkts = append(pkts, callgen.Packet{T: callgen.Epoch + int64(i)*int64(time.Millisecond), Frame: pcapgen.EtherUDP(s.Src, s.Dst, rtp)})
	}
	sr, err := (&rtcp.SenderReport{SSRC: s.SSRC}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	srFrame := pcapgen.EtherUDP(s.Src, s.Dst, sr)
	for i := range 30 {
		at := 600*time.Millisecond + time.Duration(i)*time.Second/3
		pkts = append(pkts, callgen.Packet{T: callgen.Epoch + int64(at), Frame: srFrame})
	}
	c := analyze(t, pcapOf(t, pkts), Options{})
	if len(c.Directions) != 1 {
		t.Fatalf("%d directions", len(c.Directions))
	}
	d := c.Directions[0]
	media := len(pcapgen.EtherUDP(s.Src, s.Dst, s.RTP(0)))
	want := float64(50*media+3*len(srFrame)) * 8 / 1000 // each second: 50 packets, 3 reports
	if d.Series.T0S != 0.5 || len(d.Series.WireKbps) != 10 {
		t.Fatalf("series from %v s, %d seconds; want 0.5, 10", d.Series.T0S, len(d.Series.WireKbps))
	}
	for i, v := range d.Series.WireKbps {
		if math.Abs(v-want) > 1e-6 {
			t.Errorf("second %d: wire %v kbps, want %v", i, v, want)
		}
	}
}

// TestRepeatsOfTwoDatagrams: after the call of TestRepeatedDatagram, datagram 10's first
// fragment again, then 11's second, then 10's second: 10 came twice (an RTP duplicate),
// 11's fragment is a repeat that never completes, and its frame is the flow's. Before, the
// second copy of 10 took 11's waiting repeat with it, by their ports (h135: 26 of 27).
func TestRepeatsOfTwoDatagrams(t *testing.T) {
	var keep [][]byte
	n := 0
	data := fragmentedPcap(capture.LinkEthernet, func(w *pcapgen.Writer, frags [][]byte, at int64) {
		for _, f := range frags {
			w.Write(at, 0, pcapgen.Ether(f, pcapgen.EtherTypeIPv4), 0)
		}
		if n == 10 || n == 11 {
			keep = append(keep, frags...)
		}
		if n++; n == 100 {
			for _, f := range [][]byte{keep[0], keep[3], keep[1]} {
				at += 1e6
				w.Write(at, 0, pcapgen.Ether(f, pcapgen.EtherTypeIPv4), 0)
			}
		}
	})
	c := analyze(t, data, Options{})
	st := onlyStream(t, c)
	if st.Packets != 101 || st.Duplicates != 1 || len(c.Flows) != 1 || c.Flows[0].Packets != 203 ||
		c.Flows[0].WireBytes != c.WireBytes || len(c.Warnings) != 0 {
		t.Errorf("stream packets %d duplicates %d, flows %+v, warnings %q; want 101, 1, one flow of 203 frames and %d bytes, none",
			st.Packets, st.Duplicates, c.Flows, c.Warnings, c.WireBytes)
	}
}

// TestSnappedAfterPorts: a snap length of 38 keeps the UDP header's ports and cuts its
// length: the 20 packets are one flow's, which nothing else says the kind of (an other
// flow, with all their bytes). They were undecodable, in no flow (h130).
func TestSnappedAfterPorts(t *testing.T) {
	s := audio()
	s.Count = 20
	c := analyze(t, snappedPcapOf(t, s.Packets(), 38), Options{})
	if c.SnappedPackets != 20 || c.UndecodablePackets != 0 || c.OtherFlows != 1 || c.OtherFlowBytes != c.WireBytes {
		t.Errorf("snapped %d, undecodable %d, other flows %d of %d bytes; want 20, 0, 1 of %d",
			c.SnappedPackets, c.UndecodablePackets, c.OtherFlows, c.OtherFlowBytes, c.WireBytes)
	}
}

// TestSeriesStopWarned: a stream that goes quiet for two hours, its capture going on (the
// other direction's audio keeps the capture's clock from jumping), has its per-second series
// stop at the gap (DESIGN: a jump of hours is a warning and a break): said in a warning,
// its later packets counted in its totals.
func TestSeriesStopWarned(t *testing.T) {
	a := audio()
	a.Count = 100
	later := a
	later.Start, later.StartSeq, later.StartTS = 2*time.Hour, a.StartSeq+100, a.StartTS+800
	b := audio()
	b.Src, b.Dst, b.SSRC, b.Interval, b.Count = bob, alice, 0xb0b, 10*time.Second, 800
	pkts := slices.Concat(a.Packets(), later.Packets(), b.Packets())
	c := analyze(t, pcapOf(t, pkts), Options{})
	s := streamBySSRC(c, a.SSRC)
	if s == nil || s.Packets != 200 {
		t.Fatalf("stream %+v: want 200 packets", s)
	}
	var said bool
	for _, w := range c.Warnings {
		said = said || strings.Contains(w, "series of 1 RTP stream stop at a gap of more than an hour")
	}
	if !said {
		t.Errorf("warnings %q: want the series' stop said", c.Warnings)
	}
}

// TestTimesBeyondWarned: a pcapng of nanosecond stamps in the year 2200, past the times the
// analysis keeps (±2^62 ns: 1824 to 2116): every time is set to the bound, so the call
// reads as one instant, and a warning says why. Before, nothing did.
func TestTimesBeyondWarned(t *testing.T) {
	s := audio()
	var b bytes.Buffer
	w := pcapgen.NewPcapNG(&b, []pcapgen.Iface{{Link: capture.LinkEthernet, TSResol: 9}})
	const year2200 = int64(7_258_118_400) * 1e9
	for _, p := range s.Packets() {
		w.Write(p.T-callgen.Epoch+year2200, 0, p.Frame, 0)
	}
	c := analyze(t, b.Bytes(), Options{})
	var said bool
	for _, w := range c.Warnings {
		said = said || strings.HasPrefix(w, "500 packets were stamped beyond the years 1824 to 2116")
	}
	if !said {
		t.Errorf("warnings %q: want the clamped times said", c.Warnings)
	}
}
