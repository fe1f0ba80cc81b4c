package rtpflow

import "testing"

// TestBaselineAfterAStall: samples every 20 ms on time for 3 s, then nothing until 9 s,
// when the 300 samples sent meanwhile arrive together, then on time again. Over TCP that is
// a stall: the samples held are late by 9 s less their send time, up to 6 s, and 293 of
// them by more than 150 ms (they were measured against one another: none late). Over UDP,
// where nothing holds packets for seconds, a silence keeps its old reading: the look-back
// starts again after it.
func TestBaselineAfterAStall(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hd       hold
		late     int
		maxDelay int64 // ms
	}{
		{"over TCP", holdNone, 293, 6000},
		{"over UDP", holdUDP, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b baseline
			late, maxDelay := 0, int64(0)
			take := func(ahead bool) {
				_, d := b.judge(ahead)
				if d > 150*ms1 {
					late++
				}
				maxDelay = max(maxDelay, d)
			}
			add := func(at, send int64) {
				for b.due(at) {
					take(true)
				}
				b.push(bsample{at: at, rel: at - send, n: 1, hd: tc.hd})
			}
			for s := int64(0); s < 3000; s += 20 {
				add(s*ms1, s*ms1)
			}
			for s := int64(3000); s < 9000; s += 20 {
				add(9000*ms1, s*ms1)
			}
			for s := int64(9000); s < 15000; s += 20 {
				add(s*ms1, s*ms1)
			}
			for b.pending.n > 0 {
				take(false)
			}
			if late != tc.late || maxDelay != tc.maxDelay*ms1 {
				t.Errorf("%d late, max delay %d ms; want %d and %d ms", late, maxDelay/ms1, tc.late, tc.maxDelay)
			}
		})
	}
}

// TestBaselineHeldFromTheStart: a stream's first 40 samples (sent 0 … 780 ms) held by TCP
// (behind a retransmission: a resent Allocate response) arrive together at 800 ms, then
// the rest on time. The look-back of the first holds no sample TCP did not hold: they are
// measured by the look-ahead's level, up to 800 ms late, 33 of them by more than 150 ms
// (before, the first sample was on time by definition, and all were). Not held by TCP
// (a sender's own backlog), the first sample stays the reference, as a jitter buffer takes
// it.
func TestBaselineHeldFromTheStart(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hd       hold
		late     int
		maxDelay int64 // ms
	}{
		{"behind a retransmission", holdRetransmission, 33, 800},
		{"the sender's backlog", holdNone, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b baseline
			late, maxDelay := 0, int64(0)
			take := func(ahead bool) {
				_, d := b.judge(ahead)
				if d > 150*ms1 {
					late++
				}
				maxDelay = max(maxDelay, d)
			}
			add := func(at, send int64, hd hold) {
				for b.due(at) {
					take(true)
				}
				b.push(bsample{at: at, rel: at - send, n: 1, hd: hd})
			}
			for s := int64(0); s < 800; s += 20 {
				add(800*ms1, s*ms1, tc.hd)
			}
			for s := int64(800); s < 6000; s += 20 {
				add(s*ms1, s*ms1, holdNone)
			}
			for b.pending.n > 0 {
				take(false)
			}
			if late != tc.late || maxDelay != tc.maxDelay*ms1 {
				t.Errorf("%d late, max delay %d ms; want %d and %d ms", late, maxDelay/ms1, tc.late, tc.maxDelay)
			}
		})
	}
}
