package rtpflow

import (
	"math"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/rtcp"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

func marshal(t *testing.T, pkts ...rtcp.Packet) []byte {
	t.Helper()
	b, err := rtcp.Marshal(pkts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRTCP(t *testing.T) {
	tr := NewTracker(Config{})
	// Media 0xA1 (PCMU) from alice to bob.
	feed(t, tr, pcmu(100, 0, 0, nil, nil))

	// Alice's SR at 1 s; NTP middle 32 bits 0x12345678.
	const ntp = uint64(0x0000_1234_5678_0000)
	tr.RTCP(pathA, msg(marshal(t, &rtcp.SenderReport{SSRC: 0xA1, NTPTime: ntp}), T0+1e9))
	// Bob's RR about 0xA1: LSR = that SR, DLSR = 8192/65536 s = 125 ms, arriving 165 ms
	// after the SR: RTT 40 ms. Fraction lost 64/256, 12 lost, jitter 80 units (10 ms).
	// Its extended highest sequence number is about to wrap.
	rr := &rtcp.ReceiverReport{SSRC: 0xB2, Reports: []rtcp.ReceptionReport{{
		SSRC: 0xA1, FractionLost: 64, TotalLost: 12, Jitter: 80, LastSenderReport: 0x12345678, Delay: 8192,
		LastSequenceNumber: 0xffff_fff0}}}
	nack := &rtcp.TransportLayerNack{SenderSSRC: 0xB2, MediaSSRC: 0xA1, Nacks: []rtcp.NackPair{
		{PacketID: 100, LostPackets: 0b101}, {PacketID: 200}}} // 3 + 1 packets
	pli := &rtcp.PictureLossIndication{SenderSSRC: 0xB2, MediaSSRC: 0xA1}
	tr.RTCP(pathB, msg(marshal(t, rr, nack, pli), T0+1e9+165*ms1))
	remb := &rtcp.ReceiverEstimatedMaximumBitrate{SenderSSRC: 0xB2, Bitrate: 1.5e6, SSRCs: []uint32{0xA1}}
	fir := &rtcp.FullIntraRequest{SenderSSRC: 0xB2, FIR: []rtcp.FIREntry{{SSRC: 0xA1, SequenceNumber: 1}}}
	twcc := &rtcp.TransportLayerCC{SenderSSRC: 0xB2, MediaSSRC: 0xA1, BaseSequenceNumber: 1, PacketStatusCount: 1,
		PacketChunks: []rtcp.PacketStatusChunk{&rtcp.RunLengthChunk{PacketStatusSymbol: rtcp.TypeTCCPacketReceivedSmallDelta, RunLength: 1}},
		RecvDeltas:   []*rtcp.RecvDelta{{Type: rtcp.TypeTCCPacketReceivedSmallDelta, Delta: 250}}}
	twcc.Header = rtcp.Header{Padding: true, Count: rtcp.FormatTCC, Type: rtcp.TypeTransportSpecificFeedback,
		Length: uint16(twcc.MarshalSize()/4 - 1)}
	// A second report block, no SR named (no RTT): 100 packets expected since the first
	// (across the wrap), 8 more lost.
	rr2 := &rtcp.ReceiverReport{SSRC: 0xB2, Reports: []rtcp.ReceptionReport{{
		SSRC: 0xA1, FractionLost: 64, TotalLost: 20, Jitter: 80, LastSequenceNumber: 0x54}}}
	tr.RTCP(pathB, msg(marshal(t, rr2, pli, remb), T0+2e9))
	tr.RTCP(pathB, msg(marshal(t, fir), T0+2e9))
	tr.RTCP(pathB, msg(marshal(t, twcc), T0+2e9))

	got := only(t, tr).Summary(T0).RTCP
	want := &report.RTCP{
		Packets: 9,
		Types: map[string]int64{"sr": 1, "rr": 2, "sdes": 0, "bye": 0, "app": 0, "nack": 1, "pli": 2,
			"fir": 1, "remb": 1, "twcc": 1, "xr": 0, "other": 0},
		RTTMS:            &report.Quantiles{Samples: 1, Min: 40, P50: 40, P95: 40, P99: 40, Max: 40},
		FractionLost:     f64(25),
		CumulativeLost:   i64(20),
		ReportedLost:     i64(8),
		ReportedExpected: i64(100),
		JitterMS:         f64(10),
		NACKedPackets:    i64(4),
		PLI:              2,
		FIR:              1,
		REMBKbps:         f64(1500),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RTCP (-want +got):\n%s", diff)
	}
}

func TestSRTCP(t *testing.T) {
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(100, 0, 0, nil, nil))
	// An SRTCP receiver report: clear 8-byte header (v=2, rc=1, RR, len=7, sender SSRC
	// 0xA1), then 24 encrypted bytes, the E flag and index, and a 10-byte tag.
	b := []byte{0x81, 201, 0x00, 0x07, 0x00, 0x00, 0x00, 0xA1}
	for i := 0; i < 24+4+10; i++ {
		b = append(b, byte(i*37+11))
	}
	tr.RTCP(pathA, msg(b, T0+1e9))
	tr.RTCP(pathA, msg(b, T0+2e9))
	sr := append([]byte{0x80, 200, 0x00, 0x06, 0x00, 0x00, 0x00, 0xA1}, b[8:]...) // an SRTCP SR
	tr.RTCP(pathA, msg(sr, T0+3e9))
	tr.RTCP(pathA, msg([]byte{0x80, 200, 0}, T0+3e9)) // too short to read: not counted
	got := only(t, tr).Summary(T0).RTCP
	want := &report.RTCP{Packets: 3, Encrypted: true, Types: map[string]int64{"sr": 1, "rr": 2, "sdes": 0, "bye": 0,
		"app": 0, "nack": 0, "pli": 0, "fir": 0, "remb": 0, "twcc": 0, "xr": 0, "other": 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SRTCP (-want +got):\n%s", diff)
	}
}

// Packets of plain compounds for TestRTCPPadded, field by field (RFC 3550 6.4, RFC 4585 6).
var (
	// v=2, p=0, rc=1, RR, len=7; sender 0xB2; block about 0xA1: fraction 64, cumulative 7,
	// highest sequence 99, jitter 160, LSR 0, DLSR 0.
	rrB2 = []byte{0x81, 201, 0x00, 0x07, 0x00, 0x00, 0x00, 0xB2,
		0x00, 0x00, 0x00, 0xA1, 64, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 99,
		0x00, 0x00, 0x00, 160, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}
	// v=2, p=1, sc=1, SDES, len=4; chunk 0xB2: CNAME (1), 3 octets "bob", end, 2 null
	// octets to the word; 4 octets of padding, the last its count.
	sdesB2Padded = []byte{0xA1, 202, 0x00, 0x04, 0x00, 0x00, 0x00, 0xB2,
		1, 3, 'b', 'o', 'b', 0, 0, 0,
		0, 0, 0, 4}
	// The same SDES without the padding: v=2, p=0, sc=1, SDES, len=3.
	sdesB2 = []byte{0x81, 202, 0x00, 0x03, 0x00, 0x00, 0x00, 0xB2,
		1, 3, 'b', 'o', 'b', 0, 0, 0}
	// v=2, p=1, fmt=15, PSFB, len=6; sender 0xB2, media 0; "REMB", 1 SSRC, exp 2,
	// mantissa 250000 (1 Mbps); 0xA1; 4 octets of padding, the last its count.
	rembPadded = []byte{0xAF, 206, 0x00, 0x06, 0x00, 0x00, 0x00, 0xB2, 0x00, 0x00, 0x00, 0x00,
		'R', 'E', 'M', 'B', 1, 0x0B, 0xD0, 0x90, 0x00, 0x00, 0x00, 0xA1,
		0, 0, 0, 4}
	// v=2, p=0, fmt=15, PSFB, len=3; sender 0xB2, media 0xA1; an AFB message of another
	// application (RFC 4585 6.4), "ABCD": not REMB.
	afbOther = []byte{0x8F, 206, 0x00, 0x03, 0x00, 0x00, 0x00, 0xB2, 0x00, 0x00, 0x00, 0xA1,
		'A', 'B', 'C', 'D'}
	// sdesB2Padded with a padding count of 17: more than the 16 octets after its header.
	sdesBadPad = []byte{0xA1, 202, 0x00, 0x04, 0x00, 0x00, 0x00, 0xB2,
		1, 3, 'b', 'o', 'b', 0, 0, 0,
		0, 0, 0, 17}
)

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// rtcpTypes is report.RTCP.Types with the counts given and every other type 0.
func rtcpTypes(kv map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(typeKeys))
	for _, k := range typeKeys {
		out[k] = kv[k]
	}
	return out
}

// TestRTCPPadded: plain compounds whose last packet carries padding (RFC 3550 6.4.1), or
// holds a packet pion rejects, are plain RTCP, read packet by packet; headers that do not
// walk to the end are SRTCP, as before. Media 0xA1 from alice to bob; bob's RTCP back.
func TestRTCPPadded(t *testing.T) {
	rr := &report.RTCP{Packets: 1, Types: rtcpTypes(map[string]int64{"rr": 1}),
		FractionLost: f64(25), CumulativeLost: i64(7), JitterMS: f64(20), NACKedPackets: i64(0)}
	for _, tc := range []struct {
		name string
		data []byte
		want *report.RTCP // about 0xA1
	}{
		{"unpadded RR+SDES", cat(rrB2, sdesB2), rr},
		{"RR+SDES, the SDES padded", cat(rrB2, sdesB2Padded), rr},
		{"RR+REMB, the REMB padded", cat(rrB2, rembPadded), &report.RTCP{Packets: 2,
			Types:        rtcpTypes(map[string]int64{"rr": 1, "remb": 1}),
			FractionLost: f64(25), CumulativeLost: i64(7), JitterMS: f64(20), NACKedPackets: i64(0),
			REMBKbps: f64(1000)}},
		{"RR+AFB not REMB", cat(rrB2, afbOther, sdesB2Padded), &report.RTCP{Packets: 2,
			Types:        rtcpTypes(map[string]int64{"rr": 1, "other": 1}),
			FractionLost: f64(25), CumulativeLost: i64(7), JitterMS: f64(20), NACKedPackets: i64(0)}},
		// Padding on a packet not last, or a count beyond the packet: not a compound's
		// headers, so SRTCP, counted by the first header on its sender (0xB2).
		{"padding not last", cat(sdesB2Padded, rrB2), nil},
		{"padding count too large", cat(rrB2, sdesBadPad), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			feed(t, tr, pcmu(100, 0, 0, nil, nil))
			tr.RTCP(pathB, msg(tc.data, T0+1e9))
			got := only(t, tr).Summary(T0).RTCP
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("RTCP about 0xA1 (-want +got):\n%s", diff)
			}
			c := tr.Counts()
			enc := int64(0)
			if tc.want == nil {
				enc = 1
			}
			if c.RTCPPackets != 1 || c.RTCPEncrypted != enc {
				t.Errorf("counts %+v, want 1 compound, %d encrypted", c, enc)
			}
		})
	}
}

