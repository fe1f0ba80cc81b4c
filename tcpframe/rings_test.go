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

// TestRingsGrow: the rings start empty and grow to their bound as entries come, each entry
// found where its number puts it: 300 ACKs (offsets 10, 20, …, 3000 at times 1…300) leave
// the newest 256, and 600 segments leave the newest 512 (the 88 first forgotten).
func TestRingsGrow(t *testing.T) {
	var a ackRing
	if _, ok := a.firstCovering(0); ok || len(a.off) != 0 {
		t.Fatalf("empty ring: found an ACK, or holds %d entries", len(a.off))
	}
	for i := int64(1); i <= 300; i++ {
		a.push(10*i, i)
		// A lookup at each size, in stream order as messages are.
		if at, ok := a.firstCovering(10*i - 5); !ok || at != i {
			t.Fatalf("after %d pushes: first covering %d at %d %v, want %d", i, 10*i-5, at, ok, i)
		}
	}
	if len(a.off) != ackRingSize || a.n != ackRingSize {
		t.Fatalf("%d entries held of %d, want %d", a.n, len(a.off), ackRingSize)
	}
	// The oldest remembered is ACK 45 (offset 450); a lookup behind the last one searches.
	for _, c := range []struct{ off, want int64 }{{441, 45}, {450, 45}, {451, 46}, {2995, 300}} {
		if at, ok := a.firstCovering(c.off); !ok || at != c.want {
			t.Errorf("first covering %d: %d %v, want %d", c.off, at, ok, c.want)
		}
	}
	if _, ok := a.firstCovering(3001); ok {
		t.Error("an ACK beyond the newest was found")
	}

	var s sentRing
	for i := int64(0); i < 600; i++ {
		s.push(100*i, 100*i+100, i, i == 590)
	}
	if len(s.seg) != sentRingSize || s.n != sentRingSize {
		t.Fatalf("%d segments held of %d, want %d", s.n, len(s.seg), sentRingSize)
	}
	// The ACK of segment 200's end forgets 88…200 and samples 200 (sent at 200, acked at 1000).
	if smp, ok := s.ack(20100, 1000); !ok || smp != 800 || s.n != 600-201 {
		t.Errorf("ack 20100: sample %d %v, %d held; want 800, 399 held", smp, ok, s.n)
	}
	// Segment 590 was sent twice: Karn's rule takes no sample of it.
	if _, ok := s.ack(59100, 2000); ok {
		t.Error("a retransmitted segment gave a sample")
	}
}

// TestRetxRingWraps: 40 retransmitted ranges [100i, 100i+50) seen at times i: the ring holds
// the newest 32 (8 to 39). A message from byte 3950 first seen at 35 waited behind range 35;
// one first seen after the last range, behind none; one first seen at 2, whose ranges since
// were partly forgotten, is taken to have waited. A D-SACK over ranges 10-11 marks 100
// bytes spurious once.
func TestRetxRingWraps(t *testing.T) {
	var r retxRing
	for i := int64(0); i < 40; i++ {
		r.push(100*i, 100*i+50, i, false, false)
	}
	if len(r.r) != retxRingSize {
		t.Fatalf("%d ranges held, want %d", len(r.r), retxRingSize)
	}
	for _, c := range []struct {
		first, start int64
		want         bool
	}{{35, 3950, true}, {35, 3500, false}, {40, 3950, false}, {2, 100, true}} {
		if got := r.heldBehind(c.first, 40, c.start); got != c.want {
			t.Errorf("heldBehind(first %d, start %d) = %v, want %v", c.first, c.start, got, c.want)
		}
	}
	if n := r.dsack(1000, 1200); n != 100 {
		t.Errorf("dsack: %d bytes, want 100", n)
	}
	if n := r.dsack(1000, 1200); n != 0 {
		t.Errorf("dsack again: %d bytes, want 0", n)
	}
	// A D-SACK reports one redundant copy, of its block's range: at the receiver, a fast
	// retransmission that filled the hole, then the delayed original, spurious when it came
	// (its bytes were acknowledged): its D-SACK adds nothing (it made both spurious: 2,800
	// bytes of 1,400 sent twice). Two resends, both spurious: one a D-SACK. A D-SACK of a
	// resend of part of the range is that resend's.
	type dsackOf struct{ l, h, want int64 }
	for _, c := range []struct {
		name   string
		copies []retxRange // pushed in order
		dsacks []dsackOf
	}{
		{"the late original counted", []retxRange{{start: 0, end: 1400}, {start: 0, end: 1400, t: 2, spurious: true, acked: true}},
			[]dsackOf{{0, 1400, 0}}},
		{"two resends", []retxRange{{start: 0, end: 1400}, {start: 0, end: 1400, t: 2}},
			[]dsackOf{{0, 1400, 1400}, {0, 1400, 1400}, {0, 1400, 0}}},
		{"a part resent", []retxRange{{start: 0, end: 700, spurious: true, acked: true}, {start: 0, end: 1400, t: 2}},
			[]dsackOf{{0, 700, 0}, {0, 1400, 1400}}},
		{"a block over two resends", []retxRange{{start: 0, end: 700}, {start: 700, end: 1400, t: 2}},
			[]dsackOf{{0, 1400, 1400}, {0, 1400, 0}}},
	} {
		var x retxRing
		for _, g := range c.copies {
			x.push(g.start, g.end, g.t, g.spurious, g.acked)
		}
		for i, d := range c.dsacks {
			if n := x.dsack(d.l, d.h); n != d.want {
				t.Errorf("%s: D-SACK %d of [%d, %d) counts %d bytes, want %d", c.name, i, d.l, d.h, n, d.want)
			}
		}
	}
	// A resend of bytes the peer had all acknowledged held nothing; one partly
	// acknowledged may have.
	var a retxRing
	a.push(0, 100, 10, true, true)
	if a.heldBehind(5, 40, 200) {
		t.Error("held behind a resend of acknowledged bytes")
	}
	a.push(100, 300, 20, true, false)
	if !a.heldBehind(5, 40, 400) {
		t.Error("not held behind a resend partly acknowledged")
	}
	// A resend a D-SACK showed spurious held nothing either: the receiver had its original.
	var s retxRing
	s.push(0, 100, 10, false, false)
	if !s.heldBehind(5, 40, 200) {
		t.Error("not held behind a resend")
	}
	if s.spuriousOver(0, 100) {
		t.Error("spurious before its D-SACK")
	}
	if s.dsack(0, 100); s.heldBehind(5, 40, 200) || !s.spuriousOver(50, 60) || s.spuriousOver(100, 200) {
		t.Error("held behind a resend that a D-SACK showed spurious, or not spurious over its bytes")
	}
}
