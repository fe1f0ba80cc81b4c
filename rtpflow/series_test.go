package rtpflow

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSeriesIndex(t *testing.T) {
	const sec = int64(1e9)
	tests := []struct {
		name       string
		origin     int64 // the direction's first packet, from T0
		first      int64 // the stream's first packet, from T0
		at         []int64
		want       []int
		wantLen    int
		wantBroken bool
	}{
		{"the first packet's second is index 0", 0, 2*sec + 5, []int64{2*sec + 5, 2*sec + 999e6, 3 * sec},
			[]int{0, 0, 1}, 2, false},
		{"grid from the direction, not the stream", 300e6, 1 * sec, []int64{1 * sec, 1*sec + 300e6},
			[]int{0, 1}, 2, false},
		{"before the first second: put in it", 0, 5 * sec, []int64{5 * sec, 1 * sec}, []int{0, 0}, 1, false},
		{"skipped seconds are empty seconds", 0, 0, []int64{0, 10 * sec}, []int{0, 10}, 11, false},
		{"a jump of more than an hour breaks the series", 0, 0, []int64{0, 3602 * sec, 1 * sec},
			[]int{0, -1, -1}, 1, true},
		{"a jump of exactly an hour past the last second does not", 0, 0, []int64{0, 3601 * sec},
			[]int{0, 3601}, 3602, false},
		{"beyond six hours: outside, not broken", 0, 0,
			append([]int64{0}, func() []int64 {
				var v []int64
				for s := int64(3000); s <= 6*3600+3000; s += 3000 {
					v = append(v, s*sec)
				}
				return v
			}()...),
			[]int{0, 3000, 6000, 9000, 12000, 15000, 18000, 21000, -1}, 21001, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sr series
			budget := seriesBudget{left: MaxSeriesCells}
			sr.start(T0+tt.origin, T0+tt.first, &budget)
			var got []int
			for _, at := range tt.at {
				got = append(got, sr.index(T0+at))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("indices (-want +got):\n%s", diff)
			}
			if len(sr.secs) != tt.wantLen || sr.broken != tt.wantBroken {
				t.Errorf("%d seconds, broken %v; want %d, %v", len(sr.secs), sr.broken, tt.wantLen, tt.wantBroken)
			}
			// Each stop is counted, once: a break, or the six hours.
			if stopped := got[len(got)-1] < 0; budget.Broken+budget.Capped != map[bool]int64{false: 0, true: 1}[stopped] ||
				budget.Broken != map[bool]int64{false: 0, true: 1}[tt.wantBroken] || budget.Cut != 0 {
				t.Errorf("counts %+v", budget.SeriesCounts)
			}
		})
	}
}

// TestSeriesBudget: series take their seconds from one budget; one that would pass it stops
// there for good (no second more, not even one it had), counted once; the others go on
// within what is left.
func TestSeriesBudget(t *testing.T) {
	const sec = int64(1e9)
	budget := seriesBudget{left: 10}
	var a, b, c series
	a.start(T0, T0, &budget)
	b.start(T0, T0, &budget)
	c.start(T0, T0, &budget)
	// a takes 6 seconds, b 3, c the last one; b and c stop where they would pass it.
	want := []int{5, 2, -1, -1, 0, -1, -1}
	got := []int{a.index(T0 + 5*sec), b.index(T0 + 2*sec), b.index(T0 + 9*sec), b.index(T0 + 3*sec),
		c.index(T0), c.index(T0 + 1*sec), b.index(T0 + 2*sec/3)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("indices (-want +got):\n%s", d)
	}
	if len(a.secs) != 6 || len(b.secs) != 3 || len(c.secs) != 1 || budget.left != 0 || budget.Cut != 2 {
		t.Errorf("seconds %d %d %d, left %d, counts %+v; want 6 3 1, 0, 2 cut", len(a.secs), len(b.secs), len(c.secs), budget.left, budget.SeriesCounts)
	}
}

