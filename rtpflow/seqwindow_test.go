package rtpflow

import (
	"math/rand/v2"
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
