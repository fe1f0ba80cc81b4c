package analysis

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/internal/testgen/callgen"
	"github.com/callpcap/callpcap/internal/testgen/schematest"
	"github.com/callpcap/callpcap/render"
	"github.com/callpcap/callpcap/report"
)

// keyframe is 13 video packets of 1,200 bytes within 1 ms (923 µs from the first to the
// last), from alice to bob: one frame sent in a burst.
func keyframe() callgen.Stream {
	return callgen.Stream{Src: alice, Dst: bob, SSRC: 0x5e6f7a8b, PT: 96, ClockRate: 90000,
		Interval: time.Millisecond / 13, PayloadSize: 1200, Count: 13, StartSeq: 100, StartTS: 9000}
}

// rates are the figures of a capture that divide by an active time.
type rates struct {
	Goodput, Wire *float64
	Ramp          bool // a ramp was reported
	Means         []*float64
	Warnings      []string
}

func ratesOf(c report.Capture) rates {
	if len(c.Directions) != 1 {
		return rates{Warnings: []string{"want one direction"}}
	}
	d := c.Directions[0]
	r := rates{Goodput: d.GoodputKbps, Wire: d.WireKbps, Ramp: d.Ramp != nil, Warnings: c.Warnings}
	for _, s := range c.Streams {
		r.Means = append(r.Means, s.Bitrate.MeanKbps)
	}
	return r
}

func kbps(v float64) *float64 { return &v }

