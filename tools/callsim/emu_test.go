package main

import (
	"math"
	"testing"
	"time"
)

// The emulator's queue: a back-to-back burst at twice the rate fills the
// queue to its limit and then drops; kept packets leave at the rate, one
// serialization time apart, plus the delay.
func TestAdmitQueueAndRate(t *testing.T) {
	p := linkParams{Delay: 20 * time.Millisecond, RateKbps: 5000, QueueMS: 100, Seed: 1}
	d := newDirection("test", -1, p, 0)
	t0 := time.Unix(0, 0)
	const size = 1250 // 2 ms at 5 Mbit/s
	var kept, dropped int
	var last time.Time
	for i := 0; i < 200; i++ {
		now := t0.Add(time.Duration(i) * time.Millisecond) // 10 Mbit/s offered
		at, ok := d.admit(size, now)
		if !ok {
			dropped++
			continue
		}
		if kept > 0 {
			if gap := at.Sub(last); gap != 2*time.Millisecond {
				t.Fatalf("packet %d leaves %v after the previous one, want 2ms", i, gap)
			}
		}
		last = at
		kept++
	}
	// 200 ms of offered load: ~100 ms worth served plus a 100 ms queue.
	if kept < 145 || kept > 155 {
		t.Errorf("kept %d of 200, want ~150", kept)
	}
	if d.qdrop.Load() != int64(dropped) || dropped == 0 {
		t.Errorf("queue drops %d, dropped %d", d.qdrop.Load(), dropped)
	}
	if q := d.maxQ; q < 98*time.Millisecond || q > 102*time.Millisecond {
		t.Errorf("max queue %v, want ~100ms", q)
	}
	// An idle link: a packet leaves after its serialization time plus the delay.
	idle := t0.Add(10 * time.Second)
	at, ok := d.admit(size, idle)
	if !ok || at.Sub(idle) != 22*time.Millisecond {
		t.Errorf("idle link: leaves after %v (kept %v), want 22ms", at.Sub(idle), ok)
	}
}

// Loss is random at the configured rate and repeats with the seed.
func TestAdmitLossSeeded(t *testing.T) {
	run := func(seed uint64) (lost int, pattern []bool) {
		d := newDirection("test", -1, linkParams{LossPct: 0.5, Seed: seed}, 0)
		for i := 0; i < 200000; i++ {
			_, ok := d.admit(100, time.Unix(0, 0))
			pattern = append(pattern, ok)
			if !ok {
				lost++
			}
		}
		return lost, pattern
	}
	lost, a := run(7)
	if pct := 100 * float64(lost) / 200000; math.Abs(pct-0.5) > 0.05 {
		t.Errorf("lost %.3f%%, want 0.5%%", pct)
	}
	_, b := run(7)
	_, c := run(8)
	same := func(x, y []bool) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("the same seed gave different drops")
	}
	if same(a, c) {
		t.Error("different seeds gave the same drops")
	}
}
