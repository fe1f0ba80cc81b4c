package rtpflow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/internal/numfmt"
	"github.com/callpcap/callpcap/report"
)

// pcmu is a 20 ms PCMU stream: packet i has sequence number seq0+i, timestamp ts0+160·i and
// arrives at T0 + i·20 ms + delay(i).
func pcmu(n int, seq0 uint16, ts0 uint32, skip func(i int) bool, delay func(i int) int64) []arrival {
	var as []arrival
	for i := 0; i < n; i++ {
		if skip != nil && skip(i) {
			continue
		}
		b := rp{pt: 0, seq: seq0 + uint16(i), ts: ts0 + uint32(160*i), ssrc: 0xA1, payload: make([]byte, 160)}.bytes()
		at := T0 + int64(i)*20*ms1
		if delay != nil {
			at += delay(i)
		}
		as = append(as, arrival{pathA, msg(b, at)})
	}
	return as
}

func TestStreamLossPattern(t *testing.T) {
	tr := NewTracker(Config{})
	missing := func(i int) bool { return i == 10 || i == 11 || (i >= 500 && i <= 504) }
	feed(t, tr, pcmu(1000, 0, 1000, missing, nil))
	s := only(t, tr)

	// Seconds 0..19 hold 50 packets each, less the missing ones.
	series := make([]float64, 20)
	for i := 0; i < 1000; i++ {
		if !missing(i) {
			series[i/50] += 160 * 8 / 1000.0
		}
	}
	for i := range series {
		series[i] = numfmt.Round(series[i], 3)
	}
	want := report.Stream{
		Src: "10.0.0.1:5000", Dst: "198.51.100.9:6000", SSRC: "0x000000a1",
		PayloadType: 0, Kind: "audio", Codec: str("PCMU"), ClockRate: intp(8000),
		FirstS: 0, LastS: 19.98,
		Packets: 993, PayloadBytes: 993 * 160, HeaderBytes: 993 * 12, PaddingBytes: i64(0), PaddingPackets: i64(0),
		Expected: 1000, Lost: i64(7), LossPct: f64(0.7),
		JitterMS:   &report.Jitter{},
		MaxGapMS:   f64(120),
		Extensions: report.Extensions{IDs: []int{}},
		DelayMS:    &report.Delay{Reference: "rtp_timestamp", Samples: 993},
		Late: &report.Late{BudgetMS: 150, OverMS: map[string]int64{
			"50": 0, "100": 0, "200": 0, "400": 0, "1000": 0}},
		Bitrate: report.Bitrate{MeanKbps: f64(numfmt.Round(993*160*8e6/19.98e9, 3)), SeriesKbps: series},
	}
	if diff := cmp.Diff(want, s.Summary(T0)); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}

	dm := tr.Direction([]*Stream{s}, T0)
	wantLost := make([]int64, 20)
	wantLost[0], wantLost[10] = 2, 5
	if diff := cmp.Diff(wantLost, dm.Series.Lost); diff != "" {
		t.Errorf("lost series (-want +got):\n%s", diff)
	}
	if dm.Loss.Expected != 1000 || dm.Loss.Lost != 7 || *dm.Loss.Pct != 0.7 {
		t.Errorf("direction loss %+v", dm.Loss)
	}
	if dm.MediaPackets != 993 || dm.MediaPayloadBytes != 993*160 {
		t.Errorf("direction media %d packets %d bytes", dm.MediaPackets, dm.MediaPayloadBytes)
	}
	w := dm.Wire
	if w.Total != 993*(172+udpHeaders) || w.RTPBytes != w.MediaPayloadBytes+w.RTXPayloadBytes+w.RTPHeaderBytes+w.PaddingBytes+w.DuplicateBytes {
		t.Errorf("wire totals %+v", w)
	}
}

