package numfmt

import "testing"

func TestFormats(t *testing.T) {
	cases := []struct{ got, want string }{
		{Thousands(0), "0"}, {Thousands(999), "999"}, {Thousands(1000), "1,000"},
		{Thousands(-1234567), "-1,234,567"},
		{Rate(999), "999 kbps"}, {Rate(2280), "2.28 Mbps"},
		{Pct(0), "0%"}, {Pct(0.043), "0.04%"}, {Pct(1.46), "1.5%"}, {Pct(13.8), "14%"},
		{Pct(9.984), "10%"}, {Pct(10.063), "10%"}, {Pct(0.0996), "0.1%"}, {Pct(9.949), "9.9%"},
		{MS(0.25), "0.3 ms"}, {MS(420), "420 ms"}, {Seconds(6), "6 s"}, {Seconds(93.2), "93 s"},
		{ExactMS(150), "150 ms"}, {ExactMS(75.5), "75.5 ms"}, // a budget as the user gave it (MS: "76 ms")
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestPctSmall: a percentage too small for two decimals is "<0.01%", not "0.00%" (a single
// retransmitted segment in a long call, or one packet lost in 300,000).
func TestPctSmall(t *testing.T) {
	for p, want := range map[float64]string{0: "0%", 0.004: "<0.01%", 0.0006: "<0.01%", 0.01: "0.01%", 0.05: "0.05%", 0.5: "0.5%", 12: "12%"} {
		if got := Pct(p); got != want {
			t.Errorf("Pct(%v) = %q, want %q", p, got, want)
		}
	}
}