func TestSeriesLoss(t *testing.T) {
	tests := []struct {
		name string
		lost []int64 // the seconds' losses before
		i    int     // the packet's second
		ev   seqEvent
		want []int64
	}{
		{"losses go to the packet's second", []int64{0, 0, 0}, 2, seqEvent{lost: 3}, []int64{0, 0, 3}},
		{"outside the series: not put", []int64{0, 0}, -1, seqEvent{lost: 3}, []int64{0, 0}},
		{"a filled gap takes back from the latest second with a loss", []int64{2, 1, 0}, 2,
			seqEvent{filled: true}, []int64{2, 0, 0}},
		{"taken back even outside the series", []int64{1, 0}, -1, seqEvent{filled: true}, []int64{0, 0}},
		{"nothing to take back", []int64{0, 0}, 1, seqEvent{filled: true}, []int64{0, 0}},
		{"only from the last minute", append([]int64{1}, make([]int64, lossTakeBack)...), lossTakeBack,
			seqEvent{filled: true}, append([]int64{1}, make([]int64, lossTakeBack)...)},
		{"the last minute's first second", append([]int64{1, 1}, make([]int64, lossTakeBack-1)...), lossTakeBack,
			seqEvent{filled: true}, append([]int64{1, 0}, make([]int64, lossTakeBack-1)...)},
		{"a duplicate changes nothing", []int64{1}, 0, seqEvent{dup: true}, []int64{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sr := series{secs: make([]second, len(tt.lost))}
			for i, l := range tt.lost {
				sr.secs[i].lost = l
			}
			sr.loss(tt.i, tt.ev)
			got := make([]int64, len(sr.secs))
			for i := range sr.secs {
				got[i] = sr.secs[i].lost
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("losses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSeriesBreakAndBounds(t *testing.T) {
	// 10 s of audio, a jump of 2 hours, 10 s more: the series stops at the jump; totals
	// count everything.
	tr := NewTracker(Config{})
	as := pcmu(1000, 0, 0, nil, func(i int) int64 {
		if i >= 500 {
			return 2 * 3600 * 1e9
		}
		return 0
	})
	feed(t, tr, as)
	s := only(t, tr)
	got := s.Summary(T0)
	if !s.series.broken || len(got.Bitrate.SeriesKbps) != 10 || got.Packets != 1000 {
		t.Errorf("broken %v, %d seconds, %d packets", s.series.broken, len(got.Bitrate.SeriesKbps), got.Packets)
	}
	dm := tr.Direction([]*Stream{s}, T0)
	if len(dm.Series.MediaKbps) != 10 || len(dm.Series.DelayP50MS) != 10 {
		t.Errorf("direction series of %d seconds", len(dm.Series.MediaKbps))
	}
}

func TestDirectionSeriesAlignment(t *testing.T) {
	// Audio from T0+0.5 s; video from T0+2.25 s, after an RTCP packet at T0. The series
	// run from the direction's first media packet (DESIGN): seconds [0.5, 1.5), [1.5, 2.5),
	// ...; video's first 13 packets (2.25-2.49) land in the second second.
	tr := NewTracker(Config{})
	tr.RTCP(pathB, msg([]byte{0x81, 201, 0, 1, 0, 0, 0, 9}, T0))
	var as []arrival
	for i := 0; i < 200; i++ {
		b := rp{pt: 0, seq: uint16(i), ts: uint32(160 * i), ssrc: 1, payload: make([]byte, 160)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+500*ms1+int64(i)*20*ms1)})
	}
	for i := 0; i < 100; i++ {
		b := rp{pt: 96, seq: uint16(i), ts: uint32(3000 * i), ssrc: 2, payload: make([]byte, 1000)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+2250*ms1+int64(i)*20*ms1)})
	}
	feed(t, tr, as)
	ss := tr.Streams()
	dm := tr.Direction(ss, T0)
	want := []float64{
		50 * 1.28,      // 0.5-1.5: 50 audio packets
		50*1.28 + 13*8, // 1.5-2.5: audio + video from 2.25 (13 packets: 2.25..2.49)
		50*1.28 + 50*8, // 2.5-3.5
		50*1.28 + 37*8, // 3.5-4.5: audio to 4.48, video 3.51..4.23 (37)
	}
	if dm.Series.T0S != 0.5 || len(dm.Series.MediaKbps) != len(want) {
		t.Fatalf("t0 %v, series %v", dm.Series.T0S, dm.Series.MediaKbps)
	}
	for i := range want {
		if d := dm.Series.MediaKbps[i] - want[i]; d > 1e-9 || d < -1e-9 {
			t.Errorf("second %d: %v kbps, want %v", i, dm.Series.MediaKbps[i], want[i])
		}
	}
	// The other direction's series start at its own first media packet.
	if v, _ := tr.directionOrigin(pathA, 0, true); v != T0+500*ms1 {
		t.Errorf("direction origin %d ms, want 500", (v-T0)/ms1)
	}
	if dm.FirstNs != T0+500*ms1 || dm.LastNs != T0+500*ms1+199*20*ms1 {
		t.Errorf("first %d last %d", dm.FirstNs-T0, dm.LastNs-T0)
	}
	// Goodput: every payload byte over the active time.
	wantGoodput := float64(200*160+100*1000) * 8e6 / float64(199*20*ms1)
	if dm.GoodputKbps == nil {
		t.Fatalf("goodput null (%s), want %v", dm.Unmeasured, wantGoodput)
	}
	if d := *dm.GoodputKbps - wantGoodput; d > 0.001 || d < -0.001 {
		t.Errorf("goodput %v, want %v", *dm.GoodputKbps, wantGoodput)
	}
}

// TestRampOverActiveTime: RTX that arrives after the last media packet, past a second's
// end, adds a second of no media to the series; the ramp is taken over the direction's
// active time only. Video 0xB0 sends 100 packets a second for 10 s, second s with payloads
// of 1000+10s bytes; six packets of the first half and the last four are lost and resent
// in RTX 0xB1, the last four at 10.01 s.
func TestRampOverActiveTime(t *testing.T) {
	lost := map[int]bool{100: true, 150: true, 200: true, 250: true, 300: true, 350: true,
		996: true, 997: true, 998: true, 999: true}
	var as []arrival
	at := func(i int) int64 { return T0 + int64(i)*10*ms1 }
	size := func(i int) int { return 1000 + 10*(i/100) }
	rtxSeq := uint16(7)
	for i := 0; i < 1000; i++ {
		if lost[i] {
			when := at(i) + 40*ms1
			if i >= 996 {
				when = T0 + 10010*ms1 + int64(i-996)*ms1
			}
			payload := append(u16(uint16(1000+i)), make([]byte, size(i))...)
			b := rp{pt: 97, seq: rtxSeq, ts: uint32(900 * i), ssrc: 0xB1, payload: payload}.bytes()
			rtxSeq++
			as = append(as, arrival{pathA, msg(b, when)})
			continue
		}
		b := rp{pt: 96, seq: uint16(1000 + i), ts: uint32(900 * i), ssrc: 0xB0, payload: make([]byte, size(i))}.bytes()
		as = append(as, arrival{pathA, msg(b, at(i))})
	}
	tr := NewTracker(Config{})
	feed(t, tr, as)
	media, rtx := bySSRC(t, tr, 0xB0), bySSRC(t, tr, 0xB1)
	if rtx.RTXOf() != media {
		t.Fatalf("0xB1 is not 0xB0's RTX")
	}
	dm := tr.Direction([]*Stream{media, rtx}, T0)
	if n := len(dm.Series.MediaKbps); n != 11 || dm.Series.MediaKbps[10] != 0 {
		t.Fatalf("series %v, want 11 seconds, the last without media", dm.Series.MediaKbps)
	}
	// The second half of the 10 active seconds: 840, 848, 856, 864 and 96·1090·8/1000.
	// With the eleventh second's 0 it would be (840+848)/2.
	if dm.Ramp == nil || dm.Ramp.PlateauKbps != 848 {
		t.Errorf("ramp %+v, want a plateau of 848 kbps", dm.Ramp)
	}
}

// TestDirectionSeriesAfterProbes: padding-only probes of another SSRC (libwebrtc's RTX
// probes before its video starts) from T0+0.1 s are no media packets: the direction's
// series runs from the video's first packet at T0+0.5 s (DESIGN), 800 kbps in every second,
// and the probes are in no second. Anchored at the first probe, the grid put 0.4 s of no
// video in the first second (480 kbps), and the probes' bytes in rtx_kbps.
func TestDirectionSeriesAfterProbes(t *testing.T) {
	tr := NewTracker(Config{})
	var as []arrival
	for i := 0; i < 10; i++ { // padding only: no payload, 200 bytes of padding
		b := rp{pt: 97, seq: uint16(100 + i), ts: 0, ssrc: 0xC2, pad: 200}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+100*ms1+int64(i)*10*ms1)})
	}
	for i := 0; i < 500; i++ {
		b := rp{pt: 96, seq: uint16(i), ts: uint32(900 * i), ssrc: 0xC1, payload: make([]byte, 1000)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+500*ms1+int64(i)*10*ms1)})
	}
	feed(t, tr, as)
	var video *Stream
	for _, s := range tr.Streams() {
		if s.SSRC() == 0xC1 {
			video = s
		}
	}
	dm := tr.Direction(tr.Streams(), T0)
	if dm.Series.T0S != 0.5 || len(dm.Series.MediaKbps) != 5 {
		t.Fatalf("t0 %v, media %v", dm.Series.T0S, dm.Series.MediaKbps)
	}
	for i, v := range dm.Series.MediaKbps {
		if v != 800 || dm.Series.RTXKbps[i] != 0 {
			t.Errorf("second %d: media %v, rtx %v kbps; want 800, 0", i, v, dm.Series.RTXKbps[i])
		}
	}
	if video == nil || video.SeriesStart() != T0+500*ms1 {
		t.Errorf("video series from %v", video)
	}
}

