package tcpframe

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/wire"
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
		b := channelData(0x4000, 200, true, byte(0x41+k%14))
		b[4] = 0x80 // a relayed datagram, RTP: the fill after it reads as channel headers
		stream = append(stream, b...)
	}
	sendWithGap(f, stream)
	var fills []byte
	for _, m := range f.dirMsgs(0) {
		if len(m.payload) != size || m.payload[0] != 0x40 || m.payload[1] != 0 {
			t.Fatalf("message of %d bytes on channel %#x, want %d bytes on 0x4000", len(m.payload), m.payload[:2], size)
		}
		fills = append(fills, m.payload[5])
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
	checkTwoFramesCut(t, f, frames, size, 308)
}

// sendWithGap sends stream from A in segments of 100 bytes 1 ms apart, each ACKed by B, but
// the capture misses the segment of bytes [1000, 1100); then it closes the feeder.
func sendWithGap(f *feeder, stream []byte) {
	for k := 0; k*100 < len(stream); k++ {
		end := min(k*100+100, len(stream))
		at := 100 + float64(k)
		if k != 10 {
			f.send(seg(ms(at), true, fACK|fPSH, 1001+uint32(k*100), 5001, stream[k*100:end]))
		}
		f.send(seg(ms(at+0.1), false, fACK, 5001, 1001+uint32(end), nil)) // B has it all
	}
	f.close()
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
	var s known[uint16]
	for n := uint16(0x4000); n < 0x4000+maxKnown; n++ {
		s.add(n)
	}
	s.add(0x4003)
	if s.n != maxKnown || s.v[0] != 0x4003 {
		t.Fatalf("set %+v: want %d channels, 0x4003 first", s, maxKnown)
	}
	s.add(0x4100) // full: forgets one, never the latest before it
	if !s.has(0x4100) || !s.has(0x4003) || s.n != maxKnown {
		t.Errorf("set %+v: want 0x4100 and 0x4003 kept", s)
	}
	forgotten := 0
	for n := uint16(0x4000); n < 0x4000+maxKnown; n++ {
		if !s.has(n) {
			forgotten++
		}
	}
	if forgotten != 1 || s.has(0x4200) {
		t.Errorf("set %+v: %d of the first channels forgotten, want 1", s, forgotten)
	}
}

// rtpWith is an RTP packet of n bytes with sequence number seq and SSRC ssrc, its payload
// filled with fill.
func rtpWith(n int, seq uint16, ssrc uint32, fill byte) []byte {
	b := rtpPacket(n, seq)
	binary.BigEndian.PutUint32(b[8:], ssrc)
	for i := wire.RTPFixedHeaderLen; i < n; i++ {
		b[i] = fill
	}
	return b
}

// The same over RFC 4571 (ICE-TCP): every payload byte is 0x80, so at every offset of the
// tail a gap leaves, a length of 32,896 bytes is followed by a byte in RTP's range, and so
// is the frame 32,898 bytes later, inside another packet's payload: the weaker rule took
// that false frame. Resynchronisation takes an RTP header only with an SSRC the connection
// carried (0x11223344), so the gap costs the two frames it cut and nothing else.
func TestCaptureGapResyncOnKnownSSRC(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, 0, ms(60), 1000, 5000)
	const frames, size = 200, 202 // 200-byte RTP packets, each after a 2-byte length
	var stream []byte
	for k := 0; k < frames; k++ {
		stream = append(stream, rfc4571(rtpWith(200, uint16(k), 0x11223344, 0x80))...)
	}
	sendWithGap(f, stream)
	var seqs []uint16
	for _, m := range f.dirMsgs(0) {
		if len(m.payload) != 200 || binary.BigEndian.Uint32(m.payload[8:]) != 0x11223344 {
			t.Fatalf("message of %d bytes, SSRC %#x; want 200 bytes of 0x11223344", len(m.payload), m.payload[8:12])
		}
		seqs = append(seqs, binary.BigEndian.Uint16(m.payload[2:]))
	}
	// Frame 4 [808, 1010) and frame 5 [1010, 1212) were cut by the gap.
	var want []uint16
	for k := 0; k < frames; k++ {
		if k != 4 && k != 5 {
			want = append(want, uint16(k))
		}
	}
	if d := cmp.Diff(want, seqs); d != "" {
		t.Errorf("frames (-want +got):\n%s", d)
	}
	// Skipped: 192 bytes of frame 4 before the gap, 112 bytes of frame 5 after it.
	checkTwoFramesCut(t, f, frames, size, 304)
}