// TestRTCPSnappedOrDamaged: RTCP cut by the snap length is counted and not read: what was
// kept cannot tell it from SRTCP, whose first packet is as clear. RTCP that does not parse and
// leaves fewer bytes after its first packet than SRTCP's index and shortest tag (14) is
// damaged, not encrypted: not counted; one whose first packet claims more than the datagram
// holds (SRTCP's first packet is whole) is counted by that packet's clear header, as damaged
// (RTCPDamaged). None makes the stream's RTCP encrypted.
func TestRTCPSnappedOrDamaged(t *testing.T) {
	long := cat(rrB2[:2], []byte{0x00, 0x20}, rrB2[4:]) // length 33 words, in 32 bytes
	for _, tc := range []struct {
		name                   string
		data                   []byte
		snapped                bool
		packets, snap, invalid int64
	}{
		{"RR+SDES cut after 20 bytes", cat(rrB2, sdesB2)[:20], true, 1, 1, 0},
		{"RR cut inside a whole compound's length", rrB2[:28], true, 1, 1, 0},
		{"RR and 8 bytes that are no packet", cat(rrB2, make([]byte, 8)), false, 0, 0, 1},
		{"RR and 13 bytes that are no packet", cat(rrB2, make([]byte, 13)), false, 0, 0, 1},
		{"first length beyond the datagram", long, false, 1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			feed(t, tr, pcmu(100, 0, 0, nil, nil))
			m := msg(tc.data, T0+1e9)
			m.Snapped = tc.snapped
			tr.RTCP(pathB, m)
			if got := only(t, tr).Summary(T0).RTCP; got != nil {
				t.Errorf("RTCP about 0xA1: %+v, want none", got)
			}
			c := tr.Counts()
			if c.RTCPPackets != tc.packets || c.RTCPSnapped != tc.snap || c.RTCPInvalid != tc.invalid || c.RTCPEncrypted != 0 ||
				c.RTCPDamaged != tc.packets-tc.snap {
				t.Errorf("counts %+v, want %d packets, %d snapped, %d invalid, none encrypted", c, tc.packets, tc.snap, tc.invalid)
			}
		})
	}
}