// TestDirectionSeriesAfterSignalledRTX: TestDirectionSeriesAfterProbes over SRTP, where the
// probes' padding count cannot be read, with an SDP FID pair naming 0xC2 the video's RTX
// stream: the probes anchor nothing, and the series runs from the video's first packet.
func TestDirectionSeriesAfterSignalledRTX(t *testing.T) {
	tr := NewTracker(Config{})
	tr.HintFID(FIDHint{Media: 0xC1, RTX: 0xC2})
	var as []arrival
	for i := 0; i < 10; i++ {
		b := rp{pt: 97, seq: uint16(100 + i), ts: 0, ssrc: 0xC2, payload: make([]byte, 200)}.bytes()
		b[0] |= 0x20 // the P bit, its count (the auth tag's last byte) unreadable
		m := msg(b, T0+100*ms1+int64(i)*10*ms1)
		as = append(as, arrival{pathA, m})
	}
	for i := 0; i < 500; i++ {
		b := rp{pt: 96, seq: uint16(i), ts: uint32(900 * i), ssrc: 0xC1, payload: make([]byte, 1000)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+500*ms1+int64(i)*10*ms1)})
	}
	feed(t, tr, as)
	dm := tr.Direction(tr.Streams(), T0)
	if dm.Series.T0S != 0.5 || len(dm.Series.MediaKbps) != 5 || dm.Series.MediaKbps[0] != 800 {
		t.Errorf("t0 %v, media %v; want from 0.5 s, 800 kbps", dm.Series.T0S, dm.Series.MediaKbps)
	}
}