func TestStreamDuplicatesReorderWrap(t *testing.T) {
	// 200 packets from sequence number 65500 (wraps after 36) and timestamp 2^32−4000 (wraps
	// after 25 packets). Packet 100 is sent twice, packet 150 three times; 60 and 61 swap
	// arrival slots.
	var as []arrival
	const ts0 = uint32(1<<32 - 4000)
	var ats []int64
	var tss []uint32
	for i := 0; i < 200; i++ {
		slot := i
		switch i {
		case 60:
			slot = 61
		case 61:
			slot = 60
		}
		at := T0 + int64(slot)*20*ms1
		ts := ts0 + uint32(160*i)
		b := rp{pt: 8, seq: 65500 + uint16(i), ts: ts, ssrc: 7, payload: make([]byte, 160)}.bytes()
		copies := 1
		switch i {
		case 100:
			copies = 2
		case 150:
			copies = 3
		}
		for c := 0; c < copies; c++ {
			as = append(as, arrival{pathA, msg(b, at+int64(c)*ms1)})
		}
	}
	tr := NewTracker(Config{})
	feed(t, tr, as)
	for _, a := range as { // arrival order as fed (feed sorts stably)
		ats = append(ats, a.m.Delivered)
		tss = append(tss, uint32(a.m.Payload[4])<<24|uint32(a.m.Payload[5])<<16|uint32(a.m.Payload[6])<<8|uint32(a.m.Payload[7]))
	}
	s := only(t, tr)
	got := s.Summary(T0)
	if got.Packets != 203 || got.Expected != 200 || *got.Lost != 0 || got.Duplicates != 3 || got.Reordered != 1 {
		t.Errorf("packets %d expected %d lost %d dup %d reordered %d, want 203 200 0 3 1",
			got.Packets, got.Expected, *got.Lost, got.Duplicates, got.Reordered)
	}
	mean, mx, last := rfcJitter(ats, tss, 8000)
	want := &report.Jitter{Mean: numfmt.Round(mean, 3), Max: numfmt.Round(mx, 3), Last: numfmt.Round(last, 3)}
	if diff := cmp.Diff(want, got.JitterMS); diff != "" {
		t.Errorf("jitter (-want +got):\n%s", diff)
	}
	if got.Codec == nil || *got.Codec != "PCMA" {
		t.Errorf("codec %v", got.Codec)
	}
	// Duplicates are whole packets in the wire split and not in the media series.
	w := s.Wire()
	if w.DuplicatePackets != 3 || w.DuplicateBytes != 3*172 || w.MediaPayloadBytes != 200*160 {
		t.Errorf("wire %+v", w)
	}
}

func TestJitterAlternating(t *testing.T) {
	// Arrivals alternate +10 ms and −10 ms around a 20 ms grid: every |D| is 20 ms = 160
	// units at 8 kHz, so J_n = 160·(1 − (15/16)^n).
	const n = 500
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(n, 100, 0, nil, func(i int) int64 {
		if i%2 == 1 {
			return 10 * ms1
		}
		return -10 * ms1
	}))
	got := only(t, tr).Summary(T0).JitterMS
	var j, sum, mx float64
	f := 1.0
	for k := 1; k < n; k++ {
		f *= 15.0 / 16
		j = 160 * (1 - f)
		sum += j
		mx = max(mx, j)
	}
	want := &report.Jitter{Mean: numfmt.Round(sum/(n-1)/8, 3), Max: numfmt.Round(mx/8, 3), Last: numfmt.Round(j/8, 3)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("jitter (-want +got):\n%s", diff)
	}
}

