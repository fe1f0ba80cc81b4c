package tcpframe

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

func lens(ms []got) []int {
	var out []int
	for _, m := range ms {
		out = append(out, len(m.payload))
	}
	return out
}

// A segment the capture never saw: the receiver's ACK passes it, the hole is skipped as a
// capture gap, the frame it cut is dropped and the unframer resynchronises.
func TestCaptureGapResync(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, 0, ms(60), 1000, 5000)
	var stream []byte
	for k := 0; k < 10; k++ { // ChannelData of 100 bytes: 104 bytes each, no padding
		stream = append(stream, channelData(0x4000, 100, true, byte(k))...)
	}
	for k := 0; k*100 < len(stream); k++ {
		if k == 3 {
			continue // [300, 400) is missing from the capture
		}
		end := min(k*100+100, len(stream))
		at := 100 + 10*float64(k)
		f.send(seg(ms(at), true, fACK|fPSH, 1001+uint32(k*100), 5001, stream[k*100:end]))
		f.send(seg(ms(at+0.1), false, fACK, 5001, 1001+uint32(end), nil)) // B has it all
	}
	f.close()
	var fills []byte
	for _, m := range f.dirMsgs(0) {
		fills = append(fills, m.payload[4])
	}
	// Frame 2 [208, 312) and frame 3 [312, 416) were cut by the gap.
	if d := cmp.Diff([]byte{0, 1, 4, 5, 6, 7, 8, 9}, fills); d != "" {
		t.Errorf("frames (-want +got):\n%s", d)
	}
	s := f.c.Summary().AToB
	// Skipped: 92 bytes of frame 2 before the gap, 16 bytes of frame 3 after it.
	if s.CaptureGapBytes != 100 || s.ResyncSkippedBytes != 108 || s.StreamBytes != 940 || s.RetransmittedBytes != 0 {
		t.Errorf("summary %+v", s)
	}
	// The skipped bytes with their header share: [208,300) of a 100-byte segment at 200
	// gets 54-floor(54*8/100)=50, [400,416) floor(54*16/100)=8.
	if r := f.c.Rest(0); r.Unframed != 108+58 {
		t.Errorf("rest %+v", r)
	}
	// The bytes skipped around a gap are the capture's doing, not a break of the framing.
	if h := f.c.Hold(); h != (Hold{Messages: 8, FramedBytes: 8 * 104}) || !h.Holds() {
		t.Errorf("hold %+v (holds %v), want 8 messages of 832 bytes, no break", h, h.Holds())
	}
}

// Garbage between frames is skipped by resynchronising on a header whose successor
// validates. (Detection itself needs two valid frames in a row: garbage right after the
// very first frame would cost that frame.)
func TestGarbageBetweenFrames(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	garbage := bytes.Repeat([]byte{0xFF}, 7)
	stream := cat(channelData(0x4000, 40, true, 1), stunMsg(0x0016, 8), garbage, channelData(0x4000, 40, true, 2), channelData(0x4000, 10, true, 3))
	f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, stream))
	f.close()
	if d := cmp.Diff([]int{44, 28, 44, 14}, lens(f.dirMsgs(0))); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if s := f.c.Summary().AToB; s.ResyncSkippedBytes != 7 || s.Messages != 4 || s.FramingBytes != 2+3*4 {
		t.Errorf("summary %+v", s)
	}
	// One break in 4 messages: more than one in 100, the framing did not hold.
	if h := f.c.Hold(); h != (Hold{Messages: 4, FramedBytes: 44 + 28 + 44 + 16, Breaks: 1, BrokenBytes: 7}) || h.Holds() {
		t.Errorf("hold %+v (holds %v), want 4 messages of 132 bytes, 1 break of 7 bytes", h, h.Holds())
	}
}

