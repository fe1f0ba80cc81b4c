package render

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/testgen/golden"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/internal/testgen/textcheck"
	"github.com/callpcap/callpcap/report"
)

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }
func str(v string) *string   { return &v }
func boolp(v bool) *bool     { return &v }

// handMade is the report of DESIGN.md's example, built by hand: renderers must need nothing
// else. It is a whole report, as the JSON contract (report/schema.json) wants it: every list
// is there, empty or not.
func handMade() *report.Report {
	tcp := report.FramingTURN
	aToB := report.TCPDir{Vantage: "sender", Segments: 60000, DataSegments: 59000, PureAcks: 1000,
		WireBytes: 70000000, PayloadBytes: 66000000, StreamBytes: 65000000, RetransmittedSegments: 900,
		RetransmittedBytes: 1000000, UselessRetransmittedBytes: 600000, OutOfOrderSegments: 12,
		RTTMS:    &report.Quantiles{Samples: 5000, Min: 40.1, P50: 45, P95: 120, P99: 180, Max: 300},
		Messages: 58000, FramingBytes: 232000, HOLDelayedMessages: 700,
		HOLDelayMS: &report.Quantiles{Samples: 700, Min: 1, P50: 40, P95: 110, P99: 160, Max: 250}}
	return &report.Report{
		Schema:  report.Schema,
		Tool:    report.Tool{Name: "callpcap", Version: "0.1.0"},
		Options: report.Options{LateBudgetMS: 150, MinPackets: 10},
		Captures: []report.Capture{{
			File: "call.pcap", Format: "pcapng", Compression: "none", LinkTypes: []string{"LINUX_SLL"},
			Packets: 120345, WireBytes: 151234567, Start: str("2026-11-29T10:00:00.123456Z"), DurationS: new(93.2),
			Warnings: []string{},
			Flows: []report.Flow{{ID: "f1", Proto: "tcp", A: "10.0.0.1:51234", B: "203.0.113.7:443",
				FirstS: 0.01, LastS: 93.1, Packets: 90000, WireBytes: 80000000,
				Content: []string{"stun", "channeldata", "rtp"}, Framing: &tcp,
				TCP: &report.FlowTCP{HandshakeRTTMS: f64(41.2), AToB: aToB, BToA: report.TCPDir{Vantage: "unknown"}}}},
			Legs: []report.Leg{{ID: "l1", Transport: "turn-tcp", Client: "10.0.0.1:51234", Server: "203.0.113.7:443",
				Relayed: str("203.0.113.7:50012"), Peers: []string{"198.51.100.9:61000"}, Flows: []string{"f1"}}},
			Streams: []report.Stream{{ID: "s1", Leg: "l1", Direction: "d1", Src: "10.0.0.1:51234", Dst: "198.51.100.9:61000",
				SSRC: "0x1a2b3c4d", PayloadType: 96, Kind: "video", Packets: 23000, Expected: 23010, Lost: i64(10),
				LossPct: f64(0.043), Reordered: 3, Restarts: 2, JitterMS: &report.Jitter{Mean: 2.1, Max: 14.8, Last: 1.9},
				Extensions: report.Extensions{IDs: []int{}},
				Late:       &report.Late{BudgetMS: 150, Packets: 212, Pct: 0.92, HOLBlocked: 198},
				Bitrate:    report.Bitrate{SeriesKbps: []float64{}}}},
			Directions: []report.Direction{{ID: "d1", From: "10.0.0.1:51234", To: "198.51.100.9:61000",
				Legs: []string{"l1"}, Transport: "turn-tcp", Streams: []string{"s1"}, GoodputKbps: f64(2280), WireKbps: f64(2620),
				Efficiency: f64(0.87), Loss: report.Loss{Expected: 26010, Lost: 10, Pct: f64(0.038)},
				Late:                &report.Late{BudgetMS: 150, Packets: 212, Pct: 0.82, HOLBlocked: 198},
				DelayMS:             &report.Delay{Samples: 26000, P50: 4, P95: 60, P99: 140, Max: 420},
				TCPRetransmittedPct: f64(1.5),
				Ramp: &report.Ramp{TargetKbps: 2400, TargetSource: "plateau", PlateauKbps: 2400, T50S: f64(6),
					T90S: f64(28), Stable: boolp(true), CVAfterT90: f64(0.08)},
				Series: report.Series{StepS: 1, MediaKbps: []float64{0, 300, 800, 1200, 1600, 2000, 2300, 2400, 2400, 2350},
					WireKbps: []float64{}, RTXKbps: []float64{}, Lost: []int64{}, Late: []*int64{},
					RetransmittedKbps: []float64{}, DelayP50MS: []*float64{}, DelayMaxMS: []*float64{}}}},
			ICE: report.ICE{Checks: 40, Successes: 12, RTTMS: &report.Quantiles{Samples: 12, P50: 40},
				Ufrags: []string{}, Nominated: []string{}},
			TURN: report.TURN{Allocations: []report.Allocation{}, Errors: []report.TURNError{}},
			Findings: []report.Finding{{Code: "media_over_tcp", Severity: "warn",
				Text: "Media was relayed over TCP through TURN 203.0.113.7:443 (tcp): every loss on that path turns into delay."}},
		}},
	}
}

