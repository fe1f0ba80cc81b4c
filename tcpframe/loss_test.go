package tcpframe

import (
	"github.com/callpcap/callpcap/transport"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/report"
)

// frame4571 is the k-th RFC 4571 frame of the loss scenarios: 202 bytes, one per segment.
func frame4571(k int) []byte { return rfc4571(rtpPacket(200, uint16(k))) }

const fl = 202 // frame length

func seqA(k int) uint32 { return 1001 + uint32(fl*k) }

type timing struct{ First, Complete, Delivered float64 }

func timings(ms []got) []timing {
	var out []timing
	for _, m := range ms {
		out = append(out, timing{float64(m.firstSeen) / 1e6, float64(m.complete) / 1e6, float64(m.delivered) / 1e6})
	}
	return out
}

// The original of frame 1 is lost before the vantage (a capture next to the receiver B): it
// is seen once, filling the hole 80 ms after frame 2, and is a retransmission; frames 2-4
// wait for it. Frames 8 and 9 are reordered by 1 ms: out of order.
func TestLostBeforeVantage(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, 0, ms(60), 1000, 5000) // at B: SYN in, SYN/ACK out, ACK in 60 ms later
	data := func(at float64, k int) { f.send(seg(ms(at), true, fACK|fPSH, seqA(k), 5001, frame4571(k))) }
	ack := func(at float64, k int) { f.send(seg(ms(at), false, fACK, 5001, seqA(k), nil)) }
	data(100, 0)
	ack(100.1, 1)
	for i, k := range []int{2, 3, 4} {
		data(120+10*float64(i), k)
		ack(120.1+10*float64(i), 1) // duplicate ACKs
	}
	data(200, 1) // the retransmission
	ack(200.1, 5)
	for i, k := range []int{5, 6, 7} {
		data(210+10*float64(i), k)
		ack(210.1+10*float64(i), k+1)
	}
	data(240, 9)
	ack(240.1, 8)
	data(241, 8)
	ack(241.1, 10)
	f.close()

	want := []timing{
		{100, 100, 100},
		{200, 200, 200}, // the retransmission itself waited for nothing
		{120, 120, 200}, {130, 130, 200}, {140, 140, 200},
		{210, 210, 210}, {220, 220, 220}, {230, 230, 230},
		{241, 241, 241},
		{240, 240, 241},
	}
	ms0 := f.dirMsgs(0)
	if d := cmp.Diff(want, timings(ms0)); d != "" {
		t.Errorf("timing (-want +got):\n%s", d)
	}
	for i, m := range ms0 {
		if m.retransmitted != (i == 1) || m.wire.Retransmitted != 0 || m.wire.Framing != 2 || len(m.payload) != 200 {
			t.Errorf("message %d: retransmitted %v wire %+v len %d", i, m.retransmitted, m.wire, len(m.payload))
		}
	}
	s := f.c.Summary()
	wantA := report.TCPDir{
		Vantage: "receiver", Segments: 12, DataSegments: 10, PureAcks: 1,
		WireBytes: 12*hdrLen + 10*fl, PayloadBytes: 10 * fl, StreamBytes: 10 * fl,
		RetransmittedSegments: 1, RetransmittedBytes: fl, SpuriousRetransmittedBytes: ptr(int64(0)), OutOfOrderSegments: 1,
		// The data/ACK delays here (0.1 to 1.1 ms) are the receiver's ACK time, not the
		// round trip: no rtt_ms at a receiver vantage (the handshake's 60 ms is below).
		RTTMS:    nil,
		Messages: 10, FramingBytes: 20, HOLDelayedMessages: 4,
		// p50 is the histogram's lower median of {1, 60, 70, 80}, within its 1% resolution.
		HOLDelayMS: &report.Quantiles{Samples: 4, Min: 1, P50: 60, P95: 80, P99: 80, Max: 80},
	}
	if d := cmp.Diff(wantA, s.AToB); d != "" {
		t.Errorf("a_to_b (-want +got):\n%s", d)
	}
	if s.HandshakeRTTMS == nil || *s.HandshakeRTTMS != 60 {
		t.Errorf("handshake rtt %v", s.HandshakeRTTMS)
	}
	if s.BToA.PureAcks != 10 || s.BToA.Vantage != "unknown" {
		t.Errorf("b_to_a %+v", s.BToA)
	}
}

