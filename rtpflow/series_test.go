package rtpflow

import (
	"testing"
)

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
	if !s.SeriesBroken() || len(got.Bitrate.SeriesKbps) != 10 || got.Packets != 1000 {
		t.Errorf("broken %v, %d seconds, %d packets", s.SeriesBroken(), len(got.Bitrate.SeriesKbps), got.Packets)
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
	if v := tr.directionOrigin(pathA, 0); v != T0+500*ms1 {
		t.Errorf("direction origin %d ms, want 500", (v-T0)/ms1)
	}
	if dm.FirstNs != T0+500*ms1 || dm.LastNs != T0+500*ms1+199*20*ms1 {
		t.Errorf("first %d last %d", dm.FirstNs-T0, dm.LastNs-T0)
	}
	// Goodput: every payload byte over the active time.
	wantGoodput := float64(200*160+100*1000) * 8e6 / float64(199*20*ms1)
	if d := dm.GoodputKbps - wantGoodput; d > 0.001 || d < -0.001 {
		t.Errorf("goodput %v, want %v", dm.GoodputKbps, wantGoodput)
	}
}
