package rtpflow

import "testing"

// TestTSRing: frames of three packets (numbers 100.. , timestamps 3,000 apart from 1,000),
// the frame of timestamp 10,000 (numbers 109-111) lost whole and number 115 lost.
func TestTSRing(t *testing.T) {
	var r tsRing
	for ext := int64(100); ext < 121; ext++ {
		if ext >= 109 && ext <= 111 || ext == 115 {
			continue
		}
		r.add(uint32(1000+3000*((ext-100)/3)), ext)
	}
	if r.n != 6 {
		t.Fatalf("%d frames, want 6", r.n)
	}
	spans := []struct {
		ts     uint32
		lo, hi int64
	}{
		{1000, 100, 102},  // the first: no frame before
		{7000, 106, 111},  // up to the frame after: 109-111 may be its tail
		{13000, 109, 115}, // from after the frame before, to before 116
		{16000, 115, 117}, // its first packet lost: the span starts after the frame before
		{19000, 118, 130}, // the last: up to the highest given
	}
	for _, sp := range spans {
		age, ok := r.find(sp.ts)
		if !ok {
			t.Errorf("find(%d) failed", sp.ts)
			continue
		}
		if lo, hi := r.span(age, 130); lo != sp.lo || hi != sp.hi {
			t.Errorf("span of %d = [%d, %d], want [%d, %d]", sp.ts, lo, hi, sp.lo, sp.hi)
		}
	}
	if lo, hi, ok := r.gap(10000); !ok || lo != 109 || hi != 111 {
		t.Errorf("gap(10000) = %d, %d, %v; want 109, 111, true", lo, hi, ok)
	}
	if _, _, ok := r.gap(5000); ok {
		t.Error("gap(5000): between two frames with no number missing")
	}
	// has: a frame seen, or any timestamp in a frame lost whole; not between frames that
	// miss nothing, nor after the last.
	for ts, want := range map[uint32]bool{4000: true, 10000: true, 8500: true, 5000: false, 22000: false} {
		if got := r.has(ts); got != want {
			t.Errorf("has(%d) = %v, want %v", ts, got, want)
		}
	}
	last := uint32(19000)
	if !r.near(last+tsNear-1) || r.near(last+tsNear) || !r.near(last-tsNear+1) || r.near(last-tsNear) {
		t.Error("near")
	}
}

// TestTSRingLatePacket: frames of three packets (numbers 100.., timestamps 3,000 apart from
// 1,000), number 105, the last of the second frame, lost, and number 101 of the first
// arriving late, after 106 of the third. It extends the first frame and opens no frame of
// its own, so the second frame may still own 105 (before: its span ended at 100, the late
// packet's number less one, and an RTX packet resending 105 was taken for a probe).
func TestTSRingLatePacket(t *testing.T) {
	var r tsRing
	for _, ext := range []int64{100, 102, 103, 104, 106, 101, 107, 108} {
		if ext == 101 {
			r.late(1000, ext) // it filled a gap (Stream.add)
			continue
		}
		r.add(uint32(1000+3000*((ext-100)/3)), ext)
	}
	if r.n != 3 {
		t.Fatalf("%d frames, want 3", r.n)
	}
	age, ok := r.find(4000)
	if lo, hi := r.span(age, 108); !ok || lo != 103 || hi != 105 {
		t.Errorf("span of the second frame = [%d, %d], want [103, 105]", lo, hi)
	}
	if age, _ := r.find(1000); r.at(age).first != 100 || r.at(age).last != 102 {
		t.Errorf("first frame %+v, want numbers 100-102", *r.at(age))
	}
}