// TestRampWithoutAPartialLastSecond: 800 kbps steady for 5.3 s. The series' sixth second
// holds 0.3 s of it (240 kbps), which is no per-second rate: the ramp is of the first five,
// stable with cv_after_t90 0. Before, cv 0.34 and unstable (one second in six out of band).
func TestRampWithoutAPartialLastSecond(t *testing.T) {
	tr := NewTracker(Config{})
	var as []arrival
	for i := 0; i < 530; i++ {
		b := rp{pt: 96, seq: uint16(i), ts: uint32(900 * i), ssrc: 0xC1, payload: make([]byte, 1000)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+int64(i)*10*ms1)})
	}
	feed(t, tr, as)
	dm := tr.Direction(tr.Streams(), T0)
	r := dm.Ramp
	if len(dm.Series.MediaKbps) != 6 || r == nil || r.Stable == nil || !*r.Stable || r.CVAfterT90 == nil || *r.CVAfterT90 != 0 || r.PlateauKbps != 800 {
		t.Errorf("series %v, ramp %+v; want stable, cv 0, plateau 800", dm.Series.MediaKbps, r)
	}
}

// TestSeriesLossTakenBack: a late packet takes back the loss of its own gap, from the second
// that gap was counted in (h131). Audio 20 ms apart: packet 45 (due at 0.90 s) comes 300 ms
// late, after packet 56 showed 55 lost in second 1; 55 never comes. Before, 45's fill took
// back second 1's loss, leaving second 0 with one where none was lost. Also below the
// lowest (the first packets late) and across a restart, which forgets the gaps before it.
func TestSeriesLossTakenBack(t *testing.T) {
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(150, 0, 0, func(i int) bool { return i == 55 }, func(i int) int64 {
		if i == 45 {
			return 300 * ms1
		}
		return 0
	}))
	st := only(t, tr)
	st.Summary(T0)
	var got []int64
	for _, c := range st.series.secs {
		got = append(got, c.lost)
	}
	if want := []int64{0, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("lost by second %v, want %v", got, want)
	}

	var sr series
	sr.secs = make([]second, 3)
	sr.loss(0, seqEvent{lost: 2, ext: 10})             // 8 and 9, in second 0
	sr.loss(1, seqEvent{lost: 1, ext: 20})             // 19, in second 1
	sr.loss(2, seqEvent{lost: 3, ext: 0, below: true}) // 1 to 3, below the lowest, in second 2
	sr.loss(2, seqEvent{filled: true, ext: 9})         // second 0's
	sr.loss(2, seqEvent{filled: true, ext: 2})         // second 2's
	sr.loss(2, seqEvent{filled: true, ext: 99})        // no gap of its: the latest second with one
	if got := []int64{sr.secs[0].lost, sr.secs[1].lost, sr.secs[2].lost}; !slices.Equal(got, []int64{1, 1, 1}) {
		t.Errorf("lost by second %v, want [1 1 1]", got)
	}
	sr.loss(2, seqEvent{restart: true})
	sr.loss(2, seqEvent{filled: true, ext: 8}) // a new segment's 8: not second 0's
	if got := []int64{sr.secs[0].lost, sr.secs[1].lost, sr.secs[2].lost}; !slices.Equal(got, []int64{1, 1, 0}) {
		t.Errorf("after a restart, lost by second %v, want [1 1 0]", got)
	}
}

