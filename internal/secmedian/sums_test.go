package secmedian

import (
	"slices"
	"testing"
)

// TestSumsSpread reads sums kept on the clock's grid on grids of other origins: whole where
// the grid's boundary falls outside a second's additions, shared in proportion where it
// falls between them.
func TestSumsSpread(t *testing.T) {
	const s = int64(1e9)
	base := 1_700_000_000 * s // a Unix second
	tests := []struct {
		name string
		adds [][2]int64 // time (ns from base), amount
		t0   int64      // the grid's origin, ns from base
		n    int
		want []float64
	}{
		{"on the clock's seconds", [][2]int64{{100e6, 10}, {1100e6, 20}, {1900e6, 5}}, 0, 3, []float64{10, 25, 0}},
		{"two additions a second, grid at 0.5 s", [][2]int64{{100e6, 10}, {600e6, 20}, {1700e6, 5}}, 500e6, 3, []float64{20, 5, 0}},
		{"before the grid's origin: left out", [][2]int64{{100e6, 10}, {700e6, 20}}, 500e6, 2, []float64{20, 0}},
		{"three in a second, the boundary outside them", [][2]int64{{600e6, 1}, {700e6, 2}, {800e6, 4}}, 500e6, 1, []float64{7}},
		{"after its last second: left out", [][2]int64{{100e6, 10}, {2100e6, 20}}, 0, 2, []float64{10, 0}},
		// 100 bytes from 0.2 s to 0.8 s of a second, the grid's boundary at 0.35 s: a
		// quarter before it.
		{"three in a second, shared", [][2]int64{{200e6, 40}, {500e6, 30}, {800e6, 30}}, 350e6 - s, 2, []float64{25, 75}},
		{"unsorted: an earlier second after a later one", [][2]int64{{3100e6, 7}, {100e6, 3}}, 0, 4, []float64{3, 0, 0, 7}},
		{"a jump of more than an hour: left out", [][2]int64{{0, 1}, {(breakSeconds + 2) * s, 9}}, 0, 1, []float64{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Sums
			b.Anchor(0) // the clock's grid, where the reads below share seconds out
			for _, a := range tt.adds {
				b.Add(base+a[0], a[1])
			}
			got := make([]float64, tt.n)
			b.Spread(got, base+tt.t0)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if len(b.secs) > 4 {
				t.Errorf("holds %d seconds", len(b.secs))
			}
		})
	}
}

// TestSumsMerge adds one Sums to another, with seconds before, inside and after its own.
func TestSumsMerge(t *testing.T) {
	const s = int64(1e9)
	var a, b Sums
	a.Anchor(0)
	b.Anchor(0)
	a.Add(5*s+100e6, 1)
	a.Add(6*s+900e6, 2)
	b.Add(4*s+500e6, 4)
	b.Add(6*s+200e6, 8)
	b.Add(7*s, 16)
	a.Merge(&b)
	got := make([]float64, 4)
	a.Spread(got, 4*s)
	if want := []float64{4, 1, 10, 16}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// Second 6 holds two additions, read exactly on a grid at 5.55 s; a third makes it
	// shared out evenly from 6.2 s to 6.9 s, which the grid's boundary at 6.55 s halves.
	got = make([]float64, 2)
	a.Spread(got, 6*s+550e6-s)
	if want := []float64{8, 2 + 16}; !slices.Equal(got, want) {
		t.Errorf("on a grid at 5.55 s: got %v, want %v", got, want)
	}
	var c Sums
	c.Anchor(0)
	c.Add(6*s+500e6, 10)
	a.Merge(&c)
	got = make([]float64, 2)
	a.Spread(got, 6*s+550e6-s)
	if want := []float64{10, 10 + 16}; !slices.Equal(got, want) {
		t.Errorf("with a third addition: got %v, want %v", got, want)
	}
}

// TestSumsAnchor: before the anchor, the latest additions are kept whole and read exactly
// on any grid; once anchored at a reader's origin, seconds of many additions read exactly
// there, where on another grid a boundary between them shares them out evenly.
func TestSumsAnchor(t *testing.T) {
	const s = int64(1e9)
	t0 := 10*s + 530e6
	// One addition at 10.1 s, before the origin; then 30 from 10.6 s, 20 ms apart.
	adds := func(b *Sums) {
		for i := range int64(30) {
			b.Add(10*s+600e6+i*20e6, 2)
		}
	}
	var free, anchored, clock Sums
	clock.Anchor(0)
	for _, b := range []*Sums{&free, &anchored, &clock} {
		b.Add(10*s+100e6, 5)
	}
	anchored.Anchor(t0)
	for _, b := range []*Sums{&free, &anchored, &clock} {
		adds(b)
	}
	if !anchored.anchored || free.anchored {
		t.Fatalf("anchored %v, free %v", anchored.anchored, free.anchored)
	}
	for name, b := range map[string]*Sums{"not anchored": &free, "anchored": &anchored} {
		got := make([]float64, 2)
		b.Spread(got, t0)
		if want := []float64{60, 0}; !slices.Equal(got, want) {
			t.Errorf("%s, read at its origin: got %v, want %v", name, got, want)
		}
	}
	// On the clock's grid, second 10 holds 10.1 s to 10.98 s, 21 additions (45), of which
	// the boundary at 10.53 s leaves 21 (0.43/0.88 of 45, rounded down) before it: 24 after
	// it, where the 12 additions after 10.53 s made 24; second 11 adds its 10 (20).
	got := make([]float64, 2)
	clock.Spread(got, t0)
	if want := []float64{24 + 20, 0}; !slices.Equal(got, want) {
		t.Errorf("on the clock's grid: got %v, want %v", got, want)
	}
	// Read half a second earlier, the anchored sums put the addition before the anchor
	// whole in the first second, and share out their first second (10.6 s to 11.18 s) at
	// 11.03 s: 44 of 60 before it, as the 22 additions there.
	got = make([]float64, 2)
	anchored.Spread(got, t0-s/2)
	if want := []float64{5 + 44, 16}; !slices.Equal(got, want) {
		t.Errorf("anchored, read half a second earlier: got %v, want %v", got, want)
	}
	// Never anchored, more additions than it keeps whole: the older ones go on the clock's
	// grid, and the sum is whole.
	for i := range int64(100) {
		free.Add(12*s+i*5e6, 1)
	}
	got = make([]float64, 3)
	free.Spread(got, 10*s)
	if want := []float64{45, 20, 100}; !slices.Equal(got, want) || len(free.recent) >= maxRecent {
		t.Errorf("not anchored, 131 additions: got %v, want %v (%d kept whole)", got, want, len(free.recent))
	}
}
