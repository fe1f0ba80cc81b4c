package rtpflow

import "testing"

// TestRateSpan: a rate is measured only over a time that spans its packets: at least 20 ms,
// and at least 100 µs per interval between packets.
func TestRateSpan(t *testing.T) {
	const ms = int64(1e6)
	for _, tc := range []struct {
		name          string
		packets, span int64
		bytes         int64
		want          *float64 // kbps; nil: cannot be measured
		why           string
	}{
		{"2 s of audio at 50 packets/s", 100, 99 * 20 * ms, 100 * 160, f64(64.646), ""},
		{"the 20 ms floor itself", 2, 20 * ms, 320, f64(128), ""},
		{"exactly 10 µs apart", 10_001, 100 * ms, 1000, f64(80), ""},
		{"an SFU's bundle, 92 µs apart", 65_500, 6026 * ms, 65_500 * 150, f64(13043.478), ""},
		{"13 packets within 1 ms", 13, 923_076, 13 * 1200, nil,
			"13 packets within 0.9 ms: too short to measure a rate"},
		{"under the floor", 2, 19 * ms, 320, nil, "2 packets within 19 ms: too short to measure a rate"},
		{"every packet at one time", 100, 0, 100 * 160, nil,
			"100 packets at one capture time: no time to measure a rate over"},
		{"time going backwards", 100, -5 * ms, 100 * 160, nil,
			"100 packets at one capture time: no time to measure a rate over"},
		{"one packet", 1, 0, 160, nil, "1 packet at one capture time: no time to measure a rate over"},
		{"times rewritten to a 1 µs counter", 30_001, 30 * ms, 30_001 * 1200, nil,
			"30,001 packets within 30 ms, one every 1 µs on average: capture times too close together to measure a rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := RateSpan(tc.packets, tc.span)
			if ok != (tc.want != nil) || why != tc.why {
				t.Errorf("RateSpan(%d, %d) = %v, %q; want %v, %q", tc.packets, tc.span, ok, why, tc.want != nil, tc.why)
			}
			got := Kbps(tc.bytes, tc.packets, tc.span)
			switch {
			case (got == nil) != (tc.want == nil):
				t.Errorf("Kbps = %v, want %v", got, tc.want)
			case got != nil && *got != *tc.want:
				t.Errorf("Kbps = %v, want %v", *got, *tc.want)
			}
		})
	}
}