// Sequence numbers wrap around 2^32 in the middle of a frame.
func TestSequenceWrap(t *testing.T) {
	f := newFeeder(t, Config{})
	isn := uint32(0xFFFFFF00)
	f.handshake(0, ms(1), ms(2), isn, 5000)
	var stream []byte
	for k := 0; k < 4; k++ {
		stream = append(stream, frame4571(k)...)
	}
	seq := isn + 1
	for i := 0; i < len(stream); i += 150 { // segments of 150 bytes: the wrap is at byte 255
		end := min(i+150, len(stream))
		f.send(seg(ms(10+float64(i)), true, fACK|fPSH, seq+uint32(i), 5001, stream[i:end]))
	}
	// A retransmission of the segment across the wrap.
	f.send(seg(ms(900), true, fACK|fPSH, seq+150, 5001, stream[150:300]))
	f.close()
	ms0 := f.dirMsgs(0)
	if len(ms0) != 4 {
		t.Fatalf("%d messages", len(ms0))
	}
	for k, m := range ms0 {
		if !bytes.Equal(m.payload, frame4571(k)[2:]) {
			t.Errorf("message %d differs", k)
		}
		if m.retransmitted != (k == 0 || k == 1) {
			t.Errorf("message %d retransmitted %v", k, m.retransmitted)
		}
	}
	s := f.c.Summary().AToB
	if s.StreamBytes != int64(len(stream)) || s.RetransmittedBytes != 150 || s.CaptureGapBytes != 0 {
		t.Errorf("summary %+v", s)
	}
}

// A capture that starts mid-connection, in the middle of a frame.
func TestMidConnection(t *testing.T) {
	f := newFeeder(t, Config{})
	prev := frame4571(99)
	stream := cat(prev[len(prev)-30:], frame4571(0), frame4571(1), frame4571(2))
	f.send(seg(ms(1), false, fACK, 5001, 777777, nil)) // B's ACK before any data from A
	f.send(seg(ms(2), true, fACK|fPSH, 777777, 5001, stream[:300]))
	f.send(seg(ms(3), true, fACK|fPSH, 777777+300, 5001, stream[300:]))
	f.close()
	if d := cmp.Diff([]int{200, 200, 200}, lens(f.dirMsgs(0))); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if s := f.c.Summary().AToB; s.ResyncSkippedBytes != 30 || s.StreamBytes != int64(len(stream)) {
		t.Errorf("summary %+v", s)
	}
	if f.c.Framing().String() != "rfc4571" {
		t.Errorf("framing %s", f.c.Framing())
	}
}

// RFC 4571 carrying STUN, DTLS, RTP and RTCP.
func TestRFC4571Content(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	rtcp := []byte{0x80, 201, 0, 1, 0, 0, 0, 1} // V=2, RR, length 1, SSRC
	contents := [][]byte{stunMsg(0x0001, 12), dtlsRecord(100), rtpPacket(160, 1), rtcp}
	var stream []byte
	for _, c := range contents {
		stream = append(stream, rfc4571(c)...)
	}
	f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, stream[:50]))
	f.send(seg(ms(11), true, fACK|fPSH, 1051, 5001, stream[50:]))
	f.close()
	ms0 := f.dirMsgs(0)
	if len(ms0) != len(contents) {
		t.Fatalf("%d messages", len(ms0))
	}
	for i, m := range ms0 {
		if !bytes.Equal(m.payload, contents[i]) || m.wire.Framing != 2 {
			t.Errorf("message %d: % x, framing %d", i, m.payload[:4], m.wire.Framing)
		}
	}
}

// TLS records are emitted as opaque messages, the 5-byte header as framing.
func TestTLSRecords(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	stream := cat(tlsRecord(22, 300), tlsRecord(20, 1), tlsRecord(23, 1000), tlsRecord(23, 1200))
	for i := 0; i < len(stream); i += 1000 {
		f.send(seg(ms(10+float64(i)), true, fACK|fPSH, 1001+uint32(i), 5001, stream[i:min(i+1000, len(stream))]))
	}
	f.send(seg(ms(20), false, fACK|fPSH, 5001, 1001+uint32(len(stream)), tlsRecord(22, 90)))
	f.close()
	if d := cmp.Diff([]int{300, 1, 1000, 1200}, lens(f.dirMsgs(0))); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{90}, lens(f.dirMsgs(1))); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if s := f.c.Summary().AToB; s.FramingBytes != 20 || f.c.Framing().String() != "tls" {
		t.Errorf("framing %s %+v", f.c.Framing(), s)
	}
}

