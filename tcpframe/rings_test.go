package tcpframe

import (
	"math/rand/v2"
	"testing"
)

// TestAckRingFirstCovering checks the walking lookup against a linear search of the
// remembered entries, for lookups mostly in order, sometimes behind, across wrap-around.
func TestAckRingFirstCovering(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var r ackRing
	var offs, times []int64
	off, q := int64(0), int64(0)
	for i := range 5000 {
		off += 1 + rng.Int64N(3000)
		r.push(off, int64(i))
		offs, times = append(offs, off), append(times, int64(i))
		for range rng.IntN(3) {
			switch rng.IntN(10) {
			case 0:
				q = rng.Int64N(off + 5000) // anywhere, behind or beyond
			default:
				q += rng.Int64N(2000)
			}
			wantT, wantOK := int64(0), false
			for k := max(0, len(offs)-ackRingSize); k < len(offs); k++ {
				if offs[k] >= q {
					wantT, wantOK = times[k], true
					break
				}
			}
			gotT, gotOK := r.firstCovering(q)
			if gotT != wantT || gotOK != wantOK {
				t.Fatalf("push %d, lookup %d: got (%d, %v), want (%d, %v)", i, q, gotT, gotOK, wantT, wantOK)
			}
		}
	}
}
