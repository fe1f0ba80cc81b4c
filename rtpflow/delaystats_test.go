package rtpflow

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/transport"
)

// delayed are chosen delays above a constant transit, by packet index.
var delayed = map[int]int64{
	100: 60 * ms1, 200: 120 * ms1, 300: 160 * ms1, 400: 250 * ms1, 500: 450 * ms1,
	600: 1200 * ms1, 700: 150 * ms1, // exactly the budget: not late
}

func withCauses(l *report.Late, c *report.LateCauses) *report.Late {
	l.Causes = c
	return l
}

func TestLateCounts(t *testing.T) {
	tests := []struct {
		name string
		// early shifts packets from 800 on 30 ms earlier: the minimum transit comes after
		// every delayed packet. It is a step that stays, so the baseline follows it
		// (baseline.go): the earlier packets are measured against their own level, and the
		// figures are those of a constant transit. (With the smallest transit of the whole
		// stream for a baseline, every earlier packet was 30 ms above it: 5 late, p50 30 ms.)
		early     bool
		wantDelay *report.Delay
		wantLate  *report.Late
	}{
		{
			name:      "constant transit",
			wantDelay: &report.Delay{Reference: "rtp_timestamp", Samples: 1000, Max: 1200},
			wantLate: &report.Late{BudgetMS: 150, Packets: 4, Pct: 0.4, HOLBlocked: 2,
				OverMS: map[string]int64{"50": 7, "100": 6, "200": 3, "400": 2, "1000": 1},
				Causes: &report.LateCauses{Retransmission: 2, Window: 1, Backlog: 1}}, // 300 is backlog
		},
		{
			name:      "minimum after the delayed packets",
			early:     true,
			wantDelay: &report.Delay{Reference: "rtp_timestamp", Samples: 1000, Max: 1200},
			wantLate: &report.Late{BudgetMS: 150, Packets: 4, Pct: 0.4, HOLBlocked: 2,
				OverMS: map[string]int64{"50": 7, "100": 6, "200": 3, "400": 2, "1000": 1},
				Causes: &report.LateCauses{Retransmission: 2, Window: 1, Backlog: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := pcmu(1000, 0, 0, nil, func(i int) int64 {
				if tt.early && i >= 800 {
					return -30 * ms1
				}
				return delayed[i]
			})
			// Over TCP, each late packet is counted under what tcpframe said held it (Hold);
			// a hold on a packet that is not late counts nowhere (100: window).
			for _, a := range as {
				a.m.Proto = transport.TCP
				switch seq := int(a.m.Payload[2])<<8 | int(a.m.Payload[3]); seq {
				case 400: // its own bytes retransmitted
					a.m.Retransmitted, a.m.Hold = true, transport.HoldRetransmission
				case 500: // held behind a retransmission of earlier bytes
					a.m.Complete, a.m.Hold = a.m.Delivered-300*ms1, transport.HoldRetransmission
				case 100, 600: // sent after a window stall
					a.m.Hold = transport.HoldWindow
				}
			}
			tr := NewTracker(Config{})
			feed(t, tr, as)
			s := only(t, tr)
			got := s.Summary(T0)
			if diff := cmp.Diff(tt.wantDelay, got.DelayMS); diff != "" {
				t.Errorf("delay (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLate, got.Late); diff != "" {
				t.Errorf("late (-want +got):\n%s", diff)
			}
			wantReordered := int64(7) // each delayed packet arrives after later ones
			if tt.early {
				wantReordered++ // packet 799 arrives after 800
			}
			if got.Reordered != wantReordered || *got.Lost != 0 {
				t.Errorf("reordered %d lost %d, want %d 0", got.Reordered, *got.Lost, wantReordered)
			}

			// Late per second: each late packet in the second it arrived.
			dm := tr.Direction([]*Stream{s}, T0)
			wantSeries := make([]*int64, len(dm.Series.Late))
			for i := range wantSeries {
				wantSeries[i] = i64(0)
			}
			base := int64(0)
			for i, d := range delayed {
				if d+base > 150*ms1 {
					*wantSeries[(int64(i)*20*ms1+d)/1e9]++
				}
			}
			if diff := cmp.Diff(wantSeries, dm.Series.Late); diff != "" {
				t.Errorf("late series (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLate, dm.Late); diff != "" {
				t.Errorf("direction late (-want +got):\n%s", diff)
			}
			// Packet 600 arrives at 13.2 s, 1200 ms late.
			if got := derefs(dm.Series.DelayMaxMS)[13]; got != float64(1200+base/ms1) {
				t.Errorf("delay max in second 13 = %v, want %v", got, 1200+base/ms1)
			}
		})
	}
}

func derefs(v []*float64) []float64 {
	out := make([]float64, len(v))
	for i, p := range v {
		if p != nil {
			out[i] = *p
		} else {
			out[i] = -1
		}
	}
	return out
}

func TestDelayStats(t *testing.T) {
	const clock = 8000
	const astBase = 63.75 // s: abs-send-time wraps 16 steps of 1/64 s later
	type pkt struct {
		atMS   float64 // arrival, ms from T0
		sendMS float64 // send time, ms (the RTP timestamp at 8 kHz, or abs-send-time from astBase)
		noAST  bool    // the packet has no abs-send-time element
		hol    bool    // held behind a TCP retransmission
		sec    int
	}
	type sec struct {
		N                      int64
		MaxAboveMS, MedAboveMS float64 // above the final baseline
		LateAt                 int64
	}
	lateOf := func(budget float64, n int64, pct float64, hol int64, over ...int64) *report.Late {
		return &report.Late{BudgetMS: budget, Packets: n, Pct: pct, HOLBlocked: hol,
			OverMS: map[string]int64{"50": over[0], "100": over[1], "200": over[2], "400": over[3], "1000": over[4]}}
	}
	tests := []struct {
		name      string
		ast       bool
		clock     int
		pkts      []pkt
		wantDelay *report.Delay
		wantLate  *report.Late
		wantSecs  []sec
	}{
		{
			name: "clock: constant transit", clock: clock,
			pkts:      []pkt{{0, 0, false, false, 0}, {20, 20, false, false, 0}, {40, 40, false, false, 0}},
			wantDelay: &report.Delay{Reference: "rtp_timestamp", Samples: 3},
			wantLate:  lateOf(150, 0, 0, 0, 0, 0, 0, 0, 0),
			wantSecs:  []sec{{N: 3}},
		},
		{
			name: "clock: one packet 200 ms late, behind a retransmission", clock: clock,
			pkts: []pkt{{0, 0, false, false, 0}, {20, 20, false, false, 0}, {240, 40, false, true, 0},
				{1060, 1060, false, false, 1}},
			wantDelay: &report.Delay{Reference: "rtp_timestamp", Samples: 4, P95: 200, P99: 200, Max: 200},
			wantLate: withCauses(lateOf(150, 1, 25, 1, 1, 1, 0, 0, 0), // exactly 200 ms is not over 200
				&report.LateCauses{Retransmission: 1}), // a packet held behind one came over TCP
			wantSecs: []sec{{N: 3, MaxAboveMS: 200, LateAt: 1}, {N: 1}},
		},
		{
			name: "abs-send-time across its wrap", ast: true,
			pkts: []pkt{{0, 0, false, false, 0}, {125, 125, false, false, 0}, {250, 250, false, false, 0},
				{405, 375, false, false, 0}},
			wantDelay: &report.Delay{Reference: "abs_send_time", Samples: 4, P95: 30, P99: 30, Max: 30},
			wantLate:  lateOf(150, 0, 0, 0, 0, 0, 0, 0, 0),
			wantSecs:  []sec{{N: 4, MaxAboveMS: 30}},
		},
		{
			name: "abs-send-time missing on a packet: no sample", ast: true,
			pkts:      []pkt{{0, 0, false, false, 0}, {150, 125, true, false, 0}, {250, 250, false, false, 0}},
			wantDelay: &report.Delay{Reference: "abs_send_time", Samples: 2},
			wantLate:  lateOf(150, 0, 0, 0, 0, 0, 0, 0, 0),
			wantSecs:  []sec{{N: 2}},
		},
		{
			name: "no reference: no sample",
			pkts: []pkt{{0, 0, false, false, 0}, {20, 20, false, false, 0}},
		},
		{
			// The last transit is 200 ms below the others and the stream ends there: a step to
			// a new level, not the baseline of the packets before (which made 3 of them late,
			// by up to 380 ms). The end's look-ahead is short, so each is measured against the
			// smallest transit before it: only the second, 180 ms above the first, is late.
			name: "a lower transit at the end is a new level", clock: clock,
			pkts: []pkt{{0, 0, false, false, 0}, {200, 20, false, false, 0}, {1040, 1000, false, false, 1},
				{1060, 1260, false, false, 1}},
			wantDelay: &report.Delay{Reference: "rtp_timestamp", Samples: 4, P95: 180, P99: 180, Max: 180},
			wantLate:  lateOf(150, 1, 25, 0, 1, 1, 0, 0, 0),
			wantSecs: []sec{{N: 2, MaxAboveMS: 180, LateAt: 1},
				{N: 2, MaxAboveMS: 40}},
		},
		{
			name: "outside the series: in the distribution only", clock: clock,
			pkts:      []pkt{{0, 0, false, false, -1}, {300, 20, false, false, -1}},
			wantDelay: &report.Delay{Reference: "rtp_timestamp", Samples: 2, P95: 280, P99: 280, Max: 280},
			wantLate:  lateOf(150, 1, 50, 0, 1, 1, 1, 0, 0),
		},
		{
			name: "unsorted: an older second keeps its median", clock: clock,
			pkts:      []pkt{{0, 0, false, false, 0}, {1000, 1000, false, false, 1}, {500, 400, false, false, 0}},
			wantDelay: &report.Delay{Reference: "rtp_timestamp", Samples: 3, P95: 100, P99: 100, Max: 100},
			wantLate:  lateOf(150, 0, 0, 0, 1, 0, 0, 0, 0),
			wantSecs:  []sec{{N: 2, MaxAboveMS: 100}, {N: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDelayStats(150*ms1, 1100*ms1)
			d.reference(tt.clock, tt.ast)
			for _, p := range tt.pkts {
				at := T0 + int64(p.atMS*1e6)
				ts := int64(p.sendMS) * clock / 1000
				ast := astAt(astBase + p.sendMS/1000)
				hd := holdUDP
				if p.hol {
					hd = holdRetransmission
				}
				d.sample(at, ts, uint16(p.sendMS), true, ast, !p.noAST, hd, p.sec) // numbered in send order
			}
			d.flush()
			gotDelay, gotLate := d.summary(int64(len(tt.pkts)))
			if diff := cmp.Diff(tt.wantDelay, gotDelay); diff != "" {
				t.Errorf("delay (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLate, gotLate); diff != "" {
				t.Errorf("late (-want +got):\n%s", diff)
			}
			var secs []sec
			for i := range d.secs {
				c := d.at(i)
				if c == nil {
					secs = append(secs, sec{})
					continue
				}
				med := c.med
				if !c.medSet {
					med = c.max
				}
				secs = append(secs, sec{N: c.n, MaxAboveMS: ms(c.max - d.baseline()), MedAboveMS: ms(med - d.baseline()),
					LateAt: d.lateAt(i)})
			}
			if diff := cmp.Diff(tt.wantSecs, secs); diff != "" {
				t.Errorf("seconds (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHeldInsideAFrame: video at 30 fps over TCP, three packets a frame 1 ms apart. Frame
// 5's last packet is lost and repaired 300 ms later; everything after it waits in order
// (frames 6-9, sent before the repair came, are delivered with it). Frame 5's first packet
// came on time, and its sample spoke for the packet TCP held: 12 late (frames 6-9). The
// held packet is now a sample of its own, late by 298 ms: 13.
func TestHeldInsideAFrame(t *testing.T) {
	d := heldVideo(func(f, j int, at int64) (int64, hold) {
		if (f == 5 && j == 2) || (f > 5 && at < heldUntil) {
			return max(heldUntil, at), holdRetransmission
		}
		return at, holdNone
	})
	_, late := d.summary(45)
	if late == nil || late.Packets != 13 || late.Causes == nil || late.Causes.Retransmission != 13 {
		t.Errorf("late %+v, want 13, all behind the retransmission", late)
	}
	if d.all.n != 16 {
		t.Errorf("%d samples, want 16 (15 frames and the held packet)", d.all.n)
	}
}

// heldUntil is when heldVideo's repair came.
const heldUntil = T0 + 465*ms1

// heldVideo samples 15 frames of video at 30 fps over TCP, three packets a frame 1 ms
// apart, packet j of frame f arriving when and held as held says (given the time it was
// sent), and flushes.
func heldVideo(held func(f, j int, at int64) (int64, hold)) delayStats {
	d := newDelayStats(150*ms1, 1100*ms1)
	d.reference(90000, false)
	seq := uint16(0)
	for f := range 15 {
		for j := range 3 {
			at, hd := held(f, j, T0+int64(f)*33*ms1+int64(j)*ms1)
			d.sample(at, int64(f)*3000, seq, true, 0, false, hd, 0)
			seq++
		}
	}
	d.flush()
	return d
}

// TestFrameBehindItsFirstPacket: the same video, frame 5's first packet lost and repaired
// 300 ms later (holdRetransmitted: its own bytes), and the frame's other two packets, and
// frames 6-9, held behind it (holdRetransmission). 15 packets are late: 1 by its own
// retransmission, 14 behind it. The frame's sample spoke for its three packets with its
// first packet's cause: 3 by their own retransmission, though one segment was resent.
func TestFrameBehindItsFirstPacket(t *testing.T) {
	d := heldVideo(func(f, j int, at int64) (int64, hold) {
		switch {
		case f == 5 && j == 0:
			return heldUntil, holdRetransmitted
		case f >= 5 && at < heldUntil:
			return heldUntil, holdRetransmission
		}
		return at, holdNone
	})
	_, late := d.summary(45)
	if late == nil || late.Packets != 15 || late.HOLBlocked != 14 || late.Causes == nil || late.Causes.Retransmission != 15 {
		t.Errorf("late %+v, want 15: 14 behind the retransmission, 1 by its own", late)
	}
}

// TestHeldLongerThanItsFrame: the same video, frame 5's first two packets held behind a
// retransmission 140 ms (not late), its last one lost and repaired 40 ms after them (its own
// bytes, 180 ms: late), and frames 6-10 delivered with it. The frame's first packet, held
// itself, does not speak for a packet TCP held longer: 1 late, by its own retransmission.
// Before, the frame's sample spoke for it: 0 late (a tester's TCP call, one in four video
// streams short of one to four late packets).
func TestHeldLongerThanItsFrame(t *testing.T) {
	first, last := T0+(165+140)*ms1, T0+(165+180)*ms1
	d := heldVideo(func(f, j int, at int64) (int64, hold) {
		switch {
		case f == 5 && j < 2:
			return first, holdRetransmission
		case f == 5:
			return last, holdRetransmitted
		case f > 5 && at < last:
			return last, holdRetransmission
		}
		return at, holdNone
	})
	_, late := d.summary(45)
	if late == nil || late.Packets != 1 || late.HOLBlocked != 0 || late.Causes == nil || late.Causes.Retransmission != 1 {
		t.Errorf("late %+v, want 1, by its own retransmission", late)
	}
	if d.all.n != 16 {
		t.Errorf("%d samples, want 16 (15 frames and the packet held longer)", d.all.n)
	}
}

// A stream whose packets all arrived in the same microsecond has delay samples but spans no
// time (RateSpan): its direction has no delay and no late, and so its series has none in any
// second, where they read 0 ms and 0 late packets.
func TestSeriesDelayOnlyWhereTheDirectionHasOne(t *testing.T) {
	tr := NewTracker(Config{})
	feed(t, tr, pcmu(20, 0, 0, nil, func(i int) int64 { return -int64(i) * 20 * ms1 }))
	dm := tr.Direction(tr.Streams(), T0)
	if dm.Delay != nil || dm.Late != nil {
		t.Fatalf("delay %+v late %+v, want none", dm.Delay, dm.Late)
	}
	sr := dm.Series
	if len(sr.Late) == 0 {
		t.Fatal("no series")
	}
	for i := range sr.Late {
		if sr.Late[i] != nil || sr.DelayP50MS[i] != nil || sr.DelayMaxMS[i] != nil {
			t.Errorf("second %d: late %v delay p50 %v max %v, want null", i, sr.Late[i], sr.DelayP50MS[i], sr.DelayMaxMS[i])
		}
	}
}

// TestReorderedFrameIsOneSample: video of 100 frames of three packets (90 kHz, a frame
// every 30 ms, its packets paced 2 ms apart), four of them (20, 40, 60, 80) held back whole
// 120 ms, so that they come after the frames sent after them. A frame is one sample on RTP
// timestamps, in order or not: 100 samples, 96 at 0 and 4 at 120 ms (p95 0, p99 and max
// 120), and with a 100 ms budget its three packets late each time, 12. Frame 60's packets
// come reordered among themselves too (the second, the first, the third): one sample still,
// the second's. Before, each packet of a reordered frame was a sample of its own, the
// sender's pacing in all but the first: 108 samples, p95 122 and max 124 ms (h152).
func TestReorderedFrameIsOneSample(t *testing.T) {
	tr := NewTracker(Config{LateBudget: 100 * time.Millisecond})
	var as []arrival
	for f := 0; f < 100; f++ {
		held := int64(0)
		if f%20 == 0 && f > 0 {
			held = 120 * ms1
		}
		for k := 0; k < 3; k++ {
			at := T0 + int64(f)*30*ms1 + int64(k)*2*ms1 + held
			if f == 60 && k < 2 {
				at = T0 + int64(f)*30*ms1 + int64(1-k)*2*ms1 + held
			}
			b := rp{pt: 96, seq: uint16(3*f + k), ts: uint32(2700 * f), ssrc: 0xD1, marker: k == 2, payload: make([]byte, 1000)}.bytes()
			as = append(as, arrival{pathA, msg(b, at)})
		}
	}
	feed(t, tr, as)
	s := only(t, tr).Summary(T0)
	d := s.DelayMS
	if d == nil || d.Samples != 100 || d.P95 != 0 || d.Max != 120 || d.P99 < 119 || d.P99 > 121 {
		t.Errorf("delay %+v; want 100 samples, p95 0, p99 and max 120 ms", d)
	}
	if s.Late == nil || s.Late.Packets != 12 {
		t.Errorf("late %+v, want 12 packets", s.Late)
	}
}
