package rtpflow

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pion/rtcp"

	"github.com/callpcap/callpcap/report"
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
	rr := &rtcp.ReceiverReport{SSRC: 0xB2, Reports: []rtcp.ReceptionReport{{
		SSRC: 0xA1, FractionLost: 64, TotalLost: 12, Jitter: 80, LastSenderReport: 0x12345678, Delay: 8192}}}
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
	rr2 := &rtcp.ReceiverReport{SSRC: 0xB2, Reports: []rtcp.ReceptionReport{{
		SSRC: 0xA1, FractionLost: 64, TotalLost: 12, Jitter: 80}}} // no SR yet: no RTT
	tr.RTCP(pathB, msg(marshal(t, rr2, pli, remb), T0+2e9))
	tr.RTCP(pathB, msg(marshal(t, fir), T0+2e9))
	tr.RTCP(pathB, msg(marshal(t, twcc), T0+2e9))

	got := only(t, tr).Summary(T0).RTCP
	want := &report.RTCP{
		Packets: 9,
		Types: map[string]int64{"sr": 1, "rr": 2, "sdes": 0, "bye": 0, "app": 0, "nack": 1, "pli": 2,
			"fir": 1, "remb": 1, "twcc": 1, "xr": 0, "other": 0},
		RTTMS:          &report.Quantiles{Samples: 1, Min: 40, P50: 40, P95: 40, P99: 40, Max: 40},
		FractionLost:   f64(25),
		CumulativeLost: i64(12),
		JitterMS:       f64(10),
		NACKedPackets:  i64(4),
		PLI:            2,
		FIR:            1,
		REMBKbps:       f64(1500),
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