// textOf renders the capture's text report.
func textOf(t *testing.T, c report.Capture) string {
	t.Helper()
	var b bytes.Buffer
	if err := render.Text(&b, schematest.Wrap(c)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRateOfABurst: 13 packets within 1 ms span no time a rate can be measured over. Before
// the rule the report said goodput 135,211.268 kbps (135 Mbps), wire 141,295.775 kbps and a
// ramp to a plateau of 124.8 kbps.
func TestRateOfABurst(t *testing.T) {
	s := keyframe()
	c := analyze(t, pcapOf(t, s.Packets()), Options{})
	want := rates{Means: []*float64{nil}, Warnings: []string{
		"10.0.0.1:40000 -> 198.51.100.9:50000: 13 packets within 0.9 ms: too short to measure a rate " +
			"(goodput, wire rate, ramp, jitter and delay are null)"}}
	if d := cmp.Diff(want, ratesOf(c)); d != "" {
		t.Errorf("rates (-want +got):\n%s", d)
	}
	if got := c.Directions[0].ActiveS; got != 0.000923 {
		t.Errorf("active %v s, want 0.000923", got)
	}
	if txt := textOf(t, c); !strings.Contains(txt, "  goodput n/a   wire n/a   efficiency") {
		t.Errorf("text report does not write the rates as n/a:\n%s", txt)
	}
}

// TestRateOfStrippedTiming: captures whose timestamps were stripped (all zero, or all the
// same) or rewritten to a counter have no time to measure a rate over. Before the rule the
// first two said goodput 0 and wire 0 kbps, as if measured, with a ramp to a 128 kbps
// plateau; the counter said goodput 1,292,929.293 kbps (1.29 Gbps) and wire 1.73 Gbps. Nor
// is there a time to measure jitter, delay or gaps over: null too.
func TestRateOfStrippedTiming(t *testing.T) {
	const atOnce = "10.0.0.1:40000 -> 198.51.100.9:50000: 100 packets at one capture time: " +
		"no time to measure a rate over (goodput, wire rate, ramp, jitter and delay are null)"
	for _, tc := range []struct {
		name string
		at   func(i int) int64 // the capture time of packet i
		warn string
	}{
		{"timestamps all zero", func(int) int64 { return 0 }, atOnce},
		{"timestamps all the same", func(int) int64 { return callgen.Epoch }, atOnce},
		{"timestamps a 1 µs counter", func(i int) int64 { return callgen.Epoch + int64(i)*1000 },
			"10.0.0.1:40000 -> 198.51.100.9:50000: 100 packets within 0.1 ms: too short to measure a rate " +
				"(goodput, wire rate, ramp, jitter and delay are null)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := audio()
			s.Count = 100
			pkts := s.Packets()
			for i := range pkts {
				pkts[i].T = tc.at(i)
			}
			c := analyze(t, pcapOf(t, pkts), Options{})
			want := rates{Means: []*float64{nil}, Warnings: []string{tc.warn}}
			if d := cmp.Diff(want, ratesOf(c)); d != "" {
				t.Errorf("rates (-want +got):\n%s", d)
			}
			// What does not divide by time is still there; the timing of arrivals that were
			// not timed is not (its jitter was the timestamps' own steps: 18.5 ms).
			if d := c.Directions[0]; d.MediaPackets != 100 || d.WireBytes != 100*(42+12+160) || d.Efficiency == nil ||
				d.DelayMS != nil || d.Late != nil {
				t.Errorf("direction counts: %d packets, %d bytes, efficiency %v, delay %+v late %+v", d.MediaPackets, d.WireBytes,
					d.Efficiency, d.DelayMS, d.Late)
			}
			if s := c.Streams[0]; s.JitterMS != nil || s.DelayMS != nil || s.Late != nil || s.MaxGapMS != nil || s.Packets != 100 {
				t.Errorf("stream: jitter %+v delay %+v late %+v max gap %v; want null timing", s.JitterMS, s.DelayMS, s.Late, s.MaxGapMS)
			}
		})
	}
}

// TestRateOfAShortCall: 2 s of audio at 50 packets/s keeps its exact rates: 100 payloads of
// 160 bytes over the 1.98 s from the first packet to the last, and 214-byte frames on the
// wire.
func TestRateOfAShortCall(t *testing.T) {
	s := audio()
	s.Count = 100
	c := analyze(t, pcapOf(t, s.Packets()), Options{})
	want := rates{Goodput: kbps(64.646), Wire: kbps(86.465), Ramp: true, Means: []*float64{kbps(64.646)},
		Warnings: nil} // none: the JSON writes an empty list as [] (report/json.go)
	if d := cmp.Diff(want, ratesOf(c)); d != "" {
		t.Errorf("rates (-want +got):\n%s", d)
	}
	if got, want := *want.Goodput, numfmt.Round(100*160*8e6/1.98e9, 3); got != want {
		t.Errorf("goodput %v, want %v by construction", got, want)
	}
	if txt := textOf(t, c); !strings.Contains(txt, "  goodput 65 kbps   wire 86 kbps   efficiency 75%") {
		t.Errorf("text report:\n%s", txt)
	}
}

// TestRateOfABurstInACall: a stream that is only a burst has no mean bitrate, and says so;
// its direction, which the call's audio spans over 1.98 s, keeps its rates, the burst's
// bytes included.
func TestRateOfABurstInACall(t *testing.T) {
	a := audio()
	a.Count = 100
	k := keyframe()
	k.Start = 500 * time.Millisecond
	c := analyze(t, pcapOf(t, append(a.Packets(), k.Packets()...)), Options{})
	goodput := numfmt.Round((100*160+13*1200)*8e6/1.98e9, 3)
	want := rates{Goodput: kbps(goodput), Wire: kbps(numfmt.Round((100*214+13*1254)*8e6/1.98e9, 3)), Ramp: true,
		Means: []*float64{kbps(64.646), nil}, Warnings: []string{
			"stream s2 (SSRC 0x5e6f7a8b, 10.0.0.1:40000 -> 198.51.100.9:50000): 13 packets within 0.9 ms: " +
				"too short to measure a rate (its mean bitrate is null)"}}
	if d := cmp.Diff(want, ratesOf(c)); d != "" {
		t.Errorf("rates (-want +got):\n%s", d)
	}
}

// TestStreamSeriesFromDirection: DESIGN's series run from the direction's first media
// packet, a stream's too, so that second i of each is the same second. A second stream that
// starts 2.5 s into its direction (160 bytes every 20 ms: 64 kbps; 100 packets) has two
// empty seconds first; before, its series started at its own first second, with nothing in
// the report to line it up.
func TestStreamSeriesFromDirection(t *testing.T) {
	a := audio() // 10 s from 0
	v := audio()
	v.SSRC, v.Start, v.Count, v.StartSeq = 0xBEEF, 2500*time.Millisecond, 100, 1
	c := analyze(t, pcapOf(t, append(a.Packets(), v.Packets()...)), Options{})
	if len(c.Directions) != 1 {
		t.Fatalf("%d directions", len(c.Directions))
	}
	want := map[string][]float64{
		"0x1a2b3c4d": {64, 64, 64, 64, 64, 64, 64, 64, 64, 64},
		"0x0000beef": {0, 0, 32, 64, 32},
	}
	for _, s := range c.Streams {
		if d := cmp.Diff(want[s.SSRC], s.Bitrate.SeriesKbps); d != "" {
			t.Errorf("stream %s series (-want +got):\n%s", s.SSRC, d)
		}
	}
}
