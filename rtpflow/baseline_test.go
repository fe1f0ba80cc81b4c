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

// stall: samples every ms on time for 3 s, then nothing for quiet ms, when the samples
// sent meanwhile arrive together (held hd), then on time again for 6 s.
func stall(hd hold, every, quiet int64) func(add func(at, send int64, hd hold)) {
	return func(add func(at, send int64, hd hold)) {
		end := 3000 + quiet
		for s := int64(0); s < 3000; s += every {
			add(s*ms1, s*ms1, hd)
		}
		for s := int64(3000); s < end; s += every {
			add(end*ms1, s*ms1, hd)
		}
		for s := end; s < end+6000; s += every {
			add(s*ms1, s*ms1, hd)
		}
	}
}

// heldFirst: a stream's first 40 samples (sent 0 … 780 ms) arrive together at 800 ms (held
// hd), then the rest on time, up to a stream of length ms.
func heldFirst(hd hold, length int64) func(add func(at, send int64, hd hold)) {
	return func(add func(at, send int64, hd hold)) {
		for s := int64(0); s < 800; s += 20 {
			add(800*ms1, s*ms1, hd)
		}
		for s := int64(800); s < length; s += 20 {
			add(s*ms1, s*ms1, holdNone)
		}
	}
}

// TestBaselineTCPHolds: packets that TCP held, measured against the level before or after
// them.
//   - A stall of 6 s, 20 ms apart: over TCP the samples held are late by its end less their
//     send time, up to 6 s, 293 of them by more than 150 ms (before, they were measured
//     against one another: none late). Over UDP, where nothing holds packets for seconds, a
//     silence keeps its old reading: the look-back starts again after it. Of 15 s, more
//     samples (750) than maxPending: the first were judged with a look-ahead of held
//     samples only (max 10.2 s): 15 s, 743 late. Of 3 s at 200 samples a second (600), a
//     stall shorter than the window, the same: max 2.55 s, now 3 s, 570 late.
//   - A stream's first samples held behind a retransmission (a resent Allocate response):
//     the look-back holds no sample TCP did not hold, and they are measured by the
//     look-ahead's level, up to 800 ms late, 33 by more than 150 ms (before, the first
//     sample was on time by definition, and all were), also when the stream ends 4 s
//     later (a short look-ahead: before, none). Not held by TCP (a sender's own backlog),
//     the first sample stays the reference, as a jitter buffer takes it.
func TestBaselineTCPHolds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		feed     func(add func(at, send int64, hd hold))
		late     int
		maxDelay int64 // ms
	}{
		{"a stall over TCP", stall(holdNone, 20, 6000), 293, 6000},
		{"a silence over UDP", stall(holdUDP, 20, 6000), 0, 0},
		{"a stall of more samples than maxPending", stall(holdNone, 20, 15000), 743, 15000},
		{"a stall of 3 s at 200 samples a second", stall(holdNone, 5, 3000), 570, 3000},
		{"held from the start behind a retransmission", heldFirst(holdRetransmission, 6000), 33, 800},
		{"held from the start, the stream ending 4 s later", heldFirst(holdRetransmission, 4000), 33, 800},
		{"the sender's backlog at the start", heldFirst(holdNone, 6000), 0, 0},
	} {
		late, maxDelay := judgeAll(tc.feed)
		if late != tc.late || maxDelay != tc.maxDelay*ms1 {
			t.Errorf("%s: %d late, max delay %d ms; want %d and %d ms", tc.name, late, maxDelay/ms1, tc.late, tc.maxDelay)
		}
	}
}
