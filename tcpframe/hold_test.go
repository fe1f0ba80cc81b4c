package tcpframe

import "testing"

func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    Hold
		want bool
	}{
		{"no message", Hold{}, false},
		{"no break", Hold{Messages: 1, FramedBytes: 10}, true},
		{"one break in 100 messages", Hold{Messages: 100, FramedBytes: 100000, Breaks: 1, BrokenBytes: 1010}, true},
		{"one break in 20 messages", Hold{Messages: 20, FramedBytes: 100000, Breaks: 1, BrokenBytes: 10}, true},
		{"one break in 19 messages", Hold{Messages: 19, FramedBytes: 100000, Breaks: 1, BrokenBytes: 10}, false},
		{"two breaks in 199 messages", Hold{Messages: 199, FramedBytes: 100000, Breaks: 2, BrokenBytes: 10}, false},
		{"two breaks in 200 messages", Hold{Messages: 200, FramedBytes: 100000, Breaks: 2, BrokenBytes: 10}, true},
		{"1% of the bytes broken", Hold{Messages: 100, FramedBytes: 99000, Breaks: 1, BrokenBytes: 1001}, false},
		// The XMPP connection of analysis's TestNonMediaTCPIsAnOtherFlow: 99.97% of its bytes
		// in three huge false frames, but one break.
		{"text read as RFC 4571", Hold{Messages: 3, FramedBytes: 51394, Breaks: 1, BrokenBytes: 13}, false},
	} {
		if got := tc.h.Holds(); got != tc.want {
			t.Errorf("%s: %+v holds %v, want %v", tc.name, tc.h, got, tc.want)
		}
	}
}

// A capture that starts in the middle of a connection (no SYN) skips the bytes before the
// first frame it recognises: the capture's doing, not a break.
func TestHoldMidConnection(t *testing.T) {
	f := newFeeder(t, Config{})
	stream := cat(frame4571(0), frame4571(1), frame4571(2), frame4571(3))
	f.send(seg(ms(10), true, fACK|fPSH, 1001, 5001, stream[fl-30:]))
	f.close()
	if s := f.c.Summary().AToB; s.ResyncSkippedBytes != 30 || s.Messages != 3 {
		t.Errorf("summary %+v", s)
	}
	if h := f.c.Hold(); h != (Hold{Messages: 3, FramedBytes: 3 * fl}) {
		t.Errorf("hold %+v, want 3 messages of %d bytes, no break", h, 3*fl)
	}
}