// Keep-alives and zero-window probes are counted, not delivered.
func TestKeepalivesAndProbes(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	fr := frame4571(0)
	next := uint32(1001 + fl)
	f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, fr))
	f.send(seg(ms(11), false, fACK, 5001, next, nil))
	f.send(seg(ms(1000), true, fACK, next-1, 5001, nil))       // keep-alive, no data
	f.send(seg(ms(2000), true, fACK, next-1, 5001, []byte{0})) // keep-alive, one garbage byte
	zw := seg(ms(2001), false, fACK, 5001, next, nil)
	zw.TCP.Window = 0
	f.send(zw)
	f.send(seg(ms(2100), true, fACK, next-1, 5001, nil)) // zero-window probe (Linux)
	fr1 := frame4571(1)
	f.send(seg(ms(2200), true, fACK|fPSH, next, 5001, fr1[:1])) // probe with one new byte
	f.send(seg(ms(2300), false, fACK, 5001, next+1, nil))       // window opens
	f.send(seg(ms(2301), true, fACK|fPSH, next+1, 5001, fr1[1:]))
	f.close()
	s := f.c.Summary().AToB
	if s.Keepalives != 2 || s.ZeroWindowProbes != 2 || s.Messages != 2 || s.StreamBytes != 2*fl || s.RetransmittedBytes != 0 {
		t.Errorf("summary %+v", s)
	}
	if s.PayloadBytes != 2*fl+1 {
		t.Errorf("payload bytes %d, want every payload byte of every segment", s.PayloadBytes)
	}
}

// Bytes no framing explains are counted, not emitted.
func TestUnknownFraming(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	junk := bytes.Repeat([]byte("GET / HTTP/1.1\r\n"), 10)
	f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, junk))
	f.send(seg(ms(11), true, fACK|fFIN, 1001+uint32(len(junk)), 5001, nil))
	f.close()
	if len(f.msgs) != 0 || f.c.Framing().String() != "unknown" {
		t.Errorf("%d messages, framing %s", len(f.msgs), f.c.Framing())
	}
	if r := f.c.Rest(0); r.Unframed != int64(len(junk))+hdrLen {
		t.Errorf("rest %+v", r)
	}
}

// A capture that ends in the middle of a frame: the bytes of that frame are dropped, and
// they are not bytes skipped to resynchronise (a sender that coalesces messages into full
// segments almost always leaves one cut by the end of the capture).
func TestEndMidFrame(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, 0, ms(60), 1000, 5000)
	var stream []byte
	for k := 0; k < 3; k++ {
		stream = append(stream, channelData(0x4000, 100, true, byte(k))...) // 104 bytes each
	}
	stream = stream[:104*2+50] // the capture ends 50 bytes into the third frame
	f.send(seg(ms(100), true, fACK|fPSH, 1001, 5001, stream))
	f.send(seg(ms(100.1), false, fACK, 5001, 1001+uint32(len(stream)), nil))
	f.close()
	if got := len(f.dirMsgs(0)); got != 2 {
		t.Errorf("%d messages, want the 2 whole frames", got)
	}
	if s := f.c.Summary().AToB; s.ResyncSkippedBytes != 0 || s.CaptureGapBytes != 0 {
		t.Errorf("resync skipped %d, capture gap %d: want 0, 0", s.ResyncSkippedBytes, s.CaptureGapBytes)
	}
	// The cut frame's 50 bytes with their header share: 54 - floor(54*208/258) = 11.
	if r := f.c.Rest(0); r.Unframed != 50+11 {
		t.Errorf("rest %+v", r)
	}
}

