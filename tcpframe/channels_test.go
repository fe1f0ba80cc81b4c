package tcpframe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// After a capture gap the tail of the message it cut is payload, and in media payload
// (random under SRTP) one byte in 16 reads as a ChannelData header. Here every payload byte
// does: 0x41-0x4E, each pair a channel 0x4141-0x4E4E with a length of 16 to 20 KB, whose
// successor, inside another frame, reads as a header too. Resynchronisation takes only a
// channel the connection carried (0x4000), so the gap costs the two frames it cut and
// nothing else.
func TestCaptureGapResyncOnKnownChannel(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, 0, ms(60), 1000, 5000)
	const frames, size = 200, 204 // ChannelData of 200 bytes: 204 bytes, no padding
	var stream []byte
	for k := 0; k < frames; k++ {
		stream = append(stream, channelData(0x4000, 200, true, byte(0x41+k%14))...)
	}
	for k := 0; k*100 < len(stream); k++ {
		end := min(k*100+100, len(stream))
		at := 100 + float64(k)
		if k != 10 { // [1000, 1100) is missing from the capture
			f.send(seg(ms(at), true, fACK|fPSH, 1001+uint32(k*100), 5001, stream[k*100:end]))
		}
		f.send(seg(ms(at+0.1), false, fACK, 5001, 1001+uint32(end), nil)) // B has it all
	}
	f.close()
	var fills []byte
	for _, m := range f.dirMsgs(0) {
		if len(m.payload) != size || m.payload[0] != 0x40 || m.payload[1] != 0 {
			t.Fatalf("message of %d bytes on channel %#x, want %d bytes on 0x4000", len(m.payload), m.payload[:2], size)
		}
		fills = append(fills, m.payload[4])
	}
	// Frame 4 [816, 1020) and frame 5 [1020, 1224) were cut by the gap.
	var want []byte
	for k := 0; k < frames; k++ {
		if k != 4 && k != 5 {
			want = append(want, byte(0x41+k%14))
		}
	}
	if d := cmp.Diff(want, fills); d != "" {
		t.Errorf("frames (-want +got):\n%s", d)
	}
	// Skipped: 184 bytes of frame 4 before the gap, 124 bytes of frame 5 after it.
	s := f.c.Summary().AToB
	if s.Messages != frames-2 || s.CaptureGapBytes != 100 || s.ResyncSkippedBytes != 308 {
		t.Errorf("messages %d, capture gap %d, resync skipped %d; want %d, 100, 308",
			s.Messages, s.CaptureGapBytes, s.ResyncSkippedBytes, frames-2)
	}
	if h := f.c.Hold(); h != (Hold{Messages: frames - 2, FramedBytes: (frames - 2) * size}) {
		t.Errorf("hold %+v, want %d messages of %d bytes, no break", h, frames-2, (frames-2)*size)
	}
}

// Until the connection carried ChannelData in step, resynchronisation is detection's rule;
// then a header counts only on a channel carried, in either direction.
func TestProbeTURNKnown(t *testing.T) {
	c := NewConn(Config{}, addrA, addrB)
	other := channelData(0x4141, 8, true, 0) // a channel never carried
	stun := stunMsg(0x0101, 0)
	if _, _, r := c.probeTURNKnown(other); r != probeValid {
		t.Errorf("no channel carried yet: %v, want valid", r)
	}
	c.chans.add(0x4000)
	for _, tt := range []struct {
		name string
		b    []byte
		want probeResult
	}{
		{"carried channel", channelData(0x4000, 8, true, 0), probeValid},
		{"other channel", other, probeInvalid},
		{"STUN", stun, probeValid},
		{"header cut", []byte{0x40, 0x00, 0x00}, probeNeedMore},
		{"RTP", rtpPacket(20, 1), probeInvalid},
	} {
		if _, _, r := c.probeTURNKnown(tt.b); r != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, r, tt.want)
		}
	}
}

// The set keeps the latest channel first and, full, forgets the others in turn.
func TestChannels(t *testing.T) {
	var s channels
	for n := uint16(0x4000); n < 0x4000+maxChannels; n++ {
		s.add(n)
	}
	s.add(0x4003)
	if s.n != maxChannels || s.ch[0] != 0x4003 {
		t.Fatalf("set %+v: want %d channels, 0x4003 first", s, maxChannels)
	}
	s.add(0x4100) // full: forgets one, never the latest before it
	if !s.has(0x4100) || !s.has(0x4003) || s.n != maxChannels {
		t.Errorf("set %+v: want 0x4100 and 0x4003 kept", s)
	}
	forgotten := 0
	for n := uint16(0x4000); n < 0x4000+maxChannels; n++ {
		if !s.has(n) {
			forgotten++
		}
	}
	if forgotten != 1 || s.has(0x4200) {
		t.Errorf("set %+v: %d of the first channels forgotten, want 1", s, forgotten)
	}
}
