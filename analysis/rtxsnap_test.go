package analysis

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/capture"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
	"github.com/callpcap/callpcap/report"
)

// snapRTXCall is scrub's udpCall: a direct call over UDP from alice to bob, 6 s. alice
// sends audio (0x0a0a0a0a, PT 111, 300 packets, 80-byte payload, abs-send-time) and video
// (0x1a2b3c4d, PT 96, 600 packets of 1,100 bytes, from sequence number 0) losing every
// 40th packet (39, 79, ... 599: 15); bob sends audio back (0x0b0b0b0b), and RTCP receiver
// reports about the video each second; audio over IPv6 (0x0c0c0c0c) too. The RTX stream
// (0x1a2b3c4e, PT 97, sequence numbers from 100) resends each lost packet 30 ms after it
// was sent, its OSN first (15 repairs), and after every other one (79, 159, ... 559: 7)
// sends a 200-byte padding-only probe 1 ms later: 22 packets. Payload bytes are random.
func snapRTXCall() []callgen.Packet {
	fill := func(ssrc uint32) func(i int, b []byte) {
		return func(i int, b []byte) {
			r := rand.New(rand.NewPCG(uint64(ssrc), uint64(i)))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
		}
	}
	const n = 300
	audio := callgen.Stream{Src: alice, Dst: bob, SSRC: 0x0a0a0a0a, PT: 111, ClockRate: 48000,
		Interval: 20 * time.Millisecond, PayloadSize: 80, Count: n, Start: 100 * time.Millisecond, ASTID: 3}
	audio.Fill = fill(audio.SSRC)
	back := audio
	back.Src, back.Dst, back.SSRC, back.ASTID = bob, alice, 0x0b0b0b0b, 0
	back.Fill = fill(back.SSRC)
	v6 := audio
	v6.Src, v6.Dst, v6.SSRC = netip.MustParseAddrPort("[2001:db8::1]:40002"), netip.MustParseAddrPort("[2001:db8::9]:50002"), 0x0c0c0c0c
	v6.Fill = fill(v6.SSRC)
	video := callgen.Stream{Src: alice, Dst: bob, SSRC: 0x1a2b3c4d, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1100, Count: 2 * n, Start: 100 * time.Millisecond,
		Lose: func(i int) bool { return i%40 == 39 }}
	video.Fill = fill(video.SSRC)
	rtx := callgen.RTX{SSRC: 0x1a2b3c4e, PT: 97}
	seq := uint16(100)
	for i := 39; i < video.Count; i += 40 {
		at := video.Start + time.Duration(i)*video.Interval + 30*time.Millisecond
		rtx.Sends = append(rtx.Sends, callgen.RTXSend{I: i, At: at, Seq: seq})
		seq++
		if i%80 == 79 {
			rtx.Sends = append(rtx.Sends, callgen.RTXSend{I: i, At: at + time.Millisecond, Seq: seq, Pad: 200})
			seq++
		}
	}
	var pkts []callgen.Packet
	for _, s := range []callgen.Stream{audio, back, v6, video} {
		pkts = append(pkts, s.Packets()...)
	}
	pkts = append(pkts, video.RTXPackets(rtx)...)
	for k := 0; k < 5; k++ {
		t := callgen.Epoch + int64(time.Second)*int64(k+1)
		pkts = append(pkts, callgen.Packet{T: t, Frame: pcapgen.EtherUDP(bob, alice, callgen.RTCPRR(0x0b0b0b0b, 0x1a2b3c4d))})
	}
	return pkts
}

// snapRTX is what the test asserts of the RTX stream and its video.
type snapRTX struct {
	Kind, RTXOf               string
	Packets                   int64
	MediaSSRC                 string
	Repairs, Probes           int64
	VideoLost, VideoRecovered int64
}

func snapRTXOf(c report.Capture) snapRTX {
	var f snapRTX
	if r := streamBySSRC(c, 0x1a2b3c4e); r != nil {
		f.Kind, f.RTXOf, f.Packets = r.Kind, derefS(r.RTXOf), r.Packets
		if r.RTX != nil {
			f.MediaSSRC, f.Repairs, f.Probes = r.RTX.MediaSSRC, r.RTX.Repairs, r.RTX.Probes
		}
	}
	if v := streamBySSRC(c, 0x1a2b3c4d); v != nil {
		f.VideoLost, f.VideoRecovered = deref(v.Lost), deref(v.RecoveredByRTX)
	}
	return f
}

// A capture cut at 200 bytes keeps each RTX repair's OSN (bytes 12-13 of the RTP packet,
// 54-55 of the frame) but not a padding-only probe's padding count (its last byte, at 253):
// the probe's first captured bytes after the header are padding, not an OSN. Read as OSN
// 0, they voted for alice's audio, whose numbers are nearer 0 than the video's, and the
// RTX stream, with 11 of its first 16 votes for the video (under three quarters), was not
// recognised: kind video, no rtx_of, no repairs credited. A snapped packet with the P bit
// set and fewer than 257 bytes after its header may be padding only: it carries no OSN.
// Every figure is then the one of the whole capture: 14 repairs (loss 599, the video's
// last packet, is beyond its highest and was not wanted: a probe), 8 probes.
func TestSnappedRTXProbes(t *testing.T) {
	want := snapRTX{Kind: "rtx", RTXOf: "0x1a2b3c4d", Packets: 22, MediaSSRC: "0x1a2b3c4d",
		Repairs: 14, Probes: 8, VideoLost: 14, VideoRecovered: 14}
	for _, snap := range []int{0, 200} {
		for _, minPackets := range []int{1, 0} {
			var b bytes.Buffer
			if err := callgen.Write(pcapgen.NewPcap(&b, capture.LinkEthernet, false, false, snap), snapRTXCall()); err != nil {
				t.Fatal(err)
			}
			c := analyze(t, b.Bytes(), Options{MinPackets: minPackets})
			if d := cmp.Diff(want, snapRTXOf(c)); d != "" {
				t.Errorf("snap %d, min packets %d (-want +got):\n%s", snap, minPackets, d)
			}
			if snap != 0 && c.SnappedPackets == 0 {
				t.Errorf("snap %d: no snapped packets", snap)
			}
		}
	}
}
