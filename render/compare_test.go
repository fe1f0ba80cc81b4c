package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/callpcap/callpcap/charts"
	"github.com/callpcap/callpcap/report"
)

// twoRuns is two captures of one call, call-rtt50.pcap (media from 2 s of the capture, 500
// then 1,000 kbit/s) and call-rtt100.pcap (from 7.5 s, 300 then 900), each one direction.
func twoRuns() *report.Report {
	r := &report.Report{Comparison: &report.Comparison{}}
	for _, run := range []struct {
		file     string
		t0       float64
		low, top float64
	}{{"call-rtt50.pcap", 2, 500, 1000}, {"call-rtt100.pcap", 7.5, 300, 900}} {
		media := []float64{run.low, run.top, run.top, run.top}
		d := report.Direction{ID: "d1", From: "10.0.0.1:40000", To: "198.51.100.9:50000", Transport: report.TransportUDP,
			GoodputKbps: f64(run.top), Series: report.Series{T0S: run.t0, StepS: 1, MediaKbps: media}}
		r.Captures = append(r.Captures, report.Capture{File: run.file, Format: "pcap", Directions: []report.Direction{d}})
		r.Comparison.Entries = append(r.Comparison.Entries, report.ComparisonEntry{File: run.file,
			Direction: "10.0.0.1:40000 -> 198.51.100.9:50000", Transport: report.TransportUDP, GoodputKbps: f64(run.top)})
	}
	return r
}

// TestHTMLComparisonFirst: with several captures the page opens with the comparison, one
// column per capture labelled by the part of the names that differs, and the captures' ramps
// on one chart.
func TestHTMLComparisonFirst(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, twoRuns()); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	cmp, first := strings.Index(s, "<h1>Comparison</h1>"), strings.Index(s, "<h1>call-rtt50.pcap</h1>")
	if cmp < 0 || first < 0 || cmp > first {
		t.Fatalf("comparison at %d, first capture at %d: want the comparison first", cmp, first)
	}
	for _, want := range []string{
		`<th colspan="1" class="center">rtt50</th><th colspan="1" class="center">rtt100</th>`,
		"<tr><th>goodput</th><td class=\"num\">1.00 Mbps</td><td class=\"num\">900 kbps</td></tr>",
		">rtt50</text>", ">rtt100</text>", "media bitrate (Mbit/s)", "seconds since each direction&#39;s first media packet",
	} {
		if !strings.Contains(s[cmp:first], want) {
			t.Errorf("comparison lacks %q:\n%s", want, s[cmp:first])
		}
	}
	if _, ok := RampsChart(twoRuns()); !ok {
		t.Error("no ramps chart for --charts")
	}
}

// TestMarkdownComparisonFirst: the Markdown report opens with the comparison too, its
// columns "rtt50 1" and "rtt100 1", and links the ramps chart.
func TestMarkdownComparisonFirst(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, twoRuns(), "charts"); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{
		"## Comparison\n\n- **rtt50** call-rtt50.pcap\n  1. 10.0.0.1:40000 -\\> 198.51.100.9:50000\n",
		"|  | rtt50 1 | rtt100 1 |\n",
		"](charts/comparison-ramps.png)\n\n## call-rtt50.pcap\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, s)
		}
	}
}

// TestRampsChartTakesTheBusiestDirection: a capture at a caller sees the callee's audio
// first; the ramps chart draws each capture's busiest direction (its video), not its first:
// the same SVG as the chart of the two video directions alone.
func TestRampsChartTakesTheBusiestDirection(t *testing.T) {
	r := &report.Report{Comparison: &report.Comparison{}}
	var video []*report.Direction
	files := []string{"s1-caller.pcap", "s4-caller.pcap"}
	for i, file := range files {
		audio := report.Direction{ID: "d1", From: "10.10.2.2:5000", To: "10.10.1.2:6000", MediaPayloadBytes: 250_000,
			Series: report.Series{T0S: 1, StepS: 1, MediaKbps: []float64{28, 28, 28, 28}}}
		v := report.Direction{ID: "d2", From: "10.10.1.2:6000", To: "10.10.2.2:5000", MediaPayloadBytes: 20_000_000,
			Series: report.Series{T0S: 1.2, StepS: 1, MediaKbps: []float64{900, 1800 - 400*float64(i), 2500, 2500}}}
		r.Captures = append(r.Captures, report.Capture{File: file, Format: "pcap", Directions: []report.Direction{audio, v}})
		for _, d := range []report.Direction{audio, v} {
			r.Comparison.Entries = append(r.Comparison.Entries, report.ComparisonEntry{File: file, Direction: d.From + " -> " + d.To})
		}
	}
	for i := range r.Captures {
		video = append(video, &r.Captures[i].Directions[1])
	}
	got, ok := RampsChart(r)
	if !ok {
		t.Fatal("no ramps chart")
	}
	labels, _ := captureLabels(files, compareLabelWidth)
	want, _ := charts.Ramps(labels, video)
	var g, w bytes.Buffer
	if err := got.SVG(&g); err != nil {
		t.Fatal(err)
	}
	if err := want.SVG(&w); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g.Bytes(), w.Bytes()) {
		t.Error("the ramps chart is not the chart of the two video directions")
	}
}

// TestComparisonSameFileTwice: a.pcap given twice, with b.pcap between them or after them,
// one direction each: three captures, labelled A, B and C (their names do not tell them
// apart), each over its own column, in every format. Before, grouped by file name: "a" over
// two columns, "b" over one, while the columns held a, b, a (h141); then, by runs of one
// file, the two a.pcap side by side were one capture (h143).
func TestComparisonSameFileTwice(t *testing.T) {
	for _, files := range [][]string{{"a.pcap", "b.pcap", "a.pcap"}, {"a.pcap", "a.pcap", "b.pcap"}} {
		r := &report.Report{Comparison: &report.Comparison{}}
		for i, f := range files {
			d := report.Direction{ID: "d1", From: "10.0.0.1:40000", To: "198.51.100.9:50000", Transport: report.TransportUDP,
				GoodputKbps: f64(float64(100 * (i + 1)))}
			r.Captures = append(r.Captures, report.Capture{File: f, Format: "pcap", Directions: []report.Direction{d}})
			r.Comparison.Entries = append(r.Comparison.Entries, report.ComparisonEntry{File: f,
				Direction: "10.0.0.1:40000 -> 198.51.100.9:50000", Transport: report.TransportUDP, GoodputKbps: f64(float64(100 * (i + 1)))})
		}
		var h, m, x bytes.Buffer
		if err := HTML(&h, r); err != nil {
			t.Fatal(err)
		}
		if err := Markdown(&m, r, ""); err != nil {
			t.Fatal(err)
		}
		if err := Text(&x, r); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string][]string{
			"html":     {`<th colspan="1" class="center">A</th><th colspan="1" class="center">B</th><th colspan="1" class="center">C</th>`},
			"markdown": {"- **C** " + files[2], "| A 1 | B 1 | C 1 |"},
			"text":     {"  C  " + files[2]},
		} {
			out := map[string]string{"html": h.String(), "markdown": m.String(), "text": x.String()}[name]
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("%q: %s lacks %q", files, name, w)
				}
			}
		}
	}
}
