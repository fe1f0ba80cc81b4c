package rtpflow

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSeqWindowAdvance checks the word-wise clearing against a bit-by-bit model.
func TestSeqWindowAdvance(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	w := newSeqWindow()
	model := make([]bool, windowBits)
	high := int64(-5)
	for step := 0; step < 2000; step++ {
		var d int64
		switch r.IntN(3) {
		case 0:
			d = int64(r.IntN(3) + 1)
		case 1:
			d = int64(r.IntN(200) + 1)
		default:
			d = int64(r.IntN(windowBits + 100))
		}
		if d == 0 {
			d = 1
		}
		w.advance(high, high+d)
		for x := high + 1; x <= high+d && x <= high+windowBits; x++ {
			model[uint64(x)&(windowBits-1)] = false
		}
		high += d
		for k := 0; k < 5; k++ {
			x := high - int64(r.IntN(windowBits))
			w.testSet(x)
			model[uint64(x)&(windowBits-1)] = true
		}
		for k := 0; k < 50; k++ {
			x := high - int64(r.IntN(windowBits))
			if w.has(x) != model[uint64(x)&(windowBits-1)] {
				t.Fatalf("step %d: bit %d = %v, model %v", step, x, w.has(x), !w.has(x))
			}
		}
	}
}

func TestSelectK(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 1; n < 300; n += 7 {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(r.IntN(50)) // many equal values
		}
		sorted := slices.Clone(v)
		slices.Sort(sorted)
		for _, k := range []int{0, n / 2, (n+1)/2 - 1, n - 1} {
			w := slices.Clone(v)
			if got := selectK(w, k); got != sorted[k] {
				t.Fatalf("n=%d k=%d: %d, want %d", n, k, got, sorted[k])
			}
		}
	}
}
