package rtpflow

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/report"
)

// delayed are chosen delays above a constant transit, by packet index.
var delayed = map[int]int64{
	100: 60 * ms1, 200: 120 * ms1, 300: 160 * ms1, 400: 250 * ms1, 500: 450 * ms1,
	600: 1200 * ms1, 700: 150 * ms1, // exactly the budget: not late
}

func TestLateCounts(t *testing.T) {
	tests := []struct {
		name string
		// early shifts packets from 800 on 30 ms earlier: the minimum transit comes after
		// every delayed packet, so every earlier packet is 30 ms above the baseline.
		early     bool
		wantDelay *report.Delay
		wantLate  *report.Late
	}{
		{
			name:      "constant transit",
			wantDelay: &report.Delay{Reference: "rtp_timestamp", Samples: 1000, Max: 1200},
			wantLate: &report.Late{BudgetMS: 150, Packets: 4, Pct: 0.4, HOLBlocked: 2,
				OverMS: map[string]int64{"50": 7, "100": 6, "200": 3, "400": 2, "1000": 1}},
		},
		{
			name:      "minimum after the delayed packets",
			early:     true,
			wantDelay: &report.Delay{Reference: "rtp_timestamp", Samples: 1000, P50: 30, P95: 30, P99: 30, Max: 1230},
			wantLate: &report.Late{BudgetMS: 150, Packets: 5, Pct: 0.5, HOLBlocked: 2,
				OverMS: map[string]int64{"50": 7, "100": 6, "200": 3, "400": 2, "1000": 1}},
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
			for _, a := range as {
				switch seq := int(a.m.Payload[2])<<8 | int(a.m.Payload[3]); seq {
				case 400: // behind a TCP retransmission
					a.m.Retransmitted = true
				case 500: // held behind earlier bytes
					a.m.Complete = a.m.Delivered - 300*ms1
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
			wantSeries := make([]int64, len(dm.Series.Late))
			base := int64(0)
			if tt.early {
				base = 30 * ms1
			}
			for i, d := range delayed {
				if d+base > 150*ms1 {
					wantSeries[(int64(i)*20*ms1+d)/1e9]++
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

func TestDelayDistDrop(t *testing.T) {
	// The minimum falls by more than the window several times: values pushed out of the
	// window stay counted above every threshold, and the baseline is the last minimum.
	d := newDelayDist(1100 * ms1)
	for _, v := range []int64{0, 5 * ms1, 2000 * ms1, -1500 * ms1, 3000 * ms1, -4000 * ms1, -3990 * ms1} {
		d.add(v)
	}
	if d.minRel != -4000*ms1 || d.maxRel != 3000*ms1 {
		t.Fatalf("min %d max %d", d.minRel, d.maxRel)
	}
	// Above baseline: 0, 10, 2500, 4000, 4005, 6000, 7000 ms.
	for _, c := range []struct {
		thr  int64
		want int64
	}{{0, 6}, {9 * ms1, 6}, {10 * ms1, 5}, {150 * ms1, 5}, {1000 * ms1, 5}} {
		if got := d.countAbove(d.minRel + c.thr); got != c.want {
			t.Errorf("countAbove(+%d ms) = %d, want %d", c.thr/ms1, got, c.want)
		}
	}
	segs := d.segments(nil)
	q := quantiles(segs, d.n, 50, 100)
	// rank 4 of 7 is 4000 ms (within the overflow's 0.8%).
	if q[0] < 3960e6 || q[0] > 4040e6 {
		t.Errorf("p50 = %v ms, want 4000 within 1%%", q[0]/1e6)
	}
}

func TestDelayDistInterpolated(t *testing.T) {
	// Values 0, 0.03, 0.06, 0.09 ms share one 0.1 ms bin: a threshold inside it is
	// interpolated, one outside exact.
	d := newDelayDist(1100 * ms1)
	for _, v := range []int64{0, 30e3, 60e3, 90e3, 500e3} {
		d.add(v)
	}
	if got := d.countAbove(100e3); got != 1 {
		t.Errorf("above 0.1 ms: %d, want 1", got)
	}
	if got := d.countAbove(45e3); got != 3 {
		t.Errorf("above 0.045 ms: %d, want 3", got)
	}
}
