package analysis

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
)

// TestPaddedPacketsTakeNoTiming: a packet that may be padding only (P set and, over SRTP,
// its count unreadable) is a probe whose timestamp says nothing of when it was sent, so it
// takes no part in jitter, delay or lateness. Found in Chromium captures: an RTX stream of
// 19 padded probes only (nothing for the RTX matcher to vote on), whose first timestamp is
// 0 and the others an old frame's, showed jitter 261,824 ms mean, 428,718 ms max; now null.
// An audio stream whose every tenth packet is padded and stamped 10 s back keeps the
// jitter of its unpadded packets: 0, as they arrive exactly on their clock.
func TestPaddedPacketsTakeNoTiming(t *testing.T) {
	probes := callgen.Stream{Src: alice, Dst: bob, SSRC: 0x9e0be001, PT: 97, ClockRate: 90000,
		Interval: 500 * time.Millisecond, PayloadSize: 240, Count: 19, Start: 200 * time.Millisecond,
		TS: func(i int) uint32 {
			if i == 0 {
				return 0
			}
			return 0x40000000 + uint32(rand.New(rand.NewPCG(3, uint64(i))).IntN(1<<28))
		},
		Padded: func(int) bool { return true },
		Fill:   randomFill(5)}
	audio := callgen.Stream{Src: alice, Dst: bob, SSRC: 0x5e7b0002, PT: 111, ClockRate: 48000,
		Interval: 20 * time.Millisecond, PayloadSize: 80, Count: 300, StartTS: 960000,
		TS: func(i int) uint32 {
			ts := uint32(960000 + 960*i)
			if i%10 == 5 {
				ts -= 480000 // 10 s back
			}
			return ts
		},
		Padded: func(i int) bool { return i%10 == 5 },
		Fill:   randomFill(6)}
	pkts := append(probes.Packets(), audio.Packets()...)
	pkts = append(pkts, callgen.DTLSRecord(-100*time.Millisecond, alice, bob), callgen.DTLSRecord(-50*time.Millisecond, bob, alice))
	c := analyze(t, pcapOf(t, pkts), Options{MinPackets: 1})
	found := 0
	for _, s := range c.Streams {
		switch s.SSRC {
		case "0x9e0be001":
			found++
			if s.Packets != 19 || s.JitterMS != nil || s.DelayMS != nil || s.Late != nil {
				t.Errorf("probes: %d packets, jitter %+v, delay %+v, late %+v; want 19, null, null, null", s.Packets, s.JitterMS, s.DelayMS, s.Late)
			}
		case "0x5e7b0002":
			found++
			if s.Packets != 300 || s.JitterMS == nil || s.JitterMS.Max != 0 || s.DelayMS == nil || s.DelayMS.Samples != 270 {
				t.Errorf("audio: %d packets, jitter %+v, delay %+v; want 300, max 0, 270 delay samples", s.Packets, s.JitterMS, s.DelayMS)
			}
		}
	}
	if found != 2 {
		t.Fatalf("%d of the 2 streams reported", found)
	}
}

// randomFill writes random bytes, as SRTP payloads look, seeded per packet.
func randomFill(seed uint64) func(i int, b []byte) {
	return func(i int, b []byte) {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
	}
}
