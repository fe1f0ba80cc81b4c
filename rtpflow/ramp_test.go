package rtpflow

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/callpcap/callpcap/report"
)

func bp(v bool) *bool { return &v }

func TestRamp(t *testing.T) {
	tests := []struct {
		name   string
		kbps   []float64
		target float64
		want   *report.Ramp
	}{
		{"empty", nil, 0, nil},
		{
			// Second half [4:] = 1000 ×4 → plateau 1000. MA: 0, 50, 233.3, 533.3, 833.3,
			// 1000…: ≥ 500 at 3, ≥ 900 at 5. After t90 every MA is 1000: stable, cv 0.
			name: "linear ramp then flat",
			kbps: []float64{0, 100, 600, 900, 1000, 1000, 1000, 1000},
			want: &report.Ramp{TargetKbps: 1000, TargetSource: "plateau", PlateauKbps: 1000,
				T50S: f64(3), T90S: f64(5), Stable: bp(true), CVAfterT90: f64(0)},
		},
		{
			// Target 2000 from the option: MA(5) = 966.7, MA(6) = 1000 reaches 50%; 1800 never.
			name: "option target never reached",
			kbps: []float64{0, 100, 600, 900, 1000, 1000, 1000, 1000}, target: 2000,
			want: &report.Ramp{TargetKbps: 2000, TargetSource: "option", PlateauKbps: 1000, T50S: f64(6)},
		},
		{
			// Second half [5:] = 200, 1800, 200, 1800, 1800 → plateau 1800 (median).
			// MA(0) = 1000 ≥ 900 → t50 = 0; MA(4..9) = 1400, 1133, 1333, 733, 1267, 1267
			// never reach 1620: t90, stable and cv are null.
			name: "oscillating",
			kbps: []float64{1000, 1000, 1000, 1200, 2000, 200, 1800, 200, 1800, 1800},
			want: &report.Ramp{TargetKbps: 1800, TargetSource: "plateau", PlateauKbps: 1800,
				T50S: f64(0)},
		},
		{
			// t90 at the last second: nothing after it, so stable and cv are null.
			name: "t90 at the end",
			kbps: []float64{0, 0, 0, 3000, 3000, 3000},
			want: &report.Ramp{TargetKbps: 3000, TargetSource: "plateau", PlateauKbps: 3000,
				T50S: f64(4), T90S: f64(5)},
		},
		{
			// Plateau = median of [2:] = 1000, 1000, 0 → 1000. t50 = t90 = 0 (MA(0) = 1000);
			// after it MA = 1000, 1000, 1000, 666.7: 3 of 4 within ±20% < 80% → unstable;
			// cv of 1000, 1000, 1000, 0 = 433.01/750 = 0.5774.
			name: "drop at the end",
			kbps: []float64{1000, 1000, 1000, 1000, 0},
			want: &report.Ramp{TargetKbps: 1000, TargetSource: "plateau", PlateauKbps: 1000,
				T50S: f64(0), T90S: f64(0), Stable: bp(false), CVAfterT90: f64(0.5774)},
		},
		{
			// 1000 ×15, silent ×10, 600 ×5: the active seconds are the 20 with media, their
			// second half 1000 ×5 and 600 ×5 → plateau 800 (over the span's second half,
			// 0). MA(0) = 1000 ≥ 720: t50 = t90 = 0. After it no MA is within 640..960
			// (1000 ×14, then 666.7 and the silence's 333.3 and 0, then 200, 400, 600 ×3):
			// 4 of 29 → unstable; cv of kbps[1:] 0.7652.
			name: "silence in the middle",
			kbps: slices.Concat(rep(1000, 15), rep(0, 10), rep(600, 5)),
			want: &report.Ramp{TargetKbps: 800, TargetSource: "plateau", PlateauKbps: 800,
				T50S: f64(0), T90S: f64(0), Stable: bp(false), CVAfterT90: f64(0.7652)},
		},
		{
			// Target 1000 from the option; the plateau (second half of 13 active seconds,
			// [6:]) is 2000. MA: 100, 300, 533.3, 1166.7 → t50 = 2, t90 = 3. After it MA
			// is 1666.7, then 2000: none within 800..1200 of the target, stable false
			// (DESIGN: the plateau is the target when one is given), though every one is
			// within ±20% of 2000 (HeldAround).
			name: "option target below where it settled",
			kbps: slices.Concat([]float64{100, 500, 1000}, rep(2000, 10)), target: 1000,
			want: &report.Ramp{TargetKbps: 1000, TargetSource: "option", PlateauKbps: 2000,
				T50S: f64(2), T90S: f64(3), Stable: bp(false), CVAfterT90: f64(0)},
		},
		{
			name: "no media",
			kbps: []float64{0, 0, 0},
			want: &report.Ramp{TargetSource: "plateau"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Ramp(tt.kbps, tt.target)); diff != "" {
				t.Errorf("Ramp (-want +got):\n%s", diff)
			}
		})
	}
}