// The same with every payload byte 0x3e: at every offset of the tail a gap leaves, a length
// of 15,934 bytes is followed by a DTLS 1.3 unified header (any first byte from 32 to 63),
// and so is the frame 15,936 bytes later. Once a direction carried RTP in step, such a
// header does not resynchronise it: SRTP flows after DTLS's handshake, and a tester's gap
// cost 19 of the 29 packets after it, with no loss to show for them.
func TestCaptureGapResyncNotOnDTLS13(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, 0, ms(60), 1000, 5000)
	const frames, size = 200, 202
	var stream []byte
	for k := 0; k < frames; k++ {
		stream = append(stream, rfc4571(rtpWith(200, uint16(k), 0x11223344, 0x3e))...)
	}
	sendWithGap(f, stream)
	if n := len(f.dirMsgs(0)); n != frames-2 {
		t.Errorf("%d messages, want %d", n, frames-2)
	}
	checkTwoFramesCut(t, f, frames, size, 304)
}

// checkTwoFramesCut checks f's figures after sendWithGap cut two of frames frames of size
// bytes: the others framed without a break, 100 bytes lost to the gap and skipped bytes of
// the two cut frames skipped to resynchronise.
func checkTwoFramesCut(t *testing.T, f *feeder, frames, size, skipped int64) {
	t.Helper()
	s := f.c.Summary().AToB
	if s.Messages != frames-2 || s.CaptureGapBytes != 100 || s.ResyncSkippedBytes != skipped {
		t.Errorf("messages %d, capture gap %d, resync skipped %d; want %d, 100, %d",
			s.Messages, s.CaptureGapBytes, s.ResyncSkippedBytes, frames-2, skipped)
	}
	if h := f.c.Hold(); h != (Hold{Messages: frames - 2, FramedBytes: (frames - 2) * size}) {
		t.Errorf("hold %+v, want %d messages of %d bytes, no break", h, frames-2, (frames-2)*size)
	}
}

// Until a direction carried RTP or RTCP in step, resynchronisation is detection's rule;
// then an RTP header counts only with an SSRC it carried, an RTCP one with a sender SSRC it
// carried, and DTLS 1.3's unified header, which any byte from 32 to 63 starts, does not
// count. The other direction keeps its own. STUN and DTLS records are as before.
func TestProbeRFC4571Known(t *testing.T) {
	c := NewConn(Config{}, addrA, addrB)
	d, peer := &c.dirs[0], &c.dirs[1]
	other := rfc4571(rtpWith(20, 1, 0x55667788, 0))
	if _, _, r := d.probeRFC4571Known(other); r != probeValid {
		t.Errorf("no SSRC carried yet: %v, want valid", r)
	}
	d.ssrcs.add(0x11223344)
	if _, _, r := peer.probeRFC4571Known(other); r != probeValid {
		t.Errorf("the other direction, which carried none: %v, want valid", r)
	}
	rr := func(sender uint32) []byte { // an RTCP receiver report without report blocks
		return rfc4571([]byte{0x80, 201, 0, 1, byte(sender >> 24), byte(sender >> 16), byte(sender >> 8), byte(sender)})
	}
	for _, tt := range []struct {
		name string
		b    []byte
		want probeResult
	}{
		{"carried SSRC", rfc4571(rtpWith(20, 1, 0x11223344, 0)), probeValid},
		{"other SSRC", other, probeInvalid},
		{"RTCP from a carried SSRC", rr(0x11223344), probeValid},
		{"RTCP from another", rr(0x55667788), probeInvalid},
		{"SSRC cut", rfc4571(rtpWith(20, 1, 0x11223344, 0))[:11], probeNeedMore},
		{"STUN", rfc4571(stunMsg(0x0101, 0)), probeValid},
		{"DTLS", rfc4571(dtlsRecord(40)), probeValid},
		{"DTLS 1.3 unified header", rfc4571([]byte{0x3e, 1, 2, 3, 4}), probeInvalid},
	} {
		if _, _, r := d.probeRFC4571Known(tt.b); r != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, r, tt.want)
		}
	}
}