// A hole the receiver's ACK never passed when the capture ended was a loss still being
// repaired, not bytes the capture missed: no capture gap, and the frames behind it, which
// never reached the receiver in order during the capture, are not delivered.
func TestOpenHoleAtEnd(t *testing.T) {
	for _, acked := range []bool{false, true} {
		f := newFeeder(t, Config{})
		f.handshake(0, 0, ms(60), 1000, 5000)
		var stream []byte
		for k := 0; k < 4; k++ {
			stream = append(stream, channelData(0x4000, 100, true, byte(k))...) // 104 bytes each
		}
		for k := 0; k < 4; k++ {
			if k == 1 {
				continue // [104, 208) lost before the capture; its resend comes after the end
			}
			f.send(seg(ms(100+float64(k)), true, fACK|fPSH, 1001+uint32(104*k), 5001, stream[104*k:104*k+104]))
		}
		ack := uint32(1001 + 104) // the receiver has the first frame, SACKs the rest
		if acked {
			ack = 1001 + 4*104 // the receiver had it all: the capture missed [104, 208)
		}
		f.send(seg(ms(110), false, fACK, 5001, ack, nil))
		f.close()
		var fills []byte
		for _, m := range f.dirMsgs(0) {
			fills = append(fills, m.payload[4])
		}
		s := f.c.Summary().AToB
		want, gap := []byte{0}, int64(0)
		if acked {
			want, gap = []byte{0, 2, 3}, 104
		}
		if !bytes.Equal(fills, want) || s.CaptureGapBytes != gap || s.ResyncSkippedBytes != 0 {
			t.Errorf("acked %v: frames %v, capture gap %d, resync %d; want %v, %d, 0",
				acked, fills, s.CaptureGapBytes, s.ResyncSkippedBytes, want, gap)
		}
	}
}

func TestIsWholeFrame(t *testing.T) {
	two := cat(channelData(0x4000, 100, true, 1), channelData(0x4000, 50, true, 2))
	for _, tc := range []struct {
		name    string
		payload []byte
		want    bool
	}{
		{"ChannelData, padded", channelData(0x4000, 101, true, 1), true},
		{"ChannelData, unpadded", channelData(0x4001, 101, false, 1), true},
		{"STUN", stunMsg(0x0101, 12), true},
		{"RFC 4571", rfc4571(rtpPacket(100, 1)), true},
		{"TLS record", tlsRecord(23, 300), true},
		{"two ChannelData messages", two, false},
		{"the first of two, cut", two[:60], false},
		{"the end of one and the start of the next", two[60:], false},
		{"empty", nil, false},
	} {
		if got := IsWholeFrame(tc.payload); got != tc.want {
			t.Errorf("%s: IsWholeFrame = %v, want %v", tc.name, got, tc.want)
		}
		// IsWholeFrame names the probes, for speed: it must agree with every framing that
		// Detect tries.
		whole := false
		for _, k := range detectOrder {
			size, alt, r := probeOf(k)(tc.payload)
			whole = whole || r == probeValid && (size == len(tc.payload) || alt == len(tc.payload))
		}
		if whole != tc.want {
			t.Errorf("%s: the probes of detectOrder say %v, want %v", tc.name, whole, tc.want)
		}
	}
}

// TestZeroWindowProbeNotDelivered: with the receiver's window shut, the sender probes with
// the next byte (a ChannelData frame's first, 0x40) and DESIGN counts the probe, not
// delivers it. Dropped: the receiver's ACK stays put, the window opens, and the sender
// sends the whole frame; that is its first delivery, no retransmission, first seen then.
// Before, the probe's byte was delivered and the frame's first byte counted retransmitted.
// Taken after all (the ACK moves past it): the byte is delivered from the probe, the frame
// whole, first seen at the probe.
func TestZeroWindowProbeNotDelivered(t *testing.T) {
	for _, tc := range []struct {
		name      string
		taken     bool
		firstSeen int64
		twice     int64 // payload bytes seen twice: the dropped probe's
	}{
		{"dropped", false, ms(2301), 1},
		{"taken", true, ms(2200), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFeeder(t, Config{})
			f.handshake(0, ms(1), ms(2), 1000, 5000)
			fr0, fr1 := channelData(0x4000, 100, true, 1), channelData(0x4000, 100, true, 2)
			next := uint32(1001 + len(fr0))
			f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, fr0))
			zw := seg(ms(11), false, fACK, 5001, next, nil)
			zw.TCP.Window = 0
			f.send(zw)
			f.send(seg(ms(2200), true, fACK|fPSH, next, 5001, fr1[:1])) // the probe
			if tc.taken {
				f.send(seg(ms(2300), false, fACK, 5001, next+1, nil))
				f.send(seg(ms(2301), true, fACK|fPSH, next+1, 5001, fr1[1:]))
			} else {
				still := seg(ms(2201), false, fACK, 5001, next, nil)
				still.TCP.Window = 0
				f.send(still)
				f.send(seg(ms(2300), false, fACK, 5001, next, nil)) // the window opens
				f.send(seg(ms(2301), true, fACK|fPSH, next, 5001, fr1))
			}
			f.close()
			s := f.c.Summary().AToB
			if s.ZeroWindowProbes != 1 || s.RetransmittedSegments != 0 || s.RetransmittedBytes != 0 ||
				s.StreamBytes != int64(len(fr0)+len(fr1)) || s.PayloadBytes != s.StreamBytes+tc.twice {
				t.Errorf("summary %+v", s)
			}
			m := f.dirMsgs(0)
			if len(m) != 2 || !bytes.Equal(m[1].payload, fr1) || m[1].firstSeen != tc.firstSeen {
				t.Fatalf("messages %+v; want the second whole, first seen at %d", m, tc.firstSeen)
			}
		})
	}
}

