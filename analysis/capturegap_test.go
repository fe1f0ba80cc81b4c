package analysis

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/callgen"
)

// gapCall is a TURN/TCP call 60 ms away (scrub's turnTCPCall) with one segment from the
// server, its 121st, that the capture misses altogether though the client got it and
// acknowledged it: a capture gap in the middle of the call, in the middle of a message.
// The media payload is random (what SRTP looks like): one byte in 16 of it reads as a
// ChannelData header. With coalesce the senders coalesce writes into 1200-byte segments cut
// anywhere; without, each write is cut into 1000-byte segments of its own.
func gapCall(coalesce bool) (callgen.TCPCall, []callgen.TCPWrite) {
	call := callgen.TCPCall{Client: alice, Server: tcpServer, RTT: 60 * time.Millisecond, RTO: 200 * time.Millisecond,
		ISN: [2]uint32{0xfffff000, 0x9000}, MSS: 1000, SACK: true,
		LoseAfter:  func(seg int) bool { return seg%50 == 49 },
		LoseBefore: func(seg int) bool { return seg%50 == 24 },
		Miss:       func(dir, seg int) bool { return dir == 1 && seg == 120 },
	}
	if coalesce {
		call.MSS, call.Coalesce = 0, 25*time.Millisecond
	}
	const n = 250
	streams := []callgen.Stream{
		{Src: alice, SSRC: 0x0a0a0a0a, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 80, Count: n, Start: 300 * time.Millisecond},
		{Src: tcpServer, SSRC: 0x0b0b0b0b, PT: 111, ClockRate: 48000, Interval: 20 * time.Millisecond, PayloadSize: 81, Count: n, Start: 300 * time.Millisecond},
		{Src: alice, SSRC: 0x1a2b3c4d, PT: 96, ClockRate: 90000, Interval: 10 * time.Millisecond, PayloadSize: 1100, Count: 2 * n, Start: 300 * time.Millisecond},
		{Src: tcpServer, SSRC: 0x5e6f7a8b, PT: 96, ClockRate: 90000, Interval: 10 * time.Millisecond, PayloadSize: 1003, Count: 2 * n, Start: 300 * time.Millisecond},
	}
	for i := range streams {
		ssrc := streams[i].SSRC
		streams[i].Fill = func(i int, b []byte) {
			r := rand.New(rand.NewPCG(uint64(ssrc), uint64(i)))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
		}
	}
	dir := func(s *callgen.Stream) int {
		if s.Src == alice {
			return 0
		}
		return 1
	}
	media := callgen.MediaWrites(func(rtp []byte) []byte { return callgen.ChannelData(channel, rtp) }, dir, streams...)
	setup := callgen.TURNTCPSetup(100*time.Millisecond, call.RTT, tcpRelayed, bob, channel)
	return call, callgen.MergeWrites(setup, media)
}

// gapFigures are what a capture gap costs one direction.
type gapFigures struct {
	Messages, CaptureGap, ResyncSkipped int64
	Lost                                map[string]int64 // per SSRC
}

// gapAnswer works out, from the writes and the frames captured, what the capture gap of the
// server's direction must cost: the hole is the range of the stream no captured segment
// holds; every message with a byte in it is lost (STUN or ChannelData, read off the writes'
// framing), and the bytes of those messages outside the hole are skipped to resynchronise.
func gapAnswer(t *testing.T, call callgen.TCPCall, writes []callgen.TCPWrite, pkts []callgen.Packet) gapFigures {
	t.Helper()
	var stream []byte
	for _, w := range writes {
		if w.Dir == 1 {
			stream = append(stream, w.Data...)
		}
	}
	have := make([]bool, len(stream))
	srv := tcpServer.Addr().As4()
	for _, p := range pkts {
		f := p.Frame // Ethernet (14), IPv4 without options (20), TCP
		if [4]byte(f[26:30]) != srv || f[47]&0x02 != 0 {
			continue // the client's, or the SYN/ACK
		}
		tcpLen := int(f[46]>>4) * 4
		payload := int(binary.BigEndian.Uint16(f[16:18])) - 20 - tcpLen
		off := int(binary.BigEndian.Uint32(f[38:42]) - (call.ISN[1] + 1))
		for i := off; i < off+payload; i++ {
			have[i] = true
		}
	}
	lo, hi := -1, -1
	for i, h := range have {
		switch {
		case !h && lo < 0:
			lo = i
		case h && lo >= 0 && hi < 0:
			hi = i
		case !h && hi >= 0:
			t.Fatalf("more than one hole: [%d, %d) and %d", lo, hi, i)
		}
	}
	if lo < 0 || hi < 0 {
		t.Fatalf("no hole inside the server's stream (%d, %d)", lo, hi)
	}
	g := gapFigures{CaptureGap: int64(hi - lo), Lost: map[string]int64{}}
	var lostBytes int64
	for s := 0; s < len(stream); {
		size := 20 + int(binary.BigEndian.Uint16(stream[s+2:])) // STUN
		ssrc := ""
		if stream[s]&0xC0 != 0 { // ChannelData, padded to 4 over TCP
			size = (4 + int(binary.BigEndian.Uint16(stream[s+2:])) + 3) &^ 3
			ssrc = ssrcString(binary.BigEndian.Uint32(stream[s+4+8:]))
		}
		if s < hi && s+size > lo {
			lostBytes += int64(size)
			if ssrc != "" {
				g.Lost[ssrc]++
			}
		} else {
			g.Messages++
		}
		s += size
	}
	g.ResyncSkipped = lostBytes - g.CaptureGap
	return g
}