// RTCP cut by the snap length still counts, by its first packet's clear header, on the
// stream that header names: the sender's own SR (nothing else read from it).
func TestRTCPSnappedCounted(t *testing.T) {
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(100, 0, 0, nil, nil))
	sr := marshal(t, &rtcp.SenderReport{SSRC: 0xA1, NTPTime: 0x1234_5678_0000_0000, PacketCount: 100})
	m := msg(sr[:12], T0+1e9)
	m.Snapped = true
	tr.RTCP(pathA, m)
	want := &report.RTCP{Packets: 1, Types: rtcpTypes(map[string]int64{"sr": 1}), NACKedPackets: i64(0)}
	if d := cmp.Diff(want, only(t, tr).Summary(T0).RTCP); d != "" {
		t.Errorf("RTCP of 0xA1 (-want +got):\n%s", d)
	}
}

// TestRTCPReporters: a stream's reported loss and jitter are the first receiver's to report:
// another receiver's blocks are counted (RTCPOtherReporter), not mixed in. An extended
// highest sequence number that goes down leaves the loss reported during the capture null.
// A receiver report without blocks counts on its sender's own stream.
func TestRTCPReporters(t *testing.T) {
	rrFrom := func(reporter uint32, cum, highest uint32) []byte {
		return marshal(t, &rtcp.ReceiverReport{SSRC: reporter, Reports: []rtcp.ReceptionReport{{
			SSRC: 0xA1, FractionLost: uint8(cum), TotalLost: cum, Jitter: 8 * cum, LastSequenceNumber: highest}}})
	}
	types := rtcpTypes(map[string]int64{"rr": 3})
	for _, tc := range []struct {
		name  string
		rrs   [][]byte
		want  *report.RTCP
		other int64
	}{
		{"two receivers", [][]byte{rrFrom(0xB2, 5, 100), rrFrom(0xC3, 50, 1000), rrFrom(0xB2, 8, 200)},
			&report.RTCP{Packets: 3, Types: types, FractionLost: f64(3.125), CumulativeLost: i64(8),
				ReportedLost: i64(3), ReportedExpected: i64(100), JitterMS: f64(8), NACKedPackets: i64(0)}, 1},
		{"highest went down", [][]byte{rrFrom(0xB2, 5, 200), rrFrom(0xB2, 7, 150), rrFrom(0xB2, 6, 100)},
			&report.RTCP{Packets: 3, Types: types, FractionLost: f64(2.344), CumulativeLost: i64(6),
				JitterMS: f64(6), NACKedPackets: i64(0)}, 0},
		{"across the wrap", [][]byte{rrFrom(0xB2, 5, 0xffff_fff0), rrFrom(0xB2, 7, 0xffff_fff8), rrFrom(0xB2, 9, 0x10)},
			&report.RTCP{Packets: 3, Types: types, FractionLost: f64(3.516), CumulativeLost: i64(9),
				ReportedLost: i64(4), ReportedExpected: i64(0x20), JitterMS: f64(9), NACKedPackets: i64(0)}, 0},
		// Down and up again (h132): the span's difference means nothing either.
		{"highest went down and up", [][]byte{rrFrom(0xB2, 10, 1100), rrFrom(0xB2, 11, 1050), rrFrom(0xB2, 13, 1300)},
			&report.RTCP{Packets: 3, Types: types, FractionLost: f64(5.078), CumulativeLost: i64(13),
				JitterMS: f64(13), NACKedPackets: i64(0)}, 0},
		// A signed 24-bit count that RFC 3550 (A.3) clamps, not wraps: from 10 to the
		// least it can be is a fall of 8,388,618, not a rise of 8,388,598 (h132); of 100
		// expected, which no receiver's duplicates give: null (h162).
		{"cumulative lost to its least", [][]byte{rrFrom(0xB2, 10, 100), rrFrom(0xB2, 0x800000, 200)},
			&report.RTCP{Packets: 2, Types: rtcpTypes(map[string]int64{"rr": 2}), FractionLost: f64(0),
				CumulativeLost: i64(-8388608), NACKedPackets: i64(0)}, 0},
		// Duplicates: a fall of 40 of 100 expected (40 packets came twice) is read.
		{"cumulative lost falls by duplicates", [][]byte{rrFrom(0xB2, 50, 100), rrFrom(0xB2, 10, 200)},
			&report.RTCP{Packets: 2, Types: rtcpTypes(map[string]int64{"rr": 2}), FractionLost: f64(3.906),
				CumulativeLost: i64(10), ReportedLost: i64(-40), ReportedExpected: i64(100), JitterMS: f64(10),
				NACKedPackets: i64(0)}, 0},
		// More lost than expected: no receiver's counters do that (its lost is what it
		// expected less what it received).
		{"more lost than expected", [][]byte{rrFrom(0xB2, 10, 100), rrFrom(0xB2, 510, 200)},
			&report.RTCP{Packets: 2, Types: rtcpTypes(map[string]int64{"rr": 2}), FractionLost: f64(99.219),
				CumulativeLost: i64(510), JitterMS: f64(510), NACKedPackets: i64(0)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			feed(t, tr, pcmu(100, 0, 0, nil, nil))
			for i, b := range tc.rrs {
				tr.RTCP(pathB, msg(b, T0+int64(i+1)*1e9))
			}
			if diff := cmp.Diff(tc.want, only(t, tr).Summary(T0).RTCP); diff != "" {
				t.Errorf("RTCP about 0xA1 (-want +got):\n%s", diff)
			}
			if c := tr.Counts(); c.RTCPOtherReporter != tc.other {
				t.Errorf("%d blocks of another reporter, want %d", c.RTCPOtherReporter, tc.other)
			}
		})
	}

	tr := NewTracker(Config{})
	feed(t, tr, pcmu(100, 0, 0, nil, nil))
	tr.RTCP(pathA, msg(marshal(t, &rtcp.ReceiverReport{SSRC: 0xA1}), T0+1e9))
	want := &report.RTCP{Packets: 1, Types: rtcpTypes(map[string]int64{"rr": 1}), NACKedPackets: i64(0)}
	if diff := cmp.Diff(want, only(t, tr).Summary(T0).RTCP); diff != "" {
		t.Errorf("a receiver report without blocks from 0xA1 (-want +got):\n%s", diff)
	}
	if c := tr.Counts(); len(c.RTCPPlainNoStream) != 0 {
		t.Errorf("counted on no stream: %+v", c.RTCPPlainNoStream)
	}
}

