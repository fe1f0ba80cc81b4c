// Package charts draws a call direction's per-second series (report.Series) as line charts:
// bitrate (media and wire, with the ramp's t50 and t90), loss (RTP packets lost, TCP bytes
// retransmitted), delay (p50 and max above baseline, the late budget, late packets) and,
// where a round trip was measured, RTT (the per-second median of ICE, TCP and RTCP). It
// reads the report model only, so a report built by hand or read back from JSON charts the
// same way.
//
// Each value of a series covers one second, so it is drawn as a step across that second:
// a change between second 9 and second 10 is a vertical edge at x = 10 s. Time runs in
// seconds from the direction's first media packet, the origin of the series and of t50/t90.
//
// The SVG is deterministic (golden tests compare it byte for byte) and refers to nothing
// outside itself; every text it holds is escaped, since go-chart writes text into the SVG
// as it gets it.
//
//	for _, c := range charts.ForDirection(&d, budgetMS) {
//		err = c.SVG(w)
//	}
package charts
