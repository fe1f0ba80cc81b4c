package tcpframe

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// turnFrame is one message of a TURN-over-TCP stream in a test: ChannelData on ch of Length
// n filled with fill, or, ch 0, a STUN message of n attribute bytes.
type turnFrame struct {
	ch   uint16
	n    int
	fill byte
}

// TestTURNSplitPadding sends each stream from a peer that pads ChannelData and from one that
// does not, in one segment and one message per segment, and checks that every message is
// cut whole with its padding as framing, and nothing skipped. Read as padded, an unpadded
// peer's next header falls 1 to 3 bytes into the next frame: on a channel's low byte (Length
// 3 mod 4), a Length's high byte (2 mod 4) or its low byte (1 mod 4), or the low byte of a
// STUN message's length; in sync, 0x40-0x7F there reads as a channel (RFC 5766's range).
func TestTURNSplitPadding(t *testing.T) {
	tests := []struct {
		name   string
		frames []turnFrame
	}{
		// The audit's: an Opus packet of 101 bytes, RTP 113: Length 0x71 reads as channel 0x71xx.
		{"Length 0x71 (1 mod 4)", []turnFrame{{0x4000, 0x71, 0x80}, {0x4000, 0x71, 0x80}, {0x4000, 0x71, 0x80}}},
		{"Length 0x4D (1 mod 4), STUN before and after", []turnFrame{{0, 8, 0}, {0x4000, 0x4D, 0x80},
			{0x4000, 0x4D, 0x80}, {0, 0x58, 0}, {0x4000, 0x4D, 0x80}}},
		{"Length 0x72 (2 mod 4)", []turnFrame{{0x4000, 0x72, 0x80}, {0x4000, 0x72, 0x80}, {0x4000, 0x72, 0x80}}},
		{"Length 0x4472 (2 mod 4): its high byte 0x44 reads as a channel", []turnFrame{{0x4000, 0x4472, 0x80},
			{0x4000, 0x4472, 0x80}, {0x4000, 0x4472, 0x80}}},
		// The padded reading looks at the next channel's low byte, 0x41: channel 0x4100.
		{"Length 0x73 (3 mod 4) on channel 0x4041", []turnFrame{{0x4041, 0x73, 0x80}, {0x4041, 0x73, 0x80},
			{0x4041, 0x73, 0x80}}},
		{"Length 0x70 (0 mod 4)", []turnFrame{{0x4000, 0x70, 0x80}, {0x4000, 0x70, 0x80}}},
		// A STUN message's length low byte, 0x58, after a message of Length 1 mod 4.
		{"Length 0x65, then STUN of length 0x58", []turnFrame{{0x4000, 0x65, 0x80}, {0, 0x58, 0},
			{0x4000, 0x65, 0x80}, {0x4000, 0x65, 0x80}}},
		// The next frame is on a channel not carried yet: both readings find a weak header,
		// and the frame after each tells.
		{"a second channel after Length 0x71", []turnFrame{{0x4000, 0x71, 0x80}, {0x4001, 0x71, 0x80},
			{0x4001, 0x71, 0x80}, {0x4000, 0x71, 0x80}}},
		// The padded reading's header, 0x41 then the payload's 0x80, repeats the channel.
		{"the padded reading's header repeats the channel", []turnFrame{{0x4180, 0x41, 0x80}, {0x4180, 0x41, 0x80},
			{0x4180, 0x41, 0x80}, {0x4180, 0x41, 0x80}}},
		{"legacy channel 0x7171, Length 0x171", []turnFrame{{0x7171, 0x171, 0x71}, {0x7171, 0x171, 0x71},
			{0, 4, 0}, {0x7171, 0x171, 0x71}}},
		{"Lengths of every residue", []turnFrame{{0x4000, 0x40, 0x80}, {0x4000, 0x41, 0x80}, {0x4000, 0x42, 0x80},
			{0x4000, 0x43, 0x80}, {0x4000, 0x7D, 0x90}, {0x4000, 0x7E, 0x90}, {0x4000, 0x7F, 0x90}, {0x4000, 0x7C, 0x90}}},
	}
	// Every Length with a low byte 0x40-0x7F, one and two mod-4 classes above it, between STUN.
	for n := 0x40; n <= 0x7F; n++ {
		for _, l := range []int{n, n + 0x100} {
			tests = append(tests, struct {
				name   string
				frames []turnFrame
			}{fmt.Sprintf("Length 0x%X", l), []turnFrame{{0x4000, l, 0x80}, {0x4000, l, 0x80}, {0, 8, 0},
				{0x4000, l, 0x80}, {0x4000, l, 0x80}, {0, 0x48, 0}}})
		}
	}
	type msg struct {
		Len     int
		Ch      uint16 // the first two bytes: the channel, or the STUN message type
		Framing int64  // the padding
	}
	for _, tt := range tests {
		for _, pad := range []bool{false, true} {
			for _, whole := range []bool{true, false} {
				name := fmt.Sprintf("%s/pad=%v/whole=%v", tt.name, pad, whole)
				t.Run(name, func(t *testing.T) {
					var parts [][]byte
					var want []msg
					for _, fr := range tt.frames {
						b := stunMsg(0x0117, fr.n) // a Data indication
						if fr.ch != 0 {
							b = channelData(fr.ch, fr.n, pad, fr.fill)
							if fr.n > 0 {
								b[4] = 0x80 // a relayed datagram, RTP: fr.fill is for the bytes after
							}
						}
						parts = append(parts, b)
						m := 4 + fr.n
						if fr.ch == 0 {
							m = 20 + fr.n
						}
						want = append(want, msg{m, uint16(b[0])<<8 | uint16(b[1]), int64(len(b) - m)})
					}
					f := newFeeder(t, Config{})
					f.handshake(0, ms(1), ms(2), 1000, 5000)
					seq := uint32(1001)
					if whole {
						parts = [][]byte{cat(parts...)}
					}
					for i, p := range parts {
						f.send(seg(ms(10+float64(i)), true, fACK|fPSH, seq, 5001, p))
						seq += uint32(len(p))
					}
					f.send(seg(ms(50), false, fACK, 5001, seq, nil))
					f.close()
					var got []msg
					for _, m := range f.dirMsgs(0) {
						got = append(got, msg{len(m.payload), uint16(m.payload[0])<<8 | uint16(m.payload[1]), m.wire.Framing})
					}
					if d := cmp.Diff(want, got); d != "" {
						t.Errorf("messages (-want +got):\n%s", d)
					}
					if s := f.c.Summary().AToB; s.ResyncSkippedBytes != 0 || s.Messages != int64(len(want)) {
						t.Errorf("summary %+v", s)
					}
				})
			}
		}
	}
}

// TestTURNSplitterAlone drives a TURNSplitter of its own (no Conn, no channel carried before)
// over an unpadded stream, as bufio.Scanner would: the message's own channel is enough.
// Lengths 0x72 and 0x73 on channel 0x4000 were read right before: controls.
func TestTURNSplitterAlone(t *testing.T) {
	for _, n := range []int{0x4D, 0x71, 0x72, 0x73, 0x171} {
		t.Run(fmt.Sprintf("Length 0x%X", n), func(t *testing.T) {
			data := cat(channelData(0x4000, n, false, 0x80), channelData(0x4000, n, false, 0x80), stunMsg(0x0117, 0x58),
				channelData(0x4000, n, false, 0x80))
			var ts TURNSplitter
			var got []int
			for len(data) > 0 {
				adv, msg, err := ts.Split(data, true)
				if err != nil || adv == 0 {
					t.Fatalf("Split = %d, %v at %d bytes from the end", adv, err, len(data))
				}
				got = append(got, len(msg))
				data = data[adv:]
			}
			if d := cmp.Diff([]int{4 + n, 4 + n, 20 + 0x58, 4 + n}, got); d != "" {
				t.Errorf("messages (-want +got):\n%s", d)
			}
		})
	}
}