// onPath moves arrivals to path p.
func onPath(as []arrival, p Path) []arrival {
	for i := range as {
		as[i].p = p
	}
	return as
}

// rrAbout is a receiver report from 0xC3 with one block about ssrc.
func rrAbout(ssrc uint32, fraction uint8, lost, jitter, lsr, dlsr uint32) *rtcp.ReceiverReport {
	return &rtcp.ReceiverReport{SSRC: 0xC3, Reports: []rtcp.ReceptionReport{{SSRC: ssrc,
		FractionLost: fraction, TotalLost: lost, Jitter: jitter, LastSenderReport: lsr, Delay: dlsr}}}
}

// TestRTCPByLeg: RTCP about an SSRC goes to the stream of that SSRC on the leg it came on.
// Captured at a forwarder S (an SFU, or a TURN server): alice's PCMU 0xA1 arrives on leg 1
// and leaves unchanged on leg 2 to carol. Without rtcp-mux, RTCP is a flow, and a leg, of
// its own, between the same addresses as the stream's: it is the stream's when the stream
// has none on its own leg.
func TestRTCPByLeg(t *testing.T) {
	var (
		sfuIn  = netip.MustParseAddrPort("10.0.0.9:7000")
		sfuOut = netip.MustParseAddrPort("10.0.0.9:7001")
		carol  = netip.MustParseAddrPort("10.0.0.3:8000")
		l1     = Path{Leg: 1, Src: alice, Dst: sfuIn}
		l1Back = Path{Leg: 1, Src: sfuIn, Dst: alice}
		l2     = Path{Leg: 2, Src: sfuOut, Dst: carol}
		l2Back = Path{Leg: 2, Src: carol, Dst: sfuOut}
		// RTCP on the next ports, a third leg, between the addresses of leg 2 or of leg 1.
		l3Back = Path{Leg: 3, Src: netip.AddrPortFrom(carol.Addr(), 8001), Dst: netip.AddrPortFrom(sfuOut.Addr(), 7002)}
		l4Back = Path{Leg: 4, Src: netip.AddrPortFrom(sfuIn.Addr(), 7003), Dst: netip.AddrPortFrom(alice.Addr(), 5001)}
		// GStreamer's defaults: the sender's SRs from an ephemeral port to RTP + 1, the
		// receiver's reports between its RTP + 5 and the sender's: two legs of their own.
		l5     = Path{Leg: 5, Src: netip.AddrPortFrom(sfuOut.Addr(), 45220), Dst: netip.AddrPortFrom(carol.Addr(), 8001)}
		l6Back = Path{Leg: 6, Src: netip.AddrPortFrom(carol.Addr(), 8005), Dst: netip.AddrPortFrom(sfuOut.Addr(), 8005)}
	)
	// alice's SR on leg 1 at 1 s, forwarded unchanged on leg 2 at 1.010 s: NTP middle 32
	// bits 0x12345678 on both.
	sr := &rtcp.SenderReport{SSRC: 0xA1, NTPTime: 0x0000_1234_5678_0000}
	type rtcpAt struct {
		p   Path
		pk  rtcp.Packet
		at  int64
		rep int // how many, 100 ms apart
	}
	rrs := func(p Path, frac uint8, lost, jitter uint32, n int) rtcpAt {
		return rtcpAt{p, rrAbout(0xA1, frac, lost, jitter, 0, 0), T0 + 1500*ms1, n}
	}
	// The repeated reports say the same: nothing lost or expected between the first and the
	// last.
	rr1 := &report.RTCP{Packets: 3, Types: rtcpTypes(map[string]int64{"rr": 3}),
		FractionLost: f64(0), CumulativeLost: i64(0), ReportedLost: i64(0), ReportedExpected: i64(0), JitterMS: f64(1), NACKedPackets: i64(0)}
	rr2 := &report.RTCP{Packets: 5, Types: rtcpTypes(map[string]int64{"rr": 5}),
		FractionLost: f64(25), CumulativeLost: i64(10), ReportedLost: i64(0), ReportedExpected: i64(0), JitterMS: f64(10), NACKedPackets: i64(0)}
	for _, tc := range []struct {
		name   string
		rtcp   []rtcpAt
		w1, w2 *report.RTCP // about the stream on leg 1, on leg 2
	}{
		{"each leg's reports", []rtcpAt{rrs(l1Back, 0, 0, 8, 3), rrs(l2Back, 64, 10, 80, 5)}, rr1, rr2},
		{"reports on one leg only", []rtcpAt{rrs(l2Back, 64, 10, 80, 5)}, nil, rr2},
		{"RTT from the SR of the same leg", []rtcpAt{
			{l1, sr, T0 + 1e9, 1}, {l2, sr, T0 + 1e9 + 10*ms1, 1},
			// S answers alice 30 ms after her SR, DLSR 0x051F/65536 s = 20.004 ms: 9.996 ms;
			// carol answers 110 ms after the forwarded SR, DLSR 0x0CCC/65536 s = 49.988 ms:
			// 60.012 ms.
			{l1Back, rrAbout(0xA1, 0, 0, 8, 0x12345678, 0x051F), T0 + 1e9 + 30*ms1, 1},
			{l2Back, rrAbout(0xA1, 64, 10, 80, 0x12345678, 0x0CCC), T0 + 1e9 + 120*ms1, 1},
		}, &report.RTCP{Packets: 2, Types: rtcpTypes(map[string]int64{"sr": 1, "rr": 1}),
			RTTMS:        &report.Quantiles{Samples: 1, Min: 9.996, P50: 9.996, P95: 9.996, P99: 9.996, Max: 9.996},
			FractionLost: f64(0), CumulativeLost: i64(0), JitterMS: f64(1), NACKedPackets: i64(0)},
			&report.RTCP{Packets: 2, Types: rtcpTypes(map[string]int64{"sr": 1, "rr": 1}),
				RTTMS:        &report.Quantiles{Samples: 1, Min: 60.012, P50: 60.012, P95: 60.012, P99: 60.012, Max: 60.012},
				FractionLost: f64(25), CumulativeLost: i64(10), JitterMS: f64(10), NACKedPackets: i64(0)}},
		{"RTCP on its own port", []rtcpAt{rrs(l3Back, 64, 10, 80, 5)}, nil, rr2},
		{"RTCP on its own port and on the leg", []rtcpAt{rrs(l3Back, 64, 10, 80, 5), rrs(l1Back, 0, 0, 8, 3)}, rr1, rr2},
		{"RTCP on its own port, each leg", []rtcpAt{rrs(l3Back, 64, 10, 80, 5), rrs(l4Back, 0, 0, 8, 3)}, rr1, rr2},
		// Merged: both legs' counts, the receiver reports' figures; no round trip, the
		// reports naming no SR.
		{"SRs and receiver reports each on a port of their own", []rtcpAt{{l5, sr, T0 + 1e9, 2}, rrs(l6Back, 64, 10, 80, 5)}, nil,
			&report.RTCP{Packets: 7, Types: rtcpTypes(map[string]int64{"sr": 2, "rr": 5}), FractionLost: f64(25),
				CumulativeLost: i64(10), ReportedLost: i64(0), ReportedExpected: i64(0), JitterMS: f64(10), NACKedPackets: i64(0)}},
		// The report names the SR that came on the other leg: its round trip is measured
		// there (before: null, the SR looked for on the report's leg only), 30 ms less the
		// DLSR's 20.004.
		{"a report naming an SR of another leg", []rtcpAt{{l5, sr, T0 + 1e9, 1},
			{l6Back, rrAbout(0xA1, 64, 10, 80, 0x12345678, 0x051F), T0 + 1e9 + 30*ms1, 1}}, nil,
			&report.RTCP{Packets: 2, Types: rtcpTypes(map[string]int64{"sr": 1, "rr": 1}),
				RTTMS:        &report.Quantiles{Samples: 1, Min: 9.996, P50: 9.996, P95: 9.996, P99: 9.996, Max: 9.996},
				FractionLost: f64(25), CumulativeLost: i64(10), JitterMS: f64(10), NACKedPackets: i64(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			as := append(onPath(pcmu(100, 0, 0, nil, nil), l1), onPath(pcmu(100, 0, 0, nil, func(int) int64 { return 10 * ms1 }), l2)...)
			feed(t, tr, as)
			for _, r := range tc.rtcp {
				for i := range r.rep {
					tr.RTCP(r.p, msg(marshal(t, r.pk), r.at+int64(i)*100*ms1))
				}
			}
			ss := tr.Streams()
			if len(ss) != 2 {
				t.Fatalf("got %d streams, want 2", len(ss))
			}
			for i, want := range []*report.RTCP{tc.w1, tc.w2} {
				if diff := cmp.Diff(want, ss[i].Summary(T0).RTCP); diff != "" {
					t.Errorf("RTCP of the stream on leg %d (-want +got):\n%s", ss[i].path.Leg, diff)
				}
			}
		})
	}
}

// TestRTCPAboutNoStream: plain RTCP that names no SSRC that sent a stream is counted, by
// type, on no stream (Counts.RTCPPlainNoStream, which the analysis warns of), where it was
// counted nowhere before: a receiver report without report blocks (nothing received yet),
// and a receive-only endpoint's SDES of its own SSRC. A report about the stream is the
// stream's only.
func TestRTCPAboutNoStream(t *testing.T) {
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(100, 0, 0, nil, nil)) // 0xA1 from alice to bob
	empty := &rtcp.ReceiverReport{SSRC: 0xB2}
	sdes := &rtcp.SourceDescription{Chunks: []rtcp.SourceDescriptionChunk{{Source: 0xB2,
		Items: []rtcp.SourceDescriptionItem{{Type: rtcp.SDESCNAME, Text: "bob"}}}}}
	rr := &rtcp.ReceiverReport{SSRC: 0xB2, Reports: []rtcp.ReceptionReport{{SSRC: 0xA1}}}
	tr.RTCP(pathB, msg(marshal(t, empty, sdes), T0+1e9))
	tr.RTCP(pathB, msg(marshal(t, rr, sdes), T0+2e9))
	s := only(t, tr)
	st := s.Summary(T0).RTCP
	if st == nil || st.Packets != 1 || st.Types["rr"] != 1 || st.Types["sdes"] != 0 {
		t.Errorf("the stream's RTCP %+v, want the one report about it", st)
	}
	want := []TypeCount{{"rr", 1}, {"sdes", 2}}
	if got := tr.Counts().RTCPPlainNoStream; !cmp.Equal(got, want) {
		t.Errorf("RTCPPlainNoStream %v, want %v", got, want)
	}
}

