package render

import (
	"strings"
	"testing"

	"github.com/callpcap/callpcap/internal/testgen/textcheck"
	"github.com/callpcap/callpcap/report"
)

// The widest transport addresses a report holds: IPv6 written out in full, with a port of
// five digits.
const (
	wideA = "[2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff]:65535"
	wideB = "[2001:db8:1111:2222:3333:4444:5555:6666]:65534"
	wideS = "[2001:db8:9999:8888:7777:6666:5555:4444]:443"
	wideR = "[2001:db8:9999:8888:7777:6666:5555:4444]:50012"
)

// wideReport is handMade with every field the text report prints as wide as a real capture
// makes it: IPv6 addresses in full everywhere, a direct leg and a relayed one with three
// peers, a delay measured at the sender, the counts of a day-long stream, five ICE legs, two
// nominated pairs and every kind of TURN error.
func wideReport() *report.Report {
	r := handMade()
	c := &r.Captures[0]
	c.Legs = []report.Leg{
		{ID: "l1", Transport: "turn-tls", Client: wideA, Server: wideS, Relayed: str(wideR),
			Peers: []string{wideB, "[2001:db8:1111:2222:3333:4444:5555:6667]:65533", "[2001:db8:1111:2222:3333:4444:5555:6668]:65532"},
			Flows: []string{"f1"}},
		{ID: "l2", Transport: "udp", Client: wideB, Server: wideA, Flows: []string{}},
	}
	d := &c.Directions[0]
	d.From, d.To, d.Transport, d.Legs = wideA, wideB, "turn-tls", []string{"l1"}
	d.Loss = report.Loss{Expected: 123456789, Lost: 12345678, Pct: f64(10), DroppedBeforeTCP: i64(1234567)}
	d.Late = &report.Late{BudgetMS: 1500, Packets: 12345678, Pct: 10, HOLBlocked: 12345678}
	d.DelayMS = &report.Delay{Vantage: "sender", Samples: 123456789, P50: 12345.6, P95: 123456.7, Max: 1234567.8}
	d.TCPRetransmittedPct = f64(12.3)
	s := &c.Streams[0]
	s.Src, s.Dst, s.Leg = wideA, wideB, "l1"
	s.SSRC, s.PayloadType, s.Kind = "0xffffffff", 127, "unknown"
	// A day of a stream at 500 packets a second, a tenth lost and late, seconds of jitter.
	s.Packets, s.Duplicates, s.Reordered, s.Lost = 43200000, 99999, 99999, i64(4320000)
	s.JitterMS = &report.Jitter{Mean: 1234.5, Max: 12345.6, Last: 1}
	s.Late = &report.Late{BudgetMS: 1500, Packets: 4320000, Pct: 10, HOLBlocked: 4320000}
	s.Restarts = 1234567
	q := &report.Quantiles{Samples: 1234567, P50: 12345.6}
	c.ICE = report.ICE{Checks: 1234567, Successes: 1234567, Failures: 1234567, RTTMS: q,
		RTTLegs: []report.ICERTTLeg{{Leg: "host_peer", RTTMS: q}, {Leg: "host_relay_peer", RTTMS: q},
			{Leg: "relay_peer", RTTMS: q}, {Leg: "relay_client", RTTMS: q}, {Leg: "unknown", RTTMS: q}},
		Ufrags: []string{}, Nominated: []string{wideA + " -> " + wideB, wideR + " -> " + wideB}}
	c.TURN = report.TURN{
		Allocations: []report.Allocation{{Server: wideS, Client: wideA, Transport: "tls", Relayed: str(wideR),
			Permissions: 123456, Channels: []report.Channel{{Number: 0x4000, Peer: wideB}}}},
		Errors: []report.TURNError{{Code: 300, Count: 12345}, {Code: 401, Count: 12345}, {Code: 403, Count: 12345},
			{Code: 437, Count: 12345}, {Code: 438, Count: 12345}, {Code: 441, Count: 12345}, {Code: 442, Count: 12345},
			{Code: 486, Count: 12345}, {Code: 508, Count: 12345}, {Code: 599, Count: 12345}},
	}
	return r
}

// TestTextWidth: however wide the figures, no line of the text report passes textWidth
// (DESIGN: 100 columns at most).
func TestTextWidth(t *testing.T) {
	text := textGolden(t, wideReport(), "wide")
	// Every address and figure made it into the report: nothing was cut to fit.
	for _, want := range []string{wideA, wideB, wideS, wideR, "12,345,678", "43,200,000", "1234.5/12345.6", "unknown p50"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q missing from the report:\n%s", want, text)
		}
	}
}

// TestTextWidthOfALongPath: a file name longer than a line is cut from the left, the end of
// the path kept, as the comparison's legend does (its first line was 152 columns wide), in
// a report and in an error.
func TestTextWidthOfALongPath(t *testing.T) {
	long := "/" + strings.Repeat("d", 150) + "/turn-udp-call.pcap.gz"
	r := handMade()
	r.Captures[0].File = long
	r.Captures = append(r.Captures, report.Capture{File: long, Error: "no such file or directory"})
	var b strings.Builder
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	textcheck.Width(t, b.String())
	if !strings.Contains(b.String(), "dddd/turn-udp-call.pcap.gz  pcap") || !strings.Contains(b.String(), "…dddd") {
		t.Errorf("the path's end is not kept:\n%s", b.String())
	}
}
