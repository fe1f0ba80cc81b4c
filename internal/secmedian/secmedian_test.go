package secmedian

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sec = int64(1e9)

func f(v float64) *float64 { return &v }

// TestMediansOnAnotherGrid: samples binned by Unix second are read on a grid that starts
// 0.5 s into a second: each grid second takes the samples of its own half-seconds.
func TestMediansOnAnotherGrid(t *testing.T) {
	var s Series
	t0 := 100*sec + sec/2
	s.Add(t0-1, 1)        // before the grid
	s.Add(t0, 10)         // grid second 0
	s.Add(t0+sec/4, 30)   // 0
	s.Add(t0+sec*3/4, 20) // 0 (Unix second 101)
	s.Add(t0+2*sec+1, 50) // 2
	s.Add(t0+5*sec, 70)   // after the grid
	got := Medians(t0, 4, &s, nil)
	want := []*float64{f(20), nil, f(50), nil}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("medians (-want +got):\n%s", d)
	}
	if s.Samples() != 6 {
		t.Errorf("samples %d, want 6", s.Samples())
	}
	if Medians(t0+10*sec, 3, &s) != nil {
		t.Error("medians of seconds without samples, want nil")
	}
}

// TestBoundedPerSecond: 1000 samples in one second keep at most binSize, evenly spread,
// and their median stays in the middle of the values (0..999).
func TestBoundedPerSecond(t *testing.T) {
	var s Series
	for i := range 1000 {
		s.Add(7*sec+int64(i)*1e6, float64(i))
	}
	b := s.bins[0]
	if b.n > binSize || b.n < binSize/2 {
		t.Fatalf("kept %d samples, want %d..%d", b.n, binSize/2, binSize)
	}
	for j := 1; j < int(b.n); j++ {
		if d := b.s[j].ms - b.s[j-1].ms; d != float32(b.stride) {
			t.Errorf("kept %v, not every %d-th", b.s[:b.n], b.stride)
			break
		}
	}
	m := *Medians(7*sec, 1, &s)[0]
	if m < 300 || m > 700 {
		t.Errorf("median %v of 0..999, want near 500", m)
	}
}

// TestOutOfOrderAndJumps: a sample before the first second extends the series back; a jump
// of more than an hour is left out.
func TestOutOfOrderAndJumps(t *testing.T) {
	var s Series
	s.Add(10*sec, 5)
	s.Add(8*sec, 3)
	s.Add(10*sec+2*breakSeconds*sec, 9)
	got := Medians(8*sec, 3, &s)
	if d := cmp.Diff([]*float64{f(3), nil, f(5)}, got); d != "" {
		t.Errorf("medians (-want +got):\n%s", d)
	}
	if len(s.bins) != 3 {
		t.Errorf("%d seconds held, want 3", len(s.bins))
	}
}

// TestAddAllocatesOnlyForNewSeconds: samples in a second already held allocate nothing.
func TestAddAllocatesOnlyForNewSeconds(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	var s Series
	s.Add(sec, 1)
	if n := testing.AllocsPerRun(100, func() { s.Add(sec+5, 2) }); n != 0 {
		t.Errorf("%v allocations per sample", n)
	}
}