func TestClockRateInference(t *testing.T) {
	tests := []struct {
		name     string
		pt       uint8
		tsStep   uint32
		interval int64
		size     int
		clock    int
		kind     string
	}{
		{"opus 48000", 111, 960, 20 * ms1, 80, 48000, "audio"},
		{"video 90000", 96, 3000, 33333333, 1000, 90000, "video"},
		{"wideband 16000", 100, 320, 20 * ms1, 60, 16000, "audio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			var as []arrival
			for i := 0; i < 300; i++ {
				b := rp{pt: tt.pt, seq: uint16(i), ts: 12345 + tt.tsStep*uint32(i), ssrc: 9, payload: make([]byte, tt.size)}.bytes()
				as = append(as, arrival{pathA, msg(b, T0+int64(i)*tt.interval)})
			}
			feed(t, tr, as)
			got := only(t, tr).Summary(T0)
			if got.ClockRate == nil || *got.ClockRate != tt.clock || !got.ClockRateInferred || got.Kind != tt.kind || got.Codec != nil {
				t.Errorf("clock %v inferred %v kind %s codec %v", got.ClockRate, got.ClockRateInferred, got.Kind, got.Codec)
			}
			if got.JitterMS == nil || got.JitterMS.Max > 0.01 {
				t.Errorf("jitter %+v", got.JitterMS)
			}
		})
	}
}

// TestFalseStreams: payloads that pass the RTP header check but are not RTP must not
// become streams.
func TestFalseStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tr := NewTracker(Config{})
	fixed := NewTracker(Config{})
	for i := 0; i < 5000; i++ {
		b := make([]byte, 20+r.IntN(1000))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		b[0] = 0x80 | b[0]&0x0f // version 2, no padding or extension
		m := msg(b, T0+int64(i)*ms1)
		rtpTo(tr, nil, pathA, m)
		// The same random datagrams, with bytes 8-11 fixed: one SSRC, random sequence numbers.
		b[8], b[9], b[10], b[11] = 1, 2, 3, 4
		rtpTo(fixed, nil, pathA, m)
	}
	if n := len(tr.Streams()); n != 0 {
		t.Errorf("random payloads gave %d streams", n)
	}
	if n := len(fixed.Streams()); n != 0 {
		t.Errorf("fixed SSRC, random sequence gave %d streams", n)
	}
}

// TestMaxStreams: beyond the cap, new streams are counted, not tracked; candidates that
// never qualify make room.
func TestMaxStreams(t *testing.T) {
	tr := NewTracker(Config{MaxStreams: 8})
	for i := 0; i < 100; i++ {
		b := rp{pt: 0, seq: 1, ssrc: uint32(1000 + i), payload: make([]byte, 10)}.bytes()
		rtpTo(tr, nil, pathA, msg(b, T0+int64(i)*ms1))
	}
	if len(tr.streams) > 8 {
		t.Fatalf("%d candidates tracked, cap 8", len(tr.streams))
	}
	c := tr.Counts()
	if c.Untracked+c.Evicted == 0 {
		t.Errorf("counts %+v", c)
	}
	// A real stream still gets in once the single-packet candidates are swept.
	feed(t, tr, pcmu(50, 0, 0, nil, func(int) int64 { return 3 * 1e9 }))
	if n := len(tr.Streams()); n != 1 {
		t.Errorf("%d streams, want 1", n)
	}
	// Whether evicted, refused or left a candidate, each of the 100 single packets (12 + 10
	// bytes of RTP) carried path A: Unreported has them all, and nothing of the stream.
	want := Carried{Messages: 100, Total: 100 * (22 + udpHeaders), Headers: 100 * udpHeaders, RTPBytes: 100 * 22}
	got := tr.Unreported()
	if d := cmp.Diff(map[Path]Carried{pathA: want}, got); d != "" {
		t.Errorf("unreported (-want +got):\n%s", d)
	}
}

func TestClockRateAfterBurst(t *testing.T) {
	// Opus (PT 111): 6 s of audio delivered in a 150 ms burst (a TCP backlog), then 20 ms
	// packets. The early packets cannot tell the clock; the steady ones can.
	var as []arrival
	for i := 0; i < 800; i++ {
		at := T0 + int64(i)*ms1/2
		if i >= 300 {
			at = T0 + 150*ms1 + int64(i-300)*20*ms1
		}
		b := rp{pt: 111, seq: uint16(i), ts: uint32(960 * i), ssrc: 5, payload: make([]byte, 80)}.bytes()
		as = append(as, arrival{pathA, msg(b, at)})
	}
	tr := NewTracker(Config{})
	feed(t, tr, as)
	got := only(t, tr).Summary(T0)
	if got.ClockRate == nil || *got.ClockRate != 48000 || !got.ClockRateInferred || got.JitterMS == nil || got.Kind != "audio" {
		t.Errorf("clock %v inferred %v jitter %v kind %s", got.ClockRate, got.ClockRateInferred, got.JitterMS, got.Kind)
	}
}