// A receiver's jitter of 0xFFFFFFFF units (149 hours at 8 kHz) and a REMB of 2^62 bps are
// no measurements: null, not absurd figures.
func TestRTCPAbsurdFigures(t *testing.T) {
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(100, 0, 0, nil, nil))
	rr := &rtcp.ReceiverReport{SSRC: 0xB2, Reports: []rtcp.ReceptionReport{{SSRC: 0xA1, Jitter: 0xFFFFFFFF, LastSequenceNumber: 99}}}
	remb := &rtcp.ReceiverEstimatedMaximumBitrate{SenderSSRC: 0xB2, Bitrate: 1 << 62, SSRCs: []uint32{0xA1}}
	tr.RTCP(pathB, msg(marshal(t, rr, remb), T0+1e9))
	got := only(t, tr).Summary(T0).RTCP
	if got == nil || got.JitterMS != nil || got.REMBKbps != nil || got.CumulativeLost == nil {
		t.Errorf("RTCP %+v: want jitter and REMB null, the rest read", got)
	}
}

// TestRTCPRTTBehindManySenderReports: a media server's capture, 300 other sources' sender
// reports between 0xA1's and the receiver report that names it 2.6 s later (40 calls'
// video, an SR a second each: h132). The round trip is still measured; before, only the
// last 256 sender reports of all sources were remembered.
func TestRTCPRTTBehindManySenderReports(t *testing.T) {
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(100, 0, 0, nil, nil))
	const ntp = uint64(0x0000_1234_5678_0000)
	tr.RTCP(pathA, msg(marshal(t, &rtcp.SenderReport{SSRC: 0xA1, NTPTime: ntp}), T0+1e9))
	for i := range 300 {
		sr := &rtcp.SenderReport{SSRC: 0x1000 + uint32(i), NTPTime: ntp + uint64(i)<<16}
		tr.RTCP(pathA, msg(marshal(t, sr), T0+1e9+int64(i)*8*ms1))
	}
	// DLSR 2.56 s (167772 / 65536), arriving 2.6 s after the SR: 40 ms.
	rr := &rtcp.ReceiverReport{SSRC: 0xB2, Reports: []rtcp.ReceptionReport{{
		SSRC: 0xA1, LastSenderReport: 0x12345678, Delay: 167772, LastSequenceNumber: 99}}}
	tr.RTCP(pathB, msg(marshal(t, rr), T0+1e9+2600*ms1))
	got := only(t, tr).Summary(T0).RTCP
	if got == nil || got.RTTMS == nil || got.RTTMS.Samples != 1 || math.Abs(got.RTTMS.P50-40) > 0.1 {
		t.Errorf("RTCP %+v, want one round trip of 40 ms", got)
	}
}

