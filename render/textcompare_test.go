package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/textcheck"
	"github.com/callpcap/callpcap/report"
)

func TestCaptureLabels(t *testing.T) {
	for _, tc := range []struct {
		name        string
		files       []string
		want        []string
		wantIndexed bool
	}{
		{"letters before a shared tail", []string{"A-turn-tcp-rtt100-caller.pcap.gz", "B-turn-tcp-rtt100-caller.pcap.gz",
			"C-turn-tcp-rtt100-caller.pcap.gz", "D-turn-tcp-rtt100-caller.pcap.gz"}, []string{"A", "B", "C", "D"}, false},
		{"whole words, not characters", []string{"runs/call-rtt50.pcap", "runs/call-rtt100.pcap"}, []string{"rtt50", "rtt100"}, false},
		{"several words differ", []string{"A-turn-tcp-rtt100-caller.pcap.gz", "B-turn-udp-rtt100-caller.pcap.gz"},
			[]string{"A-turn-tcp", "B-turn-udp"}, false},
		{"an extension differs", []string{"call.pcap", "call.pcapng"}, []string{"pcap", "pcapng"}, false},
		{"too wide for a column", []string{"x-office-wifi-evening.pcap", "x-home-fibre-morning.pcap"}, []string{"A", "B"}, true},
		{"one name holds the other", []string{"call.pcap", "call.pcap.gz"}, []string{"A", "B"}, true},
		{"the same file twice", []string{"call.pcap", "call.pcap"}, []string{"A", "B"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, indexed := captureLabels(tc.files, compareLabelWidth)
			if d := cmp.Diff(tc.want, got); d != "" || indexed != tc.wantIndexed {
				t.Errorf("captureLabels(%q) = %q, indexed %v; want indexed %v (-want +got):\n%s", tc.files, got, indexed, tc.wantIndexed, d)
			}
		})
	}
	if got := indexLabels(28); got[0] != "A" || got[25] != "Z" || got[26] != "AA" || got[27] != "AB" {
		t.Errorf("indexLabels(28) = %q, want A … Z, AA, AB", got)
	}
}

// fourCaptures is the comparison of four runs of one call, named A-…-rtt100-caller.pcap.gz to
// D-…: before, every column read "…p-rtt100-caller.pcap.gz".
func fourCaptures() *report.Report {
	type run struct {
		goodput, wire, eff, t50, t90, loss, retx, latePct, p95 float64
		late                                                   int64
		transport                                              report.Transport
		stable                                                 bool
	}
	runs := []run{
		{899, 1060, 0.85, 0, 0, 0, 1.0, 15, 260, 440, report.TransportTURNTCP, true},
		{1060, 1150, 0.93, 4, 7, 0.4, 0, 0, 12, 0, report.TransportTURNUDP, true},
		{2280, 2620, 0.87, 6, 28, 0.04, 1.5, 0.82, 60, 212, report.TransportTURNTCP, false},
		{633, 698, 0.91, 0, 0, 0, 0, 0, 0, 0, report.TransportUDP, true},
	}
	cmpr := &report.Comparison{}
	for i, r := range runs {
		file := string(rune('A'+i)) + "-turn-call-rtt100-caller.pcap.gz"
		for j, dir := range []string{"10.0.0.1:40000 -> 198.51.100.9:50000", "198.51.100.9:50000 -> 10.0.0.1:40000"} {
			e := report.ComparisonEntry{File: file, Direction: dir, Transport: r.transport,
				GoodputKbps: f64(r.goodput - float64(j)*100), WireKbps: f64(r.wire - float64(j)*100), Efficiency: f64(r.eff),
				T50S: f64(r.t50), T90S: f64(r.t90), Stable: boolp(r.stable), RTPLossPct: f64(r.loss),
				LatePackets: i64(r.late), LatePct: f64(r.latePct), DelayP95MS: f64(r.p95)}
			if r.transport.OverTCP() {
				e.TCPRetransmittedPct = f64(r.retx)
			}
			cmpr.Entries = append(cmpr.Entries, e)
		}
	}
	// What could not be measured: no rate, no ramp, no delay.
	last := &cmpr.Entries[len(cmpr.Entries)-1]
	last.GoodputKbps, last.WireKbps, last.T50S, last.T90S, last.Stable, last.LatePackets, last.LatePct, last.DelayP95MS = nil, nil, nil, nil, nil, nil, nil, nil
	return &report.Report{Comparison: cmpr}
}

// TestTextComparison: four captures named alike but for their first letter are columns A to
// D (their directions 1 and 2), in tables that fit 100 columns, with a legend of full names.
func TestTextComparison(t *testing.T) {
	text := textGolden(t, fourCaptures(), "comparison4")
	for _, want := range []string{
		"\n  A  A-turn-call-rtt100-caller.pcap.gz\n       1  10.0.0.1:40000 -> 198.51.100.9:50000\n",
		"\n  capture                     A           A           B           B           C           C\n",
		"\n  capture                     D           D\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("comparison lacks %q:\n%s", want, text)
		}
	}
}

// TestTextComparisonManyCaptures: at any number of captures no line passes 100 columns, and
// names too long to be labels fall back to letters.
func TestTextComparisonManyCaptures(t *testing.T) {
	r := fourCaptures()
	var entries []report.ComparisonEntry
	for i := range 30 {
		e := r.Comparison.Entries[i%len(r.Comparison.Entries)]
		n := fmt.Sprint(i + 1)
		e.File = strings.Repeat("very-long-directory-name/", 3) + "call-" + n + "-on-the-office-network-" + n + ".pcapng.zst"
		entries = append(entries, e)
	}
	r.Comparison.Entries = entries
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	textcheck.Width(t, b.String())
	for _, want := range []string{"\n  AD  …very-long-directory-name/very-long-directory-name/call-30-on-the-office-network-30.pcapng.zst\n",
		"\n  capture                     Y           Z          AA          AB          AC          AD\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q (the last captures, by letter, the legend's name cut from the left):\n%s", want, b.String())
		}
	}
}

// TestTextComparisonIPv6: a direction between two IPv6 endpoints is wider than the page
// beside its legend's indent: it is written one endpoint a line. Before, its line ran to
// 114 columns.
func TestTextComparisonIPv6(t *testing.T) {
	r := fourCaptures()
	const from, to = "[fd12:3456:789a:bcde:f012:3456:789a:bcd1]:40000", "[2001:db8:1111:2222:3333:4444:5555:6669]:50000"
	r.Comparison.Entries[0].Direction = from + " -> " + to
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	textcheck.Width(t, b.String())
	if want := "       1  " + from + " ->\n             " + to + "\n"; !strings.Contains(b.String(), want) {
		t.Errorf("comparison lacks %q:\n%s", want, b.String())
	}
}