// TestTextAtOnce: a stream that starts with a line of text (after a keep-alive's CRLFs) is
// no framing's, known from the segment that ends that line rather than after detectLimit
// bytes, and its bytes reach Config.Text in order as they come, each direction with its
// sender.
func TestTextAtOnce(t *testing.T) {
	var got [2]string
	c := NewConn(Config{Text: func(src netip.AddrPort, b []byte) {
		i := 0
		if src == addrB {
			i = 1
		}
		got[i] += string(b)
	}}, addrA, addrB)
	emit := func(*transport.Message) {}
	req, resp := "\r\n\r\nINVITE sip:b@x SIP/2.0\r\nl: 0\r\n\r\n", "SIP/2.0 100 Trying\r\n"
	c.Segment(seg(0, true, fSYN, 1000, 0, nil), emit)
	c.Segment(seg(ms(1), false, fSYN|fACK, 5000, 1001, nil), emit)
	c.Segment(seg(ms(2), true, fACK, 1001, 5001, nil), emit)
	c.Segment(seg(ms(3), true, fACK|fPSH, 1001, 5001, []byte(req[:30])), emit)
	if c.Framing() != FramingUnknown || got[0] != req[:30] {
		t.Fatalf("after the first segment: framing %v, text %q", c.Framing(), got[0])
	}
	c.Segment(seg(ms(4), true, fACK|fPSH, 1001+30, 5001, []byte(req[30:])), emit)
	c.Segment(seg(ms(5), false, fACK|fPSH, 5001, 1001+uint32(len(req)), []byte(resp)), emit)
	if got[0] != req || got[1] != resp {
		t.Errorf("text %q and %q, want %q and %q", got[0], got[1], req, resp)
	}
}

