package rtpflow

import "testing"

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

// TestQuantilesOverlapping: a direction merges its streams' segments, which overlap: 100
// values 0, 10, …, 990 ns and 2 values 935 and 940. Ranks 97 (p95) and 101 (p99) of 102
// are 940 (95 of the first and both of the second at or below it) and 980; interpolating
// inside the first segment gave 960, then 935 in the second: p99 below p95.
func TestQuantilesOverlapping(t *testing.T) {
	q := quantiles([]seg{{935, 940, 2}, {0, 990, 100}}, 102, 95, 99)
	if q[0] != 940 || q[1] != 980 {
		t.Errorf("p95, p99 = %v, want 940 and 980", q)
	}
}
