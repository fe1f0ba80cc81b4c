package tcpframe

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// RFC 5766 channels 0x5000-0x7FFF are ChannelData in TURN's TCP framing: a direction in sync
// frames them, padded or not, exactly as channels of 0x4000-0x4FFF, and framing_bytes counts
// their headers.
func TestTURNFramingLegacyChannels(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	stream := cat(stunMsg(0x0009, 8), // ChannelBind request, 28 bytes
		channelData(0x7FFE, 100, true, 0xAA), // 104 bytes
		channelData(0x5001, 101, true, 0xBB), // 105 + 3 padding
		channelData(0x7FFF, 50, true, 0x9C),  // 54 + 2 padding
		channelData(0x4000, 10, true, 0x9D))  // 14 + 2 padding
	f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, stream))
	// The other way, a peer that does not pad.
	back := cat(stunMsg(0x0109, 0), channelData(0x7FFE, 101, false, 0x9E), channelData(0x7FFE, 50, false, 0x9F),
		stunMsg(0x0004, 8))
	f.send(seg(ms(12), false, fACK|fPSH, 5001, 1001+uint32(len(stream)), back))
	f.close()
	type msg struct {
		Dir, Len int
		First    byte
		Fr       int64
	}
	var got []msg
	for _, m := range f.msgs {
		got = append(got, msg{m.dir, len(m.payload), m.payload[0], m.wire.Framing})
	}
	want := []msg{
		{0, 28, 0x00, 0}, {0, 104, 0x7F, 0}, {0, 105, 0x50, 3}, {0, 54, 0x7F, 2}, {0, 14, 0x40, 2},
		{1, 20, 0x01, 0}, {1, 105, 0x7F, 0}, {1, 54, 0x7F, 0}, {1, 28, 0x00, 0},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	s := f.c.Summary()
	if f.c.Framing().String() != "turn" || s.AToB.ResyncSkippedBytes != 0 || s.BToA.ResyncSkippedBytes != 0 ||
		s.AToB.FramingBytes != 7+4*4 || s.BToA.FramingBytes != 2*4 {
		t.Errorf("framing %s, summary %+v %+v", f.c.Framing(), s.AToB, s.BToA)
	}
}

// After a capture gap the unframer resynchronises on a legacy channel too: on a header whose
// next frame is on the same channel.
func TestCaptureGapResyncLegacyChannel(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, 0, ms(60), 1000, 5000)
	var stream []byte
	for k := 0; k < 10; k++ {
		stream = append(stream, channelData(0x7FFE, 100, true, byte(k))...)
	}
	for k := 0; k*100 < len(stream); k++ {
		if k == 3 {
			continue
		}
		end := min(k*100+100, len(stream))
		at := 100 + 10*float64(k)
		f.send(seg(ms(at), true, fACK|fPSH, 1001+uint32(k*100), 5001, stream[k*100:end]))
		f.send(seg(ms(at+0.1), false, fACK, 5001, 1001+uint32(end), nil))
	}
	f.close()
	var fills []byte
	for _, m := range f.dirMsgs(0) {
		fills = append(fills, m.payload[4])
	}
	if d := cmp.Diff([]byte{0, 1, 4, 5, 6, 7, 8, 9}, fills); d != "" {
		t.Errorf("frames (-want +got):\n%s", d)
	}
	if s := f.c.Summary().AToB; s.CaptureGapBytes != 100 || s.ResyncSkippedBytes != 108 {
		t.Errorf("summary %+v", s)
	}
}

// 0x50-0x7F are the first bytes of most ASCII letters: a legacy channel's header must be
// followed by a frame on the same channel before detection or resync believe it.
func TestDetectLegacyChannel(t *testing.T) {
	text := bytes.Repeat([]byte("POST /api/session HTTP/1.1\r\nhost: example\r\n\r\n{\"sdp\":\"v=0 o=- s=-\"}"), 2000)
	tests := []struct {
		name string
		data []byte
		want Framing
		skip int
		from bool // data starts at a frame boundary (the connection was seen from its SYN)
	}{
		{"three frames on one legacy channel", cat(channelData(0x7FFE, 100, true, 1), channelData(0x7FFE, 30, true, 2),
			channelData(0x7FFE, 30, true, 3)), FramingTURN, 0, true},
		// Mid-stream a legacy channel's number is no proof (it repeats in text): a run of
		// eight frames is (the ninth confirms the eighth: probeTURN).
		{"mid-frame, then a legacy channel", cat(bytes.Repeat([]byte{0xFF}, 9), channelData(0x5001, 61, true, 1),
			channelData(0x5001, 7, true, 2), channelData(0x5001, 7, true, 3), channelData(0x5001, 7, true, 1),
			channelData(0x5001, 7, true, 2), channelData(0x5001, 7, true, 3), channelData(0x5001, 7, true, 1),
			channelData(0x5001, 7, true, 2), channelData(0x5001, 7, true, 3)), FramingTURN, 9, false},
		{"mid-frame, then three frames on a legacy channel: too few to tell", cat(bytes.Repeat([]byte{0xFF}, 9),
			channelData(0x5001, 61, true, 1), channelData(0x5001, 7, true, 2), channelData(0x5001, 7, true, 3)),
			FramingUnknown, 0, false},
		{"a legacy channel, then another number", cat(channelData(0x7FFE, 100, true, 1), channelData(0x7FFD, 30, true, 2)),
			FramingUnknown, 0, false},
		{"a legacy channel, then STUN", cat(channelData(0x6000, 100, true, 1), stunMsg(0x0001, 0)), FramingTURN, 0, false},
	}
	// Text is not TURN (it is not RFC 4571 either, but that is that probe's business).
	if k, _, _ := Detect(text, true, false); k == FramingTURN {
		t.Errorf("Detect(text) = %v", k)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, skip, ok := Detect(tt.data, true, tt.from)
			if !ok || k != tt.want || k != FramingUnknown && skip != tt.skip {
				t.Errorf("Detect = %v skip %d ok %v, want %v skip %d", k, skip, ok, tt.want, tt.skip)
			}
		})
	}
}
