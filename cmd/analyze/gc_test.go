package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestDeferFirstGC checks that the collector is off until the first collection and paced
// as usual (GOGC=100, no memory limit) after it.
func TestDeferFirstGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }()

	deferFirstGC()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("before the first collection: GOGC %d, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != firstGC {
		t.Fatalf("before the first collection: memory limit %d, want %d", l, firstGC)
	}
	runtime.GC()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if debug.SetMemoryLimit(-1) == math.MaxInt64 {
			break
		}
	}
	if p := debug.SetGCPercent(-1); p != 100 {
		t.Errorf("after the first collection: GOGC %d, want 100", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("after the first collection: memory limit %d, want none", l)
	}
}

// TestDeferFirstGCLeavesTheUsersSetting checks that GOGC in the environment is left alone.
func TestDeferFirstGCLeavesTheUsersSetting(t *testing.T) {
	percent := debug.SetGCPercent(150)
	defer debug.SetGCPercent(percent)
	t.Setenv("GOGC", "150")
	deferFirstGC()
	if p := debug.SetGCPercent(150); p != 150 {
		t.Errorf("GOGC=150 in the environment: GOGC %d after deferFirstGC", p)
	}
}