// The original of frame 1 is lost after the vantage (a capture next to the sender A, RTT
// 60 ms): it is seen twice. The receiver's delivery is estimated from the ACKs.
func TestLostAfterVantage(t *testing.T) {
	f := newFeeder(t, Config{LateBudget: 100 * time.Millisecond})
	f.handshake(0, ms(60), ms(60), 1000, 5000) // at A
	data := func(at float64, k int) { f.send(seg(ms(at), true, fACK|fPSH, seqA(k), 5001, frame4571(k))) }
	ack := func(at float64, k int) { f.send(seg(ms(at), false, fACK, 5001, seqA(k), nil)) }
	for k := 0; k < 5; k++ {
		data(100+10*float64(k), k)
	}
	ack(160, 1)
	ack(180, 1)
	ack(190, 1)
	ack(200, 1)
	data(201, 1) // fast retransmission
	ack(261, 5)
	for i, k := range []int{5, 6, 7} {
		data(270+10*float64(i), k)
	}
	for i, k := range []int{5, 6, 7} {
		ack(330+10*float64(i), k+1)
	}
	data(400, 7) // spurious: frame 7 was ACKed at 350
	data(500, 8)
	data(520, 8) // retransmitted before its ACK: a D-SACK says it was spurious
	// The ACK at 560 came 40 ms after the resend, less than a round trip: it answers the
	// first copy, which reached the receiver at 530.
	ack(560, 9)
	dsack := seg(ms(580), false, fACK, 5001, seqA(9), nil)
	dsack.TCP.SACK[0], dsack.TCP.NSACK = capturedBlock(seqA(8), seqA(9)), 1
	f.send(dsack)
	f.close()

	want := []timing{
		{100, 130, 130},
		{110, 231, 231},
		{120, 150, 231}, {130, 160, 231}, {140, 170, 231},
		{270, 300, 300}, {280, 310, 310}, {290, 320, 320},
		{500, 530, 530},
	}
	ms0 := f.dirMsgs(0)
	if d := cmp.Diff(want, timings(ms0)); d != "" {
		t.Errorf("timing (-want +got):\n%s", d)
	}
	for i, m := range ms0 {
		retx := i == 1 || i == 8
		wantRetx := int64(0)
		if retx {
			wantRetx = fl + hdrLen
		}
		// Frame 1 waited for its own retransmission, frames 2-4 behind it; frame 8's
		// resend was spurious (the ACK answered its first copy), and held nothing up.
		wantHold := transport.HoldNone
		switch {
		case i == 1:
			wantHold = transport.HoldRetransmitted
		case i >= 2 && i <= 4:
			wantHold = transport.HoldRetransmission
		}
		if m.retransmitted != retx || m.wire.Retransmitted != wantRetx || m.wire.Headers != hdrLen || m.hold != wantHold {
			t.Errorf("message %d: retransmitted %v wire %+v hold %v, want hold %v", i, m.retransmitted, m.wire, m.hold, wantHold)
		}
	}
	s := f.c.Summary()
	wantA := report.TCPDir{
		Vantage: "sender", Segments: 14, DataSegments: 12, PureAcks: 1,
		WireBytes: 14*hdrLen + 12*fl, PayloadBytes: 12 * fl, StreamBytes: 9 * fl,
		RetransmittedSegments: 3, RetransmittedBytes: 3 * fl,
		SpuriousRetransmittedBytes: ptr(int64(2 * fl)), UselessRetransmittedBytes: fl,
		// Frames 0, 5, 6, 7; frame 8 was sent twice (Karn), frames 2-4 waited for frame 1.
		RTTMS:    &report.Quantiles{Samples: 4, Min: 60, P50: 60, P95: 60, P99: 60, Max: 60},
		Messages: 9, FramingBytes: 18, HOLDelayedMessages: 3,
		HOLDelayMS: &report.Quantiles{Samples: 3, Min: 61, P50: 71, P95: 81, P99: 81, Max: 81},
	}
	if d := cmp.Diff(wantA, s.AToB); d != "" {
		t.Errorf("a_to_b (-want +got):\n%s", d)
	}
	if r := f.c.Rest(0); r.Retransmitted != fl+hdrLen {
		t.Errorf("rest %+v: want the spurious copy of frame 7 (already handed out)", r)
	}
}