// TestRTCPDamagedOnAPlainLeg: on a leg whose RTCP was plain, a receiver report whose SDES
// after it claims more than the datagram holds is damaged plain RTCP, not SRTCP (h132:
// the stream became encrypted, its NACK count null, its report block lost). The report
// before the damage is read; the datagram is counted damaged.
func TestRTCPDamagedOnAPlainLeg(t *testing.T) {
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(100, 0, 0, nil, nil))
	rr := func(lost uint32) []byte {
		return marshal(t, &rtcp.ReceiverReport{SSRC: 0xB2, Reports: []rtcp.ReceptionReport{{
			SSRC: 0xA1, TotalLost: lost, LastSequenceNumber: 50 + lost}}})
	}
	sdes := marshal(t, &rtcp.SourceDescription{Chunks: []rtcp.SourceDescriptionChunk{{Source: 0xB2,
		Items: []rtcp.SourceDescriptionItem{{Type: rtcp.SDESCNAME, Text: "bob@example"}}}}})
	tr.RTCP(pathB, msg(cat(rr(5), sdes), T0+1e9))
	bad := cat(rr(9), sdes)
	bad[len(rr(9))+3] += 40 // the SDES's length beyond the datagram
	tr.RTCP(pathB, msg(bad, T0+2e9))
	got := only(t, tr).Summary(T0).RTCP
	if got == nil || got.Encrypted || got.NACKedPackets == nil || got.CumulativeLost == nil || *got.CumulativeLost != 9 || got.Types["rr"] != 2 {
		t.Errorf("RTCP about 0xA1 %+v: want plain, 2 receiver reports, cumulative lost 9", got)
	}
	if c := tr.Counts(); c.RTCPDamaged != 1 || c.RTCPEncrypted != 0 || c.RTCPPackets != 2 {
		t.Errorf("counts %+v: want 2 packets, 1 damaged, none encrypted", c)
	}
}