func TestTextGolden(t *testing.T) {
	textGolden(t, handMade(), "handmade")
}

// textGolden renders r as text, compares it with testdata/<name>.golden.txt, holds it to
// the text report's width, and returns it.
func textGolden(t *testing.T, r *report.Report, name string) string {
	t.Helper()
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", name+".golden.txt"), b.Bytes())
	textcheck.Width(t, b.String())
	return b.String()
}

// TestJSONRoundTrip: a report read back from JSON renders the same text.
func TestJSONRoundTrip(t *testing.T) {
	var j bytes.Buffer
	if err := JSON(&j, handMade()); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, j.Bytes())
	var back report.Report
	if err := json.Unmarshal(j.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	Text(&a, handMade())
	Text(&b, &back)
	if d := cmp.Diff(a.String(), b.String()); d != "" {
		t.Errorf("text differs after a JSON round trip:\n%s", d)
	}
	if !strings.Contains(j.String(), `"late_budget_ms": 150`) || !strings.Contains(j.String(), `"ramp_target_kbps": null`) {
		t.Errorf("JSON lacks the contract's option names:\n%s", j.String()[:300])
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 120345: "120,345", -1234567: "-1,234,567"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%d) = %q, want %q", in, got, want)
		}
	}
}

// TestUnmeasuredRates: a rate the capture could not measure (null) is n/a in a direction's
// block and "-" in the comparison, never 0.
func TestUnmeasuredRates(t *testing.T) {
	r := handMade()
	d := &r.Captures[0].Directions[0]
	d.GoodputKbps, d.WireKbps, d.Ramp = nil, nil, nil
	r.Comparison = &report.Comparison{Entries: []report.ComparisonEntry{{File: "burst.pcap",
		Direction: d.From + " -> " + d.To, Transport: d.Transport, Efficiency: d.Efficiency}}}
	var j bytes.Buffer
	if err := JSON(&j, r); err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, j.Bytes())
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n  goodput n/a   wire n/a   efficiency 87%\n",
		"\n  goodput                   -\n  wire rate                 -\n  efficiency              87%\n  ramp t50/t90              -\n",
		"\n  late packets              -\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// At a TURN server the ICE round trips cover one leg each: the text names them.
func TestICERTTLegsNamed(t *testing.T) {
	r := handMade()
	ice := &r.Captures[0].ICE
	q := func(ms float64) *report.Quantiles {
		return &report.Quantiles{Samples: 3, Min: ms, P50: ms, P95: ms, P99: ms, Max: ms}
	}
	ice.RTTMS = &report.Quantiles{Samples: 6, Min: 41.1, P50: 41.1, P95: 64.6, P99: 64.6, Max: 64.6}
	ice.RTTLegs = []report.ICERTTLeg{{Leg: "relay_peer", RTTMS: q(64.6)}, {Leg: "relay_client", RTTMS: q(41.1)}}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	// 102 columns on one line: the last leg goes to the next.
	want := "ICE  40 checks, 12 successes, 0 failures, RTT p50 41 ms (relay_peer p50 65 ms,\n  relay_client p50 41 ms)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
	textcheck.Width(t, b.String())
	// Markdown and HTML carry the same legs.
	wantLine := "ICE: 40 checks, 12 successes, 0 failures, RTT p50 41 ms p95 65 ms (relay_peer p50 65 ms, relay_client p50 41 ms)"
	var md, html bytes.Buffer
	if err := Markdown(&md, r, ""); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, r); err != nil {
		t.Fatal(err)
	}
	if w := strings.ReplaceAll(wantLine, "_", `\_`); !strings.Contains(md.String(), w) {
		t.Errorf("markdown lacks %q", w)
	}
	if !strings.Contains(html.String(), wantLine) {
		t.Errorf("html lacks %q", wantLine)
	}
}

