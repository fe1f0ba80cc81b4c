package callgen

import (
	"net/netip"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// RTXRepairCall is a direct call over UDP from alice (10.0.0.1:40000) to bob
// (198.51.100.9:50000), 6 s. alice sends audio (0x0a0a0a0a, PT 111, 300 packets, 80-byte
// payload, abs-send-time) and video (0x1a2b3c4d, PT 96, 600 packets of 1,100 bytes, from
// sequence number 0) losing every 40th packet (39, 79, ... 599: 15); bob sends audio back
// (0x0b0b0b0b), and an RTCP receiver report about the video each second; audio over IPv6
// (0x0c0c0c0c, [2001:db8::1]:40002 to [2001:db8::9]:50002) too. The RTX stream
// (0x1a2b3c4e, PT 97, sequence numbers from 100) resends each lost packet 30 ms after it
// was sent, its OSN first (15 repairs), and after every other one (79, 159, ... 559: 7)
// sends a 200-byte padding-only probe 1 ms later: 22 packets. fill(ssrc) writes each
// stream's payloads (Stream.Fill): random bytes stand for SRTP, zeros for a scrubbed copy.
func RTXRepairCall(fill func(ssrc uint32) func(i int, b []byte)) []Packet {
	alice, bob := netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("198.51.100.9:50000")
	const n = 300
	audio := Stream{Src: alice, Dst: bob, SSRC: 0x0a0a0a0a, PT: 111, ClockRate: 48000,
		Interval: 20 * time.Millisecond, PayloadSize: 80, Count: n, Start: 100 * time.Millisecond, ASTID: 3}
	audio.Fill = fill(audio.SSRC)
	back := audio
	back.Src, back.Dst, back.SSRC, back.ASTID = bob, alice, 0x0b0b0b0b, 0
	back.Fill = fill(back.SSRC)
	v6 := audio
	v6.Src, v6.Dst, v6.SSRC = netip.MustParseAddrPort("[2001:db8::1]:40002"), netip.MustParseAddrPort("[2001:db8::9]:50002"), 0x0c0c0c0c
	v6.Fill = fill(v6.SSRC)
	video := Stream{Src: alice, Dst: bob, SSRC: 0x1a2b3c4d, PT: 96, ClockRate: 90000,
		Interval: 10 * time.Millisecond, PayloadSize: 1100, Count: 2 * n, Start: 100 * time.Millisecond,
		Lose: func(i int) bool { return i%40 == 39 }}
	video.Fill = fill(video.SSRC)
	rtx := RTX{SSRC: 0x1a2b3c4e, PT: 97}
	seq := uint16(100)
	for i := 39; i < video.Count; i += 40 {
		at := video.Start + time.Duration(i)*video.Interval + 30*time.Millisecond
		rtx.Sends = append(rtx.Sends, RTXSend{I: i, At: at, Seq: seq})
		seq++
		if i%80 == 79 { // a bandwidth probe: padding only
			rtx.Sends = append(rtx.Sends, RTXSend{I: i, At: at + time.Millisecond, Seq: seq, Pad: 200})
			seq++
		}
	}
	var pkts []Packet
	for _, s := range []Stream{audio, back, v6, video} {
		pkts = append(pkts, s.Packets()...)
	}
	pkts = append(pkts, video.RTXPackets(rtx)...)
	for k := 0; k < 5; k++ {
		t := Epoch + int64(time.Second)*int64(k+1)
		pkts = append(pkts, Packet{T: t, Frame: pcapgen.EtherUDP(bob, alice, RTCPRR(0x0b0b0b0b, 0x1a2b3c4d))})
	}
	return pkts
}