// TestSenderVantageUnackedAtEnd: at a capture next to the sender, a message whose ACK the
// capture ends before is dated like the others, half an RTT after it was sent (not at the
// sender's own time, which would move the receiver's delay baseline by half an RTT).
func TestSenderVantageUnackedAtEnd(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(60), ms(60), 1000, 5000) // at A
	for k := 0; k < 5; k++ {
		f.send(seg(ms(100+10*float64(k)), true, fACK|fPSH, seqA(k), 5001, frame4571(k)))
		f.send(seg(ms(160+10*float64(k)), false, fACK, 5001, seqA(k+1), nil))
	}
	f.send(seg(ms(300), true, fACK|fPSH, seqA(5), 5001, frame4571(5))) // the capture ends first
	f.close()
	want := []timing{{100, 130, 130}, {110, 140, 140}, {120, 150, 150}, {130, 160, 160}, {140, 170, 170}, {300, 330, 330}}
	if d := cmp.Diff(want, timings(f.dirMsgs(0))); d != "" {
		t.Errorf("timing (-want +got):\n%s", d)
	}
	if v := f.c.dirs[0].vantage(); v != VantageSender {
		t.Errorf("vantage %v, want sender", v)
	}
}

// TestHoleFillerBound: with a 60 ms handshake, a segment that fills a hole is a repair
// when it comes more than 57 ms (95% of the round trip, minRTT) after the bytes beyond
// it, else out of order; a repair that also carries bytes seen before (resegmented) is a
// retransmission of all its bytes, however soon it comes.
func TestHoleFillerBound(t *testing.T) {
	cases := []struct {
		name             string
		after            float64 // ms after frame 2
		resegment        bool    // the filler starts 100 bytes into frame 0
		segs, bytes, ooo int64
	}{
		{"reordered by 1 ms", 1, false, 0, 0, 1},
		{"reordered by 47 ms", 47, false, 0, 0, 1},
		{"reordered by 56.9 ms", 56.9, false, 0, 0, 1},
		{"repaired 57.1 ms after", 57.1, false, 1, fl, 0},
		{"repaired 59.5 ms after, under the handshake's RTT", 59.5, false, 1, fl, 0},
		{"resegmented repair 1 ms after", 1, true, 1, fl + 102, 0},
		{"resegmented repair 58 ms after", 58, true, 1, fl + 102, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFeeder(t, Config{})
			f.handshake(0, 0, ms(60), 1000, 5000) // at B, the receiver
			data := func(at float64, k int) { f.send(seg(ms(at), true, fACK|fPSH, seqA(k), 5001, frame4571(k))) }
			data(100, 0)
			data(110, 2)
			if c.resegment {
				b := append(frame4571(0)[100:], frame4571(1)...)
				f.send(seg(ms(110+c.after), true, fACK|fPSH, seqA(0)+100, 5001, b))
			} else {
				data(110+c.after, 1)
			}
			data(200, 3)
			f.close()
			s := f.c.Summary().AToB
			if s.RetransmittedSegments != c.segs || s.RetransmittedBytes != c.bytes || s.OutOfOrderSegments != c.ooo {
				t.Errorf("retransmitted %d segments, %d bytes, out of order %d; want %d, %d, %d",
					s.RetransmittedSegments, s.RetransmittedBytes, s.OutOfOrderSegments, c.segs, c.bytes, c.ooo)
			}
		})
	}
}

// TestSenderVantageDelayedACKsAreNoHOL: next to the sender (RTT 60 ms), nothing is lost,
// and the receiver ACKs every other frame 40 ms late (a delayed ACK): the ACK-based
// delivery comes after the estimated completion, but no message waited for earlier bytes.
// Head-of-line delay at a sender vantage needs a retransmission of earlier bytes
// (TestLostAfterVantage has three).
func TestSenderVantageDelayedACKsAreNoHOL(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(60), ms(60), 1000, 5000) // at A
	for k := 0; k < 10; k++ {
		f.send(seg(ms(100+10*float64(k)), true, fACK|fPSH, seqA(k), 5001, frame4571(k)))
		if k%2 == 1 {
			f.send(seg(ms(100+10*float64(k)+100), false, fACK, 5001, seqA(k+1), nil))
		}
	}
	f.close()
	s := f.c.Summary().AToB
	if s.Vantage != "sender" || s.Messages != 10 || s.HOLDelayedMessages != 0 || s.HOLDelayMS != nil {
		t.Errorf("vantage %s, %d messages, %d held (%+v); want sender, 10, none", s.Vantage, s.Messages, s.HOLDelayedMessages, s.HOLDelayMS)
	}
}