// One named leg, and no RTT of this host's: its parentheses both stay (the opening one was
// lost when the leg was both the first and the last).
func TestICEOneUnknownLeg(t *testing.T) {
	r := handMade()
	ice := &r.Captures[0].ICE
	ice.Checks, ice.Successes, ice.RTTMS = 1, 1, nil
	ice.RTTLegs = []report.ICERTTLeg{{Leg: "unknown", RTTMS: &report.Quantiles{Samples: 1, Min: 0.71, P50: 0.71, P95: 0.71, P99: 0.71, Max: 0.71}}}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	if want := "ICE  1 check, 1 success, 0 failures (unknown p50 0.7 ms)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
}

func TestHTMLGolden(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, handMade()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "handmade.golden.html"), b.Bytes())
}

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, handMade(), "charts"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "handmade.golden.md"), b.Bytes())
}

// TestTURNRoutineAnswers: every format lists TURN's routine answers (the 401 challenge)
// apart from its refusals, so that the normal start of an allocation never reads as an
// error in one format and not in another.
func TestTURNRoutineAnswers(t *testing.T) {
	r := handMade()
	r.Captures[0].TURN.Errors = []report.TURNError{{Code: 401, Count: 2}, {Code: 403, Count: 1}}
	for name, out := range allFormats(t, r) {
		for _, want := range []string{"TURN errors: 403 Forbidden ×1", "TURN routine answers: 401 Unauthorized ×2 (the authentication challenge)"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(out, "TURN error 401") {
			t.Errorf("%s lists the 401 challenge as an error", name)
		}
	}
}

// TestSenderQueueing: a delay measured at the media's sender is named as the sender's
// queueing, with why no packet counts late, in every format.
func TestSenderQueueing(t *testing.T) {
	r := handMade()
	d := &r.Captures[0].Directions[0]
	d.DelayMS.Vantage, d.Late = "sender", nil
	for name, out := range allFormats(t, r) {
		if !strings.Contains(out, "queueing at the sender (captured there: no packet counts late)") {
			t.Errorf("%s does not say why no packet counts late", name)
		}
	}
}

// TestRelayFigures: a call direction relayed by the TURN server that captured it says, in
// every format, how many packets the relay passed, its latency, and where the others were
// lost; a direction without both legs seen says nothing of a relay.
func TestRelayFigures(t *testing.T) {
	r := handMade()
	for name, out := range allFormats(t, r) {
		if strings.Contains(out, "matched") {
			t.Errorf("%s speaks of a relay it has no figures of", name)
		}
	}
	r.Captures[0].Directions[0].Relay = &report.Relay{Matched: 25987, LostBeforeRelay: 3, LostAfterRelay: 10,
		LatencyMS: &report.Quantiles{Samples: 25987, Min: 0.2, P50: 0.4, P95: 2.5, P99: 12, Max: 48}}
	want := map[string]string{
		"text":     "  relay 25,987 matched   latency p50 0.4 ms, p95 2.5 ms, max 48 ms   lost 3 before it, 10 after\n",
		"markdown": "| relay | 25,987 matched; latency p50 0.4 ms, p95 2.5 ms, max 48 ms; lost 3 before it, 10 after |",
		"html":     "25,987 matched; latency p50 0.4 ms, p95 2.5 ms, max 48 ms; lost 3 before it, 10 after",
	}
	for name, out := range allFormats(t, r) {
		if !strings.Contains(out, want[name]) {
			t.Errorf("%s has no %q:\n%s", name, want[name], out)
		}
	}
}

// TestHeadCompression: every format's head names the compression around the capture.
func TestHeadCompression(t *testing.T) {
	r := handMade()
	r.Captures[0].Compression = "gzip"
	for name, out := range allFormats(t, r) {
		if !strings.Contains(out, "151.2 MB, 93 s, gzip") {
			t.Errorf("%s's head does not name gzip", name)
		}
	}
}

// allFormats renders r as text, Markdown and HTML, by format name.
func allFormats(t *testing.T, r *report.Report) map[string]string {
	t.Helper()
	var text, md, html bytes.Buffer
	for _, err := range []error{Text(&text, r), Markdown(&md, r, ""), HTML(&html, r)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()}
}