// TestClockRateAfterQueue: Opus (PT 111, no SDP, 1,000 packets sent 20 ms apart) whose
// first packets met a queue that built up and drained:
//   - to 600 ms over the first 20 (arriving 50 ms apart), drained by 1.6 s: the first
//     second reads 19.2 kHz and the next a faster clock (before, 16 kHz was taken at 1 s,
//     and every delay read 0);
//   - by 4 ms a packet over the first 60 (to 240 ms, 1.2 s), drained by 1.7 s (h137's
//     c26): an even build-up reads a steady 39.8 kHz, 10% from 44.1 kHz, which was taken.
//
// No rate fits until the queue has drained, and the decision waits for one that does.
func TestClockRateAfterQueue(t *testing.T) {
	for _, tc := range []struct {
		name        string
		build, step int64 // packets that met the growing queue, and what each added (ms)
		maxMS       float64
	}{
		{"fast", 20, 30, 600},
		{"even", 60, 4, 240},
	} {
		var as []arrival
		top := tc.build * tc.step
		for i := int64(0); i < 1000; i++ {
			at := i * 20 // sent
			switch q := top - (i-tc.build)*10; {
			case i <= tc.build:
				at += i * tc.step
			case q > 0:
				at += q // draining 10 ms a packet
			}
			b := rp{pt: 111, seq: uint16(i), ts: uint32(960 * i), ssrc: 5, payload: make([]byte, 80)}.bytes()
			as = append(as, arrival{pathA, msg(b, T0+at*ms1)})
		}
		tr := NewTracker(Config{})
		feed(t, tr, as)
		got := only(t, tr).Summary(T0)
		if deref(got.ClockRate) != 48000 || got.DelayMS == nil || got.DelayMS.Max < tc.maxMS-10 || got.DelayMS.Max > tc.maxMS+10 {
			t.Errorf("%s: clock %d, delay %+v; want 48000, a max of %v ms", tc.name, deref(got.ClockRate), got.DelayMS, tc.maxMS)
		}
	}
}

// TestClockRate44Or48: 44.1 and 48 kHz are 9% apart. A 48 kHz stream whose queue grew by
// 100 ms through its first second and stayed, and a 44.1 kHz one whose 100 ms queue drained
// through its first second (h142), 30 s each, read the other rate over the first second,
// steadily; the decision waits out the early packets' span (5 s) and takes the right one.
func TestClockRate44Or48(t *testing.T) {
	for _, tc := range []struct {
		clock int
		queue func(i int64) int64 // ms of queue met by packet i (20 ms apart)
	}{
		{48000, func(i int64) int64 { return min(i, 50) * 2 }},
		{44100, func(i int64) int64 { return 100 - min(i, 50)*2 }},
	} {
		var as []arrival
		for i := int64(0); i < 1500; i++ {
			b := rp{pt: 111, seq: uint16(i), ts: uint32(int64(tc.clock) / 50 * i), ssrc: 5, payload: make([]byte, 80)}.bytes()
			as = append(as, arrival{pathA, msg(b, T0+(i*20+tc.queue(i))*ms1)})
		}
		tr := NewTracker(Config{})
		feed(t, tr, as)
		if got := only(t, tr).Summary(T0); deref(got.ClockRate) != tc.clock || got.Late == nil || got.Late.Packets != 0 {
			t.Errorf("%d Hz: clock %d, late %+v; want %d, none late", tc.clock, deref(got.ClockRate), got.Late, tc.clock)
		}
	}
}

