package tcpframe

import "testing"

// One-byte segments with a one-byte hole after each never merge into longer runs. When they
// pass the bound on runs kept, holes are given up down to three quarters of it at once: given
// up one at a time, every later segment paid a compaction linear in the bound (81 s for
// 500,000 segments).
func TestDenseHolesGivenUpInBatches(t *testing.T) {
	f := newFeeder(t, Config{})
	f.handshake(0, 0, ms(60), 1000, 5000)
	d := &f.c.dirs[0]
	bound := d.st.maxChunks()
	crossings := 0
	for k := 1; k <= 3*bound; k++ {
		before := d.st.cs.n()
		f.send(seg(ms(100)+int64(k), true, fACK|fPSH, 1001+2*uint32(k), 5001, []byte{0x80}))
		n := d.st.cs.n()
		if n > bound {
			t.Fatalf("segment %d: %d runs kept, bound %d", k, n, bound)
		}
		if n < before {
			crossings++
			if n > bound*3/4 {
				t.Fatalf("segment %d: %d runs left after giving up holes, want at most %d", k, n, bound*3/4)
			}
		}
	}
	f.close()
	if crossings == 0 || crossings > 3*4 {
		t.Errorf("holes given up %d times for %d segments, bound %d", crossings, 3*bound, bound)
	}
}
