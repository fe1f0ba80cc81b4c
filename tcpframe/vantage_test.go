package tcpframe

import (
	"slices"
	"testing"
)

// The delay from a data segment to the ACK covering it, against a 60 ms handshake RTT.
func TestVantage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ackDelay float64
		want     Vantage
	}{
		{"receiver", 0.5, VantageReceiver},
		{"middle", 30, VantageMiddle},
		{"sender", 60, VantageSender},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFeeder(t, Config{})
			// SYN to SYN/ACK is the vantage-to-B part, SYN/ACK to ACK the vantage-to-A part.
			f.handshake(0, ms(tc.ackDelay), ms(60), 1000, 5000)
			for k := 0; k < 5; k++ {
				at := 100 + 100*float64(k)
				f.send(seg(ms(at), true, fACK|fPSH, seqA(k), 5001, frame4571(k)))
				f.send(seg(ms(at+tc.ackDelay), false, fACK, 5001, seqA(k+1), nil))
			}
			if v := f.c.dirs[0].vantage(); v != tc.want {
				t.Errorf("vantage %v, want %v", v, tc.want)
			}
			// Messages were emitted as soon as their delivery could be dated.
			if n := len(f.dirMsgs(0)); n < 3 {
				t.Errorf("%d messages emitted before Close", n)
			}
			f.close()
			s := f.c.Summary()
			if s.AToB.Vantage != tc.want.Report() || *s.HandshakeRTTMS != 60 || s.AToB.HOLDelayedMessages != 0 {
				t.Errorf("summary %+v", s.AToB)
			}
		})
	}
}

// A capture whose clock did not move (every packet at one time) measures no round trip: the
// handshake's is null, not 0, and with no round trip the vantage is unknown. It read 0 ms and
// receiver both ways, and the messages dated by it came out in another order than the
// capture saw them.
func TestNoTimeNoRTT(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(ms(5), ms(5), ms(5), 1000, 5000)
	for k := range 5 {
		f.send(seg(ms(5), true, fACK|fPSH, seqA(k), 5001, frame4571(k)))
		f.send(seg(ms(5), false, fACK, 5001, seqA(k+1), nil))
	}
	f.close()
	s := f.c.Summary()
	if s.HandshakeRTTMS != nil || s.AToB.Vantage != VantageUnknown.Report() || s.BToA.Vantage != VantageUnknown.Report() {
		t.Errorf("handshake rtt %v, vantage %v %v; want null, unknown, unknown", s.HandshakeRTTMS, s.AToB.Vantage, s.BToA.Vantage)
	}
	if n := len(f.dirMsgs(0)); n != 5 {
		t.Errorf("%d messages, want 5", n)
	}
}

// TestUnknownVantageKeepsOrder: an ICE-TCP connection that carries two connectivity checks
// and nothing else (webrtcbin over a 41 ms round trip, a real capture's times): A's request
// answered by B at once, then B's request answered by A 45 ms later. With one ACK a
// direction, neither vantage is known and every message waits, up to maxHold. A's ACK at
// 1.68 s let A's response go; B's request, first seen before it, waited for a segment of
// its own direction (the FIN at 25.7 s): the response came out first, and the check was
// unanswered. Messages come out in the order the capture first saw them.
func TestUnknownVantageKeepsOrder(t *testing.T) {
	f := newFeeder(t, Config{})
	const isnA, isnB = 1000, 5000
	f.handshake(ms(0), ms(0.03), ms(41.6), isnA, isnB)
	req, resp := rfc4571(stunMsg(0x0001, 124)), rfc4571(stunMsg(0x0101, 116))
	a, b := uint32(isnA+1), uint32(isnB+1)
	f.send(seg(ms(42.56), true, fACK|fPSH, a, b, req)) // A's check
	a += uint32(len(req))
	f.send(seg(ms(42.57), false, fACK, b, a, nil))
	f.send(seg(ms(43.02), false, fACK|fPSH, b, a, resp)) // answered at once
	b += uint32(len(resp))
	f.send(seg(ms(46.01), false, fACK|fPSH, b, a, req)) // B's check
	b += uint32(len(req))
	f.send(seg(ms(84.1), true, fACK, a, b-uint32(len(req)), nil))
	f.send(seg(ms(91.06), true, fACK, a, b, nil))
	f.send(seg(ms(91.21), true, fACK|fPSH, a, b, resp)) // answered after a round trip
	a += uint32(len(resp))
	f.send(seg(ms(134.34), false, fACK, b, a, nil))
	f.send(seg(ms(1680), true, fACK, a, b, nil))
	f.send(seg(ms(25706), false, fACK|fFIN, b, a, nil))
	f.send(seg(ms(25749), true, fACK|fFIN, a, b+1, nil))
	f.close()
	var dirs []int
	for _, m := range f.msgs {
		dirs = append(dirs, m.dir)
	}
	if want := []int{0, 1, 1, 0}; !slices.Equal(dirs, want) {
		t.Errorf("messages from %v (0: A, 1: B), want %v", dirs, want)
	}
	// A's response waited maxHold: A's vantage was then decided from its one sample (B
	// acknowledged A's check 0.01 ms after the capture saw it: at the receiver, as the
	// handshake says). B's direction, whose messages never waited that long, is unknown.
	if v := [2]Vantage{f.c.dirs[0].vantage(), f.c.dirs[1].vantage()}; v != [2]Vantage{VantageReceiver, VantageUnknown} {
		t.Errorf("vantages %v, want receiver, unknown", v)
	}
}