// TestClockRateFromAbsSendTime: TestClockRateAfterQueue's Opus with abs-send-time (id 3,
// sent every 20 ms from 10 s): the clock is taken on abs-send-time once it is found,
// against the sender's own sending, which no queue skews.
func TestClockRateFromAbsSendTime(t *testing.T) {
	var as []arrival
	for i := 0; i < 1000; i++ {
		var at int64
		switch {
		case i <= 20:
			at = int64(i) * 50 * ms1
		case i <= 80:
			at = 1000*ms1 + int64(i-20)*10*ms1
		default:
			at = int64(i) * 20 * ms1
		}
		b := rp{pt: 111, seq: uint16(i), ts: uint32(960 * i), ssrc: 5, extProfile: profileOneByte,
			ext: oneByte(el{3, u24(astAt(10 + float64(i)*0.02))}), payload: make([]byte, 80)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+at)})
	}
	tr := NewTracker(Config{})
	feed(t, tr, as)
	got := only(t, tr).Summary(T0)
	// The same stream cut after 70 packets, its queue not quite drained (100 ms left): from
	// the arrivals the clock read 44.1 kHz; from abs-send-time, 48 kHz.
	trShort := NewTracker(Config{})
	feed(t, trShort, as[:70])
	if c := only(t, trShort).Summary(T0).ClockRate; c == nil || *c != 48000 {
		t.Errorf("cut short: clock %d, want 48000", deref(c))
	}
	if got.ClockRate == nil || *got.ClockRate != 48000 || got.Extensions.AbsSendTimeID == nil || got.DelayMS == nil ||
		got.DelayMS.Reference != "abs_send_time" || got.DelayMS.Max < 590 || got.DelayMS.Max > 610 {
		t.Errorf("clock %v, abs-send-time %v, delay %+v; want 48000, 3, a max of 600 ms on abs-send-time",
			deref(got.ClockRate), deref(got.Extensions.AbsSendTimeID), got.DelayMS)
	}
}

// TestMoreStreamsThanTheTable: 200 SSRCs sending at once, each packet of one after a
// packet of every other (round robin, 20 rounds, 100 µs apart), into a table of 40. Each
// SSRC's second packet comes 199 packets after its first; when the table was full, a sweep
// dropped every single-packet candidate, so none ever had two, and no stream qualified (a
// sweep of the oldest quarter does no better: their turn comes round first). A sweep now
// drops the newest quarter: the older ones keep their place, get a second packet, are
// spared from then on, and qualify; the rest are counted (Counts).
func TestMoreStreamsThanTheTable(t *testing.T) {
	tr := NewTracker(Config{MaxStreams: 40})
	var as []arrival
	for round := range 20 {
		for k := range 200 {
			b := rp{pt: 0, seq: uint16(100 + round), ts: uint32(160 * round), ssrc: uint32(0x1000 + k), payload: make([]byte, 160)}.bytes()
			as = append(as, arrival{pathA, msg(b, T0+int64(round*200+k)*100_000)})
		}
	}
	feed(t, tr, as)
	ss := tr.Streams()
	c := tr.Counts()
	var pk int64
	for _, s := range ss {
		pk += s.Wire().Messages
	}
	// 30 SSRCs keep their place from the first round and qualify, all 20 packets each; of
	// the 4,000 packets, 1,700 were of candidates dropped, 1,690 refused while the table was
	// full of candidates just swept in, and 10 are of the last, left candidates at the end.
	if len(ss) != 30 || pk != 600 || c.Untracked != 1690 || c.Evicted != 1700 {
		t.Errorf("%d streams of %d packets, untracked %d, evicted %d; want 30 of 600, 1690, 1700",
			len(ss), pk, c.Untracked, c.Evicted)
	}
}

