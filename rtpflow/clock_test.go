package rtpflow

import "testing"

// TestInferEarly: 50 packets of 20 ms at 48 kHz; the clock must read 48 kHz whether the
// last packets waited behind a TCP retransmission, the first came in a burst, or a full
// window held packets 10-37 and let them go together 695 ms after packet 10 was due (more
// than half of the buffer: the median of the pairs read 32 kHz before held packets were
// left out).
func TestInferEarly(t *testing.T) {
	const ms = int64(1e6)
	cases := []struct {
		name string
		// arrival of packet i, late by its delay after it was due, or, when held, at
		// the given time, held by the window
		delay func(i int) (d int64, held bool)
	}{
		{"steady", func(int) (int64, bool) { return 0, false }},
		{"last packets held 300 ms", func(i int) (int64, bool) {
			if i >= 45 {
				return int64(300-(i-45)*20) * ms, false
			}
			return 0, false
		}},
		{"first packets in a burst", func(i int) (int64, bool) {
			if i < 10 {
				return int64(200-i*20) * ms, false
			}
			return 0, false
		}},
		{"packets 10-37 held by the window", func(i int) (int64, bool) {
			if i >= 10 && i <= 37 {
				return int64(10-i)*20*ms + 695*ms, true
			}
			return 0, false
		}},
	}
	for _, c := range cases {
		var e []early
		for i := 0; i < 50; i++ {
			d, held := c.delay(i)
			hd := holdNone
			if held {
				hd = holdWindow
			}
			e = append(e, early{at: int64(i)*20*ms + d, ts: int64(i) * 960, hd: hd})
		}
		if got := inferEarly(e); got != 48000 {
			t.Errorf("%s: %d Hz, want 48000", c.name, got)
		}
	}
}
