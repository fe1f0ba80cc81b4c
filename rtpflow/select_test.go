package rtpflow

import (
	"math/rand/v2"
	"slices"
	"testing"
)

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