// TestSlowHandshake: at the receiver B, the client's ACK of the handshake came 100 ms after
// the SYN/ACK (a client slow to answer, a forwarder starting up), where the data say the
// round trip is 20 ms: B's own frames are ACKed 20 ms after they leave, and B ACKs A's at
// once. The connection's RTT is the smaller, 20.1 ms: B's direction is at its sender, and
// A's frame 1, filling its hole 30 ms after frame 2, is a repair (with the handshake's
// 100 ms, out of order).
func TestSlowHandshake(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, ms(0.1), ms(100), 1000, 5000) // at B
	seqB := func(k int) uint32 { return 5001 + uint32(fl*k) }
	for k := 0; k < 5; k++ {
		at := 150 + 10*float64(k)
		f.send(seg(ms(at), false, fACK|fPSH, seqB(k), seqA(0), frame4571(k)))
		f.send(seg(ms(at+20), true, fACK, seqA(0), seqB(k+1), nil))
	}
	data := func(at float64, k int) { f.send(seg(ms(at), true, fACK|fPSH, seqA(k), seqB(5), frame4571(k))) }
	ack := func(at float64, k int) { f.send(seg(ms(at), false, fACK, seqB(5), seqA(k), nil)) }
	data(300, 0)
	ack(300.1, 1)
	data(310, 2)
	ack(310.1, 1)
	data(340, 1)
	ack(340.1, 3)
	for k := 3; k < 8; k++ {
		data(350+10*float64(k-3), k)
		ack(350.1+10*float64(k-3), k+1)
	}
	f.close()
	s := f.c.Summary()
	if a := s.AToB; a.Vantage != "receiver" || a.RetransmittedSegments != 1 || a.RetransmittedBytes != fl || a.OutOfOrderSegments != 0 {
		t.Errorf("a_to_b: vantage %s, retransmitted %d (%d bytes), out of order %d; want receiver, 1 (%d), 0",
			a.Vantage, a.RetransmittedSegments, a.RetransmittedBytes, a.OutOfOrderSegments, fl)
	}
	if b := s.BToA; b.Vantage != "sender" || b.RTTMS == nil || b.RTTMS.Min != 20 {
		t.Errorf("b_to_a: vantage %s, rtt %+v; want sender, 20 ms", b.Vantage, b.RTTMS)
	}
}

// TestFINSentAgain: at the receiver, frames 0-2 with FIN on the last, ACKed; the FIN segment
// sent again 50 ms after its ACK is a retransmission of bytes seen, spurious (the ACK had
// covered them), though the direction had ended: it was not counted. Data beyond the FIN
// is still no part of the stream.
func TestFINSentAgain(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, 0, ms(60), 1000, 5000) // at B, the receiver
	for k := range 3 {
		flags := uint8(fACK | fPSH)
		if k == 2 {
			flags |= fFIN
		}
		f.send(seg(ms(100+10*float64(k)), true, flags, seqA(k), 5001, frame4571(k)))
	}
	f.send(seg(ms(121), false, fACK, 5001, seqA(3)+1, nil))
	f.send(seg(ms(171), true, fACK|fFIN, seqA(2), 5001, frame4571(2)))
	f.send(seg(ms(180), true, fACK, seqA(3)+1, 5001, frame4571(3)))
	f.close()
	s := f.c.Summary().AToB
	if s.RetransmittedSegments != 1 || s.RetransmittedBytes != fl || *s.SpuriousRetransmittedBytes != fl ||
		s.Messages != 3 || s.StreamBytes != 3*fl {
		t.Errorf("retransmitted %d segments, %d bytes, %d spurious; %d messages, stream %d; want 1, %d, %d, 3, %d",
			s.RetransmittedSegments, s.RetransmittedBytes, *s.SpuriousRetransmittedBytes, s.Messages, s.StreamBytes, fl, fl, 3*fl)
	}
	if len(f.dirMsgs(0)) != 3 {
		t.Errorf("%d messages emitted, want 3", len(f.dirMsgs(0)))
	}
}

