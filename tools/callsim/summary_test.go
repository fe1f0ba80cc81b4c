package main

import (
	"math"
	"testing"
)

// A caller that sends 1 Mbit/s for 10 s and then 2 Mbit/s for 40 s: the
// last-30-s mean is 2 Mbit/s, t50 is the first 2 Mbit/s second (t50 needs
// 1 Mbit/s, reached at once), t90 the first second at 1.8 Mbit/s.
func TestSummarize(t *testing.T) {
	var lines []statsLine
	bytes := 0.0
	rtt := 0.05
	for s := 0; s <= 50; s++ {
		if s > 0 {
			rate := 1e6
			if s > 10 {
				rate = 2e6
			}
			bytes += rate / 8
		}
		lines = append(lines, statsLine{
			Role:          "caller",
			UnixMS:        int64(1000 + s*1000),
			Outbound:      []rtpStats{{Kind: "video", BytesSent: bytes + 1, TargetBitrate: 2e6, NackCount: 3}},
			RemoteInbound: []rtpStats{{Kind: "video", RoundTripTime: &rtt}},
		})
	}
	lines = append(lines, statsLine{Role: "callee", UnixMS: 51000,
		Inbound: []rtpStats{{Kind: "video", PacketsLost: 5, PacketsReceived: 995}}})
	rs := summarize("x", lines)
	if math.Abs(rs.SendKbps30-2000) > 1 {
		t.Errorf("last-30-s rate %.1f kbit/s, want 2000", rs.SendKbps30)
	}
	if rs.T50 != 1 || rs.T90 != 11 {
		t.Errorf("t50 %v t90 %v, want 1 and 11", rs.T50, rs.T90)
	}
	if rs.T50Abs != 11 || !math.IsNaN(rs.T90Abs) {
		t.Errorf("against 2.5 Mbit/s: t50 %v t90 %v, want 11 and none", rs.T50Abs, rs.T90Abs)
	}
	if rs.LossPct != 0.5 || rs.NACKs != 3 || math.Abs(rs.RTTRemoteMS30-50) > 1e-9 {
		t.Errorf("loss %v%% nacks %v rtt %v", rs.LossPct, rs.NACKs, rs.RTTRemoteMS30)
	}
	if _, err := rs.MarshalJSON(); err != nil {
		t.Errorf("JSON with NaN figures: %v", err)
	}
}