func ssrcString(v uint32) string {
	const hex = "0123456789abcdef"
	b := []byte("0x00000000")
	for i := 0; i < 8; i++ {
		b[9-i] = hex[v>>(4*i)&0xf]
	}
	return string(b)
}

// A capture gap costs the messages it cut, no more: the bytes after the hole are in the
// capture and in order once the hole is given up, and the unframer finds the next frame
// boundary among them at once. With writes cut into segments of their own (mss) the hole
// is one segment of 1000 bytes inside a video message: that message is lost, and its 20
// bytes after the hole are skipped. With coalescing senders (coalesced) the hole is a
// 1200-byte segment cut anywhere: it ends one video message 260 bytes in and begins another
// whose last 580 bytes follow it, two messages lost, 840 bytes skipped. Before the
// resynchronisation read channel numbers, the random payload after the hole read as
// ChannelData of tens of kilobytes (0x4a73..., 0x44eb..., 0x47a7...): 574 of 752 messages,
// 61 audio and 123 video packets lost, 496 bytes counted as skipped.
func TestCaptureGapCostsItsMessagesOnly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		coalesce bool
		want     gapFigures
		finding  string
	}{
		{"mss", false, gapFigures{Messages: 751, CaptureGap: 1000, ResyncSkipped: 20,
			Lost: map[string]int64{"0x5e6f7a8b": 1}}, "1,000 bytes"},
		{"coalesced", true, gapFigures{Messages: 750, CaptureGap: 1200, ResyncSkipped: 840,
			Lost: map[string]int64{"0x5e6f7a8b": 2}}, "1,200 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call, writes := gapCall(tc.coalesce)
			pkts := call.Packets(writes)
			if d := cmp.Diff(tc.want, gapAnswer(t, call, writes, pkts)); d != "" {
				t.Fatalf("the answer worked out from the capture differs from the one written here (-want +got):\n%s", d)
			}
			c := analyze(t, pcapOf(t, pkts), Options{})
			if len(c.Flows) != 1 || c.Flows[0].TCP == nil {
				t.Fatalf("got %d flows, want one TCP flow", len(c.Flows))
			}
			a, b := c.Flows[0].TCP.AToB, c.Flows[0].TCP.BToA
			if a.Messages != 752 || a.CaptureGapBytes != 0 || a.ResyncSkippedBytes != 0 {
				t.Errorf("client to server: %d messages, capture gap %d, resync skipped %d; want 752, 0, 0",
					a.Messages, a.CaptureGapBytes, a.ResyncSkippedBytes)
			}
			got := gapFigures{Messages: b.Messages, CaptureGap: b.CaptureGapBytes, ResyncSkipped: b.ResyncSkippedBytes,
				Lost: map[string]int64{}}
			packets := map[string]int64{}
			for _, s := range c.Streams {
				packets[s.SSRC] = s.Packets
				if s.Lost != nil && *s.Lost > 0 {
					got.Lost[s.SSRC] = *s.Lost
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("server to client (-want +got):\n%s", d)
			}
			v := tc.want.Lost["0x5e6f7a8b"]
			wantPackets := map[string]int64{"0x0a0a0a0a": 250, "0x1a2b3c4d": 500, "0x0b0b0b0b": 250, "0x5e6f7a8b": 500 - v}
			if d := cmp.Diff(wantPackets, packets); d != "" {
				t.Errorf("packets per stream (-want +got):\n%s", d)
			}
			checkFindings(t, c.Findings, map[string][]string{
				"capture_gaps": {tc.finding},
			})
		})
	}
}