// A capture of one direction only (the peer's ACKs went another way) cannot say whether a
// retransmission was spurious: null. Without a retransmission there is nothing to judge:
// 0 spurious bytes.
func TestSpuriousNeedsThePeersACKs(t *testing.T) {
	for _, retx := range []bool{false, true} {
		f := newFeeder(t, Config{})
		for k := range 4 {
			f.send(seg(ms(100+10*float64(k)), true, fACK|fPSH, seqA(k), 5001, frame4571(k)))
		}
		if retx {
			f.send(seg(ms(200), true, fACK|fPSH, seqA(1), 5001, frame4571(1)))
		}
		f.close()
		s := f.c.Summary().AToB
		var want *int64
		if !retx {
			want = ptr(int64(0))
		}
		if d := cmp.Diff(want, s.SpuriousRetransmittedBytes); d != "" || s.RetransmittedBytes != map[bool]int64{true: fl}[retx] {
			t.Errorf("retransmission %v: %d bytes retransmitted, spurious (-want +got):\n%s", retx, s.RetransmittedBytes, d)
		}
	}
}

// At the end of the capture, a hole the peer's ACK of data did not pass was still being
// repaired: what lies behind it never reached the receiver, is dropped and counted
// (Unrepaired). The SYN/ACK's acknowledgment of the SYN is no ACK of data: a capture whose
// peer sent nothing else takes every hole for a capture gap and delivers what is behind.
func TestHoleAtTheEnd(t *testing.T) {
	for _, dataACK := range []bool{false, true} {
		f := newFeeder(t, Config{})
		f.handshake(0, ms(30), ms(60), 1000, 5000)
		f.send(seg(ms(100), true, fACK|fPSH, seqA(0), 5001, frame4571(0)))
		if dataACK {
			f.send(seg(ms(101), false, fACK, 5001, seqA(1), nil))
		}
		for k := 2; k < 6; k++ { // frame 1 never seen
			f.send(seg(ms(100+10*float64(k)), true, fACK|fPSH, seqA(k), 5001, frame4571(k)))
		}
		f.close()
		msgs, unrepaired, gap := len(f.dirMsgs(0)), f.c.Unrepaired(0), f.c.Summary().AToB.CaptureGapBytes
		want := []int64{5, 0, fl} // frame 0, then 2-5 after the capture gap of frame 1
		if dataACK {
			want = []int64{1, 4 * fl, 0}
		}
		if got := []int64{int64(msgs), unrepaired, gap}; !slices.Equal(got, want) {
			t.Errorf("data ACK %v: messages, unrepaired bytes, capture gap %v; want %v", dataACK, got, want)
		}
	}
}

// TestHoleWhenACKsStop: as TestHoleAtTheEnd with the ACK of data, but frames 2-199 come for
// 2 s after it. With no ACK of the peer's after 101 ms, its ACKs are missing from the
// capture (a receiver acknowledges within 500 ms, and a segment beyond a hole at once): the
// hole is a capture gap, and the 198 frames behind it are delivered (h138: dropped as a
// repair still on its way). With the receiver's duplicate ACKs at the hole, it was being
// repaired: dropped, as before.
func TestHoleWhenACKsStop(t *testing.T) {
	for _, dupACKs := range []bool{false, true} {
		f := newFeeder(t, Config{})
		f.handshake(0, ms(30), ms(60), 1000, 5000)
		f.send(seg(ms(100), true, fACK|fPSH, seqA(0), 5001, frame4571(0)))
		f.send(seg(ms(101), false, fACK, 5001, seqA(1), nil))
		for k := 2; k < 200; k++ { // frame 1 never seen
			at := ms(100 + 10*float64(k))
			f.send(seg(at, true, fACK|fPSH, seqA(k), 5001, frame4571(k)))
			if dupACKs {
				f.send(seg(at+ms(0.1), false, fACK, 5001, seqA(1), nil))
			}
		}
		f.close()
		msgs, unrepaired, gap := len(f.dirMsgs(0)), f.c.Unrepaired(0), f.c.Summary().AToB.CaptureGapBytes
		want := []int64{199, 0, fl}
		if dupACKs {
			want = []int64{1, 198 * fl, 0}
		}
		if got := []int64{int64(msgs), unrepaired, gap}; !slices.Equal(got, want) {
			t.Errorf("duplicate ACKs %v: messages, unrepaired bytes, capture gap %v; want %v", dupACKs, got, want)
		}
	}
}

