package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// firstGC is the memory the process may take before its first garbage collection: the
// pipeline's buffers and one or a few calls' state fit in it, and all of those are made in
// the first milliseconds and live to the end.
const firstGC = 24 << 20

// deferFirstGC holds the garbage collector off until the runtime's memory reaches firstGC,
// then hands it back to its usual pacing (GOGC=100, no limit). By default the first two
// collections come at heaps of 4 and 8 MB, while the buffers are still being made, and
// free almost nothing: on one TCP call they took 10 ms of CPU and 200 first touches of
// memory (docs/speed.md). A capture with many calls, whose state outgrows firstGC, is
// collected from there on as before, so peak memory stays where it was. GOGC or GOMEMLIMIT
// in the environment is the user's choice, and is left alone.
func deferFirstGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstGC)
	// A finalizer runs after the collection that finds its object unreachable: the first.
	// 16 bytes, so that the object is not one of the tiny ones that share a block, whose
	// finalizers may never run.
	runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