// TestTimestampStepBack: a PCMU sender steps its RTP clock back (or ahead) at packet 100,
// the sequence numbers going on and every packet arriving on its 20 ms grid. Nothing was
// delayed: the step rebases the delay, so that no frame after it is skipped as a B-frame
// nor read late by the look-back that ends the stream (2 s back read 150 of 400 late;
// 500 ms back, 50). Jitter takes the step in, as RFC 3550 A.8 and tshark do: its maximum is
// the step's sixteenth. A video frame's timestamp going back less than maxBFrameBack is a
// B-frame's: left out.
func TestTimestampStepBack(t *testing.T) {
	stream := func(n int, pt uint8, tick uint32, back func(i int) uint32) []arrival {
		var as []arrival
		for i := range n {
			b := rp{pt: pt, seq: uint16(i), ts: 1_000_000 + tick*uint32(i) - back(i), ssrc: 0xA1, payload: make([]byte, 160)}.bytes()
			as = append(as, arrival{pathA, msg(b, T0+int64(i)*20*ms1)})
		}
		return as
	}
	for _, c := range []struct {
		name        string
		pt          uint8
		tick        uint32
		back        func(i int) uint32
		samples     int64
		max         float64
		late, skips int64
	}{
		{"audio back 2 s", 0, 160, func(i int) uint32 { return 16000 * uint32(min(1, i/100)) }, 400, 0, 0, 0},
		{"audio back 500 ms", 0, 160, func(i int) uint32 { return 4000 * uint32(min(1, i/100)) }, 400, 0, 0, 0},
		{"audio back 40 ms", 0, 160, func(i int) uint32 { return 320 * uint32(min(1, i/100)) }, 400, 0, 0, 0},
		{"audio ahead 2 s", 0, 160, func(i int) uint32 { return uint32(-16000 * min(1, i/100)) }, 400, 0, 0, 0},
		// One frame in four is shown 60 ms before the one sent before it, whose packet
		// arrives on time: a B-frame, no sample (as before this rule).
		{"video B-frames", 96, 1800, func(i int) uint32 {
			if i%4 == 3 {
				return 5400 + 1800
			}
			return 0
		}, 300, 0, 0, 100},
	} {
		tr := NewTracker(Config{})
		feed(t, tr, stream(400, c.pt, c.tick, c.back))
		s := only(t, tr)
		sum := s.Summary(T0)
		if sum.DelayMS == nil || sum.Late == nil {
			t.Fatalf("%s: delay %v, late %v", c.name, sum.DelayMS, sum.Late)
		}
		if spike := math.Abs(float64(int32(c.back(100)))) / 8 / 16; c.pt == 0 && (sum.JitterMS == nil || sum.JitterMS.Max != spike) {
			t.Errorf("%s: jitter %+v, want a maximum of %v ms", c.name, sum.JitterMS, spike)
		}
		if sum.DelayMS.Samples != c.samples || sum.DelayMS.Max != c.max || sum.Late.Packets != c.late || s.delay.nonMonotonic != c.skips {
			t.Errorf("%s: samples %d, max %v ms, late %d, B-frames %d; want %d, %v, %d, %d", c.name,
				sum.DelayMS.Samples, sum.DelayMS.Max, sum.Late.Packets, s.delay.nonMonotonic, c.samples, c.max, c.late, c.skips)
		}
	}
}

// TestDelayOfOneFrame: a PCMU sender whose timestamp never advanced sent its 50 packets as
// one frame: one delay sample, its own baseline. Nothing measured a delay: delay_ms and
// late are null, not "late 0 (0%)"; the jitter, over every packet, is measured.
func TestDelayOfOneFrame(t *testing.T) {
	var as []arrival
	for i := range 50 {
		b := rp{pt: 0, seq: uint16(i), ts: 7, ssrc: 0xA1, payload: make([]byte, 160)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+int64(i)*20*ms1)})
	}
	tr := NewTracker(Config{})
	feed(t, tr, as)
	sum := only(t, tr).Summary(T0)
	if sum.DelayMS != nil || sum.Late != nil || sum.JitterMS == nil {
		t.Errorf("delay %+v, late %+v, jitter %+v: want nil, nil, measured", sum.DelayMS, sum.Late, sum.JitterMS)
	}
	if dm := tr.Direction(tr.Streams(), T0); dm.Delay != nil || dm.Late != nil {
		t.Errorf("direction: delay %+v, late %+v: want nil", dm.Delay, dm.Late)
	}
}