// TestWindowHeldAtTheReceiver: a capture next to the receiver B, 40 ms from the sender A
// (a round trip of 80 ms), late budget 50 ms. A sends a frame every 20 ms from 100 ms
// (each seen 40 ms later); B's application stops reading: its ACKs from 1,020 ms advertise
// what is left of 606 bytes, three frames, and the third fills it at 1,060 ms. B opens its
// window at 1,500 ms; A hears it at 1,540 ms and sends the 25 frames it wrote meanwhile
// (1,040 … 1,520 ms), seen here at 1,580 ms, then the next ones as they come. The stall
// runs 1,060 … 1,500 ms here; the frames it held arrive a round trip after it ended: a
// frame first seen up to 1,630 ms (the end, a round trip, the budget) was held by the
// window (only the late are blamed on it). Before, only up to the budget after the
// stall's end as this vantage sees it: the 25 frames were blamed on nothing (the sender's
// backlog).
func TestWindowHeldAtTheReceiver(t *testing.T) {
	f := newFeeder(t, Config{LateBudget: 50 * time.Millisecond})
	f.handshake(0, 0, ms(80), 1000, 5000)
	seq := uint32(1001)
	ack := func(at float64, win uint16) {
		a := seg(ms(at), false, fACK, 5001, seq, nil)
		a.TCP.Window = win
		f.send(a)
	}
	data := func(at float64, k int) {
		f.send(seg(ms(at), true, fACK|fPSH, seq, 5001, frame4571(k)))
		seq += fl
	}
	k := 0
	for ; 100+20*k <= 960; k++ { // sent at 100 … 960, seen 40 ms later, acknowledged at once
		data(float64(140+20*k), k)
		ack(float64(140+20*k), 65535)
	}
	for i, win := range []uint16{2 * fl, fl, 0} { // 980, 1000, 1020 fill the 606 bytes left
		data(float64(1020+20*i), k)
		ack(float64(1020+20*i), win)
		k++
	}
	held := k
	ack(1500, 65535) // the window opens
	for ; 100+20*k < 1540; k++ {
		data(1580, k) // written 1,040 … 1,520, sent together at 1,540
	}
	for ; k < 90; k++ {
		data(float64(140+20*k), k)
		ack(float64(140+20*k), 65535)
	}
	f.close()
	if s := f.c.Summary().AToB; s.WindowStalls.Count != 1 || s.Vantage != VantageReceiver.Report() {
		t.Fatalf("stalls %+v vantage %s; want one, at the receiver", s.WindowStalls, s.Vantage)
	}
	for i, m := range f.dirMsgs(0) {
		want := transport.HoldNone
		if i >= held-1 && m.firstSeen <= ms(1630) { // from the frame that filled the window
			want = transport.HoldWindow
		}
		if m.hold != want {
			t.Errorf("frame %d (first seen %d ms): hold %v, want %v", i, m.firstSeen/1e6, m.hold, want)
		}
	}
}

// TestSpuriousResendByDSACK: next to the sender A (a round trip of 60 ms), frame 0 is sent
// at 100 ms and its ACK lost on the way back; A resends it at 400 ms, and the ACK that
// comes a round trip later carries a D-SACK of it: the receiver had it. The resend held
// nothing up (before, frame 0 was held by the retransmission of its own bytes: the ACK
// came too long after the resend for emitHead to tell that it answered the first copy).
func TestSpuriousResendByDSACK(t *testing.T) {
	f := newFeeder(t, Config{LateBudget: 100 * time.Millisecond})
	f.handshake(0, ms(60), ms(60), 1000, 5000)
	f.send(seg(ms(100), true, fACK|fPSH, seqA(0), 5001, frame4571(0)))
	f.send(seg(ms(400), true, fACK|fPSH, seqA(0), 5001, frame4571(0)))
	dsack := seg(ms(460), false, fACK, 5001, seqA(1), nil)
	dsack.TCP.SACK[0], dsack.TCP.NSACK = capturedBlock(seqA(0), seqA(1)), 1
	f.send(dsack)
	f.send(seg(ms(500), true, fACK|fPSH, seqA(1), 5001, frame4571(1)))
	f.send(seg(ms(560), false, fACK, 5001, seqA(2), nil))
	f.close()
	ms0 := f.dirMsgs(0)
	if len(ms0) != 2 || !ms0[0].retransmitted || ms0[0].hold != transport.HoldNone {
		t.Fatalf("messages %+v; want frame 0 resent, held by nothing", ms0)
	}
	if s := f.c.Summary().AToB; s.SpuriousRetransmittedBytes == nil || *s.SpuriousRetransmittedBytes != fl {
		t.Errorf("spurious %v, want %d", s.SpuriousRetransmittedBytes, fl)
	}
}
