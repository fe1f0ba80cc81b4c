package quantile

import "testing"

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
