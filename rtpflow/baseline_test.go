package rtpflow

import "testing"

// judgeAll feeds a baseline the samples feed adds (arrival, send time, hold), in arrival
// order, judges them all, and returns how many were late (over 150 ms) and the largest
// delay.
func judgeAll(feed func(add func(at, send int64, hd hold))) (late int, maxDelay int64) {
	var b baseline
	take := func(ahead bool) {
		_, d := b.judge(ahead)
		if d > 150*ms1 {
			late++
		}
		maxDelay = max(maxDelay, d)
	}
	feed(func(at, send int64, hd hold) {
		for b.due(at) {
			take(true)
		}
		b.push(bsample{at: at, rel: at - send, n: 1, hd: hd})
	})
	for b.pending.n > 0 {
		take(false)
	}
	return late, maxDelay
}

// stall: samples every 20 ms on time for 3 s, then nothing until 9 s, when the 300 samples
// sent meanwhile arrive together (held hd), then on time again.
func stall(hd hold) func(add func(at, send int64, hd hold)) {
	return func(add func(at, send int64, hd hold)) {
		for s := int64(0); s < 3000; s += 20 {
			add(s*ms1, s*ms1, hd)
		}
		for s := int64(3000); s < 9000; s += 20 {
			add(9000*ms1, s*ms1, hd)
		}
		for s := int64(9000); s < 15000; s += 20 {
			add(s*ms1, s*ms1, hd)
		}
	}
}

// heldFirst: a stream's first 40 samples (sent 0 … 780 ms) arrive together at 800 ms (held
// hd), then the rest on time.
func heldFirst(hd hold) func(add func(at, send int64, hd hold)) {
	return func(add func(at, send int64, hd hold)) {
		for s := int64(0); s < 800; s += 20 {
			add(800*ms1, s*ms1, hd)
		}
		for s := int64(800); s < 6000; s += 20 {
			add(s*ms1, s*ms1, holdNone)
		}
	}
}

// TestBaselineTCPHolds: packets that TCP held, measured against the level before or after
// them.
//   - A stall: over TCP the samples held are late by 9 s less their send time, up to 6 s,
//     293 of them by more than 150 ms (before, they were measured against one another: none
//     late). Over UDP, where nothing holds packets for seconds, a silence keeps its old
//     reading: the look-back starts again after it.
//   - A stream's first samples held behind a retransmission (a resent Allocate response):
//     the look-back holds no sample TCP did not hold, and they are measured by the
//     look-ahead's level, up to 800 ms late, 33 by more than 150 ms (before, the first
//     sample was on time by definition, and all were). Not held by TCP (a sender's own
//     backlog), the first sample stays the reference, as a jitter buffer takes it.
func TestBaselineTCPHolds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		feed     func(add func(at, send int64, hd hold))
		late     int
		maxDelay int64 // ms
	}{
		{"a stall over TCP", stall(holdNone), 293, 6000},
		{"a silence over UDP", stall(holdUDP), 0, 0},
		{"held from the start behind a retransmission", heldFirst(holdRetransmission), 33, 800},
		{"the sender's backlog at the start", heldFirst(holdNone), 0, 0},
	} {
		late, maxDelay := judgeAll(tc.feed)
		if late != tc.late || maxDelay != tc.maxDelay*ms1 {
			t.Errorf("%s: %d late, max delay %d ms; want %d and %d ms", tc.name, late, maxDelay/ms1, tc.late, tc.maxDelay)
		}
	}
}
