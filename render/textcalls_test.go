package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/callpcap/callpcap/report"
)

// threeCalls is a TURN server's capture of three calls, built by hand:
//   - call 1, a direct UDP leg (l1), 0.5% late, a warn finding;
//   - call 2, relayed over TCP: the client's leg (l2) and the relay's leg to the peer (l3),
//     joined by the relayed address, 15% late and 1.0% retransmitted, a bad finding;
//   - call 3, relayed over UDP (l4), 2.5% lost, a warn finding.
//
// Worst first is call 2 (bad), call 3 (warn, 2.5% lost), call 1 (warn, 0.5% late).
func threeCalls() *report.Report {
	r := handMade()
	c := &r.Captures[0]
	c.File = "turn-server.pcap"
	c.Flows, c.Streams = []report.Flow{}, []report.Stream{}
	c.ICE = report.ICE{Ufrags: []string{}, Nominated: []string{}}
	c.Legs = []report.Leg{
		{ID: "l1", Transport: report.TransportUDP, Client: "10.0.0.1:5000", Server: "10.0.0.9:6000", Peers: []string{}, Flows: []string{}},
		{ID: "l2", Transport: report.TransportTURNTCP, Client: "10.0.0.2:40000", Server: "203.0.113.7:443",
			Relayed: str("203.0.113.7:50012"), Peers: []string{"198.51.100.9:61000"}, Flows: []string{}},
		{ID: "l3", Transport: report.TransportUDP, Client: "203.0.113.7:50012", Server: "198.51.100.9:61000", Peers: []string{}, Flows: []string{}},
		{ID: "l4", Transport: report.TransportTURNUDP, Client: "10.0.0.3:40001", Server: "203.0.113.7:3478",
			Relayed: str("203.0.113.7:50020"), Peers: []string{"198.51.100.10:62000"}, Flows: []string{}},
	}
	dir := func(id, from, to string, t report.Transport, legs []string, lossPct, latePct float64, retx *float64) report.Direction {
		return report.Direction{ID: id, From: from, To: to, Legs: legs, Transport: t, Streams: []string{},
			GoodputKbps: f64(1000), WireKbps: f64(1100), Efficiency: f64(0.91),
			Loss: report.Loss{Expected: 10000, Lost: int64(lossPct * 100), Pct: f64(lossPct)},
			Late: &report.Late{BudgetMS: 150, Packets: int64(latePct * 100), Pct: latePct}, TCPRetransmittedPct: retx,
			Series: report.Series{StepS: 1, MediaKbps: []float64{}, WireKbps: []float64{}, RTXKbps: []float64{}, Lost: []int64{},
				Late: []*int64{}, RetransmittedKbps: []float64{}, DelayP50MS: []*float64{}, DelayMaxMS: []*float64{}}}
	}
	c.Directions = []report.Direction{
		dir("d1", "10.0.0.1:5000", "10.0.0.9:6000", report.TransportUDP, []string{"l1"}, 0, 0.5, nil),
		dir("d2", "10.0.0.2:40000", "198.51.100.9:61000", report.TransportTURNTCP, []string{"l2", "l3"}, 0, 15, f64(1.0)),
		dir("d3", "198.51.100.9:61000", "10.0.0.2:40000", report.TransportTURNTCP, []string{"l3", "l2"}, 0, 2, f64(0.8)),
		dir("d4", "10.0.0.3:40001", "198.51.100.10:62000", report.TransportTURNUDP, []string{"l4"}, 2.5, 0, nil),
	}
	find := func(code report.FindingCode, sev report.Severity, legs []string, text string) report.Finding {
		return report.Finding{Code: code, Severity: sev, Legs: legs, Directions: []string{}, Figures: map[string]float64{}, Text: text}
	}
	c.Findings = []report.Finding{
		find(report.FindingMediaOverTCP, report.SeverityBad, []string{"l2", "l3"}, "Media between 10.0.0.2:40000 and 198.51.100.9:61000 was relayed over TCP."),
		find(report.FindingRTPLoss, report.SeverityWarn, []string{"l4"}, "2.5% of the media from 10.0.0.3:40001 was lost."),
		find(report.FindingLatePackets, report.SeverityWarn, []string{"l1"}, "0.5% of the media from 10.0.0.1:5000 arrived late."),
		find(report.FindingMediaOverTURN, report.SeverityInfo, []string{"l4"}, "Media between 10.0.0.3:40001 and 198.51.100.10:62000 was relayed."),
	}
	return r
}

// TestTextCalls: a capture of three calls opens with one line per call, worst first.
func TestTextCalls(t *testing.T) {
	text := textGolden(t, threeCalls(), "three-calls")
	want := `
3 calls, worst first
  !! call 2   10.0.0.2 <-> 198.51.100.9 via TURN/TCP  (l2, l3)  15% late, 1.0% TCP retransmitted
  !  call 3   10.0.0.3 <-> 198.51.100.10 via TURN/UDP  (l4)  2.5% lost
  !  call 1   10.0.0.1 <-> 10.0.0.9 via UDP  (l1)  0.5% late

Legs
`
	if !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}

	// One call: no such block.
	var one bytes.Buffer
	if err := Text(&one, handMade()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(one.String(), "worst first") {
		t.Errorf("a capture of one call lists its calls:\n%s", one.String())
	}
}