// TestRTCPRTTFromTheSRsSending: over TCP at the SR sender's side, the SR's message is first
// seen when sent (1 s) and delivered, as estimated half the 50 ms round trip on, at
// 1.025 s; the RR about it, DLSR 125 ms, arrives at 1.175 s. RFC 3550 6.4.1 takes the SR's
// sending: 1.175 − 0.125 − 1 = 50 ms. From the SR's estimated delivery it read 25 ms
// (h162: 24.95 ms on a 50 ms path).
func TestRTCPRTTFromTheSRsSending(t *testing.T) {
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(100, 0, 0, nil, nil))
	const ntp = uint64(0x0000_1234_5678_0000)
	sr := msg(marshal(t, &rtcp.SenderReport{SSRC: 0xA1, NTPTime: ntp}), T0+1e9)
	sr.Proto, sr.Complete, sr.Delivered = transport.TCP, T0+1e9+25*ms1, T0+1e9+25*ms1
	tr.RTCP(pathA, sr)
	rr := &rtcp.ReceiverReport{SSRC: 0xB2, Reports: []rtcp.ReceptionReport{{
		SSRC: 0xA1, LastSenderReport: 0x12345678, Delay: 8192, LastSequenceNumber: 99}}}
	m := msg(marshal(t, rr), T0+1e9+175*ms1)
	m.Proto = transport.TCP
	tr.RTCP(pathB, m)
	got := only(t, tr).Summary(T0).RTCP
	if got == nil || got.RTTMS == nil || got.RTTMS.Samples != 1 || got.RTTMS.Max != 50 {
		t.Errorf("rtcp %+v, want one RTT sample of 50 ms", got)
	}
}
