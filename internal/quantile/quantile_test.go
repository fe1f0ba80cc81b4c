package quantile

import (
	"math"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func TestHistExactEnds(t *testing.T) {
	var q Hist
	for i := 1; i <= 1000; i++ {
		q.Record(float64(i)) // 1..1000 ms
	}
	s := q.Summary()
	if s.Samples != 1000 || s.Min != 1 || s.Max != 1000 {
		t.Fatalf("got %+v", s)
	}
	for _, c := range []struct{ p, want float64 }{{50, 500}, {95, 950}, {99, 990}} {
		got := q.Quantile(c.p)
		if got < c.want*0.99 || got > c.want*1.01 {
			t.Errorf("p%v = %v, want %v within 1%%", c.p, got, c.want)
		}
	}
}

func TestHistEmpty(t *testing.T) {
	var q Hist
	if q.Summary() != nil {
		t.Fatal("empty histogram must summarise to nil")
	}
}

// TestHistSwitchOver: a distribution that outgrows the exact samples reads as one whose
// histogram held every sample from the first (the exact ones are recorded in it when it is
// made), and one that does not never allocates a histogram.
func TestHistSwitchOver(t *testing.T) {
	for _, n := range []int{exactSamples, exactSamples + 1, 3000} {
		var q Hist
		ref := hdrhistogram.New(1, maxMicros, 2)
		for i := range n {
			ms := float64((i*7919)%1000) / 3 // out of order, sub-millisecond parts, a 0
			q.Record(ms)
			_ = ref.RecordValue(micros(ms))
		}
		if (q.h != nil) != (n > exactSamples) {
			t.Fatalf("%d samples: histogram allocated %v", n, q.h != nil)
		}
		if n <= exactSamples {
			continue
		}
		for _, p := range []float64{50, 95, 99} {
			want := math.Min(math.Max(float64(ref.ValueAtQuantile(p))/1000, q.min), q.max)
			if got := q.Quantile(p); got != want {
				t.Errorf("%d samples: p%v = %v, histogram from the first sample %v", n, p, got, want)
			}
		}
	}
}