// TestDirectionActiveAfterProbes: probes on the media SSRC itself (padding only), 3 of
// them 1 ms apart, then PCMU from 0.4 s for 5 s: the direction's active time, over which
// goodput is taken, begins with the media as its series does (h131: 5.38 s where 4.98,
// goodput 37.175 kbps where 40.161).
func TestDirectionActiveAfterProbes(t *testing.T) {
	tr := NewTracker(Config{})
	var as []arrival
	for i := range 3 {
		b := rp{pt: 0, seq: uint16(i), ts: 0, ssrc: 0xA1, pad: 200}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+int64(i)*ms1)})
	}
	for i := range 250 {
		b := rp{pt: 0, seq: uint16(3 + i), ts: uint32(160 * i), ssrc: 0xA1, payload: make([]byte, 160)}.bytes()
		as = append(as, arrival{pathA, msg(b, T0+400*ms1+int64(i)*20*ms1)})
	}
	feed(t, tr, as)
	dm := tr.Direction(tr.Streams(), T0)
	if dm.FirstNs != T0+400*ms1 || dm.LastNs != T0+5380*ms1 || dm.Series.T0S != 0.4 {
		t.Errorf("active %d..%d ms, series from %v s; want 400..5380 ms, from 0.4 s",
			(dm.FirstNs-T0)/ms1, (dm.LastNs-T0)/ms1, dm.Series.T0S)
	}
}

