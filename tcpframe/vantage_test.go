package tcpframe

import "testing"

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