// TestIsTextLine: a line of 8 to 1024 printable characters, ended by CRLF or LF, after
// any empty lines; nothing else, and not before its end is there.
func TestIsTextLine(t *testing.T) {
	long := strings.Repeat("a", textLineMax)
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"INVITE sip:b@x SIP/2.0\r\n", true},
		{"\r\n\r\nSIP/2.0 200 OK\r\n", true},
		{"12345678\n", true},
		{"12345678\r\n", true},
		{"1234567\r\n", false},
		{long + "\r\n", true},
		{long + "a\r\n", false},
		{"INVITE sip:b@x SIP/2.0\r", false}, // the line end is not all there yet
		{"INVITE sip:b@x\rSIP/2.0\r\n", false},
		{"\x00\x01\x00\x50\x21\x12\xa4\x42 a STUN header\r\n", false},
		{"\x40\x00\x00\x64abcdefgh\r\n", false}, // ChannelData of 100 bytes
		{"\x16\x03\x01\x02\x00\r\n", false},
	} {
		if got := isTextLine([]byte(tc.in)); got != tc.want {
			t.Errorf("isTextLine(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestNoStallPastAStaleWindow: a capture of one direction after the handshake: the client
// sends 100 frames of 1,200 bytes every 10 ms, 120,000 bytes, past the 65,535 bytes the
// handshake's window allowed, whose ACKs the capture missed. A sender never sends beyond
// the receiver's window: the window seen is stale, and no stall is counted. Before, a stall
// began as the bytes neared the stale edge ("the receiver's window filled once").
func TestNoStallPastAStaleWindow(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	seq := uint32(1001)
	for i := range 100 {
		fr := channelData(0x4000, 1196, true, byte(i))
		f.send(seg(ms(float64(10+10*i)), true, fACK|fPSH, seq, 5001, fr))
		seq += uint32(len(fr))
	}
	f.close()
	if s := f.c.Summary().AToB.WindowStalls; s.Count != 0 {
		t.Errorf("window stalls %+v, want none", s)
	}
}

// TestStallDrainedIsOneStall: next to the sender (RTT 60 ms), the receiver's window holds
// two frames. The sender fills it at 100 ms; each ACK, a round trip apart, opens it by two
// frames, which the sender sends at once, filling it again: the sender drains its queue
// through a window opened an ACK at a time, five times, and that is one stall, from 100 ms
// to the ACK that opens the window wide at 400 ms. A second stall, 500 ms later, is another.
// Before, seven stalls, the longest 59 ms.
func TestStallDrainedIsOneStall(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(60), ms(60), 1000, 5000) // at A
	k := 0
	send := func(at float64, n int) {
		for range n {
			f.send(seg(ms(at), true, fACK|fPSH, seqA(k), 5001, frame4571(k)))
			k++
		}
	}
	ack := func(at float64, win uint16) {
		p := seg(ms(at), false, fACK, 5001, seqA(k), nil)
		p.TCP.Window = win
		f.send(p)
	}
	ack(99, 2*fl)
	send(100, 2) // the window is full
	for i := 1; i <= 5; i++ {
		ack(100+60*float64(i)-1, 2*fl) // opens it by two frames...
		send(100+60*float64(i), 2)     // ...which go at once
	}
	ack(400, 65535) // wide open
	send(410, 1)
	ack(900, 100) // under a segment: full again, far later, a second stall
	ack(950, 65535)
	send(960, 1)
	ack(1020, 65535)
	f.close()
	longest := 300.0
	if d := cmp.Diff(report.WindowStalls{Count: 2, LongestMS: &longest}, f.c.Summary().AToB.WindowStalls); d != "" {
		t.Errorf("window stalls (-want +got):\n%s", d)
	}
}

// TestDetectByteByByte: a stream of garbage (0xFF bytes, which no framing's header takes)
// that comes a byte a segment, past detectLimit. Detection is tried again only once the
// bytes grew by a quarter (detectAgain), not at each byte: scanning all of them at each one
// is quadratic (a tester's 25,000 zero-window probes behind 128 KB took more than a minute;
// this stream, about 8·10⁹ probe steps), and so was walking every chunk, one a byte, for
// the in-order bytes and at each Detach (9 s here). The direction ends Unknown, its bytes
// unframed.
func TestDetectByteByByte(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	n := detectLimit + 100
	for i := range n {
		f.send(seg(ms(3)+int64(i)*1000, true, fACK, 1001+uint32(i), 5001, []byte{0xFF}))
	}
	f.close()
	if k := f.c.Framing(); k != FramingUnknown || len(f.msgs) != 0 {
		t.Errorf("framing %v, %d messages; want unknown, none", k, len(f.msgs))
	}
	if s := f.c.Summary().AToB; s.StreamBytes != int64(n) || s.Messages != 0 {
		t.Errorf("stream bytes %d, messages %d; want %d, none", s.StreamBytes, s.Messages, n)
	}
	for _, tc := range []struct {
		n, tried int
		want     bool
	}{{1, 0, true}, {1, 1, false}, {2, 1, true}, {1000, 1000, false}, {1249, 1000, false}, {1250, 1000, true}} {
		if got := detectAgain(tc.n, tc.tried); got != tc.want {
			t.Errorf("detectAgain(%d, %d) = %v, want %v", tc.n, tc.tried, got, tc.want)
		}
	}
}

// TestFarSegmentsCounted: two lone segments 2^31 − 8192 ahead of an RFC 4571 stream (a
// bogus sequence number: fewer than farRunJump in a row) are ignored, as before, but now
// counted (Far), where a tester's capture of 1,000 of them had them in payload_bytes and
// nowhere else. The stream's messages are unchanged.
func TestFarSegmentsCounted(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	seq := uint32(1001)
	for i := range 10 {
		m := rfc4571(rtpPacket(100, uint16(i)))
		f.send(seg(ms(3)+int64(i)*ms(20), true, fACK, seq, 5001, m))
		seq += uint32(len(m))
		if i == 3 || i == 6 {
			f.send(seg(ms(4)+int64(i)*ms(20), true, fACK, seq+1<<31-8192, 5001, make([]byte, 176)))
		}
	}
	f.close()
	if n, b := f.c.Far(); n != 2 || b != 352 || len(f.dirMsgs(0)) != 10 {
		t.Errorf("far %d segments %d bytes, %d messages; want 2, 352, 10", n, b, len(f.dirMsgs(0)))
	}
}

// TestSparseSegmentsBeyondHoles: segments each beyond a hole the capture missed, the holes
// growing (1,000 bytes, then 100 more each time), and no ACK to pass them: each lies within
// a window of the data already seen, so the holes give way and every segment is delivered.
// Measured from the bytes released, the later ones lay more than a window beyond and were
// taken for bogus.
func TestSparseSegmentsBeyondHoles(t *testing.T) {
	f := newFeeder(t, Config{Window: 64 << 10})
	f.handshake(0, ms(1), ms(2), 1000, 5000)
	seq := uint32(1001)
	const n = 200
	for i := range n {
		m := rfc4571(rtpPacket(100, uint16(i)))
		f.send(seg(ms(3)+int64(i)*ms(20), true, fACK, seq, 5001, m))
		seq += uint32(len(m) + 1000 + 100*i)
	}
	f.close()
	if segs, _ := f.c.Far(); segs != 0 || len(f.dirMsgs(0)) != n {
		t.Errorf("%d segments taken for bogus, %d messages; want 0, %d", segs, len(f.dirMsgs(0)), n)
	}
}

// TestHoldsSDP: an SDP's first two lines, v=0 then o=, anywhere in the bytes, their line
// ends and "=" as they are or JSON-escaped; nothing that only looks like them.
func TestHoldsSDP(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"INVITE sip:b@x SIP/2.0\r\n\r\nv=0\r\no=- 1 2 IN IP4 1.2.3.4\r\n", true},
		{"\x81\x7e\x01\x00{\"sdp\":\"v=0\\r\\no=- 1 2 IN IP4 127.0.0.1\\r\\n", true},
		{`{"sdp":"v=0\no=- 1`, true},
		{`{"sdp":"v\u003d0\u000D\u000Ao\u003d- 1`, true},
		{"v=0\no=", true},
		{"v=0\r\ns=-\r\no=", false}, // o= must come next
		{"v=1\r\no=", false},
		{"v=0o=", false},   // no line end
		{"v=0\r\n", false}, // not yet
		{"v=0", false},
		{"\x00v\x00=0\x00o=", false},
		{"", false},
	} {
		if got := holdsSDP([]byte(tc.in)); got != tc.want {
			t.Errorf("holdsSDP(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestGarbageReadAsAChannel: TURN over TCP with garbage between two frames whose first
// bytes read as a new channel's header, carrying no datagram a relay carries: the header is
// bad, and the unframer resynchronises past the garbage, where every frame after it is.
// Before, it took the false frame, and the frames after it with it.
//   - 37 bytes of text: "AB" is channel 0x4142, Length 0x4344, its datagram starting 'E'
//     (0x45), as none does (h157: 21 of 25 packets lost);
//   - 11 bytes read as legacy channel 0x7FFF, Length 60,000, its datagram starting 0x00 as
//     STUN does, without STUN's magic cookie after it (h163: 99 packets, nothing skipped).
func TestGarbageReadAsAChannel(t *testing.T) {
	for _, garbage := range [][]byte{
		[]byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijk"),
		{0x7f, 0xff, 0xea, 0x60, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06},
	} {
		f := newFeeder(t, Config{})
		f.handshake(0, ms(1), ms(2), 1000, 5000)
		var stream []byte
		for k := 0; k < 25; k++ {
			if k == 4 {
				stream = append(stream, garbage...)
			}
			stream = append(stream, channelData(0x4000, 100, true, 0x80)...)
		}
		f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, stream))
		f.close()
		if s := f.c.Summary().AToB; s.ResyncSkippedBytes != int64(len(garbage)) || s.Messages != 25 {
			t.Errorf("%q: summary %+v, want 25 messages and %d bytes skipped", garbage, s, len(garbage))
		}
	}
}