// TestAuxiliaryStreamsAreNoMedia: a direction of a video stream (5 of 500 packets lost),
// its ulpfec stream and a stream of DTMF events, each on an SSRC of its own, the two named
// by the SDP: the direction's media packets, payload, loss and media series are the
// video's alone; the FEC and event payload is AuxPayloadBytes (overhead, other).
func TestAuxiliaryStreamsAreNoMedia(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Hint(PayloadHint{Addr: bob, PT: 118, Codec: "ulpfec", ClockRate: 90000, Media: "video"})
	tr.Hint(PayloadHint{Addr: bob, PT: 126, Codec: "telephone-event", ClockRate: 8000, Media: "audio"})
	var as []arrival
	at := func(i int) int64 { return T0 + int64(i)*10*ms1 }
	for i := range 500 {
		if i%100 != 50 {
			b := rp{pt: 96, seq: uint16(1000 + i), ts: uint32(900 * i), ssrc: 0xC0, payload: make([]byte, 500)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i))})
		}
		if i%5 == 0 {
			b := rp{pt: 118, seq: uint16(20000 + i/5), ts: uint32(900 * i), ssrc: 0xF0, payload: make([]byte, 200)}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+2*ms1)})
		}
		if i%25 == 0 {
			b := rp{pt: 126, seq: uint16(300 + i/25), ts: 8000, ssrc: 0xD0, payload: []byte{1, 10, 0, byte(i)}}.bytes()
			as = append(as, arrival{pathA, msg(b, at(i)+3*ms1)})
		}
	}
	feed(t, tr, as)
	dm := tr.Direction(tr.Streams(), T0)
	var media float64
	for _, v := range dm.Series.MediaKbps {
		media += v
	}
	type figs struct {
		Packets, Payload, Expected, Lost, Aux int64
		SeriesBytes                           float64
	}
	got := figs{dm.MediaPackets, dm.MediaPayloadBytes, dm.Loss.Expected, dm.Loss.Lost, dm.Wire.AuxPayloadBytes, media * 125}
	want := figs{495, 495 * 500, 500, 5, 100*200 + 20*4, 495 * 500}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if k := bySSRC(t, tr, 0xF0).Summary(T0).Kind; k != "fec" {
		t.Errorf("0xF0 is %s, want fec", k)
	}
	if k := bySSRC(t, tr, 0xD0).Summary(T0).Kind; k != "event" {
		t.Errorf("0xD0 is %s, want event", k)
	}
}

// TestDirectionActiveIsTheMedia: 5 s of video (500 packets of 1,000 bytes from T0, 10 ms
// apart) with padding-only packets that are no media, so that the direction's active time
// is the video's, T0..T0+4.99 s, and the goodput 500·1000·8 bits over it:
//   - keep-alives on the video's own SSRC, 5 a second for 5 s after its last media packet:
//     the ramp, over the media seconds only, is stable with no variation. Ending at the last
//     keep-alive, goodput read 500 kbps and the five seconds of none made it unstable;
//   - probes on an SSRC of their own, which nothing names RTX (no SDP, no OSN to vote), from
//     0.5 s before the video to 1 s after it. Before, their stream stretched it to 6.49 s.
func TestDirectionActiveIsTheMedia(t *testing.T) {
	for _, tc := range []struct {
		name    string
		padding func(i int) (b []byte, at int64)
		n       int
		t0      int64
		ramp    bool // check the ramp too
	}{
		{"keep-alives after the media", func(i int) ([]byte, int64) {
			return rp{pt: 96, seq: uint16(500 + i), ts: uint32(900 * 499), ssrc: 0xC3, pad: 200}.bytes(), T0 + 5*ms1*1000 + int64(i)*200*ms1
		}, 25, T0, true},
		{"a stream of probes around the media", func(i int) ([]byte, int64) {
			return rp{pt: 97, seq: uint16(100 + i), ts: 0, ssrc: 0xC5, pad: 200}.bytes(), T0 - 500*ms1 + int64(i)*200*ms1
		}, 33, T0 - 500*ms1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(Config{})
			var as []arrival
			for i := 0; i < 500; i++ {
				b := rp{pt: 96, seq: uint16(i), ts: uint32(900 * i), ssrc: 0xC3, payload: make([]byte, 1000)}.bytes()
				as = append(as, arrival{pathA, msg(b, T0+int64(i)*10*ms1)})
			}
			for i := 0; i < tc.n; i++ {
				b, at := tc.padding(i)
				as = append(as, arrival{pathA, msg(b, at)})
			}
			feed(t, tr, as)
			dm := tr.Direction(tr.Streams(), tc.t0)
			if dm.FirstNs != T0 || dm.LastNs != T0+4990*ms1 {
				t.Fatalf("active %v..%v, want %v..%v", dm.FirstNs-T0, dm.LastNs-T0, 0, 4990*ms1)
			}
			if g := dm.GoodputKbps; g == nil || *g != 801.603 {
				t.Errorf("goodput %v, want 801.603 kbps", g)
			}
			if r := dm.Ramp; tc.ramp && (r == nil || r.Stable == nil || !*r.Stable || r.CVAfterT90 == nil || *r.CVAfterT90 != 0) {
				t.Errorf("ramp %+v, want stable with cv 0", r)
			}
		})
	}
}
