package rtpflow

import "testing"

// TestInferEarly: 50 packets of 20 ms at 48 kHz; the clock must read 48 kHz whether the
// last packets waited behind a TCP retransmission or the first came in a burst.
func TestInferEarly(t *testing.T) {
	const ms = int64(1e6)
	mk := func(delay func(i int) int64) []early {
		var e []early
		for i := 0; i < 50; i++ {
			e = append(e, early{at: int64(i)*20*ms + delay(i), ts: int64(i) * 960})
		}
		return e
	}
	cases := []struct {
		name  string
		delay func(i int) int64
	}{
		{"steady", func(int) int64 { return 0 }},
		{"last packets held 300 ms", func(i int) int64 {
			if i >= 45 {
				return int64(300-(i-45)*20) * ms
			}
			return 0
		}},
		{"first packets in a burst", func(i int) int64 {
			if i < 10 {
				return int64(200-i*20) * ms
			}
			return 0
		}},
	}
	for _, c := range cases {
		if got := inferEarly(mk(c.delay)); got != 48000 {
			t.Errorf("%s: %d Hz, want 48000", c.name, got)
		}
	}
}