func rep(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }

func TestHeldAround(t *testing.T) {
	kbps := slices.Concat([]float64{100, 500, 1000}, rep(2000, 10))
	// MA after t90 = 3: 1666.7, then 2000.
	for _, tt := range []struct {
		level float64
		want  bool
	}{{2000, true}, {1000, false}, {1700, true}, {2500, true}, {2600, false}} {
		if got := HeldAround(kbps, 3, tt.level); got != tt.want {
			t.Errorf("HeldAround(level %v) = %v, want %v", tt.level, got, tt.want)
		}
	}
	// A moving average exactly 20% off counts as within, its floating-point sum aside.
	if !within20((25.6+64+64)/3, 64) {
		t.Error("(25.6+64+64)/3 not within 20% of 64")
	}
	if HeldAround(kbps, len(kbps)-1, 2000) {
		t.Error("HeldAround with no second after t90 = true")
	}
}

func TestStableBesidePauses(t *testing.T) {
	for _, tt := range []struct {
		name   string
		kbps   []float64
		t90    int
		paused []int
		stable bool
	}{
		{"steady", []float64{10, 64, 64, 64, 64}, 0, nil, true},
		// Under 6.4 kbps (a tenth of 64) is a pause; 20.5 and 32 hold its start and end.
		{"a hold", []float64{64, 64, 64, 20.5, 0, 0, 0.04, 32, 64, 64, 64}, 0, []int{4, 5, 6}, true},
		{"swinging, no pause", []float64{64, 20, 64, 20, 64, 20}, 0, nil, false},
		{"a hold, and swinging besides", []float64{64, 20, 64, 20, 64, 0, 0, 0, 64, 20, 64, 20, 64}, 0, []int{5, 6, 7}, false},
		{"from t90", []float64{0, 0, 0, 64, 64, 64}, 2, nil, true},
		{"nothing after t90", []float64{64, 64}, 1, nil, false},
		{"no t90", []float64{64, 64}, -1, nil, false},
	} {
		paused, stable := StableBesidePauses(tt.kbps, tt.t90)
		if !slices.Equal(paused, tt.paused) || stable != tt.stable {
			t.Errorf("%s: paused %v, stable %v; want %v, %v", tt.name, paused, stable, tt.paused, tt.stable)
		}
	}
}

// TestLevelStep: one change of level after t90, each level held, is a step; two changes,
// a level that swings, levels within 20% of each other, or a side shorter than minLevelSpan
// is not.
func TestLevelStep(t *testing.T) {
	run := func(parts ...[2]float64) []float64 { // [seconds, kbps]
		var v []float64
		for _, p := range parts {
			for range int(p[0]) {
				v = append(v, p[1])
			}
		}
		return v
	}
	swing := make([]float64, 20)
	for i := range swing {
		swing[i] = float64(40 + 40*(i%2))
	}
	for _, c := range []struct {
		name     string
		kbps     []float64
		t90      int
		at       int
		from, to float64
		ok       bool
	}{
		{"codec change", run([2]float64{10, 64}, [2]float64{20, 32}), 0, 10, 64, 32, true},
		{"settled lower", run([2]float64{2, 500}, [2]float64{20, 2060}, [2]float64{40, 560}), 2, 22, 2060, 560, true},
		{"up, with noise", append(run([2]float64{8, 1000}), 1100, 900, 2000, 2100, 1900, 2000, 2050), 0, 10, 1012.5, 2012.5, true},
		{"two changes", run([2]float64{10, 64}, [2]float64{10, 32}, [2]float64{10, 64}), 0, 0, 0, 0, false},
		{"swinging", swing, 0, 0, 0, 0, false},
		{"within 20% each way", run([2]float64{10, 100}, [2]float64{10, 84}), 0, 0, 0, 0, false},
		{"21% above", run([2]float64{10, 605}, [2]float64{20, 500}), 0, 10, 605, 500, true},
		// Each level's seconds alternate around it: the levels are their means.
		// The seconds around the split are left out of the levels.
		{"noisy levels", slices.Concat([]float64{0}, slices.Repeat([]float64{900, 1100}, 5), []float64{1000, 500},
			slices.Repeat([]float64{450, 550}, 8)), 0, 12, 1000, 500, true},
		{"a transition second", slices.Concat(slices.Repeat([]float64{64}, 10), []float64{40}, slices.Repeat([]float64{32}, 19)), 0, 10, 64, 32, true},
		{"short side", run([2]float64{10, 64}, [2]float64{2, 32}), 0, 0, 0, 0, false},
		{"no t90", run([2]float64{10, 64}, [2]float64{10, 32}), -1, 0, 0, 0, false},
	} {
		at, from, to, ok := LevelStep(c.kbps, c.t90)
		if at != c.at || from != c.from || to != c.to || ok != c.ok {
			t.Errorf("%s: %d %v %v %v, want %d %v %v %v", c.name, at, from, to, ok, c.at, c.from, c.to, c.ok)
		}
	}
}