// TestTextCallsUnmeasured: a call whose loss or lateness was not measured never reads as one
// with none; calls alike in severity and shares keep their order.
func TestTextCallsUnmeasured(t *testing.T) {
	r := threeCalls()
	ds := r.Captures[0].Directions
	ds[0].Late = nil                                          // call 1: loss measured (0%), lateness not
	ds[3].Late, ds[3].Loss.Pct, ds[3].Loss.Lost = nil, nil, 0 // call 3: neither
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	want := `
3 calls, worst first
  !! call 2   10.0.0.2 <-> 198.51.100.9 via TURN/TCP  (l2, l3)  15% late, 1.0% TCP retransmitted
  !  call 1   10.0.0.1 <-> 10.0.0.9 via UDP  (l1)  nothing lost
  !  call 3   10.0.0.3 <-> 198.51.100.10 via TURN/UDP  (l4)  loss and lateness not measured
`
	if !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
}

// TestPageCalls: the HTML and Markdown pages of a capture of three calls list them worst
// first, as the text does, right after the verdict.
func TestPageCalls(t *testing.T) {
	r := threeCalls()
	var h, m bytes.Buffer
	if err := HTML(&h, r); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&m, r, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<h2>3 calls, worst first</h2>`,
		`<tr><td><span class="bad">bad</span> call 2</td><td>10.0.0.2 &lt;-&gt; 198.51.100.9 via TURN/TCP</td><td>l2, l3</td><td>15% late, 1.0% TCP retransmitted</td></tr>
<tr><td><span class="warn">warn</span> call 3</td>`,
	} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// The directions follow call by call, worst first, each call under its heading.
	html := h.String()
	c2, c3, c1 := strings.Index(html, `<h2 class="call">Call 2: `), strings.Index(html, `<h2 class="call">Call 3: `),
		strings.Index(html, `<h2 class="call">Call 1: `)
	if c2 < 0 || c3 < c2 || c1 < c3 {
		t.Errorf("call headings at %d, %d, %d: want calls 2, 3, 1 in that order", c2, c3, c1)
	}
	if !strings.Contains(m.String(), "\n## Call 2: ") {
		t.Errorf("Markdown lacks the call headings:\n%s", m.String())
	}
	want := "### 3 calls, worst first\n\n| call | between | legs | what went wrong |\n| --- | --- | --- | --- |\n| bad call 2 |"
	if !strings.Contains(m.String(), want) {
		t.Errorf("Markdown lacks %q:\n%s", want, m.String())
	}
}

// TestCallEnds: a call whose two ends one server relays, one over UDP and one over TCP, is
// named by the two clients and both transports (before: the first leg's, "via TURN/UDP",
// on a call with a TCP leg).
func TestCallEnds(t *testing.T) {
	ra, rb := "203.0.113.7:50100", "203.0.113.7:50200"
	legs := map[string]*report.Leg{
		"l1": {ID: "l1", Transport: report.TransportTURNUDP, Client: "10.0.0.3:40000", Server: "203.0.113.7:3478", Relayed: &ra, Peers: []string{rb}},
		"l2": {ID: "l2", Transport: report.TransportTURNTCP, Client: "10.0.0.4:40000", Server: "203.0.113.7:3478", Relayed: &rb, Peers: []string{ra}},
		"l3": {ID: "l3", Transport: report.TransportUDP, Client: ra, Server: rb, Relayed: &rb, Peers: []string{ra}},
		"l4": {ID: "l4", Transport: report.TransportTURNTCP, Client: "10.0.0.5:40000", Server: "203.0.113.7:3478", Relayed: str("203.0.113.7:50300"), Peers: []string{"198.51.100.9:61000"}},
	}
	for _, tt := range []struct {
		ids  []string
		want string
	}{
		{[]string{"l1", "l2", "l3"}, "10.0.0.3 <-> 10.0.0.4 via TURN/UDP and TURN/TCP"},
		{[]string{"l4"}, "10.0.0.5 <-> 198.51.100.9 via TURN/TCP"},
		{[]string{"l3"}, "203.0.113.7 <-> 203.0.113.7 via UDP"},
	} {
		if got := callEnds(tt.ids, legs); got != tt.want {
			t.Errorf("callEnds(%q) = %q, want %q", tt.ids, got, tt.want)
		}
	}
}

// TestReceiverReportedLoss: a capture taken before the loss (at the sender) sees none, and
// its "loss 0%" would read as none at all where the receiver's RTCP reported 1%: the
// direction's loss line and the call's summary line say what the receiver reported.
func TestReceiverReportedLoss(t *testing.T) {
	r := threeCalls()
	c := &r.Captures[0]
	c.Streams = []report.Stream{{ID: "s1", Leg: "l1", Direction: "d1", Src: "10.0.0.1:5000", Dst: "10.0.0.9:6000",
		SSRC: "0x0000a1a1", Kind: "audio", Packets: 1400, Expected: 1400, Lost: i64(0), Extensions: report.Extensions{IDs: []int{}},
		Bitrate: report.Bitrate{SeriesKbps: []float64{}},
		RTCP:    &report.RTCP{Packets: 15, Types: map[string]int64{"rr": 15}, ReportedLost: i64(14), ReportedExpected: i64(1400)}}}
	c.Directions[0].Streams = []string{"s1"}
	c.Directions[0].Late.Pct, c.Directions[0].Late.Packets = 0, 0
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(l1)  1.0% lost by the receiver's RTCP",
		"loss 0% here, 1.0% (14 of 1,400) reported by the receiver",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
